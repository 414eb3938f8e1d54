// Confirmation for actions that cannot be undone (docs/development.md "Streams and terminals"): never assume
// yes when no prompt can be shown, and a declined confirmation is not success.
import { styleText } from 'node:util';
import { EXIT, TpaError, UsageError } from '../errors.js';
import { screen } from '../render/screen.js';
import { displayWidth, wrapProse } from '../render/text.js';
import type { Context } from './context.js';
import { plainPrompts } from './prompt-color.js';

export class DeclinedError extends TpaError {
  constructor(message = 'not confirmed: nothing was done') {
    super(EXIT.USAGE, 'declined', message);
  }
}

/** The prompts' terminal width (they write to the process's stderr); none when it is not a terminal. */
function columns(): number | undefined {
  return process.stderr.isTTY ? process.stderr.columns : undefined;
}

/**
 * A question as the prompt shows it: wrapped at spaces to the terminal (after the prompt's "? "), so
 * that an amount, an id or a command is never broken across lines, and screened (docs/design.md
 * "Text from outside is data"). The prompts write to the process's stderr.
 */
function asked(text: string, reserve = 0): string {
  return screen(fitQuestion(text, columns(), reserve));
}

/**
 * A question wrapped for a terminal of `width` columns after the prompt's "? ", with `reserve`
 * columns left on its last line for what inquirer writes after it (" (y/N) ", a default in
 * brackets): that last line is wrapped shorter when it would not fit, so that "(y/N)" is never cut
 * at the edge.
 */
export function fitQuestion(text: string, width: number | undefined, reserve = 0): string {
  if (width === undefined) return text;
  const lines = wrapProse(text, width - 2).split('\n');
  const last = lines.pop()!;
  lines.push(displayWidth(last) + reserve <= width - 2 ? last : wrapProse(last, width - 2 - reserve));
  return lines.join('\n');
}

/**
 * `text` after a marker of two columns ("> " before a validation error, "❯ " before a choice),
 * wrapped at spaces as the question is (render/text.ts), its later lines under the text: inquirer
 * would leave a long one to the terminal, which cuts an amount, an id or a command anywhere.
 */
function hung(text: string): string {
  const width = columns();
  return screen(wrapProse(text, width === undefined ? undefined : width - 2)).replace(/\n/g, '\n  ');
}

/**
 * How inquirer shows a prompt's text besides the question: the validation error under it, wrapped
 * (above); the answer echoed after the question's last line when it fits there, else on the lines
 * below, wrapped the same way, so that a typed amount or a chosen run's code is never cut.
 */
function theme(message: string) {
  const plain = plainPrompts();
  const paint = (color: Parameters<typeof styleText>[0], text: string) => (plain ? text : styleText(color, text));
  return {
    // Without colour (--no-color, NO_COLOR, stderr not a terminal): the prompt's marks and its question plain too.
    ...(plain ? { prefix: { idle: '?', done: '✔' } } : {}),
    style: {
      ...(plain
        ? { message: (text: string) => text, help: (text: string) => text, highlight: (text: string) => text, defaultAnswer: (text: string) => `(${text})` }
        : {}),
      error: (text: string) => paint('red', `> ${hung(text)}`),
      answer: (text: string) => {
        const width = columns();
        // The echo is "✔ <question's last line> <answer>".
        const last = message.split('\n').at(-1)!;
        if (width === undefined || 2 + displayWidth(last) + 1 + displayWidth(text) <= width) return paint('cyan', text);
        return `\n  ${paint('cyan', hung(text))}`;
      },
    },
  };
}

export async function confirm(ctx: Context, question: string): Promise<void> {
  if (ctx.yes) return;
  if (!ctx.canPrompt) {
    throw new UsageError('this action needs confirmation: pass --yes (stdin is not a terminal, so tpa cannot ask)');
  }
  const prompts = await import('@inquirer/prompts');
  // " (y/N) " and the key typed.
  const message = asked(question, 8);
  const ok = await interruptible(() => prompts.confirm({ message, default: false, theme: theme(message) }, { output: process.stderr }));
  if (!ok) throw new DeclinedError();
}

/** Asks for a line of text on stderr; `validate` returns an error message or true. */
export async function ask(message: string, options: { default?: string; validate?: (value: string) => string | true } = {}): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const question = asked(message, options.default === undefined ? 0 : displayWidth(options.default) + 4);
  return interruptible(() =>
    input({ message: question, default: options.default, validate: options.validate, required: true, theme: theme(question) }, { output: process.stderr }),
  );
}

/** Asks to choose one of `choices` (label, value) on stderr. */
export async function choose(message: string, choices: readonly { name: string; value: string }[]): Promise<string> {
  const { select } = await import('@inquirer/prompts');
  const question = asked(message);
  // Each choice wrapped under its "❯ "; the echoed answer is the choice whole (`short`), wrapped by the theme.
  const listed = choices.map((c) => ({ ...c, name: hung(c.name), short: screen(c.name) }));
  return interruptible(() => select({ message: question, choices: listed, theme: theme(question) }, { output: process.stderr }));
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
