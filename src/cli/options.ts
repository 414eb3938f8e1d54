// Option value helpers shared by command handlers.
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { parseDuration } from '../domain/duration.js';
import { addDays, isRelativePeriod, periodProblem, periodRange, rangeInstants, RELATIVE_PERIODS } from '../domain/period.js';
import { isoDateProblem, npiProblem, wholeNumberProblem } from '../domain/validation.js';
import { NOT_UTF8 } from '../domain/well-formed.js';
import { fieldsInvalid, UsageError, ValidationFailed } from '../errors.js';
import { count, counted } from '../render/format.js';
import { shellQuote } from '../render/shell.js';
import type { Context } from './context.js';
import { counter } from './status-line.js';
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

/** --all, the same words on every list that pages (docs/design.md "Output": the shapes). */
export const ALL_HELP =
  'follow the pages to the end: json is one array of every row (a page alone is {count, next, previous, results}), ndjson and csv a row a line';

/** --timeout of a command that can --wait (`claim submit`, `claim poll`, `settlement show`); its default is client/polling.ts's. */
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
  const { NotUtf8Text, readFileBounded, readStreamBounded } = await import('./bounded-input.js');
  // Bytes that are not UTF-8 are refused with their line, never read as U+FFFD (docs/api.md "Text").
  const notUtf8 = (where: string, err: unknown) =>
    err instanceof NotUtf8Text ? new ValidationFailed(`${where}:${err.line}: the ${what} is ${NOT_UTF8}`) : err;
  const tooLarge = (where: string) => new ValidationFailed(`${where}: ${what}${where === 'stdin' ? '' : ' file'} is larger than ${maxBytes / 1024 / 1024} MiB`);
  if (source === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError(`reading the ${what} from stdin, but stdin is a terminal: pipe a file in or name it`);
    const text = await readStreamBounded(ctx.io.stdinStream(), maxBytes).catch((err: unknown) => {
      throw notUtf8('stdin', err);
    });
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
    if (err instanceof NotUtf8Text) throw notUtf8(source, err);
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${source}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
}

/** The options of a command's period and provider: --from, --to or --period, and --npi. */
export interface PeriodOptions {
  from?: string;
  to?: string;
  period?: string;
  npi?: string;
}

/** The ledger's filters that the period options set. */
export interface PeriodFilters {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
}

/** --period of the commands that take a period (docs/periods.md "Periods"): completions offer the names. */
export const periodSpec = option.text(
  '--period <period>',
  'a named period instead of --from/--to: today, yesterday, this-week, last-week, this-month, last-month, this-quarter, last-quarter, this-year, last-year, YYYY-MM-DD, YYYY-MM, YYYY-Www, YYYY-Qn or YYYY (UTC days, ISO weeks)',
  { values: RELATIVE_PERIODS },
);

export const PERIOD_BY = ['service', 'funded', 'settled'] as const;
export type PeriodBy = (typeof PERIOD_BY)[number];

/** --by: which date of an encounter the period counts. */
export const bySpec = option.text(
  '--by <date>',
  "which date the period counts: service (the default, filtered by the service), funded or settled (read from each entry's status history)",
  { values: PERIOD_BY },
);

/**
 * --lookback: how far before a period the service dates of its encounters are read. By default all
 * of them: a figure for a period is complete (docs/periods.md "How far back"); a number of days is
 * the faster partial read, and what it left out is said in every format.
 */
export const lookbackSpec = option.text(
  '--lookback <days>',
  'a faster, partial read: only the service dates this many days before the period (default: all of them, complete); what is left out is said',
);

/**
 * The ledger's period and provider filters of a command (--from, --to or --period, --npi), each
 * problem added to `errors` with its option's name: `ledger list`, `fund run` and `settlement
 * report` read them alike. A period that follows today (--period last-month) gets its dates from
 * withPeriodDates, once the service has said what day it is.
 */
export function periodFilters(opts: PeriodOptions, errors: { field: string; message: string }[]): PeriodFilters {
  const f: PeriodFilters = {};
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  if (opts.period !== undefined && (opts.from !== undefined || opts.to !== undefined))
    throw new UsageError('--period names the dates itself: give either --period or --from/--to, not both');
  if (opts.period !== undefined) {
    const problem = periodProblem(opts.period);
    add('--period', problem);
    if (!problem && !isRelativePeriod(opts.period)) {
      const range = periodRange(opts.period, '');
      f.start_date = range.from;
      f.end_date = range.to;
    }
  }
  if (opts.from !== undefined) add('--from', isoDateProblem(opts.from)), (f.start_date = opts.from);
  if (opts.to !== undefined) add('--to', isoDateProblem(opts.to)), (f.end_date = opts.to);
  if (opts.npi !== undefined) add('--npi', npiProblem(opts.npi)), (f.provider_npi = opts.npi);
  return f;
}

/** The filters with the dates of a --period that follows today, today being the service's (one health request); as they are otherwise. */
export async function withPeriodDates<F extends PeriodFilters>(ctx: Context, opts: PeriodOptions, f: F): Promise<F> {
  if (opts.period === undefined || !isRelativePeriod(opts.period)) return f;
  const { serviceNow } = await import('../client/activity.js');
  const range = periodRange(opts.period, (await serviceNow(await ctx.client())).slice(0, 10));
  return { ...f, start_date: range.from, end_date: range.to };
}

/** periodFilters where the period and provider are the only filters to check: their problems are one error (exit 2). */
export async function checkedPeriodFilters(ctx: Context, opts: PeriodOptions): Promise<PeriodFilters> {
  const errors: { field: string; message: string }[] = [];
  const f = periodFilters(opts, errors);
  if (errors.length > 0) throw fieldsInvalid(errors);
  return withPeriodDates(ctx, opts, f);
}

/** --lookback in days, or 'all'; a problem is a usage error naming it. */
export function lookbackDays(value: string | undefined): number | 'all' {
  if (value === undefined) return 'all';
  if (value.trim().toLowerCase() === 'all') return 'all';
  const text = value.trim().replace(/d$/i, '');
  const problem = wholeNumberProblem(text, 0, 36_600);
  if (problem) throw new ValidationFailed(`--lookback: ${problem} (a number of days, or "all")`);
  return Number(text);
}

/** What a period counts other than the service date: the filters widened to the service dates to read, and the events to keep. */
export interface CountedPeriod {
  /** The ledger's filters: service dates from the period's first day minus the lookback to its last day. */
  filters: PeriodFilters;
  kind: 'funded' | 'settled';
  /** The period's instants, its first day's midnight (UTC) to the midnight after its last. */
  span: { startMs: number; endMs: number };
}

/**
 * --by of a command: undefined for service dates (the ledger's own filter), else the period counted
 * by the date funded or settled. Such a period needs its dates (--period, or --from and/or --to).
 */
export function countedPeriod(by: string | undefined, lookback: string | undefined, f: PeriodFilters): CountedPeriod | undefined {
  const which = (by ?? 'service').toLowerCase();
  if (!(PERIOD_BY as readonly string[]).includes(which)) throw new ValidationFailed(`--by: must be one of ${PERIOD_BY.join(', ')}`);
  if (which === 'service') {
    if (lookback !== undefined) throw new UsageError('--lookback goes with --by funded or --by settled: a period of service dates is read as it is');
    return undefined;
  }
  if (f.start_date === undefined && f.end_date === undefined)
    throw new UsageError(`--by ${which} counts the dates of a period: give --period, or --from and --to`);
  const days = lookbackDays(lookback);
  const startMs = f.start_date === undefined ? Number.NEGATIVE_INFINITY : rangeInstants({ from: f.start_date, to: f.start_date }).startMs;
  const endMs = f.end_date === undefined ? Number.POSITIVE_INFINITY : rangeInstants({ from: f.end_date, to: f.end_date }).endMs;
  const filters: PeriodFilters = { ...f };
  if (f.start_date === undefined || days === 'all') delete filters.start_date;
  else filters.start_date = addDays(f.start_date, -days);
  return { filters, kind: which as 'funded' | 'settled', span: { startMs, endMs } };
}

/**
 * The progress of reading a period's service dates (client/activity.ts): the one progress line on
 * stderr, redrawn while pages arrive with its rate and time left, and cleared by `done()`.
 */
export function scanProgress(ctx: Context): { onProgress: (p: { read: number; total: number; waitingMs?: number }) => void; done: () => void } {
  const reading = counter(ctx.status, 'reading the ledger', 'entries');
  return { onProgress: (p) => reading(p.read, p.total, readWait(p)), done: () => ctx.status.clear() };
}

/**
 * The wait of a read held by the rate limit, for the progress line (counter's extra): a ledger
 * page's (how long, `waitingMs`) or settlement-reads.ts's (until when, `waitingUntilMs`).
 */
export function readWait(p: { waitingMs?: number; waitingUntilMs?: number }): { wait: { untilMs: number; text: string } } | undefined {
  const untilMs = p.waitingUntilMs ?? (p.waitingMs === undefined ? undefined : Date.now() + p.waitingMs);
  return untilMs === undefined ? undefined : { wait: { untilMs, text: 'rate limited, resuming in' } };
}

/** What a period's read covered: every service date up to its last day, or (--lookback) a part of them. */
export interface ScanInfo {
  service_from: string | null;
  service_to: string | null;
  lookback_days: number | 'all';
  entries_read: number;
  /** Entries of service dates before service_from, not read (0 for a complete read). */
  entries_not_read: number;
  complete: boolean;
}

/**
 * The scan of a period read (docs/periods.md "How far back"): a partial one (--lookback) counts
 * what it left out with one request, and says it on stderr whatever the format, as a warning.
 */
export async function scanOf(
  ctx: Context,
  serviceFrom: string | undefined,
  serviceTo: string | undefined,
  lookback: number | 'all',
  entriesRead: number,
  filters: { provider_npi?: string | undefined; status?: string | undefined },
): Promise<ScanInfo> {
  const { entriesNotRead } = await import('../client/activity.js');
  const notRead = await entriesNotRead(await ctx.client(), serviceFrom, filters);
  if (notRead > 0)
    ctx.note(
      `warning: partial read (--lookback ${lookback}): ${count(notRead)} ${notRead === 1 ? 'entry' : 'entries'} of service dates before ${serviceFrom} not read; what happened to them in this period is not counted (without --lookback, every one is read)`,
    );
  return {
    service_from: serviceFrom ?? null,
    service_to: serviceTo ?? null,
    lookback_days: lookback,
    entries_read: entriesRead,
    entries_not_read: notRead,
    complete: notRead === 0,
  };
}

/** The table's "Read:" line of a scan. */
export function scanLine(scan: ScanInfo): string {
  const to = scan.service_to ?? 'today';
  const dates = scan.service_from === null ? `every service date up to ${to}` : `service dates ${scan.service_from} to ${to}`;
  return scan.complete
    ? `Read: ${counted(scan.entries_read, 'entry', 'entries')}, ${dates} (complete)`
    : `Read: ${counted(scan.entries_read, 'entry', 'entries')} of ${dates} (--lookback ${scan.lookback_days}); PARTIAL: ${counted(scan.entries_not_read, 'entry', 'entries')} of earlier service dates not read`;
}

/** The period and provider filters of the ledger as the options that set them, for a command to suggest (periodFilters the other way). */
export function periodArgs(f: PeriodFilters): string[] {
  return [
    ...(f.start_date !== undefined ? ['--from', f.start_date] : []),
    ...(f.end_date !== undefined ? ['--to', f.end_date] : []),
    ...(f.provider_npi !== undefined ? ['--npi', f.provider_npi] : []),
  ];
}

/**
 * The options this command was given on its command line (its selection: --from, --to, --npi,
 * --status, …), as argv words in the order they are declared, but for the attribute names in
 * `except`: a suggested command reproduces what the user chose. Global options (-p, -o, --yes) are
 * not the command's own; `suggestCommand` adds the profile.
 */
export function givenArgs(cmd: Pick<Command, 'options' | 'getOptionValue' | 'getOptionValueSource'>, except: readonly string[] = []): string[] {
  const words: string[] = [];
  for (const o of cmd.options) {
    const key = o.attributeName();
    if (except.includes(key) || cmd.getOptionValueSource(key) !== 'cli' || o.long === undefined) continue;
    const value: unknown = cmd.getOptionValue(key);
    if (typeof value === 'boolean') words.push(o.long);
    else if (Array.isArray(value)) for (const v of value) words.push(o.long, String(v));
    else if (value !== undefined) words.push(o.long, String(value));
  }
  return words;
}

/** A word of a suggested command that the user fills in (`<submission_id>`), shown as it is. */
export interface Placeholder {
  placeholder: string;
}

/**
 * A tpa command for the user to run next, as one line for a POSIX shell: `tpa` and `words`, then
 * `-p <profile>` when a profile was named (--profile or TPA_PROFILE), since the command must act
 * on the same service. Values are quoted where the shell needs it; false and undefined words are
 * left out.
 */
export function suggestCommand(ctx: Pick<Context, 'profileName' | 'profileExplicit'>, words: readonly (string | Placeholder | false | undefined)[]): string {
  const all = [...words, ...(ctx.profileExplicit ? ['-p', ctx.profileName] : [])];
  return ['tpa', ...all.flatMap((w) => (typeof w === 'string' ? [shellQuote(w)] : typeof w === 'object' ? [`<${w.placeholder}>`] : []))].join(' ');
}

/**
 * The output options a suggested command repeats (docs/scripting.md "Scripts: fields, jq and
 * templates"): --json, --jq or --template as given (with -o ndjson when chosen), else -o when chosen.
 */
export function outputArgs(ctx: Pick<Context, 'format' | 'formatChosen' | 'shapeArgs'>): string[] {
  const shaped = ctx.shapeArgs ?? [];
  if (shaped.length > 0) return [...shaped, ...(ctx.format === 'ndjson' ? ['-o', 'ndjson'] : [])];
  return ctx.formatChosen && ctx.format !== 'table' ? ['-o', ctx.format] : [];
}

/** What a page hint says was shown: on a terminal's table the rows, else that the others are not in this output. */
export function pageShown(ctx: Pick<Context, 'format' | 'shapeArgs'>, shown: string, rows: string): string {
  if (ctx.format === 'table' && (ctx.shapeArgs ?? []).length === 0) return shown;
  const output = (ctx.shapeArgs ?? []).length > 0 ? 'output' : ctx.format.toUpperCase();
  return `${shown} ${rows}: one page, the others are not in this ${output}`;
}

/**
 * The hint of a list with more pages, printed after it: what is shown, then the command for the next
 * page and the one for all of them, each on a line of its own (a command is never wrapped).
 */
export function pageHint(shown: string, commands: { next: string; all: string }): string {
  return `showing ${shown}\n  next page:   ${commands.next}\n  all of them: ${commands.all}`;
}
