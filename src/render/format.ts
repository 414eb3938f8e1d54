// Formatting of amounts, dates and statuses for people (tables, the review screens, the demo).
import { formatCentsGrouped, parseCents } from '../domain/money.js';
import { nounFor } from '../domain/words.js';
import { own } from './screen.js';

/** A service amount (JSON number in USD) with two decimals and separators: 1234.5 → "1,234.50". */
export function amount(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value !== 'number') return String(value);
  const cents = parseCents(String(Math.abs(value)));
  if (cents === undefined) return String(value);
  return `${value < 0 ? '-' : ''}${formatCentsGrouped(cents)}`;
}

/** A count for people, with thousands separators like the amounts beside it: 12345 → "12,345". */
export function count(n: number): string {
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : String(n);
}

/** A count with its noun, singular for one: counted(1, 'code') → "1 code", counted(1234, 'entry', 'entries') → "1,234 entries". */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${count(n)} ${nounFor(n, singular, plural)}`;
}

/** The four styles tpa's screens use. */
export interface Palette {
  bold(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

const plain = (text: string) => text;
const PLAIN: Palette = { bold: plain, green: plain, red: plain, yellow: plain };
// Whether to colour is decided once, by the caller (the terminal, NO_COLOR, --color). The codes are
// tpa's own escapes (screen.ts): the only ones the screened streams let through.
const style = (on: number, off: number) => (text: string) => `${own(`${on}m`)}${text}${own(`${off}m`)}`;
const STYLED: Palette = { bold: style(1, 22), green: style(32, 39), red: style(31, 39), yellow: style(33, 39) };

export function colors(enabled: boolean): Palette {
  return enabled ? STYLED : PLAIN;
}

const GOOD = new Set(['APPROVED', 'ADJUDICATED', 'FUNDED', 'RECONCILED', 'COMPLETED', 'MATCHED', 'EXACT', 'ALLOWED', 'ACKNOWLEDGED', 'true']);
const BAD = new Set(['DENIED', 'FAILED', 'REFUSED', 'RETURNED', 'REFUNDED', 'UNMATCHED', 'VARIANCE', 'MISSING_AEOB', 'NOT_COVERED', 'false']);

/** A status coloured by meaning: green done, red refused or failed, yellow in between. */
export function status(c: Palette, value: unknown): string {
  const text = value === null || value === undefined ? '—' : String(value);
  if (GOOD.has(text)) return c.green(text);
  if (BAD.has(text)) return c.red(text);
  return c.yellow(text);
}
