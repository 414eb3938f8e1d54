// Confirmation for actions that cannot be undone (docs/development.md "Streams and terminals"): never assume
// yes when no prompt can be shown, and a declined confirmation is not success.
import { EXIT, TpaError, UsageError } from '../errors.js';
import { screen } from '../render/screen.js';
import { wrapProse } from '../render/text.js';
import type { Context } from './context.js';

export class DeclinedError extends TpaError {
  constructor(message = 'not confirmed: nothing was done') {
    super(EXIT.USAGE, 'declined', message);
  }
}

/**
 * A question as the prompt shows it: wrapped at spaces to the terminal (after the prompt's "? "), so
 * that an amount, an id or a command is never broken across lines, and screened (docs/design.md
 * "Text from outside is data"). The prompts write to the process's stderr.
 */
function asked(text: string): string {
  const columns = process.stderr.isTTY ? process.stderr.columns : undefined;
  return screen(wrapProse(text, columns === undefined ? undefined : columns - 2));
}

export async function confirm(ctx: Context, question: string): Promise<void> {
  if (ctx.yes) return;
  if (!ctx.canPrompt) {
    throw new UsageError('this action needs confirmation: pass --yes (stdin is not a terminal, so tpa cannot ask)');
  }
  const prompts = await import('@inquirer/prompts');
  const ok = await interruptible(() => prompts.confirm({ message: asked(question), default: false }, { output: process.stderr }));
  if (!ok) throw new DeclinedError();
}

/** Asks for a line of text on stderr; `validate` returns an error message or true. */
export async function ask(message: string, options: { default?: string; validate?: (value: string) => string | true } = {}): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return interruptible(() =>
    input({ message: asked(message), default: options.default, validate: options.validate, required: true }, { output: process.stderr }),
  );
}

/** Asks to choose one of `choices` (label, value) on stderr. */
export async function choose(message: string, choices: readonly { name: string; value: string }[]): Promise<string> {
  const { select } = await import('@inquirer/prompts');
  return interruptible(() => select({ message: asked(message), choices: choices.map((c) => ({ ...c, name: screen(c.name) })) }, { output: process.stderr }));
}

/** Asks for a secret (an API key, a key passphrase), masked, on stderr. */
export async function askSecret(message: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  return interruptible(() => password({ message, mask: '*' }, { output: process.stderr }));
}

/** Ctrl-C or Ctrl-D at a prompt is the user stopping, not a bug: nothing was done. */
async function interruptible<T>(prompt: () => Promise<T>): Promise<T> {
  try {
    return await prompt();
  } catch (err) {
    if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') throw new DeclinedError('cancelled: nothing was done');
    throw err;
  }
}
