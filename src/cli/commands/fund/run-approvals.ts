// A confirmed payment run's approvals, as `tpa fund run` shows them: each outcome as it happens
// (a row of -o ndjson/csv/json, a note on stderr when it failed or is owed again), then the summary.
// The runner (jobs/payment-run.ts) sends them, each exactly once, from the run's journal.
import { FundHistory } from '../../../jobs/fund-history.js';
import { executeRun, type ApprovalOutcome, type RunJournal, type RunPlan } from '../../../jobs/payment-run.js';
import { formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { wrapProse } from '../../../render/text.js';
import { tableTools, type CommandOutput } from '../../../render/output.js';
import { recordWriter } from '../../listing.js';
import type { Context } from '../../context.js';
import { limitNote, pacedState } from '../../status-line.js';
import { count } from '../../../render/format.js';
import { terminalWidth } from '../../io.js';
import { periodArgs, suggestCommand } from '../../options.js';

/** Sends what the confirmed plan has left, reports each outcome as it comes, and sums the run up. */
export async function approveRun(ctx: Context, journal: RunJournal, plan: RunPlan): Promise<CommandOutput> {
  const client = await ctx.client();
  const table = ctx.format === 'table';
  const writer = table
    ? undefined
    : recordWriter<ApprovalOutcome>(ctx, 'the run went on: each approval is recorded in its journal as the service answered it (the summary above)');
  const resume = suggestCommand(ctx, ['fund', 'run', '--journal', journal.path]);
  let done = 0;
  // Ctrl-C: what was sent is in the journal. The progress line goes (its time left no longer holds); the note says how far the run got.
  const onSignal = () => {
    ctx.status.clear();
    ctx.note(`interrupted after ${done} of ${plan.encounters.length} approvals: the journal says what was approved; continue with: ${resume}`);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  let result;
  let history: FundHistory | undefined;
  try {
    history = FundHistory.open(ctx.paths.dataDir);
    // The line of a paced job, as a batch's (status-line.ts pacedState): redrawn on each approval and
    // while a rate-limit window is waited out, the count of the whole run, the rate and time left by the limit.
    const live = ctx.io.stderr.isTTY;
    result = await executeRun(client, journal, {
      onProgress: live
        ? (p) =>
            ctx.status.show(
              { ...pacedState(p, 'approvals', Date.now(), p.before > 0 ? `${count(p.before)} before` : undefined), label: 'approving' },
              p.waitingMs !== undefined || p.done === p.total,
            )
        : undefined,
      onLimit: live ? (l) => ctx.note(limitNote(l, { requests: 'approvals', unit: 'approval', left: true })) : undefined,
      history: { log: history, dataDir: ctx.paths.dataDir, profile: ctx.profileName, environment: ctx.profile().env },
      onOutcome: (o) => {
        done++;
        writer?.write([o]);
        if (o.status === 'FAILED') ctx.note(`${o.encounter_id}: failed: ${o.message ?? ''}`);
        if (o.status === 'OWED') ctx.note(`${o.encounter_id}: ${o.message ?? 'owed again'}`);
      },
      onNote: (text) => ctx.note(text),
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    writer?.end();
    history?.close();
  }
  const counts = { APPROVED: 0, SKIPPED: 0, FAILED: 0, OWED: 0 };
  for (const o of result.outcomes) counts[o.status]++;
  const t = await tableTools(table ? ctx.color : ctx.colorErr, terminalWidth(table ? ctx.io.stdout : ctx.io.stderr));
  const owed = result.owedCents > 0 ? `; ${formatCentsGrouped(result.owedCents)} owed again (transfers FAILED or REFUNDED since approval)` : '';
  const headline = `Payment run ${plan.prefix}: ${formatCentsGrouped(result.approvedCents)} approved of ${formatCentsGrouped(plan.total_cents)}${skippedText(result.outcomes)}${owed}`;
  const summary = [
    t.c.bold(wrapProse(headline, t.width)),
    t.keyValues([
      ['Approved', String(counts.APPROVED)],
      ['Skipped', String(counts.SKIPPED)],
      ['Failed', String(counts.FAILED)],
      ...(counts.OWED > 0 ? ([['Owed again', `${counts.OWED} (${formatCentsGrouped(result.owedCents)})`]] as [string, string][]) : []),
      ['Not yet sent', String(plan.encounters.length - result.outcomes.length)],
      ['Journal', journal.path],
      ['Next', nextStep(ctx, plan, result.stopped || result.outcomes.length < plan.encounters.length ? resume : undefined)],
      // The engine's audit head after the last release, for the operator to keep elsewhere (docs/local.md "The audit chain").
      ...(result.auditHead ? ([['Audit head', `record ${result.auditHead.seq} ${result.auditHead.hash}`]] as [string, string][]) : []),
    ]),
  ].join('\n');
  if (table) {
    const rows = result.outcomes.map((o) => [o.authorization_code, o.encounter_id, t.amount(o.amount), t.status(o.status), o.processor_transfer_id ?? '—']);
    ctx.io.stdout.write(`${t.table(['Authorization', 'Encounter', { header: 'Amount', align: 'right' }, 'Status', 'Transfer'], rows)}\n${summary}\n`);
  } else ctx.io.stderr.write(`${summary}\n`);
  if (result.stopped) ctx.note(`stopped: ${result.stopped.message}; continue with: ${resume}`);
  if (counts.OWED > 0)
    ctx.note(
      `${counts.OWED} encounter(s) owed again: this run never sends an approval twice. Fund them anew after a review and a confirmation: a new run (${suggestCommand(ctx, ['fund', 'run', ...periodArgs(plan.filters)])}, with a new prefix) selects them again, or ${suggestCommand(ctx, ['fund', 'approve', { placeholder: 'encounter_id' }])}`,
    );
  return { exitCode: result.exitCode };
}

/**
 * What the summary says of the encounters skipped, which another approval funds: how much, and
 * which approvals (authorization code, transfer), so that a skip never reads as a shortfall:
 * "; 2,052.00 skipped: funded meanwhile by another approval (AUTH-20261208-DESK-0001, transfer tr_…)".
 */
function skippedText(outcomes: readonly ApprovalOutcome[]): string {
  const skipped = outcomes.filter((o) => o.status === 'SKIPPED');
  if (skipped.length === 0) return '';
  const cents = skipped.reduce((n, o) => n + (jsonNumberToCents(o.amount) ?? 0), 0);
  const by = [
    ...new Set(skipped.map((o) => `${o.funded_by ?? 'authorization unknown'}${o.processor_transfer_id ? `, transfer ${o.processor_transfer_id}` : ''}`)),
  ];
  const shown = by.slice(0, 3).join('; ');
  const more = by.length > 3 ? `; and ${by.length - 3} more: tpa fund history` : '';
  const when = skipped.every((o) => o.message?.startsWith('funded meanwhile')) ? 'meanwhile ' : '';
  return `; ${formatCentsGrouped(cents)} skipped: funded ${when}by ${by.length === 1 ? 'another approval' : 'other approvals'} (${shown}${more})`;
}

/**
 * What to run after the run, as `fund approve` ends with one: the command that continues it when
 * approvals are left; else the transfers it started, as they arrive: the settlement of its one
 * encounter, or the finance desk's report over the run's period (its --from/--to, else the
 * service dates of its encounters) and provider.
 */
function nextStep(ctx: Context, plan: RunPlan, resume: string | undefined): string {
  if (resume !== undefined) return resume;
  const e = plan.encounters;
  if (e.length === 1) return suggestCommand(ctx, ['settlement', 'show', e[0]!.encounter_id]);
  const dates = e.map((x) => x.service_date).sort();
  const f = plan.filters;
  return suggestCommand(ctx, [
    'settlement',
    'report',
    ...periodArgs({ start_date: f.start_date ?? dates[0], end_date: f.end_date ?? dates.at(-1), provider_npi: f.provider_npi }),
  ]);
}
