// `--json <fields>`, `--jq` and `--template` (docs/scripting.md "Scripts: fields, jq and templates"):
// what a command prints as records, shaped for a script. A list is its records as one array, one
// record an object; a list printed as its pages arrive is shaped a part at a time (a page of
// `--all`, a claim of a batch), so that memory stays flat however long it is.
import { UsageError } from '../errors.js';
import type { JqProgram } from './jq.js';
import { jsonWriter, ndjsonWriter, type RowWriter, type Sink } from './json-writer.js';
import { screen } from './screen.js';
import type { Template } from './template.js';

export interface OutputShape {
  /** --json <fields>: the fields each record keeps, in the order given; a field a record lacks is null. */
  fields?: readonly string[];
  jq?: JqProgram;
  template?: Template;
  /** jq's results other than text are indented (stdout is a terminal), as gh does. */
  indent: boolean;
}

/** The record with only `fields`, in their order. */
function selectFields(record: unknown, fields: readonly string[]): Record<string, unknown> {
  const source = record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : {};
  const kept: Record<string, unknown> = {};
  for (const field of fields) {
    const value = Object.hasOwn(source, field) ? source[field] : null;
    // A field named __proto__ is a key like any other, not the object's prototype.
    Object.defineProperty(kept, field, { value: value === undefined ? null : value, enumerable: true, writable: true, configurable: true });
  }
  return kept;
}

/** The records a list holds, each with the fields asked for. */
export function shapedRecords(shape: OutputShape, records: readonly unknown[]): unknown[] {
  return shape.fields ? records.map((r) => selectFields(r, shape.fields!)) : [...records];
}

/**
 * The text of `doc` (the records as an array, or one record) through jq or the template; with
 * neither, undefined (the records are written as JSON by the caller).
 */
export function filteredText(shape: OutputShape, doc: unknown): string | undefined {
  if (shape.jq)
    return shape
      .jq(doc)
      .map((value) => jqResultText(value, shape.indent))
      .join('');
  if (shape.template) return shape.template(doc);
  return undefined;
}

/** How --jq prints a result, as gh does: a string as it is (jq -r), anything else as JSON, indented on a terminal. */
function jqResultText(value: unknown, indent: boolean): string {
  if (typeof value === 'string') return `${value}\n`;
  return `${JSON.stringify(value, null, indent ? 2 : undefined)}\n`;
}

/**
 * The records of a list, shaped, written as they arrive: each part as it comes (a page of `--all`, a
 * claim of a batch, or the whole list at once) goes through jq or the template as an array of its
 * records, so that a filter written for one page (`.[] | .id`) runs unchanged over all of them in
 * flat memory; an empty list goes through it once, as `[]`. With fields alone, the records selected,
 * as ndjson with -o ndjson, else as one JSON array (a shape is never given with csv or a table).
 */
export function shapedWriter<T>(shape: OutputShape, format: string, out: Sink, acted?: AfterAction): RowWriter<T> {
  const filtered = shape.jq !== undefined || shape.template !== undefined;
  if (!filtered) {
    const records = format === 'ndjson' ? ndjsonWriter<unknown>(out) : jsonWriter<unknown>(out);
    return { write: (rows) => records.write(shapedRecords(shape, rows)), end: () => records.end() };
  }
  let written = false;
  const part = (records: unknown[]) => {
    let text: string;
    try {
      text = filteredText(shape, records)!;
    } catch (err) {
      // Records of what was done: never lost to a filter (unshapedRecords); elsewhere the error stops the listing.
      if (!acted || !(err instanceof UsageError)) throw err;
      acted.stderr.write(unshapedText(records));
      acted.failed(err);
      return;
    }
    out.write(text);
  };
  return {
    write(rows) {
      if (rows.length === 0) return;
      written = true;
      part(shapedRecords(shape, rows));
    },
    end: () => (written ? undefined : part([])),
  };
}

/**
 * Records of something done (a release sent, a claim submitted, a run's approvals): a filter that
 * fails on them comes after the action, so it must neither hide them nor change what was recorded.
 * The records it could not shape go to `stderr` as JSON, unshaped (stdout keeps the filter's
 * results only), and `failed` hears the error; the caller ends with filterFailed's error.
 */
export interface AfterAction {
  stderr: Sink;
  failed(err: UsageError): void;
}

/** Records (or an answer) a filter failed on, as JSON for stderr. */
export function unshapedText(records: unknown): string {
  return `${screen(JSON.stringify(records, null, 2))}\n`;
}

/**
 * The one error of a filter that failed on what was done (`tpa api`'s answer, a release, a run's
 * approvals): a usage error (exit 2) with the filter's message, saying what happened (`done`: "the
 * request was sent (HTTP 200)") and that the unshaped records are above on stderr.
 */
export function filterFailed(err: UsageError, done: string): UsageError {
  return new UsageError(`${err.message}; ${done}: what the filter could not shape is above on stderr, unfiltered`);
}

/** One record (not a list), shaped: through jq or the template, else the fields selected as JSON. */
export function shapedRecordText(shape: OutputShape, format: string, record: unknown, acted?: AfterAction): string {
  const [doc] = shapedRecords(shape, [record]);
  try {
    return filteredText(shape, doc) ?? (format === 'ndjson' ? `${JSON.stringify(doc)}\n` : `${JSON.stringify(doc, null, 2)}\n`);
  } catch (err) {
    if (!acted || !(err instanceof UsageError)) throw err;
    acted.stderr.write(unshapedText(doc));
    acted.failed(err);
    return '';
  }
}
