// Settlement records (one per funding of an encounter, `attempt` 1, 2, ...) and their payouts, one
// per payee. Named queries; the funding, arrival and reconciliation rules are the services'.
import type { PayoutFacts, SettlementFacts } from '../../domain/audit-deep.js';
import type { Db } from './db.js';

export type SettlementStatus = 'INITIATED' | 'COMPLETED' | 'FAILED' | 'REFUNDED';

export interface SettlementRow {
  id: string;
  encounter_id: string;
  attempt: number;
  processor_transfer_id: string;
  status: SettlementStatus;
  total_amount_cents: number;
  authorization_code: string;
  notes: string | null;
  initiated_at: string;
  estimated_arrival: string;
  completed_at: string | null;
  reconciliation_status: 'PENDING' | 'MATCHED' | 'UNMATCHED';
  match_status: string | null;
  aeob_amount_cents: number | null;
  reconciled_at: string | null;
  refund_json: string | null;
  failed_at: string | null;
}

export interface PayoutRow {
  sequence: number;
  provider_npi: string;
  provider_name: string;
  provider_role: string;
  processor_payout_id: string;
  amount_cents: number;
  fee_cents: number;
  payout_status: string;
}

/** The encounter's current transfer: its latest settlement record. */
export function settlementFor(db: Db, encounterId: string): SettlementRow | undefined {
  return db.prepare('SELECT * FROM settlements WHERE encounter_id = ? ORDER BY attempt DESC LIMIT 1').get(encounterId) as SettlementRow | undefined;
}

/** Every settlement record of the encounter, the first transfer first. */
export function settlementsOf(db: Db, encounterId: string): SettlementRow[] {
  return db.prepare('SELECT * FROM settlements WHERE encounter_id = ? ORDER BY attempt').all(encounterId) as SettlementRow[];
}

export function settlementById(db: Db, settlementId: string): SettlementRow | undefined {
  return db.prepare('SELECT * FROM settlements WHERE id = ?').get(settlementId) as SettlementRow | undefined;
}

export function payoutsOf(db: Db, settlementId: string): PayoutRow[] {
  return db.prepare('SELECT * FROM payouts WHERE settlement_id = ? ORDER BY sequence').all(settlementId) as PayoutRow[];
}

export function payoutCount(db: Db, settlementId: string): number {
  return db.prepare('SELECT COUNT(*) AS n FROM payouts WHERE settlement_id = ?').pluck().get(settlementId) as number;
}

/** What each payout of a transfer paid and cost (a refund returns the first, never the second). */
export function payoutAmountsOf(db: Db, settlementId: string): { amountCents: number; feeCents: number }[] {
  return db.prepare('SELECT amount_cents AS amountCents, fee_cents AS feeCents FROM payouts WHERE settlement_id = ?').all(settlementId) as {
    amountCents: number;
    feeCents: number;
  }[];
}

export interface NewSettlement {
  id: string;
  encounterId: string;
  attempt: number;
  processorTransferId: string;
  totalAmountCents: number;
  authorizationCode: string;
  notes: string | null;
  initiatedAt: string;
  estimatedArrival: string;
}

/** A transfer as a funding approval creates it: INITIATED. */
export function insertSettlement(db: Db, s: NewSettlement): void {
  db.prepare(
    `INSERT INTO settlements (id, encounter_id, attempt, processor_transfer_id, status, total_amount_cents, authorization_code, notes, initiated_at, estimated_arrival)
     VALUES (?, ?, ?, ?, 'INITIATED', ?, ?, ?, ?, ?)`,
  ).run(s.id, s.encounterId, s.attempt, s.processorTransferId, s.totalAmountCents, s.authorizationCode, s.notes, s.initiatedAt, s.estimatedArrival);
}

export interface NewPayout {
  sequence: number;
  providerNpi: string;
  providerName: string;
  providerRole: string;
  payoutId: string;
  amountCents: number;
  feeCents: number;
}

/** A payout as a funding approval creates it: PENDING. */
export function insertPayout(db: Db, settlementId: string, p: NewPayout): void {
  db.prepare(
    `INSERT INTO payouts (settlement_id, sequence, provider_npi, provider_name, provider_role, processor_payout_id, amount_cents, fee_cents, payout_status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')`,
  ).run(settlementId, p.sequence, p.providerNpi, p.providerName, p.providerRole, p.payoutId, p.amountCents, p.feeCents);
}

/** The transfers still INITIATED whose estimated arrival is `now` or earlier. */
export function dueTransfers(db: Db, now: string): SettlementRow[] {
  return db.prepare(`SELECT * FROM settlements WHERE status = 'INITIATED' AND estimated_arrival <= ?`).all(now) as SettlementRow[];
}

/** Completes a transfer at its estimated arrival; false when another process completed it first. */
export function completeTransfer(db: Db, settlementId: string): boolean {
  return (
    db.prepare(`UPDATE settlements SET status = 'COMPLETED', completed_at = estimated_arrival WHERE id = ? AND status = 'INITIATED'`).run(settlementId)
      .changes > 0
  );
}

export function setPayoutsCompleted(db: Db, settlementId: string): void {
  db.prepare(`UPDATE payouts SET payout_status = 'COMPLETED' WHERE settlement_id = ?`).run(settlementId);
}

export function setReconciliation(
  db: Db,
  settlementId: string,
  r: { matchStatus: string; aeobCents: number | null; reconciliationStatus: string; at: string },
): void {
  db.prepare('UPDATE settlements SET match_status = ?, aeob_amount_cents = ?, reconciliation_status = ?, reconciled_at = ? WHERE id = ?').run(
    r.matchStatus,
    r.aeobCents,
    r.reconciliationStatus,
    r.at,
    settlementId,
  );
}

/** The transfer failed: no money moved, so the processor charged nothing and no provider was paid. */
export function setTransferFailed(db: Db, settlementId: string, at: string): void {
  db.prepare(`UPDATE settlements SET status = 'FAILED', failed_at = ? WHERE id = ?`).run(at, settlementId);
  db.prepare(`UPDATE payouts SET payout_status = 'FAILED', fee_cents = 0 WHERE settlement_id = ?`).run(settlementId);
}

/** The transfer came back: REFUNDED with its details, matched again, its payouts RETURNED. */
export function setTransferRefunded(
  db: Db,
  settlementId: string,
  r: { refundJson: string; matchStatus: string; reconciliationStatus: string; at: string },
): void {
  db.prepare('UPDATE settlements SET status = ?, refund_json = ?, match_status = ?, reconciliation_status = ?, reconciled_at = ? WHERE id = ?').run(
    'REFUNDED',
    r.refundJson,
    r.matchStatus,
    r.reconciliationStatus,
    r.at,
    settlementId,
  );
  db.prepare(`UPDATE payouts SET payout_status = 'RETURNED' WHERE settlement_id = ?`).run(settlementId);
}

/** Every settlement in the order it was made, to compare with the audit chain (`covered`: rowid above `fromRowid`). */
export function settlementAuditFacts(db: Db, fromRowid: number): Iterable<SettlementFacts> {
  return db
    .prepare(
      `SELECT id, rowid > @rowid AS covered, encounter_id, attempt, processor_transfer_id, status, total_amount_cents, authorization_code, reconciliation_status, match_status, aeob_amount_cents, refund_json
     FROM settlements ORDER BY rowid`,
    )
    .iterate({ rowid: fromRowid }) as Iterable<SettlementFacts>;
}

/** Every payout, by its settlement's order and its sequence, to compare with the audit chain. */
export function payoutAuditFacts(db: Db): Iterable<PayoutFacts> {
  return db
    .prepare(
      `SELECT p.settlement_id, p.sequence, p.processor_payout_id, p.provider_npi, p.provider_role, p.amount_cents, p.fee_cents, p.payout_status
     FROM payouts p JOIN settlements s ON s.id = p.settlement_id ORDER BY s.rowid, p.sequence`,
    )
    .iterate() as Iterable<PayoutFacts>;
}
