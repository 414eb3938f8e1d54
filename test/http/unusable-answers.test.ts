// Answers the service never sends, from a hostile or broken server (or a proxy that is not the
// service): more than MAX_ANSWER_BYTES is not read to the end; a redirect is not followed and is not
// an empty success; a success that is not JSON is not a success. Each is exit 8, said once (no
// retry), and a fund approval stops before it sends anything. A real server on 127.0.0.1 answers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/client/http.js';
import { RetryingTransport } from '../../src/client/retry.js';
import type { TransportRequest } from '../../src/client/transport.js';
import { exchange, MAX_ANSWER_BYTES } from '../../src/client/request.js';
import { NetworkError } from '../../src/errors.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { createKey } from '../helpers/server.js';

const MIB = Buffer.alloc(1024 * 1024, 0x20);
let server: Server;
let base: string;
let sent = 0;
let mode: 'huge' | 'redirect' | 'html' = 'huge';
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/small' && mode !== 'huge') {
      seen.push(`${req.method} ${req.url}`);
      if (mode === 'redirect') return void res.writeHead(301, { location: 'http://127.0.0.1:9/elsewhere' }).end();
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/small') return void res.end(`"${'x'.repeat(10_000)}"`);
    // Twice the limit, a mebibyte at a time, as long as the reader reads.
    let left = (2 * MAX_ANSWER_BYTES) / MIB.length;
    const more = () => {
      while (left > 0) {
        left--;
        sent += MIB.length;
        if (!res.write(MIB)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('close', () => (left = 0));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('an answer larger than any the service sends', () => {
  it('is read whole up to the limit, and refused past it', async () => {
    const small = await exchange(`${base}/small`, { method: 'GET', headers: {}, timeoutMs: 30_000, maxBytes: 10_002 });
    expect(small.text.length).toBe(10_002);
    await expect(exchange(`${base}/small`, { method: 'GET', headers: {}, timeoutMs: 30_000, maxBytes: 10_001 })).rejects.toMatchObject({
      code: 'ERR_RESPONSE_TOO_LARGE',
    });
  });

  it('stops the transport at 64 MiB with a network error (exit 8) that says why', async () => {
    const transport = new HttpTransport({ baseUrl: base, apiKey: 'sk_sand_test', timeoutMs: 60_000 });
    const err = await transport.send({ method: 'GET', path: '/huge', headers: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).exitCode).toBe(8);
    expect((err as Error).message).toMatch(/more than 64 MiB; tpa stopped reading it/);
    // It stopped reading: the server, meaning to send twice the limit, got to send little past it
    // (what the sockets' buffers took).
    expect(sent).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(sent).toBeLessThan(MAX_ANSWER_BYTES + 32 * MIB.length);
  });

  for (const [kind, what, code] of [
    ['redirect', /answered 301 \(a redirect to http:\/\/127\.0\.0\.1:9\/elsewhere\), which tpa does not follow/, 'answer_redirect'],
    ['html', /answered 200 with a body that is not JSON/, 'answer_not_json'],
  ] as const) {
    it(`a ${kind === 'redirect' ? 'redirect' : 'success that is not JSON'} is exit 8, asked once, for a GET and for a fund approval`, async () => {
      mode = kind;
      seen.length = 0;
      const transport = new RetryingTransport(new HttpTransport({ baseUrl: base, apiKey: 'sk_sand_test' }), { sleep: async () => {} });
      const requests: TransportRequest[] = [
        { method: 'GET', path: '/tpa-api/v1/settlement/enc_1/', headers: {} },
        { method: 'POST', path: '/tpa-api/v1/funding/approve/', headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' }, body: '{}' },
      ];
      for (const req of requests) {
        const err = await transport.send(req).catch((e: unknown) => e);
        expect(err, req.method).toBeInstanceOf(NetworkError);
        expect((err as NetworkError).exitCode).toBe(8);
        expect((err as NetworkError).code).toBe(code);
        expect((err as Error).message).toMatch(what);
      }
      expect(seen).toEqual(['GET /tpa-api/v1/settlement/enc_1/', 'POST /tpa-api/v1/funding/approve/']);

      // Through the CLI: logging in to such a server fails, exit 8, and saves no profile.
      const home = tempDir();
      try {
        const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', base, '--with-key-stdin'], {
          home: home.dir,
          input: await createKey(home.dir),
        });
        expect(login.code, login.stderr).toBe(8);
        expect(login.stderr).toMatch(what);
        expect((await runTpa(['config', 'list', '-o', 'json'], { home: home.dir })).stdout).not.toContain(base);
      } finally {
        home.remove();
      }
    });
  }
});

describe('an answer the CLI cannot read (a hostile or broken server)', () => {
  let fake: Server;
  let fakeBase: string;
  let answer = '';
  const routes: string[] = [];
  beforeAll(async () => {
    fake = createServer((req, res) => {
      routes.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeBase = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise((resolve) => fake.close(resolve));
  });

  /** A home whose profile `d` (sandbox) names the fake server, with a key of the right form. */
  async function profileHome() {
    const home = tempDir();
    const env = { TPA_API_KEY: await createKey(home.dir) };
    for (const [k, v] of [
      ['profiles.d.base_url', fakeBase],
      ['profiles.d.env', 'sandbox'],
    ] as const)
      expect((await runTpa(['config', 'set', k, v], { home: home.dir })).code).toBe(0);
    return { home, env };
  }

  it('nested 200,000 deep is refused before it is parsed: exit 8 naming the depth, nothing rendered (ledger, lookup, api)', async () => {
    const depth = 200_000;
    answer = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const { home, env } = await profileHome();
    try {
      for (const args of [
        ['ledger', 'list', '-p', 'd'],
        ['ledger', 'list', '-p', 'd', '-o', 'table'],
        ['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-p', 'd'],
        ['api', 'GET', '/tpa-api/v1/ledger/', '-p', 'd'],
      ]) {
        routes.length = 0;
        const r = await runTpa(args, { home: home.dir, env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(8);
        expect(r.stderr).toContain(`${fakeBase} answered 200 with JSON nested more than 64 levels deep`);
        expect(r.stderr).not.toMatch(/internal error|call stack/);
        expect(r.stdout).toBe('');
        expect(routes.length).toBeGreaterThan(0);
      }
    } finally {
      home.remove();
    }
  });

  it('fields missing from a listing: exit 8 naming the route, not an internal error (ledger, activity, settlement report)', async () => {
    answer = JSON.stringify({ count: 1, next: null, previous: null, results: [{ encounter_id: 'enc_1' }] });
    const { home, env } = await profileHome();
    try {
      for (const args of [
        ['ledger', 'list', '-p', 'd', '-o', 'table'],
        ['activity', '-p', 'd'],
        ['settlement', 'report', '--period', 'this-month', '-p', 'd'],
      ]) {
        const r = await runTpa(args, { home: home.dir, env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(8);
        expect(r.stderr).toMatch(new RegExp(`${fakeBase.replace(/\./g, '\\.')} answered GET /tpa-api/v1/\\S+ with something tpa cannot use \\(`));
        expect(r.stderr).not.toMatch(/internal error|this is a bug in tpa/);
      }
    } finally {
      home.remove();
    }
  });
});
