// Writers that print a list as its pages arrive (docs/design.md "Streaming lists"): the
// output is the same as printing the whole list at once, for every format, but only one page is
// ever held. They take a sink and the rendering they need, never the CLI's context.
import { csvLine, declaredFirst, flatten, type TableTools } from './output.js';
import { jsonWriter, ndjsonWriter, type RowWriter, type Sink } from './json-writer.js';
import { csvCell } from './screen.js';
import { type AfterAction, type OutputShape, shapedWriter } from './shape.js';
import { type Column, fitColumns, listColumns, minimumWidths, records as recordsOf, visibleLength } from './table.js';

export interface TableSpec<T> {
  columns: readonly (Column | string)[];
  cells: (t: TableTools, row: T) => string[];
  /** What to print when there is no row at all. */
  empty: string;
  /** The list's CSV: its header, written even when there is no row, and how a row becomes a line. */
  csv?: CsvSpec<T>;
}

/** A list's CSV (docs/design.md "Output"): the header is known before any row, so an empty list still has one. */
export interface CsvSpec<T> {
  /** The flattened fields of a row, in order: the header. */
  columns: readonly string[];
  /** The row as its CSV line shows it (a list flattened into columns of its own); the row itself by default. */
  row?: (item: T) => unknown;
}

/**
 * A writer for `format`: json (one array, written as it grows), ndjson, csv (header once, even with
 * no rows), or table; with a `shape` (--json <fields>, --jq, --template), the records shaped.
 */
export function rowWriter<T>(
  format: 'json' | 'ndjson' | 'csv' | 'table',
  out: Sink,
  table?: { tools: TableTools; spec: TableSpec<T> },
  csv?: CsvSpec<T>,
  shape?: OutputShape,
  acted?: AfterAction,
): RowWriter<T> {
  if (shape) return shapedWriter(shape, format, out, acted);
  switch (format) {
    case 'ndjson':
      return ndjsonWriter(out);
    case 'json':
      return jsonWriter(out);
    case 'csv': {
      let headers: string[] | undefined;
      const header = (names: readonly string[]) => `${names.map(csvCell).join(',')}\n`;
      return {
        write(rows) {
          if (rows.length === 0) return;
          const flat = rows.map((r) => flatten(csv?.row ? csv.row(r) : r));
          // The list's declared columns, the same for every page and every period (a key only a later
          // page has keeps its column); a key outside them (a list with none declared) from the first page.
          const first = headers === undefined;
          headers ??= declaredFirst(csv?.columns ?? [], flat);
          out.write(`${first ? header(headers) : ''}${flat.map((r) => csvLine(headers!, r)).join('\n')}\n`);
        },
        // No row: the header alone, when the list declares it (a file a spreadsheet or a script can still read).
        end: () => (headers === undefined ? out.write(csv ? header(csv.columns) : '\n') : undefined),
      };
    }
    case 'table': {
      if (!table) throw new Error('a table writer needs its columns');
      let count = 0;
      const { tools, spec } = table;
      // A list: each row one line (table.ts listColumns), whatever its pages hold.
      const cols = listColumns(spec.columns.map((c) => (typeof c === 'string' ? { header: c } : c)));
      let widths: number[] | undefined;
      let keep: number[] = [];
      let records = false;
      let bottom = '';
      return {
        write(rows) {
          if (rows.length === 0) return;
          const cells = rows.map((r) => spec.cells(tools, r));
          const headers = spec.columns.map((c) => (typeof c === 'string' ? c : c.header));
          const first = widths === undefined;
          // Widths come from the first page (amounts get room for seven figures); a longer text
          // on a later page is cut with … rather than breaking the columns.
          if (widths === undefined) {
            const natural = (room: number) =>
              headers.map((h, i) => {
                const amount = cols[i]!.align === 'right';
                return Math.max(visibleLength(h), amount ? room : 0, cols[i]!.room ?? 0, ...cells.map((c) => visibleLength(c[i] ?? ''))) + 2;
              });
            // Narrower than the terminal: text columns give way (their cells wrap), then the columns
            // marked to give way are left out; amounts keep room for seven figures when it fits, else
            // their first page's; if even that is too wide, every page is printed a record at a time.
            const text = headers.map((_, i) => !cols[i]!.whole && cells.some((c) => /\s/.test((c[i] ?? '').trim())));
            const all = spec.columns.map((_, i) => i);
            const fitted =
              tools.width === undefined
                ? { keep: all, widths: natural(12) }
                : (fitColumns(cols, natural(12), text, tools.width, { minimum: minimumWidths(cols, cells, natural(12), text) }) ??
                  fitColumns(cols, natural(0), text, tools.width, { minimum: minimumWidths(cols, cells, natural(0), text) }) ??
                  fitColumns(cols, natural(0), text, tools.width, { minimum: minimumWidths(cols, cells, natural(0), text), list: true }));
            if (!fitted) records = true;
            widths = fitted?.widths ?? [];
            keep = fitted?.keep ?? all;
          }
          if (records) {
            out.write(`${count === 0 ? '' : '\n'}${recordsOf(cols, cells, tools.width!)}\n`);
            count += rows.length;
            return;
          }
          const lines = tools
            .table(
              keep.map((i) => cols[i]!),
              cells.map((c) => keep.map((i) => c[i] ?? '')),
              { colWidths: widths, head: first },
            )
            .split('\n');
          bottom = lines.pop()!;
          out.write(`${(first ? lines : lines.slice(1)).join('\n')}\n`);
          count += rows.length;
        },
        end: () => out.write(count === 0 ? `${spec.empty}\n` : records ? '' : `${bottom}\n`),
      };
    }
  }
}
