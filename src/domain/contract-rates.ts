// The rate types of a contract (docs/api-resources.md "Contract lookup"): one entry a type, with how
// it prices a claim's lines, what a full lookup answers as its negotiated rate and how a screen
// names that rate. Adjudication, the engine's lookup and seed, and the CLI read this table and
// compare no type names, so a new type is one entry here (TypeScript refuses a table without it)
// and its tests. Not the rate schedule's rate types (schedule-rates.ts): CASE_RATE is a word of
// both lists, with a rule of its own in each. Contracts have no CSV form: they are not imported.
import type { ClaimLine } from './fhir-claim.js';
import { allocate, mulDivRound, mulRatiosRound, type Ratio } from './money.js';

export type ContractRateType = 'FLAT_RATE' | 'CASE_RATE' | 'PERCENT_OF_CHARGES' | 'BUNDLE';

/** What a contract's price reads beyond the rate of each code. */
export interface ContractPriceTerms {
  /** PERCENT_OF_CHARGES: the multiplier applied to submitted charges. */
  multiplier: Ratio | null;
  /** BUNDLE: one negotiated rate for the whole bundle. */
  bundleRateCents: number | null;
}

/** What a contract prices a line by: its charge and its quantity. */
export type PricedLine = Pick<ClaimLine, 'chargeCents' | 'quantity' | 'unitOfMeasure'>;

interface RulesOfEveryType {
  /** What the negotiated rate of a full lookup is the rate of, on a screen beside it ("whole bundle"); null: of the code. */
  rateNote: string | null;
  /** The negotiated rate a full lookup answers, from the rate of the code asked for and the bundle's. */
  negotiatedRateCents(codeRateCents: number | null, bundleRateCents: number | null): number | null;
}

/** A type whose lines are priced on their own claim: each line's allowed amount from the line, its code's rate and the contract. */
interface PricedByClaim extends RulesOfEveryType {
  byEpisode: false;
  /**
   * The allowed amounts of one claim's ALLOWED lines under the contract, in their order, each at
   * most its billed charge; `ratesCents[k]` is the rate of line k's code in force on its date.
   */
  price(lines: readonly PricedLine[], ratesCents: readonly number[], terms: ContractPriceTerms): number[];
  /** Whether a line charged more than 0.00, at the rate of its code, can only be allowed 0.00. */
  pricesZero(codeRateCents: number | null, terms: ContractPriceTerms): boolean;
}

/**
 * A type whose lines are judged and priced by bundle episode (docs/money-rules.md "Bundles";
 * adjudication.ts priceBundle): one rate shared by the parts of an episode, a part's repeat judged
 * with its episode, and the episode's lines paid before read with each claim.
 */
interface PricedByEpisode extends RulesOfEveryType {
  byEpisode: true;
}

export type ContractRateRules = PricedByClaim | PricedByEpisode;

/**
 * docs/money-rules.md "Quantity": the units a FLAT_RATE multiplies, the quantity as sent, to
 * three decimals; a line in minutes (MJ) is one service, the charge covering its minutes.
 */
export function pricedUnits(line: Pick<ClaimLine, 'quantity' | 'unitOfMeasure'>): Ratio {
  if (line.unitOfMeasure === 'MJ') return { numerator: 1, denominator: 1 };
  // Stored quantities have at most three decimals (fhir-claim.ts): thousandths are exact.
  return { numerator: Math.round(line.quantity * 1000), denominator: 1000 };
}

/** A FLAT_RATE line's price: the rate × its units, rounded once, half up, to the cent (1.005 × 100.01 = 100.51). */
export function flatRatePrice(rateCents: number, line: Pick<ClaimLine, 'quantity' | 'unitOfMeasure'>): number {
  return mulRatiosRound(rateCents, [pricedUnits(line)]);
}

const codeRate = (codeRateCents: number | null) => codeRateCents;
const codeRateIsZero = (codeRateCents: number | null) => (codeRateCents ?? 0) === 0;

/**
 * How each type prices (docs/api-resources.md "Contract lookup"; docs/money-rules.md "Quantity"):
 * FLAT_RATE the code's rate × the line's units; CASE_RATE the code's rate once, whatever the
 * quantity (a case is one case); PERCENT_OF_CHARGES the multiplier on the total charges of the
 * claim's lines under the contract (charges include quantity), allocated by charge; BUNDLE by episode.
 */
export const CONTRACT_RATE_TYPES: Readonly<Record<ContractRateType, ContractRateRules>> = {
  FLAT_RATE: {
    byEpisode: false,
    price: (lines, rates) => lines.map((line, k) => Math.min(line.chargeCents, flatRatePrice(rates[k]!, line))),
    pricesZero: codeRateIsZero,
    rateNote: null,
    negotiatedRateCents: codeRate,
  },
  CASE_RATE: {
    byEpisode: false,
    price: (lines, rates) => lines.map((line, k) => Math.min(line.chargeCents, rates[k]!)),
    pricesZero: codeRateIsZero,
    rateNote: null,
    negotiatedRateCents: codeRate,
  },
  PERCENT_OF_CHARGES: {
    byEpisode: false,
    price(lines, _rates, terms) {
      const charges = lines.map((line) => line.chargeCents);
      const total = charges.reduce((a, b) => a + b, 0);
      const m = terms.multiplier ?? { numerator: 0, denominator: 1 };
      return allocate(Math.min(total, mulDivRound(total, m.numerator, m.denominator)), charges);
    },
    pricesZero: (_rate, terms) => (terms.multiplier?.numerator ?? 0) === 0,
    rateNote: null,
    negotiatedRateCents: codeRate,
  },
  BUNDLE: {
    byEpisode: true,
    rateNote: 'whole bundle',
    negotiatedRateCents: (_codeRateCents, bundleRateCents) => bundleRateCents,
  },
};

/** The types in the table's order. */
export const CONTRACT_RATE_TYPE_NAMES = Object.keys(CONTRACT_RATE_TYPES) as readonly ContractRateType[];

export function isContractRateType(value: unknown): value is ContractRateType {
  return typeof value === 'string' && Object.hasOwn(CONTRACT_RATE_TYPES, value);
}

/** The rules of a type; an unknown type is an error, never another type's rules. */
export function contractRate(type: unknown): ContractRateRules {
  if (isContractRateType(type)) return CONTRACT_RATE_TYPES[type];
  const got = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : String(type);
  throw new Error(`Unknown contract rate type: rate type must be ${CONTRACT_RATE_TYPE_NAMES.join(', ')} (got ${got})`);
}
