// Credentials over plain http go only to this machine: a base URL whose host is
// not a loopback literal or localhost is refused before anything is sent (exit 2), and `localhost`
// is reached only at the loopback addresses it resolves to: a resolver that sends it elsewhere gets
// nothing. The resolver is Node's dns.lookup, replaced for one test; on Linux a connection to
// 0.0.0.0 lands on this machine, so the server would see a request that went there.
import dns from 'node:dns';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { type Served, type ServedHome, useServedHome } from '../helpers/server.js';

let home: ServedHome['home'];
let server: Served;
let key: string;
useServedHome(beforeAll, afterAll, (s) => void ({ home, server, key } = s));

const port = () => new URL(server.url).port;
const healthRequests = async () => {
  await server.settled();
  return (server.stderr().match(/GET \/tpa-api\/v1\/health 200/g) ?? []).length;
};

describe('plain http only to this machine', () => {
  it('a host that only starts like a loopback address is refused at login and in a profile: exit 2, nothing sent', async () => {
    const before = await healthRequests();
    for (const host of ['127.attacker.example', '127.0.0.1.nip.io', 'localhost.evil']) {
      const url = `http://${host}:${port()}`;
      const login = await runTpa(['auth', 'login', '--env', 'sandbox', '-p', 'far', '--base-url', url, '--with-key-stdin'], { home: home.dir, input: key });
      expect(login.code, host).toBe(2);
      expect(login.stderr).toContain('credentials are sent only over https:// (plain http only to this machine: 127.0.0.0/8, ::1 or localhost');
      expect(login.stderr).toContain(`not \\"${host}\\"`);
      writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ profiles: { far: { env: 'sandbox', base_url: url } } }));
      const health = await runTpa(['health', '-p', 'far'], { home: home.dir, env: { TPA_API_KEY: key } });
      expect(health.code, host).toBe(2);
      expect(health.stderr).toMatch(/only over https:\/\//);
    }
    expect(await healthRequests()).toBe(before);
  });

  it('localhost is reached at the loopback address it resolves to; resolved elsewhere, exit 2 and the key is never sent', async () => {
    writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ profiles: { here: { env: 'sandbox', base_url: `http://localhost:${port()}` } } }));
    const health = () => runTpa(['health', '-p', 'here', '-o', 'json'], { home: home.dir, env: { TPA_API_KEY: key } });
    // Refused first: a connection kept alive from a request before would carry the next one without a lookup.
    const before = await healthRequests();
    const original = dns.lookup;
    // A resolver (a tampered /etc/hosts, a hostile DNS) that answers for localhost with another address.
    const elsewhere = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      if (hostname !== 'localhost') return (original as (...args: unknown[]) => void)(hostname, options, callback);
      process.nextTick(() => (options.all ? callback(null, [{ address: '0.0.0.0', family: 4 }]) : callback(null, '0.0.0.0', 4)));
    }) as typeof dns.lookup;
    dns.lookup = elsewhere;
    let refused;
    try {
      refused = await health();
    } finally {
      dns.lookup = original;
    }
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/localhost resolves to 0\.0\.0\.0, not to this machine: plain http goes only to a loopback address; nothing was sent/);
    expect(await healthRequests()).toBe(before);

    const ok = await health();
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ status: 'ok' });
  });
});

describe('the token endpoint', () => {
  it('a production profile whose auth_url is plain http to another host is refused (exit 2) before a token is asked', async () => {
    writeFileSync(
      join(home.dir, 'config.json'),
      JSON.stringify({
        profiles: {
          prod: {
            env: 'production',
            base_url: 'https://127.0.0.1:1',
            auth_url: 'http://127.attacker.example',
            client_id: 'acme-tpa',
            cert: 'c.pem',
            key: 'k.pem',
          },
        },
      }),
    );
    const r = await runTpa(['health', '-p', 'prod'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('http://127.attacker.example: credentials are sent only over https://');
  });
});
