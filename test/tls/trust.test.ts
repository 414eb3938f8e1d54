// What a sandbox or staging profile trusts and accepts over HTTPS: the
// profile's legacy_tls holds for every environment, and --ca-file adds a CA to the trust store in
// force instead of replacing it. Servers of this file's own on 127.0.0.1, with certificates made
// here with openssl; "the system's store" is Node's default store, with a test CA put in it for the
// length of a test (tls.setDefaultCACertificates, this process only).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { TestCa } from '../helpers/certs.js';
import { tempDir } from '../helpers/engine.js';

const KEY = `sk_sand_${'t'.repeat(56)}`;
const HEALTH = { status: 'ok', environment: 'sandbox', key_id: 'key_trust', scopes: ['ledger_access'], time: '2026-06-30T12:00:00Z' };

let dir: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
/** The CA a "system store" holds, and the CA a user adds with --ca-file (a corporate proxy's). */
let system: TestCa;
let corporate: TestCa;
const servers: Server[] = [];

/** An HTTPS server answering every request with the health body; `maxVersion` caps its TLS. */
async function httpsServer(ca: TestCa, maxVersion: tls.SecureVersion = 'TLSv1.3'): Promise<string> {
  const { cert, key } = ca.server();
  const server = createServer({ cert: readFileSync(cert), key: readFileSync(key), maxVersion }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(HEALTH));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function profiles(p: Record<string, Record<string, unknown>>): void {
  writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ profiles: p }));
}

const run = (args: string[], env: Record<string, string> = {}) => runTpa([...args, '-o', 'json'], { home: home.dir, env: { TPA_API_KEY: KEY, ...env } });

beforeAll(() => {
  dir = tempDir();
  home = tempDir();
  mkdirSync(join(dir.dir, 'system'));
  mkdirSync(join(dir.dir, 'corporate'));
  system = new TestCa(join(dir.dir, 'system'));
  corporate = new TestCa(join(dir.dir, 'corporate'));
});
afterAll(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
  home.remove();
  dir.remove();
});

describe('legacy_tls for sandbox and staging profiles', () => {
  it('a TLS 1.2 service is refused (exit 8) unless the profile says legacy_tls, whatever its environment', async () => {
    const url = await httpsServer(corporate, 'TLSv1.2');
    profiles({
      modern: { env: 'sandbox', base_url: url },
      legacy: { env: 'sandbox', base_url: url, legacy_tls: true },
      'legacy-staging': { env: 'staging', base_url: url, legacy_tls: true },
    });
    const ca = { TPA_CA_FILE: corporate.file('ca.pem') };
    const modern = await run(['health', '-p', 'modern'], ca);
    expect(modern.code).toBe(8);
    expect(modern.stderr).toMatch(/TLS handshake/);
    const legacy = await run(['health', '-p', 'legacy'], ca);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(legacy.json()).toMatchObject({ status: 'ok' });
    const staging = await run(['health', '-p', 'legacy-staging'], { ...ca, TPA_API_KEY: `sk_stage_${'t'.repeat(55)}` });
    expect(staging.code, staging.stderr).toBe(0);
  });

  it('auth login --env sandbox --legacy-tls logs in to a TLS 1.2 service and saves legacy_tls', async () => {
    const url = await httpsServer(corporate, 'TLSv1.2');
    profiles({});
    const login = await runTpa(['auth', 'login', '--env', 'sandbox', '-p', 'old', '--base-url', url, '--with-key-stdin', '--legacy-tls'], {
      home: home.dir,
      input: `${KEY}\n`,
      env: { TPA_CA_FILE: corporate.file('ca.pem') },
    });
    expect(login.code, login.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(home.dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    expect(config.profiles.old).toMatchObject({ env: 'sandbox', base_url: url, legacy_tls: true });
  });
});

describe('--ca-file adds to the trust store', () => {
  let saved: string[];
  beforeAll(() => {
    saved = tls.getCACertificates('default');
  });
  afterAll(() => tls.setDefaultCACertificates(saved));

  it('a service the system store trusts is still trusted with --ca-file (a corporate CA) given', async () => {
    const url = await httpsServer(system);
    profiles({ public: { env: 'sandbox', base_url: url } });
    tls.setDefaultCACertificates([...saved, readFileSync(system.file('ca.pem'), 'utf8')]);
    try {
      const plain = await run(['health', '-p', 'public']);
      expect(plain.code, plain.stderr).toBe(0);
      const withCorporate = await run(['health', '-p', 'public', '--ca-file', corporate.file('ca.pem')]);
      expect(withCorporate.code, withCorporate.stderr).toBe(0);
      expect(withCorporate.json()).toMatchObject({ status: 'ok' });
      const fromEnv = await run(['health', '-p', 'public'], { TPA_CA_FILE: corporate.file('ca.pem') });
      expect(fromEnv.code, fromEnv.stderr).toBe(0);
    } finally {
      tls.setDefaultCACertificates(saved);
    }
  });

  it('and the service the corporate CA signed is trusted too; without the file it is not (exit 8)', async () => {
    const url = await httpsServer(corporate);
    profiles({ proxied: { env: 'sandbox', base_url: url } });
    expect((await run(['health', '-p', 'proxied'])).code).toBe(8);
    const trusted = await run(['health', '-p', 'proxied', '--ca-file', corporate.file('ca.pem')]);
    expect(trusted.code, trusted.stderr).toBe(0);
  });

  it("a profile's own ca is the one trusted, in place of the system store; --ca-file adds to it", async () => {
    const url = await httpsServer(system);
    const other = await httpsServer(corporate);
    profiles({
      pinned: { env: 'sandbox', base_url: url, ca: corporate.file('ca.pem') },
      'pinned-other': { env: 'sandbox', base_url: other, ca: corporate.file('ca.pem') },
    });
    tls.setDefaultCACertificates([...saved, readFileSync(system.file('ca.pem'), 'utf8')]);
    try {
      const refused = await run(['health', '-p', 'pinned']);
      expect(refused.code).toBe(8);
      expect(refused.stderr).toMatch(/not trusted/);
      expect((await run(['health', '-p', 'pinned-other'])).code).toBe(0);
      const added = await run(['health', '-p', 'pinned', '--ca-file', system.file('ca.pem')]);
      expect(added.code, added.stderr).toBe(0);
    } finally {
      tls.setDefaultCACertificates(saved);
    }
  });
});
