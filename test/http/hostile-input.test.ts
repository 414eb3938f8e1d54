// Input that hurts `tpa local serve`: bodies nested to stall the parser, and requests whose method or
// request line Node's own parser refuses. Each gets the service's JSON error and headers, early,
// and no caller's body holds up another caller.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, type Served, type ServedHome, useServedHome } from '../helpers/server.js';

let home: ServedHome['home'];
let server: Served;
let key: string;
useServedHome(beforeAll, afterAll, (s) => void ({ home, server, key } = s));

const FIVE_MB = 5 * 1024 * 1024;
/** Five megabytes of a claim nested as deep as its size allows. */
const deepBody = Buffer.from(`${'{"a":'.repeat(FIVE_MB / 10)}1${'}'.repeat(FIVE_MB / 10)}`);

interface Held {
  req: ClientRequest;
  answer: Promise<{ res: IncomingMessage; body: string; uploadDone: boolean }>;
  finishUpload(): void;
}

/** A POST of `body` of which only `sent` bytes go out until `finishUpload`: the answer records whether the upload was done. */
function holdUpload(path: string, apiKey: string, body: Buffer, sent: number): Held {
  const url = new URL(server.url);
  let uploadDone = false;
  const req = request({
    host: url.hostname,
    port: url.port,
    path,
    method: 'POST',
    agent: false,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/fhir+json', 'content-length': body.length },
  });
  req.on('error', () => undefined);
  const answer = new Promise<{ res: IncomingMessage; body: string; uploadDone: boolean }>((resolve) =>
    req.on('response', (res) => {
      const done = uploadDone;
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ res, body: text, uploadDone: done }));
    }),
  );
  req.write(body.subarray(0, sent));
  return {
    req,
    answer,
    finishUpload() {
      uploadDone = true;
      req.end(body.subarray(sent));
    },
  };
}

/** Raw bytes to the server; the whole answer, once the server closes or ends it. */
function raw(text: string): Promise<string> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8').on('data', (d: string) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
}

const headersOf = (answer: string) =>
  Object.fromEntries(
    answer
      .split('\r\n\r\n')[0]!
      .split('\r\n')
      .slice(1)
      .map((l) => [l.split(':')[0]!.toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('tpa local serve: bodies nested too deep', () => {
  it('a 5 MB deeply nested body is refused 400 naming the depth before its upload completes, and another key is answered meanwhile', async () => {
    const other = await createKey(home.dir);
    // Four such bodies from one key, each with its first 256 KB sent and the rest held back.
    const held = Array.from({ length: 4 }, () => holdUpload('/tpa-api/v1/claims/submit/', key, deepBody, 256 * 1024));
    const health = await fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': other } });
    expect(health.status).toBe(200);
    const answers = await Promise.all(held.map((h) => h.answer));
    for (const h of held) h.finishUpload();
    for (const { res, body, uploadDone } of answers) {
      expect(uploadDone).toBe(false);
      expect(res.statusCode).toBe(400);
      expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(JSON.parse(body)).toEqual({ errors: [{ field: '', message: expect.stringMatching(/nested more than 64 levels deep/) }] });
    }
    // The connections and the server go on: the same key is answered next.
    expect((await fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('nesting within the limit, and brackets inside strings, are not counted against a body', async () => {
    const body = JSON.stringify({ npi: '1045782368', group_id: `GRP-1001${'[{'.repeat(200)}\\"[`, cpt_codes: ['45378'] });
    const res = await fetch(`${server.url}/tpa-api/v1/contract-lookup/blind/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body,
    });
    // A group that does not exist: the body was parsed and read, not refused for its depth.
    expect(res.status).not.toBe(500);
    expect(JSON.stringify(await res.json())).not.toMatch(/nested more than/);
  });
});

describe('tpa local serve: large bodies of one key', () => {
  it('a key with two bodies over 1 MiB in flight gets 429 with retry_after for a third; another key does not; the key may again once one ends', async () => {
    const own = await createKey(home.dir);
    const other = await createKey(home.dir);
    const large = Buffer.from(JSON.stringify({ npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378'], pad: 'x'.repeat(1536 * 1024) }));
    const url = new URL(server.url);
    // Two large bodies whose headers are sent and bodies held back. Each asks `Expect: 100-continue`:
    // node's server answers 100 Continue in the same turn as it hands the request to the handler,
    // which counts the declared length at once; once both have had their 100 both are counted.
    const held = Array.from({ length: 2 }, () => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: '/tpa-api/v1/contract-lookup/blind/',
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': own, 'content-type': 'application/json', 'content-length': large.length, expect: '100-continue' },
      });
      req.on('error', () => undefined);
      const admitted = new Promise<void>((resolve) => req.on('information', (info) => info.statusCode === 100 && resolve()));
      const answered = new Promise<number>((resolve) =>
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }),
      );
      req.flushHeaders();
      return { req, admitted, answered };
    });
    await Promise.all(held.map((h) => h.admitted));
    const post = (apiKey: string) =>
      fetch(`${server.url}/tpa-api/v1/contract-lookup/blind/`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: large,
      });
    const third = await post(own);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(await third.json()).toEqual({
      error: 'rate_limit_exceeded',
      message: expect.stringMatching(/2 request bodies over 1 MiB in flight/),
      retry_after: 1,
    });
    expect((await post(other)).status).not.toBe(429);
    // A small body of the same key is not held up by its large ones.
    const small = await fetch(`${server.url}/tpa-api/v1/contract-lookup/blind/`, {
      method: 'POST',
      headers: { 'x-api-key': own, 'content-type': 'application/json' },
      body: JSON.stringify({ npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378'] }),
    });
    expect(small.status).toBe(200);
    held[0]!.req.end(large);
    expect(await held[0]!.answered).not.toBe(429);
    expect((await post(own)).status).not.toBe(429);
    held[1]!.req.end(large);
    expect(await held[1]!.answered).not.toBe(429);
  });
});

describe('tpa local serve: requests the HTTP parser refuses', () => {
  it('an unknown method on a known route gets 405 with Allow, a JSON body and the X-RateLimit headers', async () => {
    const answer = await raw('FOO /tpa-api/v1/health HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    const headers = headersOf(answer);
    expect(headers.allow).toBe('GET, HEAD');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['x-request-id']).toMatch(/^req_/);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(headers[name], name).toMatch(/^\d+$/);
    expect(bodyOf(answer)).toEqual({ error: 'method_not_allowed', message: '/tpa-api/v1/health accepts GET, HEAD' });
  });

  it('CONNECT gets an answer like any method the service does not serve: 405 on a route, 400 for a tunnel target', async () => {
    const onRoute = await raw('CONNECT /tpa-api/v1/health HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(onRoute).toMatch(/^HTTP\/1\.1 405 /);
    expect(headersOf(onRoute).allow).toBe('GET, HEAD');
    expect(headersOf(onRoute)['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(bodyOf(onRoute)).toEqual({ error: 'method_not_allowed', message: '/tpa-api/v1/health accepts GET, HEAD' });
    const tunnel = await raw('CONNECT elsewhere.example:443 HTTP/1.1\r\nHost: elsewhere.example:443\r\n\r\n');
    expect(tunnel).toMatch(/^HTTP\/1\.1 400 /);
    expect(headersOf(tunnel)['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(bodyOf(tunnel)).toMatchObject({ error: 'bad_request' });
  });

  it('an unknown method elsewhere gets the JSON 404 of an unknown route', async () => {
    const answer = await raw('FOO /nothing?x=1 HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(headersOf(answer)['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(bodyOf(answer)).toMatchObject({ error: 'not_found', path: '/nothing' });
  });

  it('a malformed request line or header gets a JSON 400 with the X-RateLimit headers, and the server goes on', async () => {
    for (const text of [
      'GET\r\n\r\n',
      'G@T / HTTP/1.1\r\n\r\n',
      '\u001b]0;PWN\u0007 / HTTP/1.1\r\n\r\n',
      'GET /tpa-api/v1/health HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n',
    ]) {
      const answer = await raw(text);
      expect(answer, JSON.stringify(text)).toMatch(/^HTTP\/1\.1 400 /);
      const headers = headersOf(answer);
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      expect(headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(bodyOf(answer)).toEqual({ error: 'bad_request', message: expect.stringMatching(/not valid HTTP/) });
    }
    expect((await fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': key } })).status).toBe(200);
    // Logged as every answer is, with no byte of the refused request line.
    await server.settled();
    expect(server.stderr()).toMatch(/FOO \/tpa-api\/v1\/health 405/);
    expect(server.stderr()).not.toContain('PWN');
  });
});
