// The rate types of a rate schedule (the contract builder's, docs/api-resources.md "Rate schedule"):
// one entry a type, with its check, its price, its screen form and its CSV form. The engine, the
// ratesheet verbs and their CSV read this table and compare no type names, so a new type is one
// entry here (TypeScript refuses a table without it) and its tests. Not the contract's rate types
// (contract-rates.ts): CASE_RATE is a word of both lists, with a rule of its own in each.
import {
  checkAmount,
  checkRateRatio,
  formatCents,
  formatCentsGrouped,
  jsonNumberToCents,
  MAX_AMOUNT_CENTS,
  mulDivRound,
  parseCents,
  parseRatio,
} from './money.js';

export type ScheduleRateType = 'CASE_RATE' | 'PERCENT_MEDICARE';

export interface ScheduleRateRules {
  /** What a rate of the type is, for help and messages: "USD". */
  means: string;
  /**
   * A rate as sent (a JSON number, or text from an option or a CSV) read by the type's rule: the
   * decimal text stored, or the problem ("a CASE_RATE rate has more than two decimals …").
   */
  check(value: unknown): { text: string } | { problem: string };
  /** Whether the contract rate an item makes depends on its SSP's Medicare rate. */
  usesMedicareRate: boolean;
  /** The contract rate (allowed amount) an item makes, in cents, from the stored rate text. */
  allowedCents(rateText: string, medicareCents: number): number;
  /** The rate on a screen, as every amount there is written: 2,100.00, or 1.35×. */
  onScreen(value: number): string;
  /** The rate in the CSV of export and import: 2100.00, or 1.35. */
  inCsv(value: number): string;
}

/** The rule of a check, with the type named in its problem. */
function named(type: ScheduleRateType, problem: string): { problem: string } {
  return { problem: `a ${type} rate ${problem}` };
}

/** docs/api-resources.md "Rate schedule": a CASE_RATE is the rate; a PERCENT_MEDICARE rate × the SSP's Medicare rate, to the cent. */
export const SCHEDULE_RATE_TYPES: Readonly<Record<ScheduleRateType, ScheduleRateRules>> = {
  CASE_RATE: {
    means: 'USD',
    check(value) {
      const checked = checkAmount(value);
      return 'problem' in checked ? named('CASE_RATE', checked.problem) : { text: formatCents(checked.cents) };
    },
    usesMedicareRate: false,
    allowedCents: (rateText) => parseCents(rateText) ?? 0,
    onScreen(value) {
      const cents = jsonNumberToCents(value);
      return cents === undefined ? String(value) : formatCentsGrouped(cents);
    },
    inCsv: (value) => value.toFixed(2),
  },
  PERCENT_MEDICARE: {
    means: 'a multiple of the Medicare rate',
    check(value) {
      // A ratio of at most four decimals and MAX_RATE_MULTIPLE: kept as sent, never rounded.
      const checked = checkRateRatio(value);
      return 'problem' in checked ? named('PERCENT_MEDICARE', checked.problem) : { text: checked.text };
    },
    usesMedicareRate: true,
    allowedCents(rateText, medicareCents) {
      const ratio = parseRatio(rateText);
      return ratio ? mulDivRound(medicareCents, ratio.numerator, ratio.denominator) : 0;
    },
    onScreen: (value) => `${value}×`,
    inCsv: (value) => String(value),
  },
};

/** The types in the table's order, as help, completions and messages list them. */
export const SCHEDULE_RATE_TYPE_NAMES = Object.keys(SCHEDULE_RATE_TYPES) as readonly ScheduleRateType[];

export function isScheduleRateType(value: unknown): value is ScheduleRateType {
  return typeof value === 'string' && Object.hasOwn(SCHEDULE_RATE_TYPES, value);
}

/** Why a value is not a schedule rate type, or undefined when it is one. */
export function scheduleRateTypeProblem(value: unknown): string | undefined {
  if (isScheduleRateType(value)) return undefined;
  const got = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
  return `rate type must be ${SCHEDULE_RATE_TYPE_NAMES.join(' or ')} (got ${got})`;
}

/** The rules of a type; an unknown type is an error, never another type's rules. */
export function scheduleRate(type: unknown): ScheduleRateRules {
  const problem = scheduleRateTypeProblem(type);
  if (problem !== undefined) throw new Error(`Unknown schedule rate type: ${problem}`);
  return SCHEDULE_RATE_TYPES[type as ScheduleRateType];
}

/** Why a rate of a type is refused (an unknown type, or a value its rule refuses), or undefined. */
export function scheduleRateProblem(type: unknown, value: unknown): string | undefined {
  const problem = scheduleRateTypeProblem(type);
  if (problem !== undefined) return problem;
  const checked = SCHEDULE_RATE_TYPES[type as ScheduleRateType].check(value);
  return 'problem' in checked ? checked.problem : undefined;
}

/**
 * For a rate whose type is not known: why no type takes it (each type's problem), or undefined
 * when one does. It is never read by one type's rule in place of another's.
 */
export function rateOfNoTypeProblem(value: unknown): string | undefined {
  const problems: string[] = [];
  for (const rules of Object.values(SCHEDULE_RATE_TYPES)) {
    const checked = rules.check(value);
    if (!('problem' in checked)) return undefined;
    problems.push(checked.problem);
  }
  return problems.join('; ');
}

/**
 * The contract rate an item would make when it is not money (more than MAX_AMOUNT_CENTS), else
 * undefined: checked before anything is written, by the service and by an import alike.
 */
export function allowedOverMax(rules: ScheduleRateRules, rateText: string, medicareCents: number): number | undefined {
  const allowed = rules.allowedCents(rateText, medicareCents);
  return allowed > MAX_AMOUNT_CENTS ? allowed : undefined;
}

/** A rate as sent by a service, on a screen: a type this tpa does not know is shown as sent, never as another type's. */
export function rateOnScreen(type: string, value: number): string {
  return isScheduleRateType(type) ? SCHEDULE_RATE_TYPES[type].onScreen(value) : String(value);
}

/** A rate as sent by a service, in CSV: a type this tpa does not know is written as sent (an import then refuses it by name). */
export function rateInCsv(type: string, value: number): string {
  return isScheduleRateType(type) ? SCHEDULE_RATE_TYPES[type].inCsv(value) : String(value);
}

/**
 * The choices of a schedule's enumerated settings (docs/api-resources.md "Rate schedule"): the
 * service refuses any other, and the CLI offers these.
 */
export const SCHEDULE_SETTING_CHOICES = {
  ssp_reference_type: ['INDIVIDUAL'],
  scope_of_care: ['FACILITY_AND_PROFESSIONAL', 'FACILITY_ONLY'],
  service_logic: ['ELECTIVE_ONLY'],
  non_elective_fallback: ['PERCENT_MEDICARE', 'WRAP_NETWORK'],
  default_rate_type: SCHEDULE_RATE_TYPE_NAMES,
} as const satisfies Record<string, readonly string[]>;

/** How a schedule item may be bundled (is_bundle_eligible): not the contract's bundle types (SINGLE, DOUBLE_HEADER, PACKAGE). */
export const SCHEDULE_BUNDLE_TYPES = ['CONVENED', 'PROVIDER_ONLY'] as const;
export type ScheduleBundleType = (typeof SCHEDULE_BUNDLE_TYPES)[number];

export function isScheduleBundleType(value: unknown): value is ScheduleBundleType {
  return (SCHEDULE_BUNDLE_TYPES as readonly unknown[]).includes(value);
}
