// The one confirmation grammar of `fund approve` and `fund run` (docs/approval.md "Approval screens"):
// the approver types the amount shown, never pre-filled, and the amount typed is the confirmation;
// the authorization code is the approver's reference, offered in the recommended format dated by the
// engine's clock, and a code of another shape is warned about, not refused.
import type { TpaClient } from '../../../client/client.js';
import type { LedgerDetail } from '../../../client/types.js';
import { AUTHORIZATION_CODE_FORMAT, hasRecommendedShape, isRecommendedPrefix } from '../../../domain/funding.js';
import { formatCentsGrouped, parseTypedAmount } from '../../../domain/money.js';
import { UsageError } from '../../../errors.js';
import { ask } from '../../prompt.js';
import type { Context } from '../../context.js';
import { suggestCommand } from '../../options.js';

/**
 * Asks the approver to type `totalCents` back (`question`, then "type the <noun> to release (2,460.00)
 * to confirm"): accepted as tpa prints it or plain ($2,460.00, 2460); anything else is asked again
 * with the reason, Ctrl-C sends nothing. Nothing is pre-filled: Enter alone is never a yes.
 */
export async function typeToConfirm(totalCents: number, question: string, noun: 'amount' | 'total'): Promise<void> {
  const shown = formatCentsGrouped(totalCents);
  const typedCents = (v: string) => {
    const r = parseTypedAmount(v);
    return 'cents' in r ? r.cents : undefined;
  };
  // The instruction on a line of its own: however the question wraps, it reads whole.
  const typed = await ask(`${question}:\n  type the ${noun} to release (${shown}) to confirm`, {
    validate: (v) => {
      const r = parseTypedAmount(v);
      if ('problem' in r) return `${r.problem}: type ${shown}, or press Ctrl-C to send nothing`;
      return r.cents === totalCents
        ? true
        : `${formatCentsGrouped(r.cents)} differs from the ${noun} of ${shown}: type ${shown}, or press Ctrl-C to send nothing`;
    },
  });
  if (typedCents(typed) !== totalCents) throw new UsageError(`the ${noun} typed is not the ${noun} shown: nothing was sent`);
}

/** The day of the engine's clock (YYYY-MM-DD), which `tpa local clock` may have moved; the machine's day if the service cannot say. */
export async function engineDay(client: TpaClient): Promise<string> {
  try {
    const time = (await client.health()).body.time;
    if (typeof time === 'string' && /^\d{4}-\d{2}-\d{2}/.test(time)) return time.slice(0, 10);
  } catch {
    // The date only shapes the code offered: the machine's day will do.
  }
  return new Date().toISOString().slice(0, 10);
}

/**
 * The authorization code tpa offers for a new approval of the encounter `detail` shows, wherever it
 * offers one (fund approve's prompt, settlement show's next step): dated by the engine's clock, the
 * next free one past every code the encounter's ledger and this machine's history hold (`taken`,
 * when the caller has read them already).
 */
export async function offeredAuthorizationCode(
  ctx: { paths: { dataDir: string } },
  client: TpaClient,
  detail: LedgerDetail,
  taken?: Iterable<string>,
): Promise<string> {
  const { nextFreeAuthorizationCode } = await import('../../../jobs/fund-history.js');
  return nextFreeAuthorizationCode(ctx.paths.dataDir, detail, await engineDay(client), taken);
}

/** The review's line about the code: whose it is, what it is for, and its recommended format (the code offered at the prompt follows it). */
export function codeReferenceLine(what: 'code' | 'prefix'): string {
  return what === 'code'
    ? `The authorization code is your reference for the audit trail (${AUTHORIZATION_CODE_FORMAT}).`
    : `The authorization codes are your reference for the audit trail: <prefix>-0001, -0002, … (${AUTHORIZATION_CODE_FORMAT}).`;
}

/** A warning for a code (or a run's codes) of another shape than the recommended one, or undefined; `offered`, when known, is given as the example; `brief` under a review that states the format. */
export function shapeWarning(code: string, offered: string | undefined, what: 'code' | 'prefix', brief = false): string | undefined {
  if (what === 'code' ? hasRecommendedShape(code) : isRecommendedPrefix(code)) return undefined;
  // Typed at the prompt, under a review that states the format: one short line, so that the line
  // naming where the money moves stays on an 80×24 screen.
  if (brief) return `warning: ${code.trim()} is not in the recommended format above; it is sent as given`;
  const example = offered === undefined ? '' : ` (e.g. ${what === 'code' ? offered : `${offered}-0001`})`;
  return what === 'code'
    ? `warning: ${code.trim()} is not in the recommended format ${AUTHORIZATION_CODE_FORMAT}${example}; it is sent as given`
    : `warning: ${code.trim()}-0001 is not in the recommended format ${AUTHORIZATION_CODE_FORMAT}${example}; the codes are sent as given`;
}

/**
 * Ctrl-C while a fund release is out (`fund approve`, `tpa api`): it may have happened. Says so and
 * how to find out (the next approval of the encounter reads the ledger first and never sends it
 * twice), then exits 130. `done()` once the answer is in.
 */
export function whileReleaseIsOut(ctx: Context, encounterId: string, code: string): { done(): void } {
  const onSignal = () => {
    ctx.note(
      `interrupted while the release of ${encounterId} (${code.trim()}) was sent: whether it happened is not known. ${suggestCommand(ctx, ['fund', 'history'])} records it UNKNOWN; ${suggestCommand(ctx, ['settlement', 'show', encounterId])} says whether it was funded, and the next approval of it reads the ledger before sending anything`,
    );
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  return { done: () => process.removeListener('SIGINT', onSignal) };
}
