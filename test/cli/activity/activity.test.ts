// `tpa activity` in-process on the embedded engine, over a week built through the real CLI (Monday's
// claims and approvals, Tuesday's failed and arrived transfers, Wednesday's refund and approvals):
// what each span holds, by kind, in every format; the span options and their conflicts; the
// lookback that bounds the service dates read.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { buildWeek, OLD_SERVICE, THU, type Week } from '../../helpers/activity-week.js';
import { cents, ndjson } from '../../helpers/values.js';

type Row = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let week: Week;
const at = (clock: string, args: string[]) => runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock } });

/** The count of each kind in a JSON answer. */
const counts = (r: Row) => Object.fromEntries((r.totals as Row[]).map((t) => [t.kind, t.count]));

beforeAll(async () => {
  home = tempDir();
  week = await buildWeek(home.dir);
});
afterAll(() => home.remove());

describe('tpa activity', () => {
  it("--period yesterday on Thursday is Wednesday's refund and two approvals, with their amounts", async () => {
    const r = await at(THU, ['activity', '--period', 'yesterday', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const a = r.json<Row>();
    expect(a.span).toEqual({ from: '2026-03-04T00:00:00Z', to: '2026-03-05T00:00:00Z', as_of: THU });
    expect(counts(a)).toEqual({ submitted: 0, adjudicated: 0, pended: 0, denied: 0, funded: 2, settled: 0, failed: 0, refunded: 1, superseded: 0, voided: 0 });
    const funded = a.events
      .filter((e: Row) => e.kind === 'funded')
      .map((e: Row) => e.encounter_id)
      .sort();
    expect(funded).toEqual([week.b, week.c].sort());
    expect(a.events.find((e: Row) => e.kind === 'refunded').encounter_id).toBe(week.a);
    // Each kind's amount is the sum of its events', to the cent.
    for (const t of a.totals as Row[]) {
      const sum = (a.events as Row[]).filter((e) => e.kind === t.kind).reduce((s, e) => s + cents(e.amount), 0);
      expect(cents(t.amount), t.kind).toBe(sum);
    }
    expect(cents(a.totals.find((t: Row) => t.kind === 'funded').amount)).toBe(week.benefit[week.b]! + week.benefit[week.c]!);
  });

  it('--since yesterday runs to now; --since a date, --from/--to and a duration name their spans', async () => {
    const since = (await at(THU, ['activity', '--since', 'yesterday', '-o', 'json'])).json<Row>();
    expect(since.span.from).toBe('2026-03-04T00:00:00Z');
    expect(counts(since).funded).toBe(2);
    // The claim for a service of 2025-11-20, sent on Monday, is read too: the read is complete by default.
    const all = (await at(THU, ['activity', '--since', '2026-03-02', '-o', 'json'])).json<Row>();
    expect(counts(all)).toEqual({
      submitted: 6,
      adjudicated: 4,
      pended: 1,
      denied: 1,
      funded: 4,
      settled: 1,
      failed: 1,
      refunded: 1,
      superseded: 0,
      voided: 0,
    });
    // Tuesday alone: the failure, and the arrival of Monday's first transfer.
    const tue = (await at(THU, ['activity', '--from', '2026-03-03', '--to', '2026-03-03', '-o', 'json'])).json<Row>();
    expect(counts(tue)).toEqual({
      submitted: 0,
      adjudicated: 0,
      pended: 0,
      denied: 0,
      funded: 0,
      settled: 1,
      failed: 1,
      refunded: 0,
      superseded: 0,
      voided: 0,
    });
    expect(tue.events.find((e: Row) => e.kind === 'failed').encounter_id).toBe(week.b);
    expect(tue.events.find((e: Row) => e.kind === 'settled').encounter_id).toBe(week.a);
    // The last 24 hours until Thursday 09:00, now included, start just after Wednesday 09:00: the same as yesterday's.
    const day = (await at(THU, ['activity', '--since', '24h', '-o', 'json'])).json<Row>();
    expect(day.span).toEqual({ from: '2026-03-04T09:00:00.001Z', to: '2026-03-05T09:00:00.001Z', as_of: THU });
    expect(counts(day)).toEqual(counts(since));
    // A date-time: Monday's approvals at 11:00 and what followed, not the claims at 10:00.
    const later = (await at(THU, ['activity', '--since', '2026-03-02T10:30:00Z', '-o', 'json'])).json<Row>();
    expect(counts(later).submitted).toBe(0);
    expect(counts(later).funded).toBe(4);
    // Without an option: the last 24 hours.
    expect((await at(THU, ['activity', '-o', 'json'])).json<Row>().span.from).toBe('2026-03-04T09:00:00.001Z');
  });

  it('a span that would end after now holds now: it ends at the instant after "as of", in json; "to now" on the table', async () => {
    for (const args of [
      ['--period', 'today'],
      ['--period', 'this-month'],
      ['--from', '2026-03-05', '--to', '2026-03-05'],
      ['--from', '2026-03-05T00:00:00Z', '--to', '2026-03-06T00:00:00Z'],
      ['--since', 'yesterday'],
    ]) {
      const a = (await at(THU, ['activity', ...args, '-o', 'json'])).json<Row>();
      expect([a.span.to, a.span.as_of], args.join(' ')).toEqual(['2026-03-05T09:00:00.001Z', THU]);
      const table = await at(THU, ['activity', ...args, '-o', 'table']);
      expect(table.stdout, args.join(' ')).toContain(`to now (UTC), as of ${THU}`);
    }
    // A --to at now exactly is an end like any other, exclusive: the span stops before now.
    const toNow = (await at(THU, ['activity', '--from', '2026-03-05T00:00:00Z', '--to', THU, '-o', 'json'])).json<Row>();
    expect(toNow.span.to).toBe(THU);
    // Yesterday is over: it ends at its midnight, before now.
    expect((await at(THU, ['activity', '--period', 'yesterday', '-o', 'json'])).json<Row>().span.to).toBe('2026-03-05T00:00:00Z');
    // Counting is unchanged: today so far is the day to now.
    const today = (await at(THU, ['activity', '--period', 'today', '-o', 'json'])).json<Row>();
    const sinceToday = (await at(THU, ['activity', '--since', 'today', '-o', 'json'])).json<Row>();
    expect(counts(today)).toEqual(counts(sinceToday));
  });

  it('every service date up to the span is read by default; --lookback is a partial read that says what it left out, in every format', async () => {
    const monday = ['activity', '--period', '2026-03-02', '-o', 'json'];
    const whole = await at(THU, monday);
    expect(whole.json<Row>().scan).toEqual({
      service_from: null,
      service_to: '2026-03-02',
      lookback_days: 'all',
      entries_read: 6,
      entries_not_read: 0,
      complete: true,
    });
    expect(counts(whole.json<Row>()).submitted).toBe(6);
    expect(whole.json<Row>().events.some((e: Row) => e.service_date === OLD_SERVICE)).toBe(true);
    expect(whole.stderr).not.toMatch(/not read/);
    const narrow = (await at(THU, [...monday, '--lookback', '90'])).json<Row>();
    expect(narrow.scan).toMatchObject({ service_from: '2025-12-02', service_to: '2026-03-02', lookback_days: 90, entries_not_read: 1, complete: false });
    expect(counts(narrow).submitted).toBe(5);
    expect(narrow.events.some((e: Row) => e.service_date === OLD_SERVICE)).toBe(false);
    // What the partial read left out is said, not silent: on stderr in every format, and in the table.
    for (const format of ['json', 'csv', 'ndjson', 'table']) {
      const said = await at(THU, ['activity', '--period', '2026-03-02', '--lookback', '90', '-o', format]);
      expect(said.stderr, format).toMatch(/warning: partial read \(--lookback 90\): 1 entry of service dates before 2025-12-02 not read/);
      if (format === 'table') expect(said.stdout).toMatch(/PARTIAL: 1 entry of earlier service dates not read/);
    }
    const wide = (await at(THU, [...monday, '--lookback', '120'])).json<Row>();
    expect(counts(wide).submitted).toBe(6);
    expect(wide.scan.complete).toBe(true);
  });

  it('ndjson is one event a line, csv has a header and its columns, --totals one row a kind, --kind narrows', async () => {
    const lines = ndjson((await at(THU, ['activity', '--since', '2026-03-02', '-o', 'ndjson'])).stdout);
    expect(lines).toHaveLength(6 + 4 + 1 + 1 + 4 + 1 + 1 + 1);
    expect(lines.map((l) => l.time)).toEqual([...lines.map((l) => l.time)].sort());
    expect(Object.keys(lines[0]!)).toEqual([
      'time',
      'kind',
      'encounter_id',
      'encounter_number',
      'service_date',
      'provider_npi',
      'provider_name',
      'amount',
      'amount_of',
    ]);
    const csv = (await at(THU, ['activity', '--period', 'yesterday', '-o', 'csv'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('time,kind,encounter_id,encounter_number,service_date,provider_npi,provider_name,amount,amount_of');
    expect(csv).toHaveLength(4);
    const totals = (await at(THU, ['activity', '--period', 'yesterday', '--totals', '-o', 'csv'])).stdout.trim().split('\n');
    expect(totals[0]).toBe('kind,count,amount,amount_of');
    expect(totals).toHaveLength(11);
    // Amounts with two decimals, as a spreadsheet shows money (0.00 for a kind with none).
    for (const line of [...csv.slice(1), ...totals.slice(1)]) expect(line, line).toMatch(/,-?\d+\.\d\d,(charges|benefit)$/);
    const denied = (await at(THU, ['activity', '--since', '2026-03-02', '--kind', 'denied', 'pended', '-o', 'json'])).json<Row>();
    expect(counts(denied)).toEqual({ pended: 1, denied: 1 });
    expect(denied.events.map((e: Row) => e.kind).sort()).toEqual(['denied', 'pended']);
    // Nothing in the span: still a header.
    const none = await at(THU, ['activity', '--period', '2026-01', '-o', 'csv']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('time,kind,encounter_id,encounter_number,service_date,provider_npi,provider_name,amount,amount_of\n');
  });

  it('the table has each kind with its count and amount, then the events, one line each at 80 and 120 columns', async () => {
    const { formatCentsGrouped } = await import('../../../src/domain/money.js');
    for (const columns of [80, 120]) {
      const r = await runTpa(['activity', '--period', 'yesterday'], { home: home.dir, env: { TPA_CLOCK: THU }, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      // The lines as a person sees them, without the colours' escape codes.
      const lines = stripVTControlCharacters(r.stdout).split('\n');
      expect(lines[0]).toBe('Activity yesterday (2026-03-04)');
      expect(lines[1]).toBe('2026-03-04T00:00:00Z to 2026-03-05T00:00:00Z (UTC), as of 2026-03-05T09:00:00Z');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      const kind = (k: string) => lines.find((l) => new RegExp(`^│ ${k}\\s+│`).test(l))!;
      expect(kind('funded')).toMatch(new RegExp(`│\\s+2 │\\s+${formatCentsGrouped(week.benefit[week.b]! + week.benefit[week.c]!)} │ benefit`));
      expect(kind('refunded')).toMatch(new RegExp(`│\\s+1 │\\s+${formatCentsGrouped(week.benefit[week.a]!)} │ benefit`));
      expect(kind('submitted')).toMatch(/│\s+0 │\s+0\.00 │ charges/);
      const refunded = lines.find((l) => l.includes(week.a))!;
      expect(refunded).toMatch(/^│ 2026-03-04 12:00:00 │ refunded/);
      expect(refunded.includes('Riverside'), `${columns} columns`).toBe(columns >= 110);
    }
  });

  it('span options that conflict, or a value that is none, exit 2 and read nothing', async () => {
    for (const [args, message] of [
      [['--since', 'yesterday', '--period', 'yesterday'], '--since and --period each name the span'],
      [['--period', 'yesterday', '--from', '2026-03-01'], '--period and --from/--to each name the span'],
      [['--since', '7d', '--to', '2026-03-01'], '--since and --from/--to each name the span'],
      [['--since', 'last-tuesday'], '--since: \\"last-tuesday\\" is not a period'],
      [['--period', '2026-13'], '--period: \\"2026-13\\" is not a period'],
      [['--from', '2026-03-04', '--to', '2026-03-01'], '--to is not after --from'],
      [['--to', '2026-03-01'], '--to needs --from'],
      [['--kind', 'approved'], '--kind: \\"approved\\" is not one of'],
      [['--lookback', '-3'], '--lookback: must be a whole number'],
    ] as const) {
      const r = await at(THU, ['activity', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });
});
