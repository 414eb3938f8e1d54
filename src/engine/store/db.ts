// Opens the engine's SQLite file, applying migrations and the seed on first use.
import Database from 'better-sqlite3';
import { closeSync, existsSync, fchmodSync, openSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { Conflict, DatabaseKeyError, UnusableDatabase } from '../errors.js';
import {
  applyDatabaseKey,
  cipherSqlite,
  databaseFileState,
  encryptedMarkerFile,
  encryptInPlace,
  markerFits,
  keyProblem,
  knownEncrypted,
  recordEncrypted,
  syncFolder,
  writeDurably,
} from './cipher.js';
import { engineNow } from '../clock.js';
import { privateDataDirProblem, privatePathProblem, stderrNote } from '../private-dir.js';
import { MIGRATIONS } from './migrations.js';
import { SEEDS } from './seed.js';
import type { Db } from './transactions.js';
import { removeLeftovers } from '../../files/write-whole.js';

export type { Db } from './transactions.js';
export { inDiscardedTransaction, inWriteTransaction, writeTransactionSerial } from './transactions.js';

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The page cache of a long-lived connection that writes (`tpa local serve`, the benchmarks), in KiB
 * (PRAGMA cache_size takes it negated). Not more: when a b-tree split renumbers its new pages,
 * SQLite parks one in the cache under the number of the page at the 1 GiB lock byte (balance_nonroot),
 * and the commit then walks the cache's whole hash table to drop it, a walk as long as the cache
 * holds pages. 8 MB of 1 KiB pages is the 8,192 pages that 32 MB held of 4 KiB ones; what the walk
 * cost with more: docs/numbers-history.md "Storage".
 */
export const PAGE_CACHE_KB = 8 * 1024;
/**
 * The page cache of a CLI command's connection: the pages a claim or an approval writes are few and
 * at the right edge of their indexes, so 4 MB (4,096 pages of 1 KiB) keeps them, and a batch's
 * memory stays down at no cost in speed (docs/numbers-history.md "Storage").
 */
export const CLI_PAGE_CACHE_KB = 4 * 1024;

/**
 * How much of the database file `tpa local serve` reads through a memory map (PRAGMA mmap_size):
 * each page it reads is then a memory access instead of a read system call into the page cache
 * (what that saves: docs/numbers-history.md "Storage"). The pages it
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
export function privateDataDir(dir: string, note: (text: string) => void = stderrNote): void {
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
  recoverInterruptedEncryption(file, options.note);
  if (options.key) finishEncryption(file, options.key, options.note);
  // What the file is, read before SQLite opens it: a database from a newer tpa is refused with
  // nothing changed (no switch to WAL, no new mode), and an encrypted one needs its key.
  const state = databaseFileState(file);
  // A data directory known to be encrypted (cipher.ts encryptedMarkerFile) stays so: a database
  // missing from it (reset, deleted, moved) is made anew encrypted with its key, never plain, and
  // not with another key (the marker's check value). An existing encrypted file is judged by SQLite.
  const known = knownEncrypted(file);
  if (known && state.kind === 'absent') {
    if (!options.key) throw encryptedDataDirWithoutKey(file);
    if (markerFits(known, options.key) === false) throw keyProblem(file, true);
  }
  const createEncrypted = options.createEncrypted === true || known !== undefined;
  // A WAL database whose WAL is not empty may hold a newer user_version than its header: SQLite reads it below.
  if (state.kind === 'plain' && state.userVersion > SCHEMA_VERSION && !(state.wal && nonEmpty(`${file}-wal`))) {
    throw newerDatabase(file, state.userVersion);
  }
  if (state.kind === 'encrypted' && !options.key) throw keyProblem(file, false);
  const encrypted = state.kind === 'encrypted' || (state.kind === 'absent' && createEncrypted && options.key !== undefined);
  // The driver first: one that cannot be had (no cipher package, or a build without encryption)
  // refuses before the file is made, so that a refused command leaves no empty database behind.
  const Driver = encrypted ? cipherSqlite() : Database;
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
  // (docs/numbers-history.md "Storage"). The size only takes effect on a new, empty file: an older
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
  // Opened with its key: the data directory is known to be encrypted from now on, with this key's check value.
  // (The marker read above: nothing in between writes it.)
  if (encrypted && markerFits(known, options.key!) !== true) recordEncrypted(file, options.key!);
  privateDatabaseFiles(file);
  cacheStatements(db);
  return db;
}

function encryptedDataDirWithoutKey(file: string): DatabaseKeyError {
  return new DatabaseKeyError(
    `the data directory ${dirname(file)} is encrypted (${encryptedMarkerFile(file)} says so) and has no database now; no key for it was found, and tpa does not create a plain database in an encrypted data directory`,
    {
      code: 'database_key_missing',
      hint: `set TPA_DB_KEY to its key (64 hexadecimal digits), or use the account whose keychain holds it: the new database is made encrypted with it (to start plain instead, remove ${encryptedMarkerFile(file)})`,
    },
  );
}

/** The file that says `tpa local encrypt` is converting the database (written before, removed after). */
export function encryptingMarkerFile(file: string): string {
  return `${file}.encrypting`;
}

/** Whether the encrypt that wrote `marker` still runs (another process than this one): then its files are left alone. */
function encryptRunning(marker: string): boolean {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(readFileSync(marker, 'utf8')) as { pid?: number }).pid;
  } catch {
    // Absent, or cut short while written: the encrypt had not begun to change the database.
  }
  return typeof pid === 'number' && pid !== process.pid && processAlive(pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * After `tpa local encrypt` was stopped before it finished (kill -9, a power cut; Ctrl-C and
 * SIGTERM wait for the conversion, encryptDatabase). The conversion rewrites every page in one
 * transaction whose rollback journal holds the pages as they were, in plain text, while the pages
 * already rewritten are encrypted. SQLite rolls a hot journal back at the first read, through the
 * connection's cipher: opened with the key, those plain pages would be "decrypted" into the file and
 * the database lost. So a journal of plain pages (its copy of page 1 is a plain header) is rolled
 * back here first, by the plain driver, which writes the pages back as they were: the database is
 * plain again, whole, and the user is told to encrypt it again. A journal of encrypted pages (a
 * later step of the conversion) is the cipher's own, rolled back by the open with the key, and an
 * encryption that had committed is finished there (finishEncryption: the file's tail cut off).
 * Left alone while the process that wrote the marker still runs (its encrypt is under way). A
 * database tpa keeps encrypted is in WAL mode, with no rollback journal: a journal of plain pages
 * beside it is one left by an encrypt, marker or not (a tpa that wrote none).
 */
export function recoverInterruptedEncryption(file: string, note: (text: string) => void = stderrNote): void {
  const marker = encryptingMarkerFile(file);
  const journal = `${file}-journal`;
  const hasMarker = existsSync(marker);
  if (!hasMarker && !nonEmpty(journal)) return;
  if (hasMarker && encryptRunning(marker)) return;
  if (nonEmpty(journal) && existsSync(file) && (databaseFileState(file).kind === 'plain' || journalOfPlainPages(journal))) {
    const plain = new Database(file, { fileMustExist: true });
    try {
      plain.pragma('busy_timeout = 5000');
      // The first read rolls a hot journal back (what another connection holds open is not hot).
      plain.pragma('schema_version', { simple: true });
    } catch {
      // Not a plain database after all: the open with the key decides.
    } finally {
      plain.close();
    }
  }
  if (!hasMarker || databaseFileState(file).kind !== 'plain') return;
  // A journal still there was not hot (SQLite ignores it): it holds plain pages, and goes.
  rmSync(journal, { force: true });
  rmSync(marker, { force: true });
  syncFolder(dirname(file));
  note(`tpa: tpa local encrypt was stopped before it finished; the database ${file} is as it was before, whole and NOT encrypted: run tpa local encrypt again`);
}

/** Whether a rollback journal's copy of page 1 is a plain SQLite header (sqlite.org/fileformat.html "The Rollback Journal"). */
function journalOfPlainPages(journal: string): boolean {
  let bytes: Buffer;
  try {
    bytes = readFileSync(journal);
  } catch {
    return false;
  }
  if (bytes.length < 28) return false;
  const sector = bytes.readUInt32BE(20);
  const pageSize = bytes.readUInt32BE(24);
  if (sector < 32 || pageSize < 512 || pageSize > 65536) return false;
  for (let at = sector; at + 4 + 16 <= bytes.length; at += pageSize + 8) {
    if (bytes.readUInt32BE(at) === 1) return bytes.subarray(at + 4, at + 20).toString('latin1') === 'SQLite format 3\0';
  }
  return false;
}

/**
 * An encrypt that committed but was stopped before its last steps: the file may still hold, past
 * its last page, the tail of the plain file it was (SQLite cuts it off after the commit), and the
 * marker is still there. With the key: the tail is cut off, a journal SQLite did not roll back (not
 * hot) removed, the data directory marked encrypted, and the marker removed.
 */
export function finishEncryption(file: string, key: Buffer, note: (text: string) => void = stderrNote): void {
  const marker = encryptingMarkerFile(file);
  // Under way in another process (its commit may not have ended): nothing here is ours to finish.
  if (!existsSync(marker) || encryptRunning(marker) || databaseFileState(file).kind !== 'encrypted') return;
  const db = new (cipherSqlite())(file, { fileMustExist: true });
  let bytes: number;
  try {
    applyDatabaseKey(db, key);
    db.pragma('busy_timeout = 5000');
    try {
      bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_NOTADB') throw keyProblem(file, true);
      throw err;
    }
    // The journal (if any) was rolled back, or found not hot, by that read; the WAL (if any) is empty after a conversion.
    if (!nonEmpty(`${file}-wal`) && statSync(file).size > bytes) truncateSync(file, bytes);
  } finally {
    db.close();
  }
  rmSync(`${file}-journal`, { force: true });
  recordEncrypted(file, key);
  rmSync(marker, { force: true });
  syncFolder(dirname(file));
  note(
    `tpa: tpa local encrypt was stopped after the database ${file} was encrypted; it is now finished: run tpa local encrypt again to seal the journals it had not sealed yet`,
  );
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

/** An older copy brought to this tpa's schema, as an open upgrades a database (the copy a restore puts in place, before it is named). */
export function upgradeCopy(db: Db, file: string): void {
  migrate(db, {}, file);
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
  // The file was renamed over while this connection held it (tpa local restore): its writes would be lost.
  if (code === 'SQLITE_READONLY_DBMOVED') {
    return `the local database ${file} was replaced while this command ran (tpa local restore); nothing was changed: run the command again`;
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
 * The database's WAL copied into its file and its journal made the rollback journal, so that the
 * file alone is the database; false when another connection holds it (the journal stays WAL).
 */
export function aloneInOneFile(db: Db): boolean {
  db.pragma('wal_checkpoint(TRUNCATE)');
  return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
}

/**
 * Encrypts a plain database in place (tpa local encrypt). SQLite rewrites every page in one
 * journaled transaction, which needs the rollback journal instead of WAL and no other connection:
 * a database another process holds (tpa local serve) is refused, unchanged.
 */
export async function encryptDatabase(file: string, key: Buffer): Promise<void> {
  const Driver = cipherSqlite();
  const marker = encryptingMarkerFile(file);
  // Ctrl-C, SIGTERM or SIGHUP while the pages are rewritten: the rewrite is synchronous, so the
  // signal is only acted on once it is over, whole (holdSignals); kill -9 or a power cut leave the
  // marker and the journal for the next open (recoverInterruptedEncryption).
  const signals = holdSignals();
  try {
    const db = new Driver(file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      if (!aloneInOneFile(db)) {
        throw new Conflict(`the local database ${file} is in use by another process (tpa local serve?): stop it, then encrypt; nothing was changed`);
      }
      // On the disk before the first page changes, gone once the database is encrypted whole.
      writeDurably(marker, `${JSON.stringify({ pid: process.pid, since: new Date().toISOString() })}\n`);
      syncFolder(dirname(file));
      encryptInPlace(db, key);
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    if (databaseFileState(file).kind === 'encrypted') recordEncrypted(file, key);
    rmSync(marker, { force: true });
    syncFolder(dirname(file));
    privateDatabaseFiles(file);
  } finally {
    await signals.release(
      () =>
        `tpa: interrupted: the database ${file} was encrypted whole first (the conversion does not stop midway); run tpa local encrypt again to seal the journals`,
    );
  }
}

/** Signals held (holdSignals): the one that came, if any, acted on when they are let go. */
export interface HeldSignals {
  /** Lets the signals go: one that came meanwhile is acted on now, `said` (given it) first, and the process ends by it as it would have. */
  release(said: (signal: NodeJS.Signals) => string): Promise<void>;
}

let holding = false;

/**
 * Holds SIGINT, SIGTERM and SIGHUP while work that must not stop midway runs, synchronous or not
 * (the conversion of the database, then the sealing of the journals, tpa local encrypt): one that
 * comes is only noted, and acted on at `release`, once the work is over whole. Held already (a
 * caller holding them around a step that holds them too): the outer hold acts, the inner does nothing.
 */
export function holdSignals(): HeldSignals {
  if (holding) return { release: async () => undefined };
  holding = true;
  const names = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  let came: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    came ??= signal;
  };
  for (const name of names) process.on(name, onSignal);
  return {
    release: async (said) => {
      // A signal that came during synchronous work waits in the event loop's signal pipe, read at its
      // next poll: the handlers stay until the loop has polled once (two immediates from now; a
      // handler removed before would drop the signal).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      for (const name of names) process.removeListener(name, onSignal);
      holding = false;
      if (came === undefined) return;
      process.stderr.write(`${said(came)}\n`);
      const handled = process.listenerCount(came) > 0;
      process.kill(process.pid, came);
      // With no handler left the process ends by the signal: nothing after this runs meanwhile.
      if (!handled) await new Promise(() => undefined);
    },
  };
}

/**
 * Deletes the database file and its WAL companions, and the copies a restore stopped midway left
 * beside it (the caller holds the data directory's lock); the next use creates and seeds a new one.
 */
export function removeDatabase(file: string): boolean {
  const existed = existsSync(file);
  removeLeftovers([file], 'restore');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return existed;
}
