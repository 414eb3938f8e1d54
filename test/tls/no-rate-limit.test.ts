// `tpa local serve --no-rate-limit` as the mutual-TLS production server: its token endpoint and its
// routes answer with the X-RateLimit-* headers every answer carries (docs/api.md "Limits"), with
// the nominal limit of a server that enforces none.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCa } from '../helpers/certs.js';
import { tempDir } from '../helpers/engine.js';
import { serve, type Served } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const f = (name: string) => join(certs.dir, name);

beforeAll(async () => {
  certs = tempDir();
  home = tempDir();
  const ca = new TestCa(certs.dir);
  ca.server();
  ca.client('client');
  server = await serve(home.dir, ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem'), '--client-ca', f('ca.pem'), '--no-rate-limit']);
});
afterAll(async () => {
  await server?.stop();
  home?.remove();
  certs?.remove();
});

/** One request with the client certificate; its status and headers. */
function send(method: string, path: string, body?: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent: false,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
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
    req.end(body);
  });
}

describe('--no-rate-limit over mutual TLS', () => {
  it('the token endpoint and a route answer with the X-RateLimit headers, 1,000,000 a minute, never counted down', async () => {
    const token = JSON.stringify({ grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['ledger_access'] });
    const answers = [await send('POST', '/oauth2/token', token), await send('POST', '/oauth2/token', token), await send('GET', '/tpa-api/v1/health')];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401]);
    for (const a of answers) {
      expect(a.headers['x-ratelimit-limit']).toBe('1000000');
      expect(a.headers['x-ratelimit-remaining']).toBe('1000000');
      expect(Number(a.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    }
  });
});
