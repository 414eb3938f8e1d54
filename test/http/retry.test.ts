// The retry rules over real HTTP (docs/client.md "Client behaviour"; docs/local.md "Sandbox triggers"): `tpa local serve`
// injects the faults TPA_FAULT names (a 5xx, a connection dropped before or after the work, a slow
// answer), and the CLI resends what is safe to resend and nothing else.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { login, serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served | undefined;
beforeEach(() => {
  home = tempDir();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  home.remove();
});

const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  runTpa(args, { home: home.dir, input, env: { TPA_PROFILE: 'sandbox', ...env } });
/** The server's access-log lines for a method and path part, as "METHOD path status", once the log holds every answer sent. */
async function served(part: string): Promise<string[]> {
  await server!.settled();
  return server!
    .stderr()
    .split('\n')
    .map((l) => /^\S+ (\S+ \S+ (?:\d{3}|connection dropped.*))/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined && l.includes(part));
}

async function start(fault: string, args: string[] = []): Promise<void> {
  server = await serve(home.dir, args, { TPA_FAULT: fault });
  await login(home.dir, server.url);
}

/** An adjudicated encounter (benefit 2,460.00), submitted over the wire. */
const encounter = async () => (await adjudicatedEncounter(run, home.dir)).id;

describe('over HTTP, the CLI resends what is safe to resend', () => {
  it('a read answered 503 is tried again and succeeds', async () => {
    await start('error-503*1:/ledger/entries/');
    const r = await run(['ledger', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/server error 503: waiting \d+\.\ds before trying again \(2 of 4\)/);
    expect(await served('/ledger/entries/')).toEqual(['GET /tpa-api/v1/ledger/entries/ 503', 'GET /tpa-api/v1/ledger/entries/ 200']);
  });

  it('a claim whose answer was lost after the work is sent again with the same Idempotency-Key: one claim', async () => {
    await start('lose-response*1:/claims/submit/');
    const claim = (await run(['claim', 'template'])).stdout;
    const r = await run(['claim', 'submit', '-', '--debug'], {}, claim);
    expect(r.code, r.stderr).toBe(0);
    const keys = [...r.stderr.matchAll(/→ POST \/tpa-api\/v1\/claims\/submit\/ \(Idempotency-Key: (\S+)\)/g)].map((m) => m[1]);
    expect(r.stderr).toMatch(/the connection was reset|socket hang up|ECONNRESET/i);
    expect(await served('/claims/submit/')).toEqual([
      'POST /tpa-api/v1/claims/submit/ connection dropped (TPA_FAULT lose-response)',
      'POST /tpa-api/v1/claims/submit/ 201',
    ]);
    // The client sends once per try, with one key; the engine answered the second from its record.
    expect(keys.length).toBe(1);
    expect((await run(['ledger', 'list'])).json<{ count: number }>().count).toBe(1);
  });

  it('a slow answer is waited for, not sent twice', async () => {
    await start('slow-1500*1:/ledger/entries/');
    const r = await run(['ledger', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(await served('/ledger/entries/')).toEqual(['GET /tpa-api/v1/ledger/entries/ 200']);
  });

  it('exits 6 after the retries when the limit does not reset (the window is on a frozen engine clock)', async () => {
    await runTpa(['local', 'clock', 'set', '2026-03-02T10:00:00Z'], { home: home.dir });
    await start('', ['--rate-window', '1s', '--rate-clock', 'engine']);
    const key = (await run(['auth', 'status'])).json<{ credential: { key: string } }>();
    expect(key.credential.key).toMatch(/^sk_sand_…/);
    const secret = (JSON.parse((await import('node:fs')).readFileSync(join(home.dir, 'credentials.json'), 'utf8')) as { secrets: { sandbox: string } }).secrets
      .sandbox;
    for (let i = 0; i < 100; i++) await fetch(`${server!.url}/tpa-api/v1/ledger/entries/`, { headers: { 'x-api-key': secret } });
    const r = await run(['ledger', 'list', '-o', 'table']);
    expect(r.code).toBe(6);
    expect(r.stderr.match(/rate limited: waiting/g)).toHaveLength(3);
    expect(r.stderr).toMatch(/Rate limit exceeded: 100 requests per second/);
  });
});

describe('over HTTP, a fund release is never resent', () => {
  it('after a 503 it is not resent: the ledger shows it did not happen (exit 8), and nothing was funded', async () => {
    await start('error-503*1:/funding/approve/');
    const id = await encounter();
    const r = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'A-503', '--yes']);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/did not happen: the ledger has no fund release/);
    expect(await served('/funding/approve/')).toEqual(['POST /tpa-api/v1/funding/approve/ 503']);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('after an answer lost once the work was done, it finds its own approval in the ledger (exit 0), one release', async () => {
    await start('lose-response*1:/funding/approve/');
    const id = await encounter();
    const r = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'A-LOST', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the approval did happen/);
    expect(await served('/funding/approve/')).toEqual(['POST /tpa-api/v1/funding/approve/ connection dropped (TPA_FAULT lose-response)']);
    const ledger = (await run(['ledger', 'show', id])).json<{ entries: { type: string; reference?: string }[] }>();
    expect(ledger.entries.filter((e) => e.type === 'FUNDING_APPROVED').map((e) => e.reference)).toEqual(['A-LOST']);
  });

  it('when the ledger holds another authorization code, it exits 4 naming it and releases nothing more', async () => {
    await start('approved-elsewhere*1:/funding/approve/');
    const id = await encounter();
    const r = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'A-MINE', '--yes']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/was funded by another approval \(authorization ELSEWHERE-A-MINE\), not by this request/);
    expect(await served('/funding/approve/')).toHaveLength(1);
    const ledger = (await run(['ledger', 'show', id])).json<{ entries: { type: string; reference?: string }[] }>();
    expect(ledger.entries.filter((e) => e.type === 'FUNDING_APPROVED').map((e) => e.reference)).toEqual(['ELSEWHERE-A-MINE']);
  });
});

describe('over TLS', () => {
  it('a certificate the client does not trust fails once, with no retry (exit 8)', async () => {
    const certs = tempDir();
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          'key.pem',
          '-out',
          'cert.pem',
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { cwd: certs.dir, stdio: 'ignore' },
      );
      server = await serve(home.dir, ['--tls-cert', join(certs.dir, 'cert.pem'), '--tls-key', join(certs.dir, 'key.pem')]);
      const key = (await runTpa(['local', 'keys', 'create'], { home: home.dir })).stdout.trim();
      writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ profiles: { tls: { env: 'sandbox', base_url: server.url } } }));
      const r = await runTpa(['ledger', 'list', '-p', 'tls', '--debug', '-o', 'table'], { home: home.dir, env: { TPA_API_KEY: key } });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/TLS certificate is not trusted/);
      expect(r.stderr.match(/\[debug\] GET https:\/\/127\.0\.0\.1:\d+\/tpa-api\/v1\/ledger\/entries\//g)).toHaveLength(1);
      expect(r.stderr).not.toMatch(/waiting/);
    } finally {
      certs.remove();
    }
  });
});
