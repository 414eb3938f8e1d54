// The command tree's side of the entry point (main.ts): builds the program for the command word,
// runs it, and maps every error to its exit code once (docs/development.md "Errors carry their exit code").
// No stack trace unless --debug.
import { CommanderError } from 'commander';
import { EngineError } from '../engine/errors.js';
import { EXIT, fromEngineError, TpaError, UsageError } from '../errors.js';
import { ILL_FORMED, isWellFormedText, shownText } from '../domain/well-formed.js';
import { own } from '../render/screen.js';
import type { RunState } from './action.js';
import { wrapProse } from '../render/text.js';
import { screenedStream, terminalWidth, withStreams, type IO } from './io.js';
import { SHAPE_OPTIONS } from './command-word.js';
import { buildProgram } from './program.js';

export async function runProgram(args: string[], given: IO, word: string | undefined): Promise<number> {
  // Everything on stderr is for a person: messages quote notes, file names and the service's words.
  const io = withStreams(given, { stderr: screenedStream(given.stderr, true) });
  const state: RunState = { exitCode: 0 };
  try {
    illFormedArgument(args);
    illFormedPathVariable(io.env);
    const program = await buildProgram(io, state, word);
    await program.parseAsync(jsonBeforeCommand(args, word), { from: 'user' });
    return state.exitCode;
  } catch (err) {
    return report(err, io, state, args);
  }
}

/**
 * An argument that is not well-formed Unicode (a lone surrogate) is refused before any command runs
 * (docs/api.md "Text"), named by its place and the option it belongs to (`--opt value`,
 * `--opt=value`, `-Xvalue`), never by its text: any argument may hold a credential (a query's
 * token, a field, a header). So is one holding U+FFFD: Node decodes the bytes of an argument that are
 * not UTF-8 to U+FFFD before tpa sees them, so that character is the only trace of bytes that would
 * otherwise be stored and sent replaced (a U+FFFD typed on purpose is refused too: the two cannot be
 * told apart).
 */
function illFormedArgument(args: readonly string[]): void {
  const i = args.findIndex((a) => !isWellFormedText(a) || a.includes(REPLACEMENT));
  if (i === -1) return;
  const where = `argument ${i + 1}${optionOf(args[i]!, args[i - 1])}`;
  if (!isWellFormedText(args[i]!)) throw new UsageError(`${where}: ${ILL_FORMED}; nothing was done`);
  throw new UsageError(`${where}: holds U+FFFD, which is what bytes that are not UTF-8 become; nothing was sent`);
}

/** The option an argument belongs to, as an error may name it: its name only, never a value. */
function optionOf(arg: string, before: string | undefined): string {
  const glued = /^(--[a-z0-9-]+)=|^(-[a-zA-Z])./.exec(arg);
  if (glued) return ` (${glued[1] ?? glued[2]})`;
  if (before !== undefined && /^--?[a-zA-Z][a-z0-9-]*$/.test(before)) return ` (after ${before})`;
  return '';
}

/**
 * The variables that name where tpa reads and writes are held to the argument rule: Node decodes an
 * environment value's bytes that are not UTF-8 to U+FFFD, so `TPA_HOME=$'/tmp/x\xff'` would make
 * and use `/tmp/x\ufffd`, another directory than the one named. Refused before any command runs.
 */
export const PATH_VARIABLES = ['TPA_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'TPA_CA_FILE'] as const;

function illFormedPathVariable(env: NodeJS.ProcessEnv): void {
  for (const name of PATH_VARIABLES) {
    const value = env[name];
    if (value === undefined) continue;
    const shown = `${name}="${shownText(value)}"`;
    if (!isWellFormedText(value)) throw new UsageError(`${shown}: ${ILL_FORMED}; nothing was done`);
    if (value.includes(REPLACEMENT))
      throw new UsageError(
        `${shown}: holds U+FFFD, which is what bytes that are not UTF-8 become; it would name another path than the one set, so nothing was done`,
      );
  }
}

/** U+FFFD REPLACEMENT CHARACTER: what Node makes of argument bytes that are not UTF-8. */
const REPLACEMENT = '\ufffd';

/**
 * `tpa --json ledger list`: --json before the command takes no fields (they come after it: `tpa
 * ledger list --json id`), so the command's word is not read as one; --json alone lists the fields.
 */
function jsonBeforeCommand(args: string[], word: string | undefined): string[] {
  const i = word === undefined ? -1 : args.indexOf(word);
  return i > 0 && args[i - 1] === '--json' ? [...args.slice(0, i - 1), '--json=', ...args.slice(i)] : args;
}

/** Whether the line asks for JSON (-o json aside): --json, --json=<fields>, --jq or --template. */
function jsonAsked(args: string[]): boolean {
  return args.some((a) => SHAPE_OPTIONS.some((o) => a === o || a.startsWith(`${o}=`)));
}

function report(thrown: unknown, io: IO, state: RunState, args: string[]): number {
  // What the embedded engine refused, when a command called it directly, as the CLI's error of its kind.
  const err = thrown instanceof EngineError ? fromEngineError(thrown) : thrown;
  if (err instanceof CommanderError) {
    // Commander has already written its message (or the help) to the right stream.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.OK;
    // Help asked for (`tpa`, `tpa help`) is success; help shown for a missing subcommand is a usage error.
    if (err.code === 'commander.help') return args.length === 0 || args[0] === 'help' ? EXIT.OK : EXIT.USAGE;
    return EXIT.USAGE;
  }
  const ctx = state.ctx;
  const debug = ctx?.debug ?? args.includes('--debug');
  const json = ctx ? ctx.format !== 'table' : jsonAsked(args);
  const colorErr = ctx?.colorErr ?? false;
  const red = (s: string) => (colorErr ? `${own('31m')}${s}${own('39m')}` : s);
  const dim = (s: string) => (colorErr ? `${own('2m')}${s}${own('22m')}` : s);

  if (err instanceof TpaError) {
    // JSON mode: whatever body the service answered goes to stdout, the summary to stderr (docs/design.md "Output").
    // Not under --jq or --template: their stdout is the filter's results only.
    if (json && err.body !== undefined && !ctx?.stdoutIsDocument && !ctx?.shape?.jq && !ctx?.shape?.template)
      (ctx?.io ?? io).stdout.write(`${JSON.stringify(err.body, null, 2)}\n`);
    if (json) {
      const error = {
        exit_code: err.exitCode,
        status: err.status ?? null,
        code: err.code,
        message: err.message,
        details: err.details ?? null,
        hint: err.hint ?? null,
      };
      io.stderr.write(`${JSON.stringify({ error })}\n`);
    } else {
      // On a terminal, wrapped at spaces to its width, never mid-word (render/text.ts).
      const width = terminalWidth(io.stderr);
      io.stderr.write(`${wrapProse(`${red('error:')} ${err.message}`, width)}\n`);
      if (err.hint) io.stderr.write(`${dim(wrapProse(err.hint, width))}\n`);
    }
    if (debug && err.stack) io.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const e = err as Error;
  io.stderr.write(`${red('internal error:')} ${e?.message ?? String(err)}\n`);
  io.stderr.write(debug && e?.stack ? `${e.stack}\n` : dim('this is a bug in tpa; run again with --debug for details\n'));
  return EXIT.INTERNAL;
}
