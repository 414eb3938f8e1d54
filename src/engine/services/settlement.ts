// Settlement records (docs/api-routes.md "GET /v1/settlement/{encounter_id}/", docs/money-funding.md "Settlement"): created
// INITIATED by a funding approval, COMPLETED at the estimated arrival on the engine clock, then
// reconciled against the AEOB: the ledger moves to RECONCILED when it matches. A transfer that FAILED or was
// REFUNDED is kept, and the encounter can be funded again: each funding is a new record (`attempt`
// 1, 2, ...); the latest is the encounter's settlement, the earlier ones its `previous_transfers`.
import { closedClaimMessage } from '../../domain/ledger.js';
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { payoutNetCents, reconcile, settledCents } from '../../domain/settlement.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { inWriteTransaction, type Db } from '../store/db.js';
import { addStatus, encounterById, type EncounterRow } from '../store/encounters.js';
import {
  completeTransfer,
  dueTransfers,
  payoutCount,
  payoutsOf,
  setPayoutsCompleted,
  setReconciliation,
  settlementById,
  settlementFor,
  settlementsOf,
  type SettlementRow,
} from '../store/settlements.js';
import { addHistory, closedClaim, encounterData } from './encounters.js';

/** A transfer still counts as the encounter's funding unless it FAILED or was REFUNDED. */
export function transferStands(s: SettlementRow): boolean {
  return s.status === 'INITIATED' || s.status === 'COMPLETED';
}

export function settlementBody(db: Db, s: SettlementRow, encounter: EncounterRow): Record<string, unknown> {
  const earlier = settlementsOf(db, s.encounter_id).filter((x) => x.attempt < s.attempt);
  return { ...transferBody(db, s, encounter), previous_transfers: earlier.map((x) => transferBody(db, x, encounter)) };
}

function transferBody(db: Db, s: SettlementRow, encounter: EncounterRow): Record<string, unknown> {
  const payouts = payoutsOf(db, s.id);
  const settled = settledCents(s.status, s.total_amount_cents);
  return {
    settlement_id: s.id,
    encounter_id: s.encounter_id,
    processor_transfer_id: s.processor_transfer_id,
    status: s.status,
    total_amount: centsToAmount(s.total_amount_cents),
    payouts: payouts.map((p) => ({
      sequence: p.sequence,
      provider_npi: p.provider_npi,
      provider_name: p.provider_name,
      provider_role: p.provider_role,
      processor_payout_id: p.processor_payout_id,
      amount: centsToAmount(p.amount_cents),
      payout_status: p.payout_status,
      payout_date: s.initiated_at,
      expected_arrival: s.estimated_arrival,
      processor_fee: centsToAmount(p.fee_cents),
      net_to_provider: centsToAmount(payoutNetCents(p.payout_status, p.amount_cents, p.fee_cents)),
    })),
    reconciliation_status: s.reconciliation_status,
    aeob_match:
      s.match_status === null
        ? null
        : {
            aeob_reference: s.match_status === 'MISSING_AEOB' ? null : encounter.aeob_reference,
            aeob_amount: s.aeob_amount_cents === null ? null : centsToAmount(s.aeob_amount_cents),
            // Net of what came back: a refunded transfer leaves nothing settled.
            settlement_amount: centsToAmount(settled),
            variance: centsToAmount(s.aeob_amount_cents === null ? settled : settled - s.aeob_amount_cents),
            match_status: s.match_status,
          },
    initiated_at: s.initiated_at,
    completed_at: s.completed_at,
    failed_at: s.failed_at,
    refund_details: s.refund_json === null ? null : JSON.parse(s.refund_json),
    disputes: [],
  };
}

export function getSettlement(ctx: EngineContext, _req: EngineRequest, params: Record<string, string>): EngineResponse {
  const encounterId = params.encounter_id!;
  const encounter = encounterById(ctx.db, encounterId);
  if (!encounter) return respond(404, { error: 'encounter_not_found', encounter_id: encounterId, message: `No encounter ${encounterId}` });
  // A closed claim has no settlement, even one whose transfer FAILED or was REFUNDED before it was
  // replaced or voided: that transfer is history (the ledger and the report's money keep it), and
  // nothing is owed on the claim.
  const closed = closedClaim(ctx.db, encounter);
  const settlement = settlementFor(ctx.db, encounterId);
  if (closed) {
    return respond(404, {
      error: 'no_settlement',
      encounter_id: encounterId,
      status: closed.status,
      ...(closed.replacedBy ? { replaced_by: closed.replacedBy } : {}),
      message: closedClaimMessage(encounterId, closed),
      // The transfers it had (FAILED or REFUNDED, nothing stays paid): history, for the books.
      ...(settlement ? { history: settlementBody(ctx.db, settlement, encounter) } : {}),
    });
  }
  if (settlement) return respond(200, settlementBody(ctx.db, settlement, encounter));
  if (encounter.status === 'DENIED') {
    return respond(404, {
      error: 'no_settlement',
      encounter_id: encounterId,
      message: `Encounter ${encounterId} was denied; it has no settlement and never will`,
    });
  }
  const adjudicated = encounter.status === 'ADJUDICATED';
  const nothingToFund = adjudicated && encounterData(encounter).adjudication.totals.benefitCents === 0;
  return respond(202, {
    encounter_id: encounterId,
    status: 'PENDING',
    message: nothingToFund
      ? 'Adjudicated with a benefit of 0.00: there is nothing to fund, and no settlement will follow'
      : adjudicated
        ? 'Adjudicated; funding has not been approved yet'
        : 'The claim is not adjudicated yet',
    adjudication_complete: adjudicated,
    funding_approved: false,
  });
}

/** Completes every transfer whose estimated arrival the clock has reached, and reconciles it. */
export function completeDueSettlements(ctx: EngineContext): void {
  const now = isoSeconds(ctx.clock.now());
  const due = dueTransfers(ctx.db, now);
  if (due.length === 0) return;
  inWriteTransaction(ctx.db, () => {
    for (const s of due) {
      // Another process may have completed it between the read and this write.
      if (!completeTransfer(ctx.db, s.id)) continue;
      setPayoutsCompleted(ctx.db, s.id);
      addHistory(ctx.db, s.encounter_id, {
        type: 'SETTLEMENT_COMPLETED',
        timestamp: s.estimated_arrival,
        reference: s.id,
        description: `Funds received by the provider${payoutCount(ctx.db, s.id) === 1 ? '' : 's'}`,
        financialImpact: { settled_amount: centsToAmount(s.total_amount_cents) },
        audit: { settlement_id: s.id },
      });
      reconcileSettlement(ctx.db, s.id, s.estimated_arrival, { arrival: true });
    }
  });
}

/**
 * Matches a completed settlement against the AEOB: EXACT → MATCHED, else UNMATCHED
 * (docs/money-funding.md "Settlement"). Matched, the ledger gets a RECONCILIATION entry ("claim
 * matched to payer systems") and goes to RECONCILED, fully settled and reconciled. Not matched, it
 * gets a RECONCILIATION_UNMATCHED entry saying why and is not RECONCILED: at the arrival it records
 * FUNDED again (the money arrived; the progression marks the arrival), and a settlement that was
 * RECONCILED goes back to FUNDED. The audit record is a RECONCILIATION either way, with its status.
 */
export function reconcileSettlement(db: Db, settlementId: string, at: string, { arrival = false }: { arrival?: boolean } = {}): void {
  const s = settlementById(db, settlementId)!;
  const encounterId = s.encounter_id;
  const encounter = encounterById(db, encounterId)!;
  const benefitCents = encounterData(encounter).adjudication.totals.benefitCents;
  const aeobCents = encounter.aeob_missing ? null : benefitCents + encounter.aeob_adjustment_cents;
  const { matchStatus, varianceCents } = reconcile(aeobCents, s.total_amount_cents);
  const matched = matchStatus === 'EXACT';
  const reconciliationStatus = matched ? 'MATCHED' : 'UNMATCHED';
  setReconciliation(db, s.id, { matchStatus, aeobCents, reconciliationStatus, at });
  addHistory(db, encounterId, {
    type: matched ? 'RECONCILIATION' : 'RECONCILIATION_UNMATCHED',
    auditType: 'RECONCILIATION',
    timestamp: at,
    reference: aeobCents === null ? null : encounter.aeob_reference,
    description: matched
      ? `Settlement matched AEOB ${encounter.aeob_reference} exactly`
      : matchStatus === 'MISSING_AEOB'
        ? `Not reconciled: no AEOB ${encounter.aeob_reference} from the payer to match the settlement of ${formatCentsGrouped(s.total_amount_cents)} against (MISSING_AEOB)`
        : `Not reconciled: the settlement differs from AEOB ${encounter.aeob_reference} by ${formatCentsGrouped(Math.abs(varianceCents))} (${matchStatus})`,
    // How it came out, in the chain.
    audit: {
      settlement_id: s.id,
      match_status: matchStatus,
      aeob_amount_cents: aeobCents,
      variance_cents: varianceCents,
      reconciliation_status: reconciliationStatus,
    },
  });
  if (matched) {
    if (encounter.status !== 'RECONCILED') addStatus(db, encounterId, 'RECONCILED', at);
  } else if (arrival || encounter.status === 'RECONCILED') addStatus(db, encounterId, 'FUNDED', at);
}
