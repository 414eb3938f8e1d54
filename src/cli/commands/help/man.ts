// Man pages generated from the command tree, as the completions are (../completion/scripts.ts): one
// page per command, from what commander holds once the program is built (names, descriptions,
// arguments, options, the help text added after it), so that it does not matter how a command is
// declared. `npm run man` (scripts/man.mjs) writes them to man/; a test fails when man/ differs.
import type { EventEmitter } from 'node:events';
import type { Argument, Command, Help, Option } from 'commander';
import { subcommands as shown } from '../completion/scripts.js';
import { HELP_TOPICS, type HelpTopic } from './index.js';

export interface ManPage {
  /** The file name in man/, e.g. tpa-fund-approve.1. */
  file: string;
  text: string;
}

/**
 * Text for roff: backslashes and hyphens escaped, other than ASCII by its code point (a page read
 * without preconv), and no line taken for a request.
 */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[\u0080-\u{10FFFF}]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

const bold = (text: string) => `\\fB${roff(text)}\\fR`;
const italic = (text: string) => `\\fI${roff(text)}\\fR`;

/** A term such as `-o, --output <format>`: the flags in bold, what they take in italics. */
function term(text: string): string {
  const m = /^(.*?)((?:\s+[<[]\S*)*)$/.exec(text)!;
  return `${bold(m[1]!)}${m[2] ? ` ${italic(m[2].trim())}` : ''}`;
}

/** The text a command's --help prints before and after commander's own (examples, notes). */
function addedHelpText(cmd: Command): string {
  let text = '';
  const context = { error: false, write: (s: string) => (text += s), command: cmd };
  const lineage: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) lineage.push(c);
  // The events outputHelp emits, in its order (commander's Command is an EventEmitter).
  const emit = (c: Command, event: string) => (c as unknown as EventEmitter).emit(event, context);
  for (const c of [...lineage].reverse()) emit(c, 'beforeAllHelp');
  emit(cmd, 'beforeHelp');
  emit(cmd, 'afterHelp');
  for (const c of lineage) emit(c, 'afterAllHelp');
  return text;
}

/** The added help text as examples (the commands of its Examples: section) and other paragraphs. */
function examplesAndNotes(cmd: Command): { examples: string[]; notes: string[] } {
  const examples: string[] = [];
  const notes: string[] = [];
  for (const block of addedHelpText(cmd).split(/\n\s*\n/)) {
    const trimmed = block.replace(/^\n+|\s+$/g, '');
    if (trimmed === '') continue;
    if (/^Examples:/.test(trimmed)) {
      // An example begins with "$ "; a long one goes on over indented lines after a backslash.
      for (const line of trimmed.split('\n').slice(1)) {
        if (/^\s*\$ /.test(line) || examples.length === 0) examples.push(line.trim().replace(/^\$ /, ''));
        else examples[examples.length - 1] += `\n    ${line.trim()}`;
      }
    } else if (!/^Exit codes:/.test(trimmed)) {
      // The exit codes have a section of their own, on every page.
      notes.push(trimmed);
    }
  }
  return { examples, notes };
}

function items(entries: readonly (readonly [string, string])[]): string[] {
  return entries.flatMap(([t, text]) => ['.TP', t, roff(text)]);
}

function optionItems(helper: Help, options: readonly Option[]): string[] {
  return items(options.map((o) => [term(helper.optionTerm(o)), helper.optionDescription(o)] as const));
}

function argumentItems(helper: Help, args: readonly Argument[]): string[] {
  return items(args.map((a) => [italic(helper.argumentTerm(a)), helper.argumentDescription(a)] as const));
}

function topicSection(topic: HelpTopic): string[] {
  return [
    `.SH ${topic.manSection}`,
    roff(topic.intro),
    ...items(topic.items.map(([t, text]) => [bold(t), text] as const)),
    ...(topic.outro ? ['.PP', roff(topic.outro)] : []),
  ];
}

const topic = (name: string) => HELP_TOPICS.find((t) => t.name === name)!;
const pageName = (path: readonly string[]) => path.join('-');
const reference = (path: readonly string[]) => `.BR ${roff(pageName(path))} (1)`;

function page(cmd: Command, path: readonly string[], root: Command): string {
  const helper = cmd.createHelp();
  const name = pageName(path);
  const description = cmd.description();
  const { examples, notes } = examplesAndNotes(cmd);
  const isRoot = cmd === root;
  const global = isRoot
    ? []
    : root
        .createHelp()
        .visibleOptions(root)
        .filter((o) => o.long !== '--help' && o.long !== '--version');
  const subcommands = shown(cmd);
  const parentPath = path.slice(0, -1);
  const siblings = isRoot || !cmd.parent ? [] : shown(cmd.parent).filter((c) => c !== cmd);
  const seeAlso = [
    ...(isRoot ? [] : [['tpa']]),
    ...(parentPath.length > 1 ? [parentPath] : []),
    ...subcommands.map((c) => [...path, c.name()]),
    ...siblings.map((c) => [...parentPath, c.name()]),
  ];
  const lines = [
    `.\\" Generated from the command tree by npm run man (src/cli/commands/help/man.ts); do not edit.`,
    `.TH "${roff(name.toUpperCase())}" "1" "" "tpa" "tpa manual"`,
    // Identifiers, flags and amounts are not to be split or spread: no hyphenation, no justification.
    '.nh',
    '.ad l',
    '.SH NAME',
    `${roff(name)} \\- ${roff(description.split('\n')[0]!)}`,
    '.SH SYNOPSIS',
    `${bold(path.join(' '))} ${roff(cmd.usage())}`,
    '.SH DESCRIPTION',
    description
      .split('\n')
      .map((line) => roff(line))
      .join('\n.br\n'),
    ...notes.flatMap((note) => ['.PP', '.nf', roff(note), '.fi']),
    ...(isRoot
      ? [
          '.PP',
          roff(
            `tpa help <command> prints the help of a command (tpa help fund approve is tpa fund approve --help); tpa help ${HELP_TOPICS.map((t) => t.name).join(', tpa help ')} print the sections ${HELP_TOPICS.map((t) => t.manSection).join(', ')} below.`,
          ),
        ]
      : []),
    ...(cmd.registeredArguments.length > 0 ? ['.SH ARGUMENTS', ...argumentItems(helper, cmd.registeredArguments)] : []),
    ...(subcommands.length > 0
      ? ['.SH COMMANDS', ...items(subcommands.map((c) => [`${bold([...path, c.name()].join(' '))} ${roff(c.usage())}`, c.description()] as const))]
      : []),
    '.SH OPTIONS',
    ...optionItems(helper, helper.visibleOptions(cmd)),
    ...(global.length > 0 ? ['.SH GLOBAL OPTIONS', ...optionItems(helper, global)] : []),
    ...(examples.length > 0 ? ['.SH EXAMPLES', '.nf', '.RS 4', ...examples.map((e) => roff(`$ ${e}`)), '.RE', '.fi'] : []),
    ...topicSection(topic('exit-codes')),
    ...(isRoot ? [...topicSection(topic('environment')), ...topicSection(topic('formats'))] : []),
    '.SH SEE ALSO',
    seeAlso.map(reference).join(',\n'),
  ];
  return `${lines.join('\n')}\n`;
}

/** Every command's man page (the help commands aside), the root's first, in the order of the tree. */
export function manPages(program: Command): ManPage[] {
  const pages: ManPage[] = [];
  const walk = (cmd: Command, path: string[]) => {
    pages.push({ file: `${pageName(path)}.1`, text: page(cmd, path, program) });
    for (const sub of shown(cmd)) walk(sub, [...path, sub.name()]);
  };
  walk(program, [program.name()]);
  return pages;
}
