// tpa jobs (list): every journal of a long job on this machine, newest first, with what it holds.
import { oneLine, screen } from '../../../render/screen.js';
import type { TableTools } from '../../../render/output.js';
import { verb } from '../../verb.js';
import type { JobSummary } from '../../../jobs/job-journals.js';
import { formatCentsGrouped } from '../../../domain/money.js';
import { displayWidth, wrapProse } from '../../../render/text.js';
import { asOfNow, count, jobTime, journalsDir, SUMMARY_COLUMNS, shortIds, summaryRecord } from './journals.js';

export const list = verb({
  name: 'list',
  description: 'list the journals of claim batches, single claims and payment runs on this machine: total, done, pending, failed, invalid, not sent',
  isDefault: true,
  fields: SUMMARY_COLUMNS,
  examples: ['tpa jobs', 'tpa jobs -o json', 'tpa jobs show fund-run-AUTH-20261127-ACME2-646cc129b701   # one in detail'],
  async run(ctx) {
    const { journalPaths, readJob } = await import('../../../jobs/job-journals.js');
    const summaries = (await asOfNow(ctx, journalPaths(journalsDir(ctx)).map(readJob)))
      .map((j) => j.summary)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const records = summaries.map(summaryRecord);
    return {
      data: records,
      items: records,
      columns: SUMMARY_COLUMNS,
      table: (t) =>
        summaries.length === 0
          ? `no jobs on this machine (the journals of claim batches and payment runs are kept in ${journalsDir(ctx)})`
          : jobsTable(t, summaries),
    };
  },
});

function jobsTable(t: TableTools, summaries: JobSummary[]): string {
  // The columns that fit: the kind and the time go first on a narrow terminal (tpa jobs show says them).
  // Total, Done, Pending, Failed, Invalid and Not sent add up to the job's total; Sent is how many went out.
  // At 80 columns: the job, its state, its total, done, pending and not sent, whatever jobs there are
  // (a job named by the shortest name tpa jobs show finds it by when its whole id does not fit); a note
  // names the jobs with failed or invalid claims. The profile: a column from 100 columns, else, when
  // the jobs are of several profiles, a table for each profile under its name.
  const width = t.width ?? Number.POSITIVE_INFINITY;
  const withFailed = width >= 96;
  const withProfile = width >= 100;
  const withSent = width >= 102;
  const withKind = width >= 118;
  const withLeft = width >= 130 && summaries.some((s) => s.kind === 'payment run');
  const withUpdated = width >= 140;
  const right = (header: string) => ({ header, align: 'right' as const });
  const columns = [
    'Job',
    ...(withKind ? [{ header: 'Kind', whole: true, drop: 3 }] : []),
    ...(withProfile ? ['Profile'] : []),
    'State',
    right('Total'),
    ...(withSent ? [right('Sent')] : []),
    right('Done'),
    right('Pending'),
    ...(withFailed ? [right('Failed'), right('Invalid')] : []),
    right('Not sent'),
    ...(withLeft ? [{ ...right('Amount left'), drop: 2 }] : []),
    ...(withUpdated ? [{ header: 'Updated (UTC)', whole: true, drop: 1 }] : []),
  ];
  const row = (names: Map<string, string> | undefined) => (s: JobSummary) => [
    oneLine(names?.get(s.id) ?? s.id),
    ...(withKind ? [s.kind] : []),
    ...(withProfile ? [screen(s.profile ?? '-')] : []),
    s.state === 'running' ? t.c.bold(s.state) : s.state === 'incomplete' || s.state === 'damaged' ? t.c.yellow(s.state) : s.state,
    s.total === null ? '?' : count(s.total),
    ...(withSent ? [count(s.sent)] : []),
    count(s.done),
    count(s.pending),
    ...(withFailed ? [s.failed > 0 ? t.c.red(count(s.failed)) : '0', s.invalid > 0 ? t.c.red(count(s.invalid)) : '0'] : []),
    s.not_sent === null ? '?' : s.not_sent > 0 ? t.c.yellow(count(s.not_sent)) : '0',
    ...(withLeft ? [s.amount_left_cents === null ? '' : formatCentsGrouped(s.amount_left_cents)] : []),
    ...(withUpdated ? [jobTime(s.updated_at)] : []),
  ];
  const profiles = [...new Set(summaries.map((s) => s.profile ?? '-'))];
  const groups = withProfile || profiles.length === 1 ? [undefined] : profiles;
  const tablesOf = (names: Map<string, string> | undefined) =>
    groups.map((p) => t.table(columns, summaries.filter((s) => p === undefined || (s.profile ?? '-') === p).map(row(names))));
  // Whole ids when the table fits with them; else each job by the shortest name tpa jobs show finds it by.
  const fits = (text: string) => text.startsWith('┌') && text.split('\n').every((l) => displayWidth(l) <= width);
  let tableList = tablesOf(undefined);
  let names: Map<string, string> | undefined;
  if (!tableList.every(fits)) {
    names = shortIds(summaries.map((s) => s.id));
    tableList = tablesOf(names);
  }
  const tables = groups.map((p, i) => (p === undefined ? tableList[i]! : `${t.c.bold(`Profile ${screen(p)}`)}\n${tableList[i]!}`)).join('\n');
  const troubled = withFailed ? [] : summaries.filter((s) => s.failed + s.invalid > 0);
  const note =
    troubled.length > 0
      ? `\nWith failed or invalid claims: ${troubled.map((s) => `${oneLine(names?.get(s.id) ?? s.id)} (${count(s.failed)} failed, ${count(s.invalid)} invalid)`).join(', ')}`
      : '';
  // A journal sent to another database (a reset, a restore): its counts are this database's, its history said here.
  const past = summaries.filter((s) => s.history !== null);
  const history =
    past.length > 0
      ? `\n${wrapProse(`History (sent to another database, before a reset or restore): ${past.map((s) => oneLine(names?.get(s.id) ?? s.id)).join(', ')}`, t.width)}`
      : '';
  return `${tables}${note}${history}\nDetails of one: tpa jobs show <job>`;
}
