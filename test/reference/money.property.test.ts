// The engine against the reference model, on generated sequences of claims, approvals, sandbox
// triggers, schedule finalizations and clock moves: every figure to the cent, plus invariants that
// hold across the claims of a sequence whatever the model says.
// TPA_PROPERTY_RUNS (default 2000) and TPA_PROPERTY_SEED choose how many and which; a failure
// prints its seed, its path and the shrunk sequence (TPA_PROPERTY_SEED and TPA_PROPERTY_PATH replay it).
// TPA_MODEL_FEATURES=FULL|UNCHANGED chooses the generator (see generate.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBase, runEngine } from './driver.js';
import { type ClaimFigures, emptyReport, type Outcome, type ReportFigures, type Sequence } from './events.js';
import { provider, seededContracts } from './fixtures.js';
import { type Features, sequences } from './generate.js';
import { chargeOf, DISTINCT_SERVICE, Model } from './model.js';

const DEFAULT_FEATURES: Features = 'FULL';
const FEATURES = (process.env.TPA_MODEL_FEATURES as Features | undefined) ?? DEFAULT_FEATURES;
/** Event kinds to leave out, comma-separated (clock-back, finalize, ...). */
const EXCLUDE = (process.env.TPA_MODEL_EXCLUDE ?? '').split(',').filter(Boolean);
const RUNS = Number(process.env.TPA_PROPERTY_RUNS ?? 2000);
const SEED = process.env.TPA_PROPERTY_SEED === undefined ? undefined : Number(process.env.TPA_PROPERTY_SEED);
/** With the seed, the path a failure printed replays that sequence (and its shrinking) at once. */
const REPLAY_PATH = process.env.TPA_PROPERTY_PATH;
/** The report runs the CLI in-process: one sequence in this many has it (every one with a seed given). */
const REPORT_EVERY = SEED === undefined ? 8 : 1;

let base: EngineBase;
beforeAll(() => {
  base = new EngineBase();
});
afterAll(() => base.remove());

const claims = (s: Sequence, o: Outcome) =>
  s.events.flatMap((e, i) => (e.kind === 'claim' && (o.answers[i] as ClaimFigures).http === 201 ? [{ event: e, figures: o.answers[i] as ClaimFigures }] : []));

/** Invariants of the engine's own answers, whatever the model says. */
function invariants(s: Sequence, o: Outcome): void {
  const contracts = seededContracts();
  const paid = new Set<string>();
  for (const { event, figures } of claims(s, o)) {
    if (figures.disposition === 'DENIED' || figures.disposition === 'PENDING_REVIEW') continue;
    const group = provider(event.billing).group;
    figures.lines!.forEach((l, i) => {
      const line = event.lines[i]!;
      expect(l.allowed, 'allowed = benefit + patient responsibility').toBe(l.benefit! + l.patient!);
      if (l.status !== 'ALLOWED' || l.allowed === 0) return;
      // No service (member, code, date, fee kind, distinct-service modifiers) paid twice, across all
      // claims; the fee kind is the role of whoever rendered the line (the care-team member it names,
      // else the billing provider), even when the billing provider is paid for it.
      const distinct = [...new Set((line.modifiers ?? []).filter((m) => DISTINCT_SERVICE.includes(m)))].sort().join(',');
      const key = `${event.member}|${line.code}|${line.date}|${provider(line.careTeam ?? event.billing).role}|${distinct}`;
      expect(paid.has(key), `paid twice: ${key}`).toBe(false);
      paid.add(key);
      // No payee paid without a contract in force on the line's date in the claim's group.
      const inForce = contracts.some(
        (c) => c.npi === l.payee && c.group === group && c.effective <= line.date && (c.termination === null || line.date <= c.termination),
      );
      expect(inForce, `${l.payee} paid on ${line.date} without a contract`).toBe(true);
    });
    expect(figures.allowed).toBe(figures.benefit! + figures.patient!);
  }
  for (const e of o.encounters) {
    for (const t of e.transfers) {
      // Every payout set sums to its transfer; every net is the amount less the fee.
      expect(t.payouts.reduce((sum, p) => sum + p.amount, 0)).toBe(t.total);
      for (const p of t.payouts) if (p.fee !== undefined) expect(p.net).toBe(p.amount - p.fee);
    }
  }
  if (o.report) expect(o.report).toEqual(reportOfRecords(s, o));
}

/** The report's totals as the sum of the records read one by one (claims, ledger, settlements). */
function reportOfRecords(s: Sequence, o: Outcome): ReportFigures {
  const { report: r, add } = emptyReport();
  claims(s, o).forEach(({ event, figures }, i) => {
    const e = o.encounters[i]!;
    // A pended claim sent again is counted once, as the claim that sent it.
    if (e.superseded) return;
    const b = (r.by_status[e.ledger_status] ??= { count: 0, charges: 0, allowed: 0, patient: 0, benefit: 0 });
    b.count++;
    b.charges += event.lines.reduce((sum, l) => sum + chargeOf(l), 0);
    b.allowed += figures.allowed ?? 0;
    b.patient += figures.patient ?? 0;
    b.benefit += figures.benefit ?? 0;
    for (const t of e.transfers) {
      add(t.status === 'INITIATED' ? 'in_transit' : t.status === 'COMPLETED' ? 'settled' : t.status === 'FAILED' ? 'failed' : 'refunded', t.total);
      if (t.status !== 'FAILED') {
        add('funded', t.total);
        add(
          'fees_charged',
          t.payouts.reduce((sum, p) => sum + p.fee!, 0),
        );
      }
      if (t.status === 'REFUNDED') {
        add('came_back', t.refund!.amount);
        add('fees_kept', t.refund!.fees_not_returned);
      }
      if (t.status === 'FAILED') continue;
      // Each payout released is its provider's row; a refunded one shows under refunded, with no net.
      for (const p of t.payouts) {
        const q = (r.providers[p.npi] ??= { payouts: 0, amount: 0, refunded: 0, fees: 0, net: 0 });
        q.payouts++;
        q.amount += p.amount;
        q.fees += p.fee!;
        if (t.status === 'REFUNDED') {
          q.refunded += p.amount;
          continue;
        }
        add('processor_fees', p.fee!);
        add('net_to_providers', p.net!);
        q.net += p.net!;
      }
    }
    const t = e.transfers.at(-1);
    if (t?.status === 'INITIATED') r.reconciliation.not_reconciled++;
    if (t?.status === 'COMPLETED' && t.aeob) {
      const rec = r.reconciliation;
      if (t.aeob.match_status === 'EXACT') rec.matched = [rec.matched[0] + 1, rec.matched[1] + t.total];
      if (t.aeob.match_status === 'VARIANCE') rec.variance.push(t.aeob.variance);
      if (t.aeob.match_status === 'MISSING_AEOB') rec.missing_aeob = [rec.missing_aeob[0] + 1, rec.missing_aeob[1] + t.total];
    }
  });
  r.reconciliation.variance.sort((a, b) => a - b);
  add('spent', r.money.funded! - r.money.came_back!);
  r.money = pick(r.money, Object.keys(o.report!.money));
  return r;
}

const pick = <T extends object>(o: T, keys: string[]): T => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k))) as T;

describe(`the engine against the reference model (${FEATURES})`, () => {
  it(`agrees to the cent on ${RUNS} generated sequences, and keeps the invariants`, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(sequences(FEATURES, EXCLUDE), async (sequence) => {
        const engine = await runEngine(base, sequence, { report: n++ % REPORT_EVERY === 0 });
        const model = Model.run(sequence);
        if (!engine.report) delete model.report;
        // The report is compared on the money figures it prints (under the names it prints now).
        else model.report!.money = pick(model.report!.money, Object.keys(engine.report.money));
        invariants(sequence, engine);
        expect(engine).toEqual(model);
      }),
      { numRuns: RUNS, seed: SEED, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
    );
  });
});
