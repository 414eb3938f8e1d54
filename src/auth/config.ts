// Where tpa keeps its files (docs/config.md "Credentials and config"), and its profiles.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isLoopbackHost } from '../domain/loopback.js';
import { baseUrlProblem, shownUrl } from '../domain/service-url.js';
import { UsageError } from '../errors.js';
import { readJson, writePrivateJson } from './store.js';

export interface Paths {
  configDir: string;
  dataDir: string;
}

/** TPA_HOME puts config and data under one directory (tests use it); else the XDG locations. */
export function resolvePaths(env: NodeJS.ProcessEnv): Paths {
  if (env.TPA_HOME) return { configDir: env.TPA_HOME, dataDir: env.TPA_HOME };
  const home = homedir();
  return {
    configDir: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'tpa'),
    dataDir: join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'tpa'),
  };
}

export type ProfileEnv = 'local' | 'sandbox' | 'staging' | 'production';

export interface Profile {
  name: string;
  env: ProfileEnv;
  base_url?: string;
  /** Production (OAuth 2.0 over mutual TLS): where tokens come from, who asks, for what. */
  auth_url?: string;
  client_id?: string;
  scopes?: string[];
  /** Paths of the client certificate and its key, and of the service CA (PEM). */
  cert?: string;
  key?: string;
  ca?: string;
  /** Allow TLS 1.2 for a legacy service (TLS 1.3 otherwise). */
  legacy_tls?: boolean;
}

interface ConfigFile {
  default_profile?: string;
  profiles?: Record<string, Omit<Profile, 'name'>>;
}

export function configFile(paths: Paths): string {
  return join(paths.configDir, 'config.json');
}

export function readConfig(paths: Paths): ConfigFile {
  const config = readJson<unknown>(configFile(paths), {});
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UsageError(`${configFile(paths)} is not a JSON object; fix it or remove it`);
  }
  return config as ConfigFile;
}

export function saveProfile(paths: Paths, profile: Profile): void {
  const config = readConfig(paths);
  const { name, ...rest } = profile;
  const reserved = reservedNameProblem(name, 'a profile name');
  if (reserved) throw new UsageError(reserved);
  writePrivateJson(configFile(paths), { ...config, profiles: { ...config.profiles, [name]: rest } });
}

/** Makes `name` the default profile (commands without -p use it). */
export function setDefaultProfile(paths: Paths, name: string): void {
  writePrivateJson(configFile(paths), { ...readConfig(paths), default_profile: name });
}

/**
 * The profile commands without -p use, and why: TPA_PROFILE, else the config's default_profile,
 * else local. A config that cannot be read names none (the command itself says what is wrong).
 */
export function profileInForce(env: NodeJS.ProcessEnv): { name: string; from: 'TPA_PROFILE' | 'config' | 'built-in' } {
  if (env.TPA_PROFILE) return { name: env.TPA_PROFILE, from: 'TPA_PROFILE' };
  let name: unknown;
  try {
    name = readConfig(resolvePaths(env)).default_profile;
  } catch {
    name = undefined;
  }
  return typeof name === 'string' && name !== '' ? { name, from: 'config' } : { name: 'local', from: 'built-in' };
}

/** The profiles saved in the config (never `local`, which always exists without being saved). */
export function savedProfiles(paths: Paths): Profile[] {
  return Object.entries(readConfig(paths).profiles ?? {}).map(([name, p]) => ({ name, ...p }));
}

/**
 * Why `name` cannot name a profile or a setting, if it cannot: profiles and settings are looked up
 * by name in objects, and `__proto__`, `constructor` or `toString` name what every object already
 * has, so that a lookup would find the object's machinery instead of a profile.
 */
export function reservedNameProblem(name: string, what: string): string | undefined {
  return name === '__proto__' || name === 'prototype' || name in Object.prototype ? `"${name}" cannot be ${what}: the name is reserved` : undefined;
}

/** The saved profile of that name, if there is one (never a property every object has). */
export function storedProfile(config: ConfigFile, name: string): Omit<Profile, 'name'> | undefined {
  const profiles = config.profiles;
  return profiles && typeof profiles === 'object' && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

/** The named profile; "local" (the embedded engine) always exists. */
export function resolveProfile(paths: Paths, name: string): Profile {
  const reserved = reservedNameProblem(name, 'a profile name');
  if (reserved) throw new UsageError(reserved);
  const stored = storedProfile(readConfig(paths), name);
  if (stored) return { name, ...stored };
  if (name === 'local') return { name, env: 'local' };
  throw new UsageError(`no profile named "${name}"`, { hint: 'profiles are created by `tpa auth login`; `local` always works' });
}

/**
 * A service URL (a profile's base_url or auth_url) as tpa sends credentials to it: a base URL and
 * nothing more (domain/service-url.ts: no query, fragment, user name or password, and a plain path),
 * over HTTPS, or plain http to this machine only (tpa local serve on loopback). Checked at login, by
 * config set, and whenever a saved profile is used, before anything is sent: whoever edits
 * config.json gets no further than whoever types the URL.
 */
export function httpsUnlessLoopback(baseUrl: string): void {
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new UsageError(`"${shownUrl(baseUrl)}" is not a base URL tpa accepts: ${problem}`, { hint: 'a base URL is scheme://host[:port][/path]' });
  const u = new URL(baseUrl);
  // A loopback address itself, not a name that starts like one: 127.0.0.1.example.com is anyone's.
  // (The URL parser writes every IPv4 form, 127.1 or 0x7f000001, as four decimal numbers.) The
  // connection to `localhost` goes only to what it resolves to on this machine (client/request.ts).
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
    throw new UsageError(
      `${baseUrl}: credentials are sent only over https:// (plain http only to this machine: 127.0.0.0/8, ::1 or localhost, not "${u.hostname}")`,
    );
  }
}
