// The two rate-type vocabularies, each one table (docs/development.md "Vocabularies"): every entry's
// check, price, screen and CSV forms; a type neither table knows is refused by name, never read by
// another type's rule. The examples are keyed by type, so a new type without its examples does not
// type-check.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adjudicate, type ContractTerms } from '../../src/domain/adjudication.js';
import {
  CONTRACT_RATE_TYPE_NAMES,
  CONTRACT_RATE_TYPES,
  type ContractRateType,
  contractRate,
  isContractRateType,
  type PricedLine,
} from '../../src/domain/contract-rates.js';
import {
  allowedOverMax,
  isScheduleRateType,
  rateInCsv,
  rateOfNoTypeProblem,
  rateOnScreen,
  SCHEDULE_RATE_TYPE_NAMES,
  SCHEDULE_RATE_TYPES,
  type ScheduleRateType,
  scheduleRate,
  scheduleRateProblem,
} from '../../src/domain/schedule-rates.js';
import { parsedClaim } from '../helpers/parsed-claim.js';

interface ScheduleExample {
  /** A rate as a service sends it (a JSON number). */
  value: number;
  stored: string;
  onScreen: string;
  inCsv: string;
  /** The allowed amount at a Medicare rate of 1,234.56. */
  allowedCents: number;
  /** A value the type refuses, and the words of its problem. */
  refused: [unknown, RegExp];
}

const SCHEDULE_EXAMPLES: Record<ScheduleRateType, ScheduleExample> = {
  CASE_RATE: {
    value: 2100.5,
    stored: '2100.50',
    onScreen: '2,100.50',
    inCsv: '2100.50',
    allowedCents: 210050,
    refused: [10.001, /^a CASE_RATE rate has more than two decimals/],
  },
  PERCENT_MEDICARE: {
    value: 1.35,
    stored: '1.35',
    onScreen: '1.35×',
    inCsv: '1.35',
    // 1.35 × 1,234.56 = 1,666.656, to the cent.
    allowedCents: 166666,
    refused: [1.23456, /^a PERCENT_MEDICARE rate has more than 4 decimals/],
  },
};

describe('the schedule rate types, one table', () => {
  it('lists its types in the order help and messages name them', () => {
    expect(SCHEDULE_RATE_TYPE_NAMES).toEqual(['CASE_RATE', 'PERCENT_MEDICARE']);
    expect(Object.keys(SCHEDULE_EXAMPLES).sort()).toEqual([...SCHEDULE_RATE_TYPE_NAMES].sort());
  });

  it.each(SCHEDULE_RATE_TYPE_NAMES)('%s: its check, price, screen and CSV forms', (type) => {
    const rules = SCHEDULE_RATE_TYPES[type];
    const example = SCHEDULE_EXAMPLES[type];
    expect(rules.check(example.value)).toEqual({ text: example.stored });
    expect(rules.allowedCents(example.stored, 123456)).toBe(example.allowedCents);
    expect(rules.onScreen(example.value)).toBe(example.onScreen);
    expect(rules.inCsv(example.value)).toBe(example.inCsv);
    const [bad, why] = example.refused;
    expect(rules.check(bad)).toEqual({ problem: expect.stringMatching(why) });
    expect(scheduleRateProblem(type, bad)).toMatch(why);
    expect(scheduleRateProblem(type, example.value)).toBeUndefined();
  });

  it.each(SCHEDULE_RATE_TYPE_NAMES)('%s: a rate written to CSV reads back as the same rate', (type) => {
    const { value, stored } = SCHEDULE_EXAMPLES[type];
    const rules = SCHEDULE_RATE_TYPES[type];
    const read = rules.check(rateInCsv(type, value));
    expect(read).toEqual({ text: stored });
    expect(Number((read as { text: string }).text)).toBe(value);
  });

  it('only a rate priced from the Medicare rate depends on it, and its contract rate must be money', () => {
    expect(SCHEDULE_RATE_TYPES.CASE_RATE.usesMedicareRate).toBe(false);
    expect(SCHEDULE_RATE_TYPES.CASE_RATE.allowedCents('2100.00', 999999999)).toBe(210000);
    expect(SCHEDULE_RATE_TYPES.PERCENT_MEDICARE.usesMedicareRate).toBe(true);
    // 600 × 200,000.00 is 120,000,000.00: more than one contract rate may be.
    expect(allowedOverMax(SCHEDULE_RATE_TYPES.PERCENT_MEDICARE, '600', 20000000)).toBe(12000000000);
    expect(allowedOverMax(SCHEDULE_RATE_TYPES.PERCENT_MEDICARE, '499', 20000000)).toBeUndefined();
  });

  it('refuses a type it does not know by name, and never reads its rate by another type', () => {
    expect(isScheduleRateType('PER_DIEM')).toBe(false);
    expect(isScheduleRateType('toString')).toBe(false);
    expect(() => scheduleRate('PER_DIEM')).toThrow('Unknown schedule rate type: rate type must be CASE_RATE or PERCENT_MEDICARE (got "PER_DIEM")');
    expect(() => scheduleRate(undefined)).toThrow(/rate type must be CASE_RATE or PERCENT_MEDICARE \(got undefined\)/);
    expect(scheduleRateProblem('case_rate', '1')).toBe('rate type must be CASE_RATE or PERCENT_MEDICARE (got "case_rate")');
    // As sent by a service that knows more types: as sent, not as a multiple of Medicare.
    expect(rateOnScreen('PER_DIEM', 450)).toBe('450');
    expect(rateInCsv('PER_DIEM', 450)).toBe('450');
  });

  it('a rate of no known type is refused only when no type takes it, with every type saying why', () => {
    expect(rateOfNoTypeProblem(2000)).toBeUndefined();
    expect(rateOfNoTypeProblem(-1)).toMatch(/^a CASE_RATE rate must be a USD amount .*; a PERCENT_MEDICARE rate must be a multiple of the Medicare rate/);
  });
});

interface ContractExample {
  /** Lines of one claim under the contract, with their codes' rates in force, and their prices. */
  lines: (PricedLine & { rateCents: number; allowedCents: number })[];
  terms: Pick<ContractTerms, 'multiplier' | 'bundleRateCents'>;
  /** The negotiated rate of a full lookup for a code rated 425.00. */
  negotiatedCents: number | null;
  rateNote: string | null;
}

const line = (chargeCents: number, rateCents: number, allowedCents: number, quantity = 1) => ({
  chargeCents,
  quantity,
  unitOfMeasure: undefined,
  rateCents,
  allowedCents,
});

const CONTRACT_EXAMPLES: Record<ContractRateType, ContractExample> = {
  // The rate × the units (1.005 × 100.01 = 100.51), never more than the charge.
  FLAT_RATE: {
    lines: [line(50000, 10001, 10051, 1.005), line(9000, 10000, 9000)],
    terms: { multiplier: null, bundleRateCents: null },
    negotiatedCents: 42500,
    rateNote: null,
  },
  // The rate once, whatever the quantity.
  CASE_RATE: {
    lines: [line(500000, 42500, 42500, 3), line(100, 42500, 100)],
    terms: { multiplier: null, bundleRateCents: null },
    negotiatedCents: 42500,
    rateNote: null,
  },
  // 0.6 × (100.01 + 200.00) = 180.006 → 180.01, allocated by charge.
  PERCENT_OF_CHARGES: {
    lines: [line(10001, 0, 6001), line(20000, 0, 12000)],
    terms: { multiplier: { numerator: 6, denominator: 10 }, bundleRateCents: null },
    negotiatedCents: 42500,
    rateNote: null,
  },
  // Priced by episode (adjudication.ts); a lookup answers the whole bundle's rate.
  BUNDLE: { lines: [], terms: { multiplier: null, bundleRateCents: 900000 }, negotiatedCents: 900000, rateNote: 'whole bundle' },
};

describe('the contract rate types, one table', () => {
  it('lists its types as the service names them', () => {
    expect([...CONTRACT_RATE_TYPE_NAMES].sort()).toEqual(['BUNDLE', 'CASE_RATE', 'FLAT_RATE', 'PERCENT_OF_CHARGES']);
  });

  it.each(CONTRACT_RATE_TYPE_NAMES)('%s: its price, its lookup rate and how a screen names it', (type) => {
    const rules = CONTRACT_RATE_TYPES[type];
    const example = CONTRACT_EXAMPLES[type];
    expect(rules.negotiatedRateCents(42500, example.terms.bundleRateCents)).toBe(example.negotiatedCents);
    expect(rules.rateNote).toBe(example.rateNote);
    if (rules.byEpisode) return expect(example.lines).toEqual([]);
    const prices = rules.price(
      example.lines,
      example.lines.map((l) => l.rateCents),
      example.terms,
    );
    expect(prices).toEqual(example.lines.map((l) => l.allowedCents));
  });

  it('a line is surely allowed 0.00 by a zero rate of its code, or a zero multiplier', () => {
    const none = { multiplier: null, bundleRateCents: null };
    const pricesZero = (type: ContractRateType, rate: number | null, terms: ContractExample['terms'] = none) => {
      const rules = contractRate(type);
      return rules.byEpisode ? undefined : rules.pricesZero(rate, terms);
    };
    expect([pricesZero('FLAT_RATE', 0), pricesZero('FLAT_RATE', null), pricesZero('FLAT_RATE', 1)]).toEqual([true, true, false]);
    expect([pricesZero('CASE_RATE', 0), pricesZero('CASE_RATE', 1)]).toEqual([true, false]);
    expect(pricesZero('PERCENT_OF_CHARGES', 0, { multiplier: { numerator: 1, denominator: 2 }, bundleRateCents: null })).toBe(false);
    expect(pricesZero('PERCENT_OF_CHARGES', 100, { multiplier: { numerator: 0, denominator: 1 }, bundleRateCents: null })).toBe(true);
    expect(pricesZero('PERCENT_OF_CHARGES', 100, none)).toBe(true);
  });

  it('refuses a type it does not know by name, in adjudication too, rather than pricing it as another', () => {
    expect(isContractRateType('PER_DIEM')).toBe(false);
    expect(isContractRateType('constructor')).toBe(false);
    expect(() => contractRate('PER_DIEM')).toThrow(
      'Unknown contract rate type: rate type must be FLAT_RATE, CASE_RATE, PERCENT_OF_CHARGES, BUNDLE (got "PER_DIEM")',
    );
    const terms = {
      id: 'ctr_test',
      rateType: 'PER_DIEM' as ContractRateType,
      multiplier: null,
      bundleType: null,
      bundleRateCents: null,
      codes: new Map([['45378', { negotiatedRateCents: 42500, requiresPreauth: false }]]),
    };
    const input = {
      claim: parsedClaim([{ chargeCents: 180000 }]),
      benefits: {
        deductibleCents: 0,
        deductibleMetCents: 0,
        deductibleMetByPlanYear: {},
        planYearStart: '01-01',
        copayCents: 0,
        coinsurancePercent: 0,
        coverageStart: '2025-01-01',
        coverageEnd: null,
      },
      lineContracts: [terms],
      paidLines: [],
      bundleLines: [],
    };
    expect(() => adjudicate(input)).toThrow(/Unknown contract rate type: .*\(got "PER_DIEM"\)/);
  });
});

describe('the wire', () => {
  it('docs/openapi.yaml names every type of each table as a rate_type, and no other', () => {
    const yaml = readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8');
    const lists = [...yaml.matchAll(/^\s+rate_type: \{ type: string, enum: \[([^\]]*)\] \}$/gm)].map((m) => m[1]!.split(', ').sort().join(' '));
    const contract = [...CONTRACT_RATE_TYPE_NAMES].sort().join(' ');
    const schedule = [...SCHEDULE_RATE_TYPE_NAMES].sort().join(' ');
    expect(new Set(lists)).toEqual(new Set([contract, schedule]));
  });
});
