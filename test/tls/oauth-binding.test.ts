// An OAuth access token is bound to the client certificate it was issued to (RFC 8705 style), tested
// through the real mutual-TLS server: two certificates of one client, signed by the same CA, made
// here with openssl; requests over real TLS connections on 127.0.0.1.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { TestCa } from '../helpers/certs.js';
import { createKey, registerClient, serve, type Served } from '../helpers/server.js';
import { runTpa } from '../helpers/cli.js';

let certs: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const f = (name: string) => join(certs.dir, name);

beforeAll(async () => {
  certs = tempDir();
  home = tempDir();
  const ca = new TestCa(certs.dir);
  ca.server();
  // Two certificates of the same client (same common name, same CA): A and B.
  ca.client('a');
  ca.client('b');
  // A certificate of the same CA for a client nobody registered.
  ca.client('c', 'stranger-tpa');
  server = await serve(home.dir, ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem'), '--client-ca', f('ca.pem')]);
});
afterAll(async () => {
  await server.stop();
  home.remove();
  certs.remove();
});

/** One request on a new TLS connection presenting client certificate `who`. */
function send(
  who: 'a' | 'b' | 'c',
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers,
        agent: false,
        ca: readFileSync(f('ca.pem')),
        cert: readFileSync(f(`${who}.pem`)),
        key: readFileSync(f(`${who}-key.pem`)),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tokenFor = async (who: 'a' | 'b') => {
  const r = await send(
    who,
    'POST',
    '/oauth2/token',
    { 'content-type': 'application/json' },
    JSON.stringify({ grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['ledger_access'] }),
  );
  expect(r.status).toBe(200);
  return r.body.access_token as string;
};

describe('an access token over mutual TLS', () => {
  it('works on a connection with the certificate it was issued to, and is refused 401 invalid_token with another', async () => {
    const token = await tokenFor('a');
    const withA = await send('a', 'GET', '/tpa-api/v1/health', { authorization: `Bearer ${token}` });
    expect(withA.status).toBe(200);
    expect(withA.body).toMatchObject({ environment: 'production', scopes: ['ledger_access'] });
    const withB = await send('b', 'GET', '/tpa-api/v1/health', { authorization: `Bearer ${token}` });
    expect(withB.status).toBe(401);
    expect(withB.body).toMatchObject({ error: 'invalid_token' });
    // B's own token works for B, and not for A.
    const tokenB = await tokenFor('b');
    expect((await send('b', 'GET', '/tpa-api/v1/ledger/entries/', { authorization: `Bearer ${tokenB}` })).status).toBe(200);
    expect((await send('a', 'GET', '/tpa-api/v1/ledger/entries/', { authorization: `Bearer ${tokenB}` })).status).toBe(401);
  });

  it('the scopes asked for are the scopes the token carries', async () => {
    const token = await tokenFor('a');
    const funding = await send('a', 'POST', '/tpa-api/v1/funding/approve/', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, '{}');
    expect(funding.status).toBe(403);
    expect(funding.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'fund_release', current_scopes: ['ledger_access'] });
  });
});

describe('the production server (docs/security-access.md "Who may do what")', () => {
  it('refuses an API key, even a valid one, with 401 saying production takes OAuth tokens only', async () => {
    const key = await createKey(home.dir);
    const r = await send('a', 'GET', '/tpa-api/v1/health', { 'x-api-key': key });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: 'invalid_api_key',
      message:
        'This is the production service: API keys are not accepted here; send an OAuth access token (Authorization: Bearer, from POST /oauth2/token with the client certificate)',
      documentation: expect.any(String),
    });
    expect((await send('a', 'GET', '/tpa-api/v1/ledger/entries/', { 'x-api-key': key })).status).toBe(401);
  });

  it('a certificate of the client CA gets a token only for a registered client, and only the scopes registered', async () => {
    const token = (scopes?: string[]) =>
      send(
        'c',
        'POST',
        '/oauth2/token',
        { 'content-type': 'application/json' },
        JSON.stringify({ grant_type: 'client_credentials', client_id: 'stranger-tpa', ...(scopes ? { scopes } : {}) }),
      );
    expect(await token()).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    await registerClient(home.dir, 'stranger-tpa', ['ledger_access']);
    expect(await token(['fund_release'])).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const granted = await token();
    expect(granted).toMatchObject({ status: 200, body: { scope: 'ledger_access' } });
    const listed = await runTpa(['local', 'clients', 'list', '-o', 'json'], { home: home.dir });
    expect(listed.json()).toEqual(
      expect.arrayContaining([
        {
          client_id: 'acme-tpa',
          scopes: ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'],
          status: 'active',
          registered_at: expect.any(String),
          revoked_at: null,
        },
        { client_id: 'stranger-tpa', scopes: ['ledger_access'], status: 'active', registered_at: expect.any(String), revoked_at: null },
      ]),
    );
  });
});
