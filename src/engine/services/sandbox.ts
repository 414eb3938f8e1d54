// Sandbox triggers for the unhappy paths, like a payment sandbox's test triggers, so users can see
// how their scripts handle them (`tpa local simulate`). Local engine only; never a route.
import { centsToAmount } from '../../domain/money.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { newId } from '../ids.js';
import { encounterById } from './encounters.js';
import { reconcileSettlement, settlementBody, settlementFor } from './settlement.js';

export const SCENARIOS = ['settlement-failure', 'refund', 'aeob-variance'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** How far the simulated AEOB is from the settlement (the AEOB states this much less). */
export const SIMULATED_AEOB_VARIANCE_CENTS = 1234;

export function simulate(ctx: EngineContext, scenario: Scenario, encounterId: string): Record<string, unknown> {
  const { db } = ctx;
  return db
    .transaction(() => {
      const encounter = encounterById(db, encounterId);
      if (!encounter) throw new NotFoundError(`no encounter ${encounterId}`);
      const s = settlementFor(db, encounterId);
      if (!s) throw new ConflictError(`encounter ${encounterId} has no settlement: approve its funding first (tpa fund approve ${encounterId})`);
      const now = isoSeconds(ctx.clock.now());
      if (scenario === 'settlement-failure') {
        if (s.status !== 'INITIATED') throw new ConflictError(`the transfer is ${s.status}; a failure can be simulated only while it is INITIATED`);
        db.prepare(`UPDATE settlements SET status = 'FAILED' WHERE id = ?`).run(s.id);
        db.prepare(`UPDATE payouts SET payout_status = 'FAILED' WHERE settlement_id = ?`).run(s.id);
      } else if (scenario === 'refund') {
        if (s.status !== 'COMPLETED') throw new ConflictError(`the transfer is ${s.status}; a refund can be simulated only once it is COMPLETED (try: tpa local clock advance 3d)`);
        const refund = { refund_id: newId('re_'), amount: centsToAmount(s.total_amount_cents), reason: 'Provider returned the funds (sandbox simulation)', refunded_at: now };
        db.prepare(`UPDATE settlements SET status = 'REFUNDED', refund_json = ? WHERE id = ?`).run(JSON.stringify(refund), s.id);
        db.prepare(`UPDATE payouts SET payout_status = 'RETURNED' WHERE settlement_id = ?`).run(s.id);
      } else {
        if (s.status === 'FAILED') throw new ConflictError('the transfer failed; there is nothing to reconcile');
        db.prepare('UPDATE encounters SET aeob_adjustment_cents = ? WHERE id = ?').run(-SIMULATED_AEOB_VARIANCE_CENTS, encounterId);
        // Already reconciled: reconcile again now; otherwise the arrival will find the variance.
        if (s.reconciled_at !== null) reconcileSettlement(db, encounterId, now);
      }
      return settlementBody(db, settlementFor(db, encounterId)!, encounterById(db, encounterId)!);
    })
    .immediate();
}
