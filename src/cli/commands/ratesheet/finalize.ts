// tpa ratesheet finalize: the schedule becomes live contract rates from an effective date, and is
// then locked. What it would do is said before the question (or alone, with --dry-run).
import { instanceArgument } from './instance.js';
import type { TpaClient } from '../../../client/client.js';
import { isoDateProblem } from '../../../domain/validation.js';
import { fieldsInvalid } from '../../../errors.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import { counted } from '../../../render/format.js';
import { confirm } from '../../prompt.js';
import { option, verb } from '../../verb.js';

type FinalizeResult = Awaited<ReturnType<TpaClient['finalize']>>['body'];

export const finalize = verb({
  name: 'finalize',
  description: 'turn the schedule into live contract rates from an effective date (asks on a terminal; --yes otherwise); the schedule is then locked',
  args: { instanceId: instanceArgument() },
  options: {
    effectiveDate: option.text(
      '--effective-date <date>',
      "the rates' first day, YYYY-MM-DD (default: tomorrow on the engine clock, or the contract's effective date if later)",
    ),
    retroactive: option.flag(
      '--retroactive',
      'allow an effective date of today or before: services already rendered, claimed or not, are then priced at the new rates',
    ),
    dryRun: option.flag('--dry-run', 'say what finalizing would do (rates made, rates ended, codes no longer rated) and write nothing'),
  },
  examples: [
    'tpa ratesheet finalize BLD-1001 --dry-run',
    'tpa ratesheet finalize BLD-1001',
    'tpa ratesheet finalize BLD-1001 --effective-date 2026-01-01 --retroactive --dry-run   # what a retroactive one would reprice',
    'tpa ratesheet finalize BLD-1001 --effective-date 2027-01-01 --yes -o json',
  ],
  async run(ctx, { instanceId }, opts) {
    const effective = opts.effectiveDate;
    if (effective !== undefined) {
      const problem = isoDateProblem(effective);
      if (problem) throw fieldsInvalid([{ field: '--effective-date', message: problem }]);
    }
    const client = await ctx.client();
    const options = { ...(effective ? { effective_date: effective } : {}), ...(opts.retroactive ? { allow_retroactive: true } : {}) };
    // What it would do, from the service itself: said before the question, or alone with --dry-run.
    if (opts.dryRun) return shown((await client.finalize(instanceId, { ...options, dry_run: true })).body);
    if (ctx.canPrompt && !ctx.yes) {
      const plan = (await client.finalize(instanceId, { ...options, dry_run: true })).body;
      ctx.note(finalizePlanText(plan, instanceId, effective, opts.retroactive === true));
    }
    await confirm(ctx, `Finalize the rate schedule of ${instanceId} into live contract rates?`);
    return shown((await client.finalize(instanceId, options)).body);
  },
});

function shown(body: FinalizeResult): CommandOutput {
  return {
    data: body,
    table: (t: TableTools) =>
      `${body.status === 'DRY_RUN' ? 'Dry run, nothing written' : `${t.c.green('✓')} ${body.message}`}\n` +
      t.keyValues([
        ['Contract', body.contract_id],
        ['Rate records', String(body.rate_records_created)],
        ...(body.effective_date ? ([['In force from', body.effective_date]] as [string, string][]) : []),
        ...finalizeChanges(body),
      ]),
  };
}

/** The codes a finalize ends and drops, as rows of its result (when the service says them). */
function finalizeChanges(body: { codes_ended?: string[]; codes_dropped?: string[] }): [string, string][] {
  const rows: [string, string][] = [];
  if (body.codes_ended) rows.push(['Rates ended the day before', body.codes_ended.length === 0 ? 'none' : body.codes_ended.join(', ')]);
  if (body.codes_dropped) rows.push(['No longer rated', body.codes_dropped.length === 0 ? 'none' : body.codes_dropped.join(', ')]);
  return rows;
}

/** What finalizing will do, said before the question: every count with its noun, one or several. */
export function finalizePlanText(plan: FinalizeResult, instanceId: string, effective: string | undefined, retroactive: boolean): string {
  const dropped = plan.codes_dropped ?? [];
  const ended = plan.codes_ended?.length ?? 0;
  return (
    `${counted(plan.rate_records_created ?? 0, 'item')} of ${instanceId} will become live contract rates on ${plan.contract_id} from ${plan.effective_date ?? effective ?? 'tomorrow'}${retroactive ? ' (retroactive: services already rendered are priced at them)' : ''}; the schedule is then locked.` +
    (ended ? `\nThe rates in force of ${counted(ended, 'code')} end the day before.` : '') +
    (dropped.length
      ? `\n${dropped.length === 1 ? '1 code is' : `${counted(dropped.length, 'code')} are`} then no longer rated on this contract, and ${dropped.length === 1 ? 'its' : 'their'} claims are not covered: ${dropped.join(', ')}.`
      : '')
  );
}
