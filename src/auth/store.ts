// Config and credentials files: written atomically (temp file, then rename) with mode 0600, so a
// crash never leaves half a file and no other user can read them.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Paths } from './config.js';

export function writePrivateJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

export function readJson<T>(file: string, fallback: T): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UsageError(`${file} is not valid JSON; fix it or remove it`);
  }
}

/**
 * API keys by profile, in a 0600 file in the config dir. (The OS keychain comes later, behind the
 * same three functions.) TPA_API_KEY overrides every store.
 */
export function credentialsFile(paths: Paths): string {
  return join(paths.configDir, 'credentials.json');
}

interface Credentials {
  profiles?: Record<string, { api_key?: string }>;
}

export function readApiKey(paths: Paths, profile: string, env: NodeJS.ProcessEnv): { key: string; source: 'TPA_API_KEY' | 'file' } | undefined {
  if (env.TPA_API_KEY) return { key: env.TPA_API_KEY, source: 'TPA_API_KEY' };
  const key = readJson<Credentials>(credentialsFile(paths), {}).profiles?.[profile]?.api_key;
  return key ? { key, source: 'file' } : undefined;
}

export function saveApiKey(paths: Paths, profile: string, key: string): void {
  const creds = readJson<Credentials>(credentialsFile(paths), {});
  writePrivateJson(credentialsFile(paths), { ...creds, profiles: { ...creds.profiles, [profile]: { api_key: key } } });
}
