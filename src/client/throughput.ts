// The pace of a long job (docs/design.md "Long jobs"): how fast the work that costs time goes (claims
// sent, not those a resume skips), how many requests the service's rate-limit window still allows
// (X-RateLimit-Limit, -Remaining and -Reset), and the time left, which under a limit follows the
// limit rather than the sending rate. Pure: the clock is given.

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

/** A rate-limit window's length when the answers do not show it: the contract's limits are per minute. */
export const DEFAULT_WINDOW_MS = 60_000;

/**
 * The requests a job may have in flight: fewer than the window has left, so that the service refuses
 * none (a request refused still counts against the window). Read from every answer's headers.
 */
export class RateWindow {
  limit: number | undefined;
  private remaining: number | undefined;
  private resetAtMs: number | undefined;
  private windowMs = DEFAULT_WINDOW_MS;

  /** Takes in an answer's headers; true the first time they show a limit. */
  observe(headers: Record<string, string>, _nowMs?: number): boolean {
    const limit = Number(headers['x-ratelimit-limit']);
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (!headers['x-ratelimit-remaining'] || !Number.isFinite(remaining) || !Number.isFinite(reset) || reset <= 0) return false;
    const first = this.limit === undefined && Number.isFinite(limit) && limit > 0;
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
    const resetAtMs = reset * 1000;
    if (this.resetAtMs === undefined || resetAtMs > this.resetAtMs) {
      // A new window: its length is how far its end is from the last one's (when the job went on between).
      if (this.resetAtMs !== undefined && resetAtMs - this.resetAtMs <= this.windowMs * 2 && resetAtMs - this.resetAtMs >= 1000)
        this.windowMs = Math.min(this.windowMs, resetAtMs - this.resetAtMs);
      this.resetAtMs = resetAtMs;
      this.remaining = remaining;
    } else if (resetAtMs === this.resetAtMs) {
      // Answers come back out of order: the fewest left is the latest count.
      this.remaining = Math.min(this.remaining ?? remaining, remaining);
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

  /** The window has ended (the wait is over): a fresh one allows its limit. */
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
