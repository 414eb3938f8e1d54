// Timelines for the metamorphic relations (relations.property.test.ts): claims over a year and a
// half, arriving days or months after their services, funded soon or on a month's last weekday
// (so that the money arrives the next month), failed, refunded, funded again; run through the engine
// in-process on a copy of one seeded database, with the period 835s written at each month's close
// through the CLI. The relations need no second reading of a rule: they compare the engine's
// answers with themselves, cut or ordered another way.
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { Engine } from '../../src/engine/engine.js';
import { call } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { checked835, x12Cents } from '../helpers/x12-835-check.js';
import { cents, type EngineBase, fhirClaim, usd } from './driver.js';
import type { Event, LineEvent, Scenario } from './events.js';
import { CLEARVIEW, HADDAD, HARBOR, LAKESIDE, MORGAN, RIVERSIDE, SUMMIT_ANESTHESIA, seededContracts, provider } from './fixtures.js';

export type Body = Record<string, any>;
const TPA = '/tpa-api/v1';
const DAY_MS = 86_400_000;

export const addDays = (date: string, n: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const instant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Every service date falls from this day on; the whole span of the reads starts here. */
export const SPAN_START = '2026-01-01';
/** Service dates that meet the rules' edges: month ends, a Friday 30 October, 30 June (MBR-1005), plan-year ends. */
const EDGE_DATES = ['2026-03-31', '2026-06-30', '2026-07-14', '2026-10-30', '2026-12-31', '2027-01-01', '2027-03-31', '2027-06-30'];
/** Days from the last service to the claim's arrival: the same day, days later, a quarter, a July service claimed in November. */
const LAGS = [0, 0, 1, 3, 12, 35, 95, 120, 130];

const contracts = seededContracts();
const codesOf = (npi: string) => contracts.filter((c) => c.npi === npi).flatMap((c) => c.rates.map((r) => r.code));
/** Billing providers that are paid on most dates, and the care-team members of their group. */
const BILLING = [RIVERSIDE, RIVERSIDE, MORGAN, CLEARVIEW, LAKESIDE, HADDAD, HARBOR, SUMMIT_ANESTHESIA];
const TEAM: Record<string, string[]> = { [RIVERSIDE]: [MORGAN, SUMMIT_ANESTHESIA, CLEARVIEW], [LAKESIDE]: [HADDAD], [HADDAD]: [LAKESIDE] };

export interface TimelineClaim {
  claim: Extract<Event, { kind: 'claim' }>;
  /** Days from the claim's last service date to its arrival. */
  lagDays: number;
  /** Not funded, funded days after arrival, or on the last weekday of the arrival's month at 15:00 UTC. */
  fund: 'none' | 0 | 1 | 2 | 'month-end';
  outcome: 'none' | Scenario;
  /** After a failure or a refund: funded again this many days later (0: never). */
  againDays: 0 | 3 | 25;
}

export interface Timeline {
  claims: TimelineClaim[];
}

const unitCents = fc.constantFrom(0, 4999, 25000, 60000, 90000, 150000, 240000, 1000000);

/** The distinct-service modifiers (a service of its own beside another of its code and date) and pricing ones (docs/money-rules.md "Modifiers"). */
const DISTINCT_MODIFIERS = ['59', 'XE', 'XS', 'XP', 'XU', '76', '77', '91'];
const PRICING_MODIFIERS = ['26', 'TC', '50', '80'];
/**
 * A line's modifiers as sent, in order: none (most lines), a distinct-service one, a pricing one,
 * or two to four mixed (informational ones such as LT and PT too), at most four as an 837 or 835 line holds.
 */
export const mixedModifiers: fc.Arbitrary<string[]> = fc.shuffledSubarray([...DISTINCT_MODIFIERS, ...PRICING_MODIFIERS, 'LT', 'PT'], {
  minLength: 2,
  maxLength: 4,
});
export const lineModifiers: fc.Arbitrary<string[] | undefined> = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...DISTINCT_MODIFIERS).map((m) => [m]) },
  { weight: 2, arbitrary: fc.constantFrom(...PRICING_MODIFIERS).map((m) => [m]) },
  { weight: 1, arbitrary: mixedModifiers },
);
/**
 * The sender's line control number, as a prefix the line's number follows (unique within a claim,
 * never a bare number another line's sequence could be): none (the 835 then writes the line's
 * sequence), an EHR's, one with leading zeros, one with a space and a slash, one of 50 characters.
 */
export const controlPrefix: fc.Arbitrary<string | undefined> = fc.option(fc.constantFrom('EHR-17-', 'LCN.', '000', 'A/B ', 'X'.repeat(49)), {
  nil: undefined,
  freq: 3,
});
/** The control number of line `i` (from 0) of a claim. */
export const controlOf = (prefix: string | undefined, i: number) => (prefix === undefined ? undefined : `${prefix}${i + 1}`);

function lineOf(billing: string, date: string): fc.Arbitrary<LineEvent> {
  const team = TEAM[billing] ?? [];
  return fc
    .record({
      careTeam: team.length > 0 ? fc.option(fc.constantFrom(...team), { nil: undefined, freq: 2 }) : fc.constant(undefined),
      dayAfter: fc.constantFrom(0, 0, 0, 1),
      unitCents,
      quantity: fc.constantFrom(1, 1, 1, 2),
      pick: fc.nat(),
      modifiers: lineModifiers,
      control: controlPrefix,
    })
    .map(({ careTeam, dayAfter, unitCents, quantity, pick, modifiers, control }) => {
      const own = codesOf(careTeam ?? billing);
      return {
        code: own[pick % own.length]!,
        date: addDays(date, dayAfter),
        unitCents,
        quantity,
        ...(careTeam ? { careTeam } : {}),
        ...(modifiers ? { modifiers } : {}),
        ...(control !== undefined ? { control } : {}),
      };
    });
}

const serviceDate = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_DATES) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 540 }).map((d) => addDays(SPAN_START, d)) },
);

function timelineClaim(): fc.Arbitrary<TimelineClaim> {
  return fc.tuple(fc.constantFrom(...BILLING), serviceDate).chain(([billing, date]) =>
    fc.record({
      claim: fc.record({
        kind: fc.constant('claim' as const),
        billing: fc.constant(billing),
        member: fc.constantFrom('MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1003', 'MBR-1004', 'MBR-1005'),
        // Each line's control number its prefix and its number: unique within the claim.
        lines: fc
          .array(lineOf(billing, date), { minLength: 1, maxLength: 3 })
          .map((lines) => lines.map(({ control, ...l }, i) => ({ ...l, ...(control !== undefined ? { control: controlOf(control, i)! } : {}) }))),
        preauthorization: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      }),
      lagDays: fc.constantFrom(...LAGS),
      fund: fc.constantFrom('none' as const, 0 as const, 1 as const, 2 as const, 'month-end' as const, 'month-end' as const),
      outcome: fc.constantFrom<TimelineClaim['outcome']>('none', 'none', 'settlement-failure', 'refund', 'aeob-variance', 'missing-aeob'),
      againDays: fc.constantFrom(0 as const, 3 as const, 25 as const),
    }),
  );
}

export const timelines = (min: number, max: number): fc.Arbitrary<Timeline> =>
  fc.array(timelineClaim(), { minLength: min, maxLength: max }).map((claims) => ({ claims }));

/** The last weekday of the month of `date` at 15:00 UTC, or of the next month when that is before `notBeforeMs`. */
function monthEndWeekday(date: string, notBeforeMs: number): number {
  let [y, m] = date.split('-').map(Number) as [number, number];
  for (;;) {
    let d = new Date(Date.UTC(y, m, 0, 15));
    while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d = new Date(d.getTime() - DAY_MS);
    if (d.getTime() >= notBeforeMs) return d.getTime();
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
}

/** The same time of day one business day later (Saturday and Sunday skipped): when a transfer arrives. */
function nextBusinessDay(ms: number): number {
  let d = ms + DAY_MS;
  while (new Date(d).getUTCDay() === 0 || new Date(d).getUTCDay() === 6) d += DAY_MS;
  return d;
}

type Step = { atMs: number; claim: number; order: number } & (
  | { kind: 'submit' }
  | { kind: 'fund'; attempt: number }
  | { kind: 'simulate'; scenario: Scenario }
);

/** The timeline's steps in time order (a claim's own steps in their order). */
export function stepsOf(t: Timeline): Step[] {
  const steps: Step[] = [];
  t.claims.forEach((c, i) => {
    const last = c.claim.lines
      .map((l) => l.date)
      .sort()
      .at(-1)!;
    const submitMs = Date.parse(`${addDays(last, c.lagDays)}T10:00:00Z`) + i * 1000;
    steps.push({ atMs: submitMs, claim: i, order: 0, kind: 'submit' });
    if (c.fund === 'none') return;
    const fundMs = c.fund === 'month-end' ? monthEndWeekday(addDays(last, c.lagDays), submitMs) : submitMs + c.fund * DAY_MS + 5 * 3_600_000;
    steps.push({ atMs: fundMs, claim: i, order: 1, kind: 'fund', attempt: 1 });
    if (c.outcome === 'none') return;
    // An AEOB's news come while the transfer is in transit; a failure an hour before it would have
    // arrived (one business day later: a payment of Friday 30 October fails on Monday 2 November);
    // a refund once it arrived.
    const outcomeMs = c.outcome === 'refund' ? fundMs + 7 * DAY_MS : c.outcome === 'settlement-failure' ? nextBusinessDay(fundMs) - 3_600_000 : fundMs + 60_000;
    steps.push({ atMs: outcomeMs, claim: i, order: 2, kind: 'simulate', scenario: c.outcome });
    if (c.againDays > 0 && (c.outcome === 'settlement-failure' || c.outcome === 'refund'))
      steps.push({ atMs: outcomeMs + c.againDays * DAY_MS, claim: i, order: 3, kind: 'fund', attempt: 2 });
  });
  return steps.sort((a, b) => a.atMs - b.atMs || a.claim - b.claim || a.order - b.order);
}

function daysIn(first: string): number {
  const [y, m] = first.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}
const nextMonth = (first: string) => addDays(first, daysIn(first));

export interface SentClaim {
  index: number;
  encounterId: string | null;
  http: number;
  lines: LineEvent[];
}

export interface TimelineRun {
  dir: string;
  sent: SentClaim[];
  /** The first day after the timeline (the clock's day at the end): the whole span ends the day before. */
  endDay: string;
  /** The 835 written at each month's close (the first of the next month, 01:00 UTC), by month. */
  closes: { month: string; text: string }[];
  engine: () => Engine;
  remove: () => void;
}

/** Runs the timeline on a copy of the seeded database; the reads are left to the caller (runTpa in `dir`). */
export async function runTimeline(base: EngineBase, t: Timeline): Promise<TimelineRun> {
  const dir = base.copy();
  const open = () => Engine.open({ dataDir: dir, env: { TPA_ADJUDICATION_DELAY: '0s' } });
  let engine = open();
  const sent: SentClaim[] = t.claims.map((c, index) => ({ index, encounterId: null, http: 0, lines: c.claim.lines }));
  const closes: { month: string; text: string }[] = [];
  const steps = stepsOf(t);
  let month = `${SPAN_START.slice(0, 7)}-01`;
  engine.setClock(`${SPAN_START}T00:00:00Z`);
  let approvals = 0;
  const closeMonthsBefore = async (ms: number) => {
    while (Date.parse(`${nextMonth(month)}T01:00:00Z`) <= ms) {
      const close = nextMonth(month);
      engine.setClock(`${close}T01:00:00Z`);
      engine.close();
      const r = await runTpa(['settlement', 'remit', '--from', month, '--to', addDays(close, -1)], { home: dir });
      if (r.code !== 0) throw new Error(`remit of ${month} at its close exited ${r.code}: ${r.stderr}`);
      closes.push({ month, text: r.stdout });
      engine = open();
      month = close;
    }
  };
  for (const step of steps) {
    await closeMonthsBefore(step.atMs);
    engine.setClock(instant(step.atMs));
    const s = sent[step.claim]!;
    if (step.kind === 'submit') {
      const ack = call(engine, 'POST', `${TPA}/claims/submit/`, fhirClaim(t.claims[step.claim]!.claim, instant(step.atMs).slice(0, 10)));
      s.http = ack.status;
      if (ack.status === 201) s.encounterId = (ack.body as Body).external_claim_id;
      else if (ack.status !== 404 && ack.status !== 400) throw new Error(`claim answered ${ack.status}: ${JSON.stringify(ack.body)}`);
      continue;
    }
    if (s.encounterId === null) continue;
    if (step.kind === 'fund') {
      const detail = call(engine, 'GET', `${TPA}/ledger/entries/${s.encounterId}/`).body as Body;
      const benefit = cents(detail.financial_summary.payer_responsibility.benefit_amount);
      if (benefit === 0) continue;
      approvals++;
      call(engine, 'POST', `${TPA}/funding/approve/`, {
        encounter_id: s.encounterId,
        amount: usd(benefit),
        authorization_code: `AUTH-20260101-REL-${String(approvals).padStart(4, '0')}`,
      });
    } else {
      try {
        engine.simulate(step.scenario, s.encounterId);
      } catch {
        // Refused where the transfer is not in the state the trigger needs (no transfer, or failed): nothing moved.
      }
    }
  }
  // Everything in transit arrives; every month up to the end is closed.
  const lastMs = steps.at(-1)?.atMs ?? Date.parse(`${SPAN_START}T00:00:00Z`);
  const endMs = Date.parse(`${nextMonth(`${instant(lastMs + 10 * DAY_MS).slice(0, 7)}-01`)}T01:00:00Z`);
  await closeMonthsBefore(endMs);
  engine.setClock(instant(endMs));
  engine.close();
  return {
    dir,
    sent,
    endDay: instant(endMs).slice(0, 10),
    closes,
    engine: open,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Consecutive periods from SPAN_START to `lastDay` cut before each of `cuts` (sorted, distinct, inside the span). */
export function periodsOf(cuts: readonly string[], lastDay: string): { from: string; to: string }[] {
  const inside = [...new Set(cuts)].filter((c) => c > SPAN_START && c <= lastDay).sort();
  const starts = [SPAN_START, ...inside];
  return starts.map((from, i) => ({ from, to: i + 1 < starts.length ? addDays(starts[i + 1]!, -1) : lastDay }));
}

/**
 * Where the property cuts the span: any day, a month's first day, the day of one of the timeline's
 * own steps (a claim, an approval, a trigger) or the day after it, so that money moved on a
 * period's first or last day meets the cut.
 */
export type Cut = { at: 'day' | 'month' | 'on-step' | 'after-step'; n: number };
export const cutDays = fc.array(fc.record({ at: fc.constantFrom('day' as const, 'month' as const, 'on-step' as const, 'after-step' as const), n: fc.nat() }), {
  minLength: 1,
  maxLength: 3,
});

/** The cuts' days for a timeline. */
export function cutsOf(cuts: readonly Cut[], t: Timeline): string[] {
  const days = stepsOf(t).map((s) => instant(s.atMs).slice(0, 10));
  return cuts.map(({ at, n }) => {
    if (at === 'day' || days.length === 0) return addDays(SPAN_START, 1 + (n % 600));
    if (at === 'month') {
      const m = n % 20;
      return `${2026 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}-01`;
    }
    return addDays(days[n % days.length]!, at === 'on-step' ? 0 : 1);
  });
}

/** One 835 transaction as the relations compare it. */
export interface RemitTx {
  transfer: string;
  npi: string;
  /** copy: the billing provider's information (BPR H) of a claim whose lines were all paid to others. */
  kind: 'payment' | 'notice' | 'reversal' | 'copy';
  /** BPR02: what reaches the payee's bank (signed as written). */
  bprCents: number;
  /** CLP02 22: a reversal, or the copy or notice of one. */
  reversal: boolean;
  /** CLP04: the claim's payment (negative for a reversal). */
  paidCents: number;
  encounter: string;
  lines: { code: string; units: number; control: string | null; modifiers: string[] }[];
}

/** The transactions of an 835 (empty text: none), re-read by a parser that is not tpa's. */
export function remitTransactions(text: string): RemitTx[] {
  if (text.trim() === '') return [];
  return checked835(text).transactions.map((t) => {
    const lines: RemitTx['lines'] = [];
    for (const s of t.segments) {
      if (s[0] === 'SVC') {
        // SVC01: HC:code[:modifier…] (the composite's separator is the interchange's, ISA16).
        const [, code, ...modifiers] = s[1]!.split(/[:>^]/);
        lines.push({ code: code!, units: Number(s[5] ?? '1'), control: null, modifiers });
      }
      if (s[0] === 'REF' && s[1] === '6R' && lines.length > 0) lines.at(-1)!.control = s[2]!;
    }
    const clp = t.segments.find((s) => s[0] === 'CLP')!;
    const reversal = clp[2] === '22';
    // The billing provider's copy has a trace of its own: the payment's (or the refund's) with -INFO;
    // so has the notice to a payee the transfer paid nothing: with -NOTICE.
    const trace = t.trn[2]!;
    const copy = trace.endsWith('-INFO');
    const notice = trace.endsWith('-NOTICE');
    return {
      transfer: copy ? trace.slice(0, -'-INFO'.length) : notice ? trace.slice(0, -'-NOTICE'.length) : trace,
      npi: t.payee[4]!,
      // A payee whose lines paid nothing on this transfer gets a notice (CLP04 0.00) beside the payments,
      // and its reversal (CLP02 22) beside theirs; a claim paid nothing at all, a notice under the
      // claim's trace; a copy (of a payment, or of its reversal) is the billing provider's information.
      kind: copy ? 'copy' : notice ? 'notice' : reversal ? 'reversal' : x12Cents(clp[4]!) === 0 ? 'notice' : 'payment',
      reversal,
      bprCents: x12Cents(t.bpr[2]!),
      paidCents: x12Cents(clp[4]!),
      encounter: clp[7]!,
      lines,
    };
  });
}

/** Every transfer of the run's encounters, read from the settlement records (the anchor of the relations). */
export function transfersOf(engine: Engine, sent: readonly SentClaim[]): Body[] {
  const all: Body[] = [];
  for (const s of sent) {
    if (s.encounterId === null) continue;
    const r = call(engine, 'GET', `${TPA}/settlement/${s.encounterId}/`);
    if (r.status !== 200 || (r.body as Body).status === 'PENDING') continue;
    const b = r.body as Body;
    if (!b.processor_transfer_id) continue;
    all.push(...((b.previous_transfers ?? []) as Body[]), b);
  }
  return all;
}

export function ledgerDetail(engine: Engine, id: string): Body {
  return call(engine, 'GET', `${TPA}/ledger/entries/${id}/`).body as Body;
}

/** The fee kind of a payee (duplicates are per fee kind). */
export const roleOf = (npi: string) => provider(npi).role;

// ---- Permutation of arrivals -------------------------------------------------------------------

/** Dates that put PACKAGE parts within and beyond 90 days of each other, and a plan year's end. */
const EPISODE_DATES = ['2026-03-15', '2026-05-01', '2026-06-20', '2026-07-25', '2026-12-30', '2027-01-02'];
/** Days within one span (85 days): whatever the order, one episode a member. */
const ONE_SPAN_DATES = ['2026-05-01', '2026-07-25'];
const OTHER_DATES = ['2026-05-01', '2026-12-31', '2027-01-02'];

/**
 * A permutation line's modifiers: none, a distinct-service one (the same code and date billed again
 * with it is another service: both paid, in any order) or a pricing one (no effect on the money).
 */
const permutationModifiers: fc.Arbitrary<string[] | undefined> = fc.constantFrom(undefined, undefined, undefined, ['59'], ['XU'], ['76'], ['26'], ['50']);
const withModifiers = (modifiers: string[] | undefined) => (modifiers ? { modifiers } : {});
/** The duplicate rule's distinct-service part of a service (docs/money-rules.md "Duplicates"): its distinct-service modifiers as a set. */
const distinctKey = (modifiers: readonly string[] | undefined) =>
  [...new Set((modifiers ?? []).filter((m) => DISTINCT_MODIFIERS.includes(m)))].sort().join('+');

/** One claim of a permutation set: lines of one kind of contract, so that claims meet across rules. */
const permutationClaim = (episodeDates: readonly string[]) =>
  fc.oneof(
    // Lakeside's PACKAGE (anesthesia included), a part or two a claim (on one day: the order of
    // service dates is then an order of claims), thrice as often: episodes of several claims.
    ...Array.from({ length: 3 }, () =>
      fc
        .record({
          billing: fc.constant(LAKESIDE),
          date: fc.constantFrom(...episodeDates),
          parts: fc.shuffledSubarray(['01402', '27447', '97161'], { minLength: 1, maxLength: 2 }),
          modifiers: fc.array(permutationModifiers, { minLength: 2, maxLength: 2 }),
          // Charges above a part's share (9,500.00): a part billed twice in an episode is carried by the
          // line that arrives first, capped by its charge, so a lower charge would make which bill came
          // first a matter of money (docs/money-rules.md "What arrival order may change"; packing in
          // date order, which is exact at any charge, is the packing relation's).
          unitCents: fc.constantFrom(1200000, 2000000),
        })
        .map(({ billing, date, parts, unitCents, modifiers }) => ({
          billing,
          lines: parts.map((code, i) => ({ code, date, unitCents: unitCents + i * 100, quantity: 1, ...withModifiers(modifiers[i]) })),
        })),
    ),
    // Summit's anesthesia on the same days (85% of a charge below a package share: the deduction
    // fits), twice as often: a day's anesthesia and its including lines on several claims.
    ...Array.from({ length: 2 }, () =>
      fc.record({
        billing: fc.constant(SUMMIT_ANESTHESIA),
        lines: fc.array(
          fc
            .record({
              code: fc.constantFrom('00731', '00811'),
              date: fc.constantFrom(...episodeDates),
              unitCents: fc.constantFrom(90000, 250000),
              quantity: fc.constant(1),
              modifiers: permutationModifiers,
            })
            .map(({ modifiers, ...l }) => ({ ...l, ...withModifiers(modifiers) })),
          { minLength: 1, maxLength: 1 },
        ),
      }),
    ),
    // Haddad's DOUBLE_HEADER.
    fc.record({
      billing: fc.constant(HADDAD),
      lines: fc.array(
        fc
          .record({
            code: fc.constantFrom('29880', '29881'),
            date: fc.constantFrom(...OTHER_DATES),
            unitCents: fc.constantFrom(250000, 400000),
            quantity: fc.constant(1),
            modifiers: permutationModifiers,
          })
          .map(({ modifiers, ...l }) => ({ ...l, ...withModifiers(modifiers) })),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    // Riverside's flat rates with its group's care team: copays, deductibles across 31 December.
    fc.record({
      billing: fc.constant(RIVERSIDE),
      lines: fc.array(
        fc
          .record({
            team: fc.constantFrom(RIVERSIDE, MORGAN, CLEARVIEW),
            pick: fc.nat(),
            date: fc.constantFrom(...OTHER_DATES),
            unitCents: fc.constantFrom(25000, 160000, 300000),
            quantity: fc.constantFrom(1, 2),
            modifiers: permutationModifiers,
          })
          .map(({ team, pick, date, unitCents, quantity, modifiers }) => {
            const codes = codesOf(team);
            return {
              code: codes[pick % codes.length]!,
              date,
              unitCents,
              quantity,
              ...(team !== RIVERSIDE ? { careTeam: team } : {}),
              ...withModifiers(modifiers),
            };
          }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  );

export interface PermutationSet {
  claims: Extract<Event, { kind: 'claim' }>[];
  /** Arrival orders to compare with the order of service dates: indexes into `claims`. */
  orders: number[][];
}

/**
 * Claims of two or three members that meet (episodes, anesthesia, deductibles), with no service
 * billed twice (member, code, date, fee kind): which of two bills of one service is paid is the
 * duplicate rule's first arrival, an order-dependent rule of its own.
 */
export const permutationSets = (spans: 'one span' | 'several spans'): fc.Arbitrary<PermutationSet> =>
  fc
    .array(
      fc.tuple(
        permutationClaim(spans === 'one span' ? ONE_SPAN_DATES : EPISODE_DATES),
        fc.constantFrom(...(spans === 'one span' ? ['MBR-1003', 'MBR-1003', 'MBR-1001'] : ['MBR-1001', 'MBR-1003', 'MBR-1003', 'MBR-1004'])),
      ),
      {
        minLength: 2,
        maxLength: 6,
      },
    )
    .map((drawn) => {
      const billed = new Set<string>();
      const claims: Extract<Event, { kind: 'claim' }>[] = [];
      for (const [c, member] of drawn) {
        const lines = c.lines.filter((l: LineEvent) => {
          const key = `${member}|${l.code}|${l.date}|${roleOf(l.careTeam ?? c.billing)}|${distinctKey(l.modifiers)}`;
          if (billed.has(key)) return false;
          billed.add(key);
          return true;
        });
        if (lines.length > 0) claims.push({ kind: 'claim', billing: c.billing, member, lines, preauthorization: true });
      }
      return claims;
    })
    .filter((claims) => claims.length >= 2)
    .chain((claims) =>
      fc.record({
        claims: fc.constant(claims),
        orders: fc.tuple(
          fc.constant(claims.map((_, i) => i).reverse()),
          fc.shuffledSubarray(
            claims.map((_, i) => i),
            { minLength: claims.length, maxLength: claims.length },
          ),
        ),
      }),
    )
    .map(({ claims, orders }) => ({ claims, orders: [...orders] }));

/** The first service date of a claim. */
export const firstDate = (c: { lines: readonly LineEvent[] }) => c.lines.map((l) => l.date).sort()[0]!;

/** Every line of every claim after the claims arrived in `order`, on a fresh copy, all on one day. */
export function arriveInOrder(base: EngineBase, claims: readonly Extract<Event, { kind: 'claim' }>[], order: readonly number[]): Body[][] {
  const dir = base.copy();
  const engine = Engine.open({ dataDir: dir, env: { TPA_ADJUDICATION_DELAY: '0s' } });
  try {
    engine.setClock('2027-08-02T10:00:00Z');
    const lines: Body[][] = claims.map(() => []);
    for (const i of order) {
      const ack = call(engine, 'POST', `${TPA}/claims/submit/`, fhirClaim(claims[i]!, '2027-08-02'));
      if (ack.status !== 201) throw new Error(`claim ${i} answered ${ack.status}: ${JSON.stringify(ack.body)}`);
      lines[i] = ledgerDetail(engine, (ack.body as Body).external_claim_id).service_lines as Body[];
    }
    return lines;
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Packing of visits into claims -------------------------------------------------------------

export interface Packing {
  member: string;
  billing: string;
  lines: LineEvent[];
}

/** The lines of a packing: a billing provider's (or its group's care team's) over a few days across 31 December. */
const packingLines = (teams: readonly string[], charges: readonly number[]) =>
  fc.array(
    fc.record({
      team: fc.constantFrom(...teams),
      pick: fc.nat(),
      date: fc.constantFrom('2026-11-02', '2026-11-09', '2026-12-31', '2027-01-02'),
      unitCents: fc.constantFrom(...charges),
      quantity: fc.constantFrom(1, 2),
      // A service again on its day with a distinct-service modifier is another service of the same visit.
      modifiers: permutationModifiers,
    }),
    { minLength: 2, maxLength: 5 },
  );

/**
 * Lines of one member and one billing provider over a few days across 31 December, no service
 * twice: packed into one claim, a claim a day or a claim a line (in date order), they are the same
 * visits. Riverside with its group's care team; or Lakeside with Dr. Haddad, whose bundles' parts
 * (a PACKAGE over 90 days, a DOUBLE_HEADER a day) come on one day or several, charged below and
 * above their shares (9,500.00 and 1,950.00).
 */
export const packings: fc.Arbitrary<Packing> = fc
  .record({
    member: fc.constantFrom('MBR-1001', 'MBR-1003', 'MBR-1004', 'MBR-1002'),
    billing: fc.constantFrom(RIVERSIDE, LAKESIDE),
    riverside: packingLines([RIVERSIDE, RIVERSIDE, MORGAN, CLEARVIEW], [25000, 160000, 300000]),
    lakeside: packingLines([LAKESIDE, LAKESIDE, HADDAD], [0, 50000, 400000, 1200000, 2000000]),
  })
  .map(({ member, billing, riverside, lakeside }) => {
    const lines = billing === RIVERSIDE ? riverside : lakeside;
    const billed = new Set<string>();
    const kept: LineEvent[] = [];
    for (const { team, pick, date, unitCents, quantity, modifiers } of lines) {
      const codes = codesOf(team);
      const code = codes[pick % codes.length]!;
      const key = `${code}|${date}|${roleOf(team)}|${distinctKey(modifiers)}`;
      if (billed.has(key)) continue;
      billed.add(key);
      kept.push({ code, date, unitCents, quantity, ...(team !== billing ? { careTeam: team } : {}), ...withModifiers(modifiers) });
    }
    return { member, billing, lines: kept };
  });

/** The ways of packing the lines: one claim, a claim a day, a claim a line. */
export function packed(p: Packing): Record<string, Extract<Event, { kind: 'claim' }>[]> {
  const claim = (lines: LineEvent[]): Extract<Event, { kind: 'claim' }> => ({
    kind: 'claim',
    billing: p.billing,
    member: p.member,
    lines,
    preauthorization: true,
  });
  const days = [...new Set(p.lines.map((l) => l.date))].sort();
  // Several claims arrive in date order (a stable sort keeps a day's lines in line order).
  const byDate = [...p.lines].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return {
    'one claim': [claim(p.lines)],
    'a claim a day': days.map((d) => claim(p.lines.filter((l) => l.date === d))),
    'a claim a line': byDate.map((l) => claim([l])),
  };
}
