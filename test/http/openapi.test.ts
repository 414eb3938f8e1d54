// docs/openapi.yaml: served by `tpa local serve`, naming every route of the engine, and the checker
// the HTTP tests run every exchange through (test/helpers/openapi.ts) failing on what does not fit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/engine/routes.js';
import { type Exchange, startServer } from '../../src/server/server.js';
import { engineAt, tempDir } from '../helpers/engine.js';
import { Contract, mismatches, OPENAPI_FILE, type ObservedExchange } from '../helpers/openapi.js';
import { createKey, type Served, serve } from '../helpers/server.js';

const DOCUMENT = readFileSync(OPENAPI_FILE, 'utf8');

let home: ReturnType<typeof tempDir>;
let server: Served;
let key: string;

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir);
  key = await createKey(home.dir);
});
afterAll(async () => {
  await server.stop();
  home.remove();
});

describe('the document served', () => {
  it('local serve answers docs/openapi.yaml at /openapi.yaml as YAML, without credentials, with the limit headers', async () => {
    const res = await fetch(`${server.url}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(await res.text()).toBe(DOCUMENT);
    const head = await fetch(`${server.url}/openapi.yaml`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(DOCUMENT)));
    expect(await head.text()).toBe('');
  });

  it('another method on /openapi.yaml is 405 naming GET and HEAD', async () => {
    const res = await fetch(`${server.url}/openapi.yaml`, { method: 'POST', headers: { 'x-api-key': key }, body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(((await res.json()) as { error: string }).error).toBe('method_not_allowed');
  });

  it('the build puts the document beside the bundle, where an installed tpa reads it', () => {
    expect(readFileSync(new URL('../../dist/openapi.yaml', import.meta.url), 'utf8')).toBe(DOCUMENT);
  });
});

describe('the document and the route table', () => {
  const contract = Contract.load();

  it('every route the engine serves is an operation of the document', () => {
    const missing = ROUTES.filter((r) => {
      const path = contract.pathOf(r.path);
      return !path || !contract.document.paths[path][r.method.toLowerCase()];
    }).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('every operation of the document is a route of the engine, the token endpoint and the document itself aside', () => {
    const served = new Set(ROUTES.map((r) => `${r.method} ${contract.pathOf(r.path)}`));
    const documented = Object.entries(contract.document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((o) => !served.has(o))).toEqual(['POST /oauth2/token', 'GET /openapi.yaml']);
  });
});

describe('the checker', () => {
  /** A real exchange with the server, observed in this process (startServer's observer). */
  async function observedHealth(): Promise<ObservedExchange> {
    const dir = tempDir();
    const engine = engineAt(dir.dir, '2026-11-26T15:00:00Z');
    const seen: Exchange[] = [];
    const running = await startServer(engine, { host: '127.0.0.1', port: 0, limiter: null, log: () => {}, observe: (e) => seen.push(e) });
    try {
      const res = await fetch(`${running.url}/tpa-api/v1/health`, { headers: { 'x-api-key': await createKey(dir.dir) } });
      expect(res.status).toBe(200);
      // The observer is called as the answer is sent, before the client can have it.
      expect(seen).toHaveLength(1);
      return seen[0]!;
    } finally {
      await running.close();
      engine.close();
      dir.remove();
    }
  }

  it('a real answer fits, and the same answer with a field of the wrong type, a field missing or one undocumented does not', async () => {
    const contract = Contract.load();
    const exchange = await observedHealth();
    expect(exchange.route).toBe('/tpa-api/v1/health');
    expect(contract.check(exchange)).toEqual([]);
    const body = JSON.parse(exchange.responseBody);
    const wrong = (changed: Record<string, unknown>) => contract.check({ ...exchange, responseBody: JSON.stringify(changed) });
    expect(wrong({ ...body, scopes: 'contract_lookup' })).toEqual(['GET /tpa-api/v1/health → 200: body/scopes must be array']);
    const { time: _time, ...noTime } = body;
    expect(wrong(noTime)).toEqual(["GET /tpa-api/v1/health → 200: body must have required property 'time'"]);
    expect(wrong({ ...body, region: 'eu' })).toEqual(['GET /tpa-api/v1/health → 200: body must NOT have additional properties: region']);
    const { 'x-ratelimit-reset': _reset, ...headers } = exchange.responseHeaders;
    expect(contract.check({ ...exchange, responseHeaders: headers })).toEqual(['GET /tpa-api/v1/health → 200: the header X-RateLimit-Reset is missing']);
  });

  it('a document whose field has another type rejects the real answer', async () => {
    const exchange = await observedHealth();
    const changed = new Contract(DOCUMENT.replace('        time: { $ref: "#/components/schemas/Timestamp" }', '        time: { type: integer }'));
    expect(changed.check(exchange)).toEqual(['GET /tpa-api/v1/health → 200: body/time must be integer']);
  });

  it("tpa's client's requests are checked, the service's refusals of them aside; what is said names no value", () => {
    const contract = Contract.load();
    const request = (target: string, status: number, responseBody: string): ObservedExchange => ({
      method: 'GET',
      target,
      route: '/tpa-api/v1/ledger/entries/',
      requestHeaders: { 'user-agent': 'tpa-cli', 'x-api-key': 'sk_sand_secret' },
      requestBody: undefined,
      status,
      responseHeaders: {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '1796656767',
      },
      responseBody,
    });
    const page = JSON.stringify({ count: 0, next: null, previous: null, results: [] });
    const found = contract.check(request('/tpa-api/v1/ledger/entries/?limit=1000&sort=sk_sand_secret', 200, page));
    expect(found).toEqual([
      'GET /tpa-api/v1/ledger/entries/ → 200: request: query parameter limit must be <= 100',
      'GET /tpa-api/v1/ledger/entries/ → 200: request: the query parameter sort is not documented',
    ]);
    expect(found.join('\n')).not.toContain('secret');
    const refusal = JSON.stringify({ errors: [{ field: 'limit', message: 'must be at most 100' }] });
    expect(contract.check(request('/tpa-api/v1/ledger/entries/?limit=1000', 400, refusal))).toEqual([]);
  });

  it('a served child reports a mismatch on its stderr, and the test process collects it', async () => {
    const dir = tempDir();
    const broken = join(dir.dir, 'openapi.yaml');
    writeFileSync(broken, DOCUMENT.replace('        status: { const: ok }', '        status: { const: degraded }'));
    const child = await serve(dir.dir, [], { TPA_TEST_OPENAPI_FILE: broken });
    try {
      const res = await fetch(`${child.url}/tpa-api/v1/health`, { headers: { 'x-api-key': await createKey(dir.dir) } });
      expect(res.status).toBe(200);
      // The child writes a mismatch before its log line of the answer, which settled() waits for.
      await child.settled();
      // Collected, then cleared here: left, it would fail this test (test/helpers/openapi-setup.ts).
      expect(mismatches.splice(0)).toEqual(['GET /tpa-api/v1/health → 200: body/status must be equal to constant']);
    } finally {
      await child.stop();
      dir.remove();
    }
  });
});
