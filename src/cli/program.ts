// The one place that assembles the command tree (STYLE.md), so that help and completions derive from it.
import { Command, Option } from 'commander';
import { actionFactory, type RunState } from './action.js';
import { registerApi } from './commands/api.js';
import { registerClaim } from './commands/claim.js';
import { registerDemo } from './commands/demo.js';
import { registerLocal } from './commands/local.js';
import { registerLookup } from './commands/lookup.js';
import { OUTPUT_FORMATS } from './context.js';
import type { IO } from './io.js';

export const VERSION = '0.1.0';

export function buildProgram(io: IO, state: RunState): Command {
  const program = new Command('tpa')
    .description('Work with a health plan\'s direct contracts, claims, fund releases and ledger, from a terminal or a script.\nWith no setup, every command runs on the embedded engine (profile "local"); try `tpa demo`.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('-p, --profile <name>', 'profile to use (env TPA_PROFILE; default "local")'))
    .addOption(new Option('-o, --output <format>', 'output format (env TPA_OUTPUT; default table on a terminal, json otherwise)').choices(OUTPUT_FORMATS))
    .option('--json', 'same as --output json')
    .option('--no-color', 'no colours (also NO_COLOR, and whenever stdout is not a terminal)')
    .option('--debug', 'log each request and response to stderr, credentials redacted')
    .option('-y, --yes', 'confirm without asking (required for irreversible actions when stdin is not a terminal)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 2 usage or validation, 3 not found, 4 conflict or wrong state, 5 auth,
            6 rate limited, 7 not finished yet, 8 network or server, 1 internal error

Examples:
  $ tpa demo
  $ tpa local fixtures
  $ tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378
  $ tpa claim template > claim.json && tpa claim submit claim.json --wait
`,
    );
  const act = actionFactory(io, state);
  registerLookup(program, act);
  registerClaim(program, act);
  registerLocal(program, act);
  registerApi(program, act);
  registerDemo(program, act);
  // Subcommands inherit exit override and output routing, so usage errors everywhere exit 2 on stderr.
  const inherit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) }).showSuggestionAfterError(true);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
