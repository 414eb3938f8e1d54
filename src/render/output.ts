// One place that writes a command's result to stdout in the chosen format (docs/design.md "Output").
// Renderers take the data and a description of the terminal, never the CLI's context.
import type { Palette } from './format.js';
import { csvCell } from './screen.js';
import { type AfterAction, filterFailed, type OutputShape, shapedRecordText, shapedWriter } from './shape.js';
import type { UsageError } from '../errors.js';

export interface TableTools {
  c: Palette;
  amount: (value: unknown) => string;
  status: (value: unknown) => string;
  table: typeof import('./table.js').table;
  keyValues: (pairs: readonly (readonly [string, string])[]) => string;
  /** The width tables and records must fit (the terminal's columns), when known. */
  width?: number;
}

export interface CommandOutput {
  /** The body as the service returned it (json); absent when the handler wrote stdout itself. */
  data?: unknown;
  /** Rows for ndjson and csv; by default `data` when it is a list, else `[data]`. */
  items?: readonly unknown[];
  /** The text for table mode; by default a label/value view of `data`. */
  table?: (t: TableTools) => string;
  /** The CSV header when `items` is empty (the flattened fields of a row): a CSV always has its header. */
  columns?: readonly string[];
  /** Notes for stderr printed after the result, so that a long table does not scroll them away (a page hint). */
  after?: readonly string[];
  exitCode?: number;
  /**
   * What the command did, for a filter (--jq, --template) that fails on its result: "the release was
   * sent and APPROVED (transfer tr_…)". The result then goes to stderr unshaped (shape.ts AfterAction).
   */
  done?: string;
}

/** Where and how a result is written: the stream, the format, colours, the width of a terminal. */
export interface Terminal {
  out: { write(text: string): void };
  format: 'table' | 'json' | 'ndjson' | 'csv';
  color: boolean;
  /** Columns of the terminal; none when the output is not one (tables are then as wide as they are). */
  columns?: number;
  /** --json <fields>, --jq or --template: the records shaped for a script (shape.ts). */
  shape?: OutputShape;
  /** Where a result a filter failed on goes, unshaped (stderr). */
  err: { write(text: string): void };
}

export async function emit(term: Terminal, output: CommandOutput): Promise<void> {
  const { out } = term;
  const items = output.items ?? (Array.isArray(output.data) ? output.data : [output.data]);
  if (term.shape) {
    // A filter that fails on the result: the result is not lost (on stderr, unshaped), and the error says what was done.
    let failure: UsageError | undefined;
    const acted: AfterAction = { stderr: term.err, failed: (err) => (failure ??= err) };
    // A list is its records as one array, written as a list printed as it arrives is; anything else is one record.
    if (output.items === undefined && !Array.isArray(output.data)) out.write(shapedRecordText(term.shape, term.format, output.data, acted));
    else {
      const writer = shapedWriter(term.shape, term.format, out, acted);
      writer.write(items);
      writer.end();
    }
    if (failure) throw filterFailed(failure, output.done ?? 'the command ran');
    return;
  }
  switch (term.format) {
    case 'json':
      out.write(`${JSON.stringify(output.data, null, 2)}\n`);
      return;
    case 'ndjson':
      writeLines(out, items);
      return;
    case 'csv':
      out.write(toCsv(items, output.columns));
      return;
    case 'table': {
      const tools = await tableTools(term.color, term.columns);
      const text = output.table ? output.table(tools) : defaultTable(tools, output.data);
      out.write(text.endsWith('\n') ? text : `${text}\n`);
      return;
    }
  }
}

/**
 * A line of JSON an item, written a few hundred lines at a time: one write a line made a long list
 * (the events of `tpa activity`) spend as much time in writes to the pipe as in everything else.
 */
function writeLines(out: { write(text: string): unknown }, items: readonly unknown[]): void {
  const LINES_A_WRITE = 512;
  for (let i = 0; i < items.length; i += LINES_A_WRITE) {
    let text = '';
    for (const item of items.slice(i, i + LINES_A_WRITE)) text += `${JSON.stringify(item)}\n`;
    out.write(text);
  }
}

/** Rendering tools for a stream: colours or not, and tables and records no wider than `width` (its columns). */
export async function tableTools(color: boolean, width?: number): Promise<TableTools> {
  const [format, table] = await Promise.all([import('./format.js'), import('./table.js')]);
  const c = format.colors(color);
  return {
    c,
    amount: format.amount,
    status: (v) => format.status(c, v),
    table: (columns, rows, options = {}) => table.table(columns, rows, { width, ...options }),
    keyValues: (pairs) => table.keyValues(pairs, width),
    width,
  };
}

function defaultTable(t: TableTools, data: unknown): string {
  if (Array.isArray(data)) {
    const rows = data.map((d) => flatten(d));
    const headers = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return t.table(
      headers,
      rows.map((r) => headers.map((h) => cell(r[h]))),
    );
  }
  return t.keyValues(Object.entries(flatten(data)).map(([k, v]) => [k, cell(v)] as const));
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Nested objects become dotted columns; lists stay JSON in one cell. */
export function flatten(value: unknown, prefix = '', into: Record<string, unknown> = {}): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    into[prefix || 'value'] = value;
    return into;
  }
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) flatten(v, key, into);
    // A field named __proto__ (JSON from outside may have one) is a column like any other, not
    // the row's prototype.
    else if (key === '__proto__') Object.defineProperty(into, key, { value: v, enumerable: true, writable: true, configurable: true });
    else into[key] = v;
  }
  return into;
}

/**
 * A header row, then a line per item: the declared `columns`, in their order, whether or not these
 * rows have them (one empty line when none is known and there is no item).
 */
export function toCsv(items: readonly unknown[], columns: readonly string[] = []): string {
  const rows = items.map((item) => flatten(item));
  const headers = declaredFirst(columns, rows);
  return `${[headers.map(csvCell).join(','), ...rows.map((r) => csvLine(headers, r))].join('\n')}\n`;
}

/** The CSV header: the declared columns, then any key of these rows outside them (none when the declaration is whole). */
export function declaredFirst(columns: readonly string[], rows: readonly Record<string, unknown>[]): string[] {
  const declared = new Set(columns);
  return [...columns, ...csvHeaders(rows).filter((h) => !declared.has(h))];
}

/** The CSV columns of flattened rows: every key, in order of first appearance. */
export function csvHeaders(rows: readonly Record<string, unknown>[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r)))];
}

/** One CSV line of a flattened row, in the given columns. */
export function csvLine(headers: readonly string[], row: Record<string, unknown>): string {
  return headers.map((h) => csvCell(cell(row[h]))).join(',');
}
