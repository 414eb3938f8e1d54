// --period and --by on ledger list, settlement report and fund run (docs/periods.md), on the week of
// test/helpers/activity-week.ts: a named period is the same selection as its --from/--to, a period
// that follows today follows the engine clock, and --by counts the date funded or settled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeek, THU, type Week } from '../helpers/activity-week.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

type Row = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let week: Week;
const at = (clock: string, args: string[]) => runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock } });
const ids = (rows: Row[]) => rows.map((r) => r.encounter_id as string).sort();

beforeAll(async () => {
  home = tempDir();
  week = await buildWeek(home.dir);
});
afterAll(() => home.remove());

describe('--period', () => {
  it('ledger list --period 2026-02 and --period last-month (on the engine clock) select what --from/--to select', async () => {
    const dated = await at(THU, ['ledger', 'list', '--from', '2026-02-01', '--to', '2026-02-28', '--all', '-o', 'json']);
    expect(dated.code, dated.stderr).toBe(0);
    expect(dated.json<Row[]>()).toHaveLength(5);
    for (const period of ['2026-02', 'last-month']) {
      const r = await at(THU, ['ledger', 'list', '--period', period, '--all', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(ids(r.json<Row[]>()), period).toEqual(ids(dated.json<Row[]>()));
    }
    // (last-month is February because the engine clock says March: by this machine's clock it would not be.)
  });

  it('settlement report and fund run take --period as their --from/--to', async () => {
    const byDates = (await at(THU, ['settlement', 'report', '--from', '2026-02-01', '--to', '2026-02-28', '-o', 'json'])).json<Row>();
    const byPeriod = await at(THU, ['settlement', 'report', '--period', 'last-month', '-o', 'json']);
    expect(byPeriod.code, byPeriod.stderr).toBe(0);
    expect(byPeriod.json<Row>().period).toEqual({ from: '2026-02-01', to: '2026-02-28', by: 'service', provider_npi: null });
    expect(byPeriod.json<Row>().encounters).toEqual(byDates.encounters);
    const run = await at(THU, ['fund', 'run', '--period', '2026-02', '--dry-run', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const runDates = (await at(THU, ['fund', 'run', '--from', '2026-02-01', '--to', '2026-02-28', '--dry-run', '-o', 'json'])).json<Row>();
    expect(run.json<Row>().count).toBe(runDates.count);
    // Only the refunded encounter is owed again in February.
    expect(run.json<Row>().encounters.map((e: Row) => e.encounter_id)).toEqual([week.a]);
  });

  it("ledger list --by funded -o csv has the ledger list's columns, its header even when nothing matches", async () => {
    const page = await at(THU, ['ledger', 'list', '--limit', '1', '-o', 'csv']);
    const header = page.stdout.split('\n')[0]!;
    expect(header).toContain('status_at');
    const none = await at(THU, ['ledger', 'list', '--period', '2020-01', '--by', 'funded', '-o', 'csv']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(`${header}\n`);
    const some = await at(THU, ['ledger', 'list', '--period', 'this-month', '--by', 'funded', '-o', 'csv']);
    expect(some.stdout.split('\n')[0]).toBe(header);
    expect(some.stdout).not.toContain('status_progression');
  });

  it('--period with --from or --to, a period that is none, and --by or --lookback out of place exit 2', async () => {
    for (const command of [
      ['ledger', 'list'],
      ['settlement', 'report'],
      ['fund', 'run', '--dry-run'],
    ]) {
      const both = await at(THU, [...command, '--period', 'last-month', '--from', '2026-02-01']);
      expect(both.code, command.join(' ')).toBe(2);
      expect(both.stderr).toContain('either --period or --from/--to');
      const bad = await at(THU, [...command, '--period', '2026-02-30']);
      expect(bad.code, command.join(' ')).toBe(2);
      expect(bad.stderr, command.join(' ')).toMatch(/--period: \\?"2026-02-30\\?" is not a period/);
    }
    for (const args of [
      ['ledger', 'list', '--by', 'paid', '--period', 'last-month'],
      ['ledger', 'list', '--by', 'funded'],
      ['ledger', 'list', '--period', 'last-month', '--lookback', '30'],
      ['ledger', 'list', '--by', 'funded', '--period', 'this-week', '--limit', '5'],
      ['settlement', 'report', '--period', 'last-month', '--by', 'settled', '--lookback', 'soon'],
    ]) {
      const r = await at(THU, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/--by|--lookback|--limit/);
    }
  });
});

describe('--by funded and --by settled', () => {
  it('ledger list lists the encounters funded, or settled, in the period, whatever their service date', async () => {
    const funded = await at(THU, ['ledger', 'list', '--period', 'this-week', '--by', 'funded', '-o', 'json']);
    expect(funded.code, funded.stderr).toBe(0);
    expect(ids(funded.json<Row[]>())).toEqual([week.a, week.b, week.c].sort());
    expect(ids((await at(THU, ['ledger', 'list', '--period', '2026-03-04', '--by', 'funded', '-o', 'json'])).json<Row[]>())).toEqual([week.b, week.c].sort());
    expect(ids((await at(THU, ['ledger', 'list', '--period', 'this-week', '--by', 'settled', '-o', 'json'])).json<Row[]>())).toEqual([week.a]);
    // By service date, this week holds no encounter at all.
    expect((await at(THU, ['ledger', 'list', '--period', 'this-week', '-o', 'json'])).json<Row>().count).toBe(0);
  });

  it('ledger list --by funded --lookback counts what it left out among the entries --status keeps, not every one', async () => {
    const args = ['ledger', 'list', '--period', 'this-week', '--by', 'funded', '--lookback', '30', '-o', 'json'];
    const any = await at(THU, args);
    expect(any.code, any.stderr).toBe(0);
    // The claim for a service of 2025-11-20 lies before the 30 days read: left out, and said.
    expect(any.stderr).toMatch(/partial read \(--lookback 30\): 1 entry of service dates before/);
    // No denied entry was left out: nothing to warn of.
    const denied = await at(THU, [...args, '--status', 'DENIED']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stderr).not.toMatch(/partial read/);
  });

  it('settlement report --by funded covers the encounters funded in the period', async () => {
    const r = await at(THU, ['settlement', 'report', '--period', '2026-03-04', '--by', 'funded', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json<Row>();
    expect(report.period).toMatchObject({ from: '2026-03-04', to: '2026-03-04', by: 'funded' });
    expect(report.encounters.count).toBe(2);
  });
});
