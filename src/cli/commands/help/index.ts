// `tpa help <command…|topic>`: a command's help by its words (`tpa help fund approve`), or a topic
// that belongs to no one command (exit codes, environment, output formats). The man page of tpa
// (man.ts) prints the same topics, so that they are written once.
import type { Command } from 'commander';
import { EXIT, UsageError } from '../../../errors.js';
import { helpWidth } from '../../action.js';
import type { IO } from '../../io.js';
import { PAGED_COMMANDS } from '../../pager.js';
import { TEMPLATE_FUNCTIONS } from '../../../render/template-functions.js';
import { fill } from '../../../render/text.js';

export interface HelpTopic {
  name: string;
  /** One line, in the list of topics. */
  summary: string;
  /** The section of the man page of tpa that prints it. */
  manSection: string;
  intro: string;
  /** Term and description, one item each (a code, a variable, a format). */
  items: readonly (readonly [string, string])[];
  outro?: string;
}

const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  OK: 'success',
  INTERNAL: 'internal error: a bug in tpa (run again with --debug for the details)',
  USAGE:
    'usage or validation: bad flags or arguments, a value that fails local validation, a 400 with errors[]; an irreversible action without --yes where no terminal can ask, or a confirmation declined',
  NOT_FOUND: 'not found (404)',
  CONFLICT: 'conflict or wrong state (409; funding duplicates and not-adjudicated; a data directory held by tpa local serve)',
  AUTH: 'authentication or permission (401, 403; no key, or a key the profile cannot use)',
  RATE_LIMITED: 'rate limited after retries (429)',
  PENDING: 'not finished yet (202 without --wait, or --wait timed out)',
  NETWORK: 'network, TLS or server failure (5xx; a local database that cannot be opened, or is busy)',
};

export const HELP_TOPICS: readonly HelpTopic[] = [
  {
    name: 'exit-codes',
    summary: 'what the exit status of a command means',
    manSection: 'EXIT STATUS',
    intro: 'Every command exits with one of these codes; scripts can tell the outcomes apart without reading the output.',
    items: (Object.keys(EXIT) as (keyof typeof EXIT)[]).sort((a, b) => EXIT[a] - EXIT[b]).map((k) => [String(EXIT[k]), EXIT_MEANINGS[k]] as const),
    outro:
      'The error goes to stderr: with -o table, "error: <message>" and perhaps a hint on the next line; in the other formats, one JSON object {"error": {exit_code, status, code, message, details, hint}}, and any body the service answered is printed on stdout. A batch or a payment run interrupted by Ctrl-C exits 130.',
  },
  {
    name: 'environment',
    summary: 'the environment variables tpa reads',
    manSection: 'ENVIRONMENT',
    intro: 'tpa reads these variables; an option given on the command line wins over its variable.',
    items: [
      ['TPA_HOME', 'puts config and the engine database (local.sqlite) under one directory; otherwise $XDG_CONFIG_HOME/tpa and $XDG_DATA_HOME/tpa'],
      ['XDG_CONFIG_HOME', "the parent of tpa's config directory (default ~/.config): config.json, and credentials.json when no keychain is used"],
      [
        'XDG_DATA_HOME',
        "the parent of tpa's data directory (default ~/.local/share): the embedded engine's database, the journals of batches and payment runs",
      ],
      ['XDG_CACHE_HOME', "the parent of the single executable's cache (default ~/.cache): the SQLite addon it carries, written once to tpa/sea there (0700)"],
      ['TPA_PROFILE', 'the profile to use, as -p/--profile'],
      ['TPA_OUTPUT', 'the output format, as -o/--output'],
      ['TPA_CA_FILE', 'an extra CA certificate (PEM) to trust for HTTPS, as --ca-file'],
      ['TPA_API_KEY', "the API key to use, over every store; it must be a key of the profile's environment (auth login refuses while it is set)"],
      [
        'TPA_KEYRING',
        'where keys are kept. auto (the default): the OS keychain, or credentials.json (mode 0600) in the config directory when no keychain answers within 3 seconds; required: the keychain, else exit 5; off: the file only',
      ],
      ['TPA_DB_KEY', "the key of an encrypted local database, 64 hexadecimal digits, for headless use (otherwise the OS keychain's)"],
      ['TPA_PROMPT_DISABLED', 'never prompt; actions that need a confirmation then need --yes'],
      ['TPA_PAGER', `the pager of long listings on a terminal (${PAGED_COMMANDS.join(', ')}), over PAGER; cat or empty for none, as --no-pager`],
      ['PAGER', 'the pager when TPA_PAGER is unset; when both are unset, less -FRX if less is on the PATH'],
      ['LESS', 'the options of less as the pager (default FRX: quit when the text fits one screen, keep colours, leave it on screen)'],
      ['PATH', 'where tpa looks for less, the default pager'],
      ['NO_COLOR', 'no colours (colours are also off whenever stdout is not a terminal)'],
      [
        'TPA_CLOCK',
        'freezes the engine clock for one process at a date or a date-time with its zone, such as 2026-03-01T09:00:00Z (held at the latest time recorded when earlier)',
      ],
      ['TPA_ADJUDICATION_DELAY', 'time from submission to adjudication on the embedded engine (default 3s; 0 for none)'],
      [
        'TPA_FAULT',
        'sandbox trigger, in-process and for tpa local serve: <fault>[*<count>]:<path part>[,...] injects lose-response, drop, approved-elsewhere, error-5xx, slow-<ms> or late-<ms> into the requests whose path contains the part',
      ],
      [
        'NODE_USE_ENV_PROXY',
        "Node's proxy support (1, or --use-env-proxy in NODE_OPTIONS): https to another host then goes through HTTPS_PROXY's CONNECT tunnel unless NO_PROXY names it (TLS end to end); plain http, and https to this machine, never go through a proxy",
      ],
      ['NODE_OPTIONS', "read for --use-env-proxy and --no-use-env-proxy, as Node reads them (the command line's own flags win)"],
      ['TPA_DEBUG_ENGINE', 'the embedded engine writes the stack of an internal error (its 500 answers) to stderr'],
      ['TPA_NO_STATIC_HELP', 'tpa --help renders the help from the command tree instead of the copy made at build time (the build sets it)'],
    ],
  },
  {
    name: 'formats',
    summary: 'the output formats of -o: table, json, ndjson, csv',
    manSection: 'OUTPUT FORMATS',
    intro:
      'stdout carries only the result, in the format -o/--output (or TPA_OUTPUT) chooses: a table on a terminal, JSON otherwise. Progress, prompts, warnings and errors go to stderr.',
    items: [
      [
        'table',
        'for a person: no wider than the terminal; a list keeps a row a line (names cut with …, columns left out before an identifier, an NPI or an amount is cut); another table wraps its text at spaces, or shows a record at a time when it cannot fit; piped, it does not depend on any width',
      ],
      [
        'json',
        'one JSON document, amounts as numbers; one page of a list is {count, next, previous, results}, a listing with --all one array of every row, written as it grows',
      ],
      ['ndjson', 'one JSON object a line, each row as it comes'],
      [
        '--json <fields>',
        "the records a command prints (the rows -o ndjson writes a line each: a list's entries, or the one record), each with only these fields, as JSON (with -o ndjson, a line each); --json alone lists the fields, on stderr",
      ],
      [
        '--jq <expression>',
        "the records' JSON (a list as one array, a record as an object) through jq, in-process; a text result printed as it is, others as JSON. A list printed as it arrives (--all, a batch) goes through it a page at a time",
      ],
      [
        '--template <string>',
        `the same JSON through a Go template: {{.field}}, {{range .}}…{{end}}, {{if}}…{{else}}…{{end}}, pipes, and ${TEMPLATE_FUNCTIONS.join(', ')}`,
      ],
      [
        'csv',
        "a header (even when no row matches), then a row a line; the ledger's status_progression becomes status and status_at; a cell a spreadsheet would take for a formula gets a ' in front",
      ],
    ],
    outro:
      'Wherever tpa writes for a person (a table, anything on a terminal, every message on stderr) a control character is shown as its escape; piped json, ndjson and csv give the text as it was typed.',
  },
];

/** The topic that describes the global options, made from the program's own (the man pages list them on every page). */
export const GLOBAL_OPTIONS_TOPIC = 'global-options';

function globalOptionsTopic(program: Command): HelpTopic {
  const helper = program.createHelp();
  return {
    name: GLOBAL_OPTIONS_TOPIC,
    summary: 'the options every command takes',
    manSection: 'OPTIONS',
    intro: 'Every command takes these options, typed before or after its own words.',
    items: program.options.filter((o) => o.long !== '--help').map((o) => [helper.optionTerm(o), helper.optionDescription(o)] as const),
  };
}

/** A topic as `tpa help <topic>` prints it, for a screen `width` columns wide. */
export function topicText(topic: HelpTopic, width = 80): string {
  const termWidth = Math.max(...topic.items.map(([term]) => term.length));
  const wrap = (text: string, first = '', indent = '') => fill(text.split(/\s+/).filter(Boolean), width, first, indent).join('\n');
  const items = topic.items.map(([term, text]) => wrap(text, `  ${term.padEnd(termWidth)}  `, ' '.repeat(termWidth + 4)));
  return `${[wrap(topic.intro), items.join('\n'), ...(topic.outro ? [wrap(topic.outro)] : [])].join('\n\n')}\n`;
}

/**
 * Replaces commander's `help [command]`, which reads one word only: `tpa help fund approve` is
 * `tpa fund approve --help`, and `tpa help <topic>` prints the topic.
 */
export function registerHelp(program: Command, io: IO): void {
  program.helpCommand(false);
  program
    .command('help')
    .description(`help for a command (tpa help fund approve), or a topic: ${[...HELP_TOPICS.map((t) => t.name), GLOBAL_OPTIONS_TOPIC].join(', ')}`)
    .argument('[topic...]', 'the words of a command (fund approve), or a topic')
    .action((words: string[]) => {
      const topic =
        words.length !== 1 ? undefined : words[0] === GLOBAL_OPTIONS_TOPIC ? globalOptionsTopic(program) : HELP_TOPICS.find((t) => t.name === words[0]);
      if (topic) {
        io.stdout.write(topicText(topic, helpWidth(io.stdout)));
        return;
      }
      let cmd = program;
      for (const word of words) {
        const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!sub) {
          throw new UsageError(`no command or help topic "${words.join(' ')}"`, {
            hint: `try: tpa --help, or one of the topics: ${[...HELP_TOPICS.map((t) => t.name), GLOBAL_OPTIONS_TOPIC].map((t) => `tpa help ${t}`).join(', ')}`,
          });
        }
        cmd = sub;
      }
      cmd.outputHelp();
    });
}
