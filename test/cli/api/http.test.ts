// `tpa api` over real HTTP: -H headers as sent, -f/-F as a POST's JSON body or a GET's query, and
// --paginate across the pages of `tpa local serve`, never following a `next` off the profile's
// service. A plain node:http server on 127.0.0.1 stands for a service whose answers a test chooses.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { login, serve, type Served } from '../../helpers/server.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server on 127.0.0.1 that records what it is asked and answers with `answer`. */
function recorder(): { url: string; seen: Seen[]; answer: (req: Seen, res: ServerResponse) => void; server: Server; ready: Promise<void> } {
  const r = {
    url: '',
    seen: [] as Seen[],
    answer: (_req: Seen, res: ServerResponse) => json(res, 200, { ok: true }),
    server: undefined as unknown as Server,
    ready: undefined as unknown as Promise<void>,
  };
  r.server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      r.seen.push(seen);
      r.answer(seen, res);
    });
  });
  r.ready = new Promise<void>((resolve) =>
    r.server.listen(0, '127.0.0.1', () => {
      r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
      resolve();
    }),
  );
  return r;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

let server: Served;
let key: string;
const fake = recorder();
const foreign = recorder();
let rows: { encounter_id: string }[];

/** `tpa api` on the profile `fake` (the recorder), with the sandbox key of the served home. */
const onFake = (args: string[]) => runTpa(['api', ...args, '-p', 'fake'], { home: home.dir, env: { ...env, TPA_API_KEY: key } });

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 7 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await home.run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  server = await serve(home.dir, [], env);
  key = await login(home.dir, server.url);
  await Promise.all([fake.ready, foreign.ready]);
  const config = join(home.dir, 'config.json');
  const parsed = JSON.parse(readFileSync(config, 'utf8'));
  writeFileSync(config, JSON.stringify({ ...parsed, profiles: { ...parsed.profiles, fake: { env: 'sandbox', base_url: fake.url } } }));
  const all = await home.run(['api', '/tpa-api/v1/ledger/entries/?limit=100']);
  expect(all.code, all.stderr).toBe(0);
  rows = all.json<{ results: { encounter_id: string }[] }>().results;
  expect(rows.length).toBe(7);
});

afterAll(async () => {
  await server?.stop();
  fake.server.close();
  foreign.server.close();
});

describe('tpa api over HTTP', () => {
  it("takes a full URL on the profile's own service (a page's next, as gh takes one), and refuses any other: nothing sent there", async () => {
    const first = await home.run(['api', '/tpa-api/v1/ledger/entries/?limit=4']);
    expect(first.code, first.stderr).toBe(0);
    const next = first.json<{ next: string }>().next;
    expect(next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tpa-api\/v1\/ledger\/entries\/\?/);
    const second = await home.run(['api', next]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json<{ results: { encounter_id: string }[] }>().results.map((r) => r.encounter_id)).toEqual(rows.slice(4).map((r) => r.encounter_id));
    fake.seen.length = 0;
    const onOwn = await onFake([`${fake.url}/tpa-api/v1/health?x=1`]);
    expect(onOwn.code, onOwn.stderr).toBe(0);
    expect(fake.seen.map((q) => q.url)).toEqual(['/tpa-api/v1/health?x=1']);
    for (const elsewhere of [`${foreign.url}/tpa-api/v1/health`, `http://user:pw@${fake.url.slice(7)}/tpa-api/v1/health`]) {
      const r = await onFake([elsewhere]);
      expect(r.code, elsewhere).toBe(2);
      expect(r.stderr).toMatch(/is refused: .*nothing was sent/);
      expect(r.stderr).not.toContain('pw@');
    }
    expect(foreign.seen).toEqual([]);
    expect(fake.seen).toHaveLength(1);
  });

  it('a path extending the fund release or a finalize, and the key rotation in any spelling, are refused before sending: exit 2, the stand-in asked nothing', async () => {
    fake.seen.length = 0;
    fake.answer = (_req, res) => json(res, 500, { error: 'internal' });
    const release = ['-f', 'encounter_id=enc_1', '-F', 'amount=284', '-f', 'authorization_code=A'];
    const extended: string[][] = [
      ['-X', 'PUT', '/tpa-api/v1/funding/approve/x', ...release],
      ['-X', 'PUT', '/tpa-api/v1/funding/approve/x/', ...release],
      ['-X', 'POST', '/tpa-api/v1/funding/approve/x', ...release],
      ['-X', 'GET', '/tpa-api/v1/funding/approve/x', ...release],
      ['-X', 'PUT', `${fake.url}/tpa-api/v1/funding/approve/x`, ...release],
      ['-X', 'PUT', '/tpa-api/v1/Funding/./approve;y/x%2Fz', ...release],
      ['POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize/x'],
      ['POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize/x/', '-d', '{}'],
    ];
    for (const args of extended) {
      const r = await onFake([...args, '--yes']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /is not a route of the service; a service that routes by prefix would take it for (the fund release|finalizing a rate schedule): refused, nothing sent/,
      );
    }
    for (const args of [
      ['POST', '/tpa-api/v1/keys/rotate/'],
      ['POST', '/tpa-api/v1/keys/rotate'],
      ['GET', '/tpa-api/v1/KEYS/rotate'],
      ['PUT', '/tpa-api/v1/keys/%72otate/x'],
    ]) {
      const r = await onFake([...args, '--yes']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /rotates the profile's key: use `tpa auth rotate`, which asks, saves the new key and never prints it; nothing was sent/,
      );
    }
    expect(fake.seen).toEqual([]);
    // The token endpoint is on the auth server, never a path of the service's: refused as any such path.
    const token = await onFake(['POST', '/oauth2/token', '-f', 'grant_type=client_credentials', '--yes']);
    expect(token.code).toBe(2);
    expect(fake.seen).toEqual([]);
    // The keys' list shows a prefix and last four only: it is sent.
    fake.answer = (_req, res) => json(res, 200, { keys: [] });
    const list = await onFake(['/tpa-api/v1/keys']);
    expect(list.code, list.stderr).toBe(0);
    expect(fake.seen.map((q) => q.url)).toEqual(['/tpa-api/v1/keys']);
  });

  it('-H headers reach the service as given beside the profile key; --debug redacts a value that may be a credential', async () => {
    fake.seen.length = 0;
    fake.answer = (_req, res) => json(res, 200, { ok: true });
    const r = await onFake(['/tpa-api/v1/health', '-H', 'X-Trace: t-1', '-H', 'X-Session-Token: hush', '-H', 'Accept-Language: en', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.headers).toMatchObject({ 'x-trace': 't-1', 'x-session-token': 'hush', 'accept-language': 'en', 'x-api-key': key });
    expect(r.stderr).toMatch(/x-trace: t-1/);
    expect(r.stderr).toMatch(/x-session-token: \[redacted\]/);
    expect(r.stderr).not.toContain('hush');
    expect(r.stderr).not.toContain(key);
  });

  it("--debug never shows the profile's key, wherever it appears (a header, the query, the path), nor a value that looks like a credential", async () => {
    fake.seen.length = 0;
    fake.answer = (_req, res) => json(res, 200, { ok: true });
    const r = await onFake([
      `/tpa-api/v1/health/${encodeURIComponent(key)}/?echo=${encodeURIComponent(key)}&otp=s3cr3t-otp`,
      '-H',
      `X-Forwarded-Key-Copy: ${key}`,
      '-H',
      `X-Trace: mine ${key}`,
      '-H',
      'X-Note: Bearer s3cr3t-bearer',
      '-H',
      'X-Dpop: s3cr3t-dpop',
      '--debug',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.headers['x-trace']).toBe(`mine ${key}`);
    expect(r.stderr).toMatch(/x-trace: \[redacted\]/);
    expect(r.stderr).toMatch(/x-api-key: \[redacted\]/);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain(encodeURIComponent(key));
    expect(r.stderr).not.toContain('s3cr3t');
  });

  it('-f/-F are a POST JSON body (typed by -F), and with -X GET the query, with no body', async () => {
    fake.seen.length = 0;
    const post = await onFake([
      '/tpa-api/v1/contract-lookup/blind/',
      '-f',
      'npi=1045782368',
      '-F',
      'n=2',
      '-F',
      'ok=true',
      '-F',
      'codes[]=45378',
      '-f',
      'o[k]=v',
    ]);
    expect(post.code, post.stderr).toBe(0);
    const sent = fake.seen[0]!;
    expect([sent.method, sent.url, sent.headers['content-type']]).toEqual(['POST', '/tpa-api/v1/contract-lookup/blind/', 'application/json']);
    expect(JSON.parse(sent.body)).toEqual({ npi: '1045782368', o: { k: 'v' }, n: 2, ok: true, codes: [45378] });
    const get = await onFake(['/tpa-api/v1/ledger/entries/', '-X', 'GET', '-f', 'status=FUNDED', '-F', 'limit=2']);
    expect(get.code, get.stderr).toBe(0);
    expect([fake.seen[1]!.method, fake.seen[1]!.url, fake.seen[1]!.body]).toEqual(['GET', '/tpa-api/v1/ledger/entries/?status=FUNDED&limit=2', '']);
  });

  it('--paginate follows the pages of tpa local serve to the end: every row once, in order, one request a page', async () => {
    await server.settled();
    const from = server.stderr().length;
    const array = await home.run(['api', '/tpa-api/v1/ledger/entries/', '-F', 'limit=2', '--paginate']);
    expect(array.code, array.stderr).toBe(0);
    expect(array.json<{ encounter_id: string }[]>().map((r) => r.encounter_id)).toEqual(rows.map((r) => r.encounter_id));
    await server.settled();
    expect(
      server
        .stderr()
        .slice(from)
        .match(/GET \/tpa-api\/v1\/ledger\/entries\/ 200/g),
    ).toHaveLength(4);
    const lines = await home.run(['api', 'GET', '/tpa-api/v1/ledger/entries/?limit=3', '--paginate', '-o', 'ndjson']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(ndjson<{ encounter_id: string }>(lines.stdout).map((r) => r.encounter_id)).toEqual(rows.map((r) => r.encounter_id));
  });

  it('--paginate refuses a next off the profile base URL (another port, scheme, user, path): exit 8, nothing sent there, the array left unclosed', async () => {
    const page = (next: string | null, ids: string[]) => ({ count: 4, next, previous: null, results: ids.map((id) => ({ id })) });
    const port = new URL(fake.url).port;
    const list = '/tpa-api/v1/ledger/entries/';
    for (const next of [
      `${foreign.url}${list}?offset=2`,
      `//127.0.0.1:${new URL(foreign.url).port}${list}?offset=2`,
      `https://127.0.0.1:${port}${list}?offset=2`,
      `http://user:pw@127.0.0.1:${port}${list}?offset=2`,
      '/tpa-api/v1/funding/approve/?offset=2',
      `/elsewhere${list}?offset=2`,
    ]) {
      fake.seen.length = 0;
      fake.answer = (_req, res) => json(res, 200, page(next, ['a', 'b']));
      const r = await onFake([list, '--paginate']);
      expect(r.code, `${next}: ${r.stderr}`).toBe(8);
      expect(r.stderr, next).toMatch(/was not followed: .*tpa follows no link off the profile's base URL/);
      expect(r.stderr, next).not.toContain('pw@');
      expect(fake.seen, next).toHaveLength(1);
      expect(r.stdout).toMatch(/^\[\n {2}\{\n {4}"id": "a"\n {2}\},\n {2}\{\n {4}"id": "b"\n {2}\}$/);
      expect(() => JSON.parse(r.stdout), next).toThrow();
    }
    expect(foreign.seen).toEqual([]);
    // The same list on the same service is followed, whether the link is absolute or a path.
    for (const next of [`${fake.url}${list}?offset=2`, `${list}?offset=2`]) {
      fake.seen.length = 0;
      fake.answer = (req, res) => json(res, 200, req.url.includes('offset=2') ? page(null, ['c', 'd']) : page(next, ['a', 'b']));
      const r = await onFake([list, '--paginate', '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      expect(ndjson(r.stdout)).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }]);
      expect(fake.seen.map((s) => s.url)).toEqual([list, `${list}?offset=2`]);
    }
  });

  it('--paginate stops at a page that fails with its exit code, naming the page; stdout keeps the rows so far and nothing else', async () => {
    const list = '/tpa-api/v1/ledger/entries/';
    fake.answer = (req, res) =>
      req.url.includes('offset=2')
        ? json(res, 404, { error: 'not_found', message: 'gone' })
        : json(res, 200, { count: 4, next: `${list}?offset=2`, previous: null, results: [{ id: 'a' }] });
    const r = await onFake([list, '--paginate', '-o', 'ndjson']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/page 2 \(GET \/tpa-api\/v1\/ledger\/entries\/\?offset=2\)/);
    expect(r.stdout).toBe('{"id":"a"}\n');
  });
});
