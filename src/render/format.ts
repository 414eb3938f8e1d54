// Formatting of amounts, dates and statuses for people (tables, the review screens, the demo).
import { Chalk, type ChalkInstance } from 'chalk';
import { formatCentsGrouped, parseCents } from '../domain/money.js';

/** A service amount (JSON number in USD) with two decimals and separators: 1234.5 → "1,234.50". */
export function amount(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value !== 'number') return String(value);
  const cents = parseCents(String(Math.abs(value)));
  if (cents === undefined) return String(value);
  return `${value < 0 ? '-' : ''}${formatCentsGrouped(cents)}`;
}

export function colors(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}

const GOOD = new Set(['APPROVED', 'ADJUDICATED', 'FUNDED', 'RECONCILED', 'COMPLETED', 'MATCHED', 'EXACT', 'ALLOWED', 'ACKNOWLEDGED', 'true']);
const BAD = new Set(['DENIED', 'FAILED', 'RETURNED', 'REFUNDED', 'UNMATCHED', 'VARIANCE', 'MISSING_AEOB', 'NOT_COVERED', 'false']);

/** A status coloured by meaning: green done, red refused or failed, yellow in between. */
export function status(c: ChalkInstance, value: unknown): string {
  const text = value === null || value === undefined ? '—' : String(value);
  if (GOOD.has(text)) return c.green(text);
  if (BAD.has(text)) return c.red(text);
  return c.yellow(text);
}
