// Glue between commander and command handlers. Declarations (src/cli/commands/<noun>.ts) stay
// light so that `tpa --help` starts fast; handlers (<noun>.run.ts), the context and the renderers
// load when a command actually runs. Errors propagate to the entry point, which maps them once.
import { Option, type Command } from 'commander';
import type { CommandOutput } from '../render/output.js';
import type { Context } from './context.js';
import { terminalWidth, type IO } from './io.js';

export interface RunState {
  ctx?: Context;
  exitCode: number;
}

export type Options = Record<string, unknown>;
export type Handler = (ctx: Context, args: string[], opts: Options, cmd: Command) => Promise<CommandOutput | void>;
export type Handlers = Record<string, Handler>;
/** Makes a commander action that loads a handlers module and runs one handler of it. */
export type Act = (load: () => Promise<object>, name: string) => (...args: unknown[]) => Promise<void>;

export function actionFactory(io: IO, state: RunState): Act {
  return (load, name) =>
    async (...raw: unknown[]) => {
      const cmd = raw[raw.length - 1] as Command;
      const [{ createContext }, handlers] = await Promise.all([import('./context.js'), load()]);
      const ctx = createContext(io, cmd.optsWithGlobals());
      state.ctx = ctx;
      try {
        const output = await (handlers as Handlers)[name]!(ctx, cmd.args.slice(0, cmd.registeredArguments.length).map(String), cmd.opts(), cmd);
        if (output) {
          if (output.data !== undefined) {
            const { emit } = await import('../render/output.js');
            await emit({ out: ctx.io.stdout, format: ctx.format, color: ctx.color, columns: terminalWidth(ctx.io.stdout) }, output);
          }
          state.exitCode = output.exitCode ?? 0;
        }
      } finally {
        ctx.close();
      }
    };
}

/** Adds an Examples section to a command's --help. */
export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** An option whose values are a known list: completions offer them (the handler checks them). */
export function valuesOption(flags: string, description: string, values: readonly string[], defaultValue?: string): Option {
  const option = new Option(flags, description);
  if (defaultValue !== undefined) option.default(defaultValue);
  (option as Option & { completionValues?: readonly string[] }).completionValues = values;
  return option;
}
