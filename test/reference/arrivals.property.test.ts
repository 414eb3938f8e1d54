// Claims across a year in any arrival order: the engine against the reference model on bundle
// episodes longer than a span and claims arriving before earlier-dated ones, and what
// docs/money-rules.md "What arrival order may change" says may not change: where no claim brings a
// day before one already billed under its bundle contract (or all its days lie within one span), a
// bundle contract's total allowed is that of date order's episodes; and in every order, the copay of
// a visit (member, billing provider, date) is the plan's copay or the visit's allowed, the lesser.
// TPA_PROPERTY_RUNS (a tenth of it here) and TPA_PROPERTY_SEED as for money.property.test.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBase, runEngine } from './driver.js';
import type { ClaimFigures, Event, Outcome, Sequence } from './events.js';
import { member, seededContracts } from './fixtures.js';
import { arrivalSequences } from './generate.js';
import { allocate, Model } from './model.js';

const RUNS = Math.max(20, Math.round(Number(process.env.TPA_PROPERTY_RUNS ?? 2000) / 10));
const SEED = process.env.TPA_PROPERTY_SEED === undefined ? undefined : Number(process.env.TPA_PROPERTY_SEED);
const REPLAY_PATH = process.env.TPA_PROPERTY_PATH;

let base: EngineBase;
beforeAll(() => {
  base = new EngineBase();
});
afterAll(() => base.remove());

type ClaimEvent = Extract<Event, { kind: 'claim' }>;
const contracts = seededContracts();
const DAY = 86_400_000;
const days = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / DAY);

function accepted(s: Sequence, o: Outcome): { event: ClaimEvent; figures: ClaimFigures }[] {
  return s.events.flatMap((e, i) =>
    e.kind === 'claim' && (o.answers[i] as ClaimFigures).http === 201 ? [{ event: e, figures: o.answers[i] as ClaimFigures }] : [],
  );
}

/** Date order's episodes of a bundle contract's days: the earliest opens one, days within the span join it, the next after opens the next. */
function dateOrderAllowed(byDay: Map<string, Set<string>>, span: number, shareOf: Map<string, number>): number {
  let total = 0;
  let start: string | undefined;
  let parts = new Set<string>();
  for (const day of [...byDay.keys()].sort()) {
    if (start === undefined || days(start, day) >= span) {
      start = day;
      parts = new Set();
    }
    for (const code of byDay.get(day)!) {
      if (!parts.has(code)) total += shareOf.get(code)!;
      parts.add(code);
    }
  }
  return total;
}

const seen = { inOrder: 0, outOfOrder: 0 };

function relations(s: Sequence, o: Outcome): void {
  const claims = accepted(s, o);
  // Per member and bundle contract: the days billed in arrival order, and the total allowed.
  const groups = new Map<
    string,
    { span: number; shareOf: Map<string, number>; byDay: Map<string, Set<string>>; allowed: number; inOrder: boolean; latest: string }
  >();
  for (const { event, figures } of claims) {
    const contract = contracts.find((c) => c.npi === event.billing && c.rateType === 'BUNDLE');
    if (!contract) continue;
    const key = `${event.member}|${contract.id}`;
    const codes = [...new Set(contract.rates.map((r) => r.code))].sort();
    const shares = allocate(
      contract.bundleCents!,
      codes.map(() => 1),
    );
    const g = groups.get(key) ?? {
      span: contract.bundleType === 'PACKAGE' ? 90 : 1,
      shareOf: new Map(codes.map((c, k) => [c, shares[k]!])),
      byDay: new Map<string, Set<string>>(),
      allowed: 0,
      inOrder: true,
      latest: '',
    };
    const claimDays = event.lines.map((l) => l.date).sort();
    if (claimDays[0]! < g.latest) g.inOrder = false;
    if (claimDays.at(-1)! > g.latest) g.latest = claimDays.at(-1)!;
    event.lines.forEach((l) => g.byDay.set(l.date, new Set([...(g.byDay.get(l.date) ?? []), l.code])));
    g.allowed += figures.allowed ?? 0;
    groups.set(key, g);
  }
  for (const [key, g] of groups) {
    const all = [...g.byDay.keys()].sort();
    const oneSpan = days(all[0]!, all.at(-1)!) < g.span;
    if (g.inOrder || oneSpan) {
      seen.inOrder++;
      expect(g.allowed, `${key}: date order's episodes`).toBe(dateOrderAllowed(g.byDay, g.span, g.shareOf));
    } else {
      seen.outOfOrder++;
    }
  }
  // The copay per visit, whatever the packing into claims and their order.
  const visits = new Map<string, { copay: number; allowed: number; plan: number }>();
  for (const { event, figures } of claims) {
    event.lines.forEach((l, i) => {
      const line = figures.lines![i]!;
      const key = `${event.member}|${event.billing}|${l.date}`;
      const v = visits.get(key) ?? { copay: 0, allowed: 0, plan: member(event.member).copayCents };
      v.copay += line.copay ?? 0;
      v.allowed += line.allowed ?? 0;
      visits.set(key, v);
    });
  }
  for (const [key, v] of visits) expect(v.copay, `visit ${key}`).toBe(Math.min(v.plan, v.allowed));
}

describe('claims over a year in any arrival order', () => {
  it(`agree with the reference model and keep what arrival order may not change, on ${RUNS} sequences`, async () => {
    await fc.assert(
      fc.asyncProperty(arrivalSequences(), async (sequence) => {
        const engine = await runEngine(base, sequence, { report: false });
        const model = Model.run(sequence);
        delete model.report;
        expect(engine).toEqual(model);
        relations(sequence, engine);
      }),
      { numRuns: RUNS, seed: SEED, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
    );
    // Both kinds of arrival were generated.
    expect(seen.inOrder).toBeGreaterThan(0);
    expect(seen.outOfOrder).toBeGreaterThan(0);
  });
});
