// Encounter rows and their history: the ledger's status progression and entries[] (SPEC.md
// "Ledger entry detail"), written as the encounter moves.
import type { Disposition } from '../../domain/adjudication.js';
import type { Db } from '../store/db.js';

export type LedgerStatus = 'SUBMITTED' | 'PROCESSING' | 'ADJUDICATED' | 'PENDED' | 'FUNDED' | 'DENIED' | 'RECONCILED';
export const LEDGER_STATUSES: readonly LedgerStatus[] = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED'];

export interface EncounterRow {
  id: string;
  ledger_id: string;
  encounter_number: string;
  submission_id: string;
  contract_id: string;
  member_id: string;
  provider_npi: string;
  claim_type: string;
  service_date: string;
  submitted_at: string;
  ready_at: string;
  completed_at: string | null;
  status: LedgerStatus;
  disposition: Disposition;
  fingerprint: string;
  claim_response_id: string;
  aeob_reference: string;
  processor_trace_id: string;
  claim_json: string;
  outcome_json: string;
}

export function finalLedgerStatus(disposition: Disposition): LedgerStatus {
  if (disposition === 'DENIED') return 'DENIED';
  if (disposition === 'PENDING_REVIEW') return 'PENDED';
  return 'ADJUDICATED';
}

export function addStatus(db: Db, encounterId: string, status: LedgerStatus, timestamp: string): void {
  db.prepare(
    `INSERT INTO status_events (encounter_id, seq, status, timestamp)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM status_events WHERE encounter_id = ?), ?, ?)`,
  ).run(encounterId, encounterId, status, timestamp);
  db.prepare('UPDATE encounters SET status = ? WHERE id = ?').run(status, encounterId);
}

export interface HistoryEntry {
  type: string;
  timestamp: string;
  reference: string | null;
  description: string;
  financialImpact?: Record<string, number> | null;
}

export function addHistory(db: Db, encounterId: string, entry: HistoryEntry): void {
  db.prepare(
    `INSERT INTO history_entries (encounter_id, seq, type, timestamp, reference, description, financial_impact_json)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM history_entries WHERE encounter_id = ?), ?, ?, ?, ?, ?)`,
  ).run(encounterId, encounterId, entry.type, entry.timestamp, entry.reference, entry.description, entry.financialImpact ? JSON.stringify(entry.financialImpact) : null);
}
