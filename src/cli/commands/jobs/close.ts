// tpa jobs close <job>: closes a payment run that was interrupted with approvals left, for good.
// Nothing is sent: the approvals left are recorded as not sent, with when and by whom, and the run
// is never continued (docs/jobs.md "Payment runs"). A new run selects what is still unfunded.
import { formatCentsGrouped } from '../../../domain/money.js';
import { ConflictError, UsageError } from '../../../errors.js';
import { oneLine, screen } from '../../../render/screen.js';
import { suggestCommand } from '../../options.js';
import { argument, verb } from '../../verb.js';
import { findJournal } from './journals.js';

export const close = verb({
  name: 'close',
  description: 'close an interrupted payment run for good: nothing is sent, its approvals left are recorded as not sent',
  args: { journal: argument.required('<job>', 'the payment run id tpa jobs prints (or its start), or a path to its journal') },
  examples: [
    'TPA_FAULT=drop:/funding/approve/ tpa fund run -p local --auth-code-prefix AUTH-20261127-ACME4 --expect-total 320.00 --yes   # the sandbox drops its approval: stopped (exit 8), open',
    'tpa jobs close fund-run-AUTH-20261127-ACME4-bc34fa58d68d',
    'tpa jobs   # closed runs are listed as closed',
  ],
  async run(ctx, { journal }) {
    const path = await findJournal(ctx, journal);
    const { readJob } = await import('../../../jobs/job-journals.js');
    const s = readJob(path).summary;
    if (s.kind !== 'payment run') throw new UsageError(`${screen(s.id)} is a ${s.kind}, not a payment run: only a payment run is closed`);
    if (s.state === 'finished') throw new ConflictError(`the payment run ${screen(s.id)} has no approval left: there is nothing to close. Nothing was sent`);
    const profile = ctx.profile();
    // Its approvals went to one service: the one whose ledger says what became of an unanswered one.
    if (s.profile !== null && (s.profile !== ctx.profileName || (s.base_url ?? null) !== (profile.base_url ?? null)))
      throw new UsageError(
        `the payment run ${screen(s.id)} was confirmed on the profile ${screen(s.profile)}: close it with -p ${screen(s.profile)}. Nothing was changed`,
      );
    const runs = await import('../../../jobs/payment-run.js');
    const { runSealKey } = await import('../../../auth/seal-key.js');
    const run = await runs.RunJournal.open(path, (await runSealKey(ctx.paths, ctx.io.env, ctx.note, false)).key, { toClose: true });
    if (run.unsealed)
      ctx.note(`the plan in ${oneLine(path)} cannot be checked against its seal (${run.unsealed}): it is closed all the same, since closing sends nothing`);
    const { FundHistory } = await import('../../../jobs/fund-history.js');
    let history: import('../../../jobs/fund-history.js').FundHistory | undefined;
    try {
      if (!run.plan) throw new UsageError(`${oneLine(path)} holds no confirmed plan: there is nothing to close`);
      history = FundHistory.open(ctx.paths.dataDir);
      const { notSent } = await runs.closeRun(await ctx.client(), run, ctx.profileName, { log: history, dataDir: ctx.paths.dataDir });
      const left = notSent.reduce((n, e) => n + e.amount_cents, 0);
      const plan = run.plan;
      ctx.note(
        `closed the payment run ${plan.prefix}: ${notSent.length} of ${plan.encounters.length} approvals (${formatCentsGrouped(left)} of ${formatCentsGrouped(plan.total_cents)}) recorded as not sent. Nothing was sent; a new run selects the encounters still unfunded: ${suggestCommand(ctx, ['fund', 'run', '--dry-run'])}`,
      );
      const closedAt = run.closed!.at;
      return {
        data: { id: s.id, prefix: plan.prefix, closed_at: closedAt, closed_by: run.closed!.by, not_sent: notSent.map((e) => e.encounter_id) },
        table: (t) =>
          t.keyValues([
            ['Closed', `${plan.prefix} (${screen(s.id)})`],
            ['At', closedAt],
            ['By', run.closed!.by],
            ['Not sent', `${notSent.length} of ${plan.encounters.length} (${formatCentsGrouped(left)})`],
          ]),
      };
    } finally {
      history?.close();
      run.close();
    }
  },
});
