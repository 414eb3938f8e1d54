// Option value helpers shared by command handlers.
import { statSync } from 'node:fs';
import { parseDuration } from '../domain/duration.js';
import { isoDateProblem, npiProblem, wholeNumberProblem } from '../domain/validation.js';
import { fieldsInvalid, UsageError, ValidationFailed } from '../errors.js';
import type { Context } from './context.js';
import { option } from './verb.js';

/** Values of a repeatable list option, also accepting commas: --cpt 45378 43235 or --cpt 45378,43235. */
export function listValue(value: string | readonly string[] | undefined): string[] {
  const values = typeof value === 'string' ? [value] : (value ?? []);
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** An optional whole-number option: undefined when absent; out of range is a validation error naming it. */
export function wholeNumberOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const problem = wholeNumberProblem(value, min, max);
  if (problem) throw new ValidationFailed(`${name}: ${problem}`);
  return Number(value);
}

/** --timeout of a command that can --wait (`claim submit`, `claim poll`, `settlement show`); its default is client/polling.ts's. */
/** --all, the same words on every list that pages (docs/design.md "Output": the shapes). */
export const ALL_HELP =
  'follow the pages to the end: json is one array of every row (a page alone is {count, next, previous, results}), ndjson and csv a row a line';

export const waitTimeoutSpec = option.text('--timeout <duration>', 'give up waiting after this long (default 10m); exit 7');

/** --timeout in milliseconds, or undefined when not given; not a duration is a usage error. */
export function timeoutOption(timeout: string | undefined): number | undefined {
  if (timeout === undefined) return undefined;
  const ms = parseDuration(timeout);
  if (ms === undefined) throw new UsageError(`--timeout: "${timeout}" is not a duration such as 30s, 10m or 1h`);
  return ms;
}

/** The most a file or stdin named on the command line may hold when the command names no bound of its own. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * The text of a file named on the command line, or of stdin for `-`. A file that is missing, a
 * directory, unreadable or over `maxBytes` is a usage error naming it; so is `-` on a terminal.
 * The bound is kept while reading: a device, a FIFO or a pipe has no size to trust.
 */
export async function readInput(ctx: Context, source: string, what: string, maxBytes = MAX_INPUT_BYTES): Promise<string> {
  const { readFileBounded, readStreamBounded } = await import('./bounded-input.js');
  const tooLarge = (where: string) => new ValidationFailed(`${where}: ${what}${where === 'stdin' ? '' : ' file'} is larger than ${maxBytes / 1024 / 1024} MiB`);
  if (source === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError(`reading the ${what} from stdin, but stdin is a terminal: pipe a file in or name it`);
    const text = await readStreamBounded(ctx.io.stdinStream(), maxBytes);
    if (text === undefined) throw tooLarge('stdin');
    return text;
  }
  try {
    const info = statSync(source);
    if (info.isDirectory()) throw new UsageError(`${source} is a directory, not a ${what} file`);
    const text = info.size > maxBytes ? undefined : readFileBounded(source, maxBytes);
    if (text === undefined) throw tooLarge(source);
    return text;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ValidationFailed) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${source}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
}

/** The options of a command's period and provider: --from, --to, --npi. */
export interface PeriodOptions {
  from?: string;
  to?: string;
  npi?: string;
}

/** The ledger's filters that the period options set. */
export interface PeriodFilters {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
}

/**
 * The ledger's period and provider filters of a command (--from, --to, --npi), each problem added
 * to `errors` with its option's name: `ledger list`, `fund run` and `settlement report` read them alike.
 */
export function periodFilters(opts: PeriodOptions, errors: { field: string; message: string }[]): PeriodFilters {
  const f: PeriodFilters = {};
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  if (opts.from !== undefined) add('--from', isoDateProblem(opts.from)), (f.start_date = opts.from);
  if (opts.to !== undefined) add('--to', isoDateProblem(opts.to)), (f.end_date = opts.to);
  if (opts.npi !== undefined) add('--npi', npiProblem(opts.npi)), (f.provider_npi = opts.npi);
  return f;
}

/** periodFilters where the period and provider are the only filters to check: their problems are one error (exit 2). */
export function checkedPeriodFilters(opts: PeriodOptions): PeriodFilters {
  const errors: { field: string; message: string }[] = [];
  const f = periodFilters(opts, errors);
  if (errors.length > 0) throw fieldsInvalid(errors);
  return f;
}
