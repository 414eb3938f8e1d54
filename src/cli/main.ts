// Entry point: answers --version and the static --help itself; anything else goes to the command
// tree (run.ts), which loads only then, with commander.
import { readFileSync } from 'node:fs';
import { profileInForce } from '../auth/config.js';
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
  const word = commandWord(args);
  if (word === undefined && (args.includes('-V') || args.includes('--version'))) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // The static help names "local" as the default profile: another default in force is said by commander's.
  if (
    args.length === 1 &&
    (args[0] === '--help' || args[0] === '-h') &&
    io.stdout.columns >= 80 &&
    !io.env.TPA_NO_STATIC_HELP &&
    profileInForce(io.env).name === 'local'
  ) {
    const help = staticHelp();
    if (help) {
      io.stdout.write(help);
      return 0;
    }
  }
  // The rest of tpa (dist/tpa.cjs in the build) loads only past the two answers above.
  const { runProgram } = await import('./run.js');
  return runProgram(args, io, word);
}

/** The root help rendered at build time for 80 columns, the width of help on any wider terminal too (scripts/build.mjs), if it is there. */
function staticHelp(): string | undefined {
  try {
    return readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
