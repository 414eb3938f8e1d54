// The audit chain: every money-moving or irreversible action appends a record in its own
// transaction; `tpa local audit verify` walks the chain. Records are edited, deleted and swapped
// behind the engine's back (the sqlite3 module, the append-only triggers dropped first, as a
// tamperer would) and each tampering is caught at the right record.
import Database from 'better-sqlite3';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { databaseFile, Engine } from '../../src/engine/engine.js';
import { sspUuid } from '../../src/engine/store/catalog-seed.js';
import { runTpa, tpa } from '../helpers/cli.js';
import { call, tempDir, useEngineHome } from '../helpers/engine.js';

const MON = '2026-03-02T10:00:00Z';
const WED = '2026-03-04T12:00:00Z';
type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);

/** Two claims, a fund release and its arrival and reconciliation, a refund, a finalized schedule, a key. */
function buildChain(): string[] {
  const mon = home.at(MON, '0');
  const ids: string[] = [];
  for (const patient of ['MBR-1002', 'MBR-1003']) {
    const ack = call(mon, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient, serviceDate: '2026-03-02' })).body as Body;
    ids.push(ack.external_claim_id);
  }
  const detail = call(mon, 'GET', `/tpa-api/v1/ledger/entries/${ids[0]!}/`).body as Body;
  expect(
    call(mon, 'POST', '/tpa-api/v1/funding/approve/', {
      encounter_id: ids[0],
      amount: detail.financial_summary.payer_responsibility.total,
      authorization_code: 'AUTH-AUDIT-0001',
    }).status,
  ).toBe(200);
  const wed = home.at(WED, '0');
  call(wed, 'GET', `/tpa-api/v1/settlement/${ids[0]}/`);
  wed.simulate('refund', ids[0]!);
  const builder = '/api/v1/computable-contracts/builder/BLD-1001';
  expect(call(wed, 'POST', `${builder}/rate-schedule/init/`, {}).status).toBeLessThan(300);
  expect(
    call(wed, 'PUT', `${builder}/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'HD-0401'), rate_type: 'CASE_RATE', rate_value: 2100 }).status,
  ).toBeLessThan(300);
  expect(call(wed, 'POST', `${builder}/finalize`, {}).status).toBe(200);
  wed.createKey('sandbox', ['ledger_access']);
  return ids;
}

/** A copy of the data dir, tampered with by `sql` with the append-only triggers dropped. */
function tampered(sql: string): string {
  const copy = tempDir();
  cpSync(home.dir, copy.dir, { recursive: true });
  const db = new Database(databaseFile(copy.dir));
  db.exec(`DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete; ${sql}`);
  db.close();
  return copy.dir;
}

describe('the audit chain', () => {
  it('records each money-moving or irreversible action once, in order, and verifies whole', () => {
    buildChain();
    const e = home.at(WED, '0');
    const types = [...e.auditList({})].map((r) => r.type);
    expect(types).toEqual([
      'SUBMISSION',
      'SUBMISSION',
      'FUNDING_APPROVED',
      'SETTLEMENT_INITIATED',
      'PAYOUT',
      'PAYOUT',
      'PAYOUT',
      'PAYOUT',
      'SETTLEMENT_COMPLETED',
      'RECONCILIATION',
      'SETTLEMENT_REFUNDED',
      'SCHEDULE_FINALIZED',
      'KEY_CREATED',
    ]);
    const submission = JSON.parse([...e.auditList({ type: 'SUBMISSION' })][0]!.data_json) as Body;
    expect(submission).toMatchObject({ disposition: 'APPROVED', charge_cents: 420000, benefit_cents: expect.any(Number) });
    expect(submission.allowed_cents).toBe(submission.benefit_cents + submission.patient_cents);
    expect(e.auditVerify()).toEqual({ whole: true, count: 13, head: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Every record names who acted: in-process here (no key), or the engine for the arrival and its reconciliation.
    expect([...e.auditList({})].map((r) => r.actor)).toEqual([...Array(8).fill('local'), 'engine', 'engine', 'local', 'local', 'local']);
  });

  it('refuses to change or delete a record while its triggers stand', () => {
    buildChain();
    const db = new Database(databaseFile(home.dir));
    expect(() => db.exec(`UPDATE audit_log SET data_json = '{}' WHERE seq = 1`)).toThrow(/append-only/);
    expect(() => db.exec('DELETE FROM audit_log WHERE seq = 13')).toThrow(/append-only/);
    db.close();
  });

  it('catches an edited, a deleted and a swapped record at the right record, and the CLI exits 4 naming it', async () => {
    buildChain();
    const cases: [string, number, RegExp][] = [
      // An amount changed: the transfer made ten times larger (a digit put before it).
      [
        `UPDATE audit_log SET data_json = replace(data_json, '"transfer_amount_cents":', '"transfer_amount_cents":1') WHERE type = 'FUNDING_APPROVED'`,
        3,
        /edited/,
      ],
      [`UPDATE audit_log SET at = '2026-03-01T00:00:00Z' WHERE seq = 6`, 6, /edited/],
      ['DELETE FROM audit_log WHERE seq = 5', 5, /missing/],
      [
        `UPDATE audit_log SET seq = -1 WHERE seq = 7; UPDATE audit_log SET seq = 7 WHERE seq = 8; UPDATE audit_log SET seq = 8 WHERE seq = -1`,
        7,
        /link to the record before/,
      ],
      ['DELETE FROM audit_log WHERE seq = 13', -1, /./],
    ];
    for (const [sql, seq, reason] of cases) {
      const dir = tampered(sql);
      const e = Engine.open({ dataDir: dir, env: { TPA_CLOCK: WED } });
      const verdict = e.auditVerify();
      e.close();
      if (seq < 0) {
        // The last record removed: what is left is a whole, shorter chain, whose head the last
        // verification printed differently. The head hash is what a copy kept elsewhere catches.
        expect(verdict).toMatchObject({ whole: true, count: 12 });
        continue;
      }
      expect(verdict, sql).toMatchObject({ whole: false, seq });
      expect((verdict as { reason: string }).reason, sql).toMatch(reason);
      const cli = await tpa(['local', 'audit', 'verify', '-o', 'json'], { home: dir, env: { TPA_CLOCK: WED } });
      expect(cli.code).toBe(4);
      expect(cli.stderr).toContain(`breaks at record ${seq}`);
    }
    const whole = await tpa(['local', 'audit', 'verify', '-o', 'json'], { home: home.dir, env: { TPA_CLOCK: WED } });
    expect(whole.code).toBe(0);
    expect(whole.json()).toMatchObject({ whole: true, count: 13 });
    expect(join(home.dir)).toBeTruthy();
  });

  it('records who each payout goes to, each reconciliation and each AEOB change, and --deep finds the tables whole after every trigger', () => {
    const ids = buildChain();
    const mon = home.at(MON, '0');
    const more: string[] = [];
    for (const serviceDate of ['2026-03-02', '2026-02-27']) {
      more.push(
        (call(mon, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1001', serviceDate })).body as Body)
          .external_claim_id,
      );
    }
    const approve = (e: ReturnType<typeof home.at>, id: string, code: string) => {
      const amount = (call(e, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body).financial_summary.payer_responsibility.total;
      expect(call(e, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: id, amount, authorization_code: code }).status).toBe(200);
    };
    approve(mon, more[0]!, 'AUTH-DEEP-0001');
    mon.simulate('settlement-failure', more[0]!);
    approve(mon, more[0]!, 'AUTH-DEEP-0002');
    approve(mon, more[1]!, 'AUTH-DEEP-0003');
    mon.simulate('missing-aeob', more[1]!);
    // The first claims' events were recorded on Wednesday, so \`mon\` is held there (the engine never
    // records a time before one it has recorded): these transfers arrive the next week.
    const wed = home.at('2026-03-09T12:00:00Z', '0');
    call(wed, 'GET', `/tpa-api/v1/settlement/${more[0]}/`);
    wed.simulate('aeob-variance', more[0]!);
    const records = [...wed.auditList({})];
    const payouts = records.filter((r) => r.type === 'PAYOUT').map((r) => JSON.parse(r.data_json) as Body);
    expect(payouts.length).toBe(16);
    expect(payouts[0]).toMatchObject({ provider_npi: expect.stringMatching(/^\d{10}$/), amount_cents: expect.any(Number), fee_cents: expect.any(Number) });
    for (const p of payouts) expect(p.net_cents).toBe(p.amount_cents - p.fee_cents);
    expect(records.filter((r) => r.type === 'AEOB_VARIANCE' || r.type === 'AEOB_MISSING').map((r) => [r.type, r.subject])).toEqual([
      ['AEOB_MISSING', more[1]],
      ['AEOB_VARIANCE', more[0]],
    ]);
    const reconciliations = records.filter((r) => r.type === 'RECONCILIATION').map((r) => JSON.parse(r.data_json) as Body);
    expect(reconciliations.map((r) => r.match_status)).toEqual(['EXACT', 'EXACT', 'MISSING_AEOB', 'VARIANCE']);
    expect(reconciliations[3]).toMatchObject({ variance_cents: 1234, reconciliation_status: 'UNMATCHED' });
    const deep = wed.auditVerifyDeep();
    expect(deep).toMatchObject({ whole: true, disagreementCount: 0, disagreements: [], checked: { encounters: 4, settlements: 4, payouts: 16 } });
    expect(ids).toHaveLength(2);
  });

  it('--deep names the first money row that disagrees with a whole chain; the plain verify does not see it', async () => {
    const ids = buildChain();
    const stl = (new Database(databaseFile(home.dir), { readonly: true }).prepare('SELECT id FROM settlements').pluck().get() as string) ?? '';
    const cases: [string, RegExp][] = [
      // The surgeon's payout redirected to the facility.
      [
        `UPDATE payouts SET provider_npi = '1234567893' WHERE sequence = 2`,
        new RegExp(`payouts ${stl} #2: provider_npi is 1234567893, audit record 6 says 1045782368`),
      ],
      [`UPDATE payouts SET fee_cents = fee_cents - 1 WHERE sequence = 1`, new RegExp(`payouts ${stl} #1: fee_cents is \\d+, audit record 5 says`)],
      ['DELETE FROM payouts WHERE sequence = 4', new RegExp(`payouts ${stl} #4: the row is missing; audit record 8 made it`)],
      [
        'UPDATE settlements SET total_amount_cents = total_amount_cents + 100',
        new RegExp(`settlements ${stl}: total_amount_cents is \\d+, audit record 4 says`),
      ],
      [
        `UPDATE settlements SET reconciliation_status = 'MATCHED'`,
        new RegExp(`settlements ${stl}: reconciliation_status is MATCHED, audit record 11 says UNMATCHED`),
      ],
      [
        `UPDATE encounters SET status = 'RECONCILED' WHERE id = '${ids[1]}'`,
        new RegExp(`encounters ${ids[1]}: status is RECONCILED, audit record 2 says ADJUDICATED`),
      ],
      [
        `UPDATE encounters SET outcome_json = json_set(outcome_json, '$.totals.benefitCents', 1) WHERE id = '${ids[1]}'`,
        new RegExp(`encounters ${ids[1]}: outcome_json totals.benefitCents is 1, audit record 2 says`),
      ],
      [`UPDATE encounters SET aeob_missing = 1 WHERE id = '${ids[1]}'`, new RegExp(`encounters ${ids[1]}: aeob_missing is 1, audit record 2 says 0`)],
      // A line's payee changed, and 100.00 of benefit moved from the last line to the first, the
      // totals unchanged: funding would pay from these lines (found by the adversarial review).
      [
        `UPDATE encounters SET outcome_json = json_set(outcome_json, '$.lines[2].providerNpi', '1859362703') WHERE id = '${ids[1]}'`,
        new RegExp(`encounters ${ids[1]}: outcome_json lines \\(payee, status, allowed, benefit\\) is [0-9a-f]{64}, audit record 2 says`),
      ],
      [
        `UPDATE encounters SET outcome_json = json_set(outcome_json, '$.lines[0].benefitCents', json_extract(outcome_json, '$.lines[0].benefitCents') + 10000,
           '$.lines[3].benefitCents', json_extract(outcome_json, '$.lines[3].benefitCents') - 10000) WHERE id = '${ids[1]}'`,
        new RegExp(`encounters ${ids[1]}: outcome_json lines`),
      ],
    ];
    for (const [sql, named] of cases) {
      const dir = tampered(sql);
      const plain = await tpa(['local', 'audit', 'verify', '-o', 'json'], { home: dir, env: { TPA_CLOCK: WED } });
      expect(plain.code, sql).toBe(0);
      const deep = await tpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: dir, env: { TPA_CLOCK: WED } });
      expect(deep.code, deep.stderr).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json()).toMatchObject({ whole: true, tables_agree: false, disagreement: { table: expect.any(String), audit_record: expect.any(Number) } });
    }
    const whole = await tpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: home.dir, env: { TPA_CLOCK: WED } });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.json()).toMatchObject({ whole: true, count: 13, tables_agree: true, checked: { encounters: 2, settlements: 1, payouts: 4 } });
  });

  it('--deep checks refunds as the chain recorded them: a forged refund amount and a deleted refund are each reported (exit 4)', async () => {
    buildChain();
    const stl = new Database(databaseFile(home.dir), { readonly: true }).prepare('SELECT id FROM settlements').pluck().get() as string;
    const refunded = [...home.at(WED, '0').auditList({})].find((r) => r.type === 'SETTLEMENT_REFUNDED')!;
    const net = (JSON.parse(refunded.data_json) as Body).refunded_amount_cents as number;
    expect(net).toBeGreaterThan(300);
    const cases: [string, RegExp][] = [
      [
        `UPDATE settlements SET refund_json = json_set(refund_json, '$.amount', 3.0)`,
        new RegExp(`settlements ${stl}: refund_json amount \\(cents\\) is 300, audit record ${refunded.seq} says ${net}`),
      ],
      ['UPDATE settlements SET refund_json = NULL', new RegExp(`settlements ${stl}: refund_json is null, audit record ${refunded.seq} says a refund`)],
      [
        `UPDATE settlements SET refund_json = json_set(refund_json, '$.gross_amount', 1.0)`,
        new RegExp(`settlements ${stl}: refund_json gross_amount \\(cents\\) is 100, audit record ${refunded.seq} says`),
      ],
    ];
    for (const [sql, named] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false, disagreement_count: 1 });
    }
    const whole = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: home.dir, env: { TPA_CLOCK: WED } });
    expect(whole.code, whole.stderr).toBe(0);
  });

  it("--deep checks the amounts the ledger's history shows: a forged release, refund or benefit amount in an entry is reported (exit 4)", async () => {
    const ids = buildChain();
    const cases: [string, RegExp][] = [
      [
        `UPDATE history_entries SET financial_impact_json = json_set(financial_impact_json, '$.transfer_amount', 1.0) WHERE type = 'FUNDING_APPROVED'`,
        new RegExp(`history_entries ${ids[0]} #\\d+: financial_impact transfer_amount \\(cents\\) is 100, audit record \\d+ says \\d+`),
      ],
      [
        `UPDATE history_entries SET financial_impact_json = json_set(financial_impact_json, '$.refunded_amount', 3.0) WHERE type = 'SETTLEMENT_REFUNDED'`,
        new RegExp(`history_entries ${ids[0]} #\\d+: financial_impact refunded_amount \\(cents\\) is 300, audit record \\d+ says \\d+`),
      ],
      [
        `UPDATE history_entries SET financial_impact_json = json_set(financial_impact_json, '$.benefit_amount', 9999999.0) WHERE type = 'ADJUDICATION' AND encounter_id = '${ids[1]}'`,
        new RegExp(`history_entries ${ids[1]} #\\d+: financial_impact benefit_amount \\(cents\\) is 999999900, audit record 2 says \\d+`),
      ],
    ];
    for (const [sql, named] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false, disagreement_count: 1 });
    }
  });

  it('--deep reports a history entry with amounts that no audit record made, and a second entry for one record (exit 4)', async () => {
    const ids = buildChain();
    const e = ids[0]!;
    const copy = `INSERT INTO history_entries SELECT encounter_id, 90, type, timestamp, reference, description, financial_impact_json FROM history_entries WHERE encounter_id = '${e}'`;
    const cases: [string, RegExp, number][] = [
      [`${copy} AND type = 'FUNDING_APPROVED'`, new RegExp(`history_entries ${e} #90: a second entry for audit record \\d+, which made one`), 1],
      [`${copy} AND type = 'SETTLEMENT_REFUNDED'`, new RegExp(`history_entries ${e} #90: a second entry for audit record \\d+, which made one`), 1],
      [`${copy} AND type = 'ADJUDICATION'`, new RegExp(`history_entries ${e} #90: a second entry for audit record 1, which made one`), 1],
      [
        `INSERT INTO history_entries VALUES ('${e}', 91, 'FUNDING_APPROVED', '2026-03-05T12:00:00Z', 'AUTH-AUDIT-0002', 'Fund release of 320.00 approved', '{"transfer_amount":320}')`,
        new RegExp(`history_entries ${e} #91: the audit chain has no FUNDING_APPROVED \\(2026-03-05T12:00:00Z, AUTH-AUDIT-0002\\) record of it`),
        1,
      ],
      [
        `INSERT INTO history_entries VALUES ('${e}', 92, 'SETTLEMENT_REFUNDED', '2026-03-05T12:01:00Z', 'rf_forged', 'Refund', '{"refunded_amount":320}')`,
        new RegExp(`history_entries ${e} #92: the audit chain has no SETTLEMENT_REFUNDED`),
        1,
      ],
    ];
    for (const [sql, named, n] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false, disagreement_count: n });
    }
    // All three of the attack at once: each reported, with their count.
    const all = tampered(
      cases
        .map(([sql]) => sql)
        .slice(0, 1)
        .concat(cases.slice(3).map(([sql]) => sql))
        .join('; '),
    );
    const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: all, env: { TPA_CLOCK: WED } });
    expect(deep.code).toBe(4);
    expect(deep.json<Body>()).toMatchObject({ tables_agree: false, disagreement_count: 3 });
    const whole = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: home.dir, env: { TPA_CLOCK: WED } });
    expect(whole.code, whole.stderr).toBe(0);
  });

  it('--deep reports an amount an entry was never given, and amounts that are not an object (exit 4)', async () => {
    const ids = buildChain();
    const e = ids[0]!;
    const set = (type: string, json: string) => `UPDATE history_entries SET financial_impact_json = '${json}' WHERE encounter_id = '${e}' AND type = '${type}'`;
    const cases: [string, RegExp][] = [
      // A release's amount added to the adjudication entry, beside its own amounts.
      [
        set('ADJUDICATION', '{"benefit_amount":320,"copay_applied":0,"coinsurance_applied":0,"transfer_amount":9999}'),
        new RegExp(`history_entries ${e} #\\d+: financial_impact transfer_amount`),
      ],
      [set('ADJUDICATION', '{"transfer_amount":9999}'), new RegExp(`history_entries ${e} #\\d+: financial_impact transfer_amount`)],
      // A list in place of the object, which ledger show gives back as it is.
      [set('FUNDING_APPROVED', '[{"transfer_amount":9999}]'), new RegExp(`history_entries ${e} #\\d+: financial_impact_json`)],
      [set('FUNDING_APPROVED', '"5000"'), new RegExp(`history_entries ${e} #\\d+: financial_impact_json`)],
    ];
    for (const [sql, named] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false });
    }
  });

  it('--deep on a damaged record of where the chain begins says so (exit 4), never an internal error', async () => {
    buildChain();
    for (const value of ["'junk'", "'null'", `'{"seq":-1,"encounter_rowid":0,"settlement_rowid":0}'`]) {
      const sql = `UPDATE settings SET value = ${value} WHERE key = 'audit_deep_from'; INSERT OR IGNORE INTO settings (key, value) VALUES ('audit_deep_from', ${value})`;
      const deep = await runTpa(['local', 'audit', 'verify', '--deep'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, value).toBe(4);
      expect(deep.stderr, value).toMatch(/setting audit_deep_from\) is damaged/);
      expect(deep.stderr, value).not.toMatch(/internal error|\n\s+at /);
    }
  });

  it("--deep reports a line's charge, quantity or share split changed in the stored adjudication (exit 4)", async () => {
    const ids = buildChain();
    const e = ids[0]!;
    for (const edit of [
      `json_set(outcome_json, '$.lines[0].chargeCents', 500000)`,
      `json_set(outcome_json, '$.lines[0].quantity', 9)`,
      `json_set(outcome_json, '$.totals.copayCents', 1)`,
    ]) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], {
        home: tampered(`UPDATE encounters SET outcome_json = ${edit} WHERE id = '${e}'`),
        env: { TPA_CLOCK: WED },
      });
      expect(deep.code, edit).toBe(4);
      expect(deep.stderr, edit).toMatch(new RegExp(`encounters ${e}: outcome_json \\(every line`));
    }
  });

  it('--deep reports an encounter moved to another member, billing provider or contract (exit 4)', async () => {
    const ids = buildChain();
    const e = ids[0]!;
    const cases: [string, RegExp][] = [
      [`UPDATE encounters SET member_id = 'MBR-1003' WHERE id = '${e}'`, new RegExp(`encounters ${e}: member_id is MBR-1003, audit record 1 says MBR-1002`)],
      [
        `UPDATE encounters SET provider_npi = '1999999984' WHERE id = '${e}'`,
        new RegExp(`encounters ${e}: provider_npi is 1999999984, audit record 1 says \\d{10}`),
      ],
      [
        `UPDATE encounters SET contract_id = 'CTR-FORGED' WHERE id = '${e}'`,
        new RegExp(`encounters ${e}: contract_id is CTR-FORGED, audit record 1 says \\S+`),
      ],
    ];
    for (const [sql, named] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], {
        home: tampered(`PRAGMA foreign_keys = OFF; ${sql}`),
        env: { TPA_CLOCK: WED },
      });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false, disagreement_count: 1 });
    }
  });

  it('--deep checks the rates a finalized schedule made: a forged amount or end, a deleted rate and one no schedule made are each reported (exit 4)', async () => {
    buildChain();
    // The rate the finalized schedule made (the seed holds others, some later).
    const latest = `contract_id = (SELECT subject FROM audit_log WHERE type = 'SCHEDULE_FINALIZED') AND effective_from = (SELECT MAX(effective_from) FROM contract_rates r WHERE r.contract_id = contract_rates.contract_id)`;
    const cases: [string, RegExp][] = [
      [
        `UPDATE contract_rates SET negotiated_rate_cents = 1 WHERE ${latest}`,
        /contract_rates \S+ \S+ from \S+: negotiated_rate_cents is 1, audit record \d+ says \d+/,
      ],
      [
        `UPDATE contract_rates SET effective_to = '2026-03-31' WHERE ${latest}`,
        /contract_rates \S+ \S+ from \S+: effective_to is 2026-03-31, audit record \d+ says null/,
      ],
      [`DELETE FROM contract_rates WHERE ${latest}`, /contract_rates \S+ \S+ from \S+: the row is missing; audit record \d+ made it/],
      [
        `INSERT INTO contract_rates SELECT contract_id, '99999', effective_from, effective_to, 1, requires_preauth FROM contract_rates WHERE ${latest} LIMIT 1`,
        /contract_rates \S+ 99999 from \S+: the audit chain has no SCHEDULE_FINALIZED record of it/,
      ],
    ];
    for (const [sql, named] of cases) {
      const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: tampered(sql), env: { TPA_CLOCK: WED } });
      expect(deep.code, sql).toBe(4);
      expect(deep.stderr, sql).toMatch(named);
      expect(deep.json<Body>(), sql).toMatchObject({ whole: true, tables_agree: false });
    }
  });

  it('--deep names every disagreement, not only the first: two forged amounts are both reported, with their count (exit 4)', async () => {
    const ids = buildChain();
    // A first row that disagrees (an encounter's benefit ×100) used to hide every later one: here a payout ×100.
    const dir = tampered(
      `UPDATE encounters SET benefit_cents = benefit_cents * 100 WHERE id = '${ids[1]}'; UPDATE payouts SET amount_cents = amount_cents * 100 WHERE sequence = 3`,
    );
    const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: dir, env: { TPA_CLOCK: WED } });
    expect(deep.code, deep.stderr).toBe(4);
    const body = deep.json<Body>();
    expect(body).toMatchObject({ whole: true, tables_agree: false, disagreement_count: 2 });
    expect(body.disagreements.map((d: Body) => [d.table, d.column, d.audit_record])).toEqual([
      ['encounters', 'benefit_cents', 2],
      ['payouts', 'amount_cents', 7],
    ]);
    expect(body.disagreements[1].found).toBe(body.disagreements[1].expected * 100);
    const table = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'table'], { home: dir, env: { TPA_CLOCK: WED } });
    expect(table.code).toBe(4);
    expect(table.stderr).toMatch(
      /disagree with it in 2 places:\n {2}encounters \S+: benefit_cents is \d+, audit record 2 says \d+\n {2}payouts \S+ #3: amount_cents is/,
    );
  });

  it('--deep counts every disagreement and names the first ten', async () => {
    buildChain();
    // Three columns of each of four payouts, and the transfer's total: 13 in all.
    const dir = tampered(
      `UPDATE payouts SET amount_cents = amount_cents * 100, fee_cents = fee_cents + 1, provider_role = 'FORGED'; UPDATE settlements SET total_amount_cents = total_amount_cents * 100`,
    );
    const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: dir, env: { TPA_CLOCK: WED } });
    expect(deep.code, deep.stderr).toBe(4);
    const body = deep.json<Body>();
    expect(body.disagreement_count).toBe(13);
    expect(body.disagreements).toHaveLength(10);
    // In the order the rows were made: the transfer first, then its payouts.
    expect(body.disagreements[0]).toMatchObject({ table: 'settlements', column: 'total_amount_cents' });
    expect(body.disagreement).toEqual(body.disagreements[0]);
    const table = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'table'], { home: dir, env: { TPA_CLOCK: WED } });
    expect(table.stderr).toMatch(/in 13 places:(\n {2}(settlements|payouts) [^\n]+){10}\n {2}and 3 more \(the first 10 are named\)\n/);
  });
});
