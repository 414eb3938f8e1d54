// The driver calls of `tpa local backup` and `tpa local restore` (docs/design.md "Backups"): a
// consistent copy of the live database, a copy opened to be checked, and the live database made one
// file before a restore replaces it.
import Database from 'better-sqlite3';
import { applyDatabaseKey, cipherSqlite } from './cipher.js';
import type { Db } from './transactions.js';

/**
 * As many pages as SQLite's backup step takes (a 31-bit count): the whole database in one step.
 * The online backup copies a few pages a step, and starts again from the first page whenever
 * another process (`local serve`) commits between two steps: under steady writes it would never
 * end. One step copies every page under one read lock, from one snapshot of the WAL, while writers
 * go on appending to it.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database open as `db` into `target`, an empty file (its mode is kept): a plain
 * database with SQLite's online backup API in one step; an encrypted one with VACUUM INTO, which
 * writes it encrypted under the same key (SQLite3 Multiple Ciphers refuses the backup API between
 * an encrypted source and a destination it opens without the key: "incompatible source and target
 * databases"). Both read one snapshot: a commit made meanwhile is wholly in the copy or wholly not.
 */
export async function copyLiveDatabase(db: Db, target: string, encrypted: boolean): Promise<void> {
  if (encrypted) db.prepare('VACUUM INTO ?').run(target);
  else await db.backup(target, { progress: () => ALL_PAGES });
}

/** Opens a copy (a backup, or one about to be restored): read-only unless `writable`, with `key` if it is encrypted. */
export function openCopy(file: string, key: Buffer | undefined, writable = false): Db {
  const Driver = key ? cipherSqlite() : Database;
  const db = new Driver(file, { readonly: !writable, fileMustExist: true });
  try {
    if (key) applyDatabaseKey(db, key);
    db.pragma('busy_timeout = 5000');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Makes a copy one self-contained file (rollback journal, not WAL): nothing beside it is needed to open it. */
export function makeSingleFile(file: string, key: Buffer | undefined): void {
  const db = openCopy(file, key, true);
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** What a copy says of itself: its schema version, its tables, SQLite's integrity check ("ok" alone when whole). */
export function copyStructure(db: Db): { userVersion: number; tables: Set<string>; integrity: string[] } {
  const userVersion = db.pragma('user_version', { simple: true }) as number;
  const tables = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]);
  const integrity = db.pragma('integrity_check(10)', { simple: false }) as { integrity_check: string }[];
  return { userVersion, tables, integrity: integrity.map((r) => r.integrity_check) };
}

/** How many encounters and ledger history entries a copy holds. */
export function copyCounts(db: Db): { encounters: number; entries: number } {
  return {
    encounters: db.prepare('SELECT count(*) FROM encounters').pluck().get() as number,
    entries: db.prepare('SELECT count(*) FROM history_entries').pluck().get() as number,
  };
}

/**
 * Before the live database is replaced: its WAL copied into it and the journal made a rollback
 * journal, so that the file alone is the database and no WAL of the old one is left to be applied
 * to the new. False when another connection holds it (a command running now): nothing then changes.
 */
export function liveToSingleFile(file: string, key: Buffer | undefined): boolean {
  const db = openCopy(file, key, true);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) return false;
    throw err;
  } finally {
    db.close();
  }
}
