// The one place that assembles the command tree (docs/development.md "One command, one module"), so that help and completions derive from it.
import { Command, Help, Option, type OutputConfiguration } from 'commander';
import { addEntry, examples, helpWidth, once, type RunState } from './action.js';
import type { Entry } from './verb.js';
import { OUTPUT_FORMATS } from './formats.js';
import { registerHelp } from './commands/help/index.js';
import { terminalWidth, type IO } from './io.js';
import { fill, wrapProse, wrapWords } from '../render/text.js';
import { profileInForce } from '../auth/config.js';

const VERSION_OPTION = new Option('-V, --version', 'print the version');

/**
 * The commands of the root, in the order `tpa --help` lists them. A noun's module (its folder's
 * index.ts) exports its verbs; a root verb's exports the one verb. Each loads only when the command
 * word names it or the whole tree is built (completions, man pages): building every option object
 * costs start-up time that --help never uses.
 */
export interface Root {
  kind: 'noun' | 'verb';
  name: string;
  description: string;
  load: () => Promise<{ verbs: readonly Entry[] }>;
}

export const ROOT: Root[] = [
  {
    kind: 'noun',
    name: 'lookup',
    description: 'find contracts: blind (does one exist?) then full (pricing and terms)',
    load: () => import('./commands/lookup/index.js'),
  },
  {
    kind: 'noun',
    name: 'claim',
    description: 'FHIR R4 claims: make a template, validate, submit, poll for the adjudication',
    load: () => import('./commands/claim/index.js'),
  },
  {
    kind: 'noun',
    name: 'fund',
    description: 'approve the release of funds for an adjudicated encounter (irreversible; asks first)',
    load: () => import('./commands/fund/index.js'),
  },
  {
    kind: 'noun',
    name: 'settlement',
    description: 'transfer status, per-provider payouts and AEOB reconciliation',
    load: () => import('./commands/settlement/index.js'),
  },
  {
    kind: 'noun',
    name: 'ledger',
    description: "the encounter ledger: list with filters, or one encounter's full history",
    load: () => import('./commands/ledger/index.js'),
  },
  {
    kind: 'verb',
    name: 'activity',
    description: 'what happened: claims, approvals and transfers, counted by kind and listed',
    load: () => import('./commands/activity/index.js'),
  },
  {
    kind: 'noun',
    name: 'jobs',
    description: 'journals of claim batches and payment runs: what each holds, its failed claims',
    load: () => import('./commands/jobs/index.js'),
  },
  {
    kind: 'noun',
    name: 'ratesheet',
    description: 'rate schedules of the contract builder: catalog, schedule, preview, finalize, CSV import and export',
    load: () => import('./commands/ratesheet/index.js'),
  },
  {
    kind: 'noun',
    name: 'auth',
    description: 'credentials for the service: log in (API key), list and rotate keys',
    load: () => import('./commands/auth/index.js'),
  },
  {
    kind: 'noun',
    name: 'config',
    description: 'profiles and settings (config.json in the config dir; never a key)',
    load: () => import('./commands/config/index.js'),
  },
  {
    kind: 'noun',
    name: 'local',
    description: 'the embedded engine: fixtures, reset, clock, sandbox scenarios (data dir: TPA_HOME or $XDG_DATA_HOME/tpa)',
    load: () => import('./commands/local/index.js'),
  },
  {
    kind: 'verb',
    name: 'api',
    description: 'send a raw request to a path as served and print the response body; exits by the status code',
    load: () => import('./commands/api/index.js'),
  },
  {
    kind: 'verb',
    name: 'health',
    description: "check the service and the credentials: environment, key, scopes, the service's time",
    load: () => import('./commands/health/index.js'),
  },
  {
    kind: 'verb',
    name: 'demo',
    description: 'the whole lifecycle on a scratch embedded engine, narrated step by step',
    load: () => import('./commands/demo/index.js'),
  },
  {
    kind: 'verb',
    name: 'completion',
    description: 'print the shell completion script (commands, options and their values)',
    load: () => import('./commands/completion/index.js'),
  },
];

/** The text of -p in the tree (completions show it); help replaces it with profileHelp. */
const PROFILE_HELP = "profile to use (default: the config's default_profile, else local)";

/** -p in help: the default in force, and where it comes from. */
function profileHelp(env: NodeJS.ProcessEnv): string {
  return `profile to use ${profileDefault(env)}`;
}

/** The default profile in force, as help names it: `(default "local")`, `(default "prod", from config.json)`. */
function profileDefault(env: NodeJS.ProcessEnv): string {
  const { name, from } = profileInForce(env);
  return from === 'built-in' ? '(default "local")' : `(default "${name}", from ${from === 'config' ? 'config.json' : 'TPA_PROFILE'})`;
}

/** The value of --json as commander hands it over: the fields of every --json given, comma-separated (alone: true). */
export function jsonFields(value: string, previous: unknown): string[] {
  const before = Array.isArray(previous) ? (previous as string[]) : [];
  return [
    ...before,
    ...value
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== ''),
  ];
}

/** Builds the command tree: `full`, or only the subcommands of the noun named (see commandWord). */
export async function buildProgram(io: IO, state: RunState, tree: 'full' | string | undefined = 'full'): Promise<Command> {
  const output = outputOf(io);
  const program = rootCommand(io, output);
  examples(
    program,
    [
      'tpa demo',
      'tpa local fixtures',
      'tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378',
      'tpa claim template > claim.json && tpa claim submit claim.json --wait',
      'tpa ledger list --json encounter_number,status',
      `tpa ledger list --all --jq '.[] | select(.status == "RECONCILED") | .encounter_number'`,
      "tpa ledger list --template '{{range .}}{{tablerow .encounter_number .status}}{{end}}'",
    ],
    io,
  );
  await addRootCommands(program, io, state, tree);
  registerHelp(program, io);
  // Subcommands inherit exit override and output routing, so usage errors everywhere exit 2 on stderr,
  // each followed by the command's usage line and where its help is.
  program.showHelpAfterError(afterError(program));
  const inherit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(output).showSuggestionAfterError(true).showHelpAfterError(afterError(sub));
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** Where commander writes: help and errors go through io, and commander asks it (not process.stdout) about the terminal. */
function outputOf(io: IO): OutputConfiguration {
  // Help and errors go through io, and commander asks it (not process.stdout) about the terminal.
  return {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    getOutHasColors: () => false,
    getErrHasColors: () => false,
    // commander's own errors too are wrapped at spaces to the terminal (render/text.ts), as every message is.
    outputError: (text: string, write: (text: string) => void) => write(wrapProse(text, terminalWidth(io.stderr))),
  };
}

/** tpa itself: its description, help layout, global options and exit codes. */
function rootCommand(io: IO, output: OutputConfiguration): Command {
  return (
    new Command('tpa')
      .description(
        'Work with a health plan\'s direct contracts, claims, fund releases and ledger, from a terminal or a script.\nWith no setup, every command runs on the embedded engine (profile "local"); try `tpa demo`.',
      )
      // -V/--version is handled by main() before parsing, not as a commander option: a root option is
      // recognised anywhere on the line, and `ratesheet load-catalog --version v1.0` needs the word.
      .configureHelp({
        visibleOptions: (cmd) => [...(cmd.parent ? [] : [VERSION_OPTION]), ...new Help().visibleOptions(cmd)],
        // The options of tpa itself are typed after any command too (`tpa ledger list -o csv`): a
        // command's help names them in a few lines at its end, as gh lists its inherited flags, and
        // `tpa help global-options` (or `tpa --help`) describes each.
        showGlobalOptions: false,
        formatHelp(this: Help, cmd: Command, helper: Help) {
          const own = Help.prototype.formatHelp.call(this, cmd, helper);
          return cmd.parent ? `${own}\n${inheritedFlags(cmd, helper.helpWidth ?? 80, io.env)}` : own;
        },
        // A long term (`import [options] <instance_id> <file>`) leaves under 40 columns at 80: wrap there too.
        minWidthToWrap: 20,
        // Wrapped at spaces, never mid-word, as every text of tpa (render/text.ts).
        boxWrap: (text: string, width: number) => wrapWords(text, width).join('\n'),
        // -p names the default in force (TPA_PROFILE, the config's default_profile, or local), read when
        // help is drawn; completions keep the option's own text.
        optionDescription(this: Help, option: Option) {
          const text = Help.prototype.optionDescription.call(this, option);
          return option.long === '--profile' ? text.replace(PROFILE_HELP, profileHelp(io.env)) : text;
        },
      })
      .helpOption('-h, --help', 'show help')
      .addOption(once(new Option('-p, --profile <name>', PROFILE_HELP).env('TPA_PROFILE')))
      .addOption(
        once(new Option('-o, --output <format>', 'output format (default table on a terminal, json otherwise)').choices(OUTPUT_FORMATS).env('TPA_OUTPUT')),
      )
      .addOption(new Option('--json [fields]', 'print JSON of the fields given (comma-separated) of each record; alone, list the fields').argParser(jsonFields))
      .addOption(once(new Option('--jq <expression>', "filter the records' JSON with a jq expression (strings printed raw)")))
      .addOption(once(new Option('--template <string>', 'format the records with a Go template (tpa help formats)')))
      .option('--no-color', 'no colours (also NO_COLOR, and whenever stdout is not a terminal)')
      .option('--debug', 'log each request and response to stderr, credentials redacted')
      .addOption(once(new Option('--ca-file <file>', 'an extra CA certificate (PEM) to trust for HTTPS, for any profile').env('TPA_CA_FILE')))
      .option('-y, --yes', 'confirm without asking (required for irreversible actions when stdin is not a terminal)')
      .option('--no-pager', 'print long listings straight to the terminal, not through $PAGER (also PAGER=cat)')
      .showSuggestionAfterError(true)
      .exitOverride()
      .configureOutput(output)
      .addHelpText(
        'after',
        `
Exit codes: 0 ok, 2 usage or validation, 3 not found, 4 conflict or wrong state,
            5 auth, 6 rate limited, 7 not finished yet, 8 network or server,
            1 internal error (tpa help exit-codes)`,
      )
  );
}

/** The root commands of the table: each noun with its verbs, and each root verb, built when `tree` needs them. */
async function addRootCommands(program: Command, io: IO, state: RunState, tree: string | undefined): Promise<void> {
  const named = ROOT.some((root) => root.name === tree);
  for (const root of ROOT) {
    // The root help lists a root verb with its arguments (`api [options] <method> <path>`): unless the
    // command word names another root command, that help may be shown, so the verb is built.
    const needed = tree === 'full' || tree === 'completion' || tree === root.name || (root.kind === 'verb' && !named);
    if (root.kind === 'noun') {
      const cmd = program.command(root.name).description(root.description);
      if (needed) for (const verb of (await root.load()).verbs) addEntry(cmd, verb, io, state);
    } else if (needed) {
      const [verb] = (await root.load()).verbs;
      // The help of the root lists the table's words; the command shows the verb's own.
      if (verb?.description !== root.description) throw new Error(`tpa ${root.name}: the root table and the verb describe it differently`);
      addEntry(program, verb, io, state);
    } else program.command(root.name).description(root.description);
  }
}

/** The global options, by their flags alone: what a command's help says of them (`tpa help global-options` describes each). */
export function globalFlags(program: Command): string[] {
  return program.options.filter((o) => o.long !== '--help').map((o) => (o.short ? `${o.short}, ${o.long}` : o.long!));
}

/** The "Inherited flags:" section of a command's help: the flags in a few lines, and where each is described. */
function inheritedFlags(cmd: Command, width: number, env: NodeJS.ProcessEnv): string {
  let root = cmd;
  while (root.parent) root = root.parent;
  // Each flag is one unit of the line (fill never breaks one), "·" between them; -p with the
  // profile in force, which a command without -p uses.
  const flags = globalFlags(root)
    .map((f) => (f === '-p, --profile' ? `${f} ${profileDefault(env)}` : f))
    .map((f, i, all) => (i < all.length - 1 ? `${f} ·` : f));
  return `Inherited flags:\n${fill([...flags, ' (tpa help global-options)'], width, '  ', '  ').join('\n')}\n`;
}

/**
 * What follows a usage error of commander's (an unknown option or command, a missing or extra
 * argument, a value not among the choices): the command's usage line and the command that shows
 * its help, as gh does. Its message, and the "did you mean" commander finds, come before.
 */
function afterError(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  return `Usage: ${words.join(' ')} ${cmd.usage()}\nRun \`${words.join(' ')} --help\` for its options and examples.`;
}
