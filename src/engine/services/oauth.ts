// OAuth 2.0 client credentials over mutual TLS (docs/api.md "OAuth 2.0 with mutual TLS";
// docs/api-routes.md "POST {auth_url}/oauth2/token"): POST /oauth2/token presents the client certificate; tokens are valid one hour
// on the engine clock, accepted as Bearer on every route with their scopes, and only together with
// the certificate they were issued to (a rotated certificate leaves its tokens behind). A client
// gets a token only once registered, and only scopes of its registration (`tpa local clients
// register`): a certificate signed by the client CA proves who the client is, not what it may do.
// The operator revokes a client (`tpa local clients revoke`): at once it gets no token, its tokens
// are refused, and its id is never registered again (docs/security-access.md "Who may do what").
import { randomBytes } from 'node:crypto';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { jsonBody, respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { newId, sha256 } from '../ids.js';
import type { Db } from '../store/db.js';
import { Conflict } from '../errors.js';
import { allClients, clientById, insertToken, revokeClientAndTokens, tokenByHash, upsertClient, type ClientRow } from '../store/keys.js';
import { appendAudit } from './audit.js';
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
  // The contract's `scopes` (a list), or RFC 6749's `scope` (one space-separated string) that OAuth
  // libraries send: either is read, never ignored (an ignored ask would be silently narrowed), and
  // both at once must agree.
  if (body.scope !== undefined && typeof body.scope !== 'string')
    return respond(400, { error: 'invalid_scope', error_description: 'scope must be a string of space-separated scope names' });
  const fromScope = typeof body.scope === 'string' ? body.scope.split(' ').filter((s) => s !== '') : undefined;
  const names = (list: unknown[]) => [...new Set(list)].sort().join(' ');
  if (fromScope !== undefined && body.scopes !== undefined && (!Array.isArray(body.scopes) || names(fromScope) !== names(body.scopes)))
    return respond(400, { error: 'invalid_scope', error_description: 'scope and scopes name different scopes: send one of them' });
  const askedRaw = body.scopes ?? fromScope;
  if (askedRaw !== undefined && (!Array.isArray(askedRaw) || askedRaw.some((s) => !(SCOPES as readonly unknown[]).includes(s)))) {
    return respond(400, { error: 'invalid_scope', error_description: `scopes must be a list of ${SCOPES.join(', ')}` });
  }
  const registered = registration(ctx.db, body.client_id);
  if (!registered) {
    return respond(401, {
      error: 'invalid_client',
      error_description: `client ${body.client_id} is not registered with this service: its operator registers it with its scopes (tpa local clients register)`,
    });
  }
  if (registered.revoked_at !== null) {
    return respond(401, {
      error: 'invalid_client',
      error_description: `client ${body.client_id} was revoked at ${registered.revoked_at}: it gets no token (its operator revoked it with tpa local clients revoke)`,
    });
  }
  // A token request asks within the registration, or is refused whole (RFC 6749 section 5.2:
  // invalid_scope, the scope "exceeds the scope granted"): never silently narrowed, never widened.
  const asked = (askedRaw as Scope[] | undefined) ?? registered.scopes;
  const beyond = asked.filter((s) => !registered.scopes.includes(s));
  if (beyond.length > 0) {
    return respond(400, {
      error: 'invalid_scope',
      error_description: `client ${body.client_id} is not registered for ${beyond.join(', ')}; it may ask for ${registered.scopes.join(', ') || 'no scope'}`,
    });
  }
  const token = `at_${randomBytes(24).toString('hex')}`;
  const now = ctx.clock.now();
  insertToken(ctx.db, sha256(token), {
    id: newId('tok_'),
    client_id: body.client_id,
    certificate_fingerprint: certificate.fingerprint,
    scopes: JSON.stringify(asked),
    issued_at: isoSeconds(now),
    expires_at: isoSeconds(new Date(now.getTime() + TOKEN_LIFETIME_MS)),
  });
  return respond(200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_MS / 1000, scope: (asked as string[]).join(' ') });
}

/**
 * The caller a Bearer token stands for, if it is unexpired on the engine clock, comes with its
 * certificate, and its client is still registered: with the scopes both the token and the current
 * registration give (a registration narrowed takes effect at once). 'revoked' for a token of a
 * revoked client, presented with its certificate: its client was revoked, and the caller is told so.
 */
export function authenticateToken(db: Db, token: string, now: Date, certificate: ClientCertificate | undefined): KeyRecord | 'revoked' | undefined {
  const row = tokenByHash(db, sha256(token));
  if (!row || row.expires_at <= isoSeconds(now) || row.certificate_fingerprint !== certificate?.fingerprint) return undefined;
  const registered = registration(db, row.client_id);
  if (!registered) return undefined;
  // Either says it: the token was live when its client was revoked, or its client is revoked now.
  if ((row.revoked_at ?? null) !== null || registered.revoked_at !== null) return 'revoked';
  return {
    id: row.id,
    lineage: `oauth:${row.client_id}`,
    environment: 'production',
    prefix: 'at_',
    last4: token.slice(-4),
    scopes: (JSON.parse(row.scopes) as Scope[]).filter((s) => registered.scopes.includes(s)),
    created_at: row.issued_at,
    expires_at: row.expires_at,
  };
}

/** An OAuth client the mutual-TLS server knows: the common name of its certificates, what it may do, and whether it still may. */
export interface ClientRegistration {
  client_id: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  registered_at: string;
  revoked_at: string | null;
}

const registrationOf = (row: ClientRow): ClientRegistration => ({
  client_id: row.client_id,
  scopes: JSON.parse(row.scopes) as Scope[],
  status: row.revoked_at === null ? 'active' : 'revoked',
  registered_at: row.registered_at,
  revoked_at: row.revoked_at,
});

function registration(db: Db, clientId: string): ClientRegistration | undefined {
  const row = clientById(db, clientId);
  return row && registrationOf(row);
}

/**
 * Registers a client, or changes its scopes (tokens already issued keep only what it still has). A
 * revoked client is never registered again: its id is the common name of its certificates, so any
 * certificate of the client CA naming it, the stolen one too, would get tokens again; the operator
 * gives the client certificates of a new name and registers that.
 */
export function registerClient(db: Db, now: Date, clientId: string, scopes: readonly Scope[]): ClientRegistration {
  const revokedAt = clientById(db, clientId)?.revoked_at ?? null;
  if (revokedAt !== null) {
    throw new Conflict(
      `client ${clientId} was revoked at ${revokedAt} and is not registered again: any certificate naming it, a stolen one too, would get tokens again`,
      { code: 'client_revoked', hint: 'give the client certificates of a new common name, and register that name' },
    );
  }
  const at = isoSeconds(now);
  upsertClient(db, clientId, JSON.stringify([...scopes]), at);
  appendAudit(db, 'CLIENT_REGISTERED', clientId, at, { scopes: [...scopes] });
  return { client_id: clientId, scopes: [...scopes], status: 'active', registered_at: at, revoked_at: null };
}

/**
 * Revokes a client at once (`tpa local clients revoke`): its certificates get no token from now on
 * and every token of it still live is refused from its next request, on a server already running.
 * Undefined for a client never registered; `revoked` false when it was revoked already (nothing
 * changes, nothing is recorded). The audit chain records CLIENT_REVOKED with who did it.
 */
export function revokeClient(
  db: Db,
  now: Date,
  clientId: string,
  reason: string,
): { client_id: string; revoked: boolean; revoked_at: string; tokens: number } | undefined {
  const row = clientById(db, clientId);
  if (!row) return undefined;
  if (row.revoked_at !== null) return { client_id: clientId, revoked: false, revoked_at: row.revoked_at, tokens: 0 };
  const at = isoSeconds(now);
  const tokens = revokeClientAndTokens(db, clientId, at);
  appendAudit(db, 'CLIENT_REVOKED', clientId, at, { tokens, reason });
  return { client_id: clientId, revoked: true, revoked_at: at, tokens };
}

export function listClients(db: Db): ClientRegistration[] {
  return allClients(db).map(registrationOf);
}
