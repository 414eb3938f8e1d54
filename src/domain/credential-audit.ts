// Which credentials of a database its own audit chain made (docs/local-data.md "Backups"): a key or an
// OAuth client is the chain's when a KEY_CREATED (CLIENT_REGISTERED) record names it with what the
// row holds, and it is revoked or expiring where the chain says it was revoked or rotated out.
import { SCOPES } from './api-keys.js';
import type { StoredAudit } from './audit.js';

export interface KeyFacts {
  id: string;
  lineage: string;
  environment: string;
  scopes: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface ClientFacts {
  client_id: string;
  scopes: string;
  revoked_at: string | null;
}

interface ChainCredentials {
  keys: Map<string, { at: string; environment: unknown; lineage: unknown; scopes: string[]; revoked: boolean; expiresAt?: string }>;
  clients: Map<string, { scopes: string[]; revoked: boolean }>;
}

function data(r: StoredAudit): Record<string, unknown> {
  try {
    const d = JSON.parse(r.data_json) as unknown;
    return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** What the chain says of each key and client it made. */
export function chainCredentials(records: Iterable<StoredAudit>): ChainCredentials {
  const found: ChainCredentials = { keys: new Map(), clients: new Map() };
  for (const r of records) {
    const d = data(r);
    if (r.type === 'KEY_CREATED')
      found.keys.set(r.subject, { at: r.at, environment: d.environment, lineage: d.lineage, scopes: strings(d.scopes), revoked: false });
    else if (r.type === 'KEY_REVOKED') {
      // The keys revoked are listed; a record that lists none names the key in its subject.
      const listed = strings(d.revoked);
      for (const id of listed.length > 0 ? listed : [r.subject]) {
        const k = found.keys.get(id);
        if (k) k.revoked = true;
      }
    } else if (r.type === 'KEY_ROTATED') {
      const k = found.keys.get(r.subject);
      if (k && typeof d.expires_at === 'string') k.expiresAt = d.expires_at;
    } else if (r.type === 'CLIENT_REGISTERED') found.clients.set(r.subject, { scopes: strings(d.scopes), revoked: false });
    else if (r.type === 'CLIENT_REVOKED') {
      const c = found.clients.get(r.subject);
      if (c) c.revoked = true;
    }
  }
  return found;
}

/** The scopes a key made with `recorded` holds: those, and contract_build for a key that had every other scope (migration 18). */
function scopesAllowed(recorded: readonly string[]): string[][] {
  const others = SCOPES.filter((s) => s !== 'contract_build');
  const all = others.every((s) => recorded.includes(s)) && !recorded.includes('contract_build');
  return all ? [[...recorded], [...recorded, 'contract_build']] : [[...recorded]];
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

function parsedScopes(json: string): string[] | undefined {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first credential the chain did not make as the table holds it, described; undefined when
 * every key and client is the chain's. A key or client revoked (or expiring) where the chain does
 * not say so is only narrower, and accepted.
 */
export function foreignCredential(chain: ChainCredentials, keys: readonly KeyFacts[], clients: readonly ClientFacts[]): string | undefined {
  for (const row of keys) {
    const x = chain.keys.get(row.id);
    const name = `API key ${row.id}`;
    if (!x) return `${name}: its audit chain has no KEY_CREATED record of it`;
    const scopes = parsedScopes(row.scopes);
    if (row.environment !== x.environment) return `${name}: environment is ${row.environment}, its KEY_CREATED record says ${String(x.environment)}`;
    if (row.lineage !== x.lineage) return `${name}: lineage is ${row.lineage}, its KEY_CREATED record says ${String(x.lineage)}`;
    if (row.created_at !== x.at) return `${name}: created_at is ${row.created_at}, its KEY_CREATED record says ${x.at}`;
    if (!scopes || !scopesAllowed(x.scopes).some((s) => sameSet(s, scopes)))
      return `${name}: scopes are ${row.scopes}, its KEY_CREATED record says ${JSON.stringify(x.scopes)}`;
    if (x.revoked && row.revoked_at === null) return `${name}: it is not revoked, its audit chain revoked it`;
    if (x.expiresAt !== undefined && (row.expires_at === null || row.expires_at > x.expiresAt))
      return `${name}: it expires ${row.expires_at ?? 'never'}, its audit chain rotated it out to expire at ${x.expiresAt}`;
  }
  for (const row of clients) {
    const x = chain.clients.get(row.client_id);
    const name = `OAuth client ${JSON.stringify(row.client_id)}`;
    if (!x) return `${name}: its audit chain has no CLIENT_REGISTERED record of it`;
    const scopes = parsedScopes(row.scopes);
    if (!scopes || !sameSet(scopes, x.scopes)) return `${name}: scopes are ${row.scopes}, its last CLIENT_REGISTERED record says ${JSON.stringify(x.scopes)}`;
    if (x.revoked && row.revoked_at === null) return `${name}: it is not revoked, its audit chain revoked it`;
  }
  return undefined;
}
