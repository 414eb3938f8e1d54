// The encounters table and what hangs off each row: its history entries (the ledger's entries[])
// and the providers it names (the ledger's provider filter). Named queries; the rules that decide
// what to write are the services'.
import type { Adjudication, Disposition, PlanBenefits } from '../../domain/adjudication.js';
import type { EncounterFacts, HistoryFacts } from '../../domain/audit-deep.js';
import type { ParsedClaim } from '../../domain/fhir-claim.js';
import type { LedgerStatus } from '../../domain/ledger.js';
import type { Db } from './db.js';

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

export function encounterById(db: Db, id: string): EncounterRow | undefined {
  return db.prepare('SELECT * FROM encounters WHERE id = ?').get(id) as EncounterRow | undefined;
}

export function encounterBySubmission(db: Db, submissionId: string): EncounterRow | undefined {
  return db.prepare('SELECT * FROM encounters WHERE submission_id = ?').get(submissionId) as EncounterRow | undefined;
}

/**
 * The encounter of an ENC number (`ENC-<year>-<n>`): its number is its rowid, so the row is read by
 * rowid and kept only when its number is the one asked for (no index on the number is needed).
 */
export function encounterByNumber(db: Db, encounterNumber: string): EncounterRow | undefined {
  const m = /^ENC-\d{4}-(\d{1,15})$/.exec(encounterNumber);
  if (!m) return undefined;
  return db.prepare('SELECT * FROM encounters WHERE rowid = ? AND encounter_number = ?').get(Number(m[1]), encounterNumber) as EncounterRow | undefined;
}

/**
 * Closes an encounter a corrected claim replaced or voided: its status, appended to its progression;
 * an adjudication not revealed yet is completed now, so that it is never revealed over the new status.
 */
export function closeEncounter(db: Db, encounterId: string, status: LedgerStatus, timestamp: string): void {
  db.prepare('UPDATE encounters SET completed_at = COALESCE(completed_at, ?) WHERE id = ?').run(timestamp, encounterId);
  addStatus(db, encounterId, status, timestamp);
}

/** The number of the next encounter: encounters are never deleted, so the next rowid (COUNT(*) would scan the ledger). */
export function nextEncounterSequence(db: Db): number {
  return db.prepare('SELECT COALESCE(MAX(rowid), 0) + 1 FROM encounters').pluck().get() as number;
}

/** An encounter as a claim writes it: the claim, its adjudication and benefits are kept whole (as JSON). */
export interface NewEncounter {
  id: string;
  ledgerId: string;
  encounterNumber: string;
  submissionId: string;
  contractId: string;
  memberId: string;
  serviceDate: string;
  submittedAt: string;
  readyAt: string;
  completedAt: string | null;
  status: LedgerStatus;
  claimResponseId: string;
  aeobReference: string;
  processorTraceId: string;
  claim: ParsedClaim;
  adjudication: Adjudication;
  benefits: PlanBenefits;
  progression: readonly { status: LedgerStatus; timestamp: string }[];
}

export function insertEncounter(db: Db, e: NewEncounter): void {
  const t = e.adjudication.totals;
  // Bound by position: better-sqlite3 looks each named parameter up on the object by name, which
  // cost 30 named values 7-12 µs a claim more than the same values in order. The fingerprint column
  // is left empty: duplicates are found line by line in paid_lines (migration 7).
  db.prepare(
    `INSERT INTO encounters (id, ledger_id, encounter_number, submission_id, contract_id, member_id, provider_npi, claim_type,
       service_date, submitted_at, ready_at, completed_at, status, disposition, fingerprint, claim_response_id, aeob_reference,
       processor_trace_id, claim_json, outcome_json, benefits_json, first_cpt_code, charge_cents, allowed_cents, deductible_cents, copay_cents,
       coinsurance_cents, patient_cents, benefit_cents, progression_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    e.id, // id
    e.ledgerId, // ledger_id
    e.encounterNumber, // encounter_number
    e.submissionId, // submission_id
    e.contractId, // contract_id
    e.memberId, // member_id
    e.claim.providerNpi, // provider_npi
    e.claim.type, // claim_type
    e.serviceDate, // service_date
    e.submittedAt, // submitted_at
    e.readyAt, // ready_at
    e.completedAt, // completed_at
    e.status, // status
    e.adjudication.disposition, // disposition
    // fingerprint: ''
    e.claimResponseId, // claim_response_id
    e.aeobReference, // aeob_reference
    e.processorTraceId, // processor_trace_id
    JSON.stringify(e.claim), // claim_json
    JSON.stringify(e.adjudication), // outcome_json
    JSON.stringify(e.benefits), // benefits_json
    // first_cpt_code: the first line's procedure code (an 837I room-and-board line, first as it
    // often is, has none: the first line that has one; '' when none has).
    e.claim.lines.find((l) => l.cptCode !== '')?.cptCode ?? '',
    t.chargeCents, // charge_cents
    t.allowedCents, // allowed_cents
    t.deductibleCents, // deductible_cents
    t.copayCents, // copay_cents
    t.coinsuranceCents, // coinsurance_cents
    t.patientResponsibilityCents, // patient_cents
    t.benefitCents, // benefit_cents
    JSON.stringify(e.progression), // progression_json
  );
}

/** The providers an encounter names (its billing provider and care team), for the ledger's provider filter. */
export function addEncounterProviders(db: Db, encounterId: string, npis: Iterable<string>): void {
  const providerRow = db.prepare('INSERT OR IGNORE INTO encounter_providers (encounter_id, npi) VALUES (?, ?)');
  for (const npi of npis) providerRow.run(encounterId, npi);
}

/** Moves the encounter to a status, appending it with its time to the status progression. */
export function addStatus(db: Db, encounterId: string, status: LedgerStatus, timestamp: string): void {
  db.prepare(
    `UPDATE encounters SET status = @status,
       progression_json = json_insert(progression_json, '$[#]', json_object('status', @status, 'timestamp', @timestamp))
     WHERE id = @id`,
  ).run({ id: encounterId, status, timestamp });
}

/** The adjudications not yet revealed whose ready time is `now` or earlier, in the order they became due. */
export function dueAdjudications(db: Db, now: string): Pick<EncounterRow, 'id' | 'ready_at' | 'claim_response_id' | 'outcome_json'>[] {
  return db
    .prepare('SELECT id, ready_at, claim_response_id, outcome_json FROM encounters WHERE completed_at IS NULL AND ready_at <= ? ORDER BY ready_at, rowid')
    .all(now) as Pick<EncounterRow, 'id' | 'ready_at' | 'claim_response_id' | 'outcome_json'>[];
}

/** Completes an adjudication at its ready time; false when another process completed it first. */
export function completeAdjudication(db: Db, encounterId: string, status: LedgerStatus): boolean {
  return db.prepare('UPDATE encounters SET completed_at = ready_at, status = ? WHERE id = ? AND completed_at IS NULL').run(status, encounterId).changes > 0;
}

/** The claim's own name for a billing provider the plan does not know (the rare row, read alone). */
export function claimProviderName(db: Db, encounterId: string): string | null {
  return (
    (db.prepare("SELECT json_extract(claim_json, '$.providerName') FROM encounters WHERE id = ?").pluck().get(encounterId) as string | null | undefined) ?? null
  );
}

export function markAeobMissing(db: Db, encounterId: string): void {
  db.prepare('UPDATE encounters SET aeob_missing = 1 WHERE id = ?').run(encounterId);
}

/** The AEOB the payer stated: its amount's difference from the benefit; an AEOB stated is no longer missing. */
export function setAeobAdjustment(db: Db, encounterId: string, adjustmentCents: number): void {
  db.prepare('UPDATE encounters SET aeob_adjustment_cents = ?, aeob_missing = 0 WHERE id = ?').run(adjustmentCents, encounterId);
}

/** An entry's columns after its encounter and number: type, timestamp, reference, description, financial_impact_json. */
export type HistoryValues = [type: string, timestamp: string, reference: string | null, description: string, financialImpactJson: string | null];

/** Appends an entry, numbered after the encounter's last. */
export function insertHistoryEntry(db: Db, encounterId: string, values: HistoryValues): void {
  db.prepare(
    `INSERT INTO history_entries (encounter_id, seq, type, timestamp, reference, description, financial_impact_json)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM history_entries WHERE encounter_id = ?), ?, ?, ?, ?, ?)`,
  ).run(encounterId, encounterId, ...values);
}

/**
 * The first entries of an encounter written in its own transaction (numbered 1, 2, ...): one
 * statement for all of them, as a claim writes two or three at once.
 */
export function insertFirstHistoryEntries(db: Db, encounterId: string, entries: readonly HistoryValues[]): void {
  const params = entries.flatMap((values, i) => [encounterId, i + 1, ...values]);
  db.prepare(
    `INSERT INTO history_entries (encounter_id, seq, type, timestamp, reference, description, financial_impact_json)
     VALUES ${entries.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  ).run(params);
}

export interface HistoryRow {
  seq: number;
  type: string;
  timestamp: string;
  reference: string | null;
  description: string;
  financial_impact_json: string | null;
}

/**
 * The pended encounters of a member, billing provider and claim service date that no claim has
 * superseded yet (no SUPERSEDED entry), but `exceptId` (the claim itself), oldest first, with their
 * claims: the candidates a claim sent again supersedes. The listing index seeks the date.
 */
export function pendedNotSuperseded(
  db: Db,
  memberId: string,
  providerNpi: string,
  serviceDate: string,
  exceptId: string,
): (Pick<EncounterRow, 'id' | 'encounter_number' | 'claim_json'> & { outcome_lines: string })[] {
  return db
    .prepare(
      `SELECT e.id, e.encounter_number, e.claim_json, json_extract(e.outcome_json, '$.lines') AS outcome_lines FROM encounters e INDEXED BY encounters_listing
        WHERE e.service_date = ? AND e.status = 'PENDED' AND e.member_id = ? AND e.provider_npi = ? AND e.id <> ?
          AND NOT EXISTS (SELECT 1 FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'SUPERSEDED')
        ORDER BY e.rowid`,
    )
    .all(serviceDate, memberId, providerNpi, exceptId) as (Pick<EncounterRow, 'id' | 'encounter_number' | 'claim_json'> & { outcome_lines: string })[];
}

/** An encounter's history entries in the order they happened. */
export function historyOf(db: Db, encounterId: string): HistoryRow[] {
  return db
    .prepare('SELECT seq, type, timestamp, reference, description, financial_impact_json FROM history_entries WHERE encounter_id = ? ORDER BY timestamp, seq')
    .all(encounterId) as HistoryRow[];
}

/**
 * Every encounter in the order it was made, with what the audit chain recorded of it to compare
 * (`audit verify --deep`); `covered` when made after the chain began to record it (rowid above `fromRowid`).
 */
/** Every ledger history entry that holds amounts, to compare with the audit chain. */
export function historyAuditFacts(db: Db): Iterable<HistoryFacts> {
  return db
    .prepare(
      `SELECT encounter_id, seq, type, timestamp, reference, financial_impact_json FROM history_entries
     WHERE financial_impact_json IS NOT NULL ORDER BY encounter_id, seq`,
    )
    .iterate() as Iterable<HistoryFacts>;
}

export function encounterAuditFacts(db: Db, fromRowid: number): Iterable<EncounterFacts> {
  return db
    .prepare(
      `SELECT id, rowid > @rowid AS covered, status, completed_at IS NOT NULL AS completed, disposition, charge_cents, allowed_cents, patient_cents, benefit_cents,
       json_extract(outcome_json, '$.totals.chargeCents') AS outcome_charge_cents, json_extract(outcome_json, '$.totals.allowedCents') AS outcome_allowed_cents,
       json_extract(outcome_json, '$.totals.patientResponsibilityCents') AS outcome_patient_cents, json_extract(outcome_json, '$.totals.benefitCents') AS outcome_benefit_cents,
       json_extract(outcome_json, '$.lines') AS outcome_lines, outcome_json, aeob_adjustment_cents, aeob_missing, member_id, provider_npi, contract_id
     FROM encounters ORDER BY rowid`,
    )
    .iterate({ rowid: fromRowid }) as Iterable<EncounterFacts>;
}

/**
 * Whether anything waits for the engine clock at `now` (an adjudication to reveal, a transfer to
 * arrive): one read over the two partial indexes of what is pending.
 */
export function anythingDueAt(db: Db, now: string): boolean {
  return db.prepare(DUE_SQL).pluck().get({ now }) === 1;
}

/** The SQL of `anythingDueAt` (exported for the plan test). */
export const DUE_SQL = `SELECT EXISTS (SELECT 1 FROM encounters WHERE completed_at IS NULL AND ready_at <= @now)
  OR EXISTS (SELECT 1 FROM settlements WHERE status = 'INITIATED' AND estimated_arrival <= @now)`;
