// Glue between commander and the verbs (verb.ts): builds a command from a verb's declaration and
// runs its run function. Declarations stay light so that `tpa --help` starts fast: the context and
// the renderers load when a command actually runs. Errors propagate to the entry point, which maps
// them once.
import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import { EXIT, NetworkError, UsageError } from '../errors.js';
import type { Context } from './context.js';
import { terminalWidth, type IO, type Stream } from './io.js';
import { isGroup, type AnyVerb, type ArgSpec, type Entry, type OptionSpec } from './verb.js';
import { commandLines } from '../render/text.js';

export interface RunState {
  ctx?: Context;
  exitCode: number;
}

/** Adds a verb (or a group of them) under `parent`; returns the command made. */
export function addEntry(parent: Command, entry: Entry, io: IO, state: RunState): Command {
  if (isGroup(entry)) {
    const group = parent.command(entry.name).description(entry.description);
    for (const e of entry.verbs) addEntry(group, e, io, state);
    return group;
  }
  const cmd = parent.command(entry.name, entry.isDefault ? { isDefault: true } : {}).description(entry.description);
  for (const alias of entry.aliases ?? []) cmd.alias(alias);
  for (const a of Object.values(entry.args ?? {}) as ArgSpec<unknown>[]) {
    const arg = new Argument(a.name, a.description);
    if (a.choices) arg.choices(a.choices);
    cmd.addArgument(arg);
  }
  for (const [key, spec] of Object.entries(entry.options ?? {})) cmd.addOption(commanderOption(key, spec as OptionSpec<unknown>, entry));
  examples(cmd, entry.examples, io);
  cmd.action(action(entry, io, state));
  return cmd;
}

function commanderOption(key: string, spec: OptionSpec<unknown>, verb: AnyVerb): Option {
  const option = new Option(spec.flags, spec.description);
  // The run function reads opts[key]: a key that is not the flag's attribute name would read undefined.
  if (option.attributeName() !== key) throw new Error(`tpa ${verb.name}: option ${spec.flags} is declared as "${key}", not "${option.attributeName()}"`);
  if (spec.required) option.makeOptionMandatory();
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  if (spec.choices) option.choices(spec.choices);
  if (spec.env) option.env(spec.env);
  if (spec.values) (option as Option & { completionValues?: readonly string[] }).completionValues = spec.values;
  if (spec.repeatable) return option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  // A list takes every value; any other option takes one, and a second is refused below.
  return option.variadic || !option.required ? option : once(option);
}

/**
 * Refuses a second value for an option that takes one (`fund run --npi A --npi B`, `-p sandbox …
 * -p production`): commander would keep the last and drop the first without a word, and the
 * command would act on a selection or a profile other than the one the user read on the line.
 * Its own parser (choices) still checks each value.
 */
export function once(option: Option): Option {
  const own = option.parseArg;
  let given = false;
  return option.argParser((value: string, previous: unknown) => {
    if (given) throw new InvalidArgumentError(`${option.long ?? option.flags} is given more than once; give it once`);
    given = true;
    return own ? own.call(option, value, previous) : value;
  });
}

function action(verb: AnyVerb, io: IO, state: RunState) {
  return async (...raw: unknown[]): Promise<void> => {
    const cmd = raw[raw.length - 1] as Command;
    const { createContext } = await import('./context.js');
    const globals = cmd.optsWithGlobals();
    // `-p "$PROFILE"` with the variable unset would act on the default profile without a word.
    if (globals.profile === '' && cmd.getOptionValueSourceWithGlobals('profile') === 'cli')
      throw new UsageError('--profile is empty: name a profile, or leave the option out');
    // --json <fields>, --jq, --template: checked before anything runs or is sent (shape.ts).
    const shaping = await shapeOf(verb, cmd, io);
    if (shaping.kind === 'list') {
      io.stderr.write(shaping.text);
      state.exitCode = EXIT.USAGE;
      return;
    }
    // A long listing on a terminal goes through a pager (pager.ts), started at its first line.
    const paging = await pagerFor(cmd, io, globals.pager !== false);
    const ctx = createContext(paging?.io ?? io, globals);
    if (shaping.kind === 'shape') ctx.shape = shaping.shape;
    state.ctx = ctx;
    const { forgetAnswers } = await import('../client/answers.js');
    forgetAnswers();
    try {
      const names = Object.keys(verb.args ?? {});
      const args = Object.fromEntries(names.map((name, i) => [name, cmd.processedArgs[i]]));
      // The journals of an encrypted data directory are sealed with its key (jobs/journal-seal.ts).
      const { journalSealingOf, withJournalSealing } = await import('../jobs/journal-seal.js');
      const sealing = await journalSealingOf(ctx.paths.dataDir, ctx.io.env, ctx.note);
      const output = await withJournalSealing(sealing, () => verb.run(ctx, args, cmd.opts(), cmd));
      if (output) {
        if (output.data !== undefined) {
          const { emit } = await import('../render/output.js');
          await emit(
            { out: ctx.io.stdout, err: ctx.io.stderr, format: ctx.format, color: ctx.color, columns: terminalWidth(ctx.io.stdout), shape: ctx.shape },
            output,
          );
        }
        for (const note of output.after ?? []) ctx.note(note);
        state.exitCode = output.exitCode ?? 0;
      }
      await filterFailedAfter(ctx, state);
    } catch (err) {
      throw await unusableAnswer(err);
    } finally {
      ctx.close();
      await paging?.finish();
    }
  };
}

/**
 * A filter that failed on the records of what was done (a run's approvals, a batch's outcomes): what
 * was done stands, recorded as the service answered, its records on stderr. The command's own
 * failure code stands when it has one; else the filter's usage error (exit 2) saying what was done.
 */
async function filterFailedAfter(ctx: Context, state: RunState): Promise<void> {
  if (!ctx.filterFailure) return;
  const { filterFailed } = await import('../render/shape.js');
  const err = filterFailed(ctx.filterFailure.err, ctx.filterFailure.done);
  if (state.exitCode !== 0) ctx.note(err.message);
  else throw err;
}

/**
 * A TypeError thrown while a command read or rendered what a remote service answered (a field
 * missing, a value not of its kind) is the answer's fault as far as the user can act: an answer
 * tpa cannot use (exit 8), naming the route, never "internal error". Only after an HTTP answer
 * (client/answers.ts): with the embedded engine, it stays tpa's own bug.
 */
async function unusableAnswer(err: unknown): Promise<unknown> {
  // Node's own TypeErrors (ERR_INVALID_ARG_TYPE, ERR_INVALID_URL…) carry a code: tpa's calls, not an answer read.
  if (!(err instanceof TypeError) || (err as { code?: unknown }).code !== undefined) return err;
  const { lastRemoteAnswer } = await import('../client/answers.js');
  const last = lastRemoteAnswer();
  if (!last) return err;
  const unusable = new NetworkError(
    `${last.base} answered ${last.method} ${last.path} with something tpa cannot use (${err.message}): it is not an answer of the TPA service`,
    { code: 'answer_unusable', hint: "check the profile's base_url names the TPA service; --debug shows where it failed" },
  );
  // --debug prints the stack: where reading the answer failed.
  unusable.stack = `${unusable.stack}\ncaused by: ${err.stack}`;
  return unusable;
}

/** The command's --json, --jq and --template, checked against the fields it declares (verb.ts). */
async function shapeOf(verb: AnyVerb, cmd: Command, io: IO) {
  const { outputShape } = await import('./shape.js');
  return outputShape({
    command: commandPath(cmd).join(' '),
    fields: verb.fields,
    undeclaredJson: verb.undeclaredJson === true,
    globals: cmd.optsWithGlobals(),
    outputSource: cmd.getOptionValueSourceWithGlobals('output'),
    terminal: io.stdout.isTTY,
  });
}

/** The words of a command under tpa: ["ledger", "list"]. */
function commandPath(cmd: Command): string[] {
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  return path;
}

/** The pager of a command that pages (pager.ts PAGED_COMMANDS), when one is to run; else undefined. It opens only for output taller than the screen. */
async function pagerFor(cmd: Command, io: IO, enabled: boolean) {
  const path = commandPath(cmd);
  const { isPaged, pagerCommand, screenRows, startPaging } = await import('./pager.js');
  if (!isPaged(path.join(' '), (flag) => cmd.getOptionValue(flag) === true)) return undefined;
  const argv = pagerCommand(io, enabled);
  return argv ? startPaging(io, argv, screenRows(io)) : undefined;
}

/**
 * Adds an Examples section to a command's --help, each command line fitted to the help's width
 * (helpWidth): a long one goes on after a backslash, so that it still copies as one command.
 */
export function examples(cmd: Command, lines: readonly string[], io: IO): Command {
  return cmd.addHelpText('after', ({ error }) => {
    const width = helpWidth(error ? io.stderr : io.stdout);
    return `\nExamples:\n${lines.map((l) => fitCommand(l, width)).join('\n')}\n`;
  });
}

/** Help is written for 80 columns: a wider terminal gets it at 80, a narrower one at its width. */
export function helpWidth(stream: Stream): number {
  return Math.min(stream.columns || 80, 80);
}

/** `  $ <line>`, broken at spaces outside quotes into lines of at most `width` columns, each but the last ending in ` \` (render/text.ts). */
export function fitCommand(line: string, width: number): string {
  return commandLines(line, '  $ ', '    ', width).join('\n');
}
