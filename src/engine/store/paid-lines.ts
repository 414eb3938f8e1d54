// The lines paid so far, per member (migration 7): what makes a later line a duplicate, what an
// anesthesia fee or a bundle episode is counted against.
import type { PriorLine } from '../../domain/adjudication.js';
import type { ProviderRole } from '../../domain/fhir-claim.js';
import type { Db } from './db.js';

type PaidLineRow = {
  encounter_id: string;
  provider_npi: string;
  fee_kind: ProviderRole;
  cpt_code: string;
  service_date: string;
  contract_id: string;
  episode_start: string | null;
  allowed_cents: number;
  includes_anesthesia: number;
  anesthesia_deducted_cents: number;
  modifiers: string;
  included: number;
  payee_role: ProviderRole | null;
};
const PAID_LINE_COLUMNS =
  'encounter_id, provider_npi, fee_kind, cpt_code, service_date, contract_id, episode_start, allowed_cents, includes_anesthesia, anesthesia_deducted_cents, modifiers, included,' +
  ' (SELECT role FROM providers WHERE npi = paid_lines.provider_npi) AS payee_role';
/** A line's modifiers in one column (migration 21): two-character codes joined by ':', '' for none. */
const MODIFIER_SEPARATOR = ':';
const toPrior = (r: PaidLineRow): PriorLine => ({
  encounterId: r.encounter_id,
  providerNpi: r.provider_npi,
  feeKind: r.fee_kind,
  ...(r.payee_role !== null && r.payee_role !== r.fee_kind ? { payeeRole: r.payee_role } : {}),
  cptCode: r.cpt_code,
  serviceDate: r.service_date,
  contractId: r.contract_id,
  episodeStart: r.episode_start,
  allowedCents: r.allowed_cents,
  includesAnesthesia: r.includes_anesthesia === 1,
  anesthesiaDeductedCents: r.anesthesia_deducted_cents,
  modifiers: r.modifiers === '' ? [] : r.modifiers.split(MODIFIER_SEPARATOR),
  ...(r.included === 1 ? { included: true } : {}),
});

// mutation: no survivors (the duplicate rule: the paid lines read)
/**
 * The member's paid lines from `from` to `to`: of the codes given (the adjudication matches each
 * line's own date and fee kind), and the anesthesia fees (rendered by an anesthesia provider, or
 * paid to one) and the lines including anesthesia (the anesthesia-included rule). The days BUNDLED
 * into a paid episode come with them (`included`): no paid line, the duplicate rule skips them, but
 * one may include its day's anesthesia. A line's `payee_role` is its payee's role in the providers
 * registry.
 */
export function paidLinesOfCodes(db: Db, memberId: string, from: string, to: string, codes: readonly string[]): PriorLine[] {
  return (db.prepare(PAID_LINES_OF_CODES_SQL).all(memberId, from, to, JSON.stringify(codes)) as PaidLineRow[]).map(toPrior);
}
const PAID_LINES_OF_CODES_SQL = `SELECT ${PAID_LINE_COLUMNS} FROM paid_lines
         WHERE member_id = ? AND service_date BETWEEN ? AND ?
           AND (cpt_code IN (SELECT value FROM json_each(?)) OR fee_kind = 'ANESTHESIA' OR includes_anesthesia = 1
             OR provider_npi IN (SELECT npi FROM providers WHERE role = 'ANESTHESIA'))`;
// mutation: end

/**
 * The copay the member's claims from one billing provider took on each of the dates given (a visit:
 * member, billing provider, date of service), from the copay each paid line of those dates took
 * (migration 27). A line that took a copay was allowed more than 0.00, so it is a paid line; a
 * denied or pended claim took none. Only the lines that took one look up their encounter's
 * billing provider.
 */
export function visitCopaysTaken(db: Db, memberId: string, billingNpi: string, dates: readonly string[]): Record<string, number> {
  const rows = db.prepare(VISIT_COPAYS_SQL).all(memberId, JSON.stringify(dates), billingNpi) as { day: string; copay: number }[];
  // Added up here: the few lines read cost less than SQLite's temporary b-tree of a GROUP BY.
  const taken: Record<string, number> = {};
  for (const r of rows) taken[r.day] = (taken[r.day] ?? 0) + r.copay;
  return taken;
}
const VISIT_COPAYS_SQL = `SELECT p.service_date AS day, p.copay_cents AS copay FROM paid_lines p
  WHERE p.member_id = ? AND p.service_date IN (SELECT value FROM json_each(?)) AND p.included = 0 AND p.copay_cents > 0
    AND (SELECT e.provider_npi FROM encounters e WHERE e.id = p.encounter_id) = ?`;

/**
 * The member's paid lines under a contract whose bundle episode starts from `from` to `to`, and the
 * days included in those episodes (`insertIncludedDay`).
 */
export function episodeLines(db: Db, memberId: string, contractId: string, from: string, to: string): PriorLine[] {
  return (db.prepare(EPISODE_LINES_SQL).all(memberId, contractId, from, to) as PaidLineRow[]).map(toPrior);
}
const EPISODE_LINES_SQL = `SELECT ${PAID_LINE_COLUMNS} FROM paid_lines WHERE member_id = ? AND contract_id = ? AND episode_start BETWEEN ? AND ?`;

export interface NewPaidLine {
  encounterId: string;
  sequence: number;
  memberId: string;
  providerNpi: string;
  feeKind: ProviderRole;
  cptCode: string;
  serviceDate: string;
  contractId: string | null;
  episodeStart: string | null;
  allowedCents: number;
  /** The copay the line took (what a later claim of the same visit reads: visitCopaysTaken). */
  copayCents: number;
  includesAnesthesia: boolean;
  anesthesiaDeductedCents: number;
  modifiers: readonly string[];
}

/** The columns that say which line of which encounter this is, in the order both inserts write them. */
const lineKey = (p: Omit<NewPaidLine, 'allowedCents' | 'copayCents' | 'includesAnesthesia' | 'anesthesiaDeductedCents' | 'modifiers'>) =>
  [p.encounterId, p.sequence, p.memberId, p.providerNpi, p.feeKind, p.cptCode, p.serviceDate, p.contractId, p.episodeStart] as const;

/**
 * A bundle part BUNDLED into an episode already paid: its day belongs to the episode, so the episode
 * starts on its earliest day whatever the order claims came in (docs/money-rules.md "Bundles"). It
 * is kept for the episode alone (`included` 1: no duplicate's original, no copay), and only when the
 * episode it joins is recorded (a part of it was paid, on this claim or before). It includes its
 * day's anesthesia when its contract's rate does (`includes_anesthesia`, the anesthesia rule).
 */
export function insertIncludedDay(db: Db, p: Omit<NewPaidLine, 'allowedCents' | 'copayCents' | 'anesthesiaDeductedCents'>): void {
  db.prepare(
    `INSERT INTO paid_lines (encounter_id, sequence, member_id, provider_npi, fee_kind, cpt_code, service_date, contract_id, episode_start,
       allowed_cents, includes_anesthesia, anesthesia_deducted_cents, modifiers, included)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?, 1
     WHERE EXISTS (SELECT 1 FROM paid_lines WHERE member_id = ? AND contract_id = ? AND episode_start = ? AND included = 0)`,
  ).run(...lineKey(p), p.includesAnesthesia ? 1 : 0, p.modifiers.join(MODIFIER_SEPARATOR), p.memberId, p.contractId, p.episodeStart);
}

export function insertPaidLine(db: Db, p: NewPaidLine): void {
  db.prepare(
    `INSERT INTO paid_lines (encounter_id, sequence, member_id, provider_npi, fee_kind, cpt_code, service_date, contract_id, episode_start,
       allowed_cents, includes_anesthesia, anesthesia_deducted_cents, modifiers, copay_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...lineKey(p), p.allowedCents, p.includesAnesthesia ? 1 : 0, p.anesthesiaDeductedCents, p.modifiers.join(MODIFIER_SEPARATOR), p.copayCents);
}

/**
 * An encounter's lines no longer count as paid (a corrected claim replaced or voided it): no later
 * line is its duplicate, its visit copay is no longer taken, and its days leave their episodes. A
 * day other claims had included in an episode only its paid part opened (`insertIncludedDay`) leaves
 * too, once no paid part of that episode is left: an episode nobody paid is no episode, and the claim
 * that replaces it opens it again at the bundle's share (those claims keep their adjudication).
 */
export function deletePaidLines(db: Db, memberId: string, encounterId: string): void {
  const episodes = db
    .prepare(
      'SELECT DISTINCT contract_id, episode_start FROM paid_lines WHERE member_id = ? AND encounter_id = ? AND episode_start IS NOT NULL AND included = 0',
    )
    .all(memberId, encounterId) as { contract_id: string; episode_start: string }[];
  db.prepare('DELETE FROM paid_lines WHERE member_id = ? AND encounter_id = ?').run(memberId, encounterId);
  const orphaned = db.prepare(
    `DELETE FROM paid_lines WHERE member_id = ? AND contract_id = ? AND episode_start = ? AND included = 1
       AND NOT EXISTS (SELECT 1 FROM paid_lines WHERE member_id = ? AND contract_id = ? AND episode_start = ? AND included = 0)`,
  );
  for (const e of episodes) orphaned.run(memberId, e.contract_id, e.episode_start, memberId, e.contract_id, e.episode_start);
}
