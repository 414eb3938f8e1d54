// API keys (SPEC.md "Authentication"; DESIGN.md section 4, "Keys"): the formats of SPEC.md, kept
// only as SHA-256 hashes, scopes per key, rotation with 24 hours of overlap on the engine clock.
import { randomBytes } from 'node:crypto';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { respond, type EngineRequest, type EngineResponse } from '../http.js';
import { newId, sha256 } from '../ids.js';
import type { Db } from '../store/db.js';

export const SCOPES = ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'] as const;
export type Scope = (typeof SCOPES)[number];
import { KEY_LENGTH, KEY_PREFIX, type KeyEnvironment } from '../../domain/api-keys.js';
import { appendAudit } from './audit.js';

export type { KeyEnvironment };
/** Who a request is from: an API key's environment, or production for an OAuth token. */
export type CallerEnvironment = KeyEnvironment | 'production';
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function generateKey(env: KeyEnvironment): string {
  const prefix = KEY_PREFIX[env];
  const bytes = randomBytes(KEY_LENGTH);
  let body = '';
  // 62 does not divide 256: skip the top values so that every character is equally likely.
  for (const b of bytes) if (b < 248 && body.length < KEY_LENGTH - prefix.length) body += ALPHABET[b % 62];
  while (body.length < KEY_LENGTH - prefix.length) body += ALPHABET[randomBytes(1)[0]! % 62];
  return prefix + body;
}

export interface KeyRecord {
  id: string;
  /** The first key of a rotation chain (or the OAuth client): rate limits are counted per lineage. */
  lineage: string;
  environment: CallerEnvironment;
  prefix: string;
  last4: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
}

interface KeyRow extends Omit<KeyRecord, 'scopes' | 'environment' | 'lineage'> {
  lineage: string;
  environment: KeyEnvironment;
  scopes: string;
  key_hash: string;
}

const record = (row: KeyRow): KeyRecord => ({
  id: row.id,
  lineage: row.lineage,
  environment: row.environment,
  prefix: row.prefix,
  last4: row.last4,
  scopes: JSON.parse(row.scopes) as Scope[],
  created_at: row.created_at,
  expires_at: row.expires_at,
});

/** Creates a key; the key itself is returned once and never stored. */
export function createKey(db: Db, now: Date, env: KeyEnvironment, scopes: readonly Scope[], lineage?: string): { apiKey: string; record: KeyRecord } {
  const apiKey = generateKey(env);
  const id = newId('key_');
  const row: KeyRow = {
    id,
    lineage: lineage ?? id,
    key_hash: sha256(apiKey),
    environment: env,
    prefix: KEY_PREFIX[env],
    last4: apiKey.slice(-4),
    scopes: JSON.stringify([...scopes]),
    created_at: isoSeconds(now),
    expires_at: null,
  };
  db.transaction(() => {
    db.prepare(
      'INSERT INTO api_keys (id, lineage, key_hash, environment, prefix, last4, scopes, created_at, expires_at) VALUES (@id, @lineage, @key_hash, @environment, @prefix, @last4, @scopes, @created_at, @expires_at)',
    ).run(row);
    // Never the key: its id, environment, scopes and lineage.
    appendAudit(db, 'KEY_CREATED', id, row.created_at, { environment: env, scopes: [...scopes], lineage: row.lineage });
  })();
  return { apiKey, record: record(row) };
}

/** The key's record if it is known and not expired on the engine clock. */
export function authenticate(db: Db, apiKey: string, now: Date): KeyRecord | undefined {
  const row = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(sha256(apiKey)) as KeyRow | undefined;
  if (!row || (row.expires_at !== null && row.expires_at <= isoSeconds(now))) return undefined;
  return record(row);
}

function activeKeys(db: Db, now: Date): KeyRecord[] {
  return (db.prepare('SELECT * FROM api_keys WHERE expires_at IS NULL OR expires_at > ? ORDER BY created_at, id').all(isoSeconds(now)) as KeyRow[]).map(record);
}

// ---- routes (the caller's key is on ctx.key, set by the server's authentication) ----

export function health(ctx: EngineContext): EngineResponse {
  return respond(200, {
    status: 'ok',
    environment: ctx.key?.environment ?? 'local',
    key_id: ctx.key?.id ?? null,
    scopes: ctx.key?.scopes ?? [...SCOPES],
    time: isoSeconds(ctx.clock.now()),
  });
}

export function listKeys(ctx: EngineContext): EngineResponse {
  const keys = activeKeys(ctx.db, ctx.clock.now()).filter((k) => !ctx.key || k.environment === ctx.key.environment);
  return respond(200, {
    keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, last4: k.last4, scopes: k.scopes, created_at: k.created_at, expires_at: k.expires_at })),
  });
}

/** Issues a new key with the caller's scopes; the caller's key keeps working for 24 hours. */
export function rotateKey(ctx: EngineContext, _req: EngineRequest): EngineResponse {
  if (!ctx.key || ctx.key.environment === 'production') {
    return respond(400, {
      error: 'no_api_key',
      message: 'Rotation needs the API key to rotate (X-API-Key); OAuth tokens and the embedded engine in-process have none',
    });
  }
  const caller = { ...ctx.key, environment: ctx.key.environment };
  // A key already rotated is only living out its overlap: it cannot mint more keys.
  if (caller.expires_at !== null) {
    return respond(409, {
      error: 'key_already_rotated',
      message: `This key was rotated already and stops working at ${caller.expires_at}; rotate with the new key`,
    });
  }
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      const { apiKey, record: created } = createKey(ctx.db, now, caller.environment, caller.scopes, caller.lineage);
      const expiresAt = isoSeconds(new Date(now.getTime() + ROTATION_OVERLAP_MS));
      ctx.db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(expiresAt, caller.id);
      appendAudit(ctx.db, 'KEY_ROTATED', caller.id, isoSeconds(now), { new_key_id: created.id, expires_at: expiresAt });
      return respond(200, { api_key: apiKey, key_id: created.id, previous_key_expires_at: expiresAt });
    })
    .immediate();
}
