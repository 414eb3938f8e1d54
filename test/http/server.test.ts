import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { tpa } from '../helpers/cli.js';
import { createKey, serve, type Served, type ServedHome, useServedHome } from '../helpers/server.js';
import { until } from '../helpers/barrier.js';

let home: ServedHome['home'];
let server: Served;
let key: string;
useServedHome(beforeAll, afterAll, (s) => void ({ home, server, key } = s));

const api = (path: string, init: { method?: string; key?: string | null; body?: string; type?: string } = {}) =>
  fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.key === null ? {} : { 'x-api-key': init.key ?? key }),
      ...(init.body !== undefined ? { 'content-type': init.type ?? 'application/json' } : {}),
    },
    body: init.body,
  });
const BLIND = '/tpa-api/v1/contract-lookup/blind/';
const blindBody = JSON.stringify({ npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378'] });

describe('tpa local serve: authentication and scopes', () => {
  it('listens on 127.0.0.1 and prints where', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 401 invalid_api_key without a key or with an unknown one', async () => {
    for (const k of [null, `sk_sand_${'x'.repeat(56)}`]) {
      const res = await api('/tpa-api/v1/health', { key: k });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'invalid_api_key', message: expect.any(String), documentation: expect.stringMatching(/^https:\/\//) });
    }
  });

  it('answers 403 insufficient_scope naming the scope needed and the scopes held', async () => {
    const narrow = await createKey(home.dir, '--scopes', 'contract_lookup');
    expect((await api(BLIND, { method: 'POST', key: narrow, body: blindBody })).status).toBe(200);
    const res = await api('/tpa-api/v1/ledger/entries/', { key: narrow });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'insufficient_scope',
      message: expect.any(String),
      required_scope: 'ledger_access',
      current_scopes: ['contract_lookup'],
    });
    // Builder routes need a valid key but no scope.
    expect((await api('/api/v1/ssp/catalog/', { key: narrow })).status).toBe(200);
  });

  it('health, keys and rotation: the old key works for 24 hours on the engine clock, then not', async () => {
    const own = await createKey(home.dir, '--scopes', 'ledger_access');
    const health = (await (await api('/tpa-api/v1/health', { key: own })).json()) as { key_id: string; time: string };
    expect(health).toMatchObject({
      status: 'ok',
      environment: 'sandbox',
      key_id: expect.stringMatching(/^key_/),
      scopes: ['ledger_access'],
      time: expect.any(String),
    });
    const keys = (await (await api('/tpa-api/v1/keys', { key: own })).json()) as { keys: Record<string, unknown>[] };
    expect(keys.keys.find((k) => k.id === health.key_id)).toEqual({
      id: health.key_id,
      prefix: 'sk_sand_',
      last4: own.slice(-4),
      scopes: ['ledger_access'],
      created_at: expect.any(String),
      expires_at: null,
    });
    expect(JSON.stringify(keys)).not.toContain(own);
    const rotated = (await (await api('/tpa-api/v1/keys/rotate', { method: 'POST', key: own, body: '{}' })).json()) as {
      api_key: string;
      key_id: string;
      previous_key_expires_at: string;
    };
    expect(rotated.api_key).toMatch(/^sk_sand_[A-Za-z0-9]{56}$/);
    expect(Date.parse(rotated.previous_key_expires_at) - Date.parse(health.time)).toBeGreaterThanOrEqual(24 * 3_600_000 - 5000);
    expect((await api('/tpa-api/v1/health', { key: own })).status).toBe(200);
    expect((await api('/tpa-api/v1/health', { key: rotated.api_key })).status).toBe(200);
    // The clock is shared by the file's tests: put back whatever happens.
    try {
      await tpa(['local', 'clock', 'advance', '25h'], { home: home.dir });
      expect((await api('/tpa-api/v1/health', { key: own })).status).toBe(401);
      expect((await api('/tpa-api/v1/health', { key: rotated.api_key })).status).toBe(200);
    } finally {
      await tpa(['local', 'clock', 'real'], { home: home.dir });
    }
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const { openDatabase } = await import('../../src/engine/store/db.js');
    const db = openDatabase(`${home.dir}/local.sqlite`);
    const rows = db.prepare('SELECT * FROM api_keys').all();
    db.close();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(rows)).toContain((await import('node:crypto')).createHash('sha256').update(key).digest('hex'));
  });
});

describe('tpa local serve: limits and robustness', () => {
  it('puts X-RateLimit headers on every answer to a valid key, and refuses the 11th approval in a minute with 429', async () => {
    const own = await createKey(home.dir);
    const approve = () =>
      api('/tpa-api/v1/funding/approve/', { method: 'POST', key: own, body: JSON.stringify({ encounter_id: 'enc_none', amount: 1, authorization_code: 'A' }) });
    for (let i = 1; i <= 10; i++) {
      const res = await approve();
      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(10 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    const refused = await approve();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { retry_after: number };
    expect(body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), retry_after: expect.any(Number) });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(body.retry_after).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(body.retry_after));
    // Other endpoints of the same key are not affected.
    expect((await api(BLIND, { method: 'POST', key: own, body: blindBody })).status).toBe(200);
  });

  it('refuses more than 10 requests in flight for one sandbox key with 429', async () => {
    const own = await createKey(home.dir);
    const url = new URL(server.url);
    // Ten requests that send their headers and hold their bodies back. Each asks `Expect:
    // 100-continue`: node's server answers 100 Continue in the same turn as it hands the request to
    // the handler, which admits it, so once all ten have had their 100 the ten are counted in flight.
    const held = Array.from({ length: 10 }, () => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: BLIND,
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': own, 'content-type': 'application/json', 'content-length': Buffer.byteLength(blindBody), expect: '100-continue' },
      });
      req.on('error', () => undefined);
      const admitted = new Promise<void>((resolve) => req.on('information', (info) => info.statusCode === 100 && resolve()));
      req.flushHeaders();
      return { req, admitted };
    });
    await Promise.all(held.map((h) => h.admitted));
    const eleventh = await api(BLIND, { method: 'POST', key: own, body: blindBody });
    expect(eleventh.status).toBe(429);
    const statuses = await Promise.all(
      held.map(
        ({ req }) =>
          new Promise<number>((resolve) => {
            req.on('response', (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
            req.end(blindBody);
          }),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await api(BLIND, { method: 'POST', key: own, body: blindBody })).status).toBe(200);
  });

  it('answers JSON 404 for an unknown route, 413 for a body over the limit, 415 for a body that is not JSON', async () => {
    const missing = await api('/tpa-api/v1/nothing/');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    const big = await api(BLIND, { method: 'POST', body: `{"pad":"${'x'.repeat(7 * 1024 * 1024)}"}` });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'payload_too_large' });
    const xml = await api(BLIND, { method: 'POST', body: '<npi/>', type: 'application/xml' });
    expect(xml.status).toBe(415);
  });

  it('takes claims as application/fhir+json and application/json', async () => {
    const claim = (await tpa(['claim', 'template', '--patient', 'MBR-1004'], { home: home.dir })).stdout;
    for (const type of ['application/fhir+json', 'application/json']) {
      const res = await api('/tpa-api/v1/claims/submit/', { method: 'POST', body: claim.replace('"created"', `"id": "${type}", "created"`), type });
      expect([201], type).toContain(res.status);
    }
  });

  it('keeps serving through a flood of malformed bodies', async () => {
    const flood = await Promise.all(
      Array.from({ length: 200 }, (_, i) => api(BLIND, { method: 'POST', key: undefined, body: i % 2 ? '{"npi":' : 'not json at all' }).then((r) => r.status)),
    );
    expect(new Set(flood)).toEqual(new Set([400]));
    const ok = await api(BLIND, { method: 'POST', body: blindBody });
    expect(ok.status).toBe(200);
  });

  it('logs one line per request on stderr, never the key', async () => {
    const lines = () => (server.stderr().match(/GET \/tpa-api\/v1\/health 200 [\d.]+ms/g) ?? []).length;
    const before = lines();
    expect((await api('/tpa-api/v1/health')).status).toBe(200);
    // The server writes the line once the answer is sent, which may be after it arrives here.
    await until(() => lines() > before);
    expect(lines()).toBe(before + 1);
    expect(server.stderr()).not.toContain(key);
  });
});

describe('tpa local serve: what the review found', () => {
  it('a request line that is not a URL gets 400 and the server keeps serving', async () => {
    const { connect } = await import('node:net');
    const url = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('GET http://[x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await api('/tpa-api/v1/health')).status).toBe(200);
  });

  it('a rotated key cannot rotate again, and the new key inherits the rate-limit windows', async () => {
    const own = await createKey(home.dir);
    const approve = (k: string) =>
      api('/tpa-api/v1/funding/approve/', { method: 'POST', key: k, body: JSON.stringify({ encounter_id: 'enc_none', amount: 1, authorization_code: 'A' }) });
    for (let i = 0; i < 10; i++) await approve(own);
    expect((await approve(own)).status).toBe(429);
    const rotated = (await (await api('/tpa-api/v1/keys/rotate', { method: 'POST', key: own, body: '{}' })).json()) as { api_key: string };
    expect((await approve(rotated.api_key)).status).toBe(429);
    const again = await api('/tpa-api/v1/keys/rotate', { method: 'POST', key: own, body: '{}' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'key_already_rotated' });
  });

  it('page links use the scheme the server serves, whatever X-Forwarded-Proto a client sends', async () => {
    const spoofed = await fetch(`${server.url}/api/v1/ssp/catalog/`, { headers: { 'x-api-key': key, 'x-forwarded-proto': 'javascript:alert(1)//' } });
    expect(((await spoofed.json()) as { next: string }).next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/ssp\/catalog\/\?page=2/);
    const plain = (await (await api('/api/v1/ssp/catalog/')).json()) as { next: string };
    expect(plain.next).toMatch(/^http:\/\/127\.0\.0\.1/);
  });
});

describe('tpa local serve: lifecycle', () => {
  it('stops cleanly on SIGTERM with exit 0', async () => {
    const other = tempDir();
    const s = await serve(other.dir);
    expect((await fetch(`${s.url}/tpa-api/v1/health`)).status).toBe(401);
    expect(await s.stop()).toBe(0);
    other.remove();
  });

  it('says when the port is taken', async () => {
    // Another data directory: the server's own is held by it (one server per data directory).
    const other = tempDir();
    const port = new URL(server.url).port;
    const r = await tpa(['local', 'serve', '--port', port], { home: other.dir });
    other.remove();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/port \d+ is in use/);
  });
});
