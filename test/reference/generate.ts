// Sequences of events for the property test: few members, dates and providers, so that claims meet
// (duplicates, bundles, anesthesia, deductibles across claims and plan years) and money moves
// (approvals, failures, refunds, AEOB variances, the clock).
import fc from 'fast-check';
import type { Event, LineEvent, Scenario, Sequence } from './events.js';
import {
  CLEARVIEW,
  HADDAD,
  HARBOR,
  LAKESIDE,
  MEMBERS,
  MORGAN,
  NORTHGATE,
  RIVERSIDE,
  SUMMIT_ANESTHESIA,
  SUMMIT_ASC,
  seededContracts,
  provider,
  UNCONTRACTED,
  VALLEY,
} from './fixtures.js';
import { Model } from './model.js';

/**
 * FULL: every rule of the model. UNCHANGED: only what the rules before payees, fee kinds and money
 * in time priced the same way (lines of the billing provider or of a care-team member without a
 * contract, no quantity on case rates, no 0.00 lines, no anesthesia provider, no finalized
 * schedules), for an engine that does not have those rules yet.
 */
export type Features = 'FULL' | 'UNCHANGED';

/** Three windows of service dates, each with the engine clock a few days later. */
const WINDOWS = [
  // Spring 2026: a Friday afternoon, so that approvals meet a weekend.
  { start: '2026-03-06T15:00:00Z', dates: ['2026-03-02', '2026-03-03', '2026-03-04'] },
  // Across the plan year: deductibles start again; Harbor Eye's contract starts on 1 January.
  { start: '2027-01-04T09:00:00Z', dates: ['2026-12-30', '2026-12-31', '2027-01-02'] },
  // MBR-1005's coverage ends on 30 June.
  { start: '2026-07-03T12:00:00Z', dates: ['2026-06-29', '2026-06-30', '2026-07-01'] },
] as const;

const contracts = seededContracts();
const codesOf = (npi: string) => contracts.filter((c) => c.npi === npi).flatMap((c) => c.rates.map((r) => r.code));
const ALL_CODES = [...new Set([...contracts.flatMap((c) => c.rates.map((r) => r.code)), ...UNCONTRACTED])];
const CASE_RATE_BILLING = new Set([MORGAN, HARBOR, SUMMIT_ASC]);
/** Codes the engine reads and never prices (docs/money-rules.md "Lines tpa does not price"). */
const HCPCS_LEVEL_II = ['J3490', 'A4550'];

// Weighted by repetition; the last four price nothing on most dates (404 no_active_contract).
const BILLING_FULL = [
  RIVERSIDE,
  RIVERSIDE,
  RIVERSIDE,
  MORGAN,
  MORGAN,
  SUMMIT_ANESTHESIA,
  CLEARVIEW,
  LAKESIDE,
  LAKESIDE,
  HADDAD,
  HADDAD,
  HARBOR,
  SUMMIT_ASC,
  NORTHGATE,
  VALLEY,
];
const BILLING_UNCHANGED = [RIVERSIDE, RIVERSIDE, MORGAN, CLEARVIEW, LAKESIDE, LAKESIDE, HADDAD, HARBOR];
const CARE_TEAM_FULL = [MORGAN, SUMMIT_ANESTHESIA, CLEARVIEW, VALLEY, HADDAD, LAKESIDE, HARBOR, NORTHGATE, RIVERSIDE];

const charge = (features: Features) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(100, 1999, 25000, 60000, 90000, 150000, 240000, 1000000) },
    { weight: 4, arbitrary: fc.integer({ min: 100, max: 400000 }) },
    ...(features === 'FULL' ? [{ weight: 1, arbitrary: fc.constant(0) }] : []),
  );

function line(features: Features, billing: string, dates: readonly string[]): fc.Arbitrary<LineEvent> {
  // Mostly the billing provider's own group (payees that can be paid), now and then any (CARC-B7).
  const group = provider(billing).group;
  const own = CARE_TEAM_FULL.filter((npi) => provider(npi).group === group);
  const team =
    features === 'UNCHANGED'
      ? fc.constant(VALLEY)
      : own.length > 0
        ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: fc.constantFrom(...CARE_TEAM_FULL) })
        : fc.constantFrom(...CARE_TEAM_FULL);
  return fc
    .record({
      careTeam: fc.option(team, { nil: undefined, freq: 2 }),
      date: fc.constantFrom(...dates),
      unitCents: charge(features),
      // Whole units mostly; with FULL now and then units with decimals (a drug's 1.5, the
      // thousandths that round a half cent: 1.005, 0.001).
      quantity: fc.oneof(
        { weight: 5, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) },
        ...(features === 'FULL' ? [{ weight: 1, arbitrary: fc.constantFrom(1.5, 0.25, 1.005, 2.333, 0.001, 1.003) }] : []),
      ),
      // Now and then (FULL) a HCPCS Level II drug or supply, which no contract prices: the line is denied.
      hcpcs: fc.nat({ max: 11 }),
      pick: fc.nat(),
      wild: fc.nat({ max: 9 }),
      // Mostly none; distinct-service modifiers (a service of its own), a pricing one (no effect), both.
      modifiers:
        features === 'FULL'
          ? fc.oneof(
              { weight: 6, arbitrary: fc.constant(undefined) },
              { weight: 2, arbitrary: fc.constantFrom<string[]>(['59'], ['76'], ['XS', '59'], ['91'], ['26'], ['59', '26']) },
            )
          : fc.constant(undefined),
    })
    .map(({ careTeam, date, unitCents, quantity, pick, wild, hcpcs, modifiers }) => {
      const own = codesOf(careTeam && careTeam !== VALLEY ? careTeam : billing);
      const pool = features === 'FULL' && hcpcs === 0 ? HCPCS_LEVEL_II : own.length === 0 || wild === 0 ? ALL_CODES : own;
      const code = pool[pick % pool.length]!;
      const q = features === 'UNCHANGED' && CASE_RATE_BILLING.has(billing) ? 1 : quantity;
      return { code, date, unitCents, quantity: q, ...(careTeam ? { careTeam } : {}), ...(modifiers ? { modifiers } : {}) };
    });
}

function claim(features: Features, dates: readonly string[]): fc.Arbitrary<Event> {
  const billings = features === 'FULL' ? BILLING_FULL : BILLING_UNCHANGED;
  return fc.constantFrom(...billings).chain((billing) =>
    fc.record({
      kind: fc.constant('claim' as const),
      billing: fc.constant(billing),
      // MBR-1003 (deductible met) thrice as often: more lines whose benefit is not all the member's,
      // and a member's claims meet more often (anesthesia, bundles, duplicates).
      member: fc.constantFrom(...MEMBERS.map((m) => m.id), 'MBR-1003', 'MBR-1003', 'MBR-1001'),
      lines: fc.array(line(features, billing, dates), { minLength: 1, maxLength: 4 }),
      preauthorization: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  );
}

function event(features: Features, window: (typeof WINDOWS)[number]): fc.Arbitrary<Event> {
  const scenarios: Scenario[] = ['settlement-failure', 'refund', 'aeob-variance', 'missing-aeob'];
  const arbitraries: fc.WeightedArbitrary<Event>[] = [
    { weight: 5, arbitrary: claim(features, window.dates) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('fund' as const), claim: fc.nat({ max: 11 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('simulate' as const), scenario: fc.constantFrom(...scenarios), claim: fc.nat({ max: 11 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.constantFrom(1, 12, 24, 49, 72, 96) }) },
  ];
  if (features === 'FULL') {
    arbitraries.push({ weight: 1, arbitrary: fc.record({ kind: fc.constant('clock-back' as const), hours: fc.constantFrom(1, 30, 200) }) });
    arbitraries.push({
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('finalize' as const),
        rates: fc.uniqueArray(fc.record({ code: fc.constantFrom('43235', '45378', '45380', '45385'), cents: fc.constantFrom(30000, 45000, 99999) }), {
          minLength: 1,
          maxLength: 3,
          selector: (r) => r.code,
        }),
        effective: fc.constantFrom(...window.dates),
      }),
    });
  }
  return fc.oneof(...arbitraries);
}

/** `exclude`: event kinds left out (e.g. clock-back and finalize, for an engine without those rules). */
export function sequences(features: Features, exclude: readonly string[] = []): fc.Arbitrary<Sequence> {
  return fc.constantFrom(...WINDOWS).chain((window) =>
    fc
      .tuple(claim(features, window.dates), fc.array(event(features, window), { minLength: 2, maxLength: 11 }), fc.option(fc.nat(), { nil: undefined }))
      .map(([first, rest, again]) => {
        const events = [first, ...rest.filter((e) => !exclude.includes(e.kind))];
        // Now and then a claim sent without its preauthorization is sent again with it, last: the
        // pended claim it supersedes leaves the report (docs/money-funding.md "The finance desk's report").
        const unauthorized = events.filter((e) => e.kind === 'claim' && !e.preauthorization);
        if (again !== undefined && unauthorized.length > 0 && !exclude.includes('claim'))
          events.push({ ...(unauthorized[again % unauthorized.length] as Extract<Event, { kind: 'claim' }>), preauthorization: true });
        // One schedule finalization at most: a finalized schedule is locked.
        const finalized = events.findIndex((e) => e.kind === 'finalize');
        return { start: window.start, events: events.filter((e, i) => e.kind !== 'finalize' || i === finalized) };
      })
      .filter((s) => features === 'FULL' || Model.touches(s).size === 0),
  );
}

/**
 * Sequences of bundle and office claims over a year, in any arrival order (arrivals.property.test.ts):
 * Lakeside's PACKAGE and Dr. Haddad's DOUBLE_HEADER beside Riverside's and Dr. Morgan's lines, for
 * two members, on a few days of 2026 spread over more than a PACKAGE span, each claim charged above
 * any share (so no share is capped by a charge) and preauthorized.
 */
export function arrivalSequences(): fc.Arbitrary<Sequence> {
  const days = fc.uniqueArray(fc.integer({ min: 0, max: 350 }), { minLength: 2, maxLength: 6 }).map((offsets) => offsets.map((d) => addDays('2026-01-05', d)));
  return days.chain((dates) =>
    fc
      .array(
        fc.constantFrom(LAKESIDE, LAKESIDE, LAKESIDE, HADDAD, HADDAD, RIVERSIDE, MORGAN).chain((billing) =>
          fc.record({
            kind: fc.constant('claim' as const),
            billing: fc.constant(billing),
            member: fc.constantFrom('MBR-1003', 'MBR-1001'),
            lines: fc.array(
              fc.record({
                code: fc.constantFrom(...codesOf(billing)),
                date: fc.constantFrom(...dates),
                unitCents: fc.constantFrom(1_000_000, 1_500_000),
                quantity: fc.constant(1),
              }),
              { minLength: 1, maxLength: 3 },
            ),
            preauthorization: fc.constant(true),
          }),
        ),
        { minLength: 2, maxLength: 9 },
      )
      .map((events): Sequence => ({ start: '2027-02-01T10:00:00Z', events })),
  );
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
