// Go's fmt verbs for a float64 (%f, %e, %g), digit for digit: Go formats the double's exact binary
// value and breaks an exact tie to even (`%.0f` of 284.5 is 284, `%.2f` of 0.125 is 0.12), where
// JavaScript's toFixed breaks it upward. A double is m·2^e exactly; BigInt arithmetic on that decides
// each digit, so a tie is found exactly, never by a float comparison.

/** The double as sign, integer numerator and power-of-two denominator: |x| = num / 2^shift. */
function exact(x: number): { negative: boolean; num: bigint; shift: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const negative = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  const mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  const m = biased === 0 ? mantissa : mantissa | (1n << 52n);
  const e = BigInt(biased === 0 ? -1074 : biased - 1075);
  return e >= 0n ? { negative, num: m << e, shift: 0n } : { negative, num: m, shift: -e };
}

/** num / den rounded to an integer, an exact half to even. */
function roundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && q % 2n === 1n)) return q + 1n;
  return q;
}

/** Go's NaN and infinities, or undefined for a finite number. */
function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return '+Inf';
  if (x === Number.NEGATIVE_INFINITY) return '-Inf';
  return undefined;
}

/** `%.{precision}f` as Go prints it. */
export function goFixed(x: number, precision: number): string {
  const s = special(x);
  if (s) return s;
  const { negative, num, shift } = exact(x);
  const scaled = roundHalfEven(num * 10n ** BigInt(precision), 1n << shift);
  const digits = scaled.toString().padStart(precision + 1, '0');
  const whole = digits.slice(0, digits.length - precision);
  const text = precision === 0 ? whole : `${whole}.${digits.slice(-precision)}`;
  return negative ? `-${text}` : text;
}

/** The first `count` significant digits of |x| (an exact half to even) and the decimal exponent of the first. */
function significant(num: bigint, shift: bigint, count: number): { digits: string; exp: number } {
  if (num === 0n) return { digits: '0'.repeat(count), exp: 0 };
  const den = 1n << shift;
  // The exponent of the first digit, found exactly: 10^exp <= num/den < 10^(exp+1).
  let exp = num.toString().length - den.toString().length;
  const atLeast = (p: number) => (p >= 0 ? num >= den * 10n ** BigInt(p) : num * 10n ** BigInt(-p) >= den);
  while (!atLeast(exp)) exp--;
  while (atLeast(exp + 1)) exp++;
  const scale = count - 1 - exp;
  let q = scale >= 0 ? roundHalfEven(num * 10n ** BigInt(scale), den) : roundHalfEven(num, den * 10n ** BigInt(-scale));
  if (q.toString().length > count) {
    q /= 10n;
    exp++;
  }
  return { digits: q.toString(), exp };
}

/** Go's exponent: a sign and at least two digits. */
function exponent(exp: number): string {
  return `e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** `%.{precision}e` as Go prints it (precision 6 when not given). */
export function goExponent(x: number, precision: number): string {
  const s = special(x);
  if (s) return s;
  const { negative, num, shift } = exact(x);
  const { digits, exp } = significant(num, shift, precision + 1);
  const text = `${digits[0]}${precision > 0 ? `.${digits.slice(1)}` : ''}${exponent(exp)}`;
  return negative ? `-${text}` : text;
}

/**
 * `%g` and `%.{precision}g` as Go prints them: the shortest digits that read back as the same double
 * (no precision) or that many significant digits, trailing zeros dropped; exponent form when the
 * exponent is below -4 or at least the precision (6 for the shortest).
 */
export function goGeneral(x: number, precision: number | undefined): string {
  const s = special(x);
  if (s) return s;
  const { negative, num, shift } = exact(x);
  let digits: string;
  let exp: number;
  if (precision === undefined) {
    // The shortest round-trip digits: JavaScript's and Go's are the same.
    const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
    digits = mantissa.replace('.', '');
    exp = Number(e);
  } else {
    ({ digits, exp } = significant(num, shift, Math.max(precision, 1)));
  }
  digits = digits.replace(/(?<=.)0+$/, '');
  const eprec = precision === undefined ? 6 : Math.max(precision, 1) > digits.length && digits.length >= exp + 1 ? digits.length : Math.max(precision, 1);
  let text: string;
  if (exp < -4 || exp >= eprec) {
    text = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}${exponent(exp)}`;
  } else if (exp < 0) {
    text = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length > exp + 1) {
    text = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    text = digits + '0'.repeat(exp + 1 - digits.length);
  }
  return negative ? `-${text}` : text;
}
