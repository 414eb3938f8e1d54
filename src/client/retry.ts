// The retry rules of docs/client.md "Client behaviour": a 429 waits `retry_after` (or X-RateLimit-Reset) plus
// jitter and tries again; a 5xx or a lost connection is retried with exponential backoff and jitter,
// but only for requests that are safe to repeat. A fund release is never resent after a 5xx or a
// lost connection (the CLI checks what happened instead); a 429 means it was refused unprocessed.
import { releasesMoney, servedTarget } from '../domain/served-routes.js';
import { AuthError, NetworkError, RateLimitedError, type TpaError } from '../errors.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

export interface RetryOptions {
  /** Tries in all, the first included. */
  attempts?: number;
  /** Longest single wait for a 429 before giving up (exit 6). */
  maxRateLimitWaitMs?: number;
  onWait?: (info: { reason: string; waitMs: number; attempt: number; attempts: number }) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

// mutation: no survivors (the retry rule for funding)
const FUNDING = /\/funding\/approve\/?$/i;

/** Safe to send twice: reads, read-only lookups, and writes that carry an Idempotency-Key (not funding). */
export function safeToRepeat(req: TransportRequest): boolean {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return true;
  // A fund release however its path is spelt: the route the service will match, not the string. (A
  // request that a base URL's path would make one is never sent at all: client/http.ts.)
  if (releasesMoney(req.method, req.path) || FUNDING.test(servedTarget(req.path)?.path ?? req.path)) return false;
  if (/\/contract-lookup\/(blind|full)\/$/.test(req.path)) return true;
  return req.headers['idempotency-key'] !== undefined;
}
// mutation: end

/**
 * Whether an error, after the retries above, stops a long job (a batch, a payment run) rather than
 * failing one item: the limits, the network or the credentials will fail the next item the same way.
 */
export function stopsTheJob(err: unknown): boolean {
  return err instanceof NetworkError || err instanceof RateLimitedError || err instanceof AuthError;
}

export class RetryingTransport implements Transport {
  readonly name: string;

  constructor(
    private readonly inner: Transport,
    private readonly options: RetryOptions = {},
  ) {
    this.name = inner.name;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const attempts = this.options.attempts ?? 4;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const random = this.options.random ?? Math.random;
    const backoff = (attempt: number) => Math.min(8000, 500 * 2 ** (attempt - 1)) + Math.floor(random() * 250);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let response: TransportResponse;
      try {
        response = await this.inner.send(req);
      } catch (err) {
        // A TLS failure, a local database that cannot be opened, or an answer that came but cannot be
        // used (a redirect, a success that is not JSON, one too large) will fail the same way again: no retry.
        if (
          !(err instanceof NetworkError) ||
          err.code.startsWith('tls_') ||
          err.code.startsWith('answer_') ||
          err.code === 'storage_unavailable' ||
          last ||
          !safeToRepeat(req)
        )
          throw err;
        const waitMs = backoff(attempt);
        this.options.onWait?.({ reason: err.message, waitMs, attempt, attempts });
        await sleep(waitMs);
        continue;
      }
      if (response.status === 429 && !last) {
        const waitMs = rateLimitWait(response) + Math.floor(random() * 500);
        if (waitMs > (this.options.maxRateLimitWaitMs ?? 5 * 60_000)) return response;
        this.options.onWait?.({ reason: 'rate limited', waitMs, attempt, attempts });
        await sleep(waitMs);
        continue;
      }
      // The local database busy past its wait, or full: it has already waited; say so at once.
      const storage = (response.body as { error?: unknown } | undefined)?.error === 'storage_unavailable';
      if (response.status >= 500 && !last && !storage && safeToRepeat(req)) {
        const waitMs = backoff(attempt);
        this.options.onWait?.({ reason: `server error ${response.status}`, waitMs, attempt, attempts });
        await sleep(waitMs);
        continue;
      }
      return response;
    }
  }

  /** The inner transport's, where it has one: whether a listing can repeat a row depends on it. */
  get snapshot(): Transport['snapshot'] {
    return this.inner.snapshot?.bind(this.inner);
  }

  close(): void {
    this.inner.close?.();
  }
}

/** How long a 429 asks to wait: `retry_after` seconds, else until X-RateLimit-Reset, else 1 s. */
export function rateLimitWait(response: TransportResponse): number {
  const body = response.body as { retry_after?: unknown } | undefined;
  if (typeof body?.retry_after === 'number' && body.retry_after >= 0) return body.retry_after * 1000;
  const reset = Number(response.headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - Date.now());
  return 1000;
}

/**
 * The same wait for a 429 that came back as an error (its retries spent): a long job that can wait
 * (polling for adjudications) waits it out before its next request, rather than stop.
 */
export function rateLimitWaitOf(err: TpaError): number {
  return rateLimitWait({ status: 429, headers: {}, body: err.body });
}
