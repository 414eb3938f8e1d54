// One settlement record as a table: `settlement show` prints it, and so does `local simulate`.
import type { SettlementRecord, SettlementTransfer } from '../../../client/types.js';
import type { TableTools } from '../../../render/output.js';
import { wrapProse } from '../../../render/text.js';

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
    // No AEOB from the payer: said in words, with no reference or amount of an AEOB that is not there.
    // Sentences, wrapped at spaces to the terminal's width: never a word cut in two.
    parts.push(
      wrapProse(
        m.match_status === 'MISSING_AEOB' || m.aeob_reference === null
          ? `AEOB missing: the payer has no AEOB for this claim (${t.status(m.match_status)}); the ${t.amount(m.settlement_amount)} settled is matched against nothing`
          : `AEOB ${m.aeob_reference}: ${t.status(m.match_status)}, AEOB ${t.amount(m.aeob_amount)} vs settled ${t.amount(m.settlement_amount)}, variance ${t.amount(m.variance)}`,
        t.width,
      ),
    );
  }
  if (s.refund_details) {
    const r = s.refund_details;
    const gross = r.gross_amount === undefined ? '' : ` of ${t.amount(r.gross_amount)} sent, processor fees of ${t.amount(r.fees_not_returned)} not returned`;
    parts.push(wrapProse(`Refund ${r.refund_id}: ${t.amount(r.amount)} came back${gross}, on ${r.refunded_at} (${r.reason})`, t.width));
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
