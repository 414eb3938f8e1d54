// Revealing an adjudication: decided when its claim is accepted, shown when the engine clock reaches
// its ready time (the claim's own request when there is no delay, else the first request after).
import type { Adjudication } from '../../domain/adjudication.js';
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { inWriteTransaction } from '../store/db.js';
import { addStatus, completeAdjudication, dueAdjudications } from '../store/encounters.js';
import { addHistory, finalLedgerStatus, type HistoryEntry } from './encounters.js';

/** The history entry that reveals an adjudication at its ready time. */
export function revealEntry(adjudication: Adjudication, claimResponseId: string, at: string): HistoryEntry {
  const status = finalLedgerStatus(adjudication.disposition);
  if (status === 'DENIED')
    return { type: 'DENIED', timestamp: at, reference: adjudication.denialCode, description: `Claim denied: ${adjudication.denialReason}` };
  if (status === 'PENDED')
    return { type: 'PENDED', timestamp: at, reference: adjudication.pendReason, description: 'Waiting for a preauthorization reference from the provider' };
  const t = adjudication.totals;
  return {
    type: 'ADJUDICATION',
    timestamp: at,
    reference: claimResponseId,
    description: `Claim adjudicated: ${adjudication.disposition}, allowed ${formatCentsGrouped(t.allowedCents)}, benefit ${formatCentsGrouped(t.benefitCents)}`,
    financialImpact: {
      benefit_amount: centsToAmount(t.benefitCents),
      copay_applied: centsToAmount(t.copayCents),
      coinsurance_applied: centsToAmount(t.coinsuranceCents),
    },
  };
}

/** Completes every adjudication whose ready time the engine clock has reached. */
export function completeDueClaims(ctx: EngineContext): void {
  const due = dueAdjudications(ctx.db, isoSeconds(ctx.clock.now()));
  if (due.length === 0) return;
  inWriteTransaction(ctx.db, () => {
    for (const row of due) {
      const adjudication = JSON.parse(row.outcome_json) as Adjudication;
      const status = finalLedgerStatus(adjudication.disposition);
      // Another process may have completed it between the read and this write.
      if (!completeAdjudication(ctx.db, row.id, status)) continue;
      addStatus(ctx.db, row.id, status, row.ready_at);
      addHistory(ctx.db, row.id, revealEntry(adjudication, row.claim_response_id, row.ready_at));
    }
  });
}
