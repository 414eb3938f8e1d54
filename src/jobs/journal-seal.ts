// The journals of an encrypted data directory are encrypted too (docs/security-data.md "Member data and
// the data directory"): an invalid or refused claim's journal record holds the claim's whole text
// (member name and id, diagnoses), a payment run's plan its encounters, the fund history what the
// service answered. Each record is then written as one line `{"sealed":"<base64>"}`: AES-256-GCM
// of the record's JSON, with a random 96-bit IV per line, under a key derived (HKDF-SHA256) from the
// database's key, so that whoever copies the data directory without that key reads none of it, and
// a line changed in the file is found (the tag) instead of read. One format, this module.
//
// Whether a command's journals are sealed is decided once for the command (cli/action.ts), from
// its data directory: encrypted database, sealed journals, wherever they are written (--journal
// included); a plain one, plain journals as before. A journal holding plain lines (written before
// the database was encrypted, or left by a `local encrypt` killed before it sealed it) is read with
// the key, and the command says once, on stderr, that it holds plain lines and names `tpa local
// encrypt` to seal them; what is appended to it is sealed. Without the key it is not read at all
// (exit 5), as sealed lines are not: a plain line does not open a door a sealed one keeps shut.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { databaseFile, keyOpensDatabase } from '../engine/store/cipher.js';
import { privateDataDirProblem, privatePathProblem, stderrNote } from '../engine/private-dir.js';
import { AuthError } from '../errors.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'tpa journal records v1';

/** Seals and opens journal lines with the journal key of one data directory. */
export class JournalSeal {
  private readonly key: Buffer;

  /** `databaseKey`: the 32-byte key of the data directory's database; the journals' key is derived from it. */
  constructor(databaseKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', databaseKey, Buffer.alloc(0), INFO, 32));
  }

  /** Random IVs drawn a thousand at a time: one draw a line cost a batch more than the cipher did. */
  private ivs = Buffer.alloc(0);
  private nextIv = 0;

  /** One record's line (without its newline), sealed. */
  seal(json: string): string {
    if (this.nextIv + IV_BYTES > this.ivs.length) {
      this.ivs = randomBytes(IV_BYTES * 1024);
      this.nextIv = 0;
    }
    const iv = this.ivs.subarray(this.nextIv, this.nextIv + IV_BYTES);
    this.nextIv += IV_BYTES;
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    return `{"sealed":"${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}"}`;
  }

  /** The JSON a sealed line holds, or undefined when this key does not open it (another key, or changed). */
  open(sealed: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/**
 * What a command's journals are: plain (a plain data directory, or none), sealed with a key, or
 * sealed with a key that was not found (an encrypted data directory whose key is missing): then
 * opening a journal to write, or reading a sealed line, is refused with `problem`, never written plain.
 */
export type JournalSealing = { kind: 'plain' } | { kind: 'sealed'; seal: JournalSeal; plainLines?: PlainLinesNote } | { kind: 'locked'; problem: () => Error };

/** How a command says that a journal of its encrypted data directory holds plain lines: once. */
interface PlainLinesNote {
  note: (text: string) => void;
  told: boolean;
}

/**
 * A journal of an encrypted data directory was read holding `count` lines in plain text: said once
 * a command (the first such journal named), naming the command that seals them. Nothing said for a
 * plain data directory.
 */
export function plainLinesRead(sealing: JournalSealing, path: string, count: number): void {
  if (sealing.kind !== 'sealed' || count === 0 || !sealing.plainLines || sealing.plainLines.told) return;
  sealing.plainLines.told = true;
  sealing.plainLines.note(
    `tpa: the journal ${path} holds ${count} line(s) in plain text although the data directory is encrypted (written before it was, or left by a tpa local encrypt that was stopped): run tpa local encrypt to seal every journal still holding plain lines`,
  );
}

const PLAIN: JournalSealing = { kind: 'plain' };
const scope = new AsyncLocalStorage<JournalSealing>();

/** Runs `fn` with its journals sealed as `sealing` says (cli/action.ts, once per command). */
export function withJournalSealing<T>(sealing: JournalSealing, fn: () => T): T {
  return scope.run(sealing, fn);
}

/** How the journals of the command running now are sealed (plain outside a command: the engine's tests, the demo's own). */
export function journalSealing(): JournalSealing {
  return scope.getStore() ?? PLAIN;
}

/** The error for a journal of an encrypted data directory whose key was not found. */
export function journalKeyMissing(why?: string): AuthError {
  return new AuthError(
    `the data directory's database is encrypted, so its journals are too, and its key was not found${why ? ` (${why})` : ''}: no journal is read or written without it`,
    {
      code: 'database_key_missing',
      hint: 'set TPA_DB_KEY to its key (64 hexadecimal digits), or use the account whose keychain holds it',
    },
  );
}

/**
 * How the journals of a command on `dataDir` are written: sealed with a key derived from the
 * database's when the database is encrypted, plain when it is not (or there is none). An encrypted
 * database whose key cannot be found (or whose keychain does not answer) seals them shut: a journal
 * is then neither read nor written, never written plain. A plain database costs a read of its
 * first 100 bytes; only an encrypted one a look for its key (TPA_DB_KEY, else the keychain).
 */
export async function journalSealingOf(dataDir: string, env: NodeJS.ProcessEnv, note?: (text: string) => void): Promise<JournalSealing> {
  const file = databaseFile(dataDir);
  // An encrypt stopped midway is undone first (db.ts): the journals follow the database as it then is.
  // Only in a data directory that is this user's alone (private-dir.ts): another user's is refused
  // when it is opened, before any of its files is rolled back or removed here.
  const interrupted =
    (existsSync(`${file}-journal`) || existsSync(`${file}.encrypting`)) &&
    privateDataDirProblem(dataDir, undefined, false) === undefined &&
    privatePathProblem(file, 'the database', 0o600, undefined, false) === undefined;
  if (interrupted) (await import('../engine/store/db.js')).recoverInterruptedEncryption(file, note);
  const { databaseEncrypted, findDatabaseKey } = await import('../auth/database-key.js');
  // A data directory known to be encrypted whose database is missing (a reset) is encrypted still.
  if (!databaseEncrypted(file)) return PLAIN;
  try {
    const key = await findDatabaseKey(dataDir, env);
    if (!key) return { kind: 'locked', problem: () => journalKeyMissing() };
    // A key that does not open the database seals nothing and opens nothing: a journal sealed with
    // it could never be read with the right one.
    if (!keyOpensDatabase(file, key)) return { kind: 'locked', problem: () => journalKeyWrong(file) };
    if (interrupted) (await import('../engine/store/db.js')).finishEncryption(file, key, note);
    return { kind: 'sealed', seal: new JournalSeal(key), plainLines: { note: note ?? stderrNote, told: false } };
  } catch (err) {
    return { kind: 'locked', problem: () => err as Error };
  }
}

/** The error for a key (TPA_DB_KEY, or the keychain's) that does not open the data directory's database. */
export function journalKeyWrong(file: string): AuthError {
  return new AuthError(
    `the key given does not open the local database ${file} (it is encrypted with another key), so no journal is read or written with it and nothing is sent`,
    {
      code: 'database_key_wrong',
      hint: 'check TPA_DB_KEY, or unset it to use the key kept in the keychain',
    },
  );
}
