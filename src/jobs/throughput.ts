// The pace of a long job (docs/jobs.md "Long jobs"): how fast the work that costs time goes (claims
// sent, not those a resume skips), how many requests the service's rate-limit window still allows
// (X-RateLimit-Limit, -Remaining and -Reset), and the time left, which under a limit follows the
// limit rather than the sending rate. The clock is given.
import { pacingWaitMs } from '../client/pages.js';

/** The rate of work done, in pieces per second of working time (waits for a rate-limit window left out). */
export class Throughput {
  private first: number | undefined;
  private count = 0;
  private pausedMs = 0;
  private pausedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A piece of work begins (the first one starts the clock). */
  started(): void {
    this.first ??= this.now();
  }

  /** Pieces of work done. */
  add(n = 1): void {
    this.started();
    this.count += n;
  }

  get done(): number {
    return this.count;
  }

  /** The job waits (for a rate-limit window): that time is not working time. */
  pause(): void {
    this.pausedAt ??= this.now();
  }

  resume(): void {
    if (this.pausedAt === undefined) return;
    this.pausedMs += this.now() - this.pausedAt;
    this.pausedAt = undefined;
  }

  /** Pieces a second, or undefined before the first piece is done. */
  rate(): number | undefined {
    if (this.first === undefined || this.count === 0) return undefined;
    const paused = this.pausedMs + (this.pausedAt !== undefined ? this.now() - this.pausedAt : 0);
    const seconds = (this.now() - this.first - paused) / 1000;
    return seconds > 0 ? this.count / seconds : undefined;
  }
}

/** What a rate-limit window allows, as the service's last answers said. */
export interface WindowState {
  /** Requests a window allows. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** When the current window ends (this machine's clock, milliseconds). */
  resetAtMs: number;
  /** A window's length. */
  windowMs: number;
}

/** A rate-limit window's length until the answers show it: the contract's limits are per minute. */
export const DEFAULT_WINDOW_MS = 60_000;

/**
 * A window's length as a server states it, in milliseconds, or undefined: tpa's `local serve` says it
 * in `RateLimit-Policy` (`100;w=60`, the IETF draft's form, docs/api.md "Limits"); a service that does
 * not is learned from the X-RateLimit-Reset of successive windows.
 */
export function statedWindowMs(headers: Record<string, string>): number | undefined {
  const m = /(?:^|;)\s*w=(\d+(?:\.\d+)?)\s*(?:;|$)/.exec(headers['ratelimit-policy'] ?? '');
  const ms = m ? Math.round(Number(m[1]) * 1000) : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * The requests a job may have in flight: fewer than the window has left, so that the service refuses
 * none (a request refused still counts against the window). Read from every answer's headers: the
 * limit from X-RateLimit-Limit, the window's length as the server states it, else from the distance
 * between the X-RateLimit-Reset of one window and the next (the shortest seen: a job that paused
 * between two windows sees them further apart).
 */
export class RateWindow {
  limit: number | undefined;
  private remaining: number | undefined;
  /** When the current window ends, as the service said, or as predicted once a wait for it is over. */
  private resetAtMs: number | undefined;
  /** The latest window end the service has said (never a predicted one): a later one is a new window. */
  private seenResetMs: number | undefined;
  private windowMs = DEFAULT_WINDOW_MS;
  /** Whether the length is the server's (stated, or measured between two windows), not the default. */
  private lengthKnown = false;

  /** Takes in an answer's headers; true the first time they show a limit. */
  observe(headers: Record<string, string>, _nowMs?: number): boolean {
    const limit = Number(headers['x-ratelimit-limit']);
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (!headers['x-ratelimit-remaining'] || !Number.isFinite(remaining) || !Number.isFinite(reset) || reset <= 0) return false;
    const first = this.limit === undefined && Number.isFinite(limit) && limit > 0;
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
    const stated = statedWindowMs(headers);
    if (stated !== undefined) {
      this.windowMs = stated;
      this.lengthKnown = true;
    }
    const resetAtMs = reset * 1000;
    if (this.seenResetMs === undefined || resetAtMs > this.seenResetMs) {
      // A new window: its length is how far its end is from the last one's (when the job went on between).
      if (stated === undefined && this.seenResetMs !== undefined && resetAtMs - this.seenResetMs >= 1000) {
        const apart = resetAtMs - this.seenResetMs;
        this.windowMs = this.lengthKnown ? Math.min(this.windowMs, apart) : apart;
        this.lengthKnown = true;
      }
      this.seenResetMs = resetAtMs;
      this.resetAtMs = resetAtMs;
      this.remaining = remaining;
    } else if (resetAtMs === this.seenResetMs) {
      // Answers come back out of order: the fewest left is the latest count.
      this.remaining = Math.min(this.remaining ?? remaining, remaining);
      this.resetAtMs = resetAtMs;
    }
    return first;
  }

  /** Whether another request may go out with `inFlight` already out. */
  allows(inFlight: number): boolean {
    return this.remaining === undefined || inFlight < this.remaining;
  }

  /** How long to wait before the next request, when the window is spent (a second's margin: the service counts whole seconds). */
  waitMs(nowMs: number): number {
    if (this.remaining === undefined || this.remaining > 0 || this.resetAtMs === undefined) return 0;
    return Math.max(0, this.resetAtMs - nowMs + 1000);
  }

  /** The window has ended (the wait is over): a fresh one allows its limit, until an answer says otherwise. */
  reset(): void {
    this.remaining = this.limit;
    if (this.resetAtMs !== undefined) this.resetAtMs += this.windowMs;
  }

  /** The window as last seen, for the time left; undefined without limit headers. */
  state(): WindowState | undefined {
    if (this.limit === undefined || this.remaining === undefined || this.resetAtMs === undefined) return undefined;
    return { limit: this.limit, remaining: this.remaining, resetAtMs: this.resetAtMs, windowMs: this.windowMs };
  }
}

/**
 * The pace of a job's requests (docs/claim-batches.md "Claim batches"), for every phase that sends many: at
 * most `concurrency` in flight, fewer than the rate-limit window has left, a spent window waited out
 * with nothing in flight, and the wait an answer asks for (X-RateLimit-Remaining 0, or a 429 that
 * came anyway) kept before the next request.
 */
export class Pacer {
  readonly window = new RateWindow();
  private readonly inFlight = new Set<Promise<void>>();
  private pausedUntil = 0;

  constructor(
    private readonly options: {
      concurrency: number;
      now: () => number;
      sleep: (ms: number) => Promise<void>;
      /** A wait begins (its length), and ends. */
      onPause?: (ms: number) => void;
      onResume?: () => void;
    },
  ) {}

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Waits until another request may go out. */
  async slot(): Promise<void> {
    const { concurrency, now, sleep } = this.options;
    while (this.inFlight.size >= concurrency || (this.inFlight.size > 0 && !this.window.allows(this.inFlight.size))) await Promise.race(this.inFlight);
    const pause = Math.max(this.pausedUntil - now(), this.window.waitMs(now()));
    if (pause <= 0) return;
    this.options.onPause?.(pause);
    await Promise.all(this.inFlight);
    const left = Math.max(this.pausedUntil - now(), this.window.waitMs(now()));
    if (left > 0) await sleep(left);
    this.window.reset();
    this.options.onResume?.();
  }

  /** Starts a request (after `slot`). */
  start(task: () => Promise<void>): void {
    const p: Promise<void> = task().finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Waits for every request in flight. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  /** An answer's limit headers; true the first time they show a limit. */
  observe(headers: Record<string, string>): boolean {
    const first = this.window.observe(headers, this.options.now());
    this.pauseFor(pacingWaitMs(headers, this.options.now()));
    return first;
  }

  /** Nothing more goes out for `ms` (a 429 that came anyway asks it). */
  pauseFor(ms: number): void {
    if (ms > 0) this.pausedUntil = Math.max(this.pausedUntil, this.options.now() + ms);
  }
}

/**
 * Milliseconds until `left` more requests are done at `rate` a second, within the window: what the
 * current window still allows goes at the rate; the rest waits for the windows to come, `limit` in
 * each (or at the rate, when that is slower). Undefined when there is no rate and no limit to go by.
 */
export function estimateLeftMs(left: number, rate: number | undefined, window: WindowState | undefined, nowMs: number): number | undefined {
  if (left <= 0) return 0;
  const at = (n: number) => (rate !== undefined && rate > 0 ? (n / rate) * 1000 : undefined);
  if (!window || left <= window.remaining) return at(left);
  const { limit, remaining, resetAtMs, windowMs } = window;
  // This window's share, then a wait for its end.
  let total = Math.max(at(remaining) ?? 0, resetAtMs - nowMs, 0);
  const rest = left - remaining;
  const full = Math.ceil(rest / limit) - 1;
  total += full * Math.max(windowMs, at(limit) ?? 0);
  total += at(rest - full * limit) ?? 0;
  return total;
}

/** The pace of a job as its progress line shows it (docs/jobs.md "Long jobs"). */
export interface Pace {
  /** Pieces a second of working time, undefined before the first is done. */
  rate?: number;
  /** Time left: the pieces still to send at that rate, within the rate limit's windows. */
  leftMs?: number;
  /** While a spent window is waited out: milliseconds until it ends. */
  waitingMs?: number;
  /** During that wait: the time left once it is over (the time left counts down with the wait). */
  leftAfterWaitMs?: number;
  /** The rate limit, once it paces the job: its effective rate, shown instead of the burst rate. */
  limit?: { count: number; windowMs: number };
  /** The length of the service's rate window, once an answer said it: the rate is said per it. */
  windowMs?: number;
}

/** The service's rate limit, as an answer's headers say, when a job needs more than one window. */
export interface PaceLimit {
  /** Requests a window allows, and its length. */
  limit: number;
  windowMs: number;
  /** Pieces still to send, and the time that takes under the limit. */
  toSend: number;
  leftMs: number;
}

/**
 * The rate and time left of a job paced by a rate window, for every long job (a claim batch, a
 * payment run): the rate of the work that costs time, the time left within the windows to come, a
 * wait's countdown, and the limit as the rate once it paces the job (more to send than the window
 * allows, faster than it allows).
 */
export class PaceGauge {
  private paced = false;

  constructor(
    private readonly throughput: Throughput,
    private readonly window: RateWindow,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pace with `left` pieces still to send (undefined: the total is not known), during a wait of `waitingMs`. */
  pace(left: number | undefined, waitingMs?: number): Pace {
    const rate = this.throughput.rate();
    const w = this.window.state();
    if (w && left !== undefined && left > w.remaining && (rate === undefined || (rate * w.windowMs) / 1000 > w.limit)) this.paced = true;
    let leftMs = left !== undefined ? estimateLeftMs(left, rate, w, this.now()) : undefined;
    let leftAfterWaitMs: number | undefined;
    if (waitingMs !== undefined && waitingMs > 0 && left !== undefined) {
      // After the wait the window is a fresh one (as the pacer's window.reset() makes it).
      const endMs = this.now() + waitingMs;
      const fresh = w && { ...w, remaining: w.limit, resetAtMs: w.resetAtMs + w.windowMs };
      leftAfterWaitMs = estimateLeftMs(left, rate, fresh, endMs);
      if (leftAfterWaitMs !== undefined) leftMs = waitingMs + leftAfterWaitMs;
    }
    return {
      rate,
      leftMs,
      waitingMs,
      leftAfterWaitMs,
      limit: this.paced && w ? { count: w.limit, windowMs: w.windowMs } : undefined,
      ...(w ? { windowMs: w.windowMs } : {}),
    };
  }

  /** The limit and the time `left` pieces take under it, when they need more than the window has left; else undefined. */
  limitFor(left: number): PaceLimit | undefined {
    const w = this.window.state();
    if (!w || left <= w.remaining) return undefined;
    return { limit: w.limit, windowMs: w.windowMs, toSend: left, leftMs: estimateLeftMs(left, undefined, w, this.now()) ?? 0 };
  }
}
