// The money rules line by line: property tests of the pure adjudication (src/domain/adjudication.ts) on
// multi-line claims that straddle coverage dates, contract availability and plan years, with
// repeated codes, odd cents, care teams, lines paid before and bundle episodes billed before.
// Every expectation is computed here from the rules (docs/money-rules.md "Money rules, line by line"), not by
// calling the code under test again.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  adjudicate,
  BUNDLE_TYPES,
  DENIAL,
  type Adjudication,
  type AdjudicationInput,
  type BundleType,
  type ContractTerms,
  type FeeKind,
  type LineAdjudication,
  type PlanBenefits,
  type PriorLine,
} from '../../src/domain/adjudication.js';
import { CONTRACT_RATE_TYPE_NAMES, type ContractRateType } from '../../src/domain/contract-rates.js';
import { MAX_LINE_CHARGE_CENTS, type CareTeamMember, type ClaimLine, type ParsedClaim } from '../../src/domain/fhir-claim.js';

const DAY_MS = 86_400_000;
const dayOf = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const days = (from: string, to: string) => dayOf(to) - dayOf(from);
const shift = (date: string, n: number) => dateOf(dayOf(date) + n);
const SPAN: Record<BundleType, number> = { SINGLE: 1, DOUBLE_HEADER: 1, PACKAGE: 90 };

/** round(value × num / den), halves away from zero (value, num, den ≥ 0), in exact integers. */
const roundDiv = (value: number, num: number, den: number) => Number((BigInt(value) * BigInt(num) * 2n + BigInt(den)) / (2n * BigInt(den)));
/** The plan year (its first day) a date falls in, plan years starting on MM-DD `start`. */
const planYear = (date: string, start: string) => `${date.slice(5) >= start ? Number(date.slice(0, 4)) : Number(date.slice(0, 4)) - 1}-${start}`;

const BILLING = '1000000004';
const NPIS = ['1000000012', '1000000020', '1000000038'];
/** Each payee's role (its fee kind): the billing surgeon, an anesthesia group, a pathology lab, a facility. */
const KIND: Record<string, FeeKind> = { [BILLING]: 'SURGEON', '1000000012': 'ANESTHESIA', '1000000020': 'PATHOLOGY', '1000000038': 'FACILITY' };
const CODES = ['10001', '10002', '10003', '10004', '10005', '10006'];
const BOUNDARY_DATES = [
  '2024-12-31',
  '2025-01-01',
  '2025-03-14',
  '2025-03-15',
  '2025-06-30',
  '2025-07-01',
  '2025-12-31',
  '2026-01-01',
  '2026-03-29',
  '2026-06-30',
  '2026-07-01',
  '2026-09-28',
  '2026-12-31',
  '2027-01-01',
];
const arbDate = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BOUNDARY_DATES) },
  { weight: 2, arbitrary: fc.integer({ min: dayOf('2024-12-01'), max: dayOf('2027-03-01') }).map(dateOf) },
  { weight: 1, arbitrary: fc.integer({ min: dayOf('2026-06-25'), max: dayOf('2026-07-05') }).map(dateOf) },
);
const arbCharge = fc.oneof(
  fc.integer({ min: 1, max: 99 }),
  fc.integer({ min: 0, max: 600_000 }),
  fc.integer({ min: MAX_LINE_CHARGE_CENTS - 1_000_000, max: MAX_LINE_CHARGE_CENTS }),
  fc.integer({ min: 0, max: MAX_LINE_CHARGE_CENTS }),
);
const arbRate = fc.oneof(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 3_000_000 }), fc.integer({ min: 0, max: MAX_LINE_CHARGE_CENTS }));

const arbContract = fc.record({
  rateType: fc.oneof(fc.constantFrom<ContractRateType>(...CONTRACT_RATE_TYPE_NAMES), fc.constant<ContractRateType>('BUNDLE')),
  codes: fc.subarray(CODES, { minLength: 1 }),
  rates: fc.array(arbRate, { minLength: CODES.length, maxLength: CODES.length }),
  multiplier: fc.record({ numerator: fc.integer({ min: 0, max: 3_000_000 }), denominator: fc.constantFrom(1, 10, 100, 1000, 1_000_000) }),
  bundleType: fc.constantFrom<BundleType>(...BUNDLE_TYPES),
  bundleRate: fc.oneof(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: MAX_LINE_CHARGE_CENTS })),
  preauth: fc.oneof({ weight: 4, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: fc.subarray(CODES) }),
  effective: fc.oneof(fc.constant(null), fc.constant(null), arbDate),
  termination: fc.oneof(fc.constant(null), fc.constant(null), arbDate),
  anesthesiaIncluded: fc.boolean(),
  /** An anesthesia provider's contract (it prices only anesthesia fees), as in the engine a contract is its payee's. */
  forAnesthesia: fc.boolean(),
});

const arbLine = fc.record({
  code: fc.constantFrom(...CODES, '99999'),
  /** A date of its own, or one of the case's few dates (index), so that lines share dates. */
  date: fc.oneof(arbDate, fc.nat(3), fc.nat(3)),
  chargeCents: arbCharge,
  quantity: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 9999 }) }),
  careTeam: fc.integer({ min: 0, max: 3 }),
});

const arbPaid = fc.record({
  /** 0.00 lines were not paid: they are no duplicate's original. */
  allowedCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200_000 })),
  includesAnesthesia: fc.boolean(),
  anesthesiaDeductedCents: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 100_000 }) }),
});
const arbPrior = fc.oneof(
  // A copy of one of the claim's lines (its payee, code and date): a duplicate.
  fc.record({ kind: fc.constant('copy' as const), index: fc.nat(40), otherProvider: fc.boolean(), paid: arbPaid }),
  fc.record({ kind: fc.constant('random' as const), npi: fc.constantFrom(BILLING, ...NPIS), code: fc.constantFrom(...CODES), date: arbDate, paid: arbPaid }),
  // An anesthesia fee paid on one of the claim's dates, or a line that included that day's anesthesia.
  fc.record({ kind: fc.constant('day' as const), index: fc.nat(40), anesthesia: fc.boolean(), paid: arbPaid }),
);

const arbEpisode = fc.record({
  contract: fc.nat(2),
  start: arbDate,
  /** The episode's lines: an index into the contract's codes, a day offset from the start, the payee. */
  lines: fc.array(fc.record({ code: fc.nat(10), offset: fc.integer({ min: -89, max: 89 }), npi: fc.constantFrom(BILLING, ...NPIS) }), {
    minLength: 1,
    maxLength: 4,
  }),
  /** Episodes near one of the claim's lines: its date shifted by this many days (null: `start`). */
  nearLine: fc.option(fc.record({ index: fc.nat(40), by: fc.oneof(fc.constant(0), fc.integer({ min: -100, max: 100 })) }), { nil: null }),
});

const arbCase = fc.record({
  contracts: fc.array(arbContract, { minLength: 1, maxLength: 3 }),
  lines: fc.array(arbLine, { minLength: 1, maxLength: 14 }),
  /** The case's few dates: a first one and others a few days or months from it. */
  dates: fc
    .tuple(arbDate, fc.array(fc.integer({ min: -120, max: 120 }), { minLength: 3, maxLength: 3 }))
    .map(([d, offsets]) => [d, ...offsets.map((o) => shift(d, o))]),
  careTeam: fc.subarray(NPIS),
  /** Care-team NPIs the processor can pay (the rest are paid through the billing provider); null: no payees given. */
  payable: fc.option(fc.subarray(NPIS), { nil: null }),
  /** Payees other than the billing provider without a contract in force in the claim's group (CARC-B7). */
  ineligible: fc.oneof({ weight: 3, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: fc.subarray(NPIS) }),
  benefits: fc.record({
    deductibleCents: fc.oneof(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 500_000 })),
    met: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 600_000 })), { minLength: 5, maxLength: 5 }),
    copayCents: fc.oneof(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 10_000 })),
    coinsurancePercent: fc.integer({ min: 0, max: 100 }),
    coverageStart: fc.oneof(fc.constant('2024-06-01'), fc.constant('2025-01-01'), arbDate),
    coverageEnd: fc.oneof(fc.constant(null), fc.constant(null), fc.constant('2026-06-30'), arbDate),
    planYearStart: fc.constantFrom('01-01', '07-01', '10-15'),
  }),
  prior: fc.array(arbPrior, { maxLength: 6 }),
  episodes: fc.array(arbEpisode, { maxLength: 5 }),
  preauthorized: fc.boolean(),
});
type Case = typeof arbCase extends fc.Arbitrary<infer T> ? T : never;

interface Built {
  input: AdjudicationInput;
  contracts: (ContractTerms & { effective: string | null; termination: string | null; preauth: Set<string>; forAnesthesia: boolean })[];
  kinds: FeeKind[];
  /** The payee each line is expected to have. */
  payees: string[];
  /** Prior bundle episodes by contract id: start → codes billed. */
  priorEpisodes: Map<string, Map<string, Set<string>>>;
}

function build(c: Case): Built {
  const contracts = c.contracts.map((x, k) => ({
    id: `ctr_${k}`,
    rateType: x.rateType,
    multiplier: x.multiplier,
    bundleType: x.rateType === 'BUNDLE' ? x.bundleType : null,
    bundleRateCents: x.rateType === 'BUNDLE' ? x.bundleRate : null,
    codes: new Map(
      x.codes.map((code) => [
        code,
        {
          negotiatedRateCents: x.rateType === 'FLAT_RATE' || x.rateType === 'CASE_RATE' ? x.rates[CODES.indexOf(code)]! : null,
          requiresPreauth: x.preauth.includes(code),
        },
      ]),
    ),
    effective: x.effective,
    termination: x.termination,
    preauth: new Set(x.preauth),
    anesthesiaIncluded: x.anesthesiaIncluded,
    forAnesthesia: x.forAnesthesia,
  }));
  const careTeam: CareTeamMember[] = c.careTeam.map((npi, i) => ({ sequence: i + 1, npi, name: null, role: null }));
  const lines: ClaimLine[] = c.lines.map((l, i) => ({
    sequence: i + 1,
    cptCode: l.code,
    revenueCode: null,
    serviceDate: typeof l.date === 'number' ? c.dates[l.date]! : l.date,
    quantity: l.quantity,
    chargeCents: l.chargeCents,
    careTeamSequences: l.careTeam >= 1 && l.careTeam <= careTeam.length ? [l.careTeam] : [],
  }));
  const dates = lines.map((l) => l.serviceDate).sort();
  const claim: ParsedClaim = {
    type: 'professional',
    providerNpi: BILLING,
    providerName: null,
    memberId: 'MBR-1',
    created: dates.at(-1)!,
    billablePeriod: { start: dates[0]!, end: dates.at(-1)! },
    insurerReference: null,
    lines,
    careTeam,
    diagnosisCodes: [],
    preauthorizations: c.preauthorized ? ['PA-1'] : [],
    totalChargeCents: lines.reduce((s, l) => s + l.chargeCents, 0),
  };
  // The engine's choice: a contract active on the line's date covering its code, else none.
  const active = (k: (typeof contracts)[number], date: string) =>
    (k.effective === null || k.effective <= date) && (k.termination === null || k.termination >= date);
  const own = lines.map((l) => (l.careTeamSequences.length > 0 ? careTeam[l.careTeamSequences[0]! - 1]!.npi : BILLING));
  const payees = own.map((npi) => (c.payable === null || npi === BILLING || c.payable.includes(npi) ? npi : BILLING));
  // Without payees given, every line is the claim's own kind (professional: SURGEON).
  const kinds = payees.map((npi) => (c.payable === null ? 'SURGEON' : KIND[npi]!));
  const eligible = payees.map((npi) => c.payable === null || npi === BILLING || !c.ineligible.includes(npi));
  // The payee's own contract: an anesthesia provider's prices only anesthesia fees, and the others never do.
  const lineContracts = lines.map(
    (l, i) => contracts.find((k) => k.forAnesthesia === (kinds[i] === 'ANESTHESIA') && active(k, l.serviceDate) && k.codes.has(l.cptCode)) ?? null,
  );

  const paidLines: PriorLine[] = c.prior.map((p, k) => {
    const paid = { ...p.paid, includesAnesthesia: p.paid.includesAnesthesia, anesthesiaDeductedCents: p.paid.anesthesiaDeductedCents };
    if (p.kind === 'copy') {
      const i = p.index % lines.length;
      const npi = p.otherProvider ? NPIS[k % NPIS.length]! : payees[i]!;
      return {
        encounterId: `enc_p${k}`,
        providerNpi: npi,
        feeKind: p.otherProvider ? KIND[npi]! : kinds[i]!,
        cptCode: lines[i]!.cptCode,
        serviceDate: lines[i]!.serviceDate,
        contractId: 'ctr_other',
        episodeStart: null,
        ...paid,
      };
    }
    if (p.kind === 'day') {
      const i = p.index % lines.length;
      const npi = p.anesthesia ? '1000000012' : '1000000038';
      const line = { feeKind: KIND[npi]!, ...paid, includesAnesthesia: !p.anesthesia && paid.includesAnesthesia };
      return {
        encounterId: `enc_p${k}`,
        providerNpi: npi,
        cptCode: '77777',
        serviceDate: lines[i]!.serviceDate,
        contractId: 'ctr_other',
        episodeStart: null,
        ...line,
      };
    }
    return {
      encounterId: `enc_p${k}`,
      providerNpi: p.npi,
      feeKind: KIND[p.npi]!,
      cptCode: p.code,
      serviceDate: p.date,
      contractId: 'ctr_other',
      episodeStart: null,
      ...paid,
    };
  });
  // Prior bundle episodes, as the engine would have recorded them: keys of one contract at least a span apart.
  const bundleLines: PriorLine[] = [];
  const priorEpisodes = new Map<string, Map<string, Set<string>>>();
  c.episodes.forEach((e, k) => {
    const contract = contracts[e.contract % contracts.length]!;
    if (contract.rateType !== 'BUNDLE') return;
    const span = SPAN[contract.bundleType!];
    const start = e.nearLine === null ? e.start : shift(lines[e.nearLine.index % lines.length]!.serviceDate, e.nearLine.by);
    const starts = priorEpisodes.get(contract.id) ?? new Map<string, Set<string>>();
    if ([...starts.keys()].some((s) => Math.abs(days(s, start)) < span)) return;
    const codes = [...contract.codes.keys()];
    const billed = new Set<string>();
    for (const line of e.lines) {
      const code = codes[line.code % codes.length]!;
      billed.add(code);
      const prior: PriorLine = {
        encounterId: `enc_b${k}`,
        providerNpi: line.npi,
        feeKind: KIND[line.npi]!,
        cptCode: code,
        // An episode's days are fewer than a span after its earliest day.
        serviceDate: shift(start, ((line.offset % span) + span) % span),
        contractId: contract.id,
        episodeStart: start,
        allowedCents: 1 + k,
      };
      bundleLines.push(prior);
      paidLines.push(prior);
    }
    starts.set(start, billed);
    priorEpisodes.set(contract.id, starts);
  });
  const met = Object.fromEntries([2023, 2024, 2025, 2026, 2027].map((y, k) => [`${y}-${c.benefits.planYearStart}`, c.benefits.met[k]!]));
  const benefits: PlanBenefits = {
    deductibleCents: c.benefits.deductibleCents,
    deductibleMetCents: met[planYear(dates[0]!, c.benefits.planYearStart)] ?? 0,
    deductibleMetByPlanYear: met,
    planYearStart: c.benefits.planYearStart,
    copayCents: c.benefits.copayCents,
    coinsurancePercent: c.benefits.coinsurancePercent,
    coverageStart: c.benefits.coverageStart,
    coverageEnd: c.benefits.coverageEnd,
  };
  return {
    input: {
      claim,
      lineContracts,
      benefits,
      linePayees: c.payable === null ? undefined : payees.map((npi, i) => ({ npi, feeKind: kinds[i]!, eligible: eligible[i]! })),
      paidLines,
      bundleLines,
    },
    contracts,
    payees,
    kinds,
    priorEpisodes,
  };
}

/** Equal shares of a bundle rate over the contract's codes (sorted), the cents left to the first codes. */
function bundleShares(contract: ContractTerms): Map<string, number> {
  const codes = [...contract.codes.keys()].sort();
  const rate = contract.bundleRateCents ?? 0;
  const base = Math.floor(rate / codes.length);
  const left = rate - base * codes.length;
  return new Map(codes.map((code, k) => [code, base + (k < left ? 1 : 0)]));
}

const key = (kind: string, code: string, date: string) => `${kind}|${code}|${date}`;
const counts = (p: PriorLine) => p.allowedCents + (p.anesthesiaDeductedCents ?? 0) > 0;
/** A line's price: its allowed amount with the anesthesia paid before that was deducted from it. */
const price = (l: LineAdjudication) => l.allowedCents + (l.anesthesiaDeductedCents ?? 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function checkArithmetic(a: Adjudication, input: AdjudicationInput, payees: string[]): void {
  expect(a.lines.length).toBe(input.claim.lines.length);
  a.lines.forEach((l, i) => {
    const claimLine = input.claim.lines[i]!;
    expect([l.sequence, l.cptCode, l.serviceDate, l.chargeCents, l.quantity]).toEqual([
      claimLine.sequence,
      claimLine.cptCode,
      claimLine.serviceDate,
      claimLine.chargeCents,
      claimLine.quantity,
    ]);
    expect(l.providerNpi).toBe(payees[i]);
    for (const v of [l.allowedCents, l.copayCents, l.deductibleCents, l.coinsuranceCents, l.nonCoveredCents, l.patientResponsibilityCents, l.benefitCents]) {
      expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
    }
    expect(l.allowedCents).toBe(l.benefitCents + l.patientResponsibilityCents);
    expect(l.patientResponsibilityCents).toBe(l.copayCents + l.deductibleCents + l.coinsuranceCents + l.nonCoveredCents);
    expect(l.allowedCents).toBeLessThanOrEqual(l.chargeCents);
    if (l.status !== 'ALLOWED') expect(l.allowedCents + l.patientResponsibilityCents + l.benefitCents).toBe(0);
  });
  const t = a.totals;
  const total = (k: keyof LineAdjudication) => sum(a.lines.map((l) => l[k] as number));
  expect(t).toEqual({
    chargeCents: total('chargeCents'),
    allowedCents: total('allowedCents'),
    copayCents: total('copayCents'),
    deductibleCents: total('deductibleCents'),
    coinsuranceCents: total('coinsuranceCents'),
    nonCoveredCents: total('nonCoveredCents'),
    patientResponsibilityCents: total('patientResponsibilityCents'),
    benefitCents: total('benefitCents'),
  });
  expect(t.chargeCents).toBe(input.claim.totalChargeCents);
  expect(t.allowedCents).toBe(t.benefitCents + t.patientResponsibilityCents);
  expect(t.patientResponsibilityCents).toBe(t.copayCents + t.deductibleCents + t.coinsuranceCents + t.nonCoveredCents);
}

function checkRules(a: Adjudication, b: Built): void {
  const { input, priorEpisodes, kinds } = b;
  const { claim, benefits } = input;
  const lines = a.lines;
  const contractOf = (i: number) => input.lineContracts[i] ?? null;

  // Coverage, payee and contracts, each on the line's own date; reasons as the rules say.
  lines.forEach((l, i) => {
    const contract = contractOf(i);
    if (l.serviceDate < benefits.coverageStart) expect([l.status, l.reasonCode]).toEqual(['DENIED', 'CARC-26']);
    else if (benefits.coverageEnd !== null && l.serviceDate > benefits.coverageEnd) expect([l.status, l.reasonCode]).toEqual(['DENIED', 'CARC-27']);
    else if (input.linePayees?.[i]?.eligible === false) expect([l.status, l.reasonCode]).toEqual(['DENIED', 'CARC-B7']);
    else if (contract === null || !contract.codes.has(l.cptCode)) expect([l.status, l.reasonCode]).toEqual(['NOT_COVERED', 'CARC-96']);
    else expect(['ALLOWED', 'DENIED', 'BUNDLED', 'PENDED']).toContain(l.status);
    if (l.status === 'ALLOWED' || l.allowedCents > 0) {
      expect(l.status).toBe('ALLOWED');
      expect(l.serviceDate >= benefits.coverageStart && (benefits.coverageEnd === null || l.serviceDate <= benefits.coverageEnd)).toBe(true);
      const k = b.contracts.find((x) => x.id === contract?.id)!;
      expect(k.codes.has(l.cptCode)).toBe(true);
      expect((k.effective === null || k.effective <= l.serviceDate) && (k.termination === null || k.termination >= l.serviceDate)).toBe(true);
      expect(l.contractId).toBe(k.id);
    }
  });

  if (a.disposition === 'PENDING_REVIEW') {
    expect(claim.preauthorizations).toEqual([]);
    expect(a.totals.allowedCents + a.totals.patientResponsibilityCents).toBe(0);
    expect(lines.some((l, i) => l.status === 'PENDED' && contractOf(i)!.codes.get(l.cptCode)!.requiresPreauth)).toBe(true);
    return;
  }
  if (claim.preauthorizations.length === 0) {
    lines.forEach((l, i) => {
      if (l.status === 'ALLOWED' || l.status === 'BUNDLED') expect(contractOf(i)!.codes.get(l.cptCode)!.requiresPreauth).toBe(false);
    });
  }
  expect(lines.some((l) => l.status === 'PENDED')).toBe(false);

  // Duplicates: no two ALLOWED lines share fee kind, code and date, and none repeats a line paid
  // (allowed above 0.00) before.
  const priorKeys = new Set(input.paidLines.filter(counts).map((p) => key(p.feeKind, p.cptCode, p.serviceDate)));
  const keyOf = (i: number) => key(kinds[i]!, lines[i]!.cptCode, lines[i]!.serviceDate);
  // (A line its contract can only allow 0.00 is not paid, so a later one of the claim may be.)
  const allowedKeys = lines.flatMap((l, i) => (l.status === 'ALLOWED' && price(l) > 0 ? [keyOf(i)] : []));
  expect(new Set(allowedKeys).size).toBe(allowedKeys.length);
  for (const k of allowedKeys) expect(priorKeys.has(k)).toBe(false);
  lines.forEach((l, i) => {
    if (l.reasonCode !== 'CARC-18') return;
    const earlier = lines.slice(0, i).some((e, j) => (e.status === 'ALLOWED' || e.status === 'BUNDLED') && keyOf(j) === keyOf(i));
    expect(priorKeys.has(keyOf(i)) || earlier).toBe(true);
  });
  // A covered, contracted line that is not a duplicate is never DENIED.
  lines.forEach((l) => {
    if (l.status === 'DENIED') expect(['CARC-18', 'CARC-26', 'CARC-27', 'CARC-B7']).toContain(l.reasonCode);
    if (l.status === 'BUNDLED') expect(l.reasonCode).toBe('CARC-97');
    if (l.status === 'ALLOWED') expect(l.reasonCode).toBeNull();
  });

  // Pricing per contract.
  for (const contract of b.contracts) {
    const mine = lines.map((l, i) => ({ l, i })).filter(({ i }) => contractOf(i)?.id === contract.id);
    const allowed = mine.filter(({ l }) => l.status === 'ALLOWED');
    if (contract.rateType === 'FLAT_RATE') {
      for (const { l } of allowed) expect(price(l)).toBe(Math.min(l.chargeCents, contract.codes.get(l.cptCode)!.negotiatedRateCents! * l.quantity));
    } else if (contract.rateType === 'CASE_RATE') {
      // Per case: quantity never multiplies it.
      for (const { l } of allowed) expect(price(l)).toBe(Math.min(l.chargeCents, contract.codes.get(l.cptCode)!.negotiatedRateCents!));
    } else if (contract.rateType === 'PERCENT_OF_CHARGES') {
      const charges = sum(allowed.map(({ l }) => l.chargeCents));
      const m = contract.multiplier!;
      expect(sum(allowed.map(({ l }) => price(l)))).toBe(Math.min(charges, roundDiv(charges, m.numerator, m.denominator)));
    } else {
      checkBundle(
        contract,
        mine.map(({ l }) => l),
        priorEpisodes.get(contract.id) ?? new Map(),
        b.input.bundleLines.filter((p) => p.contractId === contract.id),
      );
    }
  }

  checkAnesthesia(a, b);

  // Copay once per visit (the claim's lines of one date: none was taken before here), on its first covered lines.
  const paid = lines.filter((l) => l.status === 'ALLOWED');
  for (const day of new Set(paid.map((l) => l.serviceDate))) {
    const visit = paid.filter((l) => l.serviceDate === day);
    expect(sum(visit.map((l) => l.copayCents))).toBe(Math.min(benefits.copayCents, sum(visit.map((l) => l.allowedCents))));
  }

  // Deductible per plan year: what is left of it that year, never more.
  const years = new Set(paid.map((l) => planYear(l.serviceDate, benefits.planYearStart)));
  for (const year of years) {
    const inYear = paid.filter((l) => planYear(l.serviceDate, benefits.planYearStart) === year);
    const left = Math.max(0, benefits.deductibleCents - (benefits.deductibleMetByPlanYear[year] ?? 0));
    const applied = sum(inYear.map((l) => l.deductibleCents));
    expect(applied).toBeLessThanOrEqual(left);
    expect(applied).toBe(Math.min(left, sum(inYear.map((l) => l.allowedCents - l.copayCents))));
  }

  // Coinsurance on the total, allocated to lines by largest remainder: no per-line drift.
  const base = paid.map((l) => l.allowedCents - l.copayCents - l.deductibleCents);
  const totalBase = sum(base);
  const coinsurance = roundDiv(totalBase, benefits.coinsurancePercent, 100);
  expect(a.totals.coinsuranceCents).toBe(coinsurance);
  paid.forEach((l, k) => {
    if (totalBase === 0) return void expect(l.coinsuranceCents).toBe(0);
    // floor or ceil of the line's exact share coinsurance × base / totalBase
    const exact = BigInt(coinsurance) * BigInt(base[k]!);
    const mine = BigInt(l.coinsuranceCents) * BigInt(totalBase);
    expect(mine + BigInt(totalBase) > exact && mine - BigInt(totalBase) < exact).toBe(true);
  });

  // Disposition.
  if (paid.length === lines.length) expect(a.disposition).toBe('APPROVED');
  else if (paid.length === 0) {
    expect(a.disposition).toBe('DENIED');
    expect(a.denialCode).toBe(lines.find((l) => l.reasonCode !== null)!.reasonCode);
  } else expect(a.disposition).toBe('PARTIAL_APPROVAL');
}

function checkBundle(contract: ContractTerms, mine: LineAdjudication[], prior: Map<string, Set<string>>, priorLines: readonly PriorLine[]): void {
  const span = SPAN[contract.bundleType!];
  const shares = bundleShares(contract);
  const inEpisode = mine.filter((l) => l.status === 'ALLOWED' || (l.status === 'BUNDLED' && l.reason !== DENIAL.ANESTHESIA_INCLUDED.reason));
  const episodes = new Map<string, LineAdjudication[]>();
  for (const l of inEpisode) {
    expect(l.episodeStart).not.toBeNull();
    episodes.set(l.episodeStart!, [...(episodes.get(l.episodeStart!) ?? []), l]);
  }
  // Every episode, with this claim's days, spans fewer than its span from its earliest day.
  for (const [start, ls] of episodes) {
    const all = [...priorLines.filter((p) => p.episodeStart === start).map((p) => p.serviceDate), ...ls.map((l) => l.serviceDate)].sort();
    expect(days(all[0]!, all.at(-1)!)).toBeLessThan(span);
  }
  for (const [start, ls] of episodes) {
    const billed = prior.get(start) ?? new Set<string>();
    // (service date, line order): the first line of a part charged more than 0.00 carries it.
    const order = (l: LineAdjudication) => `${l.serviceDate}|${String(l.sequence).padStart(6, '0')}`;
    const carriers = new Map<string, LineAdjudication>();
    for (const l of ls) {
      if (l.status !== 'ALLOWED' || l.chargeCents === 0) continue;
      // Each part is carried once: a part billed before is never ALLOWED, nor twice on a claim.
      expect(billed.has(l.cptCode)).toBe(false);
      expect(carriers.has(l.cptCode)).toBe(false);
      carriers.set(l.cptCode, l);
      // Its own share once, capped by its charge: no part's unused share goes to another.
      expect(price(l)).toBe(Math.min(shares.get(l.cptCode)!, l.chargeCents));
    }
    for (const l of ls) {
      const carrier = carriers.get(l.cptCode);
      // A line charged 0.00 comes before its part's carrier, or its part has none.
      if (l.status === 'ALLOWED' && l.chargeCents === 0) expect(price(l) === 0 && (!carrier || order(l) < order(carrier))).toBe(true);
      // An included line: its part was billed before, or is carried by an earlier line of this claim.
      if (l.status === 'BUNDLED') expect(billed.has(l.cptCode) || (carrier !== undefined && order(carrier) < order(l))).toBe(true);
    }
    const allowed = sum(ls.filter((l) => l.status === 'ALLOWED').map(price));
    // What the episode had before, at most the shares of the parts billed, plus this claim: never more than the rate.
    const priorAllowed = sum([...billed].map((c) => shares.get(c)!));
    expect(priorAllowed + allowed).toBeLessThanOrEqual(contract.bundleRateCents!);
  }
}

/**
 * Anesthesia included: a line priced above 0.00 under a contract including anesthesia, not an
 * anesthesia fee, includes its day's anesthesia, and so does a bundle part BUNDLED into its paid episode; an anesthesia fee that day (this claim or a later
 * one) is BUNDLED; anesthesia paid before that day is deducted from the including lines in line
 * order, once, never below 0.00.
 */
function checkAnesthesia(a: Adjudication, b: Built): void {
  const { input, kinds } = b;
  const lines = a.lines;
  // A bundle part BUNDLED into its paid episode includes its day's anesthesia too (at 0.00).
  const including = lines.map(
    (l, i) =>
      kinds[i] !== 'ANESTHESIA' &&
      input.lineContracts[i]?.anesthesiaIncluded === true &&
      ((l.status === 'ALLOWED' && price(l) > 0) || (l.status === 'BUNDLED' && l.episodeStart !== null)),
  );
  const includedDays = new Set([
    ...input.paidLines.filter((p) => counts(p) && p.includesAnesthesia).map((p) => p.serviceDate),
    ...lines.filter((_, i) => including[i]).map((l) => l.serviceDate),
  ]);
  const left = new Map<string, number>();
  for (const p of input.paidLines) {
    if (!counts(p)) continue;
    left.set(p.serviceDate, (left.get(p.serviceDate) ?? 0) + (p.feeKind === 'ANESTHESIA' ? p.allowedCents : 0) - (p.anesthesiaDeductedCents ?? 0));
  }
  lines.forEach((l, i) => {
    expect(l.includesAnesthesia === true).toBe(including[i]);
    if (kinds[i] === 'ANESTHESIA') {
      if (l.status === 'ALLOWED') expect(includedDays.has(l.serviceDate)).toBe(false);
      if (l.status === 'BUNDLED' && input.lineContracts[i]?.rateType !== 'BUNDLE') expect(l.reason).toBe(DENIAL.ANESTHESIA_INCLUDED.reason);
    }
    if (l.reason === DENIAL.ANESTHESIA_INCLUDED.reason) {
      expect([kinds[i], l.status, l.reasonCode, l.allowedCents, includedDays.has(l.serviceDate)]).toEqual(['ANESTHESIA', 'BUNDLED', 'CARC-97', 0, true]);
    }
    if (!including[i]) return expect(l.anesthesiaDeductedCents ?? 0).toBe(0);
    const owed = Math.max(0, left.get(l.serviceDate) ?? 0);
    const deducted = Math.min(owed, price(l));
    expect(l.anesthesiaDeductedCents ?? 0).toBe(deducted);
    left.set(l.serviceDate, (left.get(l.serviceDate) ?? 0) - deducted);
  });
}

/** How often each outcome was generated, by the first property. */
const seen: Record<string, number> = {};
function tally(a: Adjudication, b: Built) {
  const inc = (k: string) => (seen[k] = (seen[k] ?? 0) + 1);
  inc(a.disposition);
  for (const l of a.lines) inc(`${l.status}:${l.reasonCode}`);
  const years = new Set(a.lines.filter((l) => l.status === 'ALLOWED').map((l) => planYear(l.serviceDate, b.input.benefits.planYearStart)));
  if (years.size > 1) inc('multiYear');
  if (a.lines.some((l) => l.status === 'ALLOWED' && l.episodeStart !== null && b.priorEpisodes.get(l.contractId!)?.has(l.episodeStart)))
    inc('allowedInPriorEpisode');
  if (a.lines.some((l) => l.status === 'ALLOWED' && b.input.lineContracts[a.lines.indexOf(l)]?.rateType === 'BUNDLE')) inc('bundleAllowed');
  if (a.lines.some((l) => l.deductibleCents > 0)) inc('deductible');
  if (a.lines.some((l, i) => l.status === 'BUNDLED' && b.kinds[i] === 'ANESTHESIA')) inc('anesthesiaBundled');
  if (a.lines.some((l) => (l.anesthesiaDeductedCents ?? 0) > 0)) inc('anesthesiaDeducted');
  if (a.lines.some((l) => l.status === 'ALLOWED' && l.quantity > 1 && b.input.lineContracts[a.lines.indexOf(l)]?.rateType === 'CASE_RATE')) inc('caseQuantity');
  if (b.input.paidLines.some((p) => !counts(p) && a.lines.some((l) => l.status === 'ALLOWED' && l.cptCode === p.cptCode && l.serviceDate === p.serviceDate)))
    inc('zeroPriorNoDuplicate');
}
describe('adjudication line by line: properties', () => {
  it('every rule holds on every line, in total, for multi-line claims straddling dates, contracts and plan years', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const built = build(c);
        const a = adjudicate(built.input);
        checkArithmetic(a, built.input, built.payees);
        checkRules(a, built);
        tally(a, built);
      }),
      { numRuns: 1500 },
    );
    // The generator reaches every outcome the rules name (no property holds vacuously).
    for (const k of [
      'APPROVED',
      'PARTIAL_APPROVAL',
      'DENIED',
      'PENDING_REVIEW',
      'ALLOWED:null',
      'DENIED:CARC-26',
      'DENIED:CARC-27',
      'DENIED:CARC-18',
      'DENIED:CARC-B7',
      'NOT_COVERED:CARC-96',
      'BUNDLED:CARC-97',
      'multiYear',
      'bundleAllowed',
      'allowedInPriorEpisode',
      'deductible',
      'anesthesiaBundled',
      'anesthesiaDeducted',
      'caseQuantity',
      'zeroPriorNoDuplicate',
    ]) {
      expect(seen[k] ?? 0, k).toBeGreaterThan(0);
    }
  });

  it('many odd-cent lines: coinsurance is taken on the total, not line by line', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 99 }), { minLength: 20, maxLength: 300 }),
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 0, max: 5000 }),
        (charges, percent, copay) => {
          const c: Case = {
            contracts: [
              {
                rateType: 'PERCENT_OF_CHARGES',
                codes: CODES,
                rates: CODES.map(() => 0),
                multiplier: { numerator: 1, denominator: 1 },
                bundleType: 'SINGLE',
                bundleRate: 0,
                preauth: [],
                effective: null,
                termination: null,
                anesthesiaIncluded: false,
                forAnesthesia: false,
              },
            ],
            dates: ['2026-01-01'],
            lines: charges.map((chargeCents, i) => ({
              code: CODES[i % CODES.length]!,
              date: dateOf(dayOf('2026-01-01') + i),
              chargeCents,
              quantity: 1,
              careTeam: 0,
            })),
            careTeam: [],
            payable: null,
            ineligible: [],
            benefits: {
              deductibleCents: 0,
              met: [0, 0, 0, 0, 0],
              copayCents: copay,
              coinsurancePercent: percent,
              coverageStart: '2025-01-01',
              coverageEnd: null,
              planYearStart: '01-01',
            },
            prior: [],
            episodes: [],
            preauthorized: false,
          };
          const built = build(c);
          const a = adjudicate(built.input);
          checkArithmetic(a, built.input, built.payees);
          checkRules(a, built);
          // Each line is a visit of its own date: each takes the copay, up to its allowed amount.
          const base = sum(charges.map((charge) => charge - Math.min(copay, charge)));
          expect(a.totals.coinsuranceCents).toBe(roundDiv(base, percent, 100));
        },
      ),
      { numRuns: 200 },
    );
  });
});
