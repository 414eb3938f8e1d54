// No credential through a proxy over plain http. With Node's proxy support on (NODE_USE_ENV_PROXY=1,
// or --use-env-proxy in NODE_OPTIONS) and HTTP_PROXY or http_proxy set, bin/tpa as a real process
// (Node reads these at start-up) still sends plain http straight to this machine: a proxy on
// 127.0.0.1 that records every request and CONNECT it gets receives nothing, whatever NO_PROXY says,
// and the request reaches `tpa local serve`. https to another host goes through the proxy's CONNECT
// tunnel, TLS from end to end (the proxy sees the host asked for and ciphertext, never the key);
// https to this machine goes directly.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mtlsLoginArgs, TestCa } from '../helpers/certs.js';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { createKey, type Served, serve, type ServedHome, useServedHome } from '../helpers/server.js';

/** A forward proxy that records what reaches it; a CONNECT is tunnelled to `tunnelTo` (a port of 127.0.0.1), if set. */
class RecordingProxy {
  readonly requests: { method: string; target: string; headers: Record<string, unknown> }[] = [];
  readonly connects: string[] = [];
  /** Every byte the client sent through a tunnel. */
  tunnelled = Buffer.alloc(0);
  tunnelTo: number | undefined;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((req, res) => {
      this.requests.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers });
      req.resume();
      res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"proxy"}');
    });
    this.server.on('connection', (s: Socket) => this.sockets.add(s));
    this.server.on('connect', (req, socket: Socket, head: Buffer) => {
      this.connects.push(req.url ?? '');
      if (this.tunnelTo === undefined) return socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      const upstream = connect(this.tunnelTo, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        socket.on('data', (d: Buffer) => (this.tunnelled = Buffer.concat([this.tunnelled, d])));
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      this.sockets.add(upstream);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
  }

  reset(): void {
    this.requests.length = 0;
    this.connects.length = 0;
    this.tunnelled = Buffer.alloc(0);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    return `http://127.0.0.1:${address.port}`;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let home: ServedHome['home'];
let server: Served;
let key: string;
let proxy: RecordingProxy;
let proxyUrl: string;
useServedHome(beforeAll, afterAll, (s) => void ({ home, server, key } = s));
beforeAll(async () => {
  proxy = new RecordingProxy();
  proxyUrl = await proxy.listen();
});
afterAll(() => proxy?.close());
beforeEach(() => proxy.reset());

const healthRequests = async (s: Served) => {
  await s.settled();
  return (s.stderr().match(/GET \/tpa-api\/v1\/health 200/g) ?? []).length;
};

describe('plain http and a proxy', () => {
  it('with Node proxy support on and HTTP_PROXY or http_proxy set, plain http goes directly to local serve and the proxy receives nothing, whatever NO_PROXY says', async () => {
    const port = new URL(server.url).port;
    writeFileSync(
      join(home.dir, 'config.json'),
      JSON.stringify({
        profiles: {
          here: { env: 'sandbox', base_url: `http://127.0.0.1:${port}` },
          named: { env: 'sandbox', base_url: `http://localhost:${port}` },
        },
      }),
    );
    const on = [{ NODE_USE_ENV_PROXY: '1' }, { NODE_OPTIONS: '--use-env-proxy' }];
    const proxies = [
      { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl },
      { http_proxy: proxyUrl, https_proxy: proxyUrl },
    ];
    const bypass = [{}, { NO_PROXY: 'tpa.example.com,.internal' }, { no_proxy: 'other.test' }, { NO_PROXY: '*' }, { no_proxy: '*' }];
    let expected = await healthRequests(server);
    for (const a of on)
      for (const b of proxies)
        for (const c of bypass) {
          const env = { ...a, ...b, ...c, TPA_API_KEY: key };
          for (const profile of ['here', 'named']) {
            const r = await tpa(['health', '-p', profile, '-o', 'json'], { home: home.dir, env });
            const label = `${profile} ${JSON.stringify({ ...a, ...b, ...c })}`;
            expect(r.code, `${label}: ${r.stderr}`).toBe(0);
            expect(r.json(), label).toMatchObject({ status: 'ok' });
            expect(proxy.requests, label).toEqual([]);
            expect(proxy.connects, label).toEqual([]);
            expected++;
            expect(await healthRequests(server), label).toBe(expected);
          }
        }
  });

  it('a key over plain http reaches local serve directly for a request with a body too (tpa api POST), the proxy receiving nothing', async () => {
    const port = new URL(server.url).port;
    writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ profiles: { here: { env: 'sandbox', base_url: `http://127.0.0.1:${port}` } } }));
    const r = await tpa(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-p', 'here', '--data', '{"npi":"1000000000"}'], {
      home: home.dir,
      env: { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxyUrl, TPA_API_KEY: key },
    });
    expect(r.stderr).not.toMatch(/proxy/i);
    expect(proxy.requests).toEqual([]);
    await server.settled();
    expect(server.stderr()).toMatch(/POST \/tpa-api\/v1\/contract-lookup\/blind\/ \d{3}/);
  });
});

describe('https and a proxy', () => {
  let tls: { home: ReturnType<typeof tempDir>; server: Served; key: string; ca: string };
  beforeAll(async () => {
    const dir = tempDir();
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir.dir, stdio: 'ignore' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    ssl('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=tpa proxy test CA');
    ssl('req', ...ec, '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=tpa.test');
    writeFileSync(join(dir.dir, 'san.ext'), 'subjectAltName=DNS:tpa.test,IP:127.0.0.1\n');
    ssl(
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
    const s = await serve(dir.dir, ['--tls-cert', join(dir.dir, 'server.pem'), '--tls-key', join(dir.dir, 'server-key.pem')]);
    tls = { home: dir, server: s, key: await createKey(dir.dir), ca: join(dir.dir, 'ca.pem') };
  });
  afterAll(async () => {
    await tls?.server.stop();
    tls?.home.remove();
  });

  it('to another host goes through the proxy CONNECT tunnel with TLS end to end (the proxy never sees the key); to this machine directly', async () => {
    const port = new URL(tls.server.url).port;
    writeFileSync(
      join(tls.home.dir, 'config.json'),
      JSON.stringify({
        profiles: {
          far: { env: 'sandbox', base_url: `https://tpa.test:${port}` },
          here: { env: 'sandbox', base_url: `https://127.0.0.1:${port}` },
        },
      }),
    );
    proxy.tunnelTo = Number(port);
    const env = { NODE_USE_ENV_PROXY: '1', HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl, TPA_API_KEY: tls.key, TPA_CA_FILE: tls.ca };
    try {
      const far = await tpa(['health', '-p', 'far', '-o', 'json'], { home: tls.home.dir, env });
      expect(far.code, far.stderr).toBe(0);
      expect(far.json()).toMatchObject({ status: 'ok' });
      expect(proxy.connects).toEqual([`tpa.test:${port}`]);
      expect(proxy.requests).toEqual([]);
      expect(proxy.tunnelled.length).toBeGreaterThan(0);
      expect(proxy.tunnelled.includes(Buffer.from(tls.key))).toBe(false);
      expect(proxy.tunnelled.includes(Buffer.from('x-api-key'))).toBe(false);

      const here = await tpa(['health', '-p', 'here', '-o', 'json'], { home: tls.home.dir, env });
      expect(here.code, here.stderr).toBe(0);
      expect(proxy.connects).toEqual([`tpa.test:${port}`]);

      // NO_PROXY naming the host: directly, so a name only the proxy knows is not found.
      const bypassed = await tpa(['health', '-p', 'far', '-o', 'json'], { home: tls.home.dir, env: { ...env, NO_PROXY: 'tpa.test' } });
      expect(bypassed.code).not.toBe(0);
      expect(proxy.connects).toEqual([`tpa.test:${port}`]);
    } finally {
      proxy.tunnelTo = undefined;
    }
  });
});

describe('OAuth token requests and a proxy', () => {
  it('a production login and its calls to the mutual-TLS local serve ask for the token and send it directly, the proxy receiving nothing', async () => {
    const certs = tempDir();
    const h = tempDir();
    const ca = new TestCa(certs.dir);
    ca.server();
    ca.client('client');
    const s = await serve(h.dir, ['--tls-cert', ca.file('server.pem'), '--tls-key', ca.file('server-key.pem'), '--client-ca', ca.file('ca.pem')]);
    try {
      const env = { NODE_USE_ENV_PROXY: '1', HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl };
      const login = await tpa(mtlsLoginArgs({ url: s.url, dir: certs.dir }), { home: h.dir, env });
      expect(login.code, login.stderr).toBe(0);
      const health = await tpa(['health', '-o', 'json'], { home: h.dir, env });
      expect(health.code, health.stderr).toBe(0);
      expect(proxy.requests).toEqual([]);
      expect(proxy.connects).toEqual([]);
      await s.settled({ cert: ca.file('client.pem'), key: ca.file('client-key.pem'), ca: ca.file('ca.pem') });
      expect(s.stderr()).toMatch(/POST \/oauth2\/token 200/);
      expect(s.stderr()).toMatch(/GET \/tpa-api\/v1\/health 200/);
    } finally {
      await s.stop();
      h.remove();
      certs.remove();
    }
  });
});
