import { describe, expect, it } from 'vitest';
import { afterEach, beforeEach } from 'vitest';
import { useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
const cert = { fingerprint: 'AA:BB', commonName: 'acme-tpa' };
const tokenRequest = (body: unknown) => ({ method: 'POST', path: '/oauth2/token', query: new URLSearchParams(), headers: {}, body: JSON.stringify(body) });

describe('OAuth tokens (the engine side of mutual TLS)', () => {
  it('issues a one-hour Bearer token to the client its certificate names, usable for its scopes until it expires', () => {
    const engine = home.at('2026-03-02T10:00:00Z');
    const issued = engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['ledger_access'] }), cert);
    expect(issued.status).toBe(200);
    const body = issued.body as { access_token: string };
    expect(issued.body).toEqual({ access_token: expect.stringMatching(/^at_[0-9a-f]{48}$/), token_type: 'Bearer', expires_in: 3600, scope: 'ledger_access' });
    const ok = engine.authorize('GET', '/tpa-api/v1/ledger/entries/', { bearer: body.access_token, certificate: cert });
    expect('key' in ok && ok.key.scopes).toEqual(['ledger_access']);
    const scoped = engine.handle(
      { method: 'GET', path: '/tpa-api/v1/settlement/enc_x/', query: new URLSearchParams(), headers: {}, body: undefined },
      { key: 'key' in ok ? ok.key : undefined },
    );
    expect(scoped.status).toBe(404);
    const funding = engine.handle(
      { method: 'POST', path: '/tpa-api/v1/funding/approve/', query: new URLSearchParams(), headers: {}, body: '{}' },
      { key: 'key' in ok ? ok.key : undefined },
    );
    expect(funding.status).toBe(403);
    // Its binding to the certificate is tested through the real mutual-TLS server (test/tls/oauth-binding.test.ts).
    const later = home.at('2026-03-02T11:00:01Z');
    const expired = later.authorize('GET', '/tpa-api/v1/health', { bearer: body.access_token, certificate: cert });
    expect('response' in expired && expired.response.body).toMatchObject({ error: 'invalid_token' });
  });

  it('refuses a request without a certificate, another client id, another grant type or an unknown scope', () => {
    const engine = home.at('2026-03-02T10:00:00Z');
    expect(engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: 'acme-tpa' }), undefined)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: 'someone-else' }), cert)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(engine.issueToken(tokenRequest({ grant_type: 'password', client_id: 'acme-tpa' }), cert)).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    expect(engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['root'] }), cert)).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    });
  });
});
