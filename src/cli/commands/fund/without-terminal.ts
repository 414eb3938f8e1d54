// The rule of `fund approve` and `fund run` when nobody can be asked (stdin is not a terminal, or
// prompts are disabled): money moves only on every value given and --yes; otherwise nothing is sent.
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';

/**
 * Without a terminal to confirm on, refuses (exit 2, nothing sent) unless each option of `values`
 * was given and --yes too; the message names what is missing, in the order given. On a terminal,
 * does nothing: the command asks for what is missing and confirms.
 */
export function needsWithoutTerminal(
  ctx: Pick<Context, 'canPrompt' | 'yes'>,
  command: string,
  values: Readonly<Record<string, string | number | undefined>>,
): void {
  if (ctx.canPrompt) return;
  const missing = [...Object.entries(values).flatMap(([flag, value]) => (value === undefined ? [flag] : [])), ...(ctx.yes ? [] : ['--yes'])];
  if (missing.length > 0)
    throw new UsageError(`${command} moves money and cannot be undone; without a terminal to confirm on, it needs ${missing.join(', ')}. Nothing was sent.`);
}
