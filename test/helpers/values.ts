// Reading what tpa printed: NDJSON lines, and amounts as integer cents (never floats).
import { jsonNumberToCents, parseCents } from '../../src/domain/money.js';

type Row = Record<string, any>;

/** The objects of NDJSON text, one a line (blank lines skipped). */
export function ndjson<T = Row>(text: string): T[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/**
 * An amount as integer cents: a JSON number in USD (2460.5) or decimal text ("2460.50"). Anything
 * else, or a number with more than two decimals, fails the test rather than being rounded away.
 */
export function cents(amount: unknown): number {
  // Negative amounts (a variance, a refund) carry their sign; the parsers take magnitudes.
  if (typeof amount === 'number' && amount < 0) return -cents(-amount);
  if (typeof amount === 'string' && amount.trim().startsWith('-')) return -cents(amount.trim().slice(1));
  const value = typeof amount === 'string' ? parseCents(amount) : jsonNumberToCents(amount);
  if (value === undefined) throw new Error(`not an amount in cents: ${JSON.stringify(amount)}`);
  return value;
}

/** The period report's money figures (src/domain/report.ts `PeriodReport.money`), each a sum of payouts. */
export const REPORT_MONEY_FIGURES = [
  'releasedCents',
  'inTransitCents',
  'settledCents',
  'refundedCents',
  'cameBackCents',
  'failedCents',
  'feesChargedCents',
  'feesKeptCents',
  'netCents',
  'spentCents',
] as const;

/** The same figures as `tpa settlement report -o json` prints them (`money`). */
export const REPORT_MONEY_FIELDS = [
  'released',
  'in_transit',
  'settled',
  'released_then_refunded',
  'came_back',
  'fees_charged',
  'fees_kept',
  'net_to_providers',
  'spent',
  'failed',
] as const;
