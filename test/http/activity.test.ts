// `tpa activity` and --period over HTTP, against a real `tpa local serve` of the week of
// test/helpers/activity-week.ts: the same answers as in-process on the same data, and "yesterday"
// is the served engine's yesterday, not this machine's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeek, THU, type Week } from '../helpers/activity-week.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';

type Row = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let server: Served;
let week: Week;
const local = (args: string[]) => runTpa(args, { home: home.dir });
const remote = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_PROFILE: 'sandbox' } });

beforeAll(async () => {
  home = tempDir();
  week = await buildWeek(home.dir);
  // The stored engine clock, which the server and in-process commands share.
  expect((await local(['local', 'clock', 'set', THU])).code).toBe(0);
  server = await serve(home.dir);
  await login(home.dir, server.url);
});
afterAll(async () => {
  await server.stop();
  home.remove();
});

describe('tpa activity over HTTP', () => {
  it("--period yesterday is the served engine clock's Wednesday, the same answer as in-process", async () => {
    const r = await remote(['activity', '--period', 'yesterday', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const a = r.json<Row>();
    expect(a.span).toEqual({ from: '2026-03-04T00:00:00Z', to: '2026-03-05T00:00:00Z', as_of: THU });
    expect(Object.fromEntries(a.totals.map((t: Row) => [t.kind, t.count]))).toMatchObject({ funded: 2, refunded: 1, submitted: 0 });
    expect(a.events.find((e: Row) => e.kind === 'refunded').encounter_id).toBe(week.a);
    expect(a).toEqual((await local(['activity', '--period', 'yesterday', '-o', 'json'])).json<Row>());
  });

  it('every format, and --since, answer alike on both transports', async () => {
    for (const args of [
      ['activity', '--since', '2026-03-02', '-o', 'ndjson'],
      ['activity', '--since', 'yesterday', '-o', 'csv'],
      ['activity', '--period', 'this-week', '--totals', '-o', 'csv'],
      ['ledger', 'list', '--period', 'this-week', '--by', 'funded', '-o', 'json'],
      ['ledger', 'list', '--period', 'last-month', '-o', 'json'],
    ]) {
      const [l, r] = [await local(args), await remote(args)];
      expect([l.code, r.code], `${args.join(' ')}: ${r.stderr}`).toEqual([0, 0]);
      expect(r.stdout.length, args.join(' ')).toBeGreaterThan(40);
      // Page links name the server over HTTP and a path in-process.
      const unlinked = (text: string) => text.replace(/"(next|previous)": "[^"]*"/g, '"$1": "<link>"').replace(/http:\/\/127\.0\.0\.1:\d+/g, '');
      expect(unlinked(r.stdout), args.join(' ')).toBe(unlinked(l.stdout));
    }
    const table = await runTpa(['activity', '--since', '2026-03-02'], { home: home.dir, env: { TPA_PROFILE: 'sandbox' }, tty: true, columns: 80 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Activity since 2026-03-02');
  });
});
