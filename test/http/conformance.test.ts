// Contract conformance (docs/api.md) over HTTP, against a real `tpa local serve` on 127.0.0.1:
// the limit headers on every answer, text limits counted in characters, HEAD as GET.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { tpa } from '../helpers/cli.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served;
let key: string;
let staging: string;

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir);
  key = await createKey(home.dir);
  staging = await createKey(home.dir, '--env', 'staging');
});
afterAll(async () => {
  await server.stop();
  home.remove();
});

interface Init {
  method?: string;
  key?: string | null;
  body?: unknown;
}
const call = (base: string, path: string, init: Init = {}) =>
  fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.key === null ? {} : { 'x-api-key': init.key ?? key }),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
const api = (path: string, init: Init = {}) => call(server.url, path, init);

const limits = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: Number(res.headers.get('x-ratelimit-reset')),
});
const WRONG_KEY = `sk_sand_${'x'.repeat(56)}`;
/** An emoji outside the Basic Multilingual Plane: one character, two UTF-16 code units. */
const EMOJI = '\u{1F600}';

describe('the X-RateLimit headers are on every answer (docs/api.md "Limits")', () => {
  it('a request without a valid key gets 401 with the limits of its address, counted down', async () => {
    const first = await api('/tpa-api/v1/health', { key: null });
    const second = await api('/tpa-api/v1/health', { key: WRONG_KEY });
    for (const res of [first, second]) {
      expect(res.status).toBe(401);
      expect(limits(res).limit).toBe('60');
      expect(limits(res).reset).toBeGreaterThan(Date.now() / 1000);
    }
    expect(Number(limits(second).remaining)).toBe(Number(limits(first).remaining) - 1);
  });

  it('an unknown route or method gets 404 or 405 with the limits of the key tier, or of the address without a key', async () => {
    const missing = await api('/tpa-api/v1/nothing/', { key: staging });
    expect(missing.status).toBe(404);
    expect(limits(missing)).toMatchObject({ limit: '200', remaining: '199' });
    const wrongMethod = await api('/tpa-api/v1/health', { method: 'DELETE', key: staging });
    expect(wrongMethod.status).toBe(405);
    expect(limits(wrongMethod)).toMatchObject({ limit: '200', remaining: '198' });
    // The sandbox tier is unlimited in the contract (docs/api.md): its nominal limit, in integers as on every answer.
    const sandbox = await api('/tpa-api/v1/nothing/');
    expect(limits(sandbox)).toMatchObject({ limit: '1000000', remaining: expect.stringMatching(/^9999\d\d$/) });
    expect(limits(sandbox).reset).toBeGreaterThan(Date.now() / 1000);
    // Without a key, the address's window; requests with a valid key do not use it up.
    const before = await api('/tpa-api/v1/nothing/', { key: null });
    expect(before.status).toBe(404);
    expect(limits(before).limit).toBe('60');
    await api('/tpa-api/v1/nothing/', { key: staging });
    const after = await api('/tpa-api/v1/health', { method: 'PUT', key: null });
    expect(after.status).toBe(405);
    expect(Number(limits(after).remaining)).toBe(Number(limits(before).remaining) - 1);
  });

  it('past 60 requests a minute without a valid key an address gets 429, while a valid key goes on', async () => {
    const other = tempDir();
    const s = await serve(other.dir);
    try {
      const own = await createKey(other.dir);
      for (let i = 1; i <= 60; i++) {
        const res = await call(s.url, i % 2 ? '/tpa-api/v1/health' : '/tpa-api/v1/nothing/', { key: i % 3 ? null : WRONG_KEY });
        expect(res.status).toBe(i % 2 ? 401 : 404);
        expect(limits(res).remaining).toBe(String(60 - i));
      }
      const refused = await call(s.url, '/tpa-api/v1/health', { key: WRONG_KEY });
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as { retry_after: number };
      expect(body).toEqual({ error: 'rate_limit_exceeded', message: expect.stringMatching(/60 requests per minute/), retry_after: expect.any(Number) });
      expect(refused.headers.get('retry-after')).toBe(String(body.retry_after));
      expect(limits(refused)).toMatchObject({ limit: '60', remaining: '0' });
      expect((await call(s.url, '/tpa-api/v1/health', { key: own })).status).toBe(200);
    } finally {
      await s.stop();
      other.remove();
    }
  });

  it('with --no-rate-limit every answer still carries the limit headers: the nominal 1,000,000 a minute, never counted down', async () => {
    const other = tempDir();
    const s = await serve(other.dir, ['--no-rate-limit']);
    try {
      const own = await createKey(other.dir, '--env', 'staging');
      const answers = [
        await call(s.url, '/tpa-api/v1/health', { key: null }),
        await call(s.url, '/tpa-api/v1/nowhere/', { key: own }),
        ...(await Promise.all(Array.from({ length: 12 }, () => call(s.url, '/tpa-api/v1/health', { key: own })))),
        await call(s.url, '/tpa-api/v1/funding/approve/', { key: own, method: 'POST', body: {} }),
      ];
      expect(answers.map((r) => r.status)).toEqual([401, 404, ...Array(12).fill(200), 400]);
      for (const res of answers) {
        expect(limits(res)).toMatchObject({ limit: '1000000', remaining: '1000000' });
        expect(limits(res).reset).toBeGreaterThan(Date.now() / 1000);
        expect(limits(res).reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
        expect(res.headers.get('ratelimit-policy')).toBe('1000000;w=60');
      }
      // A request Node's HTTP parser refuses is answered with them too.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(s.url).port), '127.0.0.1', () => socket.end('BREW /tpa-api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n'));
        let text = '';
        socket.setEncoding('utf8').on('data', (d: string) => (text += d));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(raw).toMatch(/\r\nx-ratelimit-limit: 1000000\r\n/i);
      expect(raw).toMatch(/\r\nx-ratelimit-remaining: 1000000\r\n/i);
      expect(raw).toMatch(/\r\nx-ratelimit-reset: \d+\r\n/i);
    } finally {
      await s.stop();
      other.remove();
    }
  });
});

describe('text limits count characters, not UTF-16 code units (docs/api.md "Limits")', () => {
  it('a funding notes of 500 emoji is accepted and one of 501 refused as 501 characters', async () => {
    const claim = (await tpa(['claim', 'template', '--type', 'institutional'], { home: home.dir })).stdout;
    const submitted = await api('/tpa-api/v1/claims/submit/', { method: 'POST', body: JSON.parse(claim) });
    expect(submitted.status).toBe(201);
    const ack = (await submitted.json()) as { submission_id: string; external_claim_id: string };
    const response = (await (await api(`/tpa-api/v1/claims/${ack.submission_id}/response/`)).json()) as { adjudication: { benefit_amount: number } };
    const approval = (notes: string) => ({
      encounter_id: ack.external_claim_id,
      amount: response.adjudication.benefit_amount,
      authorization_code: 'AUTH-20260302-ACME-0001',
      notes,
    });
    const refused = await api('/tpa-api/v1/funding/approve/', { method: 'POST', body: approval(EMOJI.repeat(501)) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: [{ field: 'notes', message: 'must be at most 500 characters (got 501)' }] });
    const accepted = await api('/tpa-api/v1/funding/approve/', { method: 'POST', body: approval(EMOJI.repeat(500)) });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ status: 'APPROVED' });
  });

  it('a rate schedule item notes of 500 emoji is accepted and one of 501 refused', async () => {
    const B = '/api/v1/computable-contracts/builder/BLD-1001/rate-schedule';
    expect((await api(`${B}/init/`, { method: 'POST', body: {} })).status).toBe(200);
    const catalog = (await (await api('/api/v1/ssp/catalog/?page_size=200')).json()) as { results: { id: string; code: string }[] };
    const ssp = catalog.results.find((s) => s.code === 'HD-0401')!;
    const item = (notes: string) => ({ ssp_id: ssp.id, rate_type: 'CASE_RATE', rate_value: 2100, notes });
    const refused = await api(`${B}/add-ssp/`, { method: 'PUT', body: item(EMOJI.repeat(501)) });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toMatch(/notes: must be text of at most 500 characters \(got 501\)/);
    expect((await api(`${B}/add-ssp/`, { method: 'PUT', body: item(EMOJI.repeat(500)) })).status).toBe(200);
  });
});

describe('HEAD is answered as GET without a body', () => {
  /** The headers that may differ between two answers to the same request. */
  const stable = (res: Response) => {
    const h = Object.fromEntries(res.headers);
    for (const k of ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'keep-alive', 'connection']) delete h[k];
    return h;
  };

  it('same status and headers as GET, the GET body length, no body: health, a cached list, a 404', async () => {
    for (const path of ['/tpa-api/v1/health', '/tpa-api/v1/health/', '/api/v1/ssp/catalog/?page_size=5', '/tpa-api/v1/ledger/entries/enc_none/']) {
      const get = await api(path);
      const text = await get.text();
      const head = await api(path, { method: 'HEAD' });
      expect(head.status, path).toBe(get.status);
      expect(stable(head), path).toEqual(stable(get));
      expect(head.headers.get('content-length'), path).toBe(String(Buffer.byteLength(text)));
      expect(head.headers.get('x-ratelimit-limit'), path).not.toBeNull();
      expect(await head.text(), path).toBe('');
    }
    const unauthorized = await api('/tpa-api/v1/health', { method: 'HEAD', key: null });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(unauthorized.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await unauthorized.text()).toBe('');
  });

  it('HEAD counts like GET, and a 405 lists HEAD beside GET in Allow', async () => {
    const own = await createKey(home.dir, '--env', 'staging');
    const seen: string[] = [];
    for (const method of ['GET', 'HEAD', 'GET', 'HEAD']) {
      const res = await api('/tpa-api/v1/ledger/entries/', { method, key: own });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      seen.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(seen).toEqual(['99', '98', '97', '96']);
    const post = await api('/tpa-api/v1/ledger/entries/', { method: 'POST', body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const rotate = await api('/tpa-api/v1/keys/rotate', { method: 'HEAD' });
    expect(rotate.status).toBe(405);
    expect(rotate.headers.get('allow')).toBe('POST');
    expect(await rotate.text()).toBe('');
  });
});
