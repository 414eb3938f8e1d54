// OAuth 2.0 client credentials over mutual TLS (SPEC.md "OAuth 2.0 with mutual TLS"; DESIGN.md
// section 4, "Token"): POST /oauth2/token presents the client certificate; tokens are valid one hour
// on the engine clock, accepted as Bearer on every route with their scopes, and only together with
// the certificate they were issued to (a rotated certificate leaves its tokens behind).
import { randomBytes } from 'node:crypto';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { jsonBody, respond, type EngineRequest, type EngineResponse } from '../http.js';
import { newId, sha256 } from '../ids.js';
import type { Db } from '../store/db.js';
import { SCOPES, type KeyRecord, type Scope } from './keys.js';

export const TOKEN_LIFETIME_MS = 3_600_000;

/** The client certificate of a request, as the HTTPS server saw it (set by the server). */
export interface ClientCertificate {
  fingerprint: string;
  commonName: string;
}

export function issueToken(ctx: EngineContext, req: EngineRequest, certificate: ClientCertificate | undefined): EngineResponse {
  if (!certificate) return respond(401, { error: 'invalid_client', error_description: 'a client certificate is required (mutual TLS)' });
  const body = jsonBody(req);
  if (body.grant_type !== 'client_credentials')
    return respond(400, { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' });
  if (typeof body.client_id !== 'string' || body.client_id === '')
    return respond(400, { error: 'invalid_request', error_description: 'client_id is required' });
  // The client is the certificate: its common name must be the client_id asked for.
  if (body.client_id !== certificate.commonName) {
    return respond(401, {
      error: 'invalid_client',
      error_description: `client_id ${body.client_id} does not match the client certificate (${certificate.commonName})`,
    });
  }
  const asked = body.scopes === undefined ? [...SCOPES] : body.scopes;
  if (!Array.isArray(asked) || asked.some((s) => !(SCOPES as readonly unknown[]).includes(s))) {
    return respond(400, { error: 'invalid_scope', error_description: `scopes must be a list of ${SCOPES.join(', ')}` });
  }
  const token = `at_${randomBytes(24).toString('hex')}`;
  const now = ctx.clock.now();
  ctx.db
    .prepare('INSERT INTO oauth_tokens (token_hash, id, client_id, certificate_fingerprint, scopes, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(
      sha256(token),
      newId('tok_'),
      body.client_id,
      certificate.fingerprint,
      JSON.stringify(asked),
      isoSeconds(now),
      isoSeconds(new Date(now.getTime() + TOKEN_LIFETIME_MS)),
    );
  return respond(200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_MS / 1000, scope: (asked as string[]).join(' ') });
}

/** The caller a Bearer token stands for, if it is unexpired on the engine clock and comes with its certificate. */
export function authenticateToken(db: Db, token: string, now: Date, certificate: ClientCertificate | undefined): KeyRecord | undefined {
  const row = db.prepare('SELECT * FROM oauth_tokens WHERE token_hash = ?').get(sha256(token)) as
    | { id: string; client_id: string; certificate_fingerprint: string; scopes: string; issued_at: string; expires_at: string }
    | undefined;
  if (!row || row.expires_at <= isoSeconds(now) || row.certificate_fingerprint !== certificate?.fingerprint) return undefined;
  return {
    id: row.id,
    lineage: `oauth:${row.client_id}`,
    environment: 'production',
    prefix: 'at_',
    last4: token.slice(-4),
    scopes: JSON.parse(row.scopes) as Scope[],
    created_at: row.issued_at,
    expires_at: row.expires_at,
  };
}
