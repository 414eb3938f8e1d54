// The ledger must say what happened: failed and refunded transfers, the simulated AEOB variance,
// and ledger entries without an adjudication, through the real engine on a real SQLite file. Each
// test failed on the engine before these rules.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { centsToAmount } from '../../src/domain/money.js';
import { databaseFile, Engine } from '../../src/engine/engine.js';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';
import { SEEDS } from '../../src/engine/store/seed.js';
import { Conflict } from '../../src/engine/errors.js';
import { call, tempDir, useEngineHome } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

// Monday 2 March 2026; adjudication takes 3 s; the transfer arrives a business day later.
const MON = '2026-03-02T10:00:00Z';
const MON_LATER = '2026-03-02T10:00:05Z';
const TUE_NOON = '2026-03-03T12:00:00Z';
const WED = '2026-03-04T09:00:00Z';
const WED_LATER = '2026-03-04T09:00:05Z';
const APPROVE = '/tpa-api/v1/funding/approve/';

type Body = Record<string, any>;

const home = useEngineHome(beforeEach, afterEach);
const at = (clock: string) => home.at(clock);

function submit(clock: string, options: Partial<Parameters<typeof claimTemplate>[0]> = {}, engine = at(clock)): { encounterId: string; submissionId: string } {
  const claim = claimTemplate({ type: 'institutional', serviceDate: clock.slice(0, 10), ...options });
  const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim);
  expect(ack.status).toBe(201);
  const body = ack.body as Body;
  return { encounterId: body.external_claim_id, submissionId: body.submission_id };
}

/** An adjudicated institutional encounter: benefit 2,460.00 to four providers. */
const encounter = () => submit(MON).encounterId;

const approve = (engine: Engine, encounterId: string, amount: number, code = 'AUTH-20260302-ACME-0001') =>
  call(engine, 'POST', APPROVE, { encounter_id: encounterId, amount, authorization_code: code });
const settlement = (engine: Engine, id: string) => call(engine, 'GET', `/tpa-api/v1/settlement/${id}/`).body as Body;
const detail = (engine: Engine, id: string) => call(engine, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body;
const listed = (engine: Engine, query: string) =>
  (call(engine, 'GET', `/tpa-api/v1/ledger/entries/${query}`).body as { results: Body[] }).results.map((r) => r.encounter_id as string);
const entryTypes = (d: Body) => (d.entries as Body[]).map((e) => e.type as string);

describe('a failed transfer', () => {
  it('is recorded, returns the ledger to ADJUDICATED with the benefit owed, and keeps the failed record', () => {
    const id = encounter();
    const e = at(MON_LATER);
    const first = approve(e, id, 2460).body as Body;
    const failed = e.simulate('settlement-failure', id) as Body;
    expect(failed).toMatchObject({ status: 'FAILED', failed_at: MON_LATER, processor_transfer_id: first.processor_transfer_id });
    expect((failed.payouts as Body[]).every((p) => p.payout_status === 'FAILED')).toBe(true);

    const d = detail(e, id);
    expect(d.encounter.status).toBe('ADJUDICATED');
    const entry = (d.entries as Body[]).find((x) => x.type === 'SETTLEMENT_FAILED');
    expect(entry).toMatchObject({ reference: first.processor_transfer_id, timestamp: MON_LATER, financial_impact: { failed_amount: 2460 } });
    expect(d.financial_summary.balance).toEqual({ running_balance: 2460, status: 'FAILED' });
    const item = (call(e, 'GET', '/tpa-api/v1/ledger/entries/').body as { results: Body[] }).results.find((r) => r.encounter_id === id)!;
    expect((item.status_progression as Body[]).map((s) => s.status)).toEqual(['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'FUNDED', 'ADJUDICATED']);
    expect(listed(e, '?status=FUNDED')).not.toContain(id);
    expect(listed(e, '?status=ADJUDICATED')).toContain(id);
  });

  it('can be approved again under a new authorization code, as a new transfer, the first one kept', () => {
    const id = encounter();
    const e = at(MON_LATER);
    const first = approve(e, id, 2460, 'AUTH-1').body as Body;
    e.simulate('settlement-failure', id);

    const reused = approve(e, id, 2460, 'AUTH-1');
    expect(reused.status).toBe(400);
    expect((reused.body as Body).errors).toEqual([{ field: 'authorization_code', message: expect.stringContaining(first.processor_transfer_id) }]);

    const second = approve(e, id, 2460, 'AUTH-2');
    expect(second.status).toBe(200);
    const body = second.body as Body;
    expect(body.processor_transfer_id).toMatch(/^tr_/);
    expect(body.processor_transfer_id).not.toBe(first.processor_transfer_id);
    expect(body.settlement_record_id).not.toBe(first.settlement_record_id);
    // The new transfer stands: approving once more is the duplicate, naming it.
    expect(approve(e, id, 2460, 'AUTH-3')).toMatchObject({
      status: 400,
      body: { error: 'duplicate_approval', previous_processor_transfer_id: body.processor_transfer_id },
    });

    const s = settlement(e, id);
    expect(s).toMatchObject({ settlement_id: body.settlement_record_id, processor_transfer_id: body.processor_transfer_id, status: 'INITIATED' });
    expect(s.previous_transfers).toHaveLength(1);
    expect(s.previous_transfers[0]).toMatchObject({
      settlement_id: first.settlement_record_id,
      processor_transfer_id: first.processor_transfer_id,
      status: 'FAILED',
      total_amount: 2460,
    });
    expect((s.previous_transfers[0].payouts as Body[]).every((p) => p.payout_status === 'FAILED')).toBe(true);
    const d = detail(e, id);
    expect(d.encounter.status).toBe('FUNDED');
    expect(d.reconciliation).toMatchObject({ processor_trace_id: body.processor_transfer_id, settlement_record_id: body.settlement_record_id });
    expect(entryTypes(d).filter((t) => t === 'FUNDING_APPROVED')).toHaveLength(2);

    // The new transfer completes and reconciles; the failed one stays as it was.
    const later = at(TUE_NOON);
    expect(settlement(later, id)).toMatchObject({ status: 'COMPLETED', reconciliation_status: 'MATCHED', previous_transfers: [{ status: 'FAILED' }] });
    expect(detail(later, id).encounter.status).toBe('RECONCILED');
    expect(detail(later, id).financial_summary.balance).toEqual({ running_balance: 0, status: 'SETTLED' });
  });

  it('re-approval is decided once across connections: the second approval is the duplicate', () => {
    const id = encounter();
    const e = at(MON_LATER);
    approve(e, id, 2460, 'AUTH-1');
    e.simulate('settlement-failure', id);
    const [a, b] = [at(MON_LATER), at(MON_LATER)];
    const results = [approve(a, id, 2460, 'AUTH-2'), approve(b, id, 2460, 'AUTH-3')];
    expect(results.map((r) => r.status)).toEqual([200, 400]);
    expect(results[1]!.body).toMatchObject({ error: 'duplicate_approval', previous_processor_transfer_id: (results[0]!.body as Body).processor_transfer_id });
  });
});

describe('a refund', () => {
  function refunded(): { id: string; first: Body; r: Body } {
    const id = encounter();
    const first = approve(at(MON_LATER), id, 2460).body as Body;
    const r = at(WED).simulate('refund', id) as Body;
    return { id, first, r };
  }

  it('brings back what the providers received: the net, the processor fees not returned', () => {
    const { r } = refunded();
    const payouts = r.payouts as Body[];
    const netCents = payouts.reduce((sum, p) => sum + cents(p.net_to_provider), 0);
    const feeCents = payouts.reduce((sum, p) => sum + cents(p.processor_fee), 0);
    expect(netCents + feeCents).toBe(246000);
    expect(r.refund_details).toEqual({
      refund_id: expect.stringMatching(/^re_/),
      amount: centsToAmount(netCents),
      gross_amount: 2460,
      fees_not_returned: centsToAmount(feeCents),
      reason: expect.any(String),
      refunded_at: WED,
    });
    expect(r.refund_details.amount).toBe(2404.68);
    expect(payouts.every((p) => p.payout_status === 'RETURNED')).toBe(true);
  });

  it('no longer matches the AEOB, records the refund, and shows the benefit owed again', () => {
    const { id, r } = refunded();
    expect(r).toMatchObject({
      status: 'REFUNDED',
      reconciliation_status: 'UNMATCHED',
      aeob_match: { aeob_amount: 2460, settlement_amount: 0, variance: -2460, match_status: 'VARIANCE' },
    });
    const e = at(WED);
    const d = detail(e, id);
    expect(d.encounter.status).toBe('ADJUDICATED');
    expect((d.entries as Body[]).find((x) => x.type === 'SETTLEMENT_REFUNDED')).toMatchObject({
      reference: r.refund_details.refund_id,
      timestamp: WED,
      financial_impact: { refunded_amount: 2404.68 },
    });
    expect(d.financial_summary.balance).toEqual({ running_balance: 2460, status: 'REFUNDED' });
    expect(d.reconciliation.claim_match_status).toBe('UNMATCHED');
    expect(listed(e, '?status=RECONCILED')).not.toContain(id);
    expect(listed(e, '?status=ADJUDICATED')).toContain(id);
  });

  it('can be funded again with a new transfer, the refunded one kept', () => {
    const { id, first } = refunded();
    const e = at(WED);
    expect(approve(e, id, 2460).status).toBe(400); // the refunded transfer's authorization code
    const again = approve(e, id, 2460, 'AUTH-20260304-ACME-0002');
    expect(again.status).toBe(200);
    expect((again.body as Body).processor_transfer_id).not.toBe(first.processor_transfer_id);
    expect(settlement(e, id)).toMatchObject({
      status: 'INITIATED',
      previous_transfers: [{ processor_transfer_id: first.processor_transfer_id, status: 'REFUNDED' }],
    });
    expect(detail(e, id).encounter.status).toBe('FUNDED');
  });
});

describe('the simulated AEOB variance', () => {
  it('on a benefit smaller than the variance states an AEOB of 0.00, never a negative amount', () => {
    // A pathology line of 50.00: allowed 35.00, copay 25.00, coinsurance 2.00, benefit 8.00.
    const claim = claimTemplate({ type: 'professional', npi: '1329475804', cpt: ['88312'], patient: 'MBR-1003', serviceDate: MON.slice(0, 10) }) as Body;
    claim.item[0].unitPrice.value = 50;
    claim.item[0].net.value = 50;
    claim.total.value = 50;
    const e = at(MON);
    const ack = call(e, 'POST', '/tpa-api/v1/claims/submit/', claim).body as Body;
    const later = at(MON_LATER);
    const benefit = (call(later, 'GET', `/tpa-api/v1/claims/${ack.submission_id}/response/`).body as Body).adjudication.benefit_amount as number;
    expect(benefit).toBeGreaterThan(0);
    expect(cents(benefit)).toBeLessThan(1234);
    expect(approve(later, ack.external_claim_id, benefit).status).toBe(200);
    const v = at(TUE_NOON).simulate('aeob-variance', ack.external_claim_id) as Body;
    expect(v).toMatchObject({
      reconciliation_status: 'UNMATCHED',
      aeob_match: { aeob_amount: 0, settlement_amount: benefit, variance: benefit, match_status: 'VARIANCE' },
    });
    // Stated once: a second simulation changes nothing and adds no second reconciliation.
    const e2 = at(TUE_NOON);
    const before = entryTypes(detail(e2, ack.external_claim_id));
    expect(() => e2.simulate('aeob-variance', ack.external_claim_id)).toThrow(/already states/);
    expect(entryTypes(detail(e2, ack.external_claim_id))).toEqual(before);
  });

  it('is refused on a refunded or failed transfer, and adds no reconciliation entry', () => {
    const id = encounter();
    approve(at(MON_LATER), id, 2460);
    const e = at(WED);
    e.simulate('refund', id);
    const before = detail(e, id);
    expect(() => e.simulate('aeob-variance', id)).toThrow(Conflict);
    expect(() => e.simulate('aeob-variance', id)).toThrow(/REFUNDED/);
    const after = detail(e, id);
    expect(entryTypes(after)).toEqual(entryTypes(before));
    expect(entryTypes(after).filter((t) => t === 'RECONCILIATION')).toHaveLength(1);
    expect(settlement(e, id)).toMatchObject({ aeob_match: { aeob_amount: 2460, match_status: 'VARIANCE' } });

    // A Monday service submitted on Wednesday, when the first one's refund is recorded: the engine
    // never records a submission before that (docs/local.md "The engine clock").
    const other = submit(MON, { cpt: ['45378'] }, e).encounterId;
    // The visit's copay was taken by the first claim: 1,875.00 × 80%.
    expect(approve(at(WED_LATER), other, 1500).status).toBe(200);
    e.simulate('settlement-failure', other);
    expect(() => e.simulate('aeob-variance', other)).toThrow(/FAILED/);
  });
});

describe('the simulated missing AEOB', () => {
  it('before the arrival: the transfer completes as MISSING_AEOB, the whole settled amount its variance, reconciliation UNMATCHED', () => {
    const id = encounter();
    expect(approve(at(MON_LATER), id, 2460).status).toBe(200);
    const s = at(MON_LATER).simulate('missing-aeob', id) as Body;
    expect(s).toMatchObject({ status: 'INITIATED', aeob_match: null });
    const arrived = settlement(at(WED), id);
    expect(arrived).toMatchObject({
      status: 'COMPLETED',
      reconciliation_status: 'UNMATCHED',
      aeob_match: { aeob_reference: null, aeob_amount: null, settlement_amount: 2460, variance: 2460, match_status: 'MISSING_AEOB' },
    });
    // The money arrived, the claim was not matched to the payer's systems: FUNDED, never RECONCILED.
    const d = detail(at(WED), id);
    expect(d.encounter.status).toBe('FUNDED');
    expect(entryTypes(d)).not.toContain('RECONCILIATION');
    const unmatched = d.entries.filter((e: Body) => e.type === 'RECONCILIATION_UNMATCHED');
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]).toMatchObject({ reference: null, description: expect.stringMatching(/^Not reconciled: .*MISSING_AEOB/) });
    expect(d.reconciliation.claim_match_status).toBe('UNMATCHED');
    // The arrival is in the progression: FUNDED at the approval, FUNDED again when the money arrived.
    const item = (call(at(WED), 'GET', '/tpa-api/v1/ledger/entries/').body as { results: Body[] }).results.find((r) => r.encounter_id === id)!;
    expect(item.status_progression.map((p: Body) => p.status).slice(-2)).toEqual(['FUNDED', 'FUNDED']);
    expect(item.status_progression.at(-1).timestamp).toBe(arrived.completed_at);
    expect(listed(at(WED), '?status=RECONCILED')).not.toContain(id);
    expect(listed(at(WED), '?status=FUNDED')).toContain(id);
  });

  it('after a matched reconciliation: the ledger goes from RECONCILED back to FUNDED, with an entry saying why', () => {
    const ids = { 'missing-aeob': encounter(), 'aeob-variance': submit(MON, { patient: 'MBR-1002' }).encounterId };
    const funding = at(MON_LATER);
    for (const [n, id] of Object.values(ids).entries()) {
      const benefit = detail(funding, id).financial_summary.payer_responsibility.total as number;
      expect(approve(funding, id, benefit, `AUTH-20260302-ACME-000${n + 1}`).status).toBe(200);
    }
    const e = at(WED);
    for (const [scenario, id] of Object.entries(ids) as ['missing-aeob' | 'aeob-variance', string][]) {
      expect(detail(e, id).encounter.status).toBe('RECONCILED');
      e.simulate(scenario, id);
      const d = detail(e, id);
      expect(d.encounter.status, scenario).toBe('FUNDED');
      expect(d.reconciliation.claim_match_status).toBe('UNMATCHED');
      expect(entryTypes(d).slice(-2)).toEqual(['RECONCILIATION', 'RECONCILIATION_UNMATCHED']);
      expect(d.entries.at(-1).description).toMatch(
        scenario === 'missing-aeob' ? /^Not reconciled: no AEOB/ : /^Not reconciled: the settlement differs .*VARIANCE/,
      );
    }
  });

  it('after a matched reconciliation: reconciled again as MISSING_AEOB; a second time, or on a refunded transfer, it is refused', () => {
    const id = encounter();
    approve(at(MON_LATER), id, 2460);
    const e = at(WED);
    expect(settlement(e, id)).toMatchObject({ reconciliation_status: 'MATCHED' });
    expect(e.simulate('missing-aeob', id)).toMatchObject({
      reconciliation_status: 'UNMATCHED',
      aeob_match: { match_status: 'MISSING_AEOB', aeob_amount: null },
    });
    expect(() => e.simulate('missing-aeob', id)).toThrow(/already missing/);
    const other = submit(MON, { cpt: ['45378'] }, e).encounterId;
    // The visit's copay was taken by the first claim: 1,875.00 × 80%.
    expect(approve(at(WED_LATER), other, 1500).status).toBe(200);
    const later = at('2026-03-06T12:00:00Z');
    later.simulate('refund', other);
    expect(() => later.simulate('missing-aeob', other)).toThrow(/REFUNDED/);
  });
});

describe('ledger entries without an adjudication', () => {
  /** A pended claim (the knee arthroscopy needs a preauthorization) and a denied one (a duplicate). */
  function pendedAndDenied() {
    const pended = submit(MON, { type: 'professional', npi: '1582736496', cpt: ['29881'] });
    const original = submit(MON);
    const denied = submit(MON);
    return { pended, original, denied };
  }

  it('a pended or denied entry has null amounts in the list and the detail, charges still shown', () => {
    const { pended, denied } = pendedAndDenied();
    const e = at(MON_LATER);
    const results = (call(e, 'GET', '/tpa-api/v1/ledger/entries/').body as { results: Body[] }).results;
    for (const [id, status] of [
      [pended.encounterId, 'PENDED'],
      [denied.encounterId, 'DENIED'],
    ] as const) {
      const item = results.find((r) => r.encounter_id === id)!;
      expect(item.status).toBe(status);
      const { charges, ...amounts } = item.financial_summary as Body;
      expect(charges, id).toBeGreaterThan(0);
      expect(
        Object.values(amounts).every((v) => v === null),
        JSON.stringify(amounts),
      ).toBe(true);

      const f = detail(e, id).financial_summary;
      expect(f.submitted_charges).toBe(charges);
      expect(f.allowed_amount).toBeNull();
      expect(f.adjustments).toEqual({ contractual_adjustment: null, other_adjustments: null });
      expect(Object.values(f.patient_responsibility).every((v) => v === null)).toBe(true);
      expect(f.payer_responsibility).toEqual({ total: null, benefit_amount: null });
      expect(f.balance).toEqual({ running_balance: null, status });
      for (const line of detail(e, id).service_lines as Body[]) {
        expect(line.submitted_charge).toBeGreaterThan(0);
        for (const k of ['allowed_amount', 'deductible_applied', 'copay_applied', 'coinsurance_applied', 'patient_responsibility', 'benefit_amount'])
          expect(line[k], k).toBeNull();
      }
    }
  });

  it('status=SUBMITTED finds the claims not yet adjudicated; PROCESSING still filters alone', () => {
    const slow = home.track(Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON, TPA_ADJUDICATION_DELAY: '1h' } }));
    const waiting = submit(MON, { cpt: ['45378'] }, slow).encounterId;
    const done = submit(MON).encounterId;
    const e = at(MON_LATER);
    expect(listed(e, '?status=SUBMITTED')).toEqual([waiting]);
    expect(listed(e, '?status=PROCESSING')).toEqual([waiting]);
    expect(listed(e, '?status=ADJUDICATED')).toEqual([done]);
    expect((call(e, 'GET', '/tpa-api/v1/ledger/entries/?status=SUBMITTED').body as Body).count).toBe(1);
    // Once adjudicated it is no longer waiting.
    expect(listed(at('2026-03-02T11:00:01Z'), '?status=SUBMITTED')).toEqual([]);
  });

  it('the AEOB reference and processor trace are shown as the claim response carries them', () => {
    const slow = home.track(Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON, TPA_ADJUDICATION_DELAY: '1h' } }));
    const waiting = submit(MON, { cpt: ['45378'] }, slow).encounterId;
    const { pended, original, denied } = pendedAndDenied();
    const e = at(MON_LATER);
    const response = (s: { submissionId: string }) => call(e, 'GET', `/tpa-api/v1/claims/${s.submissionId}/response/`).body as Body;
    const rec = (id: string) => detail(e, id).reconciliation as Body;

    expect(rec(waiting)).toMatchObject({ aeob_reference: null, processor_trace_id: null });
    expect(rec(pended.encounterId)).toMatchObject({ aeob_reference: null, processor_trace_id: null });
    expect(response(pended).aeob_reference).toBeUndefined();
    expect(response(denied).aeob_reference).toEqual(expect.any(String));
    expect(rec(denied.encounterId)).toMatchObject({ aeob_reference: response(denied).aeob_reference, processor_trace_id: null });
    const adjudicated = response(original);
    expect(rec(original.encounterId)).toMatchObject({ aeob_reference: adjudicated.aeob_reference, processor_trace_id: adjudicated.processor_trace_id });

    // Funded again after a failure, the trace is the current transfer's. The waiting claim took the
    // visit's copay: 20.00 more than the template's 2,460.00.
    approve(e, original.encounterId, 2480, 'AUTH-1');
    e.simulate('settlement-failure', original.encounterId);
    const again = approve(e, original.encounterId, 2480, 'AUTH-2').body as Body;
    expect(rec(original.encounterId).processor_trace_id).toBe(again.processor_transfer_id);
  });
});

describe('migration 6: several settlements per encounter', () => {
  it('a database at schema 5 with a funded encounter migrates with its settlement and payouts intact', () => {
    // A funded encounter made by this engine, copied into a database built by migrations 1-5 only.
    const source = tempDir();
    const scratch = Engine.open({ dataDir: source.dir, env: { TPA_CLOCK: MON, TPA_ADJUDICATION_DELAY: '0' } });
    const id = submit(MON, {}, scratch).encounterId;
    approve(scratch, id, 2460);
    const before = settlement(scratch, id);
    const dump = (table: string, where: string) => scratch.db.prepare(`SELECT * FROM ${table} WHERE ${where}`).all(id) as Body[];
    const rows: [string, Body[]][] = [
      ['encounters', dump('encounters', 'id = ?')],
      ['encounter_providers', dump('encounter_providers', 'encounter_id = ?')],
      ['history_entries', dump('history_entries', 'encounter_id = ?')],
      ['settlements', dump('settlements', 'encounter_id = ?')],
      ['payouts', dump('payouts', 'settlement_id IN (SELECT id FROM settlements WHERE encounter_id = ?)')],
    ];
    scratch.close();
    source.remove();

    const old = new Database(databaseFile(home.dir));
    old.pragma('foreign_keys = ON');
    old.transaction(() => {
      for (let v = 0; v < 5; v++) {
        old.exec(MIGRATIONS[v]!);
        SEEDS[v]?.(old, () => new Date(MON));
      }
      old.pragma('user_version = 5');
      for (const [table, list] of rows) {
        const columns = new Set((old.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
        for (const row of list) {
          const kept = Object.keys(row).filter((k) => columns.has(k));
          old
            .prepare(`INSERT INTO ${table} (${kept.join(', ')}) VALUES (${kept.map((k) => `@${k}`).join(', ')})`)
            .run(Object.fromEntries(kept.map((k) => [k, row[k]])));
        }
      }
    })();
    old.close();

    const e = at(MON_LATER);
    expect(e.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(e.db.pragma('foreign_key_check')).toEqual([]);
    expect(settlement(e, id)).toEqual({ ...before, previous_transfers: [] });
    expect((e.db.prepare('SELECT attempt FROM settlements WHERE encounter_id = ?').all(id) as Body[]).map((r) => r.attempt)).toEqual([1]);
    // And the migrated encounter goes on: the transfer fails, and it is funded again.
    e.simulate('settlement-failure', id);
    expect(approve(e, id, 2460, 'AUTH-2').status).toBe(200);
    expect(settlement(e, id).previous_transfers).toMatchObject([
      { settlement_id: before.settlement_id, status: 'FAILED', payouts: before.payouts.map(() => ({ payout_status: 'FAILED' })) },
    ]);
  });
});
