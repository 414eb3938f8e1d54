// Where secrets live (docs/config.md "Credentials and config"): the OS keychain (service
// `tpa`, account = profile name) through @napi-rs/keyring, or a file of mode 0600 in the config dir
// where no keychain answers. One small interface, so that another backend can replace either.
// TPA_KEYRING=required|auto|off chooses (default auto); TPA_API_KEY overrides every store.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyFormatProblem, type KeyEnvironment } from '../domain/api-keys.js';
import { AuthError, UsageError } from '../errors.js';
import type { Paths } from './config.js';
import { readJson, writePrivateJson } from './store.js';

export interface SecretStore {
  readonly kind: 'keychain' | 'file';
  /** Where, for people: "Secret Service (service tpa)" or the file's path. */
  readonly location: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

export const KEYCHAIN_SERVICE = 'tpa';
/** A keychain that does not answer within this is counted as unavailable: a hung keyring must not hang tpa. */
export const KEYCHAIN_TIMEOUT_MS = 3000;

/**
 * A build of tpa that carries no keychain at all (the single executable: scripts/sea.mjs makes
 * keychainCall throw it): no Secret Service to unlock or start, so TPA_KEYRING=required says so.
 */
export class NoKeychainInThisBuild extends Error {}

/**
 * One keychain operation, in a child process: connecting to a Secret Service happens inside the
 * native binding and can block the calling thread for good (a hung D-Bus), so only a process that
 * can be killed is safe. The secret travels on the child's stdin, never in its arguments.
 */
async function keychainCall(op: 'get' | 'set' | 'delete', account: string, secret?: string): Promise<string | boolean | null> {
  const [{ spawn }, { createRequire }] = await Promise.all([import('node:child_process'), import('node:module')]);
  const binding = createRequire(import.meta.url).resolve('@napi-rs/keyring');
  const program = `
    const { Entry } = require(${JSON.stringify(binding)});
    let input = '';
    process.stdin.on('data', (d) => (input += d)).on('end', () => {
      const { op, service, account, secret } = JSON.parse(input);
      try {
        const entry = new Entry(service, account, { linux: { store: 'secret-service' } });
        const result = op === 'get' ? entry.getPassword() : op === 'set' ? (entry.setPassword(secret), true) : entry.deletePassword();
        process.stdout.write(JSON.stringify({ ok: true, result: result ?? null }));
      } catch (err) {
        process.stdout.write(JSON.stringify({ ok: false, message: String((err && err.message) || err) }));
      }
    });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', program], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the keychain did not answer a ${op === 'get' ? 'read' : op === 'set' ? 'write' : 'delete'} within ${KEYCHAIN_TIMEOUT_MS / 1000} s`));
    }, KEYCHAIN_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', (err) => (clearTimeout(timer), reject(err)));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        const answer = JSON.parse(out) as { ok: boolean; result?: string | boolean | null; message?: string };
        if (answer.ok) resolve(answer.result ?? null);
        else reject(new Error(answer.message));
      } catch {
        reject(new Error('the keychain helper gave no answer'));
      }
    });
    child.stdin.end(JSON.stringify({ op, service: KEYCHAIN_SERVICE, account, secret }));
  });
}

class KeychainStore implements SecretStore {
  readonly kind = 'keychain';
  readonly location = process.platform === 'linux' ? `Secret Service (service ${KEYCHAIN_SERVICE})` : `OS keychain (service ${KEYCHAIN_SERVICE})`;

  async get(account: string): Promise<string | null> {
    return (await keychainCall('get', account)) as string | null;
  }

  async set(account: string, secret: string): Promise<void> {
    await keychainCall('set', account, secret);
  }

  async delete(account: string): Promise<boolean> {
    return (await keychainCall('delete', account)) === true;
  }
}

/** The OS keychain alone, with no file to fall back to (the local database's key: database-key.ts). */
export function keychainStore(): SecretStore {
  return new KeychainStore();
}

interface CredentialsFile {
  secrets?: Record<string, string>;
}

class FileStore implements SecretStore {
  readonly kind = 'file';
  constructor(readonly location: string) {}

  private read(): CredentialsFile {
    return readJson<CredentialsFile>(this.location, {});
  }

  async get(account: string): Promise<string | null> {
    const secrets = this.read().secrets;
    return secrets && Object.hasOwn(secrets, account) ? (secrets[account] ?? null) : null;
  }

  async set(account: string, secret: string): Promise<void> {
    const file = this.read();
    writePrivateJson(this.location, { ...file, secrets: { ...file.secrets, [account]: secret } });
  }

  async delete(account: string): Promise<boolean> {
    const file = this.read();
    if (!file.secrets || !Object.hasOwn(file.secrets, account)) return false;
    const { [account]: _gone, ...rest } = file.secrets;
    writePrivateJson(this.location, { ...file, secrets: rest });
    return true;
  }
}

export type KeyringPolicy = 'required' | 'auto' | 'off';

export function keyringPolicy(env: NodeJS.ProcessEnv): KeyringPolicy {
  const value = env.TPA_KEYRING || 'auto';
  if (value !== 'required' && value !== 'auto' && value !== 'off') throw new UsageError(`TPA_KEYRING must be required, auto or off (got "${value}")`);
  return value;
}

export function credentialsPath(paths: Paths): string {
  return join(paths.configDir, 'credentials.json');
}

const opened = new Map<string, Promise<{ primary: SecretStore; file: SecretStore }>>();

/**
 * The store to use under the policy. `auto` asks the keychain once (a read with the 3-second limit)
 * and falls back to the file, saying so once per config dir, with the path.
 */
export function openStore(paths: Paths, env: NodeJS.ProcessEnv, note: (text: string) => void): Promise<{ primary: SecretStore; file: SecretStore }> {
  // Asking the keychain costs a process: once per command is enough.
  const id = `${paths.configDir}\0${keyringPolicy(env)}`;
  let store = opened.get(id);
  if (!store) {
    store = chooseStore(paths, env, note);
    opened.set(id, store);
  }
  return store;
}

async function chooseStore(paths: Paths, env: NodeJS.ProcessEnv, note: (text: string) => void): Promise<{ primary: SecretStore; file: SecretStore }> {
  const file = new FileStore(credentialsPath(paths));
  const policy = keyringPolicy(env);
  if (policy === 'off') return { primary: file, file };
  const keychain = new KeychainStore();
  try {
    await keychain.get('tpa-probe');
    return { primary: keychain, file };
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0];
    if (policy === 'required') {
      throw new AuthError(`TPA_KEYRING=required, but no keychain answered: ${reason}`, {
        hint:
          err instanceof NoKeychainInThisBuild
            ? 'for a keychain, use the npm package of tpa; with this one, set TPA_KEYRING=auto (or off) to keep credentials in the 0600 file'
            : 'unlock or start the Secret Service (e.g. gnome-keyring-daemon), or set TPA_KEYRING=auto to allow the 0600 file',
      });
    }
    const marker = join(paths.configDir, '.keyring-fallback-noted');
    if (!existsSync(marker)) {
      // Said once per config dir, in one short line, and without the keychain's own error (a D-Bus
      // trace reads as a failure): TPA_KEYRING=required shows that error.
      note(`no keychain here: credentials are kept in ${file.location} (mode 0600)`);
      try {
        writePrivateJson(file.location, readJson<CredentialsFile>(file.location, {}));
        writeFileSync(marker, '', { mode: 0o600 });
      } catch {
        // Saying it again next time is better than failing now.
      }
    }
    return { primary: file, file };
  }
}

export interface StoredKey {
  key: string;
  /** TPA_API_KEY, or the store it was found in. */
  source: 'TPA_API_KEY' | SecretStore;
}

const keyAccount = (profile: string) => profile;

/**
 * The profile's API key: TPA_API_KEY, else the keychain, else the file (an earlier fallback).
 * TPA_API_KEY must be a key of the profile's environment, as `auth login` requires of a saved one:
 * a sandbox key is not used, nor recorded, as a staging profile's.
 */
export async function findApiKey(
  paths: Paths,
  profile: string,
  environment: KeyEnvironment,
  env: NodeJS.ProcessEnv,
  note: (text: string) => void,
): Promise<StoredKey | undefined> {
  if (env.TPA_API_KEY) {
    const problem = keyFormatProblem(env.TPA_API_KEY, environment);
    if (problem) throw new AuthError(`TPA_API_KEY is not an API key of profile "${profile}" (${environment}): ${problem}`);
    return { key: env.TPA_API_KEY, source: 'TPA_API_KEY' };
  }
  const { primary, file } = await openStore(paths, env, note);
  for (const store of primary === file ? [file] : [primary, file]) {
    const key = await store.get(keyAccount(profile));
    if (key) return { key, source: store };
  }
  return undefined;
}

/**
 * Whether a credential of the profile is saved (an API key, or a production profile's cached token
 * or key passphrase) in the keychain or the file; TPA_API_KEY is not a saved credential.
 */
export async function hasSavedCredential(paths: Paths, profile: string, env: NodeJS.ProcessEnv, note: (text: string) => void): Promise<boolean> {
  const { primary, file } = await openStore(paths, env, note);
  for (const store of primary === file ? [file] : [primary, file]) {
    for (const account of [keyAccount(profile), `token:${profile}`, `passphrase:${profile}`]) if (await store.get(account)) return true;
  }
  return false;
}

/** Saves the key in the store the policy gives; a copy left in the file by an earlier fallback goes. */
export async function saveApiKey(paths: Paths, profile: string, key: string, env: NodeJS.ProcessEnv, note: (text: string) => void): Promise<SecretStore> {
  const { primary, file } = await openStore(paths, env, note);
  await primary.set(keyAccount(profile), key);
  if (primary !== file) await file.delete(keyAccount(profile));
  return primary;
}

/** Removes the key from wherever it is; returns where it was. */
export async function removeApiKey(paths: Paths, profile: string, env: NodeJS.ProcessEnv, note: (text: string) => void): Promise<SecretStore[]> {
  const { primary, file } = await openStore(paths, env, note);
  const removed: SecretStore[] = [];
  for (const store of primary === file ? [file] : [primary, file]) if (await store.delete(keyAccount(profile))) removed.push(store);
  return removed;
}
