// How a command is declared: one verb module (src/cli/commands/<noun>/<verb>.ts) holds its
// arguments and options once, its help with examples, and its run function. The program derives
// both the commander command and the types the run function receives from that one declaration,
// and registers the run function by reference: a renamed option fails the type check, not a run.
import type { Command } from 'commander';
import type { CommandOutput } from '../render/output.js';
import type { Context } from './context.js';

/** One option: its commander flags and help, and (as a phantom) the type its value has in `opts`. */
export interface OptionSpec<T> {
  readonly flags: string;
  readonly description: string;
  readonly required?: boolean;
  readonly defaultValue?: string | boolean;
  /** Known values: completions offer them; the run function checks them (its message names the option). */
  readonly values?: readonly string[];
  /** Values commander itself enforces (a usage error listing them). */
  readonly choices?: readonly string[];
  readonly env?: string;
  /** Given once per value, any number of times (`-H a -H b`): the values in order. */
  readonly repeatable?: boolean;
  /** Never read: carries the value's type. */
  readonly type?: T;
}

/** One positional argument, and the type of its value. */
export interface ArgSpec<T> {
  readonly name: string;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly type?: T;
}

type Extra = Pick<OptionSpec<unknown>, 'values' | 'choices' | 'env'>;

/** Option declarations; each returns a spec whose value type follows from how it is declared. */
export const option = {
  /** `--name <value>`: a string, or undefined when not given. */
  text: (flags: string, description: string, extra: Extra = {}): OptionSpec<string | undefined> => ({ flags, description, ...extra }),
  /** `--name <value>` with a default: always a string. */
  withDefault: (flags: string, description: string, defaultValue: string, extra: Extra = {}): OptionSpec<string> => ({
    flags,
    description,
    defaultValue,
    ...extra,
  }),
  /** `--name <value>` that must be given (a usage error otherwise): always a string. */
  required: (flags: string, description: string, extra: Extra = {}): OptionSpec<string> => ({ flags, description, required: true, ...extra }),
  /** `--name <value...>`: repeatable or variadic; undefined when not given. */
  list: (flags: string, description: string, extra: Extra = {}): OptionSpec<string[] | undefined> => ({ flags, description, ...extra }),
  /**
   * `--name <value>` given again for each value (`-H 'A: 1' -H 'B: 2'`): a list, undefined when not
   * given. Unlike `list`, a later word is never taken for one of its values.
   */
  repeatable: (flags: string, description: string, extra: Extra = {}): OptionSpec<string[] | undefined> => ({ flags, description, repeatable: true, ...extra }),
  /** `--name <value...>` that must be given. */
  requiredList: (flags: string, description: string, extra: Extra = {}): OptionSpec<string[]> => ({ flags, description, required: true, ...extra }),
  /** `--name`: true when given. */
  flag: (flags: string, description: string): OptionSpec<boolean | undefined> => ({ flags, description }),
  /** `--no-name`: false when given, true otherwise. */
  negatable: (flags: string, description: string): OptionSpec<boolean> => ({ flags, description }),
};

/** Argument declarations: `<name>` required, `[name]` optional, `<name...>` one or more. */
export const argument = {
  required: (name: string, description: string, choices?: readonly string[]): ArgSpec<string> => ({ name, description, ...(choices ? { choices } : {}) }),
  optional: (name: string, description: string): ArgSpec<string | undefined> => ({ name, description }),
  variadic: (name: string, description: string): ArgSpec<string[]> => ({ name, description }),
};

export type OptionSpecs = Record<string, OptionSpec<unknown>>;
export type ArgSpecs = Record<string, ArgSpec<unknown>>;
export type OptionValues<O extends OptionSpecs> = { -readonly [K in keyof O]: O[K] extends OptionSpec<infer T> ? T : never };
export type ArgValues<A extends ArgSpecs> = { -readonly [K in keyof A]: A[K] extends ArgSpec<infer T> ? T : never };

export interface Verb<A extends ArgSpecs = ArgSpecs, O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  readonly description: string;
  readonly aliases?: readonly string[];
  /** Run when its group is named without a verb (`tpa local clock` is `tpa local clock show`). */
  readonly isDefault?: boolean;
  /** In the order they are typed; the keys are the names the run function reads. */
  readonly args?: A;
  /** The keys are commander's attribute names of the flags (--dry-run → dryRun): checked when the tree is built. */
  readonly options?: O;
  /** Command lines shown under "Examples:" in the help and the man page. */
  readonly examples: readonly string[];
  /**
   * The fields of the records it prints (the top-level keys of each record: `fieldsOf`), which
   * `--json <fields>` selects from and `--json` lists. A verb without them prints no records, and
   * refuses --json, --jq and --template (docs/scripting.md "Scripts: fields, jq and templates").
   */
  readonly fields?: readonly string[];
  /**
   * Prints JSON whose fields it cannot declare, a service's answer as it came (`tpa api`): --jq and
   * --template apply to it, and --json <fields> is refused, as gh's api has no --json.
   */
  readonly undeclaredJson?: true;
  /** Returns data for the shared renderers (or writes itself and returns nothing). */
  run(ctx: Context, args: ArgValues<A>, opts: OptionValues<O>, cmd: Command): Promise<CommandOutput | void>;
}

/** A command that only groups others (`tpa local keys`). */
export interface Group {
  readonly name: string;
  readonly description: string;
  readonly verbs: readonly Entry[];
}

// biome-ignore lint/suspicious/noExplicitAny: a list of verbs of every shape; each is typed where it is declared.
export type AnyVerb = Verb<any, any>;
export type Entry = AnyVerb | Group;

/** Declares a verb; the identity, so that its options and arguments type its run function. */
export function verb<const A extends ArgSpecs = Record<never, never>, const O extends OptionSpecs = Record<never, never>>(v: Verb<A, O>): Verb<A, O> {
  return v;
}

export function isGroup(entry: Entry): entry is Group {
  return 'verbs' in entry;
}

/**
 * The fields of a record type, each named once: the object must name every key of `T` and no other
 * (a field added to the type fails the type check until it is listed), in the order the field list
 * shows them.
 */
export function fieldsOf<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}
