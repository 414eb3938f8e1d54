// The one place that assembles the command tree (docs/development.md "One command, one module"), so that help and completions derive from it.
import { Command, Help, Option } from 'commander';
import { actionFactory, type RunState } from './action.js';
import { registerApi } from './commands/api.js';
import { registerAuth, registerHealth } from './commands/auth.js';
import { registerClaim } from './commands/claim.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDemo } from './commands/demo.js';
import { registerFund } from './commands/fund.js';
import { registerLedger } from './commands/ledger.js';
import { registerLocal } from './commands/local.js';
import { registerLookup } from './commands/lookup.js';
import { registerRatesheet } from './commands/ratesheet.js';
import { registerSettlement } from './commands/settlement.js';
import { OUTPUT_FORMATS } from './formats.js';
import type { IO } from './io.js';

const VERSION_OPTION = new Option('-V, --version', 'print the version');

const NOUNS = [
  { name: 'lookup', description: 'find contracts: blind (does one exist?) then full (pricing and terms)', register: registerLookup },
  { name: 'claim', description: 'FHIR R4 claims: make a template, validate, submit, poll for the adjudication', register: registerClaim },
  { name: 'fund', description: 'approve the release of funds for an adjudicated encounter (irreversible; asks first)', register: registerFund },
  { name: 'settlement', description: 'transfer status, per-provider payouts and AEOB reconciliation', register: registerSettlement },
  { name: 'ledger', description: "the encounter ledger: list with filters, or one encounter's full history", register: registerLedger },
  {
    name: 'ratesheet',
    description: 'rate schedules of the contract builder: catalog, schedule, preview, finalize, CSV import and export',
    register: registerRatesheet,
  },
  { name: 'auth', description: 'credentials for the service: log in (API key), list and rotate keys', register: registerAuth },
  { name: 'config', description: 'profiles and settings (config.json in the config dir; never a key)', register: registerConfig },
  {
    name: 'local',
    description: 'the embedded engine: fixtures, reset, clock, sandbox scenarios (data dir: TPA_HOME or $XDG_DATA_HOME/tpa)',
    register: registerLocal,
  },
];

/** Builds the command tree: `full`, or only the subcommands of the noun named (see commandWord). */
export function buildProgram(io: IO, state: RunState, tree: 'full' | string | undefined = 'full'): Command {
  // Help and errors go through io, and commander asks it (not process.stdout) about the terminal.
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    getOutHelpWidth: () => io.stdout.columns,
    getErrHelpWidth: () => io.stderr.columns,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
  const program = new Command('tpa')
    .description(
      'Work with a health plan\'s direct contracts, claims, fund releases and ledger, from a terminal or a script.\nWith no setup, every command runs on the embedded engine (profile "local"); try `tpa demo`.',
    )
    // -V/--version is handled by main() before parsing, not as a commander option: a root option is
    // recognised anywhere on the line, and `ratesheet load-catalog --version v1.0` needs the word.
    .configureHelp({ visibleOptions: (cmd) => [...(cmd.parent ? [] : [VERSION_OPTION]), ...new Help().visibleOptions(cmd)] })
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('-p, --profile <name>', 'profile to use (default "local")').env('TPA_PROFILE'))
    .addOption(new Option('-o, --output <format>', 'output format (default table on a terminal, json otherwise)').choices(OUTPUT_FORMATS).env('TPA_OUTPUT'))
    .option('--json', 'same as --output json')
    .option('--no-color', 'no colours (also NO_COLOR, and whenever stdout is not a terminal)')
    .option('--debug', 'log each request and response to stderr, credentials redacted')
    .addOption(new Option('--ca-file <file>', 'an extra CA certificate (PEM) to trust for HTTPS, for any profile').env('TPA_CA_FILE'))
    .option('-y, --yes', 'confirm without asking (required for irreversible actions when stdin is not a terminal)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(output)
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
  // Nouns get their subcommands only when they are needed (the one named on the command line, or
  // all for a full tree): building every option object costs start-up time that --help never uses.
  for (const noun of NOUNS) {
    const cmd = program.command(noun.name).description(noun.description);
    // Completions are generated from the whole tree.
    if (tree === 'full' || tree === 'completion' || tree === noun.name) noun.register(cmd, act);
  }
  registerApi(program, act);
  registerHealth(program, act);
  registerDemo(program, act);
  registerCompletion(program, act);
  // Subcommands inherit exit override and output routing, so usage errors everywhere exit 2 on stderr.
  const inherit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(output).showSuggestionAfterError(true);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
