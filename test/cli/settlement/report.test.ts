// `tpa settlement report` over a mixed period built through the real CLI: settled and matched,
// in transit, failed, refunded, an AEOB variance, a missing AEOB, pended, denied, adjudicated and
// never funded. Every total of the report is checked against the individual records (ledger
// entries and settlement records read one by one), to the cent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../../src/domain/claim-template.js';
import { parseCsv } from '../../../src/domain/csv.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { cents, ndjson, REPORT_MONEY_FIELDS } from '../../helpers/values.js';
import { centsToAmount, formatCents } from '../../../src/domain/money.js';

type Row = Record<string, any>;
const MON = '2026-03-02T10:00:00Z';
const WED = '2026-03-04T12:00:00Z';
const LATER = '2026-03-12T12:00:00Z';
const PERIOD = ['--from', '2026-02-01', '--to', '2026-02-28'];

let home: ReturnType<typeof tempDir>;
const at = (clock: string, args: string[], input?: string) => runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock }, input });
/** An amount in cents; one that is absent (null) counts nothing. */
const c = (v: unknown) => (v === null || v === undefined ? 0 : cents(v));

beforeAll(async () => {
  home = tempDir();
  const claims: Row[] = [];
  const members = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];
  // Nine professional claims over the month (distinct member, code and date), one pended (a code
  // that needs a preauthorization), and one that repeats the first (denied as a duplicate).
  for (let i = 0; i < 9; i++) {
    const day = `2026-02-${String(3 + i).padStart(2, '0')}`;
    claims.push(
      claimTemplate({ type: 'professional', npi: '1045782368', cpt: [['45378', '45380', '43235'][i % 3]!], patient: members[i % 4]!, serviceDate: day }) as Row,
    );
  }
  // Three institutional encounters (facility, surgeon, anesthesia, pathology: several payees).
  for (const [i, patient] of ['MBR-1002', 'MBR-1003', 'MBR-1004'].entries()) {
    claims.push(
      claimTemplate({
        type: 'institutional',
        npi: '1234567893',
        cpt: ['45380', '00811', '88305'],
        patient,
        serviceDate: `2026-02-${String(14 + i).padStart(2, '0')}`,
      }) as Row,
    );
  }
  claims.push(claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1001', serviceDate: '2026-02-20' }) as Row);
  claims.push(claims[0]!);
  writeFileSync(join(home.dir, 'month.ndjson'), `${claims.map((x) => JSON.stringify(x)).join('\n')}\n`);
  const batch = await at(MON, ['claim', 'submit', 'month.ndjson', '-o', 'ndjson']);
  expect(batch.code, batch.stderr).toBe(0);
  // Fund six of the adjudicated encounters with a benefit (the newest first); at least one is left.
  expect((await at(MON, ['fund', 'run', '--dry-run', '-o', 'json'])).json<Row>().count).toBeGreaterThan(6);
  const review = (await at(MON, ['fund', 'run', '--dry-run', '--limit', '6', '-o', 'json'])).json<Row>();
  expect(review.count).toBe(6);
  const run = await at(MON, [
    'fund',
    'run',
    '--limit',
    '6',
    '--auth-code-prefix',
    'AUTH-20260302-RPT',
    '--expect-total',
    String(review.total),
    '--yes',
    '-o',
    'ndjson',
  ]);
  expect(run.code, run.stderr).toBe(0);
  const ids = review.encounters.map((e: Row) => e.encounter_id as string);
  // One fails while in transit; the others arrive by Wednesday; then one is refunded, one's AEOB
  // states less, one's never came. The failed one is funded again just before the report: in transit.
  expect((await at(MON, ['local', 'simulate', 'settlement-failure', ids[0]])).code).toBe(0);
  expect((await at(WED, ['local', 'simulate', 'refund', ids[1]])).code).toBe(0);
  expect((await at(WED, ['local', 'simulate', 'aeob-variance', ids[2]])).code).toBe(0);
  expect((await at(WED, ['local', 'simulate', 'missing-aeob', ids[3]])).code).toBe(0);
  const again = (await at(LATER, ['ledger', 'show', ids[0], '-o', 'json'])).json<Row>();
  const benefit = again.financial_summary.payer_responsibility.total as number;
  expect((await at(LATER, ['fund', 'approve', ids[0], '--amount', formatCents(cents(benefit)), '--auth-code', 'AUTH-20260312-RPT-0007', '--yes'])).code).toBe(
    0,
  );
  // And one claim still in adjudication when the report is made.
  writeFileSync(
    join(home.dir, 'late.json'),
    JSON.stringify(claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['43235'], patient: 'MBR-1004', serviceDate: '2026-02-25' })),
  );
  const late = await runTpa(['claim', 'submit', 'late.json'], { home: home.dir, env: { TPA_CLOCK: LATER, TPA_ADJUDICATION_DELAY: '1h' } });
  expect(late.code, late.stderr).toBe(0);
});
afterAll(() => home.remove());

describe('tpa settlement report', () => {
  it('every total equals the individual ledger entries and settlement records, to the cent', async () => {
    const r = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json<Row>();
    const entries = ndjson((await at(LATER, ['ledger', 'list', '--all', '--from', '2026-02-01', '--to', '2026-02-28', '-o', 'ndjson'])).stdout);
    expect(entries).toHaveLength(15);

    // Encounters by status.
    const byStatus = new Map<string, { count: number; charges: number; allowed: number; patient: number; benefit: number }>();
    for (const e of entries) {
      const s = byStatus.get(e.status) ?? { count: 0, charges: 0, allowed: 0, patient: 0, benefit: 0 };
      s.count++;
      s.charges += c(e.financial_summary.charges);
      s.allowed += c(e.financial_summary.allowed_amount);
      s.patient += c(e.financial_summary.patient_responsibility);
      s.benefit += c(e.financial_summary.benefit_amount);
      byStatus.set(e.status, s);
    }
    expect(new Set(byStatus.keys())).toEqual(new Set(['PROCESSING', 'ADJUDICATED', 'FUNDED', 'RECONCILED', 'PENDED', 'DENIED']));
    for (const line of report.encounters.by_status) {
      const s = byStatus.get(line.status)!;
      expect([line.count, c(line.charges), c(line.allowed), c(line.patient_responsibility), c(line.benefit)], line.status).toEqual([
        s.count,
        s.charges,
        s.allowed,
        s.patient,
        s.benefit,
      ]);
    }
    expect(report.encounters.count).toBe(15);
    expect(c(report.encounters.charges)).toBe(entries.reduce((s, e) => s + c(e.financial_summary.charges), 0));

    // Money and providers: every transfer of every funded encounter, read one by one.
    const transfers: Row[] = [];
    const current: Row[] = [];
    for (const e of entries.filter((x) => x.status_progression.some((p: Row) => p.status === 'FUNDED'))) {
      const s = (await at(LATER, ['settlement', 'show', e.encounter_id, '-o', 'json'])).json<Row>();
      current.push(s);
      transfers.push(...(s.previous_transfers ?? []), s);
    }
    const sum = (status: string) => transfers.filter((t) => t.status === status).reduce((s, t) => s + c(t.total_amount), 0);
    expect(transfers.map((t) => t.status).sort()).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'FAILED', 'INITIATED', 'REFUNDED']);
    expect(c(report.money.in_transit)).toBe(sum('INITIATED'));
    expect(c(report.money.settled)).toBe(sum('COMPLETED'));
    expect(c(report.money.failed)).toBe(sum('FAILED'));
    expect(c(report.money.released_then_refunded)).toBe(sum('REFUNDED'));
    expect(c(report.money.released)).toBe(sum('INITIATED') + sum('COMPLETED') + sum('REFUNDED'));
    // A failed transfer moved no money: no fee, nothing net to anyone.
    const failedPayouts = transfers.filter((t) => t.status === 'FAILED').flatMap((t) => t.payouts as Row[]);
    expect(failedPayouts.length).toBeGreaterThan(0);
    for (const p of failedPayouts) expect([c(p.processor_fee), c(p.net_to_provider)]).toEqual([0, 0]);
    // What came back is what the refund records say returned (net of the fees the processor kept).
    const refunded = transfers.filter((t) => t.status === 'REFUNDED');
    const cameBack = refunded.reduce((s, t) => s + c(t.refund_details.amount), 0);
    expect(cameBack).toBeLessThan(sum('REFUNDED'));
    expect(c(report.money.came_back)).toBe(cameBack);
    const feesOf = (ts: Row[]) => ts.flatMap((t) => t.payouts as Row[]).reduce((s, p) => s + c(p.processor_fee), 0);
    expect(c(report.money.fees_charged)).toBe(feesOf(transfers));
    expect(c(report.money.fees_kept)).toBe(feesOf(transfers.filter((t) => t.status === 'REFUNDED' || t.status === 'FAILED')));
    expect(c(report.money.fees_kept)).toBe(sum('REFUNDED') - cameBack);
    // Spent: what left the plan and did not come back.
    expect(c(report.money.spent)).toBe(c(report.money.released) - cameBack);
    expect(c(report.money.spent)).toBe(c(report.money.net_to_providers) + c(report.money.fees_charged));
    const moving = transfers.filter((t) => t.status === 'INITIATED' || t.status === 'COMPLETED').flatMap((t) => t.payouts as Row[]);
    const fees = moving.reduce((s, p) => s + c(p.processor_fee), 0);
    expect(c(report.money.net_to_providers)).toBe(moving.reduce((s, p) => s + c(p.amount), 0) - fees);
    // Every released payout is its provider's row, released then refunded too: the rows add up to released.
    const releasedPayouts = transfers.filter((t) => t.status !== 'FAILED').flatMap((t) => (t.payouts as Row[]).map((p): Row => ({ ...p, transfer: t.status })));
    for (const p of report.providers) {
      const mine = releasedPayouts.filter((x) => x.provider_npi === p.npi);
      const kept = mine.filter((x) => x.transfer !== 'REFUNDED');
      expect([p.payouts, c(p.amount), c(p.refunded), c(p.fees), c(p.net)], p.npi).toEqual([
        mine.length,
        mine.reduce((s, x) => s + c(x.amount), 0),
        mine.filter((x) => x.transfer === 'REFUNDED').reduce((s, x) => s + c(x.amount), 0),
        mine.reduce((s, x) => s + c(x.processor_fee), 0),
        kept.reduce((s, x) => s + c(x.amount) - c(x.processor_fee), 0),
      ]);
    }
    const rows = (k: string) => report.providers.reduce((s: number, p: Row) => s + c(p[k]), 0);
    expect(rows('amount')).toBe(c(report.money.released));
    expect(rows('refunded')).toBe(c(report.money.released_then_refunded));
    expect(rows('fees')).toBe(c(report.money.fees_charged));
    expect(rows('net')).toBe(c(report.money.net_to_providers));

    // Reconciliation of the current transfers that stay with the providers.
    const completed = current.filter((s) => s.status === 'COMPLETED');
    const match = (m: string) => completed.filter((s) => s.aeob_match?.match_status === m);
    expect(match('EXACT').length).toBeGreaterThan(0);
    expect(report.reconciliation.matched).toEqual({
      count: match('EXACT').length,
      amount: centsToAmount(match('EXACT').reduce((s, x) => s + c(x.total_amount), 0)),
    });
    expect(report.reconciliation.variance.count).toBe(1);
    expect(c(report.reconciliation.variance.items[0].variance)).toBe(c(match('VARIANCE')[0]!.aeob_match.variance));
    expect(report.reconciliation.missing_aeob.count).toBe(1);
    expect(c(report.reconciliation.missing_aeob.amount)).toBe(c(match('MISSING_AEOB')[0]!.total_amount));
    expect(report.reconciliation.not_reconciled.count).toBe(current.filter((s) => s.status === 'INITIATED').length);

    // Exceptions: the refunded transfer, the variance, the missing AEOB, the claim pended for more
    // than 7 days, the adjudicated encounters with a benefit not funded after 3. The failed
    // transfer's encounter was funded again: acted on, it is no exception any more.
    const kinds = report.exceptions.map((x: Row) => x.kind).sort();
    // (A refunded encounter is owed again: back to ADJUDICATED, and not funded since, it is one too.)
    const unfunded = entries.filter((e) => e.status === 'ADJUDICATED' && c(e.financial_summary.benefit_amount) > 0);
    expect(unfunded.some((e) => e.status_progression.some((p: Row) => p.status === 'FUNDED'))).toBe(true);
    expect(kinds).toEqual(
      ['AEOB_VARIANCE', 'MISSING_AEOB', 'PENDED_OVER_7_DAYS', 'REFUNDED_TRANSFER', ...unfunded.map(() => 'NOT_FUNDED_AFTER_3_DAYS')].sort(),
    );
    // Settled per day: the completed transfers by their completion day.
    expect(report.settled_per_day.reduce((s: number, d: Row) => s + c(d.amount), 0)).toBe(sum('COMPLETED'));
  });

  it("with --npi the money is that provider's payouts: the providers' reports add up to the whole, not to a multiple", async () => {
    const whole = (await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json'])).json<Row>();
    const funded = ndjson((await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'ndjson'])).stdout).filter((l) => l.transfer_status !== null);
    const payees = new Set<string>();
    for (const l of funded) {
      const s = (await at(LATER, ['settlement', 'show', l.encounter_id, '-o', 'json'])).json<Row>();
      for (const t of [...(s.previous_transfers ?? []), s]) for (const p of t.payouts) payees.add(p.provider_npi);
    }
    expect(payees.size).toBeGreaterThan(3);
    expect(c(whole.money.released)).toBeGreaterThan(0);
    const measures = REPORT_MONEY_FIELDS;
    const summed: Record<string, number> = Object.fromEntries(measures.map((m) => [m, 0]));
    for (const npi of payees) {
      const mine = await at(LATER, ['settlement', 'report', ...PERIOD, '--npi', npi, '-o', 'json']);
      expect(mine.code, mine.stderr).toBe(0);
      const r = mine.json<Row>();
      for (const m of measures) summed[m] = summed[m]! + c(r.money[m]);
      expect(r.providers.map((p: Row) => p.npi)).toEqual(r.providers.length === 0 ? [] : [npi]);
      expect(c(r.money.spent)).toBe(c(r.money.net_to_providers) + c(r.money.fees_charged));
    }
    expect(summed).toEqual(Object.fromEntries(measures.map((m) => [m, c(whole.money[m])])));
  });

  it("with --npi a refunded encounter not funded again is owed that provider's payouts: the reports add up to the encounter", async () => {
    const whole = (await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json'])).json<Row>();
    const refunded = ndjson((await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'ndjson'])).stdout).find((l) => l.transfer_status === 'REFUNDED')!;
    const s = (await at(LATER, ['settlement', 'show', refunded.encounter_id, '-o', 'json'])).json<Row>();
    expect(s.payouts.length).toBeGreaterThan(1);
    const unfunded = (r: Row) => r.exceptions.filter((x: Row) => x.kind === 'NOT_FUNDED_AFTER_3_DAYS' && x.encounter_id === refunded.encounter_id);
    const all = unfunded(whole);
    expect(all).toHaveLength(1);
    let summed = 0;
    for (const p of s.payouts) {
      const mine = (await at(LATER, ['settlement', 'report', ...PERIOD, '--npi', p.provider_npi, '-o', 'json'])).json<Row>();
      const x = unfunded(mine);
      expect(x.map((e: Row) => c(e.amount))).toEqual([c(p.amount)]);
      summed += c(x[0].amount);
    }
    expect(summed).toBe(c(all[0].amount));
  });

  it('over HTTP from local serve, the same report as in-process', async () => {
    const { serve } = await import('../../helpers/server.js');
    const server = await serve(home.dir, [], { TPA_CLOCK: LATER });
    try {
      const key = (await at(LATER, ['local', 'keys', 'create'])).stdout.trim();
      expect((await at(LATER, ['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], key)).code).toBe(0);
      const remote = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json', '-p', 'sandbox']);
      expect(remote.code, remote.stderr).toBe(0);
      const local = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json', '-p', 'local']);
      expect(remote.json()).toEqual(local.json());
    } finally {
      await server.stop();
    }
  });

  it('csv without --section holds every section of the JSON report, one table with a section column, amounts with two decimals, adding up', async () => {
    const data = (await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'json', '-p', 'local'])).json<Row>();
    const csv = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'csv', '-p', 'local']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...records] = parseCsv(csv.stdout).map((r) => r.fields);
    expect(header![0]).toBe('section');
    const rows = records.map((f) => Object.fromEntries(header!.map((h, i) => [h, f[i] ?? ''])));
    const of = (section: string) => rows.filter((r) => r.section === section);
    expect([...new Set(rows.map((r) => r.section))]).toEqual(['providers', 'status', 'money', 'reconciliation', 'exceptions', 'days']);
    const two = (v: unknown) => (v === null || v === undefined ? '' : formatCents((v as number) < 0 ? -cents(-(v as number)) : cents(v)));
    // Each section's rows are the JSON's, in its order, every amount written with two decimals.
    expect(of('providers').map((r) => [r.npi, r.payouts, r.amount, r.refunded, r.fees, r.net])).toEqual(
      data.providers.map((p: Row) => [p.npi, String(p.payouts), two(p.amount), two(p.refunded), two(p.fees), two(p.net)]),
    );
    expect(of('status').map((r) => [r.status, r.count, r.charges, r.allowed, r.patient_responsibility, r.benefit])).toEqual(
      data.encounters.by_status.map((s: Row) => [s.status, String(s.count), two(s.charges), two(s.allowed), two(s.patient_responsibility), two(s.benefit)]),
    );
    expect(of('money').map((r) => [r.measure, r.amount])).toEqual(
      Object.entries(data.money as Row)
        .filter(([k]) => k !== 'transfers')
        .map(([k, v]) => [k, two(v)]),
    );
    expect(of('reconciliation').map((r) => [r.reconciliation, r.count, r.amount])).toEqual(
      ['matched', 'variance', 'missing_aeob', 'not_reconciled'].map((k) => [k, String(data.reconciliation[k].count), two(data.reconciliation[k].amount)]),
    );
    expect(of('exceptions').map((r) => [r.kind, r.encounter_id, r.amount])).toEqual(data.exceptions.map((x: Row) => [x.kind, x.encounter_id, two(x.amount)]));
    expect(of('exceptions').length).toBeGreaterThan(0);
    expect(of('days').map((r) => [r.day, r.amount])).toEqual(data.settled_per_day.map((d: Row) => [d.day, two(d.amount)]));
    for (const r of rows) for (const k of ['amount', 'charges', 'allowed', 'benefit', 'net', 'fees']) if (r[k] !== '') expect(r[k], k).toMatch(/^-?\d+\.\d\d$/);
    // The money adds up inside the CSV alone: the statuses to the encounters' totals, the days to
    // settled, the providers' nets to the net to providers.
    const sum = (list: Row[], k: string) => list.reduce((t, r) => t + Math.round(Number(r[k]) * 100), 0);
    const money = Object.fromEntries(of('money').map((r) => [r.measure, Math.round(Number(r.amount) * 100)]));
    expect(sum(of('status'), 'benefit')).toBe(cents(data.encounters.benefit));
    expect(sum(of('status'), 'charges')).toBe(cents(data.encounters.charges));
    expect(sum(of('days'), 'amount')).toBe(money.settled);
    expect(sum(of('providers'), 'net')).toBe(money.net_to_providers);
  });

  it('csv gives one section with --section, ndjson a line per encounter, the table a bar chart; --from and --to are required', async () => {
    const csv = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'csv', '--section', 'providers', '-p', 'local']);
    expect(csv.stdout.split('\n')[0]).toBe('npi,name,payouts,amount,refunded,fees,net');
    const exceptions = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'csv', '--section', 'exceptions', '-p', 'local']);
    expect(exceptions.stdout.split('\n')[0]).toBe('kind,encounter_id,encounter_number,amount,since,reference');
    const lines = ndjson((await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'ndjson', '-p', 'local'])).stdout);
    expect(lines).toHaveLength(15);
    expect(lines.filter((l) => l.transfer_status === 'REFUNDED')).toHaveLength(1);
    const table = await at(LATER, ['settlement', 'report', ...PERIOD, '-o', 'table', '-p', 'local']);
    expect(table.stdout).toMatch(
      /Settled per day\nArrivals of the transfers of these encounters; the days sum to Settled\.\n\n2026-03-0\d\s+[\d,]+\.\d\d\s+█+/,
    );
    expect(table.stdout).toMatch(/Exceptions to act on/);
    const missing = await at(LATER, ['settlement', 'report', '--from', '2026-02-01']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--to is required/);
  });
});
