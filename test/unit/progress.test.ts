// The progress of long jobs, as pure parts: the throughput and time left (only work that costs time
// counts; under a rate limit the estimate follows the limit), the request budget a rate-limit window
// leaves, the line's drawing at a width, and the line redrawn in place on a terminal.
import { describe, expect, it } from 'vitest';
import { estimateLeftMs, RateWindow, Throughput } from '../../src/jobs/throughput.js';
import { pacedState, StatusLine } from '../../src/cli/status-line.js';
import { progressLine } from '../../src/render/progress-line.js';
import { progressState as batchState } from '../../src/cli/commands/claim/submit-batch.js';
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

  it('takes the window a server states (RateLimit-Policy), and follows the next window after a wait', () => {
    const w = new RateWindow();
    const now = 1_700_000_000_000;
    const h = (remaining: number, reset: number) => ({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
      'ratelimit-policy': '100;w=1',
    });
    w.observe(h(0, now / 1000 + 1), now);
    expect(w.state()?.windowMs).toBe(1000);
    w.reset();
    // The next window's answers are taken in, not ignored as older than a predicted end.
    w.observe(h(40, now / 1000 + 2), now + 1500);
    expect(w.allows(39)).toBe(true);
    expect(w.allows(40)).toBe(false);
    w.observe(h(0, now / 1000 + 2), now + 1600);
    expect(w.waitMs(now + 1600)).toBe(1400);
  });

  it("without a stated window, learns it from two windows' resets: 1 s apart is a 1 s window, not the contract's minute", () => {
    const w = new RateWindow();
    const now = 1_700_000_000_000;
    const h = (remaining: number, reset: number) => ({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
    });
    w.observe(h(0, now / 1000 + 1), now);
    expect(w.state()?.windowMs).toBe(60_000);
    w.reset();
    w.observe(h(99, now / 1000 + 2), now + 1200);
    expect(w.state()?.windowMs).toBe(1000);
    expect(w.allows(98)).toBe(true);
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

describe("progressLine under a rate limit: the limit as the rate, the time left from the wait's end", () => {
  const state = {
    done: 100,
    total: 220,
    unit: 'claims',
    rate: 368,
    limit: { count: 100, windowMs: 60_000 },
    leftMs: 113_000,
    wait: { untilMs: 53_000, text: 'rate limited, resuming in', thenLeftMs: 60_000 },
  };

  for (const width of [80, 120]) {
    it(`at ${width} columns: the limit, not the burst rate; the time left falls with the clock`, () => {
      const at = (ms: number) => progressLine(state, width, ms);
      expect(at(0).length).toBeLessThan(width);
      expect(at(0)).toContain('100/min');
      expect(at(0)).not.toContain('368');
      expect(at(0)).toContain('about 1m53s left');
      expect(at(30_000)).toContain('resuming in 23s');
      expect(at(30_000)).toContain('about 1m23s left');
      // The wait over, no update yet: what was left after it.
      expect(at(60_000)).toContain('about 1m00s left');
    });
  }

  it('says "limit" where there is room', () => {
    expect(progressLine(state, 120, 0)).toContain('100/min limit');
  });

  it("before the limit paces the job, says the rate per the service's window: 9.3 a second under a limit a second is 9/s, never 558/min", () => {
    const burst = { done: 2, total: 24, unit: 'approvals', rate: 9.3 };
    expect(progressLine({ ...burst, rateWindowMs: 1000 }, 120, 0)).toContain('9/s');
    expect(progressLine({ ...burst, rateWindowMs: 1000 }, 120, 0)).not.toContain('/min');
    expect(progressLine({ ...burst, rateWindowMs: 60_000 }, 120, 0)).toContain('558/min');
    // No window said yet: slow rates read per minute.
    expect(progressLine(burst, 120, 0)).toContain('558/min');
    // Both long jobs hand the window on: the payment run's line and the claim batch's.
    expect(pacedState({ done: 2, total: 24, rate: 9.3, windowMs: 1000 }, 'approvals', 0).rateWindowMs).toBe(1000);
    expect(batchState({ done: 2, total: 24, skipped: 0, stage: 'submitting', rate: 9.3, windowMs: 1000 }, 0).rateWindowMs).toBe(1000);
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

describe('a claim batch under a rate limit: the line follows the limit, not the burst', () => {
  // A fake service of 100 requests a minute per key, fast between waits; the clock is the test's.
  async function limitedBatch(total: number) {
    const { BatchJournal, runClaimBatch } = await import('../../src/jobs/claim-batch.js');
    const { progressState } = await import('../../src/cli/commands/claim/submit-batch.js');
    const { tempDir } = await import('../helpers/engine.js');
    const { claimTemplate } = await import('../../src/domain/claim-template.js');
    const clock = fakeClock(1_700_000_000_000);
    let windowEnd = clock.now() + 60_000;
    let used = 0;
    let n = 0;
    const client = {
      submitClaim: async () => {
        clock.tick(3); // about 368 a second in a burst
        if (clock.now() >= windowEnd) {
          windowEnd += 60_000;
          used = 0;
        }
        used++;
        n++;
        const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': String(100 - used), 'x-ratelimit-reset': String(Math.ceil(windowEnd / 1000)) };
        return { body: { submission_id: `sub_${n}`, external_claim_id: `ext_${n}` }, headers };
      },
    };
    async function* claims() {
      for (let i = 0; i < total; i++) {
        const c = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45378'], patient: 'MBR-1001', serviceDate: '2026-05-10' });
        (c as Record<string, unknown>).external_claim_id = `EXT-${i}`;
        yield { source: `claim-${i + 1}`, text: JSON.stringify(c), value: c };
      }
    }
    const home = tempDir();
    const journal = await BatchJournal.open(`${home.dir}/b.journal`);
    // At the first wait: the line drawn as the clock moves through it, then the batch goes on.
    const during: string[] = [];
    const lines: string[] = [];
    try {
      await runClaimBatch(client as never, claims(), journal, {
        concurrency: 4,
        total,
        onOutcome: () => {},
        now: clock.now,
        sleep: async (ms) => {
          if (during.length === 0) {
            for (let t = 0; t < ms; t += 10_000) during.push(progressLine(lastState!, 120, clock.now() + t));
          }
          clock.tick(ms);
        },
        onProgress: (p) => {
          lastState = progressState(p, clock.now());
          lines.push(progressLine(lastState, 120, clock.now()));
        },
      });
    } finally {
      journal.close();
      home.remove();
    }
    return { during, lines };
  }
  let lastState: ReturnType<typeof import('../../src/cli/commands/claim/submit-batch.js').progressState> | undefined;
  const seconds = (line: string) => {
    const m = /about (?:(\d+)m)?(\d+)s left/.exec(line);
    if (!m) throw new Error(`no time left in: ${line}`);
    return Number(m[1] ?? 0) * 60 + Number(m[2]);
  };

  it('during a 50 s wait for the window, the time left counts down with the clock (never frozen)', async () => {
    const { during } = await limitedBatch(220);
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(during[0]).toContain('100 of 220 claims');
    expect(during[0]).toContain('rate limited, resuming in');
    const left = during.map(seconds);
    for (let i = 1; i < left.length; i++) expect(left[i], during.join('\n')).toBeLessThan(left[i - 1]!);
    // Ten seconds on the clock, ten seconds off the time left.
    expect(left[0]! - left[1]!).toBe(10);
  });

  it('the rate shown under a limit of 100 a minute is the limit, not the burst rate', async () => {
    const { during, lines } = await limitedBatch(220);
    expect(during[0]).toContain('100/min limit');
    expect(during[0]).not.toMatch(/\d+\/s\b/);
    // Once the batch is known to need more than one window, every line says the limit.
    expect(
      lines.slice(10).every((l) => l.includes('100/min limit')),
      lines.slice(10, 12).join('\n'),
    ).toBe(true);
  });
});
