// API keys (docs/api.md "Authentication"; docs/api-routes.md "GET /v1/keys"): the formats of the contract (docs/api.md), kept
// only as SHA-256 hashes, scopes per key, rotation with 24 hours of overlap on the engine clock.
import { randomBytes } from 'node:crypto';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { newId, sha256 } from '../ids.js';
import type { Db } from '../store/db.js';
import { databaseIdentity } from '../store/identity.js';
import {
  activeKeys,
  activeKeysOfLineage,
  allApiKeys,
  apiKeyByHash,
  insertApiKey,
  keyExpiryOf,
  lineageOfKey,
  revokeKeysOfLineage,
  setKeyExpiry,
  unrevokedKeysOfLineage,
  type ApiKeyRow,
} from '../store/keys.js';

import { KEY_LENGTH, KEY_PREFIX, SCOPES, type KeyEnvironment, type KeyRecord, type Scope } from '../../domain/api-keys.js';
import { appendAudit } from './audit.js';

export { SCOPES, SPEC_SCOPES, type CallerEnvironment, type KeyEnvironment, type KeyRecord, type Scope } from '../../domain/api-keys.js';
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const AUTH_DOCS = 'https://developer.tpa.example/docs/authentication';

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

type KeyRow = ApiKeyRow & { environment: KeyEnvironment };

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
export function createKey(
  db: Db,
  now: Date,
  env: KeyEnvironment,
  scopes: readonly Scope[],
  parent?: { id: string; lineage: string },
): { apiKey: string; record: KeyRecord } {
  const apiKey = generateKey(env);
  const id = newId('key_');
  const row: KeyRow = {
    id,
    lineage: parent?.lineage ?? id,
    key_hash: sha256(apiKey),
    environment: env,
    prefix: KEY_PREFIX[env],
    last4: apiKey.slice(-4),
    scopes: JSON.stringify([...scopes]),
    created_at: isoSeconds(now),
    expires_at: null,
    parent_id: parent?.id ?? null,
    revoked_at: null,
  };
  db.transaction(() => {
    insertApiKey(db, row);
    // Never the key: its id, environment, scopes and lineage.
    appendAudit(db, 'KEY_CREATED', id, row.created_at, { environment: env, scopes: [...scopes], lineage: row.lineage });
  })();
  return { apiKey, record: record(row) };
}

/** The key's record if it is known, not revoked and not expired on the engine clock; else why not. */
export function authenticate(db: Db, apiKey: string, now: Date): KeyRecord | 'revoked' | undefined {
  const row = apiKeyByHash(db, sha256(apiKey)) as KeyRow | undefined;
  if (!row || (row.expires_at !== null && row.expires_at <= isoSeconds(now))) return undefined;
  if (row.revoked_at !== null) return 'revoked';
  return record(row);
}

/**
 * Revokes, at once, every key of the lineage of `keyId`: the keys it was rotated from and those
 * rotated from it are one credential's history, and a thief may hold any of them (docs/security-access.md
 * "Who may do what"). Returns the ids revoked now (none when the lineage was revoked already).
 */
export function revokeLineage(db: Db, now: Date, keyId: string, reason: string): { lineage: string; revoked: string[] } | undefined {
  const lineage = lineageOfKey(db, keyId);
  if (lineage === undefined) return undefined;
  const at = isoSeconds(now);
  const revoked = unrevokedKeysOfLineage(db, lineage);
  if (revoked.length > 0) {
    revokeKeysOfLineage(db, lineage, at);
    appendAudit(db, 'KEY_REVOKED', keyId, at, { lineage, revoked: revoked, reason });
  }
  return { lineage, revoked };
}

export type KeyStatus = 'active' | 'rotated' | 'expired' | 'revoked';

/** A key as the operator sees it (`tpa local keys list`): never the key, its status on the engine clock. */
export interface KeyListing {
  id: string;
  environment: KeyEnvironment;
  prefix: string;
  last4: string;
  scopes: Scope[];
  status: KeyStatus;
  lineage: string;
  rotated_from: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Every key of the engine, oldest first, with its status. */
export function listAllKeys(db: Db, now: Date): KeyListing[] {
  const at = isoSeconds(now);
  return (allApiKeys(db) as KeyRow[]).map((row) => ({
    id: row.id,
    environment: row.environment,
    prefix: row.prefix,
    last4: row.last4,
    scopes: JSON.parse(row.scopes) as Scope[],
    status: row.revoked_at !== null ? 'revoked' : row.expires_at === null ? 'active' : row.expires_at > at ? 'rotated' : 'expired',
    lineage: row.lineage,
    rotated_from: row.parent_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  }));
}

// ---- routes (the caller's key is on ctx.key, set by the server's authentication) ----

export function health(ctx: EngineContext): EngineResponse {
  return respond(200, {
    status: 'ok',
    environment: ctx.key?.environment ?? 'local',
    key_id: ctx.key?.id ?? null,
    scopes: ctx.key?.scopes ?? [...SCOPES],
    time: isoSeconds(ctx.clock.now()),
    // tpa's: which database answers, so that a job's journal knows the database it was sent to (docs/api-routes.md "GET /v1/health").
    database: databaseIdentity(ctx.db),
  });
}

/**
 * The active keys a caller may see: over HTTP, those of its own lineage (the key, the one it was
 * rotated from while that lives out its overlap, the one rotated from it), never another holder's;
 * in-process (the operator of the engine), every active key.
 */
export function listKeys(ctx: EngineContext): EngineResponse {
  const at = isoSeconds(ctx.clock.now());
  const rows = (ctx.key ? activeKeysOfLineage(ctx.db, ctx.key.lineage, ctx.key.environment, at) : activeKeys(ctx.db, at)) as KeyRow[];
  return respond(200, {
    keys: rows.map(record).map((k) => ({ id: k.id, prefix: k.prefix, last4: k.last4, scopes: k.scopes, created_at: k.created_at, expires_at: k.expires_at })),
  });
}

/**
 * Issues a new key with the caller's scopes; the caller's key keeps working for 24 hours. A key
 * already rotated cannot rotate again, and trying is taken as what it is, two holders of one
 * lineage (the owner and a thief who rotated first, or the other way round): the whole lineage is
 * revoked at once, as an OAuth server revokes a refresh token family on reuse, and the owner gets a
 * new key from the operator (docs/security-access.md "Who may do what").
 */
export function rotateKey(ctx: EngineContext, _req: EngineRequest): EngineResponse {
  if (!ctx.key || ctx.key.environment === 'production') {
    return respond(400, {
      error: 'no_api_key',
      message: 'Rotation needs the API key to rotate (X-API-Key); OAuth tokens and the embedded engine in-process have none',
    });
  }
  const caller = { ...ctx.key, environment: ctx.key.environment };
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      // Read again inside the write transaction: two rotations of one key racing see each other.
      const current = keyExpiryOf(ctx.db, caller.id);
      if (!current || current.revoked_at !== null) {
        return respond(401, { error: 'invalid_api_key', message: 'The API key was revoked', documentation: AUTH_DOCS });
      }
      if (current.expires_at !== null) {
        const { revoked } = revokeLineage(ctx.db, now, caller.id, 'a key already rotated was rotated again')!;
        return respond(409, {
          error: 'key_already_rotated',
          message: `This key was rotated already: rotating it again means two holders of its lineage, so every key of it (${revoked.length}) is revoked now; ask the operator of the service for a new key`,
        });
      }
      const { apiKey, record: created } = createKey(ctx.db, now, caller.environment, caller.scopes, { id: caller.id, lineage: caller.lineage });
      const expiresAt = isoSeconds(new Date(now.getTime() + ROTATION_OVERLAP_MS));
      setKeyExpiry(ctx.db, caller.id, expiresAt);
      appendAudit(ctx.db, 'KEY_ROTATED', caller.id, isoSeconds(now), { new_key_id: created.id, expires_at: expiresAt });
      return respond(200, { api_key: apiKey, key_id: created.id, previous_key_expires_at: expiresAt });
    })
    .immediate();
}
