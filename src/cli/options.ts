// Option value helpers shared by command handlers.
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { parseDuration } from '../domain/duration.js';
import { isoDateProblem, npiProblem, wholeNumberProblem } from '../domain/validation.js';
import { fieldsInvalid, UsageError, ValidationFailed } from '../errors.js';
import { shellQuote } from '../render/shell.js';
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
