// The progress line of a long job on a terminal (docs/jobs.md "Long jobs"): one line on stderr,
// redrawn in place (back to its start, erase, draw: tpa's own escapes of render/screen.ts), that stays
// on screen until the job ends. A message while it is shown goes above it (cleared, printed, drawn
// again); anything else written to the terminal clears it until the next update. A countdown (a
// rate-limit wait, "checking again in") is redrawn every second. Not a terminal: nothing is drawn.
import type { Pace, PaceLimit } from '../jobs/throughput.js';
import { count, counted } from '../render/format.js';
import { duration, progressLine, type ProgressState } from '../render/progress-line.js';
import { CLEAR_LINE } from '../render/screen.js';
import type { Stream } from './io.js';

export type { ProgressState };

/** Redraws at most this often (a batch of 10,000 claims is not 10,000 writes to the terminal), countdowns aside. */
const REDRAW_MS = 100;

export class StatusLine {
  private state: ProgressState | undefined;
  private shown = false;
  private drawnAt = -Infinity;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly out: Stream,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a line is drawn at all (stderr is a terminal). */
  get live(): boolean {
    return this.out.isTTY;
  }

  /** The state last shown, for a caller that adds to it (a wait inside the line). */
  get current(): ProgressState | undefined {
    return this.state;
  }

  /** Shows the line, or updates it; `force` draws it even within the tenth of a second of the last draw. */
  show(state: ProgressState, force = false): void {
    this.state = state;
    if (!this.out.isTTY) return;
    if (this.shown && !force && state.wait === undefined && this.now() - this.drawnAt < REDRAW_MS) return;
    this.draw();
  }

  /** A message above the line: the line cleared, the message printed, the line drawn again. */
  above(text: string): void {
    const wasShown = this.shown;
    if (wasShown) this.out.write(CLEAR_LINE);
    this.out.write(`${text}\n`);
    if (wasShown) this.draw();
  }

  /** Something else takes the terminal (a result, a review, a prompt): the line is cleared until the next update. */
  hide(): void {
    if (!this.shown) return;
    this.out.write(CLEAR_LINE);
    this.shown = false;
  }

  /** The job ended: its line (the last state, or `last`) stays on screen, and the terminal goes on below it. */
  keep(last?: ProgressState): void {
    if (last) this.state = last;
    if (this.out.isTTY && this.state) {
      this.draw();
      this.out.write('\n');
    }
    this.forget();
  }

  /** The job ended and its line goes. */
  clear(): void {
    this.hide();
    this.forget();
  }

  private draw(): void {
    const state = this.state!;
    const now = this.now();
    this.out.write(`${CLEAR_LINE}${progressLine(state, this.out.columns, now)}`);
    this.shown = true;
    this.drawnAt = now;
    const counting = (state.wait !== undefined && state.wait.untilMs > now) || (state.sinceMs !== undefined && state.end === undefined);
    if (counting && this.timer === undefined) {
      this.timer = setInterval(() => {
        if (this.shown && this.state) this.draw();
      }, 1000);
      this.timer.unref?.();
    } else if (!counting && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private forget(): void {
    this.state = undefined;
    this.shown = false;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * Counts a job of a known total on the line, `label: done of total unit`: each update computes the
 * rate and the time left since the counter was made (when the job began).
 */
export function counter(
  line: StatusLine,
  label: string,
  unit: string,
  now: () => number = Date.now,
): (done: number, total: number, extra?: Partial<ProgressState>) => void {
  const started = now();
  return (done, total, extra) => {
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 && done > 0 ? done / seconds : undefined;
    line.show({ label, done, total, unit, rate, leftMs: rate ? ((total - done) / rate) * 1000 : undefined, ...extra }, done >= total);
  };
}

/**
 * A paced job's line (a claim batch, a payment run): the count, the rate (the limit once it paces
 * the job), a wait for the rate limit's window with its countdown, and the time left, counted down
 * with the wait.
 */
export function pacedState(p: Pace & { done: number; total?: number }, unit: string, nowMs: number, detail?: string): ProgressState {
  return {
    done: p.done,
    total: p.total,
    unit,
    detail,
    rate: p.rate,
    ...(p.windowMs !== undefined ? { rateWindowMs: p.windowMs } : {}),
    limit: p.limit,
    leftMs: p.leftMs,
    ...(p.waitingMs !== undefined && p.waitingMs > 0
      ? { wait: { untilMs: nowMs + p.waitingMs, text: 'rate limited, resuming in', thenLeftMs: p.leftAfterWaitMs } }
      : {}),
  };
}

/**
 * "this key allows 100 requests a minute: about 20 minutes for 2,000 claims", "this key allows 10
 * approvals a minute: about 30 minutes for 300 approvals": said once, when a job's limit is known
 * and the job needs more than one window of it.
 */
export function limitNote(l: PaceLimit, what: { requests: string; unit: string; left?: boolean } = { requests: 'requests', unit: 'claim' }): string {
  const per = l.windowMs === 60_000 ? 'a minute' : l.windowMs === 1000 ? 'a second' : `every ${duration(l.windowMs)}`;
  const minutes = Math.round(l.leftMs / 60_000);
  const takes = minutes >= 2 ? `${count(minutes)} minutes` : duration(l.leftMs);
  return `this key allows ${count(l.limit)} ${what.requests} ${per}: about ${takes} for ${what.left ? 'the ' : ''}${counted(l.toSend, what.unit)}${what.left ? ' left' : ''}`;
}
