// Rate limits (docs/api.md "Limits"; docs/client.md "Over the wire: choices"): per key, the tier's requests per minute and
// concurrency, and each endpoint's requests per minute; the stricter answers. Every request with a
// valid key counts, refused ones included; a request without one counts against its address
// (docs/client.md "Over the wire: choices"), so every answer carries the X-RateLimit-* headers. Windows run
// on real time: limits are about traffic.
import type { CallerEnvironment } from '../engine/services/keys.js';

export interface Tier {
  /** Requests per minute per key. */
  perMinute: number;
  concurrent: number;
}

/**
 * The contract's sandbox tier is "unlimited requests per minute". Its window is counted against this
 * nominal limit, so that X-RateLimit-Limit and -Remaining are integers on every answer, as the contract's
 * example shows and as clients parse them; no test or script reaches it.
 */
export const SANDBOX_PER_MINUTE = 1_000_000;

export const TIERS: Record<CallerEnvironment, Tier> = {
  sandbox: { perMinute: SANDBOX_PER_MINUTE, concurrent: 10 },
  staging: { perMinute: 200, concurrent: 20 },
  // The production default tier.
  production: { perMinute: 100, concurrent: 10 },
};

/**
 * The X-RateLimit-* headers of a server that enforces no limit (`tpa local serve --no-rate-limit`),
 * which the contract puts on every answer all the same: the nominal "unlimited" of the sandbox tier
 * (SANDBOX_PER_MINUTE) as the limit, and as what remains, since nothing is counted and so nothing is
 * used up (a client pacing itself on X-RateLimit-Remaining never waits); the reset at the end of the
 * current minute, the contract's window, which RateLimit-Policy states.
 */
export function unlimitedHeaders(now: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(SANDBOX_PER_MINUTE),
    'x-ratelimit-remaining': String(SANDBOX_PER_MINUTE),
    'x-ratelimit-reset': String((Math.floor(now / 60_000) + 1) * 60),
    'ratelimit-policy': `${SANDBOX_PER_MINUTE};w=60`,
  };
}

/**
 * Requests per minute per address for callers without a valid key (no key, a wrong or expired one):
 * ample for a person or a script that lost its key, and slow for anyone guessing keys.
 */
export const ANONYMOUS_PER_MINUTE = 60;

export interface LimitVerdict {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds to wait, when refused. */
  retryAfter?: number;
  reason?: string;
}

interface Window {
  start: number;
  count: number;
}

interface Counted {
  limit: number;
  w: Window;
  name: string;
}

/** A window's length as a limit says it: "a minute", "a second", "every 2s". */
export function windowText(windowMs: number): string {
  if (windowMs === 60_000) return 'per minute';
  if (windowMs === 1000) return 'per second';
  return `every ${windowMs % 1000 === 0 ? `${windowMs / 1000}s` : `${windowMs}ms`}`;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  private count(id: string): Window {
    const t = this.now();
    // Forget windows that have ended, now and then, so that the map does not grow for ever.
    if (this.windows.size > 10_000) for (const [k, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(k);
    let w = this.windows.get(id);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(id, w);
    }
    w.count++;
    return w;
  }

  /** Counts a request of a key to an endpoint; call `release` when its answer is sent, if allowed. */
  admit(keyId: string, tier: Tier, endpoint: string, endpointPerMinute: number | null): LimitVerdict {
    const windows: Counted[] = [{ limit: tier.perMinute, w: this.count(`${keyId}`), name: 'the tier' }];
    if (endpointPerMinute !== null) windows.push({ limit: endpointPerMinute, w: this.count(`${keyId} ${endpoint}`), name: endpoint });
    const verdict = this.judge(windows);
    if (!verdict.allowed) return verdict;
    const running = this.inFlight.get(keyId) ?? 0;
    if (running >= tier.concurrent) return { allowed: false, headers: verdict.headers, retryAfter: 1, reason: `${tier.concurrent} concurrent requests` };
    this.inFlight.set(keyId, running + 1);
    return verdict;
  }

  /**
   * Counts a request that has no valid key against the address it came from. One window and no
   * concurrency count: such requests are answered before their body is read. Nothing to release.
   */
  admitAnonymous(address: string, perMinute = ANONYMOUS_PER_MINUTE): LimitVerdict {
    // One caller is one address, whether the socket shows it as IPv4 or IPv4-mapped IPv6.
    const w = this.count(`address ${address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}`);
    return this.judge([{ limit: perMinute, w, name: 'an address without a valid API key' }]);
  }

  /** The verdict of the windows a request counted in: the one with the fewest requests left answers. */
  private judge(windows: Counted[]): LimitVerdict {
    const strictest = windows.sort((a, b) => a.limit - a.w.count - (b.limit - b.w.count))[0]!;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(strictest.limit),
      'x-ratelimit-remaining': String(Math.max(0, strictest.limit - strictest.w.count)),
      'x-ratelimit-reset': String(Math.ceil((strictest.w.start + this.windowMs) / 1000)),
      // tpa's: the window's length, in the IETF draft's RateLimit-Policy (docs/api.md "Limits"), so
      // that a client shows the limit in force rather than assume the contract's minute.
      'ratelimit-policy': `${strictest.limit};w=${this.windowMs / 1000}`,
    };
    if (strictest.w.count > strictest.limit) {
      const retryAfter = Math.max(1, Math.ceil((strictest.w.start + this.windowMs - this.now()) / 1000));
      return { allowed: false, headers, retryAfter, reason: `${strictest.limit} requests ${windowText(this.windowMs)} for ${strictest.name}` };
    }
    return { allowed: true, headers };
  }

  release(keyId: string): void {
    const running = this.inFlight.get(keyId) ?? 0;
    if (running <= 1) this.inFlight.delete(keyId);
    else this.inFlight.set(keyId, running - 1);
  }
}
