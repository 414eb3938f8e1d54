import { describe, expect, it } from 'vitest';
import { afterEach, beforeEach } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
const cert = { fingerprint: 'AA:BB', commonName: 'acme-tpa' };
const tokenRequest = (body: unknown) => ({ method: 'POST', path: '/oauth2/token', query: new URLSearchParams(), headers: {}, body: JSON.stringify(body) });

describe('OAuth tokens (the engine side of mutual TLS)', () => {
  it('issues a one-hour Bearer token to the client its certificate names, usable for its scopes until it expires', () => {
    const engine = home.at('2026-03-02T10:00:00Z');
    engine.registerClient('acme-tpa', ['ledger_access', 'fund_release']);
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
    engine.registerClient('acme-tpa', ['ledger_access']);
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

describe('registered clients (docs/security-access.md "Who may do what")', () => {
  const T0 = '2026-03-02T10:00:00Z';
  const ask = (engine: ReturnType<typeof home.at>, scopes?: string[], who = cert) =>
    engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: who.commonName, ...(scopes ? { scopes } : {}) }), who);

  it('a certificate signed by the client CA gets no token until its client is registered', () => {
    const engine = home.at(T0);
    expect(ask(engine)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.stringMatching(/acme-tpa is not registered .*tpa local clients register/) },
    });
    expect(ask(engine, ['ledger_access'])).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(engine.db.prepare('SELECT COUNT(*) FROM oauth_tokens').pluck().get()).toBe(0);
  });

  it('a token carries the registered scopes, or the ones asked within them; asking beyond is refused whole', () => {
    const engine = home.at(T0);
    engine.registerClient('acme-tpa', ['ledger_access', 'claim_pricing']);
    expect(ask(engine).body).toMatchObject({ scope: 'ledger_access claim_pricing' });
    expect(ask(engine, ['ledger_access']).body).toMatchObject({ scope: 'ledger_access' });
    for (const wider of [['fund_release'], ['ledger_access', 'fund_release'], ['contract_build']]) {
      expect(ask(engine, wider), wider.join()).toMatchObject({
        status: 400,
        body: { error: 'invalid_scope', error_description: expect.stringMatching(/not registered for .*; it may ask for ledger_access, claim_pricing/) },
      });
    }
    // contract_build is a scope a client may be registered for.
    engine.registerClient('builder-app', ['contract_build']);
    const builder = { fingerprint: 'CC:DD', commonName: 'builder-app' };
    expect(ask(engine, ['contract_build'], builder).body).toMatchObject({ scope: 'contract_build' });
  });

  it("RFC 6749's scope string is read like scopes, never ignored: beyond the registration it is refused whole", () => {
    const engine = home.at(T0);
    engine.registerClient('acme-tpa', ['contract_lookup', 'ledger_access']);
    const asking = (extra: Record<string, unknown>) =>
      engine.issueToken(tokenRequest({ grant_type: 'client_credentials', client_id: 'acme-tpa', ...extra }), cert);
    expect(asking({ scope: 'fund_release' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope', error_description: expect.stringMatching(/not registered for fund_release/) },
    });
    expect(asking({ scope: 'ledger_access' }).body).toMatchObject({ scope: 'ledger_access' });
    expect(asking({ scope: 'ledger_access', scopes: ['contract_lookup'] })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(asking({ scope: ['ledger_access'] })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(asking({ scope: 'ledger_access', scopes: 5 })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(asking({ scope: 'ledger_access bogus' })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  it('narrowing a registration narrows the tokens already issued, at once', () => {
    const engine = home.at(T0);
    engine.registerClient('acme-tpa', ['ledger_access', 'fund_release']);
    const token = (ask(engine).body as { access_token: string }).access_token;
    const scopes = () => {
      const r = engine.authenticate({ bearer: token, certificate: cert });
      return 'key' in r ? r.key.scopes : r.response.status;
    };
    expect(scopes()).toEqual(['ledger_access', 'fund_release']);
    engine.registerClient('acme-tpa', ['ledger_access']);
    expect(scopes()).toEqual(['ledger_access']);
    expect(engine.listClients()).toEqual([{ client_id: 'acme-tpa', scopes: ['ledger_access'], status: 'active', registered_at: T0, revoked_at: null }]);
  });

  it('revoking a client ends it and its live tokens at once; it is never registered again, and the chain records CLIENT_REVOKED with who did it', () => {
    const engine = home.track(Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: T0 }, actor: 'local:ops' }));
    engine.registerClient('acme-tpa', ['ledger_access', 'fund_release']);
    engine.registerClient('other-tpa', ['ledger_access']);
    const other = { fingerprint: 'EE:FF', commonName: 'other-tpa' };
    const tokens = [ask(engine), ask(engine, ['ledger_access'])].map((r) => (r.body as { access_token: string }).access_token);
    const otherToken = (ask(engine, undefined, other).body as { access_token: string }).access_token;
    const caller = (token: string, who = cert) => {
      const r = engine.authenticate({ bearer: token, certificate: who });
      return 'key' in r ? r.key.scopes : r.response;
    };
    expect(tokens.map((t) => caller(t))).toEqual([['ledger_access', 'fund_release'], ['ledger_access']]);

    expect(engine.revokeClient('acme-tpa')).toEqual({ client_id: 'acme-tpa', revoked: true, revoked_at: T0, tokens: 2 });
    // Its tokens: 401 at their next request, saying so.
    for (const t of tokens) {
      expect(caller(t)).toMatchObject({
        status: 401,
        body: { error: 'invalid_token', message: 'The access token was revoked: its client was revoked', documentation: expect.any(String) },
      });
      expect(engine.authorize('GET', '/tpa-api/v1/ledger/entries/', { bearer: t, certificate: cert })).toMatchObject({ response: { status: 401 } });
    }
    // Its certificate (a stolen one too): no token, 401 invalid_client saying it was revoked, and none stored.
    const count = () => engine.db.prepare('SELECT COUNT(*) FROM oauth_tokens').pluck().get();
    const before = count();
    expect(ask(engine)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.stringMatching(/acme-tpa was revoked at 2026-03-02T10:00:00Z/) },
    });
    expect(ask(engine, ['ledger_access'])).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(count()).toBe(before);
    // Another client is untouched.
    expect(caller(otherToken, other)).toEqual(['ledger_access']);
    // Registered again: refused, a conflict naming the revocation; the client stays revoked, its tokens dead.
    expect(() => engine.registerClient('acme-tpa', ['ledger_access'])).toThrow(expect.objectContaining({ kind: 'conflict', code: 'client_revoked' }));
    expect(() => engine.registerClient('acme-tpa', ['ledger_access'])).toThrow(/acme-tpa was revoked at 2026-03-02T10:00:00Z and is not registered again/);
    expect(caller(tokens[0]!)).toMatchObject({ status: 401 });
    expect(ask(engine)).toMatchObject({ status: 401 });
    // Again: nothing more (no second record); an unknown client: undefined.
    expect(engine.revokeClient('acme-tpa')).toEqual({ client_id: 'acme-tpa', revoked: false, revoked_at: T0, tokens: 0 });
    expect(engine.revokeClient('nobody')).toBeUndefined();
    expect(engine.listClients()).toEqual([
      { client_id: 'acme-tpa', scopes: ['ledger_access', 'fund_release'], status: 'revoked', registered_at: T0, revoked_at: T0 },
      { client_id: 'other-tpa', scopes: ['ledger_access'], status: 'active', registered_at: T0, revoked_at: null },
    ]);
    const records = [...engine.auditList({ type: 'CLIENT_REVOKED' })];
    expect(records.map((r) => [r.subject, r.actor, JSON.parse(r.data_json)])).toEqual([
      ['acme-tpa', 'local:ops', { tokens: 2, reason: 'revoked by the operator' }],
    ]);
    expect(engine.auditVerify()).toMatchObject({ whole: true });
    // Each token live at the revocation records it too: a client row edited back to active revives none of them.
    engine.db.prepare('UPDATE oauth_clients SET revoked_at = NULL').run();
    for (const t of tokens) expect(caller(t)).toMatchObject({ status: 401, body: { message: 'The access token was revoked: its client was revoked' } });
  });

  it('a token already expired when its client was revoked is not counted, and stays refused', () => {
    const engine = home.at(T0);
    engine.registerClient('acme-tpa', ['ledger_access']);
    const old = (ask(engine).body as { access_token: string }).access_token;
    const later = home.at('2026-03-02T11:30:00Z');
    const live = (ask(later).body as { access_token: string }).access_token;
    expect(later.revokeClient('acme-tpa')).toMatchObject({ revoked: true, tokens: 1 });
    for (const t of [old, live]) expect('response' in later.authenticate({ bearer: t, certificate: cert })).toBe(true);
  });

  it('the production (mutual-TLS) server takes no API key, valid or not: 401 saying to use OAuth', () => {
    const engine = home.at(T0);
    const { apiKey } = engine.createKey('sandbox', ['ledger_access']);
    expect('key' in engine.authenticate({ apiKey })).toBe(true);
    const refused = engine.authenticate({ apiKey, certificate: cert, oauthOnly: true });
    expect('response' in refused && refused.response).toMatchObject({
      status: 401,
      body: {
        error: 'invalid_api_key',
        message: expect.stringMatching(/production service: API keys are not accepted here; send an OAuth access token/),
        documentation: expect.any(String),
      },
    });
    const none = engine.authenticate({ certificate: cert, oauthOnly: true });
    expect('response' in none && none.response.body).toMatchObject({ error: 'invalid_token', message: expect.stringMatching(/Authorization: Bearer/) });
  });
});
