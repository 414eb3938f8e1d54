// tpa fund history: the approvals made from this machine, newest last, with their outcomes and
// what became of each approved transfer (one settlement read per encounter of the active profile).
import { withCsvAmounts } from '../../../domain/csv.js';
import { instantOf } from '../../../domain/period.js';
import { ValidationFailed } from '../../../errors.js';
import type { ApprovalRecord, HistoryRow } from '../../../jobs/fund-history.js';
import type { Context } from '../../context.js';
import { wrapProse } from '../../../render/text.js';
import type { TableTools } from '../../../render/output.js';
import { option, fieldsOf, verb } from '../../verb.js';

/** An approval's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const HISTORY_FIELDS = fieldsOf<HistoryRow & { history: string | null }>({
  id: true,
  at: true,
  profile: true,
  environment: true,
  encounter_id: true,
  amount: true,
  authorization_code: true,
  outcome: true,
  processor_transfer_id: true,
  error_code: true,
  message: true,
  transfer_status: true,
  closed_as: true,
  replaced_by: true,
  database: true,
  history: true,
});

export const history = verb({
  name: 'history',
  description:
    'the approvals made from this machine (any profile): when, where, encounter, amount, authorization code, outcome, transfer and its status now (read from the settlement: once it failed or was refunded, OWED, ENDED when another approval funds it since, or CLOSED when a corrected claim closed the claim since, SUPERSEDED by its replacement or VOIDED: nothing is owed on it); REFUSED with the reason the service gave; UNKNOWN while an answer lost is not yet found out; SKIPPED when another approval funded it meanwhile; NOT_SENT when an interrupted run never sent it. `at` and --from/--to are the clock of this machine, when the request was sent; the service dates a release by its own (an engine clock set by `tpa local clock`): for its days, `tpa ledger list --by funded --period <day>`',
  options: {
    from: option.text('--from <date>', "sent on or after this day (YYYY-MM-DD, UTC) of this machine's clock, as `at` is"),
    to: option.text('--to <date>', "sent on or before this day (YYYY-MM-DD, UTC) of this machine's clock, as `at` is"),
  },
  fields: HISTORY_FIELDS,
  examples: ['tpa fund history', 'tpa fund history --from 2026-11-23 -o csv'],
  async run(ctx, _args, { from, to }) {
    for (const [name, day] of [
      ['--from', from],
      ['--to', to],
    ] as const)
      if (day !== undefined && !(/^\d{4}-\d{2}-\d{2}$/.test(day) && instantOf(day, 'start') !== undefined))
        throw new ValidationFailed(`${name}: "${day}" is not a date (YYYY-MM-DD)`);
    const { FundHistory, historyOf, withTransfers } = await import('../../../jobs/fund-history.js');
    const records = FundHistory.read(ctx.paths.dataDir).filter((a) => (!from || a.at >= from) && (!to || a.at.slice(0, 10) <= to));
    // An approval of this profile sent to another database than the one answering now (a reset, a
    // restore) is history: shown apart, its transfer not read (this database does not hold it).
    const current = await answeringDatabase(ctx, records);
    const why = new Map(records.map((a) => [a.id, a.profile === ctx.profileName ? historyOf(a, current) : undefined]));
    const checked = await withTransfers(
      () => ctx.client(),
      records.filter((a) => !why.get(a.id)),
      ctx.profileName,
      ctx.note,
    );
    const byId = new Map(checked.map((r) => [r.id, r]));
    // error_code in every form, null but for a refusal (older records have none); database null when not recorded.
    const rows = records.map((a) => {
      const r = byId.get(a.id) ?? { ...a, transfer_status: null, closed_as: null, replaced_by: null };
      return { ...r, error_code: r.error_code ?? null, database: a.database ?? null, history: why.get(a.id) ?? null };
    });
    const now = rows.filter((r) => r.history === null);
    const past = rows.filter((r) => r.history !== null);
    const reason = (a: (typeof rows)[number]) =>
      a.outcome === 'REFUSED' ? [a.error_code, a.message].filter(Boolean).join(': ') || '—' : a.outcome === 'APPROVED' ? '—' : (a.message ?? '—');
    const withReasons = rows.some((a) => reason(a) !== '—');
    return {
      data: rows,
      // In CSV an amount has two decimals, as a spreadsheet shows money (domain/csv.ts csvAmount).
      items: ctx.format === 'csv' ? rows.map((r) => withCsvAmounts(r, ['amount'])) : rows,
      columns: HISTORY_FIELDS,
      table: (t: TableTools) => {
        if (rows.length === 0) return 'No approvals from this machine.';
        const tableOf = (list: typeof rows) =>
          t.table(
            // One line an approval at any width: on a narrow terminal the profile, the transfer's status,
            // the transfer, the authorization code and the reason give way, in that order (json and csv have them all).
            [
              { header: 'When', drop: 6 },
              { header: 'Profile', drop: 1 },
              'Encounter',
              { header: 'Amount', align: 'right' },
              { header: 'Authorization', drop: 4 },
              { header: 'Outcome', whole: true },
              { header: 'Transfer', drop: 3 },
              { header: 'Transfer status', whole: true, drop: 2 },
              ...(withReasons ? [{ header: 'Reason', drop: 5 }] : []),
            ],
            list.map((a) => [
              a.at.replace(/\.\d+Z$/, 'Z'),
              `${a.profile} (${a.environment})`,
              a.encounter_id,
              t.amount(a.amount),
              a.authorization_code,
              outcomeText(t, a),
              a.processor_transfer_id ?? '—',
              a.transfer_status === null ? (a.outcome === 'APPROVED' ? 'not checked' : '—') : t.status(a.transfer_status),
              ...(withReasons ? [reason(a)] : []),
            ]),
            { list: true },
          );
        // Each database before a reset or restore apart, after this one's: its approvals are not this database's money.
        const databases = [...new Set(past.map((r) => r.database))];
        const apart = databases.map((d) => {
          const list = past.filter((r) => r.database === d);
          const why = `History: ${list.length} approval${list.length === 1 ? '' : 's'} sent to database ${d} (before a reset or restore), not held by the database answering now (${current?.id})`;
          return `${wrapProse(why, t.width)}\n${tableOf(list)}`;
        });
        return [...(now.length > 0 ? [tableOf(now)] : []), ...apart].join('\n');
      },
    };
  },
});

/**
 * The database the active profile answers with now (journal.ts databaseOf), read only when one of
 * its approvals names the database it was sent to; undefined when none does, or it cannot be read
 * (nothing is then shown as history).
 */
async function answeringDatabase(ctx: Context, records: readonly ApprovalRecord[]): Promise<{ id: string } | undefined> {
  if (!records.some((a) => a.profile === ctx.profileName && typeof a.database === 'string')) return undefined;
  const { databaseOf } = await import('../../../jobs/journal.js');
  try {
    return await databaseOf(await ctx.client());
  } catch {
    return undefined;
  }
}

/** The outcome as the table says it: OWED, ENDED and CLOSED say what they mean. */
function outcomeText(t: TableTools, a: HistoryRow): string {
  if (a.outcome === 'OWED') return `${t.status('OWED')} (owed again)`;
  if (a.outcome === 'ENDED') return `${t.status('ENDED')} (funded since)`;
  if (a.outcome === 'CLOSED')
    return `${t.status('CLOSED')} (${a.closed_as === 'SUPERSEDED' ? `SUPERSEDED${a.replaced_by ? ` by ${a.replaced_by}` : ''}` : 'VOIDED'}: nothing owed)`;
  return t.status(a.outcome);
}
