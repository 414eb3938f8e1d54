// Glue between commander and command handlers: builds the context, runs the handler, writes its
// output. Errors propagate to the entry point, which maps them to exit codes once.
import type { Command } from 'commander';
import { emit, type CommandOutput } from '../render/output.js';
import { createContext, type Context } from './context.js';
import type { IO } from './io.js';

export interface RunState {
  ctx?: Context;
  exitCode: number;
}

export type Options = Record<string, unknown>;
export type Handler = (ctx: Context, args: string[], opts: Options) => Promise<CommandOutput | void>;
export type Act = (handler: Handler) => (...args: unknown[]) => Promise<void>;

export function actionFactory(io: IO, state: RunState): Act {
  return (handler) =>
    async (...raw: unknown[]) => {
      const cmd = raw[raw.length - 1] as Command;
      const ctx = createContext(io, cmd.optsWithGlobals());
      state.ctx = ctx;
      try {
        const output = await handler(ctx, cmd.args.slice(0, cmd.registeredArguments.length).map(String), cmd.opts());
        if (output) {
          if (output.data !== undefined) await emit(ctx, output);
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

/** Values of a repeatable list option, also accepting commas: --cpt 45378 43235 or --cpt 45378,43235. */
export function listValue(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}
