// Money is integer cents everywhere inside tpa. These are the only places where amounts cross
// from text or JSON numbers into cents and back; nothing here uses float arithmetic on amounts.

const AMOUNT_TEXT = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Parses a non-negative decimal amount with at most two places ("12", "12.3", "12.34") into
 * cents. Returns undefined for anything else (more places, signs, exponents, blanks), so that the
 * caller can report it where it came from; nothing is ever rounded silently.
 */
export function parseCents(text: string): number | undefined {
  const m = AMOUNT_TEXT.exec(text.trim());
  if (!m) return undefined;
  const whole = m[1]!;
  const frac = (m[2] ?? '').padEnd(2, '0');
  const cents = Number(whole) * 100 + Number(frac);
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/**
 * A JSON number as an amount in cents, exactly: the number's shortest decimal form must have at
 * most two places. 12.3 → 1230; 0.1 + 0.2 (0.30000000000000004) is rejected, not rounded.
 */
export function jsonNumberToCents(value: unknown): number | undefined {
  // NaN, infinities, negatives and exponent forms fail the decimal-text check of parseCents.
  return typeof value === 'number' ? parseCents(String(value)) : undefined;
}

/** Cents as text with two decimals: 123456 → "1234.56", -5 → "-0.05". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.trunc(abs / 100);
  const frac = abs % 100;
  return `${sign}${whole}.${String(frac).padStart(2, '0')}`;
}

/** Cents as text with thousands separators, for tables: 123456789 → "1,234,567.89". */
export function formatCentsGrouped(cents: number): string {
  const [whole, frac] = formatCents(cents).split('.') as [string, string];
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
}

/** Cents as the JSON number the service returns (USD with at most two decimals). */
export function centsToAmount(cents: number): number {
  return Number(formatCents(cents));
}

/**
 * centsToAmount written as JSON, for answers the engine writes as text (a ledger page): the very
 * text JSON.stringify gives that number ("1234.5", "100", "0.07"), from integers alone.
 */
export function centsToJson(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const frac = abs % 100;
  const whole = (abs - frac) / 100;
  if (frac === 0) return whole === 0 ? '0' : `${sign}${whole}`;
  return `${sign}${whole}.${frac % 10 === 0 ? frac / 10 : frac < 10 ? `0${frac}` : frac}`;
}

/**
 * round(value × numerator / denominator) to the nearest integer, halves away from zero, computed
 * exactly in integers (a rate like 1.25 or 2.2% is passed as a fraction).
 */
export function mulDivRound(value: number, numerator: number, denominator: number): number {
  if (denominator === 0) throw new RangeError('denominator is zero');
  const n = BigInt(value) * BigInt(numerator);
  const d = BigInt(denominator);
  // Stryker disable next-line EqualityOperator: n = 0 rounds to 0 whatever its sign; d is never 0 here
  const negative = n < 0n !== d < 0n;
  // Stryker disable next-line EqualityOperator: -0n is 0n
  const an = n < 0n ? -n : n;
  // Stryker disable next-line EqualityOperator: d is never 0 here
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (ad * 2n);
  return Number(negative ? -q : q);
}

/** A decimal rate given as text ("1.25", "0.85", "20") as an exact fraction. */
export interface Ratio {
  numerator: number;
  denominator: number;
}

const RATE_TEXT = /^(\d+)(?:\.(\d{1,6}))?$/;

export function parseRatio(text: string): Ratio | undefined {
  const m = RATE_TEXT.exec(text.trim());
  if (!m) return undefined;
  const frac = m[2] ?? '';
  const denominator = 10 ** frac.length;
  // No decimals: frac is '' and Number('') is 0.
  return { numerator: Number(m[1]) * denominator + Number(frac), denominator };
}

/** A JSON number used as a rate (multiplier, percent) as an exact fraction, at most six places. */
export function jsonNumberToRatio(value: unknown): Ratio | undefined {
  // NaN, infinities, negatives and exponent forms fail the decimal-text check of parseRatio.
  return typeof value === 'number' ? parseRatio(String(value)) : undefined;
}

/**
 * Splits `totalCents` over `weights` in proportion, exactly: the parts add up to the total to the
 * cent (largest remainder; ties go to the earlier part). All weights zero → equal shares.
 */
export function allocate(totalCents: number, weights: readonly number[]): number[] {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path (one part, most claims); the general path gives the same
  if (weights.length === 1) return [totalCents];
  const w = weights.every((x) => x === 0) ? weights.map(() => 1) : weights;
  const sum = w.reduce((a, b) => a + BigInt(b), 0n);
  const total = BigInt(totalCents);
  const parts = w.map((x) => (total * BigInt(x)) / sum);
  const remainders = w.map((x, i) => ({ i, r: (total * BigInt(x)) % sum }));
  let left = total - parts.reduce((a, b) => a + b, 0n);
  // Stryker disable next-line EqualityOperator: equal remainders are taken by the first test
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left <= 0n) break;
    parts[i] = parts[i]! + 1n;
    left -= 1n;
  }
  return parts.map(Number);
}
