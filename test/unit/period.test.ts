// Report periods (docs/periods.md "Periods"): each name's first and last day from a given today,
// across month ends of 28 to 31 days, leap years, year ends and ISO weeks that straddle years.
import { describe, expect, it } from 'vitest';
import {
  addDays,
  instantOf,
  isoWeekOf,
  isRelativePeriod,
  lastSpan,
  periodProblem,
  periodRange,
  rangeInstants,
  spanEnd,
  spanHolds,
} from '../../src/domain/period.js';
import { entryEvents, stepKinds } from '../../src/domain/activity.js';

const range = (name: string, today: string) => periodRange(name, today);

describe('periods', () => {
  it('today and yesterday, across a month, a leap day and a year', () => {
    expect(range('today', '2026-11-26')).toEqual({ from: '2026-11-26', to: '2026-11-26' });
    expect(range('yesterday', '2026-03-01')).toEqual({ from: '2026-02-28', to: '2026-02-28' });
    expect(range('yesterday', '2028-03-01')).toEqual({ from: '2028-02-29', to: '2028-02-29' });
    expect(range('yesterday', '2027-01-01')).toEqual({ from: '2026-12-31', to: '2026-12-31' });
  });

  it('this-month and last-month run from the 1st to the last day, 28 to 31 days, across the year', () => {
    expect(range('this-month', '2026-02-14')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(range('this-month', '2028-02-29')).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(range('last-month', '2026-03-31')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(range('last-month', '2024-03-01')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(range('last-month', '2026-05-31')).toEqual({ from: '2026-04-01', to: '2026-04-30' });
    expect(range('this-month', '2026-12-31')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
    expect(range('last-month', '2027-01-01')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
    expect(range('2026-11', '1999-01-01')).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    expect(range('2100-02', '')).toEqual({ from: '2100-02-01', to: '2100-02-28' });
    expect(range('2000-02', '')).toEqual({ from: '2000-02-01', to: '2000-02-29' });
  });

  it('weeks are ISO weeks, Monday to Sunday, and week 1 holds 4 January', () => {
    // 2026-11-26 is a Thursday.
    expect(range('this-week', '2026-11-26')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(range('last-week', '2026-11-26')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    // A Monday and a Sunday are in their own week.
    expect(range('this-week', '2026-11-23')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(range('this-week', '2026-11-29')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    // Across the year: Friday 1 January 2027 is in the week of Monday 28 December 2026.
    expect(range('this-week', '2027-01-01')).toEqual({ from: '2026-12-28', to: '2027-01-03' });
    expect(range('last-week', '2027-01-05')).toEqual({ from: '2026-12-28', to: '2027-01-03' });
    expect(range('2026-W48', '')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(range('2026-W01', '')).toEqual({ from: '2025-12-29', to: '2026-01-04' });
    // 2026 has 53 weeks (1 January is a Thursday); 2027 has 52.
    expect(range('2026-W53', '')).toEqual({ from: '2026-12-28', to: '2027-01-03' });
    expect(periodProblem('2027-W53')).toMatch(/is not a period/);
    expect(isoWeekOf('2027-01-01')).toEqual({ year: 2026, week: 53 });
    expect(isoWeekOf('2024-12-30')).toEqual({ year: 2025, week: 1 });
  });

  it('quarters and years, this and last, and named outright', () => {
    expect(range('this-quarter', '2026-11-26')).toEqual({ from: '2026-10-01', to: '2026-12-31' });
    expect(range('last-quarter', '2026-02-10')).toEqual({ from: '2025-10-01', to: '2025-12-31' });
    expect(range('2028-Q1', '')).toEqual({ from: '2028-01-01', to: '2028-03-31' });
    expect(range('this-year', '2026-11-26')).toEqual({ from: '2026-01-01', to: '2026-12-31' });
    expect(range('last-year', '2026-01-01')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(range('2025', '')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(range('2028-02-29', '')).toEqual({ from: '2028-02-29', to: '2028-02-29' });
  });

  it('what is not a period says so; only the names that follow today need it', () => {
    for (const bad of ['2026-13', '2026-00', '2026-02-29', '2026-W00', '2026-Q5', 'last-tuesday', 'last month', '']) {
      expect(periodProblem(bad), bad).toBeDefined();
    }
    expect(isRelativePeriod('Last-Month')).toBe(true);
    expect(isRelativePeriod('2026-11')).toBe(false);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });

  it('a range spans its days from midnight UTC to the midnight after; a date on the command line is a whole day', () => {
    expect(rangeInstants({ from: '2026-02-28', to: '2026-02-28' })).toEqual({
      startMs: Date.parse('2026-02-28T00:00:00Z'),
      endMs: Date.parse('2026-03-01T00:00:00Z'),
    });
    expect(instantOf('2026-12-31', 'end')).toBe(Date.parse('2027-01-01T00:00:00Z'));
    expect(instantOf('2026-11-25T09:30:00Z', 'start')).toBe(Date.parse('2026-11-25T09:30:00Z'));
    expect(instantOf('2026-11-25T09:30:00+01:00', 'start')).toBe(Date.parse('2026-11-25T08:30:00Z'));
    expect(instantOf('yesterday', 'start')).toBeUndefined();
    expect(instantOf('2026-02-30', 'start')).toBeUndefined();
  });
});

describe('activity events from a status progression', () => {
  it('a return to ADJUDICATED is a failed transfer after FUNDED and a refund after RECONCILED, not an adjudication', () => {
    expect(
      stepKinds(['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'FUNDED', 'ADJUDICATED', 'FUNDED', 'RECONCILED', 'ADJUDICATED'].map((status) => ({ status }))),
    ).toEqual(['submitted', undefined, 'adjudicated', 'funded', 'failed', 'funded', 'settled', 'refunded']);
    expect(stepKinds([{ status: 'SUBMITTED' }, { status: 'PENDED' }])).toEqual(['submitted', 'pended']);
  });

  it('an arrival not reconciled is a second FUNDED, settled; its refund is a refund, and a reconciliation lost later moves no money', () => {
    const kinds = (statuses: string[]) => stepKinds(statuses.map((status) => ({ status })));
    // Arrived without a match (FUNDED again), refunded, funded again, arrived matched.
    expect(kinds(['SUBMITTED', 'ADJUDICATED', 'FUNDED', 'FUNDED', 'ADJUDICATED', 'FUNDED', 'RECONCILED'])).toEqual([
      'submitted',
      'adjudicated',
      'funded',
      'settled',
      'refunded',
      'funded',
      'settled',
    ]);
    // Matched, then an AEOB stated later: back to FUNDED, no event; then refunded.
    expect(kinds(['ADJUDICATED', 'FUNDED', 'RECONCILED', 'FUNDED', 'ADJUDICATED'])).toEqual(['adjudicated', 'funded', 'settled', undefined, 'refunded']);
    // A transfer that failed before it arrived is still a failure.
    expect(kinds(['ADJUDICATED', 'FUNDED', 'ADJUDICATED', 'FUNDED', 'FUNDED'])).toEqual(['adjudicated', 'funded', 'failed', 'funded', 'settled']);
  });

  it('an event is in the span from its start, inclusive, to its end, exclusive; amounts are charges or the benefit', () => {
    const entry = {
      encounter_id: 'enc_1',
      encounter_number: 'ENC-2026-000001',
      service_date: '2026-03-01',
      provider: { npi: '1234567893', name: 'Riverside' },
      status_progression: [
        { status: 'SUBMITTED', timestamp: '2026-03-02T00:00:00Z' },
        { status: 'PROCESSING', timestamp: '2026-03-02T00:00:00Z' },
        { status: 'ADJUDICATED', timestamp: '2026-03-02T23:59:59Z' },
        { status: 'FUNDED', timestamp: '2026-03-03T00:00:00Z' },
      ],
      financial_summary: { charges: 1200.5, benefit_amount: 980.25 },
    };
    const day = rangeInstants({ from: '2026-03-02', to: '2026-03-02' });
    const events = entryEvents(entry, day);
    expect(events.map((e) => [e.kind, e.amountCents])).toEqual([
      ['submitted', 120050],
      ['adjudicated', 98025],
    ]);
  });

  it('a span read now holds now: its end is the instant after now, unless it ends sooner; spans cut at an instant hold it once', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const day = rangeInstants({ from: '2026-03-02', to: '2026-03-02' });
    const end = spanEnd(day.startMs, day.endMs, now);
    expect(end).toBe(now + 1);
    expect(spanHolds({ startMs: day.startMs, endMs: end }, now)).toBe(true);
    // Until now (no end of its own), the same; an end before now is kept; a start after now is an empty span.
    expect(spanEnd(day.startMs, undefined, now)).toBe(now + 1);
    expect(spanEnd(day.startMs, now - 5, now)).toBe(now - 5);
    expect(spanEnd(now + 10, undefined, now)).toBe(now + 10);
    // The last minute is (now - 1m, now]: two consecutive minutes share no instant and leave none out.
    const minute = lastSpan(60_000, now);
    const next = lastSpan(60_000, now + 60_000);
    expect(minute.endMs).toBe(next.startMs);
    for (const t of [now - 60_000, now, now + 60_000]) {
      const holders = [minute, next].filter((s) => spanHolds(s, t)).length;
      expect(holders, new Date(t).toISOString()).toBe(t === now - 60_000 ? 0 : 1);
    }
    // A span cut at t: [a, t) and [t, b) hold t once.
    const [a, b] = [
      [day.startMs, now],
      [now, day.endMs],
    ].map(([s, e]) => ({ startMs: s!, endMs: e! }));
    expect([a!, b!].filter((s) => spanHolds(s, now))).toEqual([b]);
  });
});
