// The edges of adjudication a one-character bug would move: bundle episodes when lines come out of
// order, ties between parts and episodes, history of other contracts, the first paid encounter
// named in a duplicate denial, the coverage end. Pure: adjudicate() on hand-made inputs.
import { describe, expect, it } from 'vitest';
import { adjudicate, paidLines, type AdjudicationInput, type ContractTerms, type PlanBenefits, type PriorLine } from '../../src/domain/adjudication.js';
import type { ClaimLine, ParsedClaim } from '../../src/domain/fhir-claim.js';
import { parsedClaim } from '../helpers/parsed-claim.js';

/** An institutional claim of the surgery center, created 2026-03-30, its lines of code A by default. */
const claim = (lines: Partial<ClaimLine>[]): ParsedClaim =>
  parsedClaim(lines, { type: 'institutional', providerNpi: '1234567893', created: '2026-03-30' }, { cptCode: 'A' });

const benefits: PlanBenefits = {
  deductibleCents: 0,
  deductibleMetCents: 0,
  deductibleMetByPlanYear: {},
  planYearStart: '01-01',
  copayCents: 0,
  coinsurancePercent: 0,
  coverageStart: '2025-01-01',
  coverageEnd: null,
};

/** A PACKAGE bundle (90-day episodes) over codes given in this order, one rate for all. */
function bundle(codes: string[], rateCents: number, id = 'ctr_bundle'): ContractTerms {
  return {
    id,
    rateType: 'BUNDLE',
    multiplier: null,
    bundleType: 'PACKAGE',
    bundleRateCents: rateCents,
    codes: new Map(codes.map((c) => [c, { negotiatedRateCents: null, requiresPreauth: false }])),
  };
}

const prior = (cptCode: string, serviceDate: string, episodeStart: string | null, contractId = 'ctr_bundle', encounterId = 'enc_prior'): PriorLine => ({
  encounterId,
  providerNpi: '1234567893',
  feeKind: 'FACILITY',
  cptCode,
  serviceDate,
  contractId,
  episodeStart,
  allowedCents: 50000,
});

function run(c: ParsedClaim, terms: ContractTerms, input: Partial<AdjudicationInput> = {}) {
  return adjudicate({ claim: c, benefits, lineContracts: c.lines.map(() => terms), paidLines: [], bundleLines: [], ...input });
}

describe('bundle episodes', () => {
  it('lines out of date order still start their episode on the earliest date', () => {
    const a = run(
      claim([
        { cptCode: 'B', serviceDate: '2026-03-10' },
        { cptCode: 'A', serviceDate: '2026-03-02' },
      ]),
      bundle(['A', 'B'], 100000),
    );
    expect(a.lines.map((l) => [l.sequence, l.episodeStart, l.status])).toEqual([
      [1, '2026-03-02', 'ALLOWED'],
      [2, '2026-03-02', 'ALLOWED'],
    ]);
  });

  it("each part is allowed its own share, whatever the line order: A's odd cent stays with A", () => {
    const a = run(claim([{ cptCode: 'B' }, { cptCode: 'A' }]), bundle(['A', 'B'], 1001));
    expect(a.lines.map((l) => l.allowedCents)).toEqual([500, 501]);
  });

  it('a line charged 0.00 carries no part, the next line of the part does; a part carried at a 0.00 share still counts as billed', () => {
    const a = run(
      claim([
        { cptCode: 'A', serviceDate: '2026-03-02', chargeCents: 0 },
        { cptCode: 'A', serviceDate: '2026-03-05', chargeCents: 300 },
        { cptCode: 'A', serviceDate: '2026-03-09', chargeCents: 900 },
      ]),
      bundle(['A', 'B'], 1000),
    );
    expect(a.lines.map((l) => [l.status, l.allowedCents])).toEqual([
      ['ALLOWED', 0],
      ['ALLOWED', 300],
      ['BUNDLED', 0],
    ]);
    expect(paidLines(a.lines)).toEqual([false, true, false]);
    // 0.01 over A and B: B's share is 0.00, its carrier is still the part billed.
    const zeroShare = run(
      claim([
        { cptCode: 'B', chargeCents: 500 },
        { cptCode: 'B', serviceDate: '2026-03-20', chargeCents: 500 },
      ]),
      bundle(['A', 'B'], 1),
    );
    expect(zeroShare.lines.map((l) => [l.status, l.allowedCents])).toEqual([
      ['ALLOWED', 0],
      ['BUNDLED', 0],
    ]);
    expect(paidLines(zeroShare.lines)).toEqual([true, false]);
  });

  it('the bundle rate is shared over the codes in code order, whatever order the contract lists them', () => {
    // 10.01 over A and B: A (first in code order) 5.01, B 5.00.
    expect(run(claim([{ cptCode: 'A' }]), bundle(['B', 'A'], 1001)).lines[0]!.allowedCents).toBe(501);
    expect(run(claim([{ cptCode: 'B' }]), bundle(['B', 'A'], 1001)).lines[0]!.allowedCents).toBe(500);
  });

  it('a date between two episodes joins the nearer one, the earlier on a tie', () => {
    const history = [prior('A', '2026-03-01', '2026-03-01'), prior('A', '2026-03-21', '2026-03-21', 'ctr_bundle', 'enc_2')];
    const nearer = run(claim([{ cptCode: 'B', serviceDate: '2026-03-15' }]), bundle(['A', 'B'], 1000), { bundleLines: history });
    expect(nearer.lines[0]!.episodeStart).toBe('2026-03-21');
    const tie = run(claim([{ cptCode: 'B', serviceDate: '2026-03-11' }]), bundle(['A', 'B'], 1000), { bundleLines: history });
    expect(tie.lines[0]!.episodeStart).toBe('2026-03-01');
    const earlierNearer = run(claim([{ cptCode: 'B', serviceDate: '2026-03-05' }]), bundle(['A', 'B'], 1000), { bundleLines: history });
    expect(earlierNearer.lines[0]!.episodeStart).toBe('2026-03-01');
  });

  it('a part already billed in its episode is BUNDLED; lines of another contract or without an episode are no history', () => {
    const terms = bundle(['A', 'B'], 1000);
    const billed = run(claim([{ cptCode: 'A', serviceDate: '2026-03-05' }]), terms, { bundleLines: [prior('A', '2026-03-01', '2026-03-01')] });
    expect(billed.lines[0]).toMatchObject({ status: 'BUNDLED', reasonCode: 'CARC-97', allowedCents: 0, episodeStart: '2026-03-01' });
    expect(billed.disposition).toBe('DENIED');
    const otherContract = run(claim([{ cptCode: 'A', serviceDate: '2026-03-05' }]), terms, {
      bundleLines: [prior('A', '2026-03-01', '2026-03-01', 'ctr_other')],
    });
    expect(otherContract.lines[0]).toMatchObject({ status: 'ALLOWED', allowedCents: 500, episodeStart: '2026-03-05' });
    const noEpisode = run(claim([{ cptCode: 'A', serviceDate: '2026-03-05' }]), terms, { bundleLines: [prior('A', '2026-03-01', null)] });
    expect(noEpisode.lines[0]).toMatchObject({ status: 'ALLOWED', allowedCents: 500, episodeStart: '2026-03-05' });
  });

  it('a day billed before stays in its episode even when another episode starts nearer', () => {
    const history = [prior('A', '2026-03-10', '2026-03-01'), prior('A', '2026-03-11', '2026-03-11', 'ctr_bundle', 'enc_2')];
    const a = run(claim([{ cptCode: 'B', serviceDate: '2026-03-10' }]), bundle(['A', 'B'], 1000), { bundleLines: history });
    expect(a.lines[0]!.episodeStart).toBe('2026-03-01');
  });
});

describe('episodes start on their earliest day, whatever order their days arrived in', () => {
  // May's episode (opened 05-01), which a March claim arriving later joined: it starts on 03-15.
  const moved = [prior('B', '2026-05-01', '2026-05-01'), prior('A', '2026-03-15', '2026-05-01', 'ctr_bundle', 'enc_2')];

  it('a day within the span of the moved start joins it; one beyond it opens its own episode', () => {
    const terms = bundle(['A', 'B'], 1000);
    const within = run(claim([{ cptCode: 'B', serviceDate: '2026-06-12' }]), terms, { bundleLines: moved });
    expect(within.lines[0]).toMatchObject({ status: 'BUNDLED', episodeStart: '2026-05-01' });
    // 25 July is 85 days after 1 May but 132 after 15 March.
    const beyond = run(claim([{ cptCode: 'B', serviceDate: '2026-07-25' }]), terms, { bundleLines: moved });
    expect(beyond.lines[0]).toMatchObject({ status: 'ALLOWED', allowedCents: 500, episodeStart: '2026-07-25' });
  });

  it('a claim’s later day is measured from the start its earlier day moved', () => {
    const a = run(
      claim([
        { cptCode: 'B', serviceDate: '2026-07-25' },
        { cptCode: 'A', serviceDate: '2026-03-01' },
      ]),
      bundle(['A', 'B'], 1000),
      { bundleLines: [prior('B', '2026-05-01', '2026-05-01')] },
    );
    // 1 March joins May's episode (61 days), which then starts on 1 March: 25 July (146 days) opens another.
    expect(a.lines.map((l) => [l.status, l.episodeStart])).toEqual([
      ['ALLOWED', '2026-07-25'],
      ['ALLOWED', '2026-05-01'],
    ]);
  });
});

describe('the copay per visit', () => {
  const flat: ContractTerms = {
    id: 'ctr_flat',
    rateType: 'FLAT_RATE',
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    codes: new Map([
      ['A', { negotiatedRateCents: 5000, requiresPreauth: false }],
      ['B', { negotiatedRateCents: 1000, requiresPreauth: false }],
    ]),
  };
  const withCopay = { ...benefits, copayCents: 2500 };

  it('each date of a claim is a visit with its own copay, taken on its first lines', () => {
    const a = run(
      claim([
        { cptCode: 'B', serviceDate: '2026-03-02' },
        { cptCode: 'A', serviceDate: '2026-03-09' },
        { cptCode: 'A', serviceDate: '2026-03-02' },
      ]),
      flat,
      { benefits: withCopay },
    );
    expect(a.lines.map((l) => l.copayCents)).toEqual([1000, 2500, 1500]);
  });

  it('what earlier claims took for a visit is not taken again', () => {
    const a = run(
      claim([
        { cptCode: 'A', serviceDate: '2026-03-02' },
        { cptCode: 'A', serviceDate: '2026-03-09' },
      ]),
      flat,
      { benefits: withCopay, visitCopays: { '2026-03-02': 2000, '2026-03-09': 2500 } },
    );
    expect(a.lines.map((l) => l.copayCents)).toEqual([500, 0]);
  });
});

describe('duplicates and coverage', () => {
  it('a duplicate denial names the first encounter that paid the service', () => {
    const terms: ContractTerms = {
      id: 'ctr_flat',
      rateType: 'FLAT_RATE',
      multiplier: null,
      bundleType: null,
      bundleRateCents: null,
      codes: new Map([['A', { negotiatedRateCents: 5000, requiresPreauth: false }]]),
    };
    const paidLines = [prior('A', '2026-03-02', null, 'ctr_flat', 'enc_first'), prior('A', '2026-03-02', null, 'ctr_flat', 'enc_second')];
    const a = run(claim([{ cptCode: 'A' }]), terms, { paidLines });
    expect(a).toMatchObject({ disposition: 'DENIED', denialCode: 'CARC-18', denialReason: 'Exact duplicate claim/service (enc_first)' });
  });

  it('a member without a coverage end is covered on any later date; with one, through that day only', () => {
    const terms: ContractTerms = {
      id: 'ctr_flat',
      rateType: 'FLAT_RATE',
      multiplier: null,
      bundleType: null,
      bundleRateCents: null,
      codes: new Map([['A', { negotiatedRateCents: 5000, requiresPreauth: false }]]),
    };
    expect(run(claim([{ serviceDate: '2099-12-31' }]), terms).disposition).toBe('APPROVED');
    const ending = { ...benefits, coverageEnd: '2026-03-02' };
    expect(run(claim([{ serviceDate: '2026-03-02' }]), terms, { benefits: ending }).disposition).toBe('APPROVED');
    expect(run(claim([{ serviceDate: '2026-03-03' }]), terms, { benefits: ending })).toMatchObject({ disposition: 'DENIED', denialCode: 'CARC-27' });
  });
});
