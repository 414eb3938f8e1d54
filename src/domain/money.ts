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

const TYPED_AMOUNT = /^\$?\s*(\d[\d,]*)(?:\.(\d*))?$/;
const GROUPED = /^\d{1,3}(?:,\d{3})+$/;

/**
 * An amount a person typed (a prompt, --amount, --expect-total) in cents, or why it is not one. It
 * takes the format tpa prints, "2,040.00" and "$2,040.00", as well as "2040" and "2040.5": commas
 * only between groups of three digits, at most two decimals, never rounded; at most
 * MAX_AMOUNT_CENTS. Digits alone, so no float arithmetic: whole × 100 + cents, both safe integers.
 */
export function parseTypedAmount(text: string): { cents: number } | { problem: string } {
  const typed = text.trim();
  const got = JSON.stringify(typed.slice(0, 40));
  const m = TYPED_AMOUNT.exec(typed);
  if (!m) return { problem: `${got} is not an amount: write it as tpa prints it, e.g. 2,040.00 or 2040` };
  const [, whole, frac] = m as unknown as [string, string, string | undefined];
  if (whole.includes(',') && !GROUPED.test(whole))
    return { problem: `${got}: commas go between groups of three digits (2,040.00), or leave them out (2040.00)` };
  if (frac !== undefined && frac.length > 2) return { problem: `${got} has more than two decimals: amounts are in cents, never rounded` };
  if (frac === '') return { problem: `${got}: a decimal point needs one or two digits after it` };
  const digits = whole.replace(/,/g, '').replace(/^0+(?=\d)/, '');
  const max = formatCentsGrouped(MAX_AMOUNT_CENTS);
  // Longer than the most an amount may be: refused before it could pass a safe integer.
  if (digits.length > String(Math.trunc(MAX_AMOUNT_CENTS / 100)).length) return { problem: `${got} is more than ${max}, the most one amount may be` };
  const cents = Number(digits) * 100 + Number((frac ?? '').padEnd(2, '0'));
  if (cents > MAX_AMOUNT_CENTS) return { problem: `${got} is more than ${max}, the most one amount may be` };
  return { cents };
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

/**
 * `value` × each ratio, rounded once at the end half away from zero (as mulDivRound): exact in
 * BigInt, so a decimal quantity times a unit price times a factor is rounded to the cent once.
 */
export function mulRatiosRound(value: number, ratios: readonly Ratio[]): number {
  let n = BigInt(value);
  let d = 1n;
  for (const r of ratios) {
    n *= BigInt(r.numerator);
    d *= BigInt(r.denominator);
  }
  // Stryker disable next-line EqualityOperator: -0n is 0n
  const negative = n < 0n;
  const an = negative ? -n : n;
  const q = (an * 2n + d) / (d * 2n);
  return Number(negative ? -q : q);
}

/** A ratio as the decimal it was written as (3/2 → "1.5", 1005/1000 → "1.005"). */
export function ratioText(r: Ratio): string {
  if (r.denominator === 1) return String(r.numerator);
  const places = String(r.denominator).length - 1;
  const whole = Math.floor(r.numerator / r.denominator);
  const frac = String(r.numerator % r.denominator)
    .padStart(places, '0')
    .replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/**
 * The most one amount may be: 99,999,999.99 USD (a line's charge, a rate, a computed contract rate,
 * a fund release). Far above any real one, and it keeps every sum of them a safe integer of cents.
 */
export const MAX_AMOUNT_CENTS = 9_999_999_999;

/** Places a rate's ratio (a multiple of the Medicare rate) is kept to: more is refused, never rounded. */
export const RATE_DECIMALS = 4;

/** The largest multiple of the Medicare rate a rate schedule may ask for (100,000 percent). */
export const MAX_RATE_MULTIPLE = 1000;

const DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?$/;

/** A JSON number or a text, as the decimal text it stands for ("1.25"); undefined for anything else. */
function decimalText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * An amount of money (a JSON number or text) in cents, or why it is not one: at most two decimals,
 * from 0 to MAX_AMOUNT_CENTS. Messages are for the caller to pair with the field they came from.
 */
export function checkAmount(value: unknown): { cents: number } | { problem: string } {
  const text = decimalText(value);
  const got = ` (got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value)})`;
  const max = formatCentsGrouped(MAX_AMOUNT_CENTS);
  const tooMuch = { problem: `is more than ${max}, the most one amount may be${got}` };
  // A number too large for its decimal form (1e+21) is still "more than the most".
  if (typeof value === 'number' && value > MAX_AMOUNT_CENTS / 100) return tooMuch;
  const m = text === undefined ? null : DECIMAL_TEXT.exec(text);
  if (!m) return { problem: `must be a USD amount from 0.00 to ${max} with at most two decimals${got}` };
  if ((m[2] ?? '').length > 2) return { problem: `has more than two decimals: amounts are in cents, never rounded${got}` };
  const cents = parseCents(text!);
  return cents === undefined || cents > MAX_AMOUNT_CENTS ? tooMuch : { cents };
}

/**
 * A rate's ratio, a multiple of the Medicare rate (a JSON number or text), as an exact fraction, or
 * why it is not one: at most RATE_DECIMALS places and at most MAX_RATE_MULTIPLE.
 */
export function checkRateRatio(value: unknown): { ratio: Ratio; text: string } | { problem: string } {
  const text = decimalText(value);
  const got = ` (got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value)})`;
  const tooMuch = { problem: `is more than ${MAX_RATE_MULTIPLE} times the Medicare rate${got}` };
  if (typeof value === 'number' && value > MAX_RATE_MULTIPLE) return tooMuch;
  const m = text === undefined ? null : DECIMAL_TEXT.exec(text);
  if (!m) return { problem: `must be a multiple of the Medicare rate from 0 to ${MAX_RATE_MULTIPLE}, e.g. 1.25${got}` };
  if ((m[2] ?? '').length > RATE_DECIMALS)
    return { problem: `has more than ${RATE_DECIMALS} decimals: rates are kept to ${RATE_DECIMALS} decimals, never rounded${got}` };
  const ratio = parseRatio(text!);
  return ratio === undefined || ratio.numerator > MAX_RATE_MULTIPLE * ratio.denominator ? tooMuch : { ratio, text: text! };
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
