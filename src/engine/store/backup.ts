// The driver calls of `tpa local backup` and `tpa local restore` (docs/local-data.md "Backups"): a
// consistent copy of the live database, a copy opened to be checked, and the live database made one
// file before a restore replaces it.
import Database from 'better-sqlite3';
import { applyDatabaseKey, cipherSqlite } from './cipher.js';
import { renewDatabaseIdentity } from './identity.js';
import { aloneInOneFile } from './db.js';
import { MIGRATIONS } from './migrations.js';
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

/**
 * Opens a copy (a backup, or one about to be restored): read-only unless `writable`, with `key` if it
 * is encrypted. A file from outside until its schema is found to be tpa's: its schema is not trusted
 * (functions with side effects are refused in its views, triggers, defaults and indexes), and the
 * driver's defensive mode (better-sqlite3 opens every connection with it, as the engine's) forbids
 * writing the schema itself.
 */
export function openCopy(file: string, key: Buffer | undefined, writable = false): Db {
  const Driver = key ? cipherSqlite() : Database;
  const db = new Driver(file, { readonly: !writable, fileMustExist: true });
  try {
    if (key) applyDatabaseKey(db, key);
    db.pragma('trusted_schema = OFF');
    db.pragma('busy_timeout = 5000');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Makes a copy one self-contained file (rollback journal, not WAL): nothing beside it is needed to
 * open it. `renew`: the database a restore puts in place, with a new identity (identity.ts
 * renewDatabaseIdentity). The backup itself is never written.
 */
export function makeSingleFile(file: string, key: Buffer | undefined, renew = false): void {
  const db = openCopy(file, key, true);
  try {
    db.pragma('journal_mode = DELETE');
    if (renew) renewDatabaseIdentity(db);
  } finally {
    db.close();
  }
}

/** One object of a database's schema, as sqlite_master holds it (`sql` null for SQLite's own indexes). */
export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** What a copy says of itself: its schema version and every object of its schema. */
export function copyStructure(db: Db): { userVersion: number; schema: SchemaObject[] } {
  const userVersion = db.pragma('user_version', { simple: true }) as number;
  return { userVersion, schema: schemaObjects(db) };
}

function schemaObjects(db: Db): SchemaObject[] {
  return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() as SchemaObject[];
}

/** SQLite's integrity check of a copy: "ok" alone when whole. Run once its schema is known to be tpa's. */
export function copyIntegrity(db: Db): string[] {
  return (db.pragma('integrity_check(10)', { simple: false }) as { integrity_check: string }[]).map((r) => r.integrity_check);
}

/**
 * The schema tpa's migrations give at `version`: the first `version` migrations run on an empty
 * database in memory (their data hooks write rows, never schema). About 10 ms for all of them.
 */
export function migratedSchema(version: number): SchemaObject[] {
  const db = new Database(':memory:');
  try {
    for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
    return schemaObjects(db);
  } finally {
    db.close();
  }
}

/**
 * The key of the settings row a backup carries the data directory's last X12 interchange control
 * number (ISA13) in (docs/local-data.md "Backups"): the counter lives in a file of the data directory,
 * outside the database, and a restore into another one must not write those numbers again.
 */
const CONTROL_NUMBER_SETTING = 'x12_control_number';

/** Writes the data directory's last ISA13 into a backup's copy (open writable): a settings row, no schema change, outside the audit chain. */
export function keepControlNumber(db: Db, last: number): void {
  db.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)').run(CONTROL_NUMBER_SETTING, String(last));
}

/** The last ISA13 a copy carries (keepControlNumber), 0 when none or not a whole number. */
export function carriedControlNumber(db: Db): number {
  const value = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(CONTROL_NUMBER_SETTING);
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : 0;
  return n;
}

/** How many encounters and ledger history entries a copy holds. */
export function copyCounts(db: Db): { encounters: number; entries: number } {
  return {
    encounters: db.prepare('SELECT count(*) FROM encounters').pluck().get() as number,
    entries: db.prepare('SELECT count(*) FROM history_entries').pluck().get() as number,
  };
}

/** The live database held by a restore until it is replaced, or not (holdLiveDatabase). */
export interface LiveHold {
  /** The connection that holds it: what it holds can be read through it meanwhile (none: a file that is not a database). */
  db?: Db;
  /** Lets it go; not `replaced` (a refusal, an interruption), it is made WAL again, as it was. */
  release(replaced: boolean): void;
}

/**
 * Before a restore reads the backup: the live database's WAL copied into it and the journal made
 * a rollback journal, so that the file alone is the database and no WAL of the old one is left to
 * be applied to the new; then held with an exclusive lock until `release`, after the rename (or the
 * refusal). A command that opens it meanwhile waits for the lock and is refused as busy, or finds
 * the file it opened replaced: SQLite refuses it any write (SQLITE_READONLY_DBMOVED), so nothing is
 * written into the database replaced, nor into a WAL beside the new one. Undefined when another
 * connection holds it (a command running now): nothing then changes.
 */
export function holdLiveDatabase(file: string, key: Buffer | undefined): LiveHold | undefined {
  const db = openCopy(file, key, true);
  let wal = false;
  try {
    wal = db.pragma('journal_mode', { simple: true }) === 'wal';
    if (!aloneInOneFile(db)) {
      db.close();
      return undefined;
    }
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) return undefined;
    throw err;
  }
  return {
    db,
    release: (replaced) => {
      try {
        db.exec('ROLLBACK');
        if (!replaced && wal) db.pragma('journal_mode = WAL');
      } finally {
        db.close();
      }
    },
  };
}
