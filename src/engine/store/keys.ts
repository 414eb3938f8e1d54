// API keys (only their SHA-256 hashes), OAuth clients and the tokens issued to them. Named
// queries; formats, scopes, rotation and revocation are the keys and OAuth services' rules.
import type { Db } from './db.js';

export interface ApiKeyRow {
  id: string;
  /** The first key of a rotation chain: rate limits and replays are per lineage. */
  lineage: string;
  key_hash: string;
  environment: string;
  prefix: string;
  last4: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: string;
  expires_at: string | null;
  /** The key this one was rotated from (null for the first of a lineage). */
  parent_id: string | null;
  revoked_at: string | null;
}

export function insertApiKey(db: Db, row: ApiKeyRow): void {
  db.prepare(
    'INSERT INTO api_keys (id, lineage, key_hash, environment, prefix, last4, scopes, created_at, expires_at, parent_id, revoked_at) VALUES (@id, @lineage, @key_hash, @environment, @prefix, @last4, @scopes, @created_at, @expires_at, @parent_id, @revoked_at)',
  ).run(row);
}

export function apiKeyByHash(db: Db, keyHash: string): ApiKeyRow | undefined {
  return db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as ApiKeyRow | undefined;
}

export function lineageOfKey(db: Db, keyId: string): string | undefined {
  return (db.prepare('SELECT lineage FROM api_keys WHERE id = ?').get(keyId) as { lineage: string } | undefined)?.lineage;
}

/** The ids of a lineage's keys not revoked yet, oldest first. */
export function unrevokedKeysOfLineage(db: Db, lineage: string): string[] {
  return db.prepare('SELECT id FROM api_keys WHERE lineage = ? AND revoked_at IS NULL ORDER BY created_at, id').pluck().all(lineage) as string[];
}

/** Revokes, at `at`, every key of a lineage not revoked yet. */
export function revokeKeysOfLineage(db: Db, lineage: string, at: string): void {
  db.prepare('UPDATE api_keys SET revoked_at = ? WHERE lineage = ? AND revoked_at IS NULL').run(at, lineage);
}

/** Every key, oldest first. */
export function allApiKeys(db: Db): ApiKeyRow[] {
  return db.prepare('SELECT * FROM api_keys ORDER BY created_at, id').all() as ApiKeyRow[];
}

const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @at)';

/** The keys of a lineage and environment neither revoked nor expired at `at`, oldest first. */
export function activeKeysOfLineage(db: Db, lineage: string, environment: string, at: string): ApiKeyRow[] {
  return db
    .prepare(`SELECT * FROM api_keys WHERE lineage = @lineage AND environment = @environment AND ${ACTIVE} ORDER BY created_at, id`)
    .all({ at, lineage, environment }) as ApiKeyRow[];
}

/** Every key neither revoked nor expired at `at`, oldest first. */
export function activeKeys(db: Db, at: string): ApiKeyRow[] {
  return db.prepare(`SELECT * FROM api_keys WHERE ${ACTIVE} ORDER BY created_at, id`).all({ at }) as ApiKeyRow[];
}

/** When a key expires (set once rotated) and when it was revoked. */
export function keyExpiryOf(db: Db, keyId: string): Pick<ApiKeyRow, 'expires_at' | 'revoked_at'> | undefined {
  return db.prepare('SELECT expires_at, revoked_at FROM api_keys WHERE id = ?').get(keyId) as Pick<ApiKeyRow, 'expires_at' | 'revoked_at'> | undefined;
}

export function setKeyExpiry(db: Db, keyId: string, expiresAt: string): void {
  db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(expiresAt, keyId);
}

// ---- OAuth ----

export interface TokenRow {
  id: string;
  client_id: string;
  certificate_fingerprint: string;
  /** JSON array of scope names. */
  scopes: string;
  issued_at: string;
  expires_at: string;
  /** When its client was revoked, if the token was live then. */
  revoked_at?: string | null;
}

export function insertToken(db: Db, tokenHash: string, t: TokenRow): void {
  db.prepare('INSERT INTO oauth_tokens (token_hash, id, client_id, certificate_fingerprint, scopes, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    tokenHash,
    t.id,
    t.client_id,
    t.certificate_fingerprint,
    t.scopes,
    t.issued_at,
    t.expires_at,
  );
}

export function tokenByHash(db: Db, tokenHash: string): TokenRow | undefined {
  return db.prepare('SELECT * FROM oauth_tokens WHERE token_hash = ?').get(tokenHash) as TokenRow | undefined;
}

export interface ClientRow {
  client_id: string;
  /** JSON array of scope names. */
  scopes: string;
  registered_at: string;
  revoked_at: string | null;
}

export function clientById(db: Db, clientId: string): ClientRow | undefined {
  return db.prepare('SELECT client_id, scopes, registered_at, revoked_at FROM oauth_clients WHERE client_id = ?').get(clientId) as ClientRow | undefined;
}

/** Revokes a client at `at`, and every token of it still live then; returns how many tokens that was. */
export function revokeClientAndTokens(db: Db, clientId: string, at: string): number {
  db.prepare('UPDATE oauth_clients SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL').run(at, clientId);
  return db.prepare('UPDATE oauth_tokens SET revoked_at = @at WHERE client_id = @clientId AND revoked_at IS NULL AND expires_at > @at').run({ at, clientId })
    .changes;
}

/** Registers a client, or changes its scopes. */
export function upsertClient(db: Db, clientId: string, scopesJson: string, at: string): void {
  db.prepare(
    'INSERT INTO oauth_clients (client_id, scopes, registered_at) VALUES (?, ?, ?) ON CONFLICT (client_id) DO UPDATE SET scopes = excluded.scopes, registered_at = excluded.registered_at',
  ).run(clientId, scopesJson, at);
}

export function allClients(db: Db): ClientRow[] {
  return db.prepare('SELECT client_id, scopes, registered_at, revoked_at FROM oauth_clients ORDER BY client_id').all() as ClientRow[];
}

// ---- Revocations a restore carries into the copy it puts in place ----

/** Whether `table` has `column` (a database with no tables yet, or one older than revocations, has none). */
function hasColumn(db: Db, table: string, column: string): boolean {
  return (db.prepare('SELECT count(*) FROM pragma_table_info(?) WHERE name = ?').pluck().get(table, column) as number) > 0;
}

/** The keys revoked, with their lineage and when (oldest revocation first). */
export function revokedKeys(db: Db): { id: string; lineage: string; revoked_at: string }[] {
  if (!hasColumn(db, 'api_keys', 'revoked_at')) return [];
  return db.prepare('SELECT id, lineage, revoked_at FROM api_keys WHERE revoked_at IS NOT NULL ORDER BY revoked_at, id').all() as {
    id: string;
    lineage: string;
    revoked_at: string;
  }[];
}

/** Of `ids`, those this database holds and has not revoked. */
export function unrevokedKeysAmong(db: Db, ids: readonly string[]): { id: string; lineage: string }[] {
  const one = db.prepare('SELECT id, lineage FROM api_keys WHERE id = ? AND revoked_at IS NULL');
  return ids.flatMap((id) => (one.get(id) as { id: string; lineage: string } | undefined) ?? []);
}

/** Revokes the keys `ids` at `at`. */
export function revokeKeys(db: Db, ids: readonly string[], at: string): void {
  const one = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  for (const id of ids) one.run(at, id);
}

/** The keys rotated out (an expiry set), with the key that replaced them and when, if this database holds it. */
export function expiringKeys(db: Db): { id: string; expires_at: string; new_key_id: string | null; rotated_at: string | null }[] {
  if (!hasColumn(db, 'api_keys', 'parent_id')) return [];
  return db
    .prepare(
      'SELECT k.id, k.expires_at, c.id AS new_key_id, c.created_at AS rotated_at FROM api_keys k LEFT JOIN api_keys c ON c.parent_id = k.id WHERE k.expires_at IS NOT NULL ORDER BY k.expires_at, k.id',
    )
    .all() as { id: string; expires_at: string; new_key_id: string | null; rotated_at: string | null }[];
}

/** Whether this database holds key `id` with no expiry, or one later than `expiresAt`. */
export function keyOutlives(db: Db, id: string, expiresAt: string): boolean {
  return db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)').get(id, expiresAt) !== undefined;
}

/** The clients revoked, and when. */
export function revokedClients(db: Db): { client_id: string; revoked_at: string }[] {
  if (!hasColumn(db, 'oauth_clients', 'revoked_at')) return [];
  return db.prepare('SELECT client_id, revoked_at FROM oauth_clients WHERE revoked_at IS NOT NULL ORDER BY revoked_at, client_id').all() as {
    client_id: string;
    revoked_at: string;
  }[];
}
