// What the README and docs/ promise over the wire and no test checked before: the staging tier's
// limits, and `auth rotate` when the key comes from TPA_API_KEY. A real `tpa local serve` on 127.0.0.1.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served;
beforeAll(async () => {
  home = tempDir();
  // Rate windows on the frozen engine clock: a window ends when a test moves the clock.
  await runTpa(['local', 'clock', 'set', '2026-03-02T10:00:00Z'], { home: home.dir });
  server = await serve(home.dir, ['--rate-clock', 'engine']);
});
afterAll(async () => {
  await server.stop();
  home.remove();
});

const health = (key: string) => fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': key } });

describe('the staging tier (docs/api.md "Limits")', () => {
  it('allows 200 requests a minute per key, then 429 naming the tier; a new window starts afresh', async () => {
    const key = await createKey(home.dir, '--env', 'staging');
    expect(key).toMatch(/^sk_stage_/);
    const first = await health(key);
    expect(first.status).toBe(200);
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['200', '199']);
    for (let i = 2; i <= 200; i++) expect((await health(key)).status, `request ${i}`).toBe(200);
    const refused = await health(key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/200 requests per minute for the tier/);
    await runTpa(['local', 'clock', 'advance', '61s'], { home: home.dir });
    expect((await health(key)).status).toBe(200);
  });

  it('allows 20 requests in flight per key (a sandbox key 10), the 21st is refused 429', async () => {
    const key = await createKey(home.dir, '--env', 'staging');
    const url = new URL(server.url);
    const body = JSON.stringify({ npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378'] });
    const path = '/tpa-api/v1/contract-lookup/blind/';
    const held = Array.from({ length: 20 }, () => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('error', () => undefined);
      req.write(body.slice(0, 5));
      return req;
    });
    const send = () => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
    // Until the server has the twenty in flight, one more is admitted; from then on it is refused.
    // However long the twenty take to arrive, the test's own timeout is the only bound.
    let extra = await send();
    while (extra.status !== 429) {
      expect(extra.status).toBe(200);
      extra = await send();
    }
    expect(extra.status).toBe(429);
    expect(((await extra.json()) as { message: string }).message).toMatch(/20 concurrent requests/);
    const statuses = await Promise.all(
      held.map(
        (req) =>
          new Promise<number>((resolve) => {
            req.on('response', (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
            req.end(body.slice(5));
          }),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});

describe('tpa auth rotate with TPA_API_KEY set', () => {
  it('prints the new key once on stdout and saves it nowhere; both keys work during the overlap', async () => {
    const old = await createKey(home.dir);
    const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '-p', 'envkey'], {
      home: home.dir,
      input: await createKey(home.dir),
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await runTpa(['auth', 'rotate', '-p', 'envkey'], { home: home.dir, env: { TPA_API_KEY: old } });
    expect(r.code, r.stderr).toBe(0);
    const fresh = /sk_sand_[A-Za-z0-9]{56}/.exec(r.stdout)?.[0];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(old);
    expect(r.stderr).not.toContain(fresh!);
    // Saved nowhere: the profile's own stored key is untouched and the new one is in no file.
    const stored = readFileSync(join(home.dir, 'credentials.json'), 'utf8');
    expect(stored).not.toContain(fresh!);
    expect((await health(fresh!)).status).toBe(200);
    expect((await health(old)).status).toBe(200);
  });
});
