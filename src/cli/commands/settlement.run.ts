// Handlers of `tpa settlement` (declared in settlement.ts).
import type { ApiResult } from '../../client/client.js';
import type { SettlementPending, SettlementRecord, SettlementTransfer } from '../../client/types.js';
import { parseDuration } from '../../domain/duration.js';
import { EXIT, PendingError, UsageError } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { Handler } from '../action.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'REFUNDED']);
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export function settlementTable(t: TableTools, s: SettlementRecord): string {
  const parts = [
    t.keyValues([
      ['Settlement', s.settlement_id],
      ['Encounter', s.encounter_id],
      ['Transfer', s.processor_transfer_id],
      ['Status', t.status(s.status)],
      ['Total', t.amount(s.total_amount)],
      ['Initiated', s.initiated_at],
      ['Completed', s.completed_at ?? '—'],
      ...(s.failed_at ? [['Failed', s.failed_at] as [string, string]] : []),
      ['Reconciliation', t.status(s.reconciliation_status)],
    ]),
    t.table(
      [
        '#',
        'Provider',
        'Role',
        { header: 'Amount', align: 'right' },
        { header: 'Fee', align: 'right' },
        { header: 'Net', align: 'right' },
        'Payout',
        'Expected',
      ],
      s.payouts.map((p) => [
        String(p.sequence),
        `${p.provider_name} (${p.provider_npi})`,
        p.provider_role,
        t.amount(p.amount),
        t.amount(p.processor_fee),
        t.amount(p.net_to_provider),
        t.status(p.payout_status),
        p.expected_arrival,
      ]),
    ),
  ];
  if (s.aeob_match) {
    const m = s.aeob_match;
    parts.push(
      `AEOB ${m.aeob_reference}: ${t.status(m.match_status)}, AEOB ${t.amount(m.aeob_amount)} vs settled ${t.amount(m.settlement_amount)}, variance ${t.amount(m.variance)}`,
    );
  }
  if (s.refund_details) {
    const r = s.refund_details;
    const gross = r.gross_amount === undefined ? '' : ` of ${t.amount(r.gross_amount)} sent, processor fees of ${t.amount(r.fees_not_returned)} not returned`;
    parts.push(`Refund ${r.refund_id}: ${t.amount(r.amount)} came back${gross}, on ${r.refunded_at} (${r.reason})`);
  }
  const previous = s.previous_transfers ?? [];
  if (previous.length > 0) {
    parts.push(
      t.c.bold('Earlier transfers'),
      t.table(
        ['Settlement', 'Transfer', 'Status', { header: 'Total', align: 'right' }, 'Initiated', 'Ended'],
        previous.map((p: SettlementTransfer) => [
          p.settlement_id,
          p.processor_transfer_id,
          t.status(p.status),
          t.amount(p.total_amount),
          p.initiated_at,
          p.failed_at ?? p.refund_details?.refunded_at ?? p.completed_at ?? '—',
        ]),
      ),
    );
  }
  return parts.join('\n');
}

export const show: Handler = async (ctx, [encounterId], opts) => {
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (opts.timeout !== undefined) {
    const ms = parseDuration(String(opts.timeout));
    if (ms === undefined) throw new UsageError(`--timeout: "${String(opts.timeout)}" is not a duration such as 30s, 10m or 1h`);
    timeoutMs = ms;
  }
  const client = await ctx.client();
  const started = Date.now();
  let result: ApiResult<SettlementRecord | SettlementPending> = await client.settlement(encounterId!);
  // --wait: poll (5 s, backing off to 30 s) until the transfer is final or the timeout passes.
  for (let delay = 5000; opts.wait && !FINAL.has(result.body.status); delay = Math.min(delay * 2, 30_000)) {
    const left = started + timeoutMs - Date.now();
    if (left <= 0)
      throw new PendingError(`the settlement of ${encounterId} is still ${result.body.status} after ${Math.round(timeoutMs / 1000)}s`, {
        body: result.body,
        status: result.status,
      });
    ctx.progress(`settlement of ${encounterId} is ${result.body.status}; checking again in ${Math.round(Math.min(delay, left) / 1000)}s`);
    await new Promise((r) => setTimeout(r, Math.min(delay, left)));
    result = await client.settlement(encounterId!);
  }
  if (result.status === 202) {
    const pending = result.body as SettlementPending;
    ctx.note(`not finished: ${pending.message}`);
    return {
      data: pending,
      exitCode: EXIT.PENDING,
      table: (t) =>
        t.keyValues([
          ['Encounter', pending.encounter_id],
          ['Status', t.status(pending.status)],
          ['Adjudication complete', pending.adjudication_complete ? 'yes' : 'no'],
          ['Funding approved', pending.funding_approved ? 'yes' : 'no'],
        ]),
    };
  }
  const record = result.body as SettlementRecord;
  return {
    data: record,
    items: record.payouts.map((p) => ({ settlement_id: record.settlement_id, encounter_id: record.encounter_id, status: record.status, ...p })),
    table: (t) => settlementTable(t, record),
  };
};

/** `tpa settlement report` (cli/settlement-report.ts, domain/report.ts). */
export const report: Handler = async (ctx, _args, opts) => (await import('../settlement-report.js')).settlementReport(ctx, opts);
