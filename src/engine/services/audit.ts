// The engine's audit log (migration 12, domain/audit.ts): appended in the transaction of each
// money-moving or irreversible action, walked by `tpa local audit verify` and `list`.
import { auditHash, GENESIS_HASH, verifyChain, type AuditActor, type AuditHead, type ChainVerdict, type StoredAudit } from '../../domain/audit.js';
import {
  checkEncounter,
  checkPayout,
  checkSettlement,
  expectedMoney,
  missingRow,
  type Disagreement,
  type EncounterFacts,
  type PayoutFacts,
  type SettlementFacts,
} from '../../domain/audit-deep.js';
import type { Db } from '../store/db.js';

/** The actor of what the engine clock made due (an arrival, its reconciliation), whoever's request moved the clock. */
export const ENGINE_ACTOR: AuditActor = 'engine';

/**
 * Who acts on each database now. The engine answers one request at a time and synchronously (the
 * route handlers and better-sqlite3 never await), so the actor bound for a request is the actor of
 * every record it appends, however deep in the services; no call site can forget to pass it.
 */
const actors = new WeakMap<Db, AuditActor>();

/** Runs `fn` with `actor` as the actor of every audit record it appends (restoring the one before). */
export function asActor<T>(db: Db, actor: AuditActor, fn: () => T): T {
  const before = actors.get(db);
  actors.set(db, actor);
  try {
    return fn();
  } finally {
    if (before === undefined) actors.delete(db);
    else actors.set(db, before);
  }
}

/** Appends a record; the caller's transaction makes it one with the action. Amounts in `data` are in cents. */
export function appendAudit(db: Db, type: string, subject: string, at: string, data: Record<string, unknown>): void {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
  const seq = (last?.seq ?? 0) + 1;
  const prev = last?.hash ?? GENESIS_HASH;
  // Every way into the engine binds an actor (Engine.answer and its local operations); 'unknown' would be a path that does not.
  const actor = actors.get(db) ?? 'unknown';
  const hash = auditHash(prev, { seq, at, type, subject, data, actor });
  db.prepare('INSERT INTO audit_log (seq, at, type, subject, data_json, prev_hash, hash, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    seq,
    at,
    type,
    subject,
    JSON.stringify(data),
    prev,
    hash,
    actor,
  );
}

const RECORD_COLUMNS = 'seq, at, type, subject, data_json, prev_hash, hash, actor';

/** The chain walked from its first record; with `expectHead`, it must still hold that head (domain/audit.ts). */
export function verifyAudit(db: Db, expectHead?: string): ChainVerdict {
  return verifyChain(db.prepare(`SELECT ${RECORD_COLUMNS} FROM audit_log ORDER BY seq`).iterate() as Iterable<StoredAudit>, expectHead);
}

/** The last record's number and hash (`tpa local audit head`): one lookup by the primary key. */
export function auditHead(db: Db): AuditHead {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as AuditHead | undefined;
  return last ?? { seq: 0, hash: GENESIS_HASH };
}

export type DeepVerdict =
  | (ChainVerdict & { whole: false })
  | { whole: true; count: number; head: string; checked: { encounters: number; settlements: number; payouts: number }; disagreement: Disagreement | null };

/** Where the chain began to record payouts, reconciliations and AEOB changes (the migration of issue 22). */
function deepFrom(db: Db): { seq: number; encounter_rowid: number; settlement_rowid: number } {
  const v = db.prepare(`SELECT value FROM settings WHERE key = 'audit_deep_from'`).pluck().get() as string | undefined;
  return v === undefined ? { seq: 0, encounter_rowid: 0, settlement_rowid: 0 } : JSON.parse(v);
}

/**
 * The chain verified, then the money tables checked against what it says (`audit verify --deep`):
 * encounters, settlements and payouts in the order they were made; the first row that disagrees.
 */
export function verifyAuditDeep(db: Db, expectHead?: string): DeepVerdict {
  const chain = verifyAudit(db, expectHead);
  if (!chain.whole) return chain;
  const from = deepFrom(db);
  const expected = expectedMoney(listAudit(db, {}), from.seq);
  const checked = { encounters: 0, settlements: 0, payouts: 0 };
  const done = (disagreement: Disagreement | null): DeepVerdict => ({ ...chain, checked, disagreement });
  const encounters = db.prepare(
    `SELECT id, rowid > @rowid AS covered, status, completed_at IS NOT NULL AS completed, disposition, charge_cents, allowed_cents, patient_cents, benefit_cents,
       json_extract(outcome_json, '$.totals.chargeCents') AS outcome_charge_cents, json_extract(outcome_json, '$.totals.allowedCents') AS outcome_allowed_cents,
       json_extract(outcome_json, '$.totals.patientResponsibilityCents') AS outcome_patient_cents, json_extract(outcome_json, '$.totals.benefitCents') AS outcome_benefit_cents,
       json_extract(outcome_json, '$.lines') AS outcome_lines, aeob_adjustment_cents, aeob_missing
     FROM encounters ORDER BY rowid`,
  );
  const byEncounter = compareRows(
    'encounters',
    encounters.iterate({ rowid: from.encounter_rowid }) as Iterable<EncounterFacts>,
    (row) => {
      const x = expected.encounters.get(row.id);
      return { key: row.id, known: x !== undefined, disagreement: checkEncounter(row, x) };
    },
    [...expected.encounters].map(([id, x]) => [id, x.seq]),
  );
  checked.encounters = byEncounter.count;
  if (byEncounter.disagreement) return done(byEncounter.disagreement);
  const settlements = db.prepare(
    `SELECT id, rowid > @rowid AS covered, encounter_id, attempt, processor_transfer_id, status, total_amount_cents, authorization_code, reconciliation_status, match_status, aeob_amount_cents
     FROM settlements ORDER BY rowid`,
  );
  const bySettlement = compareRows(
    'settlements',
    settlements.iterate({ rowid: from.settlement_rowid }) as Iterable<SettlementFacts>,
    (row) => {
      const x = expected.settlements.get(row.id);
      return { key: row.id, known: x !== undefined, disagreement: checkSettlement(row, x) };
    },
    [...expected.settlements].map(([id, x]) => [id, x.seq]),
  );
  checked.settlements = bySettlement.count;
  if (bySettlement.disagreement) return done(bySettlement.disagreement);
  const payouts = db.prepare(
    `SELECT p.settlement_id, p.sequence, p.processor_payout_id, p.provider_npi, p.provider_role, p.amount_cents, p.fee_cents, p.payout_status
     FROM payouts p JOIN settlements s ON s.id = p.settlement_id ORDER BY s.rowid, p.sequence`,
  );
  const byPayout = compareRows(
    'payouts',
    payouts.iterate() as Iterable<PayoutFacts>,
    (row) => {
      const x = expected.settlements.get(row.settlement_id);
      return { key: `${row.settlement_id} #${row.sequence}`, known: x !== undefined, disagreement: checkPayout(row, x) };
    },
    [...expected.settlements].flatMap(([id, s]) => [...s.payouts].map(([sequence, p]): [string, number] => [`${id} #${sequence}`, p.seq])),
  );
  checked.payouts = byPayout.count;
  return done(byPayout.disagreement);
}

/**
 * Each row of a table against what the chain says of it, then each row the chain made that the
 * table no longer has: the first disagreement, and how many rows the chain knew were checked.
 */
function compareRows<R>(
  table: Disagreement['table'],
  rows: Iterable<R>,
  check: (row: R) => { key: string; known: boolean; disagreement: Disagreement | null },
  expected: readonly [key: string, seq: number][],
): { count: number; disagreement: Disagreement | null } {
  const seen = new Set<string>();
  for (const row of rows) {
    const { key, known, disagreement } = check(row);
    if (disagreement) return { count: seen.size, disagreement };
    if (known) seen.add(key);
  }
  for (const [key, seq] of expected) if (!seen.has(key)) return { count: seen.size, disagreement: missingRow(table, key, seq) };
  return { count: seen.size, disagreement: null };
}

export interface AuditFilter {
  from?: string;
  to?: string;
  type?: string;
}

/** The records in order, filtered by time (`at` on or after `from`, on or before `to`'s day) and type. */
export function listAudit(db: Db, f: AuditFilter): Iterable<StoredAudit> {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (f.from) where.push('at >= @from'), (params.from = f.from);
  if (f.to) where.push('at < @to'), (params.to = `${f.to}~`);
  if (f.type) where.push('type = @type'), (params.type = f.type);
  return db
    .prepare(`SELECT ${RECORD_COLUMNS} FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`)
    .iterate(params) as Iterable<StoredAudit>;
}
