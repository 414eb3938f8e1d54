// CSV reading (RFC 4180: quoted fields, doubled quotes, commas and line breaks inside quotes),
// with the line each record starts on, so that a bad row can be named; and amounts as CSV writes them.
import { formatCents, jsonNumberToCents } from './money.js';

export interface CsvRecord {
  line: number;
  fields: string[];
}

export function parseCsv(text: string): CsvRecord[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let fieldStarted = false;
  const endRecord = () => {
    fields.push(field);
    // A blank line (not even a comma or a pair of quotes on it) is no record.
    if (fieldStarted) records.push({ line: start, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') (quoted = true), (fieldStarted = true);
    else if (c === ',') fields.push(field), (field = ''), (fieldStarted = true);
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else (field += c), (fieldStarted = true);
  }
  if (quoted) throw new Error(`line ${start}: a quoted field is not closed`);
  endRecord();
  return records;
}

/**
 * An amount as a CSV cell: two decimals always (`2460.00`, `2460.50`, never `2460` or `2460.5`), so
 * that a spreadsheet shows money as money. JSON keeps amounts as numbers (docs/design.md "Output").
 * A value that is not an amount (null, text) is left as it is.
 */
export function csvAmount(value: unknown): unknown {
  if (typeof value !== 'number') return value;
  // A variance may be below zero; jsonNumberToCents reads amounts of zero and above.
  const c = value < 0 ? jsonNumberToCents(-value) : jsonNumberToCents(value);
  return c === undefined ? value : formatCents(value < 0 ? -c : c);
}

/** A flat row with the named amount fields written as `csvAmount` writes them. */
export function withCsvAmounts(row: Record<string, unknown>, amountFields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const f of amountFields) if (f in out) out[f] = csvAmount(out[f]);
  return out;
}
