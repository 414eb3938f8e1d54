// The key of an encrypted local database (tpa local init --encrypt, tpa local encrypt): kept in the
// OS keychain (service `tpa`, one account per data folder), or given in TPA_DB_KEY for headless use.
// Never on the command line, never in a file beside the database it opens.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { DATABASE_KEY_BYTES, databaseFileState, knownEncrypted, parseDatabaseKey } from '../engine/store/cipher.js';
import { AuthError } from '../errors.js';
import { keychainStore, keyringPolicy, NoKeychainInThisBuild } from './credentials.js';

/** The keychain account of a data folder's database key. */
export function databaseKeyAccount(dataDir: string): string {
  return `database-key:${resolve(dataDir)}`;
}

/** What a keychain failure while looking up the database key tells its user. */
export function keychainProblem(err: unknown): AuthError {
  // The single executable carries neither a keychain nor encryption: no Secret Service would help.
  if (err instanceof NoKeychainInThisBuild)
    return new AuthError('the local database is encrypted, and this build of tpa (the single executable) has no encryption and no keychain', {
      hint: 'open an encrypted data directory with tpa installed from npm (with its encryption package), or use a data directory that is not encrypted',
    });
  return new AuthError(`the keychain that holds the local database's key did not answer: ${(err as Error).message.split('\n')[0]}`, {
    hint: 'unlock or start the Secret Service (e.g. gnome-keyring-daemon), or set TPA_DB_KEY to the key',
  });
}

/** The key of the data folder's encrypted database: TPA_DB_KEY, else the keychain's; undefined when neither has one. */
export async function findDatabaseKey(dataDir: string, env: NodeJS.ProcessEnv): Promise<Buffer | undefined> {
  if (env.TPA_DB_KEY) return parseDatabaseKey(env.TPA_DB_KEY, 'TPA_DB_KEY');
  if (keyringPolicy(env) === 'off') return undefined;
  let text: string | null;
  try {
    text = await keychainStore().get(databaseKeyAccount(dataDir));
  } catch (err) {
    throw keychainProblem(err);
  }
  return text ? parseDatabaseKey(text, `the keychain's entry ${databaseKeyAccount(dataDir)}`) : undefined;
}

/**
 * Whether the database `file` of the data folder `dataDir` is encrypted, or known to be (missing
 * after a reset, it is made anew with its key), and then its key (findDatabaseKey's; undefined when
 * none is found).
 */
export async function databaseKeyOf(dataDir: string, file: string, env: NodeJS.ProcessEnv): Promise<{ encrypted: boolean; key?: Buffer }> {
  if (!databaseEncrypted(file)) return { encrypted: false };
  return { encrypted: true, key: await findDatabaseKey(dataDir, env) };
}

/** Whether the database `file` is encrypted, or known to be: missing after a reset, it is made anew with its key. */
export function databaseEncrypted(file: string): boolean {
  const state = databaseFileState(file).kind;
  return state === 'encrypted' || (state === 'absent' && Boolean(knownEncrypted(file)));
}

/**
 * A key for a database about to be encrypted: TPA_DB_KEY's (the user keeps it), else a new random
 * one saved in the keychain first, so that no database is encrypted with a key nobody kept.
 */
export async function newDatabaseKey(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ key: Buffer; keptIn: string }> {
  if (env.TPA_DB_KEY) return { key: parseDatabaseKey(env.TPA_DB_KEY, 'TPA_DB_KEY'), keptIn: 'TPA_DB_KEY (tpa keeps no copy: keep it safe)' };
  if (keyringPolicy(env) === 'off') {
    throw new AuthError('TPA_KEYRING=off, so there is no keychain to keep the database key in', {
      hint: 'set TPA_DB_KEY to a key of your own (e.g. TPA_DB_KEY=$(openssl rand -hex 32)), or allow the keychain',
    });
  }
  const key = randomBytes(DATABASE_KEY_BYTES);
  const store = keychainStore();
  try {
    await store.set(databaseKeyAccount(dataDir), key.toString('hex'));
  } catch (err) {
    throw keychainProblem(err);
  }
  return { key, keptIn: `${store.location}, account ${databaseKeyAccount(dataDir)}` };
}
