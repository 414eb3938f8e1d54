// An OAuth client revoked by its operator (`tpa local clients revoke`) is refused at once by a
// mutual-TLS server already running: its certificate, in the owner's hands or a thief's, gets no
// token, and a token it holds gets 401 at its next request. Certificates made here with openssl;
// requests over real TLS connections on 127.0.0.1.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mtlsLoginArgs, TestCa } from '../helpers/certs.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { registerClient, serve, type Served } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const f = (name: string) => join(certs.dir, name);

beforeAll(async () => {
  certs = tempDir();
  home = tempDir();
  const ca = new TestCa(certs.dir);
  ca.server();
  // acme-tpa's certificate (client.pem), which the owner logs in with and a thief has copied.
  ca.client('client');
  // Another client of the same CA, which the revocation must leave alone.
  ca.client('other', 'other-tpa');
  server = await serve(home.dir, ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem'), '--client-ca', f('ca.pem')]);
  await registerClient(home.dir, 'other-tpa', ['ledger_access']);
});
afterAll(async () => {
  await server.stop();
  home.remove();
  certs.remove();
});

const run = (args: string[]) => runTpa(args, { home: home.dir });

/** One request on a new TLS connection presenting the certificate `<who>.pem`. */
function send(who: 'client' | 'other', method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const url = new URL(path, server.url);
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
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

const askToken = (who: 'client' | 'other', clientId: string) =>
  send(who, 'POST', '/oauth2/token', { 'content-type': 'application/json' }, JSON.stringify({ grant_type: 'client_credentials', client_id: clientId }));

describe('tpa local clients revoke, on a running mutual-TLS server', () => {
  it('a stolen certificate gets no token after the revocation, and a live token stops working at once', async () => {
    // The owner logs in (its token cached); the thief, with a copy of the certificate, gets a token of its own.
    const login = await run(mtlsLoginArgs({ url: server.url, dir: certs.dir, profile: 'production' }));
    expect(login.code, login.stderr).toBe(0);
    expect((await run(['ledger', 'list', '-p', 'production'])).code).toBe(0);
    const stolen = await askToken('client', 'acme-tpa');
    expect(stolen.status).toBe(200);
    const token = stolen.body.access_token as string;
    expect((await send('client', 'GET', '/tpa-api/v1/ledger/entries/', { authorization: `Bearer ${token}` })).status).toBe(200);
    const otherToken = (await askToken('other', 'other-tpa')).body.access_token as string;

    const revoked = await run(['local', 'clients', 'revoke', 'acme-tpa', '--yes', '-o', 'json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    // The owner's token and the thief's, both live.
    expect(revoked.json()).toMatchObject({ client_id: 'acme-tpa', revoked: true, tokens: 2 });

    // The live token: 401 at its very next request, saying it was revoked.
    const refused = await send('client', 'GET', '/tpa-api/v1/ledger/entries/', { authorization: `Bearer ${token}` });
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_token', message: 'The access token was revoked: its client was revoked' } });
    // The stolen certificate: no new token.
    const again = await askToken('client', 'acme-tpa');
    expect(again).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.stringMatching(/client acme-tpa was revoked at /) },
    });
    // The owner's CLI: its cached token refused, a new one refused, exit 5 saying why.
    const owner = await run(['ledger', 'list', '-p', 'production']);
    expect(owner.code).toBe(5);
    expect(owner.stderr).toMatch(/acme-tpa was revoked/);
    // Another client of the same CA keeps working.
    expect((await send('other', 'GET', '/tpa-api/v1/ledger/entries/', { authorization: `Bearer ${otherToken}` })).status).toBe(200);
    expect((await askToken('other', 'other-tpa')).status).toBe(200);
  });
});
