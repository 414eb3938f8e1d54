// Option value helpers shared by command handlers.
import { statSync } from 'node:fs';
import { isoDateProblem, npiProblem, wholeNumberProblem } from '../domain/validation.js';
import { UsageError, ValidationFailed } from '../errors.js';
import type { Context } from './context.js';

/** Values of a repeatable list option, also accepting commas: --cpt 45378 43235 or --cpt 45378,43235. */
export function listValue(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** An optional whole-number option: undefined when absent; out of range is a validation error naming it. */
export function wholeNumberOption(name: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const problem = wholeNumberProblem(String(value), min, max);
  if (problem) throw new ValidationFailed(`${name}: ${problem}`);
  return Number(value);
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

/**
 * The ledger's period and provider filters of a command (--from, --to, --npi), each problem added
 * to `errors` with its option's name: `ledger list`, `fund run` and `settlement report` read them alike.
 */
export function periodFilters(
  opts: Record<string, unknown>,
  errors: { field: string; message: string }[],
): { start_date?: string; end_date?: string; provider_npi?: string } {
  const f: { start_date?: string; end_date?: string; provider_npi?: string } = {};
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  if (opts.from !== undefined) add('--from', isoDateProblem(String(opts.from))), (f.start_date = String(opts.from));
  if (opts.to !== undefined) add('--to', isoDateProblem(String(opts.to))), (f.end_date = String(opts.to));
  if (opts.npi !== undefined) add('--npi', npiProblem(String(opts.npi))), (f.provider_npi = String(opts.npi));
  return f;
}
