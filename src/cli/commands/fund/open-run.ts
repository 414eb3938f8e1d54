// Before a new payment run is selected: an open run of the same profile (confirmed, approvals left,
// not closed) is never silently shadowed by it (docs/jobs.md "Payment runs"). On a terminal it is
// offered: continue it (the default), close it, or quit; without one (or with --yes) the new run is
// refused (exit 4, nothing sent), naming the command that continues it and the one that closes it.
import type { OpenRun } from '../../../jobs/job-journals.js';
import { type DatabaseIdentity, journalsDir } from '../../../jobs/journal.js';
import type { RunJournal } from '../../../jobs/payment-run.js';
import { formatCentsGrouped } from '../../../domain/money.js';
import { ConflictError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { terminalWidth } from '../../io.js';
import { suggestCommand } from '../../options.js';
import { choose, DeclinedError } from '../../prompt.js';
import { moneyTarget, promptTag, writeTargetLine } from '../../where.js';

/**
 * The journal of the open run to continue, or undefined when a new run is to be selected (none is
 * open, every open one was closed here, or this is a dry run, which only mentions them).
 */
export async function offerOpenRun(
  ctx: Context,
  dryRun: boolean,
  sealKey: () => Promise<Buffer | undefined>,
  database: DatabaseIdentity | undefined,
): Promise<RunJournal | undefined> {
  const { openRuns } = await import('../../../jobs/job-journals.js');
  const runs = await import('../../../jobs/payment-run.js');
  if (database) await refuseOthersOpen(ctx, dryRun, database.id);
  for (;;) {
    const open = openRuns(journalsDir(ctx.paths.dataDir), ctx.profileName, ctx.profile().base_url ?? null, database?.id);
    if (open.length === 0) return undefined;
    const what = open.length === 1 ? 'a payment run of this profile is open' : `${open.length} payment runs of this profile are open`;
    if (dryRun) {
      ctx.note(`${what} (${open.map((r) => r.prefix).join(', ')}): tpa fund run offers to continue or close it before a new run`);
      return undefined;
    }
    if (!ctx.canPrompt || ctx.yes)
      throw new ConflictError(
        [`${what}, and a new run would leave it open: nothing was sent.`, ...open.flatMap((r) => [`${describe(r)}:`, ...commands(ctx, r)])].join('\n'),
        { code: 'payment_run_open' },
      );
    // A money screen: where the money moves is its first line, and the question carries the
    // environment's tag, as fund approve's and fund run's do (docs/approval.md "Approval screens").
    const target = await moneyTarget(ctx);
    writeTargetLine(ctx, target, terminalWidth(ctx.io.stderr));
    for (const r of open) ctx.note(`open payment run ${describe(r)}; journal ${r.summary.path}`);
    const choice = await choose(`${promptTag(target)}A new run would leave it open. Continue it, close it, or quit?`, [
      ...open.map((r) => ({ name: `Continue ${r.prefix}: ${r.left} approvals left, ${formatCentsGrouped(r.leftCents)}`, value: `continue:${r.summary.path}` })),
      ...open.map((r) => ({ name: `Close ${r.prefix}: its ${r.left} left never sent; then a new run`, value: `close:${r.summary.path}` })),
      { name: 'Quit: send nothing', value: 'quit' },
    ]);
    if (choice === 'quit') throw new DeclinedError('nothing was sent');
    const path = choice.slice(choice.indexOf(':') + 1);
    const journal = await runs.RunJournal.open(path, await sealKey(), { toClose: choice.startsWith('close:'), database });
    if (choice.startsWith('continue:')) {
      if (journal.closed) {
        journal.close();
        runs.refuseClosed(journal);
      }
      return journal;
    }
    try {
      const { FundHistory } = await import('../../../jobs/fund-history.js');
      const history = FundHistory.open(ctx.paths.dataDir);
      try {
        const { notSent } = await runs.closeRun(await ctx.client(), journal, ctx.profileName, { log: history, dataDir: ctx.paths.dataDir });
        ctx.note(`closed the payment run ${journal.plan!.prefix}: ${notSent.length} approvals recorded as not sent. Nothing was sent`);
      } finally {
        history.close();
      }
    } finally {
      journal.close();
    }
  }
}

/** "AUTH-20261123-RUN: 370 of 392 approvals left (127,105.50 of 134,471.50), confirmed 2026-11-23 14:02 UTC" */
export function describe(r: OpenRun): string {
  const confirmed = r.summary.started_at ? `, confirmed ${r.summary.started_at.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `${r.prefix}: ${r.left} of ${r.count} approvals left (${formatCentsGrouped(r.leftCents)} of ${formatCentsGrouped(r.summary.total_cents ?? 0)})${confirmed}`;
}

/** The two ways on from an open run, each a command that runs as printed. */
function commands(ctx: Pick<Context, 'profileName' | 'profileExplicit'>, r: OpenRun): string[] {
  return [
    `  continue it: ${suggestCommand(ctx, ['fund', 'run', '--journal', r.summary.path, '--yes'])}`,
    `  close it (nothing is sent; its approvals left are recorded as not sent): ${suggestCommand(ctx, ['jobs', 'close', r.summary.id])}`,
  ];
}

/**
 * An open run of another profile on the same database (the local profile and `tpa local serve` on
 * one data directory): a new run here would shadow it and skip, as funded meanwhile, the encounters
 * it still owes. It is continued or closed on its own profile first (a dry run only mentions it).
 */
async function refuseOthersOpen(ctx: Context, dryRun: boolean, database: string): Promise<void> {
  const { openRunsOfOtherProfiles } = await import('../../../jobs/job-journals.js');
  const others = openRunsOfOtherProfiles(journalsDir(ctx.paths.dataDir), ctx.profileName, ctx.profile().base_url ?? null, database);
  if (others.length === 0) return;
  const where = (r: OpenRun) => `the profile ${r.summary.profile}${r.summary.base_url ? ` (${r.summary.base_url})` : ''}`;
  if (dryRun) {
    for (const r of others) ctx.note(`a payment run of ${where(r)} is open on this same database: ${describe(r)}`);
    return;
  }
  throw new ConflictError(
    [
      `a payment run of another profile is open on this same database, and a new run would leave it open: nothing was sent.`,
      // The commands on the run's own profile, whatever this one is.
      ...others.flatMap((r) => [`${describe(r)}, confirmed on ${where(r)}:`, ...commands({ profileName: r.summary.profile!, profileExplicit: true }, r)]),
    ].join('\n'),
    { code: 'payment_run_open' },
  );
}
