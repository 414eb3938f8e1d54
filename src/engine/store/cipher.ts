// Encryption at rest (docs/api.md "Transport and data at rest": AES-256) for the embedded engine's database: SQLCipher's
// format (AES-256-CBC per page, cipherSettings below) through
// better-sqlite3-multiple-ciphers, a dependency loaded only for an encrypted database,
// so that a plain one opens with better-sqlite3 as fast as before. The key is 32 random bytes used
// as they are (no passphrase stretching: it is a key, not a password), kept in the OS keychain or
// given in TPA_DB_KEY as 64 hexadecimal digits.
import { hkdfSync, timingSafeEqual } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, renameSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { CipherPackageMissing, DatabaseKeyError, InvalidInput } from '../errors.js';

export const CIPHER_PACKAGE = 'better-sqlite3-multiple-ciphers';
export const DATABASE_KEY_BYTES = 32;

/** The engine's database file in a data directory. */
export function databaseFile(dataDir: string): string {
  return join(dataDir, 'local.sqlite');
}

/** What is in the database file, read from its first 100 bytes without SQLite. */
export type DatabaseFileState = { kind: 'absent' } | { kind: 'plain'; userVersion: number; wal: boolean } | { kind: 'encrypted' } | { kind: 'unknown' };

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A plain SQLite file starts with its magic string; an encrypted one with 16 random bytes (its salt)
 * and is made of whole pages. Anything else (an empty file, or a file that is neither) is for SQLite
 * to judge.
 */
export function databaseFileState(file: string): DatabaseFileState {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'unknown' };
  }
  try {
    const header = Buffer.alloc(100);
    const read = readSync(fd, header, 0, 100, 0);
    if (read === 0) return { kind: 'absent' };
    if (read === 100 && header.subarray(0, 16).equals(SQLITE_MAGIC)) {
      // Bytes 18 and 19: 2 in a WAL database; bytes 60-63: PRAGMA user_version (sqlite.org/fileformat.html).
      return { kind: 'plain', userVersion: header.readInt32BE(60), wal: header[18] === 2 };
    }
    const { size } = fstatSync(fd);
    return read === 100 && size % 512 === 0 ? { kind: 'encrypted' } : { kind: 'unknown' };
  } finally {
    closeSync(fd);
  }
}

/** A key given as text (TPA_DB_KEY): 64 hexadecimal digits, or an error naming where it came from. */
export function parseDatabaseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    throw new InvalidInput(`${source} must be 64 hexadecimal digits (a 256-bit key; e.g. from: openssl rand -hex 32)`);
  }
  return Buffer.from(trimmed, 'hex');
}

type DatabaseConstructor = typeof Database;
let cipherDriver: DatabaseConstructor | undefined;

/**
 * better-sqlite3-multiple-ciphers, loaded on first use. An installed package of tpa comes without it
 * (docs/packaging.md "Package": 34 MB that only encryption uses); missing, CipherPackageMissing
 * (the CLI names the one command that installs it where this tpa finds it).
 */
export function cipherSqlite(): DatabaseConstructor {
  if (cipherDriver) return cipherDriver;
  try {
    cipherDriver = createRequire(import.meta.url)(CIPHER_PACKAGE) as DatabaseConstructor;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new CipherPackageMissing(
      `an encrypted database needs the package ${CIPHER_PACKAGE}, which is not installed (an installed tpa gets it on request: it is only for encryption)`,
      CIPHER_PACKAGE,
    );
  }
  return cipherDriver;
}

/**
 * Keys a connection of better-sqlite3-multiple-ciphers, before anything else is read or written:
 * SQLCipher 4's format with 1 KiB pages (db.ts NEW_DATABASE_PAGE_SIZE), the key used raw.
 */
export function applyDatabaseKey(db: Database.Database, key: Buffer): void {
  cipherSettings(db);
  db.pragma(`key = "x'${key.toString('hex')}'"`);
}

/** Encrypts an open plain database in place with `key` (its journal must not be WAL). */
export function encryptInPlace(db: Database.Database, key: Buffer): void {
  cipherSettings(db);
  db.pragma(`rekey = "x'${key.toString('hex')}'"`);
}

/**
 * SQLCipher 4's format (AES-256-CBC, a random IV for each page written), with tpa's 1 KiB pages and
 * without SQLCipher's per-page HMAC-SHA512: on 1 KiB pages the HMAC cost a claim far more CPU than
 * tpa allows encryption, where AES alone costs little (docs/numbers.md "Encryption"). What the
 * HMAC would add, detecting a page changed in the file, the audit chain already does for the money
 * (tpa local audit verify --deep); SQLCipher opens the file with cipher_use_hmac = OFF. Temporary
 * files in memory (temp_store), never on the disk in plain text.
 */
function cipherSettings(db: Database.Database): void {
  db.pragma(`cipher = 'sqlcipher'`);
  db.pragma('legacy = 4');
  db.pragma('legacy_page_size = 1024');
  db.pragma('hmac_use = 0');
  // The cipher encrypts the database and its WAL, not SQLite's temporary files (a sort, an index
  // built for a query, a temporary table): those hold rows in plain text, in the temporary folder, by
  // default (this build's SQLITE_TEMP_STORE=1). An encrypted database keeps them in memory.
  db.pragma('temp_store = MEMORY');
}

/** The message for an encrypted database that no key, or a wrong one, opens. */
export function keyProblem(file: string, given: boolean): DatabaseKeyError {
  return given
    ? new DatabaseKeyError(`the local database ${file} is encrypted, and the key given does not open it (or the file is damaged)`, {
        code: 'database_key_wrong',
        hint: 'check TPA_DB_KEY, or unset it to use the key kept in the keychain',
      })
    : new DatabaseKeyError(`the local database ${file} is encrypted (or it is not a tpa database), and no key for it was found`, {
        code: 'database_key_missing',
        hint: 'set TPA_DB_KEY to its key (64 hexadecimal digits), or use the account whose keychain holds it',
      });
}

/**
 * The file that says a data directory is encrypted (`local.sqlite.encrypted`, beside the database):
 * written when a database is created encrypted or encrypted (and by the first open, with its key,
 * of one encrypted before tpa wrote it), and kept by `tpa local reset`, so that a data directory
 * once encrypted never gets a plain database made in it silently (db.ts openDatabase). It names no
 * secret: a key-check value, 16 bytes derived from the key (HKDF-SHA256) that tell a wrong key at
 * once and reveal nothing of it.
 */
export function encryptedMarkerFile(file: string): string {
  return `${file}.encrypted`;
}

const KEY_CHECK_INFO = 'tpa database key check v1';

function keyCheckOf(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), KEY_CHECK_INFO, 16));
}

/** What the marker says: undefined when there is none (a plain data directory, or one encrypted before tpa wrote it). */
export function knownEncrypted(file: string): { keyCheck?: Buffer } | undefined {
  let text: string;
  try {
    text = readFileSync(encryptedMarkerFile(file), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return {};
  }
  try {
    const check = (JSON.parse(text) as { key_check?: unknown }).key_check;
    return typeof check === 'string' && /^[0-9a-f]{32}$/.test(check) ? { keyCheck: Buffer.from(check, 'hex') } : {};
  } catch {
    // Damaged: still an encrypted data directory, with no check value to compare a key with.
    return {};
  }
}

/** Whether `key` is the data directory's (its check value); undefined when the marker holds none. */
export function keyFits(file: string, key: Buffer): boolean | undefined {
  return markerFits(knownEncrypted(file), key);
}

/** keyFits of a marker already read (knownEncrypted): true or false by its check value, undefined when it has none. */
export function markerFits(known: { keyCheck?: Buffer } | undefined, key: Buffer): boolean | undefined {
  const check = known?.keyCheck;
  return check ? timingSafeEqual(check, keyCheckOf(key)) : undefined;
}

/** Writes the marker with `key`'s check value, whole (a new file renamed over), 0600, and on the disk. */
export function recordEncrypted(file: string, key: Buffer): void {
  const marker = encryptedMarkerFile(file);
  const text = `${JSON.stringify({ encrypted: true, cipher: 'sqlcipher 4, AES-256', key_check: keyCheckOf(key).toString('hex') })}\n`;
  writeDurably(`${marker}.new`, text);
  renameSync(`${marker}.new`, marker);
  syncFolder(dirname(file));
}

/** Writes `text` to a new file (0600) and waits for it to reach the disk. */
export function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a file created or renamed in `dir` durable (best effort: some systems cannot open a folder). */
export function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here: the file itself was synced.
  }
}

/**
 * Whether `key` opens the encrypted database `file`: by the marker's check value, else (a database
 * encrypted before tpa wrote one, or one restored from a copy made with another key) by opening it
 * read-only with the key and reading its header; with no database, by the check value alone.
 * Errors other than "not a database" (busy, say) leave the answer to the real open: true.
 */
export function keyOpensDatabase(file: string, key: Buffer): boolean {
  const fits = keyFits(file, key);
  if (fits === true) return true;
  // No database: the check value alone says (none: nothing to check the key against).
  if (databaseFileState(file).kind !== 'encrypted') return fits !== false;
  let db: Database.Database | undefined;
  try {
    db = new (cipherSqlite())(file, { readonly: true, fileMustExist: true });
    applyDatabaseKey(db, key);
    db.pragma('user_version', { simple: true });
    return true;
  } catch (err) {
    return (err as { code?: string }).code !== 'SQLITE_NOTADB';
  } finally {
    db?.close();
  }
}
