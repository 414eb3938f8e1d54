// What the README and docs/ promise about TLS and OAuth and no test checked before: the access token
// renewed five minutes before it ends, the token endpoint's 60 requests a minute per client
// certificate, and TPA_CA_FILE. Certificates made here with openssl; servers on 127.0.0.1 only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { mtlsLoginArgs, TestCa } from '../helpers/certs.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
/** The plain TLS server's data directory: one server per data directory. */
let plainHome: ReturnType<typeof tempDir>;
let mtls: Served;
let plain: Served;
const f = (name: string) => join(certs.dir, name);

beforeAll(async () => {
  certs = tempDir();
  home = tempDir();
  plainHome = tempDir();
  // A private CA: the server's certificate is trusted only by whoever is given ca.pem.
  const ca = new TestCa(certs.dir);
  ca.server();
  ca.client('client');
  // Rate windows on the frozen engine clock: the token endpoint's window ends only when a test says.
  await runTpa(['local', 'clock', 'set', '2026-03-02T10:00:00Z'], { home: home.dir });
  const tlsArgs = ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem')];
  mtls = await serve(home.dir, [...tlsArgs, '--client-ca', f('ca.pem'), '--rate-clock', 'engine']);
  plain = await serve(plainHome.dir, tlsArgs);
});
afterAll(async () => {
  await mtls.stop();
  await plain.stop();
  home.remove();
  plainHome.remove();
  certs.remove();
});

const run = (args: string[], env: Record<string, string> = {}) => runTpa(args, { home: home.dir, env });
/** Token requests the mTLS server has answered, once its log holds every answer sent. */
const tokenRequests = async () => {
  await mtls.settled({ cert: f('client.pem'), key: f('client-key.pem'), ca: f('ca.pem') });
  return (mtls.stderr().match(/POST \/oauth2\/token 200/g) ?? []).length;
};
const credentials = () => JSON.parse(readFileSync(join(home.dir, 'credentials.json'), 'utf8')) as { secrets: Record<string, string> };

/** Sets the expiry of the cached access token of a profile, as if it had been issued earlier. */
function expireCachedTokenIn(profile: string, ms: number): void {
  const c = credentials();
  const token = JSON.parse(c.secrets[`token:${profile}`]!) as { access_token: string; expires_at: number };
  c.secrets[`token:${profile}`] = JSON.stringify({ ...token, expires_at: Date.now() + ms });
  writeFileSync(join(home.dir, 'credentials.json'), JSON.stringify(c));
}

describe('the OAuth access token', () => {
  it('is renewed before use once it has less than five minutes left, and reused while it has more', async () => {
    const login = await run(mtlsLoginArgs({ url: mtls.url, dir: certs.dir, profile: 'early' }));
    expect(login.code, login.stderr).toBe(0);
    const issued = await tokenRequests();
    expireCachedTokenIn('early', 6 * 60_000);
    expect((await run(['health', '-p', 'early'])).code).toBe(0);
    expect(await tokenRequests()).toBe(issued);
    expireCachedTokenIn('early', 4 * 60_000);
    expect((await run(['health', '-p', 'early'])).code).toBe(0);
    expect(await tokenRequests()).toBe(issued + 1);
    // Renewed before it was sent: the service never saw it refused.
    expect(mtls.stderr()).not.toMatch(/GET \/tpa-api\/v1\/health 401/);
    const cached = JSON.parse(credentials().secrets['token:early']!) as { expires_at: number };
    expect(cached.expires_at - Date.now()).toBeGreaterThan(55 * 60_000);
  });

  it('the token endpoint allows 60 requests a minute per client certificate, then 429', async () => {
    const post = () =>
      new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
        const url = new URL('/oauth2/token', mtls.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            agent: false,
            headers: { 'content-type': 'application/json' },
            ca: readFileSync(f('ca.pem')),
            cert: readFileSync(f('client.pem')),
            key: readFileSync(f('client-key.pem')),
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['ledger_access'] }));
      });
    // A new window: the engine clock moves past whatever earlier tests counted.
    await run(['local', 'clock', 'advance', '2m']);
    const statuses: number[] = [];
    let last: { status: number; headers: Record<string, unknown> } | undefined;
    for (let i = 0; i < 61; i++) {
      last = await post();
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(last!.headers['x-ratelimit-limit']).toBe('60');
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    // tpa itself, asking for a token with that certificate now, is told it is rate limited (exit 6), not refused.
    const login = await run(mtlsLoginArgs({ url: mtls.url, dir: certs.dir, profile: 'limited' }));
    expect(login.code, login.stderr).toBe(6);
  });
});

describe('TPA_CA_FILE', () => {
  it('trusts a service whose certificate a private CA signed; without it the certificate is refused (exit 8)', async () => {
    const key = await createKey(plainHome.dir);
    const file = join(home.dir, 'config.json');
    const config = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as { profiles?: Record<string, unknown> };
    config.profiles = { ...config.profiles, private: { env: 'sandbox', base_url: plain.url } };
    writeFileSync(join(home.dir, 'config.json'), JSON.stringify(config));
    const refused = await run(['health', '-p', 'private', '-o', 'table'], { TPA_API_KEY: key });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(/TLS certificate is not trusted/);
    const trusted = await run(['health', '-p', 'private'], { TPA_API_KEY: key, TPA_CA_FILE: f('ca.pem') });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.json()).toMatchObject({ status: 'ok', environment: 'sandbox' });
    const missing = await run(['health', '-p', 'private', '-o', 'table'], { TPA_API_KEY: key, TPA_CA_FILE: f('nope.pem') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.pem/);
  });
});
