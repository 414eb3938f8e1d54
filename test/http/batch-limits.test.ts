// A claim batch with --wait against a rate-limited `tpa local serve` (docs/claim-batches.md "Claim
// batches"): the polls are paced by the poll route's own window as the submissions are by theirs, a
// 429 that still comes while polling is waited out (never exit 6), each claim is reported and
// counted once, the limit shown is the server's, and identical reruns move the same money.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/barrier.js';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa, tpa } from '../helpers/cli.js';
import { ptyRun, screenOf } from '../helpers/pty.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';
import { cents, ndjson } from '../helpers/values.js';

type Row = Record<string, any>;

const lines = (n: number, from = 0) => `${Array.from({ length: n }, (_, k) => JSON.stringify(distinctClaim(from + k))).join('\n')}\n`;

let homes: ReturnType<typeof tempDir>[] = [];
let servers: Served[] = [];
beforeEach(() => {
  homes = [];
  servers = [];
});
afterEach(async () => {
  for (const s of servers) await s.stop();
  for (const h of homes) h.remove();
});

/** A fresh home (its engine clock set first, when given) served by `tpa local serve` with these arguments, logged in as the sandbox profile. */
async function served(args: string[], clock?: string): Promise<{ dir: string; server: Served; key: string }> {
  const home = tempDir();
  homes.push(home);
  if (clock) await runTpa(['local', 'clock', 'set', clock], { home: home.dir });
  const server = await serve(home.dir, args);
  servers.push(server);
  return { dir: home.dir, server, key: await login(home.dir, server.url) };
}

const benefitOf = (rows: Row[]) => rows.reduce((sum, o) => sum + cents(o.adjudication.benefit_amount), 0);

/** The limits the progress line named ("100/s limit"), whatever their unit. */
const limitsShown = (text: string) => text.match(/[\d,]+\/\w+ limit/g) ?? [];

describe('claim submit --wait under a 1-second rate window (100 claims a second)', () => {
  it('finishes: every claim once, adjudicated, no 429 while submitting or polling, the same benefit in-process and on a fresh server', async () => {
    const N = 250;
    const { dir, server } = await served(['--rate-window', '1s']);
    writeFileSync(join(dir, 'claims.ndjson'), lines(N));
    const r = await runTpa(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson'], { home: dir, env: { TPA_PROFILE: 'sandbox' } });
    expect(r.code, r.stderr).toBe(0);
    const out = ndjson(r.stdout);
    expect(out).toHaveLength(N);
    expect(new Set(out.map((o) => o.source)).size).toBe(N);
    expect(out.every((o) => o.disposition === 'APPROVED')).toBe(true);
    await server.settled();
    // More than one window of each route was needed, and the service refused nothing.
    expect(server.stderr().match(/GET \/tpa-api\/v1\/claims\/\S+\/response\/ 200/g)!.length).toBeGreaterThanOrEqual(N);
    expect(server.stderr()).not.toMatch(/ 429 /);

    // The same claims in-process on a fresh database: the same money.
    const local = tempDir();
    homes.push(local);
    writeFileSync(join(local.dir, 'claims.ndjson'), lines(N));
    const l = await runTpa(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson'], { home: local.dir });
    expect(l.code, l.stderr).toBe(0);
    expect(benefitOf(ndjson(l.stdout))).toBe(benefitOf(out));
  });

  it('on a terminal, says the limit the server keeps (100 a second), not a minute', async () => {
    const { dir } = await served(['--rate-window', '1s']);
    writeFileSync(join(dir, 'claims.ndjson'), lines(250));
    const r = await runTpa(['claim', 'submit', 'claims.ndjson'], { home: dir, env: { TPA_PROFILE: 'sandbox' }, tty: true, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/this key allows 100 requests a second: about \d+s for 250 claims/);
    // The progress line names the limit once the batch goes faster than it, which a slow or loaded
    // machine may never do: whenever it names one, it is the server's, a second's.
    expect(limitsShown(r.stderr).every((l) => l === '100/s limit')).toBe(true);
    expect(r.stderr).not.toMatch(/\/min|a minute/);
  });
});

describe('on a real terminal, at 80×24 and 120×40', () => {
  it('the batch under a 1-second window says the limit in force and ends with the whole batch, once each, adding up', async () => {
    const { dir } = await served(['--rate-window', '1s']);
    for (const [i, { cols, rows }] of [
      { cols: 80, rows: 24 },
      { cols: 120, rows: 40 },
    ].entries()) {
      writeFileSync(join(dir, `claims-${cols}.ndjson`), lines(150, 1000 * (i + 1)));
      const r = await ptyRun(['claim', 'submit', `claims-${cols}.ndjson`, '--wait'], [{ expect: 'This run sent' }], {
        home: dir,
        cols,
        rows,
        env: { TPA_PROFILE: 'sandbox' },
      });
      expect(r.exit_code, r.output).toBe(0);
      const screen = await screenOf(r.raw, cols, rows);
      const text = screen.join('\n');
      expect(text).toMatch(/this key allows 100 requests a second/);
      expect(text).toMatch(/APPROVED\s*│\s*150/);
      expect(text).toMatch(/Total\s*│\s*150/);
      expect(text).toMatch(/This run sent 150\b/);
      expect(limitsShown(r.raw).every((l) => l === '100/s limit')).toBe(true);
      expect(r.raw).not.toMatch(/\/min/);
      for (const line of screen) expect(line.length, line).toBeLessThanOrEqual(cols);
    }
  });
});

describe('claim submit --wait when the poll route refuses (429), on the engine clock', () => {
  it('waits the refusals out and polls again, rather than stop with exit 6; the claims end adjudicated once the window ends', async () => {
    const { dir, server, key } = await served(['--rate-window', '1s', '--rate-clock', 'engine'], '2026-03-02T10:00:00Z');
    writeFileSync(join(dir, 'claims.ndjson'), lines(3));
    // The poll route's window spent: on the frozen engine clock it does not end until the test moves it.
    for (let i = 0; i < 100; i++) await fetch(`${server.url}/tpa-api/v1/claims/sub_none/response/`, { headers: { 'x-api-key': key } });
    let ended = false;
    // A process of its own: the clock is moved meanwhile (in-process runs take turns).
    const batch = tpa(['claim', 'submit', 'claims.ndjson', '--wait', '--concurrency', '1', '--timeout', '5m', '-o', 'ndjson'], {
      home: dir,
      env: { TPA_PROFILE: 'sandbox' },
      timeoutMs: 300_000,
    }).finally(() => {
      ended = true;
    });
    // More refusals than one request's retries (4 tries): the batch has gone on polling past them.
    const refused = () => server.stderr().match(/GET \/tpa-api\/v1\/claims\/sub_[^n]\S*\/response\/ 429/g)?.length ?? 0;
    await until(() => ended || refused() >= 6);
    const advanced = await runTpa(['local', 'clock', 'advance', '10s'], { home: dir });
    expect(advanced.code, advanced.stderr).toBe(0);
    const r = await batch;
    expect(r.code, r.stderr).toBe(0);
    expect(refused()).toBeGreaterThanOrEqual(6);
    expect(ndjson(r.stdout).map((o) => o.disposition)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
  });
});
