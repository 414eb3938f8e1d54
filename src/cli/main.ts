// Entry point: runs the program and maps every error to its exit code once (STYLE.md "Errors
// carry their exit code"). No stack trace unless --debug.
// commander and the command tree load only past --version and the static --help.
import { readFileSync } from 'node:fs';
import type { RunState } from './action.js';
import { commandWord, unsupportedNode, VERSION } from './command-word.js';
import { processIO, type IO } from './io.js';

export async function main(argv: string[]): Promise<void> {
  // Before anything loads SQLite's binding, which crashes the process on an older Node.
  const old = unsupportedNode();
  if (old) {
    process.stderr.write(`error: ${old}\n`);
    process.exit(2);
  }
  const code = await run(argv.slice(2), processIO());
  // Output is written synchronously, so nothing is lost by exiting now; and a native call that
  // never returned (a hung keychain, given up after its time limit) must not keep tpa running.
  process.exit(code);
}

export async function run(args: string[], io: IO): Promise<number> {
  const state: RunState = { exitCode: 0 };
  const word = commandWord(args);
  if (word === undefined && (args.includes('-V') || args.includes('--version'))) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h') && io.stdout.columns === 80 && !io.env.TPA_NO_STATIC_HELP) {
    const help = staticHelp();
    if (help) {
      io.stdout.write(help);
      return 0;
    }
  }
  const { buildProgram } = await import('./program.js');
  const program = buildProgram(io, state, word);
  try {
    await program.parseAsync(args, { from: 'user' });
    return state.exitCode;
  } catch (err) {
    return report(err, io, state, args);
  }
}

async function report(err: unknown, io: IO, state: RunState, args: string[]): Promise<number> {
  // Loaded here, not at start-up: the error classes are shared with the engine's chunks.
  const { EXIT, TpaError } = await import('../errors.js');
  const { CommanderError } = await import('commander');
  if (err instanceof CommanderError) {
    // Commander has already written its message (or the help) to the right stream.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.OK;
    // Help asked for (`tpa`, `tpa help`) is success; help shown for a missing subcommand is a usage error.
    if (err.code === 'commander.help') return args.length === 0 || args[0] === 'help' ? EXIT.OK : EXIT.USAGE;
    return EXIT.USAGE;
  }
  const ctx = state.ctx;
  const debug = ctx?.debug ?? args.includes('--debug');
  const json = ctx ? ctx.format !== 'table' : args.includes('--json');
  const colorErr = ctx?.colorErr ?? false;
  const red = (s: string) => (colorErr ? `\u001b[31m${s}\u001b[39m` : s);
  const dim = (s: string) => (colorErr ? `\u001b[2m${s}\u001b[22m` : s);

  if (err instanceof TpaError) {
    // JSON mode: whatever body the service answered goes to stdout, the summary to stderr (DESIGN.md section 4).
    if (json && err.body !== undefined) io.stdout.write(`${JSON.stringify(err.body, null, 2)}\n`);
    if (json) {
      const error = { exit_code: err.exitCode, status: err.status ?? null, code: err.code, message: err.message, details: err.details ?? null, hint: err.hint ?? null };
      io.stderr.write(`${JSON.stringify({ error })}\n`);
    } else {
      io.stderr.write(`${red('error:')} ${err.message}\n`);
      if (err.hint) io.stderr.write(`${dim(err.hint)}\n`);
    }
    if (debug && err.stack) io.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const e = err as Error;
  io.stderr.write(`${red('internal error:')} ${e?.message ?? String(err)}\n`);
  io.stderr.write(debug && e?.stack ? `${e.stack}\n` : dim('this is a bug in tpa; run again with --debug for details\n'));
  return EXIT.INTERNAL;
}

/** The root help rendered at build time for 80 columns (scripts/build.mjs), if it is there. */
function staticHelp(): string | undefined {
  try {
    return readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
