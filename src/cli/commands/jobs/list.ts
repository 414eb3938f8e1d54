// tpa jobs (list): every journal of a long job on this machine, newest first, with what it holds.
import { screen } from '../../../render/screen.js';
import { verb } from '../../verb.js';
import { count, journalsDir, SUMMARY_COLUMNS, summaryRecord } from './journals.js';

export const list = verb({
  name: 'list',
  description: 'list the journals of claim batches, single claims and payment runs on this machine: done, pending, failed, invalid',
  isDefault: true,
  examples: ['tpa jobs', 'tpa jobs -o json', 'tpa jobs show <job>   # one in detail'],
  async run(ctx) {
    const { journalPaths, readJob } = await import('../../../client/job-journals.js');
    const summaries = journalPaths(journalsDir(ctx))
      .map((p) => readJob(p).summary)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const records = summaries.map(summaryRecord);
    return {
      data: records,
      items: records,
      columns: [...SUMMARY_COLUMNS],
      table: (t) => {
        if (summaries.length === 0) return `no jobs on this machine (the journals of claim batches and payment runs are kept in ${journalsDir(ctx)})`;
        // The columns that fit: the profile and the time go first on a narrow terminal (tpa jobs show says them).
        const width = t.width ?? Number.POSITIVE_INFINITY;
        const withKind = width >= 100;
        const withUpdated = width >= 110;
        const withProfile = width >= 125;
        const right = (header: string) => ({ header, align: 'right' as const });
        const columns = [
          'Job',
          ...(withKind ? ['Kind'] : []),
          ...(withProfile ? ['Profile'] : []),
          'State',
          right('Done'),
          right('Pending'),
          right('Failed'),
          right('Invalid'),
          ...(withUpdated ? ['Updated (UTC)'] : []),
        ];
        const rows = summaries.map((s) => [
          screen(s.id),
          ...(withKind ? [s.kind] : []),
          ...(withProfile ? [screen(s.profile ?? '-')] : []),
          s.state === 'running' ? t.c.bold(s.state) : s.state === 'incomplete' || s.state === 'damaged' ? t.c.yellow(s.state) : s.state,
          count(s.done),
          count(s.pending),
          s.failed > 0 ? t.c.red(count(s.failed)) : '0',
          s.invalid > 0 ? t.c.red(count(s.invalid)) : '0',
          ...(withUpdated ? [s.updated_at.slice(0, 16).replace('T', ' ')] : []),
        ]);
        return `${t.table(columns, rows)}\nDetails of one: tpa jobs show <job>`;
      },
    };
  },
});
