// Handlers of `tpa config` (declared in config.ts).
import { configFile, readConfig } from '../../auth/config.js';
import { writePrivateJson } from '../../auth/store.js';
import { NotFoundError, UsageError } from '../../errors.js';
import type { Handler } from '../action.js';
import { flatten } from '../../render/output.js';

const PROFILE_FIELDS: Record<string, (value: string) => unknown> = {
  env: (v) => {
    if (!['local', 'sandbox', 'staging', 'production'].includes(v)) throw new UsageError('env must be local, sandbox, staging or production');
    return v;
  },
  base_url: url,
  auth_url: url,
  client_id: (v) => v,
  scopes: (v) => v.split(/[\s,]+/).filter(Boolean),
  cert: (v) => v,
  key: (v) => v,
  ca: (v) => v,
  legacy_tls: (v) => {
    if (v !== 'true' && v !== 'false') throw new UsageError('legacy_tls is true or false');
    return v === 'true';
  },
};

function url(v: string): string {
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v.replace(/\/+$/, '');
  } catch {
    // refused below
  }
  throw new UsageError(`"${v}" is not an http(s) URL`);
}

export const list: Handler = async (ctx) => {
  const flat = flatten(readConfig(ctx.paths));
  const entries = Object.entries(flat).filter(([k]) => k !== 'value');
  return {
    data: Object.fromEntries(entries),
    items: entries.map(([key, value]) => ({ key, value })),
    table: () =>
      entries.length === 0
        ? `no settings yet (${configFile(ctx.paths)})`
        : entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join('\n'),
  };
};

export const get: Handler = async (ctx, [key]) => {
  const value = flatten(readConfig(ctx.paths))[key!];
  if (value === undefined) throw new NotFoundError(`no setting ${key}`, { hint: 'see: tpa config list' });
  return { data: { key, value }, table: () => (Array.isArray(value) ? value.join(',') : String(value)) };
};

export const set: Handler = async (ctx, [key, value]) => {
  // biome-ignore lint/suspicious/noExplicitAny: config.json as read, changed key by key
  const config = readConfig(ctx.paths) as Record<string, any>;
  if (key === 'default_profile') {
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(value!)) throw new UsageError('a profile name is letters, digits, "-" and "_"');
    config.default_profile = value;
  } else {
    const m = /^profiles\.([A-Za-z0-9_-]{1,40})\.([a-z_]+)$/.exec(key!);
    if (!m || !PROFILE_FIELDS[m[2]!]) {
      // Keys and tokens are never among them: they live in the credential store (tpa auth login).
      throw new UsageError(`unknown setting "${key}": use default_profile or profiles.<name>.<${Object.keys(PROFILE_FIELDS).join('|')}>`);
    }
    config.profiles ??= {};
    config.profiles[m[1]!] ??= { env: 'sandbox' };
    config.profiles[m[1]!][m[2]!] = PROFILE_FIELDS[m[2]!]!(value!);
  }
  writePrivateJson(configFile(ctx.paths), config);
  return { data: { key, value }, table: () => `${key}=${value}` };
};
