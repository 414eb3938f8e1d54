// Encounter rows and their history: the ledger's status progression and entries[] (docs/api-resources.md
// "Ledger entry detail"), written as the encounter moves.
import { claimFeeKind, type Adjudication, type Disposition, type PlanBenefits } from '../../domain/adjudication.js';
import type { ParsedClaim, ProviderRole } from '../../domain/fhir-claim.js';
import { isClosedStatus, isDisposition, LEDGER_STATUS_OF_DISPOSITION, type ClosedClaim, type LedgerStatus } from '../../domain/ledger.js';
import { jsonNumberToCents } from '../../domain/money.js';
import { linePayeeNpi } from '../../domain/payee.js';
import type { BenefitLine } from '../../domain/settlement.js';
import type { Db } from '../store/db.js';
import { historyOf, insertFirstHistoryEntries, insertHistoryEntry, type EncounterRow, type HistoryValues } from '../store/encounters.js';
import { holdsContract, providerByNpi } from '../store/providers.js';
import { appendAudit } from './audit.js';

export function finalLedgerStatus(disposition: Disposition): LedgerStatus {
  if (!isDisposition(disposition)) throw new Error(`Unknown disposition ${JSON.stringify(disposition)}`);
  return LEDGER_STATUS_OF_DISPOSITION[disposition];
}

export interface HistoryEntry {
  type: string;
  timestamp: string;
  reference: string | null;
  description: string;
  financialImpact?: Record<string, number> | null;
  /** More for the audit record of an audited entry (amounts in cents). */
  audit?: Record<string, unknown>;
  /** The audit record's type, when it is not the entry's (a reconciliation, matched or not). */
  auditType?: string;
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
  // A claim closed by a corrected claim: replaced (SUPERSEDED) or voided.
  'REPLACED',
  'VOIDED',
]);

/** An entry's columns after its encounter and number. */
const entryValues = (e: HistoryEntry): HistoryValues => [
  e.type,
  e.timestamp,
  e.reference,
  e.description,
  e.financialImpact ? JSON.stringify(e.financialImpact) : null,
];

export function addHistory(db: Db, encounterId: string, entry: HistoryEntry): void {
  insertHistoryEntry(db, encounterId, entryValues(entry));
  auditEntry(db, encounterId, entry);
}

/** The first entries of an encounter written in its own transaction (numbered 1, 2, ...), in one statement. */
export function addFirstHistory(db: Db, encounterId: string, entries: readonly HistoryEntry[]): void {
  insertFirstHistoryEntries(db, encounterId, entries.map(entryValues));
  for (const entry of entries) auditEntry(db, encounterId, entry);
}

function auditEntry(db: Db, encounterId: string, entry: HistoryEntry): void {
  const type = entry.auditType ?? entry.type;
  if (!AUDITED.has(type)) return;
  const impact: Record<string, number> = {};
  for (const [k, v] of Object.entries(entry.financialImpact ?? {})) impact[`${k}_cents`] = jsonNumberToCents(v) ?? 0;
  appendAudit(db, type, encounterId, entry.timestamp, { reference: entry.reference, ...impact, ...entry.audit });
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
 * The payee of each service line, as decided at adjudication (lines stored before payees were
 * recorded are worked out the same way now, by the payee rule). The role is always the payee's own,
 * from the providers registry, never a role the claim's care team assigns.
 */
export function lineProviders(db: Db, data: EncounterData): (BenefitLine & { sequence: number })[] {
  const { claim, adjudication } = data;
  return adjudication.lines.map((line) => {
    const claimLine = claim.lines.find((l) => l.sequence === line.sequence);
    const npi = line.providerNpi ?? linePayeeNpi(claim, claimLine, (own) => holdsContract(db, own));
    const payee = providerByNpi(db, npi);
    const role: ProviderRole = payee?.role ?? claimFeeKind(claim);
    const name = payee?.name ?? (npi === claim.providerNpi ? claim.providerName : null) ?? `NPI ${npi}`;
    return { sequence: line.sequence, providerNpi: npi, providerName: name, providerRole: role, benefitCents: line.benefitCents };
  });
}

/** The claim as closed by a corrected claim (SUPERSEDED, naming its replacement, or VOIDED), else null. */
export function closedClaim(db: Db, row: Pick<EncounterRow, 'id' | 'status'>): ClosedClaim | null {
  if (!isClosedStatus(row.status)) return null;
  const replacedBy = row.status === 'SUPERSEDED' ? (historyOf(db, row.id).find((e) => e.type === 'REPLACED')?.reference ?? null) : null;
  return { status: row.status, replacedBy };
}
