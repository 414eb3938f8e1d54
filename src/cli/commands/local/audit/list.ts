// tpa local audit list: the audit records in order, filtered by date and type.
import { isoDateProblem } from '../../../../domain/validation.js';
import { UsageError } from '../../../../errors.js';
import type { TableTools } from '../../../../render/output.js';
import { option, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const list = verb({
  name: 'list',
  description: 'the audit records in order',
  options: {
    from: option.text('--from <date>', 'recorded on or after (YYYY-MM-DD or an ISO time)'),
    to: option.text('--to <date>', 'recorded on or before (YYYY-MM-DD)'),
    type: option.text(
      '--type <type>',
      'SUBMISSION, FUNDING_APPROVED, SETTLEMENT_INITIATED, PAYOUT, SETTLEMENT_COMPLETED, SETTLEMENT_FAILED, SETTLEMENT_REFUNDED, RECONCILIATION, AEOB_VARIANCE, AEOB_MISSING, SCHEDULE_FINALIZED, KEY_CREATED, KEY_ROTATED, KEY_REVOKED, CLIENT_REGISTERED, CLIENT_REVOKED',
      // The record types the description names, offered by the shell's completion.
      {
        values:
          'SUBMISSION FUNDING_APPROVED SETTLEMENT_INITIATED PAYOUT SETTLEMENT_COMPLETED SETTLEMENT_FAILED SETTLEMENT_REFUNDED RECONCILIATION AEOB_VARIANCE AEOB_MISSING SCHEDULE_FINALIZED KEY_CREATED KEY_ROTATED KEY_REVOKED CLIENT_REGISTERED CLIENT_REVOKED'.split(
            ' ',
          ),
      },
    ),
  },
  fields: ['seq', 'at', 'type', 'subject', 'actor', 'data', 'hash'],
  examples: ['tpa local audit list --type FUNDING_APPROVED -o csv'],
  async run(ctx, _args, opts) {
    for (const name of ['from', 'to'] as const) {
      const v = opts[name];
      if (v !== undefined && isoDateProblem(v.slice(0, 10))) throw new UsageError(`--${name}: "${v}" is not a date (YYYY-MM-DD)`);
    }
    const rows = await withEngine(ctx, (e) =>
      [...e.auditList({ from: opts.from, to: opts.to, type: opts.type })].map((r) => ({
        seq: r.seq,
        at: r.at,
        type: r.type,
        subject: r.subject,
        actor: r.actor,
        data: JSON.parse(r.data_json) as unknown,
        hash: r.hash,
      })),
    );
    return {
      data: rows,
      items: rows,
      // With no record, the fields every record has (a record's data.* columns depend on its type).
      columns: ['seq', 'at', 'type', 'subject', 'actor', 'hash'],
      table: (t: TableTools) =>
        rows.length === 0
          ? 'No audit records.'
          : t.table(
              // One line a record at any width: the actor, the hash, then the time give way on a narrow terminal.
              ['#', { header: 'At', drop: 3 }, 'Type', 'Subject', { header: 'Actor', drop: 1 }, { header: 'Hash', drop: 2 }],
              rows.map((r) => [String(r.seq), r.at, r.type, r.subject, r.actor ?? '—', `${r.hash.slice(0, 12)}…`]),
              { list: true },
            ),
    };
  },
});
