import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { adjudicate, type AdjudicationInput, type ContractTerms, type PlanBenefits } from '../../src/domain/adjudication.js';
import type { ContractRateType } from '../../src/domain/contract-rates.js';
import type { ParsedClaim } from '../../src/domain/fhir-claim.js';
import { parsedClaim } from '../helpers/parsed-claim.js';

const claim = parsedClaim;

const benefits: PlanBenefits = {
  deductibleCents: 50000,
  deductibleMetCents: 0,
  deductibleMetByPlanYear: {},
  planYearStart: '01-01',
  copayCents: 2500,
  coinsurancePercent: 20,
  coverageStart: '2025-01-01',
  coverageEnd: null,
};
/** Benefits with `met` already met in the 2026 plan year. */
const met = (cents: number): Partial<PlanBenefits> => ({ deductibleMetCents: cents, deductibleMetByPlanYear: { '2026-01-01': cents } });

function contract(rateType: ContractRateType, codes: Record<string, number | null>, extra: Partial<ContractTerms> = {}): ContractTerms {
  return {
    id: 'ctr_test',
    rateType,
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    codes: new Map(Object.entries(codes).map(([code, rate]) => [code, { negotiatedRateCents: rate, requiresPreauth: false }])),
    ...extra,
  };
}

type RunInput = Partial<AdjudicationInput> & { claim: ParsedClaim; contract: ContractTerms };
/** Every line priced under one contract, nothing paid before. */
const run = ({ contract: terms, ...input }: RunInput) =>
  adjudicate({ benefits, lineContracts: input.claim.lines.map(() => terms), paidLines: [], bundleLines: [], ...input });

describe('adjudication (docs/money-rules.md "Adjudication")', () => {
  it('allows the contract rate when it is below the charge, then copay, deductible and coinsurance in that order', () => {
    const a = run({ claim: claim([{ chargeCents: 180000 }]), contract: contract('CASE_RATE', { '45378': 42500 }), benefits: { ...benefits, ...met(10000) } });
    const line = a.lines[0]!;
    expect(a.disposition).toBe('APPROVED');
    expect(line.allowedCents).toBe(42500);
    expect(line.copayCents).toBe(2500);
    expect(line.deductibleCents).toBe(40000); // 500.00 deductible, 100.00 met before
    expect(line.coinsuranceCents).toBe(0);
    expect(line.benefitCents).toBe(0);
  });

  it('allows the charge when it is below the contract price', () => {
    const a = run({ claim: claim([{ chargeCents: 30000 }]), contract: contract('FLAT_RATE', { '45378': 145000 }), benefits: { ...benefits, ...met(50000) } });
    expect(a.totals.allowedCents).toBe(30000);
    expect(a.totals.coinsuranceCents).toBe(5500); // 20% of 300.00 − 25.00 copay
    expect(a.totals.benefitCents).toBe(22000);
  });

  it('multiplies the negotiated rate by the quantity for flat rates', () => {
    const a = run({ claim: claim([{ chargeCents: 500000, quantity: 3 }]), contract: contract('FLAT_RATE', { '45378': 100000 }) });
    expect(a.totals.allowedCents).toBe(300000);
  });

  it('prices percent-of-charges contracts at the charges times the multiplier, rounded to the cent', () => {
    const a = run({
      claim: claim([{ cptCode: '00811', chargeCents: 90001 }]),
      contract: contract('PERCENT_OF_CHARGES', { '00811': null }, { multiplier: { numerator: 85, denominator: 100 } }),
    });
    expect(a.totals.allowedCents).toBe(76501); // 765.0085 → 765.01
  });

  it("allows each bundle part its own share, capped by its line's charge: no part's unused share goes to another", () => {
    const terms = contract('BUNDLE', { '27447': null, '01402': null, '97161': null }, { bundleType: 'PACKAGE', bundleRateCents: 2850000 });
    const a = run({
      claim: claim([
        { cptCode: '27447', chargeCents: 3400000 },
        { cptCode: '01402', chargeCents: 250000 },
        { cptCode: '97161', chargeCents: 30000 },
      ]),
      contract: terms,
    });
    expect(a.lines.map((l) => l.allowedCents)).toEqual([950000, 250000, 30000]);
    // Every part charged at least its share: the whole rate.
    const whole = run({
      claim: claim([
        { cptCode: '27447', chargeCents: 3400000 },
        { cptCode: '01402', chargeCents: 950000 },
        { cptCode: '97161', chargeCents: 1000000 },
      ]),
      contract: terms,
    });
    expect(whole.totals.allowedCents).toBe(2850000);
  });

  it('partially approves a claim with a line the contract does not cover, allowing nothing on that line', () => {
    const a = run({ claim: claim([{ cptCode: '45378' }, { cptCode: '99213', chargeCents: 18000 }]), contract: contract('CASE_RATE', { '45378': 42500 }) });
    expect(a.disposition).toBe('PARTIAL_APPROVAL');
    expect(a.lines[1]).toMatchObject({ status: 'NOT_COVERED', allowedCents: 0, benefitCents: 0, patientResponsibilityCents: 0 });
  });

  it('denies a claim for a service after coverage ended, with CARC 27', () => {
    const a = run({
      claim: claim([{ serviceDate: '2026-07-01' }]),
      contract: contract('CASE_RATE', { '45378': 42500 }),
      benefits: { ...benefits, coverageEnd: '2026-06-30' },
    });
    expect(a).toMatchObject({ disposition: 'DENIED', denialCode: 'CARC-27' });
    expect(a.totals.benefitCents).toBe(0);
  });

  it('denies a claim whose every line was paid before, with CARC 18 naming the earlier encounter', () => {
    const paidLines = [
      {
        encounterId: 'enc_1',
        providerNpi: '1045782368',
        feeKind: 'SURGEON' as const,
        cptCode: '45378',
        serviceDate: '2026-03-02',
        contractId: 'ctr_test',
        episodeStart: null,
        allowedCents: 42500,
      },
    ];
    const a = run({ claim: claim([{}]), contract: contract('CASE_RATE', { '45378': 42500 }), paidLines });
    expect(a).toMatchObject({ disposition: 'DENIED', denialCode: 'CARC-18' });
    expect(a.denialReason).toContain('enc_1');
  });

  it('a day already billed in a bundle episode stays in it, whatever episodes later claims create nearby', () => {
    const pkg = contract('BUNDLE', { '27447': null, '01402': null, '97161': null }, { bundleType: 'PACKAGE', bundleRateCents: 2850000 });
    const prior = (cptCode: string, serviceDate: string, episodeStart: string, providerNpi = '1450827369') => ({
      encounterId: 'enc_1',
      providerNpi,
      feeKind: 'FACILITY' as const,
      cptCode,
      serviceDate,
      contractId: 'ctr_test',
      episodeStart,
      allowedCents: 100000,
    });
    // The facility's knee replacement on 21 March is in the episode of 1 January; an episode of
    // 10 April came later. The surgeon's line for the same procedure that day is the same bundle.
    const bundleLines = [prior('27447', '2026-03-21', '2026-01-01'), prior('97161', '2026-04-10', '2026-04-10')];
    const a = run({
      claim: claim([{ cptCode: '27447', serviceDate: '2026-03-21', chargeCents: 520000 }], { preauthorizations: ['PA-1'] }),
      contract: pkg,
      bundleLines,
      linePayees: [{ npi: '1582736496', feeKind: 'SURGEON', eligible: true }],
    });
    expect(a.lines[0]).toMatchObject({ status: 'BUNDLED', reasonCode: 'CARC-97', allowedCents: 0, episodeStart: '2026-01-01' });
  });

  it('pends a claim whose code needs preauthorization when none is given, and approves it when one is', () => {
    const terms = contract('BUNDLE', { '29881': null }, { bundleType: 'DOUBLE_HEADER', bundleRateCents: 390000 });
    (terms.codes as Map<string, { negotiatedRateCents: number | null; requiresPreauth: boolean }>).set('29881', {
      negotiatedRateCents: null,
      requiresPreauth: true,
    });
    expect(run({ claim: claim([{ cptCode: '29881' }]), contract: terms })).toMatchObject({
      disposition: 'PENDING_REVIEW',
      pendReason: 'MISSING_PREAUTHORIZATION',
    });
    expect(run({ claim: claim([{ cptCode: '29881' }], { preauthorizations: ['PA-1'] }), contract: terms }).disposition).toBe('APPROVED');
  });
});

describe('allowed = benefit + patient responsibility, to the cent', () => {
  const codes = ['10001', '10002', '10003', '10004', '10005'];
  const arbLine = fc.record({
    cptCode: fc.constantFrom(...codes, '99999'),
    chargeCents: fc.integer({ min: 0, max: 5_000_000 }),
    quantity: fc.integer({ min: 1, max: 5 }),
  });
  const arbContract = fc.record({
    rateType: fc.constantFrom<ContractRateType>('FLAT_RATE', 'CASE_RATE', 'PERCENT_OF_CHARGES', 'BUNDLE'),
    rates: fc.array(fc.integer({ min: 0, max: 2_000_000 }), { minLength: 5, maxLength: 5 }),
    multiplier: fc.integer({ min: 1, max: 300 }),
    bundleRate: fc.integer({ min: 0, max: 10_000_000 }),
  });
  const arbBenefits = fc.record({
    deductibleCents: fc.integer({ min: 0, max: 500_000 }),
    deductibleMetCents: fc.integer({ min: 0, max: 600_000 }),
    copayCents: fc.integer({ min: 0, max: 10_000 }),
    coinsurancePercent: fc.integer({ min: 0, max: 100 }),
  });

  it('holds on every line and in total for random claims, contracts and plans', () => {
    fc.assert(
      fc.property(fc.array(arbLine, { minLength: 1, maxLength: 20 }), arbContract, arbBenefits, (lines, c, b) => {
        const terms: ContractTerms = {
          id: 'ctr_test',
          rateType: c.rateType,
          multiplier: { numerator: c.multiplier, denominator: 100 },
          bundleType: c.rateType === 'BUNDLE' ? 'PACKAGE' : null,
          bundleRateCents: c.bundleRate,
          codes: new Map(codes.map((code, i) => [code, { negotiatedRateCents: c.rateType === 'BUNDLE' ? null : c.rates[i]!, requiresPreauth: false }])),
        };
        const a = run({
          claim: claim(lines),
          contract: terms,
          benefits: { ...benefits, ...b, deductibleMetByPlanYear: { '2026-01-01': b.deductibleMetCents } },
        });
        for (const l of a.lines) {
          expect(l.allowedCents).toBe(l.benefitCents + l.patientResponsibilityCents);
          expect(l.patientResponsibilityCents).toBe(l.copayCents + l.deductibleCents + l.coinsuranceCents + l.nonCoveredCents);
          expect(l.allowedCents).toBeLessThanOrEqual(l.chargeCents);
          expect(l.benefitCents).toBeGreaterThanOrEqual(0);
          for (const v of [l.allowedCents, l.copayCents, l.deductibleCents, l.coinsuranceCents, l.benefitCents]) expect(Number.isSafeInteger(v)).toBe(true);
        }
        const t = a.totals;
        expect(t.allowedCents).toBe(t.benefitCents + t.patientResponsibilityCents);
        expect(t.copayCents).toBeLessThanOrEqual(b.copayCents);
        expect(t.deductibleCents).toBeLessThanOrEqual(Math.max(0, b.deductibleCents - b.deductibleMetCents));
        if (c.rateType === 'BUNDLE') expect(t.allowedCents).toBeLessThanOrEqual(c.bundleRate);
      }),
      { numRuns: 500 },
    );
  });
});

describe('anesthesia included in another rate', () => {
  const facility = contract('FLAT_RATE', { '45380': 165000 }, { id: 'ctr_facility', anesthesiaIncluded: true });
  const anesthesia = contract(
    'PERCENT_OF_CHARGES',
    { '00811': null },
    { id: 'ctr_anesthesia', multiplier: { numerator: 85, denominator: 100 }, anesthesiaIncluded: true },
  );
  const payees = [
    { npi: '1234567893', feeKind: 'FACILITY' as const, eligible: true },
    { npi: '1196382455', feeKind: 'ANESTHESIA' as const, eligible: true },
  ];
  const input = (order: 'facility-first' | 'anesthesia-first'): AdjudicationInput => {
    const lines = [
      { cptCode: '45380', chargeCents: 240000 },
      { cptCode: '00811', chargeCents: 90000 },
    ];
    const flip = order === 'anesthesia-first';
    return {
      claim: claim(flip ? [lines[1]!, lines[0]!] : lines, { type: 'institutional' }),
      lineContracts: flip ? [anesthesia, facility] : [facility, anesthesia],
      linePayees: flip ? [payees[1]!, payees[0]!] : payees,
      benefits,
      paidLines: [],
      bundleLines: [],
    };
  };

  it('on one claim, in either line order, the anesthesia fee is BUNDLED and the including line paid in full', () => {
    for (const order of ['facility-first', 'anesthesia-first'] as const) {
      const a = adjudicate(input(order));
      const byCode = Object.fromEntries(a.lines.map((l) => [l.cptCode, l]));
      expect(byCode['00811']).toMatchObject({ status: 'BUNDLED', reasonCode: 'CARC-97', allowedCents: 0 });
      expect(byCode['45380']).toMatchObject({ status: 'ALLOWED', allowedCents: 165000, includesAnesthesia: true });
      expect(a.disposition).toBe('PARTIAL_APPROVAL');
    }
  });

  it('an anesthesia provider’s own contract including anesthesia includes nothing', () => {
    const a = adjudicate({ ...input('facility-first'), lineContracts: [contract('FLAT_RATE', { '45380': 165000 }, { id: 'ctr_f' }), anesthesia] });
    expect(a.lines.map((l) => [l.status, l.allowedCents])).toEqual([
      ['ALLOWED', 165000],
      ['ALLOWED', 76500],
    ]);
  });

  it('anesthesia paid before is deducted once, from that day’s including lines in line order, never below 0.00', () => {
    const paidAnesthesia = {
      encounterId: 'enc_a',
      providerNpi: '1196382455',
      feeKind: 'ANESTHESIA' as const,
      cptCode: '00811',
      serviceDate: '2026-03-02',
      contractId: 'ctr_anesthesia',
      episodeStart: null,
      allowedCents: 76500,
    };
    const small = contract('FLAT_RATE', { '45380': 50000, '45378': 145000 }, { id: 'ctr_facility', anesthesiaIncluded: true });
    const a = adjudicate({
      claim: claim(
        [
          { cptCode: '45380', chargeCents: 240000 },
          { cptCode: '45378', chargeCents: 180000 },
        ],
        { type: 'institutional' },
      ),
      lineContracts: [small, small],
      linePayees: [payees[0]!, payees[0]!],
      benefits,
      paidLines: [paidAnesthesia],
      bundleLines: [],
    });
    expect(a.lines.map((l) => [l.status, l.reasonCode, l.allowedCents, l.anesthesiaDeductedCents])).toEqual([
      ['ALLOWED', null, 0, 50000],
      ['ALLOWED', null, 145000 - 26500, 26500],
    ]);
    // A later including line that day: what was deducted before leaves nothing to deduct.
    const later = adjudicate({
      claim: claim([{ cptCode: '45378', chargeCents: 180000, serviceDate: '2026-03-02' }], { type: 'institutional' }),
      lineContracts: [small],
      linePayees: [payees[0]!],
      benefits,
      paidLines: [
        paidAnesthesia,
        { ...paidAnesthesia, feeKind: 'FACILITY', cptCode: '45380', allowedCents: 0, includesAnesthesia: true, anesthesiaDeductedCents: 76500 },
      ],
      bundleLines: [],
    });
    expect(later.lines[0]).toMatchObject({ status: 'ALLOWED', allowedCents: 145000 });
    expect(later.lines[0]!.anesthesiaDeductedCents).toBeUndefined();
  });

  describe('a package part BUNDLED into its paid episode includes its day’s anesthesia', () => {
    const pkg = contract(
      'BUNDLE',
      { '01402': null, '27447': null, '97161': null },
      { id: 'ctr_package', bundleType: 'PACKAGE', bundleRateCents: 2850000, anesthesiaIncluded: true },
    );
    const lakeside = { npi: '1450827369', feeKind: 'FACILITY' as const, eligible: true };
    const summit = { npi: '1196382455', feeKind: 'ANESTHESIA' as const, eligible: true };
    const therapy = (serviceDate: string) => ({ cptCode: '97161', chargeCents: 2000000, serviceDate });
    const fee = { cptCode: '00811', chargeCents: 90000, serviceDate: '2026-11-09' };
    const billed = {
      encounterId: 'enc_nov02',
      providerNpi: lakeside.npi,
      feeKind: 'FACILITY' as const,
      cptCode: '97161',
      serviceDate: '2026-11-02',
      contractId: 'ctr_package',
      episodeStart: '2026-11-02',
      allowedCents: 950000,
      includesAnesthesia: true,
    };
    const adjudicateLines = (lines: { cptCode: string; chargeCents: number; serviceDate: string }[], prior: (typeof billed)[]) =>
      adjudicate({
        claim: claim(lines, { type: 'institutional' }),
        lineContracts: lines.map((l) => (l.cptCode === '00811' ? anesthesia : pkg)),
        linePayees: lines.map((l) => (l.cptCode === '00811' ? summit : lakeside)),
        benefits,
        paidLines: prior,
        bundleLines: prior,
      });

    it('on the claim of the BUNDLED line, in either line order, the anesthesia fee is BUNDLED (CARC-97)', () => {
      for (const lines of [
        [therapy('2026-11-09'), fee],
        [fee, therapy('2026-11-09')],
      ]) {
        const a = adjudicateLines(lines, [billed]);
        const byCode = Object.fromEntries(a.lines.map((l) => [l.cptCode, l]));
        expect(byCode['97161']).toMatchObject({ status: 'BUNDLED', allowedCents: 0, includesAnesthesia: true });
        expect(byCode['00811']).toMatchObject({
          status: 'BUNDLED',
          reasonCode: 'CARC-97',
          reason: 'The benefit for this service is included in the payment for another service: that day’s rate includes the anesthesia',
          allowedCents: 0,
        });
        expect(a.totals.allowedCents).toBe(0);
      }
    });

    it('with the part carried earlier on the same claim, the later day’s anesthesia is BUNDLED too', () => {
      const a = adjudicateLines([therapy('2026-11-02'), therapy('2026-11-09'), fee], []);
      expect(a.lines.map((l) => [l.status, l.allowedCents])).toEqual([
        ['ALLOWED', 950000],
        ['BUNDLED', 0],
        ['BUNDLED', 0],
      ]);
    });

    it('a day kept as included (no paid line) includes the anesthesia but is no duplicate’s original', () => {
      const day = { ...billed, encounterId: 'enc_nov09', serviceDate: '2026-11-09', allowedCents: 0, included: true };
      const later = adjudicateLines([fee], [billed, day]);
      expect(later.lines[0]).toMatchObject({ status: 'BUNDLED', reasonCode: 'CARC-97' });
      // The same service again is BUNDLED into the episode, not denied as a duplicate of the included day.
      const again = adjudicateLines([therapy('2026-11-09')], [billed, day]);
      expect(again.lines[0]).toMatchObject({
        status: 'BUNDLED',
        reasonCode: 'CARC-97',
        reason: 'The benefit for this service is included in the payment for another service of the bundle',
      });
    });
  });
});

describe('quantity', () => {
  it('a case rate is per case; a flat rate per unit', () => {
    const lines = claim([{ chargeCents: 500000, quantity: 3 }]);
    expect(run({ claim: lines, contract: contract('CASE_RATE', { '45378': 100000 }) }).totals.allowedCents).toBe(100000);
    expect(run({ claim: lines, contract: contract('FLAT_RATE', { '45378': 100000 }) }).totals.allowedCents).toBe(300000);
  });
});
