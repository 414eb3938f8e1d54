// Field rules shared by the engine (400 errors[]) and the CLI (local validation before sending).
// Each check returns a message for the caller to pair with its field path, or undefined when valid.
import { jsonNumberToRatio, type Ratio } from './money.js';

/** Luhn check digit of an NPI's first nine digits, with the card-issuer prefix 80840 (CMS NPI rule). */
export function npiCheckDigit(firstNine: string): number {
  const digits = `80840${firstNine}`;
  let sum = 0;
  // Double every second digit from the right, starting with the rightmost of the payload.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      // Stryker disable next-line EqualityOperator: a doubled digit is even, never 9
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

export function npiProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required: a 10-digit NPI';
  if (!/^\d{10}$/.test(value)) return `must be a 10-digit string (got "${clip(value)}")`;
  if (npiCheckDigit(value.slice(0, 9)) !== Number(value[9])) return `"${value}" fails the NPI check digit`;
  return undefined;
}

export function cptProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required: a 5-digit CPT code';
  if (!/^\d{5}$/.test(value)) return `must be a 5-digit CPT code (got "${clip(value)}")`;
  return undefined;
}

/** The most units (or minutes) one line may carry: as many as an 837's SV104 holds in practice, and sums stay exact. */
export const MAX_QUANTITY = 9999;
/** A line's quantity places: thousandths (1.005 units of a drug), as payers read an 837's SV104/SV205. */
export const MAX_QUANTITY_DECIMALS = 3;

/**
 * A line's quantity (FHIR `item[].quantity.value`, an 837's SV104/SV205) as an exact fraction:
 * a JSON number above 0 and at most MAX_QUANTITY with at most three decimals; undefined otherwise.
 */
export function quantityRatio(value: unknown): Ratio | undefined {
  const r = jsonNumberToRatio(value);
  if (r === undefined || r.numerator === 0 || r.denominator > 10 ** MAX_QUANTITY_DECIMALS || r.numerator > MAX_QUANTITY * r.denominator) return undefined;
  return r;
}

export function groupIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required: a TPA network or group id';
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{1,39}$/.test(value)) {
    return `must be 2 to 40 letters, digits, "-" or "_" (got "${clip(value)}")`;
  }
  return undefined;
}

/** An ISO 8601 calendar date (YYYY-MM-DD) that exists. */
export function isoDateProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is required: a date as YYYY-MM-DD';
  if (typeof value !== 'string') return `must be a date as YYYY-MM-DD, a string (got ${typeof value} ${clip(JSON.stringify(value) ?? '')})`;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return `must be a date as YYYY-MM-DD (got "${clip(value)}")`;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    return `"${value}" is not a calendar date`;
  }
  return undefined;
}

/** A FHIR dateTime or date; returns the date part (YYYY-MM-DD) when valid. */
export function datePart(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const date = value.slice(0, 10);
  if (value.length > 10) {
    const t = /^T([01]\d|2[0-3]):([0-5]\d)(:([0-5]\d|60)(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(value.slice(10));
    if (!t) return undefined;
  }
  return isoDateProblem(date) ? undefined : date;
}

/** A whole number written in digits, from min to max (page sizes, offsets, hours). */
export function wholeNumberProblem(text: string, min: number, max: number): string | undefined {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) return `must be a whole number from ${min} to ${max} (got "${text}")`;
  return undefined;
}

export const ADMIT_TYPES = ['INPATIENT', 'OUTPATIENT', 'EMERGENCY'] as const;
export type AdmitType = (typeof ADMIT_TYPES)[number];

/** Shortens user input quoted back in a message. */
export function clip(value: string, max = 40): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * The number of characters in a text as the contract (docs/api.md) counts them ("at most 500 characters"): Unicode
 * code points, so an emoji outside the BMP is one character, not its two UTF-16 code units.
 */
export function characterCount(text: string): number {
  // A string's iterator walks code points: a surrogate pair is one, a lone surrogate one too.
  let count = 0;
  for (const _ of text) count++;
  return count;
}
