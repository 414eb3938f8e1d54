// The production flow end to end against `tpa local serve` with TLS and client certificates: a CA,
// server and client certificates made here with openssl, on 127.0.0.1 only.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { mtlsLoginArgs } from '../helpers/certs.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const f = (name: string) => join(certs.dir, name);

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: certs.dir, stdio: 'ignore' });
}

function makeCertificates(): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=tpa test CA');
  openssl('req', ...ec, '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
  openssl('req', ...ec, '-keyout', 'client-key.pem', '-out', 'client.csr', '-subj', '/CN=acme-tpa');
  openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'client.pem', '-days', '2');
  openssl('pkey', '-in', 'client-key.pem', '-aes256', '-passout', 'pass:s3cret-phrase', '-out', 'client-key-enc.pem');
  openssl('req', '-x509', ...ec, '-keyout', 'other-ca-key.pem', '-out', 'other-ca.pem', '-days', '2', '-subj', '/CN=another CA');
  openssl('req', ...ec, '-keyout', 'foreign-key.pem', '-out', 'foreign.csr', '-subj', '/CN=acme-tpa');
  openssl('x509', '-req', '-in', 'foreign.csr', '-CA', 'other-ca.pem', '-CAkey', 'other-ca-key.pem', '-CAcreateserial', '-out', 'foreign.pem', '-days', '2');
}

beforeAll(async () => {
  certs = tempDir();
  home = tempDir();
  makeCertificates();
  server = await serve(home.dir, ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem'), '--client-ca', f('ca.pem')]);
});
afterAll(async () => {
  await server.stop();
  home.remove();
  certs.remove();
});

const run = (args: string[], input?: string, env: Record<string, string> = {}) => runTpa(args, { home: home.dir, input, env });
const login = (profile: string, cert: string, key: string, extra: string[] = [], input?: string) =>
  run([...mtlsLoginArgs({ url: server.url, dir: certs.dir, profile, cert, key }), ...extra], input);
const settled = () => server.settled({ cert: f('client.pem'), key: f('client-key.pem'), ca: f('ca.pem') });
const tokenRequests = () => (server.stderr().match(/POST \/oauth2\/token 200/g) ?? []).length;
const secrets = () => (JSON.parse(readFileSync(join(home.dir, 'credentials.json'), 'utf8')) as { secrets: Record<string, string> }).secrets;

describe('production: OAuth 2.0 client credentials over mutual TLS', () => {
  it('serves HTTPS on 127.0.0.1', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('login gets a token with the client certificate, caches it, and commands reuse it', async () => {
    await settled();
    const earlier = tokenRequests();
    const r = await login('production', 'client.pem', 'client-key.pem');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      environment: 'production',
      client_id: 'acme-tpa',
      scopes: ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'],
    });
    const cached = JSON.parse(secrets()['token:production']!) as { access_token: string; expires_at: number };
    expect(cached.access_token).toMatch(/^at_/);
    expect(cached.expires_at - Date.now()).toBeGreaterThan(55 * 60_000);
    await settled();
    const issued = tokenRequests();
    expect(issued).toBe(earlier + 1);
    expect((await run(['health', '-p', 'production'])).json()).toMatchObject({ environment: 'production', key_id: expect.stringMatching(/^tok_/) });
    const ledger = await run(['ledger', 'list', '-p', 'production']);
    expect(ledger.code, ledger.stderr).toBe(0);
    await settled();
    expect(tokenRequests()).toBe(issued);
    expect(readFileSync(join(home.dir, 'config.json'), 'utf8')).not.toContain(cached.access_token);
    const status = await run(['auth', 'status', '-p', 'production']);
    expect(status.json()).toMatchObject({ environment: 'production', client_id: 'acme-tpa', credential: { token_expires_at: expect.any(String) } });
  });

  it('renews the token once the engine clock passes its expiry (the service answers 401)', async () => {
    // A profile of its own, logged in here: the test needs no other to have run.
    const first = await login('renewing', 'client.pem', 'client-key.pem');
    expect(first.code, first.stderr).toBe(0);
    await settled();
    const before = tokenRequests();
    const refusals = (server.stderr().match(/GET \/tpa-api\/v1\/health 401/g) ?? []).length;
    await run(['local', 'clock', 'advance', '61m']);
    try {
      const r = await run(['health', '-p', 'renewing']);
      expect(r.code, r.stderr).toBe(0);
      await settled();
      expect(tokenRequests()).toBe(before + 1);
      expect((server.stderr().match(/GET \/tpa-api\/v1\/health 401/g) ?? []).length).toBe(refusals + 1);
    } finally {
      await run(['local', 'clock', 'real']);
    }
  });

  it('a certificate from another CA is refused at the handshake: exit 8 with a clear message', async () => {
    const r = await login('foreign', 'foreign.pem', 'foreign-key.pem');
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/TLS handshake with https:\/\/127\.0\.0\.1:\d+\/oauth2\/token failed/);
  });

  it('a client without a certificate is refused: exit 8', async () => {
    const key = await createKey(home.dir);
    writeFileSync(
      join(home.dir, 'config.json'),
      JSON.stringify({
        ...JSON.parse(readFileSync(join(home.dir, 'config.json'), 'utf8')),
        profiles: { ...JSON.parse(readFileSync(join(home.dir, 'config.json'), 'utf8')).profiles, nocert: { env: 'sandbox', base_url: server.url } },
      }),
    );
    const r = await run(['health', '-p', 'nocert', '--ca-file', f('ca.pem')], undefined, { TPA_API_KEY: key });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/TLS handshake .* failed/);
  });

  it("without the service's CA the server is not trusted: exit 8 naming --ca-file", async () => {
    const r = await run(mtlsLoginArgs({ url: server.url, dir: certs.dir, profile: 'noca', ca: false }));
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/not trusted/);
    expect(r.stderr).toMatch(/--ca-file/);
  });

  it('an encrypted client key: a wrong passphrase fails (exit 5), the right one is kept for later commands', async () => {
    const wrong = await login('enc', 'client.pem', 'client-key-enc.pem', ['--passphrase-stdin'], 'not-it\n');
    expect(wrong.code, wrong.stderr).toBe(5);
    expect(wrong.stderr).toMatch(/passphrase of the client key is wrong/);
    const right = await login('enc', 'client.pem', 'client-key-enc.pem', ['--passphrase-stdin'], 's3cret-phrase\n');
    expect(right.code, right.stderr).toBe(0);
    expect(secrets()['passphrase:enc']).toBe('s3cret-phrase');
    expect((await run(['health', '-p', 'enc'])).code).toBe(0);
  });

  it('asks for TLS 1.3: a TLS 1.2 service is refused unless the profile says legacy_tls', async () => {
    const legacyHome = tempDir();
    const legacy = await serve(legacyHome.dir, [
      '--tls-cert',
      f('server.pem'),
      '--tls-key',
      f('server-key.pem'),
      '--client-ca',
      f('ca.pem'),
      '--tls-max-version',
      '1.2',
    ]);
    try {
      const args = mtlsLoginArgs({ url: legacy.url, dir: certs.dir });
      const modern = await runTpa(args, { home: legacyHome.dir });
      expect(modern.code).toBe(8);
      expect(modern.stderr).toMatch(/TLS handshake/);
      const allowed = await runTpa([...args, '--legacy-tls'], { home: legacyHome.dir });
      expect(allowed.code, allowed.stderr).toBe(0);
      expect((await runTpa(['config', 'get', 'profiles.production.legacy_tls'], { home: legacyHome.dir })).json()).toMatchObject({ value: true });
    } finally {
      await legacy.stop();
      legacyHome.remove();
    }
  });
});
