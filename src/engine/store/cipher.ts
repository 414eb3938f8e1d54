// Encryption at rest (docs/api.md "Transport and data at rest": AES-256) for the embedded engine's database: SQLCipher's
// format (AES-256-CBC per page, cipherSettings below) through
// better-sqlite3-multiple-ciphers, a dependency loaded only for an encrypted database,
// so that a plain one opens with better-sqlite3 as fast as before. The key is 32 random bytes used
// as they are (no passphrase stretching: it is a key, not a password), kept in the OS keychain or
// given in TPA_DB_KEY as 64 hexadecimal digits.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { DatabaseKeyError, InvalidInput, UnusableDatabase } from '../errors.js';

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

/** better-sqlite3-multiple-ciphers, loaded on first use; missing, an error saying how to get it. */
export function cipherSqlite(): DatabaseConstructor {
  if (cipherDriver) return cipherDriver;
  try {
    cipherDriver = createRequire(import.meta.url)(CIPHER_PACKAGE) as DatabaseConstructor;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new UnusableDatabase(`an encrypted database needs the package ${CIPHER_PACKAGE}, which is not installed`, {
      hint: `try: npm install ${CIPHER_PACKAGE}`,
    });
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
