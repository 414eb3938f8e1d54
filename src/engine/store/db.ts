// Opens the engine's SQLite file, applying migrations and the seed on first use.
import Database from 'better-sqlite3';
import { closeSync, existsSync, fchmodSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Conflict, UnusableDatabase } from '../errors.js';
import { applyDatabaseKey, cipherSqlite, databaseFileState, encryptInPlace, keyProblem } from './cipher.js';
import { engineNow } from '../clock.js';
import { privateDataDirProblem, privatePathProblem } from '../private-dir.js';
import { MIGRATIONS } from './migrations.js';
import { SEEDS } from './seed.js';
import type { Db } from './transactions.js';

export type { Db } from './transactions.js';
export { inDiscardedTransaction, inWriteTransaction, writeTransactionSerial } from './transactions.js';

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The page cache of a long-lived connection that writes (`tpa local serve`, the benchmarks), in KiB
 * (PRAGMA cache_size takes it negated). Not more: when a b-tree split renumbers its new pages,
 * SQLite parks one in the cache under the number of the page at the 1 GiB lock byte (balance_nonroot),
 * and the commit then walks the cache's whole hash table to drop it, a walk as long as the cache
 * holds pages. 8 MB of 1 KiB pages is the 8,192 pages that 32 MB held of 4 KiB ones; what the walk
 * cost with more: docs/numbers.md "Storage".
 */
export const PAGE_CACHE_KB = 8 * 1024;
/**
 * The page cache of a CLI command's connection: the pages a claim or an approval writes are few and
 * at the right edge of their indexes, so 4 MB (4,096 pages of 1 KiB) keeps them, and a batch's
 * memory stays down at no cost in speed (docs/numbers.md "Storage").
 */
export const CLI_PAGE_CACHE_KB = 4 * 1024;

/**
 * How much of the database file `tpa local serve` reads through a memory map (PRAGMA mmap_size):
 * each page it reads is then a memory access instead of a read system call into the page cache
 * (what that saves: docs/numbers.md "Storage"). The pages it
 * touches count in the server's resident memory as file cache the system can take back. A mapped
 * file that shrank under the server would stop it with SIGBUS; tpa never shrinks one (no VACUUM, no
 * auto_vacuum; `tpa local reset` removes the file, which leaves the mapped one whole).
 */
export const SERVER_MMAP_BYTES = 1024 * 1024 * 1024;

/** The page size of a database this tpa creates (an existing one keeps the size it was made with). */
export const NEW_DATABASE_PAGE_SIZE = 1024;
/** How much WAL is written before it is copied into the database (wal_autocheckpoint, in bytes). */
const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;

export interface OpenOptions {
  /** The engine clock's TPA_CLOCK override: data a migration dates (a plan year) follows the engine clock. */
  clockOverride?: Date;
  /** The page cache in KiB (default PAGE_CACHE_KB). */
  cacheKb?: number;
  /** How much of the file to read through a memory map (default none; SERVER_MMAP_BYTES for local serve). */
  mmapBytes?: number;
  /** The key of an encrypted database (cipher.ts); a plain database does not need it. */
  key?: Buffer;
  /** Create a new database encrypted with `key` (tpa local init --encrypt) when there is none yet. */
  createEncrypted?: boolean;
  /** Where a note for the user goes (a data folder that was narrowed); stderr by default. */
  note?: (text: string) => void;
}

/**
 * The data folder is the user's alone (0700), whatever the umask: it holds member names and dates
 * of birth. A folder that was there, wider, is narrowed, and the user told (once: it stays narrowed).
 * A folder (or its journals folder) that another user owns, or that cannot be narrowed, is refused
 * (exit 2) before anything in it is read or written (private-dir.ts).
 */
export function privateDataDir(dir: string, note: (text: string) => void = (text) => process.stderr.write(`${text}\n`)): void {
  const problem = privateDataDirProblem(dir, note);
  if (problem !== undefined) throw new UnusableDatabase(problem, { code: 'data_dir_not_private' });
}

/**
 * Every file of the database (the file, its WAL and shared memory, a journal) is the owner's alone:
 * made 0600, and an older one readable by others narrowed (a file its owner made read-only stays so).
 * One that another user owns (planted while the folder was open to others), or that cannot be
 * narrowed, is refused before SQLite opens it. With `narrow` false only the owners are checked
 * (before the header is read: a database from a newer tpa keeps its mode).
 */
function privateDatabaseFiles(file: string, narrow = true): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    const problem = privatePathProblem(`${file}${suffix}`, 'the database file', 0o600, undefined, narrow);
    if (problem !== undefined) throw new UnusableDatabase(problem, { code: 'data_dir_not_private' });
  }
}

function newerDatabase(file: string, version: number): UnusableDatabase {
  return new UnusableDatabase(
    `the local database ${file} was written by a newer tpa (schema version ${version}; this tpa knows ${SCHEMA_VERSION}): upgrade tpa to use it; it was not changed`,
  );
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  privateDataDir(dirname(file), options.note);
  privateDatabaseFiles(file, false);
  // What the file is, read before SQLite opens it: a database from a newer tpa is refused with
  // nothing changed (no switch to WAL, no new mode), and an encrypted one needs its key.
  const state = databaseFileState(file);
  // A WAL database whose WAL is not empty may hold a newer user_version than its header: SQLite reads it below.
  if (state.kind === 'plain' && state.userVersion > SCHEMA_VERSION && !(state.wal && nonEmpty(`${file}-wal`))) {
    throw newerDatabase(file, state.userVersion);
  }
  if (state.kind === 'encrypted' && !options.key) throw keyProblem(file, false);
  const encrypted = state.kind === 'encrypted' || (state.kind === 'absent' && options.createEncrypted === true && options.key !== undefined);
  if (state.kind === 'absent') {
    // SQLite gives the WAL and shared-memory files the mode of the database file: made 0600 first,
    // they are too, whatever the umask.
    let fd: number | undefined;
    try {
      fd = openSync(file, 'a', 0o600);
      fchmodSync(fd, 0o600);
    } catch {
      // A folder that cannot be written: SQLite's own open below says so (storageProblem).
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  } else {
    privateDatabaseFiles(file);
  }
  const Driver = encrypted ? cipherSqlite() : Database;
  const db = new Driver(file);
  if (encrypted) applyDatabaseKey(db, options.key!);
  // Read before the journal is switched to WAL, for a file the header did not decide (encrypted, or a
  // WAL not yet copied); the first read of an encrypted file is where a wrong key shows.
  let version: number;
  try {
    version = db.pragma('user_version', { simple: true }) as number;
  } catch (err) {
    if (!encrypted) throw err;
    db.close();
    throw (err as { code?: string }).code === 'SQLITE_NOTADB' ? keyProblem(file, true) : err;
  }
  if (version > SCHEMA_VERSION) {
    db.close();
    throw newerDatabase(file, version);
  }
  // Each page a claim changes is written whole to the WAL, and each checkpoint waits for the WAL to
  // reach the disk (fsync): smaller pages make a claim write far fewer bytes there
  // (docs/numbers.md "Storage"). The size only takes effect on a new, empty file: an older
  // database keeps its own.
  db.pragma(`page_size = ${NEW_DATABASE_PAGE_SIZE}`);
  // Several CLI processes may share one data dir: WAL lets readers run beside a writer, and the
  // busy timeout makes a second writer wait for the first instead of failing.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  // A claim writes a dozen b-trees; with SQLite's default 2 MB of page cache a ledger of 100,000
  // encounters reads most of them back from the OS on every claim. PAGE_CACHE_KB keeps the index
  // pages a claim touches. A checkpoint every 16 MB of WAL
  // (4,096 pages of 4 KiB, 16,384 of 1 KiB) instead of SQLite's 1,000 pages copies pages that were
  // rewritten meanwhile once instead of several times, and waits for fewer fsyncs.
  db.pragma(`cache_size = ${-(options.cacheKb ?? PAGE_CACHE_KB)}`);
  if (options.mmapBytes) db.pragma(`mmap_size = ${options.mmapBytes}`);
  db.pragma(`wal_autocheckpoint = ${Math.round(WAL_CHECKPOINT_BYTES / (db.pragma('page_size', { simple: true }) as number))}`);
  migrate(db, options, file);
  privateDatabaseFiles(file);
  cacheStatements(db);
  return db;
}

function nonEmpty(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

/**
 * Compiling SQL costs more than running it for the small queries of a request, so each statement is
 * prepared once per connection and reused. The trap: `.pluck()` changes a statement for all its
 * users, so a given SQL text must always be used the same way (every query here is written once).
 */
function cacheStatements(db: Db): void {
  const cache = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
}

function migrate(db: Db, options: OpenOptions, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw newerDatabase(file, current);
  if (current === SCHEMA_VERSION) return;
  // A migration that rebuilds a table other tables refer to (14) drops it while its children are in
  // place: SQLite's procedure for that is foreign keys off around the transaction (the pragma does
  // nothing inside one), and a check of every reference before it commits.
  db.pragma('foreign_keys = OFF');
  try {
    // IMMEDIATE takes the write lock first, so two processes opening a new file do not both migrate.
    db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      for (let v = version; v < SCHEMA_VERSION; v++) {
        db.exec(MIGRATIONS[v]!);
        // Each migration that brings new reference data seeds it, so an older database gains it too.
        SEEDS[v]?.(db, () => engineNow(db, options.clockOverride).now);
      }
      const broken = db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
      if (broken.length > 0) {
        const first = broken[0]!;
        throw new Error(
          `migrating ${file} left ${broken.length} row(s) referring to missing rows (the first: ${first.table} row ${first.rowid} → ${first.parent}); nothing was changed`,
        );
      }
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/**
 * What a SQLite failure of the local database means for its user, when it is the storage's and not
 * a bug: a read-only or full disk, a file that is not a tpa database, a writer that held it past the
 * busy wait. Undefined for anything else.
 */
export function storageProblem(err: unknown, file: string): string | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
    return `the local database ${file} is busy: another process (tpa local serve, or another tpa command) held it for more than 5 seconds; try again when it is done`;
  }
  if (
    code === 'SQLITE_READONLY' ||
    code.startsWith('SQLITE_READONLY_') ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_CANTOPEN' ||
    code.startsWith('SQLITE_CANTOPEN_')
  ) {
    return `the local database ${file} cannot be written (a read-only file or folder, or no permission); nothing was changed`;
  }
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) {
    return `the local database ${file} could not be written (the disk is full or failing); the last change was rolled back, nothing was half-written`;
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_')) {
    return `${file} is not a tpa database (or it is damaged): move it away, or run tpa local reset to start a new one`;
  }
  return undefined;
}

/**
 * Encrypts a plain database in place (tpa local encrypt). SQLite rewrites every page in one
 * journaled transaction, which needs the rollback journal instead of WAL and no other connection:
 * a database another process holds (tpa local serve) is refused, unchanged.
 */
export function encryptDatabase(file: string, key: Buffer): void {
  const Driver = cipherSqlite();
  const db = new Driver(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
    if (db.pragma('journal_mode = DELETE', { simple: true }) !== 'delete') {
      throw new Conflict(`the local database ${file} is in use by another process (tpa local serve?): stop it, then encrypt; nothing was changed`);
    }
    encryptInPlace(db, key);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  privateDatabaseFiles(file);
}

/** Deletes the database file and its WAL companions; the next use creates and seeds a new one. */
export function removeDatabase(file: string): boolean {
  const existed = existsSync(file);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return existed;
}
