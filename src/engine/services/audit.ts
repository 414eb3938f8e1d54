// The engine's audit log (migration 12, domain/audit.ts): appended in the transaction of each
// money-moving or irreversible action, walked by `tpa local audit verify` and `list`.
import { auditHash, GENESIS_HASH, verifyChain, type AuditActor, type AuditHead, type ChainVerdict, type StoredAudit } from '../../domain/audit.js';
import { checkEncounter, checkPayout, checkSettlement, expectedMoney, missingRow, type Disagreement } from '../../domain/audit-deep.js';
import { auditDeepFrom, auditRecordsWhere, insertAuditRecord, lastAuditRecord, type AuditFilter } from '../store/audit.js';
import type { Db } from '../store/db.js';
import { encounterAuditFacts } from '../store/encounters.js';
import { payoutAuditFacts, settlementAuditFacts } from '../store/settlements.js';

export type { AuditFilter } from '../store/audit.js';

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
  const last = lastAuditRecord(db);
  const seq = (last?.seq ?? 0) + 1;
  const prev = last?.hash ?? GENESIS_HASH;
  // Every way into the engine binds an actor (Engine.answer and its local operations); 'unknown' would be a path that does not.
  const actor = actors.get(db) ?? 'unknown';
  const hash = auditHash(prev, { seq, at, type, subject, data, actor });
  insertAuditRecord(db, { seq, at, type, subject, dataJson: JSON.stringify(data), prevHash: prev, hash, actor });
}

/** The chain walked from its first record; with `expectHead`, it must still hold that head (domain/audit.ts). */
export function verifyAudit(db: Db, expectHead?: string): ChainVerdict {
  return verifyChain(listAudit(db, {}), expectHead);
}

/** The last record's number and hash (`tpa local audit head`): one lookup by the primary key. */
export function auditHead(db: Db): AuditHead {
  return lastAuditRecord(db) ?? { seq: 0, hash: GENESIS_HASH };
}

export type DeepVerdict =
  | (ChainVerdict & { whole: false })
  | { whole: true; count: number; head: string; checked: { encounters: number; settlements: number; payouts: number }; disagreement: Disagreement | null };

/**
 * The chain verified, then the money tables checked against what it says (`audit verify --deep`):
 * encounters, settlements and payouts in the order they were made; the first row that disagrees.
 */
export function verifyAuditDeep(db: Db, expectHead?: string): DeepVerdict {
  const chain = verifyAudit(db, expectHead);
  if (!chain.whole) return chain;
  const from = auditDeepFrom(db);
  const expected = expectedMoney(listAudit(db, {}), from.seq);
  const checked = { encounters: 0, settlements: 0, payouts: 0 };
  const done = (disagreement: Disagreement | null): DeepVerdict => ({ ...chain, checked, disagreement });
  const byEncounter = compareRows(
    'encounters',
    encounterAuditFacts(db, from.encounter_rowid),
    (row) => {
      const x = expected.encounters.get(row.id);
      return { key: row.id, known: x !== undefined, disagreement: checkEncounter(row, x) };
    },
    [...expected.encounters].map(([id, x]) => [id, x.seq]),
  );
  checked.encounters = byEncounter.count;
  if (byEncounter.disagreement) return done(byEncounter.disagreement);
  const bySettlement = compareRows(
    'settlements',
    settlementAuditFacts(db, from.settlement_rowid),
    (row) => {
      const x = expected.settlements.get(row.id);
      return { key: row.id, known: x !== undefined, disagreement: checkSettlement(row, x) };
    },
    [...expected.settlements].map(([id, x]) => [id, x.seq]),
  );
  checked.settlements = bySettlement.count;
  if (bySettlement.disagreement) return done(bySettlement.disagreement);
  const byPayout = compareRows(
    'payouts',
    payoutAuditFacts(db),
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

/** The records in order, filtered by time (`at` on or after `from`, on or before `to`'s day) and type. */
export function listAudit(db: Db, f: AuditFilter): Iterable<StoredAudit> {
  return auditRecordsWhere(db, f);
}
