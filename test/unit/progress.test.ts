// The progress of long jobs, as pure parts: the throughput and time left (only work that costs time
// counts; under a rate limit the estimate follows the limit), the request budget a rate-limit window
// leaves, the line's drawing at a width, and the line redrawn in place on a terminal.
import { describe, expect, it } from 'vitest';
import { estimateLeftMs, RateWindow, Throughput } from '../../src/client/throughput.js';
import { StatusLine } from '../../src/cli/status-line.js';
import { progressLine } from '../../src/render/progress-line.js';
import { screen } from '../../src/render/screen.js';
import { screenOf } from '../helpers/pty.js';

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, tick: (ms: number) => (t += ms) };
}

describe('Throughput: the rate of the work that costs time', () => {
  it('after a resume, skipped claims do not count: 100 skipped at once, then 10 sent in 10 s is 1 a second, 40 left is 40 s', () => {
    const clock = fakeClock();
    const t = new Throughput(clock.now);
    // 100 claims skipped from the journal: no time, no count.
    for (let i = 0; i < 10; i++) {
      t.started();
      clock.tick(1000);
      t.add(1);
    }
    expect(t.rate()).toBeCloseTo(1, 5);
    expect(estimateLeftMs(40, t.rate(), undefined, clock.now())).toBe(40_000);
  });

  it('no rate before the first piece of work is done', () => {
    const clock = fakeClock();
    const t = new Throughput(clock.now);
    expect(t.rate()).toBeUndefined();
    t.started();
    clock.tick(500);
    expect(t.rate()).toBeUndefined();
    expect(estimateLeftMs(10, t.rate(), undefined, clock.now())).toBeUndefined();
  });

  it('time spent waiting for a rate-limit window is not counted as working time', () => {
    const clock = fakeClock();
    const t = new Throughput(clock.now);
    t.started();
    clock.tick(10_000);
    t.add(100);
    t.pause();
    clock.tick(50_000);
    t.resume();
    expect(t.rate()).toBeCloseTo(10, 5);
  });
});

describe('estimateLeftMs under a rate limit follows the limit', () => {
  const window = (over: Partial<{ limit: number; remaining: number; resetAtMs: number; windowMs: number }>, now: number) => ({
    limit: 100,
    remaining: 0,
    resetAtMs: now + 30_000,
    windowMs: 60_000,
    ...over,
  });

  it('2,000 claims at 100 a minute: 19 minutes, not the 48 s that the sending rate alone says', () => {
    const now = 5_000_000;
    // 100 sent in the first 10 s (10 a second), the window spent, 30 s until it resets, 1,900 left.
    const left = estimateLeftMs(1900, 10, window({}, now), now)!;
    expect(left).toBe(30_000 + 18 * 60_000 + 10_000);
    expect(left).toBeGreaterThan(18 * 60_000);
  });

  it('what the window still allows goes at the sending rate', () => {
    const now = 0;
    expect(estimateLeftMs(50, 10, window({ remaining: 80 }, now), now)).toBe(5000);
    // 80 now at 10/s (8 s, before the reset in 30 s), then 20 in the next window at 10/s.
    expect(estimateLeftMs(100, 10, window({ remaining: 80 }, now), now)).toBe(30_000 + 2000);
  });

  it('a sending rate slower than the limit is the bound', () => {
    const now = 0;
    // 1 a second is 60 a minute, under the 100 allowed: the limit never bites after this window.
    expect(estimateLeftMs(300, 1, window({ remaining: 100, resetAtMs: 60_000 }, now), now)).toBe(300_000);
  });
});

describe('RateWindow: requests in flight never exceed what the window has left', () => {
  it('allows a request while fewer are in flight than the window has left, and waits for the reset when it is spent', () => {
    const w = new RateWindow();
    const now = 1_700_000_000_000;
    expect(w.allows(50)).toBe(true);
    w.observe({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': String(now / 1000 + 20) }, now);
    expect(w.allows(2)).toBe(true);
    expect(w.allows(3)).toBe(false);
    // An older answer of the same window says more left: the smaller count stands.
    w.observe({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': String(now / 1000 + 20) }, now);
    expect(w.allows(3)).toBe(false);
    w.observe({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 20) }, now);
    expect(w.allows(0)).toBe(false);
    expect(w.waitMs(now)).toBe(21_000);
    w.reset();
    expect(w.allows(9)).toBe(true);
    expect(w.waitMs(now)).toBe(0);
  });

  it('a service without the headers is not paced', () => {
    const w = new RateWindow();
    w.observe({}, 0);
    expect(w.allows(1000)).toBe(true);
    expect(w.limit).toBeUndefined();
  });
});

describe('progressLine: one line that fits the terminal', () => {
  const state = { done: 1000, total: 2000, unit: 'claims', rate: 1.66, leftMs: 19 * 60_000, wait: { untilMs: 42_000, text: 'rate limited, resuming in' } };

  for (const width of [40, 80, 120]) {
    it(`at ${width} columns it is shorter than the width, and keeps the count`, () => {
      const line = progressLine(state, width, 0);
      expect(line.length).toBeLessThan(width);
      expect(line).toContain('1,000 of 2,000');
    });
  }

  it('says the wait and the time left, and the bar where there is room', () => {
    const wide = progressLine(state, 160, 0);
    expect(wide).toMatch(/\[#{10}\.{10}\]|\[#+\.+\]/);
    expect(wide).toContain('rate limited, resuming in 42s');
    expect(wide).toContain('about 19m left');
    expect(wide).toContain('100/min');
  });
});

describe('StatusLine: redrawn in place, messages above it', () => {
  function terminal(columns = 80) {
    let text = '';
    return { stream: { write: (s: string) => void (text += s), isTTY: true, columns }, text: () => text };
  }
  // What the screened stderr does: tpa's own escapes restored (render/screen.ts).
  const shown = (s: string) => screen(s);

  it('shows exactly one line after many updates, the notes above it, and keeps it on screen at the end', async () => {
    const clock = fakeClock();
    const term = terminal();
    const line = new StatusLine(term.stream, clock.now);
    for (let i = 1; i <= 20; i++) {
      clock.tick(200);
      line.show({ done: i, total: 20, unit: 'claims' });
      if (i === 10) line.above('claims/7.json: failed: server error');
    }
    line.keep();
    const screen = (await screenOf(shown(term.text()), 80, 10)).filter((l) => l !== '');
    expect(screen).toEqual(['claims/7.json: failed: server error', expect.stringContaining('20 of 20 claims')]);
  });

  it('draws nothing when the stream is not a terminal', () => {
    const text: string[] = [];
    const line = new StatusLine({ write: (s) => void text.push(s), isTTY: false, columns: 80 });
    line.show({ done: 1, total: 2, unit: 'claims' });
    line.keep();
    line.above('a note');
    expect(text).toEqual(['a note\n']);
  });
});
