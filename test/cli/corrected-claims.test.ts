// Corrected and void claims from the command line, in-process and over `tpa local serve`: an 837
// replacement (CLM05-3 7, REF*F8 the ENC number tpa returned) in a new interchange is a new claim
// that supersedes the original; a payment run then pays the replacement once and never the
// original; a void of a funded claim is refused naming its transfer; the audit chain stays whole.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';
import { ndjson } from '../helpers/values.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z', TPA_ADJUDICATION_DELAY: '0' };
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
let server: Served | undefined;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => {
  server?.child.kill();
  server = undefined;
  cleanup();
});

/**
 * An 837P of one claim PATIENT123 in interchange `isa13`, of frequency `frequency` naming `f8`: two
 * visits, so that the plan pays a part once the deductible is met (a payment run pays only that).
 */
function file(name: string, isa13: string, frequency = '1', f8?: string): string {
  const lines = [
    { cpt: '45378', charge: '1800', date: '20250110' },
    { cpt: '45378', charge: '1800', date: '20250111' },
  ];
  const claim = professionalClaim({ clm01: 'PATIENT123', lines }).flatMap((s) =>
    s.startsWith('CLM*') ? [s.replace('11:B:1', `11:B:${frequency}`), ...(f8 ? [`REF*F8*${f8}`] : [])] : [s],
  );
  writeFileSync(join(home, name), interchange([transaction({ st02: '0001', type: 'professional', claims: [claim] })], { isa13 }));
  return name;
}

const tpa = (args: string[]) => runTpa(args, { home, env });

async function submitted(name: string): Promise<Row> {
  const r = await tpa(['claim', 'submit', name, '-o', 'ndjson']);
  const rows = ndjson(r.stdout);
  expect(rows, r.stderr).toHaveLength(1);
  return rows[0]!;
}

const show = async (id: string) => (await tpa(['ledger', 'show', id, '-o', 'json'])).json<Row>();

describe.each([
  ['in-process', false],
  ['over tpa local serve', true],
])('an 837 replacement and void, %s', (_, served) => {
  it('a replacement supersedes the original; a payment run pays the replacement once; a void after funding is refused naming the transfer', async () => {
    if (served) {
      server = await serve(home, ['--no-rate-limit'], env);
      await login(home, server.url);
    }
    const original = await submitted(file('original.837', '000000001'));
    expect(original.status).toBe('ACKNOWLEDGED');
    const number = (await show(original.external_claim_id)).encounter.encounter_number as string;

    const replacement = await submitted(file('replacement.837', '000000002', '7', number));
    expect(replacement.status, JSON.stringify(replacement)).toBe('ACKNOWLEDGED');
    expect(replacement.external_claim_id).not.toBe(original.external_claim_id);
    expect((await show(original.external_claim_id)).encounter).toMatchObject({ status: 'SUPERSEDED', replaced_by: replacement.external_claim_id });
    expect((await show(replacement.external_claim_id)).encounter).toMatchObject({ status: 'ADJUDICATED', replaces: original.external_claim_id });
    const text = await tpa(['ledger', 'show', original.external_claim_id, '-o', 'table']);
    expect(text.stdout).toMatch(new RegExp(`Replaced by +${replacement.external_claim_id} \\(this claim is superseded and will not be paid\\)`));
    expect(text.stdout).toContain('(SUPERSEDED)');
    expect((await tpa(['ledger', 'show', replacement.external_claim_id, '-o', 'table'])).stdout).toMatch(new RegExp(`Replaces +${original.external_claim_id}`));
    const superseded = await tpa(['ledger', 'list', '--status', 'SUPERSEDED', '-o', 'json']);
    expect(superseded.json<Row>().results.map((r: Row) => r.encounter_id)).toEqual([original.external_claim_id]);

    // The views agree: the original has no settlement and no 835; the report counts the service
    // once (the replacement), the original under `corrected`, the report of the period being the
    // sum of its days' (the activity's events: test/unit/corrected-views.test.ts).
    const remit = await tpa(['settlement', 'remit', original.external_claim_id]);
    expect(remit.code).toBe(3);
    expect(remit.stderr).toContain('replaced by a corrected claim before funding: it has no transfer and no 835');
    const reportOf = async (from: string, to: string) => {
      const r = await tpa(['settlement', 'report', '--from', from, '--to', to, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return r.json<Row>().encounters;
    };
    const whole = await reportOf('2025-01-01', '2025-01-31');
    expect(whole).toMatchObject({ count: 1, charges: 3600, corrected: { count: 1, charges: 3600 } });
    expect(whole.by_status.map((l: Row) => l.status)).toEqual(['ADJUDICATED']);
    const days = [await reportOf('2025-01-01', '2025-01-10'), await reportOf('2025-01-11', '2025-01-31')];
    expect(days.reduce((n, d) => n + d.count, 0)).toBe(whole.count);
    expect(days.reduce((n, d) => n + d.corrected.count, 0)).toBe(whole.corrected.count);

    // The payment run selects the replacement alone and pays it once.
    const review = await tpa(['fund', 'run', '--dry-run', '-o', 'json']);
    expect(review.code, review.stderr).toBe(0);
    const plan = review.json<Row>();
    expect(plan.encounters.map((e: Row) => e.encounter_id)).toEqual([replacement.external_claim_id]);
    const run = await tpa(['fund', 'run', '--auth-code-prefix', 'AUTH-CORR', '--expect-total', String(plan.total), '--yes', '-o', 'ndjson']);
    expect(run.code, run.stderr).toBe(0);
    const approvals = ndjson(run.stdout);
    expect(approvals.map((a) => [a.encounter_id, a.status])).toEqual([[replacement.external_claim_id, 'APPROVED']]);

    // A void of the funded replacement is refused, naming its transfer; nothing changes.
    const voided = await submitted(file('void.837', '000000003', '8', replacement.external_claim_id));
    expect(voided.status, JSON.stringify(voided)).toBe('FAILED');
    expect(JSON.stringify(voided.errors)).toContain(`transfer ${approvals[0]!.processor_transfer_id}`);
    expect(JSON.stringify(voided.errors)).toContain('recovery of paid money is not done by tpa yet');
    expect((await show(replacement.external_claim_id)).encounter.status).toBe('FUNDED');

    const deep = await tpa(['local', 'audit', 'verify', '--deep', '-o', 'json']);
    expect(deep.code, deep.stderr).toBe(0);
  });
});

describe.each([
  ['in-process', false],
  ['over tpa local serve', true],
])('a claim replaced after its transfer failed, %s', (_, served) => {
  it('is closed: no settlement, no exception, no approval, no explanation of benefits; its failed transfer stays in the money as history', async () => {
    if (served) {
      server = await serve(home, ['--no-rate-limit'], env);
      await login(home, server.url);
    }
    const original = await submitted(file('original.837', '000000001'));
    const detail = await show(original.external_claim_id);
    const amount = String(detail.financial_summary.payer_responsibility.total);
    const approved = await tpa(['fund', 'approve', original.external_claim_id, '--amount', amount, '--auth-code', 'AUTH-FAIL-0001', '--yes', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await tpa(['local', 'simulate', 'settlement-failure', original.external_claim_id])).code).toBe(0);
    const replacement = await submitted(file('replacement.837', '000000002', '7', detail.encounter.encounter_number));
    expect((await show(original.external_claim_id)).encounter).toMatchObject({ status: 'SUPERSEDED', replaced_by: replacement.external_claim_id });

    // No settlement, and no screen says the benefit is owed again.
    const settlement = await tpa(['settlement', 'show', original.external_claim_id]);
    expect(settlement.code).toBe(3);
    expect(settlement.stderr).toContain(`SUPERSEDED (replaced by a corrected claim, ${replacement.external_claim_id}); there is nothing to fund`);
    expect(settlement.stderr).not.toMatch(/owed again|anew/);

    // Funding it is refused as closed (exit 4), not as denied nor as not adjudicated yet.
    const again = await tpa(['fund', 'approve', original.external_claim_id, '--amount', amount, '--auth-code', 'AUTH-FAIL-0002', '--yes']);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/SUPERSEDED .*nothing to fund/);
    expect(again.stderr).not.toMatch(/denied|not adjudicated yet/);

    // Its explanation of benefits: closed, not pending (exit 4, not 7), naming the replacement.
    const eob = await tpa(['ledger', 'eob', original.external_claim_id]);
    expect(eob.code).toBe(4);
    expect(eob.stderr).toContain(`SUPERSEDED (replaced by a corrected claim, ${replacement.external_claim_id})`);
    expect(eob.stdout).toBe('');

    // The report by the money's dates: the failed transfer is history (a FAILED transfer, its
    // amount failed), but no exception says money is owed on the closed claim; the month is the sum of its days.
    const report = async (from: string, to: string, by: string, npi?: string) => {
      const r = await tpa(['settlement', 'report', '--from', from, '--to', to, '--by', by, ...(npi ? ['--npi', npi] : []), '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return r.json<Row>();
    };
    // The day the transfer was made and failed (the served engine keeps its own clock), and the day before.
    const closed = JSON.parse((await tpa(['api', 'GET', `/tpa-api/v1/settlement/${original.external_claim_id}/`])).stdout);
    expect(closed).toMatchObject({ error: 'no_settlement', status: 'SUPERSEDED', history: { status: 'FAILED' } });
    const day = (closed.history.initiated_at as string).slice(0, 10);
    const before = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
    const payee = detail.encounter.provider.npi as string;
    for (const [by, npi] of [
      ['funded', undefined],
      ['settled', undefined],
      ['funded', payee],
    ] as const) {
      const whole = await report(before, day, by, npi);
      expect(whole.exceptions.filter((x: Row) => x.encounter_id === original.external_claim_id)).toEqual([]);
      const days = [await report(before, before, by, npi), await report(day, day, by, npi)];
      expect(days.reduce((n, d) => n + d.exceptions.length, 0)).toBe(whole.exceptions.length);
      expect(days.reduce((n, d) => n + d.money.failed, 0)).toBe(whole.money.failed);
    }
    const funded = await report(before, day, 'funded');
    expect(funded.money.transfers).toMatchObject({ FAILED: 1 });
    expect(funded.money.failed).toBeGreaterThan(0);
    // By service: the replacement is the service's one claim; the original is under `corrected`, owing nothing.
    const service = await tpa(['settlement', 'report', '--from', '2025-01-01', '--to', '2025-01-31', '-o', 'json']);
    expect(service.code, service.stderr).toBe(0);
    const byService = service.json<Row>();
    expect(byService.encounters).toMatchObject({ count: 1, corrected: { count: 1 } });
    expect(byService.exceptions.filter((x: Row) => x.encounter_id === original.external_claim_id)).toEqual([]);
  });
});

describe('claim validate of corrected claims (the embedded engine’s rules, nothing kept)', () => {
  it('a replacement naming a claim tpa does not know is refused naming it (exit 2); a void of a known claim would void it, and nothing changes', async () => {
    const unknown = await tpa(['claim', 'validate', file('unknown.837', '000000001', '7', 'ENC-2025-000099')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('related[0].claim.identifier.value: is ENC-2025-000099: no claim of that number is known to the plan');

    const original = await submitted(file('original.837', '000000002'));
    const check = await tpa(['claim', 'validate', file('void.837', '000000003', '8', original.external_claim_id), '-o', 'json']);
    expect(check.code, check.stderr).toBe(0);
    const body = check.json<Row[]>()[0]!;
    expect(body.engine_check).toMatchObject({
      accepted: true,
      disposition: 'VOIDED',
      says: expect.stringMatching(/^would be VOIDED: Claim ENC-2025-\d+ was voided and will not be paid$/),
      lines: [],
    });
    expect((await show(original.external_claim_id)).encounter.status).toBe('ADJUDICATED');
  });
});

describe.each([
  ['in-process', false],
  ['over tpa local serve', true],
])('an approval of a claim closed after its transfer ended, %s', (_, served) => {
  // The engine clock stored in the data dir (not TPA_CLOCK), so that a refund can follow a completed transfer.
  const live = { TPA_ADJUDICATION_DELAY: '0' };
  const cli = (args: string[]) => runTpa(args, { home, env: live });
  const ok = async (args: string[]) => {
    const r = await cli(args);
    expect(r.code, r.stderr).toBe(0);
    return r;
  };

  it.each([
    ['FAILED', 'replaced', '7'],
    ['REFUNDED', 'replaced', '7'],
    ['FAILED', 'voided', '8'],
  ] as const)(
    'a transfer %s, the claim then %s: fund history shows it CLOSED, owing nothing, and fund approve -o json names the replacement as the service does',
    async (ended, _how, frequency) => {
      await ok(['local', 'clock', 'set', '2026-06-30T12:00:00Z']);
      if (served) {
        server = await serve(home, ['--no-rate-limit'], live);
        await login(home, server.url);
      }
      const submit = async (name: string) => {
        const rows = ndjson((await ok(['claim', 'submit', name, '-o', 'ndjson'])).stdout);
        expect(rows).toHaveLength(1);
        return rows[0]!.external_claim_id as string;
      };
      const detailOf = async (id: string) => (await ok(['ledger', 'show', id, '-o', 'json'])).json<Row>();
      const a = await submit(file('original.837', '000000001'));
      const detail = await detailOf(a);
      const amount = String(detail.financial_summary.payer_responsibility.total);
      await ok(['fund', 'approve', a, '--amount', amount, '--auth-code', 'AUTH-CLOSED-0001', '--yes']);
      if (ended === 'FAILED') await ok(['local', 'simulate', 'settlement-failure', a]);
      else {
        await ok(['local', 'clock', 'advance', '3d']);
        await ok(['local', 'simulate', 'refund', a]);
      }
      const b = await submit(file('correction.837', '000000002', frequency, detail.encounter.encounter_number));
      const closedAs = frequency === '7' ? 'SUPERSEDED' : 'VOIDED';
      expect((await detailOf(a)).encounter.status).toBe(closedAs);

      // Funding the closed claim: refused (exit 4) with the service's whole refusal, the replacement named.
      const refused = await cli(['fund', 'approve', a, '--amount', amount, '--auth-code', 'AUTH-CLOSED-0002', '--yes', '-o', 'json']);
      expect(refused.code).toBe(4);
      const said = {
        error: 'invalid_state',
        reason: 'CLAIM_NOT_ADJUDICATED',
        encounter_id: a,
        status: closedAs,
        ...(closedAs === 'SUPERSEDED' ? { replaced_by: b } : {}),
      };
      expect(JSON.parse(refused.stderr).error.details).toMatchObject(said);
      expect(JSON.parse(refused.stdout)).toMatchObject(said);
      if (closedAs === 'SUPERSEDED') {
        const plain = await cli(['fund', 'approve', a, '--amount', amount, '--auth-code', 'AUTH-CLOSED-0003', '--yes']);
        expect(plain.stderr).toContain(`the claim to fund is ${b}`);
        // The replacement is funded: the closed claim is no more owed for it.
        const benefit = String((await detailOf(b)).financial_summary.payer_responsibility.total);
        await ok(['fund', 'approve', b, '--amount', benefit, '--auth-code', 'AUTH-CLOSED-0004', '--yes']);
      }

      const history = (await ok(['fund', 'history', '-o', 'json'])).json<Row[]>();
      const first = history.find((h) => h.authorization_code === 'AUTH-CLOSED-0001');
      expect(first).toMatchObject({
        encounter_id: a,
        outcome: 'CLOSED',
        transfer_status: ended,
        closed_as: closedAs,
        replaced_by: closedAs === 'SUPERSEDED' ? b : null,
      });
      expect(first!.message).toContain('nothing is owed on it');
      expect(first!.message).not.toMatch(/owed again/);
      if (closedAs === 'SUPERSEDED')
        expect(history.find((h) => h.authorization_code === 'AUTH-CLOSED-0004')).toMatchObject({ encounter_id: b, outcome: 'APPROVED' });
      const table = (await ok(['fund', 'history', '-o', 'table'])).stdout;
      expect(table).toContain(closedAs === 'SUPERSEDED' ? `CLOSED (SUPERSEDED by ${b}: nothing owed)` : 'CLOSED (VOIDED: nothing owed)');
      expect(table).not.toMatch(/OWED|owed again/);
      const csv = (await ok(['fund', 'history', '-o', 'csv'])).stdout;
      expect(csv.split('\n')[0]).toContain('closed_as,replaced_by');
    },
  );
});

describe('an approval whose answer was lost, of a claim closed since its transfer failed', () => {
  it('is found out as happened when the claim is next approved, and said closed, owing nothing, never owed again', async () => {
    const original = await submitted(file('original.837', '000000001'));
    const id = original.external_claim_id as string;
    const detail = await show(id);
    const amount = String(detail.financial_summary.payer_responsibility.total);
    // The answer is lost, and the ledger cannot be read to find out: exit 8, UNKNOWN.
    const lost = await runTpa(['fund', 'approve', id, '--amount', amount, '--auth-code', 'AUTH-LOST-0001', '--yes'], {
      home,
      env: { ...env, TPA_FAULT: 'lose-response*1:/funding/approve/,error-503:/ledger/entries/' },
    });
    expect(lost.code, lost.stderr).toBe(8);
    expect((await tpa(['local', 'simulate', 'settlement-failure', id])).code).toBe(0);
    const replacement = await submitted(file('replacement.837', '000000002', '7', detail.encounter.encounter_number));
    const again = await tpa(['fund', 'approve', id, '--amount', amount, '--auth-code', 'AUTH-LOST-0002', '--yes']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(`the earlier approval AUTH-LOST-0001 of ${id}, whose answer was lost, did happen (transfer tr_`);
    expect(again.stderr).toContain(
      `the claim is closed since, SUPERSEDED (replaced by a corrected claim, ${replacement.external_claim_id}): nothing is owed on it`,
    );
    expect(again.stderr).not.toMatch(/owed again/);
    const history = (await tpa(['fund', 'history', '-o', 'json'])).json<Row[]>();
    expect(history.find((h) => h.authorization_code === 'AUTH-LOST-0001')).toMatchObject({
      outcome: 'CLOSED',
      closed_as: 'SUPERSEDED',
      replaced_by: replacement.external_claim_id,
    });
  });
});
