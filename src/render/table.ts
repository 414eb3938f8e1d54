// Tables for people (cli-table3): amounts right-aligned, no colours unless the caller adds them.
import Table from 'cli-table3';

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

export function table(columns: readonly (Column | string)[], rows: readonly (readonly string[])[], options: { colWidths?: number[]; head?: boolean } = {}): string {
  const cols = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const t = new Table({
    head: options.head === false ? [] : cols.map((c) => c.header),
    ...(options.colWidths ? { colWidths: options.colWidths } : {}),
    colAligns: cols.map((c) => c.align ?? 'left'),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) t.push([...row]);
  return t.toString();
}

/** A two-column layout of labels and values, for a single record; amounts line up on the right. */
export function keyValues(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  const isAmount = (v: string) => /^-?[\d,]+\.\d{2}$/.test(v);
  const amountWidth = Math.max(0, ...pairs.map(([, v]) => (isAmount(v) ? v.length : 0)));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${isAmount(v) ? v.padStart(amountWidth) : v}`).join('\n');
}
