// A payment run against a rate-limited `tpa local serve` (docs/jobs.md "Long jobs"): its progress
// line is the batch's, redrawn on each approval and while the funding route's window is waited out
// (a countdown), with the rate and time left by the server's limit (its headers), said once with
// its duration when the run starts sending; and a resumed run counts on from the approvals made
// before it.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { CTRL_C, ptyRun } from '../helpers/pty.js';
import { login, serve, type Served } from '../helpers/server.js';

type Row = Record<string, any>;

let home: ReturnType<typeof tempDir>;
let servers: Served[] = [];
beforeEach(() => {
  home = tempDir();
  servers = [];
});
afterEach(async () => {
  for (const s of servers) await s.stop();
  home.remove();
});

const env = { TPA_PROFILE: 'sandbox' };

/** `tpa local serve` on the home, and `n` claims adjudicated through it; the run's encounters (those with a benefit) and total. */
async function adjudicated(args: string[], n: number): Promise<{ server: Served; count: number; total: string }> {
  const server = await serve(home.dir, args);
  servers.push(server);
  await login(home.dir, server.url);
  writeFileSync(join(home.dir, 'claims.ndjson'), `${Array.from({ length: n }, (_, k) => JSON.stringify(distinctClaim(k))).join('\n')}\n`);
  const s = await runTpa(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson'], { home: home.dir, env });
  expect(s.code, s.stderr).toBe(0);
  const review = await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home: home.dir, env });
  expect(review.code, review.stderr).toBe(0);
  return { server, count: review.json<Row>().count, total: String(review.json<Row>().total) };
}

describe('tpa fund run under the funding route limit', () => {
  it("says the server's limit and the run's length once, draws the wait's countdown and the limit as the rate", async () => {
    // 10 approvals a second: more than 20 need three windows.
    const { count, total } = await adjudicated(['--rate-window', '1s'], 32);
    expect(count).toBeGreaterThan(20);
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-PACE', '--expect-total', total, '--yes'], {
      home: home.dir,
      env,
      tty: true,
      columns: 120,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/this key allows 10 approvals a second: about \d+s for the \d+ approvals left/g)).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`approving: .*\\d+ of ${count} approvals · 10/s limit`));
    expect(r.stderr).toMatch(new RegExp(`10 of ${count} approvals · 10/s limit · rate limited, resuming in \\ds · about \\ds left`));
    expect(r.stderr).toContain(`${count} of ${count} approvals`);
    // Drawn before the first answer, so that a wait for it (a 429's retry) is drawn in the line, not a note.
    expect(r.stderr).toContain(`approving: [....................] 0 of ${count} approvals`);
    expect(r.stderr).not.toMatch(/\/min|a minute/);
  });

  it('on a terminal at 80×24, the wait counts down; stopped there and resumed, the count goes on from the approvals before', async () => {
    // The contract's 10 approvals a minute: the eleventh waits for the next minute.
    const { server, count, total } = await adjudicated([], 25);
    expect(count).toBeGreaterThan(10);
    const port = new URL(server.url).port;
    const r = await ptyRun(
      ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-WAIT', '--expect-total', total, '--yes'],
      [{ expect: 'rate limited, resuming in', send: CTRL_C }, { expect: 'interrupted after' }],
      { home: home.dir, env, cols: 80, rows: 24 },
    );
    expect(r.exit_code, r.output).toBe(130);
    // Before the wait, the limit and how long the run takes under it were said.
    expect(r.output).toMatch(/this key allows 10 approvals a minute: about \S+ for the \d+ approvals left/);
    // The line at 80 columns keeps the count and the countdown (the limit and the time left give way).
    expect(r.raw).toMatch(new RegExp(`approving: 10 of ${count} approvals · rate limited, resuming in 1m0\\ds`));
    const journal = join(home.dir, 'journals', readdirSync(join(home.dir, 'journals')).find((f) => f.startsWith('fund-run-'))!);

    // A fresh window: the same server's database, served again on the same port.
    await server.stop();
    servers = [];
    servers.push(await serve(home.dir, ['--port', port]));
    const again = await runTpa(['fund', 'run', '--journal', journal, '--yes'], { home: home.dir, env, tty: true, columns: 80 });
    expect(again.code, again.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the line's escapes, taken out to read its words
    const text = again.stderr.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    const counts = [...text.matchAll(new RegExp(`(\\d+) of ${count} approvals`, 'g'))].map((m) => Number(m[1]));
    expect(counts.length).toBeGreaterThan(0);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(10);
    expect(text).toContain(`approving: [############........] 10 of ${count} approvals · (10 before)`);
    expect(text).toContain(`${count} of ${count} approvals · (10 before)`);
  });
});
