// The engine's audit log (migration 12, domain/audit.ts): appended in the transaction of each
// money-moving or irreversible action, walked by `tpa local audit verify` and `list`.
import { auditHash, GENESIS_HASH, verifyChain, type AuditActor, type AuditHead, type ChainVerdict, type StoredAudit } from '../../domain/audit.js';
import {
  checkEncounter,
  checkHistoryEntry,
  checkRate,
  checkPayout,
  checkSettlement,
  DISAGREEMENTS_SHOWN,
  expectedMoney,
  missingRow,
  rateKey,
  type Disagreement,
} from '../../domain/audit-deep.js';
import { auditDeepFrom, auditRecordsWhere, insertAuditRecord, lastAuditRecord, type AuditFilter } from '../store/audit.js';
import type { Db } from '../store/db.js';
import { rateAuditFacts } from '../store/contracts.js';
import { encounterAuditFacts, historyAuditFacts } from '../store/encounters.js';
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
  | {
      whole: true;
      count: number;
      head: string;
      checked: { encounters: number; settlements: number; payouts: number };
      /** How many rows and columns disagree with the chain, all of them counted. */
      disagreementCount: number;
      /** The first DISAGREEMENTS_SHOWN of them, in the order the rows were made. */
      disagreements: Disagreement[];
    };

/**
 * The chain verified, then the money tables checked against what it says (`audit verify --deep`):
 * encounters, settlements and payouts in the order they were made. Every disagreement is counted and
 * the first ten kept: one found first must not hide a later one (a forged amount after a row that
 * disagrees for another reason).
 */
export function verifyAuditDeep(db: Db, expectHead?: string): DeepVerdict {
  const chain = verifyAudit(db, expectHead);
  if (!chain.whole) return chain;
  const from = auditDeepFrom(db);
  const expected = expectedMoney(listAudit(db, {}), from.seq);
  const found = { count: 0, shown: [] as Disagreement[] };
  const note = (ds: readonly Disagreement[]) => {
    for (const d of ds) {
      found.count++;
      if (found.shown.length < DISAGREEMENTS_SHOWN) found.shown.push(d);
    }
  };
  const encounters = compareRows(
    'encounters',
    encounterAuditFacts(db, from.encounter_rowid),
    (row) => {
      const x = expected.encounters.get(row.id);
      return { key: row.id, known: x !== undefined, disagreements: checkEncounter(row, x) };
    },
    [...expected.encounters].map(([id, x]) => [id, x.seq]),
    note,
  );
  const settlements = compareRows(
    'settlements',
    settlementAuditFacts(db, from.settlement_rowid),
    (row) => {
      const x = expected.settlements.get(row.id);
      return { key: row.id, known: x !== undefined, disagreements: checkSettlement(row, x) };
    },
    [...expected.settlements].map(([id, x]) => [id, x.seq]),
    note,
  );
  const payouts = compareRows(
    'payouts',
    payoutAuditFacts(db),
    (row) => {
      const x = expected.settlements.get(row.settlement_id);
      return { key: `${row.settlement_id} #${row.sequence}`, known: x !== undefined, disagreements: checkPayout(row, x) };
    },
    [...expected.settlements].flatMap(([id, s]) => [...s.payouts].map(([sequence, p]): [string, number] => [`${id} #${sequence}`, p.seq])),
    note,
  );
  // The amounts the ledger's history shows, against the records that hold them: each entry of a
  // claim the chain records whole answers one record, and no record is answered twice.
  const matched = new Set<number>();
  for (const row of historyAuditFacts(db)) note(checkHistoryEntry(row, expected.encounters.get(row.encounter_id), matched));
  // The rates finalized schedules made (no count of their own either).
  compareRows(
    'contract_rates',
    rateAuditFacts(db),
    (row) => {
      const x = expected.rates.get(row.contract_id);
      const key = `${row.contract_id} ${row.cpt_code} from ${row.effective_from}`;
      return { key, known: x?.rows.has(`${row.cpt_code}|${row.effective_from}`) === true, disagreements: checkRate(row, x) };
    },
    [...expected.rates].flatMap(([contract, x]) => [...x.rows].map(([k, r]): [string, number] => [rateKey(contract, k), r.seq])),
    note,
  );
  return { ...chain, checked: { encounters, settlements, payouts }, disagreementCount: found.count, disagreements: found.shown };
}

/**
 * Each row of a table against what the chain says of it, then each row the chain made that the
 * table no longer has: every disagreement goes to `note`; the count of rows the chain knew that were checked.
 */
function compareRows<R>(
  table: Disagreement['table'],
  rows: Iterable<R>,
  check: (row: R) => { key: string; known: boolean; disagreements: Disagreement[] },
  expected: readonly [key: string, seq: number][],
  note: (ds: readonly Disagreement[]) => void,
): number {
  const seen = new Set<string>();
  for (const row of rows) {
    const { key, known, disagreements } = check(row);
    note(disagreements);
    if (known) seen.add(key);
  }
  for (const [key, seq] of expected) if (!seen.has(key)) note([missingRow(table, key, seq)]);
  return seen.size;
}

/** The records in order, filtered by time (`at` on or after `from`, on or before `to`'s day) and type. */
export function listAudit(db: Db, f: AuditFilter): Iterable<StoredAudit> {
  return auditRecordsWhere(db, f);
}
