// tpa jobs show <job>: one journal in detail: what it is for, and each claim (or approval) not done,
// with why; --failed-to writes the claims that were invalid or refused as NDJSON, to fix and send again.
import { UsageError } from '../../../errors.js';
import { centsToAmount, formatCentsGrouped } from '../../../domain/money.js';
import { oneLine, screen } from '../../../render/screen.js';
import { argument, option, fieldsOf, verb } from '../../verb.js';
import type { JobItem, JobSummary } from '../../../jobs/job-journals.js';
import { asOfNow, count, findJournal, jobTime, stateText, summaryRecord } from './journals.js';

/**
 * A payment run's amount: the plan's, beside what it approved and what it skipped (funded by other
 * approvals), so that "Done" is never read as all of the plan's money sent by this run.
 */
function amountText(s: JobSummary): string {
  const planned = formatCentsGrouped(s.total_cents ?? 0);
  if (s.kind !== 'payment run' || s.approved_cents === null) return planned;
  const skipped = s.skipped ? `; ${count(s.skipped)} skipped (${formatCentsGrouped(s.skipped_cents ?? 0)}, funded by other approvals)` : '';
  return `${planned} planned; ${formatCentsGrouped(s.approved_cents)} approved${skipped}`;
}

export const show = verb({
  name: 'show',
  description: "one job's journal in detail: its claims or approvals, and why each that is not done is not",
  args: { journal: argument.required('<job>', 'the job id tpa jobs prints (or its start), or a path to a journal file') },
  options: {
    failedTo: option.text('--failed-to <file>', 'write the claims that were invalid or refused to <file>, as NDJSON (one claim a line), to fix and send again'),
    force: option.flag('--force', 'with --failed-to: replace <file> when it exists'),
  },
  fields: [
    // Each claim (or approval) of the journal, as jobs show prints it: the amount in dollars, the claim's text left out.
    ...fieldsOf<Omit<JobItem, 'amount_cents' | 'text'>>({
      source: true,
      status: true,
      detail: true,
      submission_id: true,
      external_claim_id: true,
      idempotency_key: true,
      authorization_code: true,
      funded_by: true,
      message: true,
      errors: true,
      at: true,
    }),
    'amount',
  ],
  examples: [
    'tpa jobs show claims-3f2a9c01d4e5b6a7',
    'tpa jobs show run1.journal -o ndjson   # every claim of it, one a line',
    'tpa jobs show claims-3f2a --failed-to fix.ndjson && $EDITOR fix.ndjson && tpa claim submit fix.ndjson',
  ],
  async run(ctx, { journal }, opts) {
    if (opts.force && opts.failedTo === undefined) throw new UsageError('--force is for --failed-to: it replaces the file --failed-to names');
    const path = await findJournal(ctx, journal);
    const { readJob } = await import('../../../jobs/job-journals.js');
    const [job] = (await asOfNow(ctx, [readJob(path)])) as [ReturnType<typeof readJob>];
    const s = job.summary;
    if (opts.failedTo !== undefined) {
      if (s.kind === 'payment run')
        throw new UsageError(
          "--failed-to writes claims to send again; a payment run's approvals are not (its failed ones are listed here and in tpa fund history)",
        );
      const { writeFailedClaims } = await import('./failed-to.js');
      writeFailedClaims(ctx, job.items, opts.failedTo, opts.force === true);
    }
    const rows = job.items.map(({ text: _text, amount_cents, ...item }) => ({ ...item, amount: amount_cents === null ? null : centsToAmount(amount_cents) }));
    const flat = rows.map((i) => ({ ...i, errors: i.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ') }));
    return {
      data: { ...summaryRecord(s), ...(s.state === 'closed' ? { closed_at: s.closed_at, closed_by: s.closed_by } : {}), items: rows },
      items: ctx.format === 'csv' ? flat : rows,
      table: (t) => {
        const pairs: [string, string][] = [
          ['Job', screen(s.id)],
          ['Kind', s.kind],
          ['State', stateText(s)],
          ['Journal', oneLine(s.path)],
          ['Profile', screen(`${s.profile ?? '(not recorded)'}${s.base_url ? ` (${s.base_url})` : ''}`)],
          ['Started (UTC)', s.started_at ? jobTime(s.started_at) : '(not recorded)'],
          ['Updated (UTC)', jobTime(s.updated_at)],
          ['Total', s.total === null ? '(not recorded)' : count(s.total)],
          ['Sent', count(s.sent)],
          ['Done', count(s.done)],
          ['Pending', count(s.pending)],
          ['Failed', count(s.failed)],
          ['Invalid', count(s.invalid)],
          ['Not sent', s.not_sent === null ? '(not known: no total recorded)' : count(s.not_sent)],
        ];
        if (s.history) pairs.push(['History', screen(s.history)]);
        if (s.total_cents !== null) pairs.push(['Amount', amountText(s)]);
        if (s.problem) pairs.push(['Problem', screen(s.problem)]);
        let text = t.keyValues(pairs);
        // What is not done, and a payment run's SKIPPED approvals: done, yet another approval funded them.
        const open = job.items.filter((i) => i.status !== 'DONE' || i.detail === 'SKIPPED');
        if (open.length > 0) {
          const why = (i: (typeof open)[number]) =>
            i.funded_by
              ? screen(`funded by ${i.funded_by}${i.submission_id ? `, transfer ${i.submission_id}` : ''}`)
              : screen(i.errors.length > 0 ? i.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ') : (i.message ?? ''));
          text += `\n\n${t.table(
            [s.kind === 'payment run' ? 'Encounter' : 'Source', 'Status', 'Detail', 'Why'],
            open.map((i) => [oneLine(i.source), i.status === 'PENDING' || i.status === 'DONE' ? i.status : t.c.red(i.status), i.detail, why(i)]),
            { list: true },
          )}`;
        }
        const next: string[] = [];
        if (s.failed + s.invalid > 0 && s.kind !== 'payment run')
          next.push(`to fix and send again: tpa jobs show ${s.id} --failed-to fix.ndjson, then tpa claim submit fix.ndjson`);
        // A payment run of another database is never resumed (its history says why).
        const resumable = s.state === 'incomplete' && !(s.kind === 'payment run' && s.history);
        if (resumable) next.push('pending work: run the same command again with this journal, and it continues');
        if (resumable && s.kind === 'payment run') next.push(`or close the run for good, sending nothing: tpa jobs close ${screen(s.id)}`);
        return next.length > 0 ? `${text}\n\n${next.join('\n')}` : text;
      },
    };
  },
});
