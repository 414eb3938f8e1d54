// tpa config set: change one setting of config.json (mode 0600, written atomically); a key or a
// token is never one of them.
import { resolve } from 'node:path';
import { configFile, httpsUnlessLoopback, readConfig, reservedNameProblem } from '../../../auth/config.js';
import { writePrivateJson } from '../../../auth/store.js';
import { UsageError } from '../../../errors.js';
import { argument, verb } from '../../verb.js';

const PROFILE_FIELDS: Record<string, (value: string) => unknown> = {
  env: (v) => {
    if (!['local', 'sandbox', 'staging', 'production'].includes(v)) throw new UsageError('env must be local, sandbox, staging or production');
    return v;
  },
  base_url: url,
  auth_url: url,
  client_id: (v) => v,
  scopes: (v) => v.split(/[\s,]+/).filter(Boolean),
  // Files, stored absolute as tpa auth login stores them: a relative path would name another file
  // (a rogue ca.pem trusted) in each folder tpa runs from.
  cert: (v) => resolve(v),
  key: (v) => resolve(v),
  ca: (v) => resolve(v),
  legacy_tls: (v) => {
    if (v !== 'true' && v !== 'false') throw new UsageError('legacy_tls is true or false');
    return v === 'true';
  },
};

export const set = verb({
  name: 'set',
  description: 'change a setting: default_profile, or profiles.<name>.<env|base_url|auth_url|client_id|scopes|cert|key|ca|legacy_tls>',
  args: { key: argument.required('<key>', 'the setting'), value: argument.required('<value>', 'its new value') },
  examples: ['tpa config set default_profile sandbox', 'tpa config set profiles.staging.base_url https://staging.tpa.example'],
  async run(ctx, { key, value }) {
    // biome-ignore lint/suspicious/noExplicitAny: config.json as read, changed key by key
    const config = readConfig(ctx.paths) as Record<string, any>;
    // Every name below comes from the command line: a reserved one (__proto__, constructor) is refused
    // before it indexes anything, and a known field is one of PROFILE_FIELDS' own.
    for (const part of key.split('.')) {
      const reserved = reservedNameProblem(part, 'part of a setting name');
      if (reserved) throw new UsageError(part === key ? reserved : `"${key}": ${reserved}`);
    }
    if (key === 'default_profile') {
      config.default_profile = profileName(value);
    } else {
      const m = /^profiles\.([A-Za-z0-9_-]{1,40})\.([a-z_]+)$/.exec(key);
      if (!m || !Object.hasOwn(PROFILE_FIELDS, m[2]!)) {
        // Keys and tokens are never among them: they live in the credential store (tpa auth login).
        throw new UsageError(`unknown setting "${key}": use default_profile or profiles.<name>.<${Object.keys(PROFILE_FIELDS).join('|')}>`);
      }
      if (typeof config.profiles !== 'object' || config.profiles === null || Array.isArray(config.profiles)) config.profiles = {};
      if (!Object.hasOwn(config.profiles, m[1]!)) config.profiles[m[1]!] = { env: 'sandbox' };
      config.profiles[m[1]!][m[2]!] = PROFILE_FIELDS[m[2]!]!(value);
    }
    writePrivateJson(configFile(ctx.paths), config);
    const stored = key === 'default_profile' ? value : config.profiles[key.split('.')[1]!][key.split('.')[2]!];
    const shown = typeof stored === 'string' ? stored : value;
    return { data: { key, value: shown }, table: () => `${key}=${shown}` };
  },
});

/** A service URL as saved: a base URL (no query, fragment or user name), and plain http only to this machine (the rule every request meets), so no profile is saved that could never be used. */
function url(v: string): string {
  httpsUnlessLoopback(v);
  return v.replace(/\/+$/, '');
}

/** A profile name that can be saved and looked up: letters, digits, "-" and "_", and no reserved name. */
function profileName(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(name)) throw new UsageError('a profile name is letters, digits, "-" and "_"');
  const reserved = reservedNameProblem(name, 'a profile name');
  if (reserved) throw new UsageError(reserved);
  return name;
}
