// Events at "now" on a frozen engine clock (docs/periods.md "Where a span ends"): a claim submitted
// and funded at the instant the clock is held at is inside every span that runs to now, so `tpa
// activity` counts what `settlement report --by funded` and `ledger list --by funded` count, and
// advancing the clock by a second changes neither; a span cut at the event's instant counts it once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { formatCents } from '../../src/domain/money.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

type Row = Record<string, any>;
const NOW = '2026-03-02T10:00:00Z';
let home: ReturnType<typeof tempDir>;
let benefit = 0;

const tpa = async (args: string[]) => {
  const r = await runTpa(args, { home: home.dir });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
};
/** Each kind's count and amount in cents, from `activity -o json`. */
const activityFigures = async (args: string[]) => {
  const a = (await tpa(['activity', ...args, '-o', 'json'])).json<Row>();
  return Object.fromEntries((a.totals as Row[]).map((t) => [t.kind, { count: t.count as number, cents: cents(t.amount) }]));
};
/** What every figure of "today" says was funded: activity, the report by funded, the ledger by funded. */
const fundedToday = async () => {
  const report = (await tpa(['settlement', 'report', '--period', 'today', '--by', 'funded', '-o', 'json'])).json<Row>();
  const ledger = (await tpa(['ledger', 'list', '--period', 'today', '--by', 'funded', '-o', 'json'])).json<Row[]>();
  const activity = (await activityFigures(['--period', 'today'])).funded;
  return { activity, report: { count: report.encounters.count, cents: cents(report.money.released) }, ledger: ledger.length };
};

beforeAll(async () => {
  home = tempDir();
  await tpa(['local', 'clock', 'set', NOW]);
  const claim = claimTemplate({ type: 'institutional', npi: '1234567893', cpt: ['45380', '00811', '88305'], patient: 'MBR-1002', serviceDate: '2026-03-02' });
  writeFileSync(join(home.dir, 'a.json'), JSON.stringify(claim));
  const sent = (await tpa(['claim', 'submit', join(home.dir, 'a.json'), '--wait', '-o', 'json'])).json<Row>();
  benefit = cents(sent.adjudication.benefit_amount);
  expect(benefit).toBeGreaterThan(0);
  const id = sent.external_claim_id as string;
  await tpa(['fund', 'approve', id, '--amount', formatCents(benefit), '--auth-code', 'AUTH-20260302-ACME-0001', '--yes']);
});
afterAll(() => home.remove());

describe('events at now', () => {
  it('on a frozen clock, activity counts the approval made at now as the report and the ledger do; a second later, the same', async () => {
    const atNow = await fundedToday();
    expect(atNow).toEqual({ activity: { count: 1, cents: benefit }, report: { count: 1, cents: benefit }, ledger: 1 });
    const submitted = (await activityFigures(['--period', 'today'])).submitted;
    expect(submitted?.count).toBe(1);
    // The last minute, (now - 1m, now], holds them too.
    const lastMinute = await activityFigures(['--since', '1m']);
    expect(lastMinute.funded).toEqual(atNow.activity);
    await tpa(['local', 'clock', 'advance', '1s']);
    expect(await fundedToday()).toEqual(atNow);
    expect((await activityFigures(['--period', 'today'])).submitted).toEqual(submitted);
    expect((await activityFigures(['--since', '1m'])).funded).toEqual(lastMinute.funded);
  });

  it("a span cut at the events' instant counts each event once: [start, t) none, [t, now] all, and together the whole", async () => {
    const whole = await activityFigures(['--period', '2026-03-02']);
    const before = await activityFigures(['--from', '2026-03-02T00:00:00Z', '--to', NOW]);
    const after = await activityFigures(['--from', NOW]);
    const from = await activityFigures(['--from', NOW, '--to', '2026-03-03']);
    expect(whole.funded).toEqual({ count: 1, cents: benefit });
    for (const kind of Object.keys(whole)) {
      expect(before[kind]!.count, kind).toBe(0);
      expect(after[kind], kind).toEqual(whole[kind]);
      expect(from[kind], kind).toEqual(whole[kind]);
    }
  });
});

describe('fund history dates by this machine', () => {
  it("--from/--to select by this machine's day (the record's `at`), not the engine clock's; the ledger by funded has the service's day", async () => {
    const all = (await tpa(['fund', 'history', '-o', 'json'])).json<Row[]>();
    expect(all).toHaveLength(1);
    const machineDay = (all[0]!.at as string).slice(0, 10);
    const on = async (day: string) => (await tpa(['fund', 'history', '--from', day, '--to', day, '-o', 'json'])).json<Row[]>().length;
    expect(await on(machineDay)).toBe(1);
    // The engine's day of the release is 2026-03-02: the history holds it only when this machine's day is that too.
    expect(await on('2026-03-02')).toBe(machineDay === '2026-03-02' ? 1 : 0);
    expect((await tpa(['ledger', 'list', '--by', 'funded', '--period', '2026-03-02', '-o', 'json'])).json<Row[]>()).toHaveLength(1);
    // The help says whose clock the dates are.
    const help = (await tpa(['fund', 'history', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain("--from <date> sent on or after this day (YYYY-MM-DD, UTC) of this machine's clock");
    expect(help).toContain('`at` and --from/--to are the clock of this machine');
    // A day that is none is refused, exit 2, nothing listed.
    const bad = await runTpa(['fund', 'history', '--to', '2026-3-2'], { home: home.dir });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe('--to: "2026-3-2" is not a date (YYYY-MM-DD)');
    expect(bad.stdout).toBe('');
  });
});
