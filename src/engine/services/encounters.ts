// Encounter rows and their history: the ledger's status progression and entries[] (docs/api.md
// "Ledger entry detail"), written as the encounter moves.
import { claimFeeKind, lineProviderNpi, type Adjudication, type Disposition, type PlanBenefits } from '../../domain/adjudication.js';
import type { ParsedClaim, ProviderRole } from '../../domain/fhir-claim.js';
import type { BenefitLine } from '../../domain/settlement.js';
import { jsonNumberToCents } from '../../domain/money.js';
import type { Db } from '../store/db.js';
import { appendAudit } from './audit.js';

import type { LedgerStatus } from '../../domain/ledger.js';

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
  aeob_adjustment_cents: number;
  /** 1 when the payer never sent the AEOB (`local simulate missing-aeob`). */
  aeob_missing: number;
  progression_json: string;
  claim_json: string;
  outcome_json: string;
  benefits_json: string;
}

export function finalLedgerStatus(disposition: Disposition): LedgerStatus {
  if (disposition === 'DENIED') return 'DENIED';
  if (disposition === 'PENDING_REVIEW') return 'PENDED';
  return 'ADJUDICATED';
}

/** Moves the encounter to a status, appending it with its time to the status progression. */
export function addStatus(db: Db, encounterId: string, status: LedgerStatus, timestamp: string): void {
  db.prepare(
    `UPDATE encounters SET status = @status,
       progression_json = json_insert(progression_json, '$[#]', json_object('status', @status, 'timestamp', @timestamp))
     WHERE id = @id`,
  ).run({ id: encounterId, status, timestamp });
}

export interface HistoryEntry {
  type: string;
  timestamp: string;
  reference: string | null;
  description: string;
  financialImpact?: Record<string, number> | null;
  /** More for the audit record of an audited entry (amounts in cents). */
  audit?: Record<string, unknown>;
}

/**
 * The history entries that move money or cannot be undone: each is also an audit record, in the
 * same transaction (migration 12). VALIDATION and ADJUDICATION only show what SUBMISSION recorded.
 */
const AUDITED = new Set([
  'SUBMISSION',
  'FUNDING_APPROVED',
  'SETTLEMENT_INITIATED',
  'SETTLEMENT_COMPLETED',
  'SETTLEMENT_FAILED',
  'SETTLEMENT_REFUNDED',
  'RECONCILIATION',
]);

/** An entry's columns after its encounter and number, in the order of the INSERTs below. */
const entryValues = (e: HistoryEntry) => [e.type, e.timestamp, e.reference, e.description, e.financialImpact ? JSON.stringify(e.financialImpact) : null];

export function addHistory(db: Db, encounterId: string, entry: HistoryEntry): void {
  db.prepare(
    `INSERT INTO history_entries (encounter_id, seq, type, timestamp, reference, description, financial_impact_json)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM history_entries WHERE encounter_id = ?), ?, ?, ?, ?, ?)`,
  ).run(encounterId, encounterId, ...entryValues(entry));
  auditEntry(db, encounterId, entry);
}

/**
 * The first entries of an encounter written in its own transaction (numbered 1, 2, ...): one
 * statement for all of them, as a claim writes two or three at once (issue 11).
 */
export function addFirstHistory(db: Db, encounterId: string, entries: readonly HistoryEntry[]): void {
  const params = entries.flatMap((entry, i) => [encounterId, i + 1, ...entryValues(entry)]);
  db.prepare(
    `INSERT INTO history_entries (encounter_id, seq, type, timestamp, reference, description, financial_impact_json)
     VALUES ${entries.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  ).run(params);
  for (const entry of entries) auditEntry(db, encounterId, entry);
}

function auditEntry(db: Db, encounterId: string, entry: HistoryEntry): void {
  if (!AUDITED.has(entry.type)) return;
  const impact: Record<string, number> = {};
  for (const [k, v] of Object.entries(entry.financialImpact ?? {})) impact[`${k}_cents`] = jsonNumberToCents(v) ?? 0;
  appendAudit(db, entry.type, encounterId, entry.timestamp, { reference: entry.reference, ...impact, ...entry.audit });
}

export function encounterById(db: Db, id: string): EncounterRow | undefined {
  return db.prepare('SELECT * FROM encounters WHERE id = ?').get(id) as EncounterRow | undefined;
}

export interface ProviderRow {
  npi: string;
  name: string;
  role: ProviderRole;
  group_id: string;
  facility_npi: string | null;
}

export function providerByNpi(db: Db, npi: string): ProviderRow | undefined {
  return db.prepare('SELECT * FROM providers WHERE npi = ?').get(npi) as ProviderRow | undefined;
}

export interface EncounterData {
  row: EncounterRow;
  claim: ParsedClaim;
  adjudication: Adjudication;
  benefits: PlanBenefits;
}

export function encounterData(row: EncounterRow): EncounterData {
  return {
    row,
    claim: JSON.parse(row.claim_json) as ParsedClaim,
    adjudication: JSON.parse(row.outcome_json) as Adjudication,
    benefits: JSON.parse(row.benefits_json) as PlanBenefits,
  };
}

/**
 * Who is paid for a line whose own provider (the care-team member it names first, else the
 * billing provider) is `ownNpi`: that provider when the processor can pay it, else the billing
 * provider. The contract (docs/api.md) requires valid banking details with the processor; the engine's providers
 * that hold a direct contract stand for those (Valley Family Clinic, with none, is paid through
 * the billing provider).
 */
export function payeeNpi(db: Db, billingNpi: string, ownNpi: string): string {
  if (ownNpi === billingNpi) return billingNpi;
  return db.prepare('SELECT 1 FROM contracts WHERE npi = ? LIMIT 1').pluck().get(ownNpi) !== undefined ? ownNpi : billingNpi;
}

/**
 * The payee of each service line, as decided at adjudication (lines stored before payees were
 * recorded are worked out the same way now). The role is always the payee's own, from the
 * providers registry, never a role the claim's care team assigns.
 */
export function lineProviders(db: Db, data: EncounterData): (BenefitLine & { sequence: number })[] {
  const { claim, adjudication } = data;
  return adjudication.lines.map((line) => {
    const claimLine = claim.lines.find((l) => l.sequence === line.sequence);
    const npi = line.providerNpi ?? payeeNpi(db, claim.providerNpi, claimLine ? lineProviderNpi(claim, claimLine) : claim.providerNpi);
    const payee = providerByNpi(db, npi);
    const role: ProviderRole = payee?.role ?? claimFeeKind(claim);
    const name = payee?.name ?? (npi === claim.providerNpi ? claim.providerName : null) ?? `NPI ${npi}`;
    return { sequence: line.sequence, providerNpi: npi, providerName: name, providerRole: role, benefitCents: line.benefitCents };
  });
}
