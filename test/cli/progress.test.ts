// The progress of long jobs on a real terminal, at 80×30 and 120×40: one line, redrawn in place,
// that stays on screen until the job ends; its rate and time left count only the work that costs
// time and follow the rate limit; a rate-limit wait is shown inside it, and a batch keeps fewer
// requests in flight than the window has left, so the service refuses none.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { tempDir } from '../helpers/engine.js';
import { CTRL_C, ptyRun, SIZES, screenAtStep, screenOf } from '../helpers/pty.js';
import { login, serve } from '../helpers/server.js';

const lines = (from: number, to: number) => `${Array.from({ length: to - from }, (_, k) => JSON.stringify(distinctClaim(from + k))).join('\n')}\n`;

/** Seconds in a duration as the line prints it: 42s, 3m05s, 19m, 1h05m. */
function secondsOf(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** The engine clock frozen ten minutes ahead of real time: a rate window (on the engine clock) then ends long after the test. */
function aheadOfNow(): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000 + 10 * 60_000).toISOString();
}

for (const { cols, rows } of SIZES) {
  describe(`a claim batch over HTTP under the rate limit, at ${cols}×${rows}`, () => {
    let home: { dir: string; remove: () => void };
    let server: Awaited<ReturnType<typeof serve>>;
    let file: string;
    beforeAll(async () => {
      home = tempDir();
      await runTpa(['local', 'clock', 'set', aheadOfNow()], { home: home.dir });
      server = await serve(home.dir, ['--rate-clock', 'engine']);
      await login(home.dir, server.url);
      file = join(home.dir, 'claims.ndjson');
      writeFileSync(file, lines(0, 250));
    });
    afterAll(async () => {
      await server.stop();
      home.remove();
    });
    const batch = (steps: Parameters<typeof ptyRun>[1]) =>
      ptyRun(['claim', 'submit', file], steps, { home: home.dir, cols, rows, env: { TPA_PROFILE: 'sandbox' } });
    const progressLines = (screen: string[]) => screen.filter((l) => /\d+ of 250 claims/.test(l));

    it('says the limit at the start, waits inside one progress line, and is never refused (no 429)', async () => {
      const r = await batch([{ expect: 'resuming in' }, { send: CTRL_C }, { expect: 'interrupted' }]);
      const screen = await screenAtStep(r, 0, cols, rows);
      const shown = progressLines(screen);
      expect(shown, screen.join('\n')).toHaveLength(1);
      expect(shown[0]).toContain('100 of 250 claims');
      expect(shown[0]).toContain('rate limited, resuming in');
      expect(screen.join('\n')).toMatch(/this key allows 100 requests a minute: about .+ for 250 claims/);
      // Redrawn, not printed again: the raw stream drew it more than once.
      expect(r.raw.slice(0, r.marks[0]).match(/of 250 claims/g)!.length).toBeGreaterThan(1);
      expect(r.output).not.toMatch(/rate limited: waiting/);
      await server.settled();
      expect(server.stderr()).not.toMatch(/claims\/submit\/ 429/);
      expect(server.stderr().match(/POST \/tpa-api\/v1\/claims\/submit\/ 201/g)).toHaveLength(100);
    });

    it('after a resume, the time left counts only the claims sent: at least the wait for the next window', async () => {
      await runTpa(['local', 'clock', 'advance', '60s'], { home: home.dir });
      const r = await batch([{ expect: 'resuming in' }, { send: CTRL_C }, { expect: 'interrupted' }]);
      const screen = await screenAtStep(r, 0, cols, rows);
      const shown = progressLines(screen);
      expect(shown, screen.join('\n')).toHaveLength(1);
      expect(shown[0]).toContain('200 of 250 claims');
      const wait = secondsOf(/resuming in (\S+)/.exec(shown[0]!)![1]!);
      const left = secondsOf(/about (\S+) left/.exec(shown[0]!)![1]!);
      expect(left).toBeGreaterThanOrEqual(wait);
    });

    it('the line stays on screen when the batch ends, above the summary', async () => {
      await runTpa(['local', 'clock', 'advance', '60s'], { home: home.dir });
      const r = await batch([{ expect: 'ACKNOWLEDGED' }]);
      expect(r.exit_code, r.output).toBe(0);
      const screen = await screenOf(r.raw, cols, rows);
      const shown = progressLines(screen);
      expect(shown, screen.join('\n')).toHaveLength(1);
      expect(shown[0]).toContain('250 of 250 claims');
      expect(shown[0]).toContain('200 skipped');
    });
  });
}

describe('the other long jobs draw one line, redrawn, with rate and time left', () => {
  let home: { dir: string; remove: () => void };
  /** An encounter funded, whose transfer never completes on the frozen clock. */
  let funded: string;
  beforeAll(async () => {
    home = tempDir();
    await runTpa(['local', 'clock', 'set', '2026-06-30T12:00:00Z'], { home: home.dir });
    const e = await adjudicatedEncounter((args, env) => runTpa(args, { home: home.dir, env }), home.dir);
    const approved = await runTpa(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-SHOW-0001', '--yes'], { home: home.dir });
    expect(approved.code, approved.stderr).toBe(0);
    funded = e.id;
    writeFileSync(join(home.dir, 'claims.ndjson'), lines(0, 250));
    const r = await runTpa(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson'], { home: home.dir });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => home.remove());

  for (const { cols, rows } of SIZES) {
    it(`fund run's selection, at ${cols}×${rows}: one "selecting" line with a rate, not one per page`, async () => {
      const r = await runTpa(['fund', 'run', '--dry-run'], { home: home.dir, tty: true, columns: cols });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/selecting: (\[[#.]+\] )?100 of 25\d adjudicated encounters.*\/(s|min)/);
      const screen = await screenOf(r.stderr, cols, rows);
      expect(screen.filter((l) => l.includes('selecting')).length, screen.join('\n')).toBeLessThanOrEqual(1);
      // Its review of each encounter's payouts is the same one line, with its rate.
      expect(r.stderr).toMatch(/reviewing: (\[[#.]+\] )?\d+ of \d+ encounters.*\/(s|min)/);
      expect(screen.filter((l) => l.includes('reviewing')).length, screen.join('\n')).toBeLessThanOrEqual(1);
    });

    it(`settlement report, at ${cols}×${rows}: one "reading the ledger" line`, async () => {
      const r = await runTpa(['settlement', 'report', '--from', '2026-01-01', '--to', '2026-06-30'], { home: home.dir, tty: true, columns: cols });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/reading the ledger: (\[[#.]+\] )?100 of 25\d/);
      const screen = await screenOf(r.stderr, cols, rows);
      expect(screen.filter((l) => l.includes('reading the ledger')).length, screen.join('\n')).toBeLessThanOrEqual(1);
    });

    it(`claim submit --wait, at ${cols}×${rows}: one waiting line, redrawn, without "0ms elapsed"`, async () => {
      const claim = join(home.dir, `one-${cols}.json`);
      writeFileSync(claim, JSON.stringify(distinctClaim(1000 + cols)));
      const r = await ptyRun(
        ['claim', 'submit', claim, '--wait'],
        [{ expect: 'waiting for adjudication' }, { expect: 'waiting for adjudication' }, { send: CTRL_C }],
        {
          home: home.dir,
          cols,
          rows,
          env: { TPA_ADJUDICATION_DELAY: '1h' },
        },
      );
      const screen = await screenAtStep(r, 1, cols, rows);
      expect(
        screen.filter((l) => l.includes('waiting for adjudication')),
        screen.join('\n'),
      ).toHaveLength(1);
      expect(r.output).not.toMatch(/0ms elapsed/);
    });

    it(`settlement show --wait, at ${cols}×${rows}: one line with its countdown, redrawn`, async () => {
      // The clock is frozen: the transfer never completes, and the command waits until Ctrl-C.
      const r = await ptyRun(['settlement', 'show', funded, '--wait'], [{ expect: 'checking again in' }, { expect: 'checking again in' }, { send: CTRL_C }], {
        home: home.dir,
        cols,
        rows,
      });
      const screen = await screenAtStep(r, 1, cols, rows);
      expect(
        screen.filter((l) => l.includes('checking again in')),
        screen.join('\n'),
      ).toHaveLength(1);
    });
  }
});
