// Sandbox triggers for the unhappy paths, like a payment sandbox's test triggers, so users can see
// how their scripts handle them (`tpa local simulate`). Local engine only; never a route.
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { reconcile, refundAmounts, settledCents, varianceAeobCents } from '../../domain/settlement.js';
import { Conflict, NotFound } from '../errors.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { addStatus, encounterById, markAeobMissing, setAeobAdjustment } from '../store/encounters.js';
import { payoutAmountsOf, setTransferFailed, setTransferRefunded, settlementFor, type SettlementRow } from '../store/settlements.js';
import { appendAudit } from './audit.js';
import { addHistory, encounterData } from './encounters.js';
import { reconcileSettlement, settlementBody } from './settlement.js';

export const SCENARIOS = ['settlement-failure', 'refund', 'aeob-variance', 'missing-aeob'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** How far the simulated AEOB is from the settlement (the AEOB states this much less). */
export const SIMULATED_AEOB_VARIANCE_CENTS = 1234;

export function simulate(ctx: EngineContext, scenario: Scenario, encounterId: string): Record<string, unknown> {
  const { db } = ctx;
  return db
    .transaction(() => {
      const encounter = encounterById(db, encounterId);
      if (!encounter) throw new NotFound(`no encounter ${encounterId}`);
      const s = settlementFor(db, encounterId);
      if (!s) throw new Conflict(`encounter ${encounterId} has no settlement: approve its funding first (tpa fund approve ${encounterId})`);
      const now = isoSeconds(ctx.clock.now());
      if (scenario === 'settlement-failure') fail(db, s, now);
      else if (scenario === 'refund') refund(db, s, now);
      else if (scenario === 'missing-aeob') {
        if (s.status === 'FAILED' || s.status === 'REFUNDED') {
          throw new Conflict(`the transfer ${s.processor_transfer_id} is ${s.status}: nothing of it stays settled to reconcile against an AEOB`);
        }
        if (encounter.aeob_missing) throw new Conflict(`the AEOB of encounter ${encounterId} is already missing; nothing changed`);
        markAeobMissing(db, encounterId);
        appendAudit(db, 'AEOB_MISSING', encounterId, now, { aeob_reference: encounter.aeob_reference });
        // Already reconciled: reconcile again now; otherwise the arrival will find no AEOB.
        if (s.reconciled_at !== null) reconcileSettlement(db, s.id, now);
      } else {
        if (s.status === 'FAILED' || s.status === 'REFUNDED') {
          throw new Conflict(`the transfer ${s.processor_transfer_id} is ${s.status}: nothing of it stays settled to reconcile against an AEOB`);
        }
        // The AEOB states 12.34 less than the benefit, but never a negative amount.
        const benefitCents = encounterData(encounter).adjudication.totals.benefitCents;
        const adjustmentCents = varianceAeobCents(benefitCents, SIMULATED_AEOB_VARIANCE_CENTS) - benefitCents;
        // Once stated, the AEOB is what it is: simulating it again changes nothing to reconcile.
        // A missing AEOB is no such statement: the variance is the payer's AEOB arriving late.
        const late = encounter.aeob_missing;
        if (!late && encounter.aeob_adjustment_cents === adjustmentCents && adjustmentCents !== 0) {
          throw new Conflict(`the AEOB of encounter ${encounterId} already states the variance; nothing changed`);
        }
        setAeobAdjustment(db, encounterId, adjustmentCents);
        appendAudit(db, 'AEOB_VARIANCE', encounterId, now, {
          aeob_reference: encounter.aeob_reference,
          aeob_adjustment_cents: adjustmentCents,
          aeob_cents: benefitCents + adjustmentCents,
          ...(late ? { replaces_missing_aeob: true } : {}),
        });
        // Already reconciled: reconcile again now; otherwise the arrival will find the variance.
        if (s.reconciled_at !== null) reconcileSettlement(db, s.id, now);
      }
      return settlementBody(db, settlementFor(db, encounterId)!, encounterById(db, encounterId)!);
    })
    .immediate();
}

/**
 * The transfer failed: no money moved, so the benefit is owed again. The record is kept (FAILED),
 * the history says so, and the ledger goes back to ADJUDICATED, from where it can be funded again.
 */
function fail(db: Db, s: SettlementRow, now: string): void {
  if (s.status !== 'INITIATED') throw new Conflict(`the transfer is ${s.status}; a failure can be simulated only while it is INITIATED`);
  // No money moved, so the processor charged nothing and no provider was paid.
  setTransferFailed(db, s.id, now);
  addHistory(db, s.encounter_id, {
    type: 'SETTLEMENT_FAILED',
    timestamp: now,
    reference: s.processor_transfer_id,
    description: `Transfer failed (sandbox simulation): no money moved; ${formatCentsGrouped(s.total_amount_cents)} is owed again and can be approved anew`,
    financialImpact: { failed_amount: centsToAmount(s.total_amount_cents) },
    audit: { settlement_id: s.id },
  });
  addStatus(db, s.encounter_id, 'ADJUDICATED', now);
}

/**
 * The providers sent the money back: what comes back is what they received (net of the processor
 * fees, which are not returned). The reconciliation no longer matches, and the benefit is owed again.
 */
function refund(db: Db, s: SettlementRow, now: string): void {
  if (s.status !== 'COMPLETED')
    throw new Conflict(`the transfer is ${s.status}; a refund can be simulated only once it is COMPLETED (try: tpa local clock advance 3d)`);
  const back = refundAmounts(payoutAmountsOf(db, s.id));
  const refundId = newId('re_');
  const details = {
    refund_id: refundId,
    amount: centsToAmount(back.netCents),
    gross_amount: centsToAmount(back.grossCents),
    fees_not_returned: centsToAmount(back.feesCents),
    reason: 'Provider returned the funds (sandbox simulation)',
    refunded_at: now,
  };
  // Nothing stays settled: matched again, the AEOB now differs by its whole amount.
  const { matchStatus } = reconcile(s.aeob_amount_cents, settledCents('REFUNDED', s.total_amount_cents));
  const reconciliationStatus = matchStatus === 'EXACT' ? 'MATCHED' : 'UNMATCHED';
  setTransferRefunded(db, s.id, { refundJson: JSON.stringify(details), matchStatus, reconciliationStatus, at: now });
  addHistory(db, s.encounter_id, {
    type: 'SETTLEMENT_REFUNDED',
    timestamp: now,
    reference: refundId,
    description: `Transfer ${s.processor_transfer_id} refunded: ${formatCentsGrouped(back.netCents)} came back (processor fees of ${formatCentsGrouped(back.feesCents)} are not returned); the benefit is owed again and the settlement no longer matches the AEOB`,
    financialImpact: { refunded_amount: centsToAmount(back.netCents) },
    audit: {
      settlement_id: s.id,
      refund_id: refundId,
      gross_cents: back.grossCents,
      fees_kept_cents: back.feesCents,
      match_status: matchStatus,
      reconciliation_status: reconciliationStatus,
    },
  });
  addStatus(db, s.encounter_id, 'ADJUDICATED', now);
}
