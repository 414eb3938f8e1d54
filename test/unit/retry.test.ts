// The retry rules of docs/client.md "Client behaviour" (src/client/retry.ts), against a scripted transport: what
// is resent, how long each wait is, and what is never resent (a fund release after a 5xx or a lost
// connection; anything after a TLS failure).
import { describe, expect, it } from 'vitest';
import { RetryingTransport, rateLimitWait, safeToRepeat, type RetryOptions } from '../../src/client/retry.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/client/transport.js';
import { NetworkError, UsageError } from '../../src/errors.js';

type Step = TransportResponse | Error;

/** A transport that answers each send with the next scripted step, and counts the sends. */
class Scripted implements Transport {
  readonly name = 'scripted';
  sent: TransportRequest[] = [];
  closed = 0;
  constructor(private readonly steps: Step[]) {}
  async send(req: TransportRequest): Promise<TransportResponse> {
    this.sent.push(req);
    const step = this.steps[Math.min(this.sent.length - 1, this.steps.length - 1)]!;
    if (step instanceof Error) throw step;
    return step;
  }
  close(): void {
    this.closed++;
  }
}

const ok: TransportResponse = { status: 200, headers: {}, body: { ok: true } };
const status = (s: number, body: unknown = { error: 'x' }, headers: Record<string, string> = {}): TransportResponse => ({ status: s, headers, body });
const lost = () => new NetworkError('the connection was reset');
const GET: TransportRequest = { method: 'GET', path: '/tpa-api/v1/ledger/entries/', headers: {} };
const FUND: TransportRequest = { method: 'POST', path: '/tpa-api/v1/funding/approve/', headers: { 'idempotency-key': 'k-1' }, body: '{}' };
const SUBMIT: TransportRequest = { method: 'POST', path: '/tpa-api/v1/claims/submit/', headers: { 'idempotency-key': 'k-2' }, body: '{}' };

/** Sends one request through the retry layer with recorded waits and a fixed jitter. */
async function run(steps: Step[], req: TransportRequest, options: RetryOptions & { jitter?: number } = {}) {
  const inner = new Scripted(steps);
  const waits: number[] = [];
  const notes: { reason: string; waitMs: number; attempt: number; attempts: number }[] = [];
  const transport = new RetryingTransport(inner, {
    sleep: async (ms) => void waits.push(ms),
    random: () => options.jitter ?? 0,
    onWait: (info) => notes.push(info),
    ...options,
  });
  let result: TransportResponse | undefined;
  let error: unknown;
  try {
    result = await transport.send(req);
  } catch (err) {
    error = err;
  }
  return { inner, waits, notes, result, error, transport };
}

describe('what is safe to send twice', () => {
  it('reads are, whatever their path', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(safeToRepeat({ method, path: '/tpa-api/v1/funding/approve/', headers: {} }), method).toBe(true);
    }
  });

  it('a fund release never is, with or without an Idempotency-Key, a trailing slash or a query', () => {
    for (const path of ['/tpa-api/v1/funding/approve/', '/tpa-api/v1/funding/approve', '/tpa-api/v1/funding/approve/?dry=1', '/x/funding/approve']) {
      expect(safeToRepeat({ method: 'POST', path, headers: { 'idempotency-key': 'k' } }), path).toBe(false);
    }
  });

  it('the contract look-ups are (they change nothing), and only those two', () => {
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/contract-lookup/blind/', headers: {} })).toBe(true);
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/contract-lookup/full/', headers: {} })).toBe(true);
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/contract-lookup/other/', headers: {} })).toBe(false);
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/contract-lookup/blind/extra', headers: {} })).toBe(false);
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/contract-lookup/fullx/', headers: {} })).toBe(false);
  });

  it('another write is when it carries an Idempotency-Key, and only then', () => {
    expect(safeToRepeat(SUBMIT)).toBe(true);
    expect(safeToRepeat({ ...SUBMIT, headers: {} })).toBe(false);
    expect(safeToRepeat({ method: 'PATCH', path: '/api/v1/x/', headers: {} })).toBe(false);
    // A path that only contains the funding route's words is another route.
    expect(safeToRepeat({ method: 'POST', path: '/tpa-api/v1/funding/approve/history', headers: { 'idempotency-key': 'k' } })).toBe(true);
  });
});

describe('how long a 429 asks to wait', () => {
  it('retry_after seconds first, zero included', () => {
    expect(rateLimitWait(status(429, { retry_after: 7 }, { 'x-ratelimit-reset': '1' }))).toBe(7000);
    expect(rateLimitWait(status(429, { retry_after: 0 }, { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) }))).toBe(0);
  });

  it('else until X-RateLimit-Reset (epoch seconds), never less than nothing', () => {
    const reset = Math.floor(Date.now() / 1000) + 20;
    const wait = rateLimitWait(status(429, { retry_after: -1 }, { 'x-ratelimit-reset': String(reset) }));
    expect(wait).toBeGreaterThan(18_000);
    expect(wait).toBeLessThanOrEqual(20_000);
    expect(rateLimitWait(status(429, { retry_after: '5' }, { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) - 100) }))).toBe(0);
  });

  it('else one second: no body, no header, a header that is no time', () => {
    expect(rateLimitWait(status(429, undefined))).toBe(1000);
    expect(rateLimitWait(status(429, {}, { 'x-ratelimit-reset': 'soon' }))).toBe(1000);
    expect(rateLimitWait(status(429, {}, { 'x-ratelimit-reset': '0' }))).toBe(1000);
  });
});

describe('the retry layer', () => {
  it('passes an answer through untouched and keeps the inner transport name; close reaches the inner transport', async () => {
    const r = await run([ok], GET);
    expect(r.result).toBe(ok);
    expect(r.inner.sent).toHaveLength(1);
    expect(r.waits).toEqual([]);
    expect(r.transport.name).toBe('scripted');
    r.transport.close();
    expect(r.inner.closed).toBe(1);
    // A transport without close is closed without fault.
    expect(() => new RetryingTransport({ name: 'bare', send: async () => ok }).close()).not.toThrow();
  });

  it('resends a read after 5xx answers with exponential backoff and jitter, four tries in all by default', async () => {
    const r = await run([status(503), status(500), status(502), ok], GET, { jitter: 0.999 });
    expect(r.result).toBe(ok);
    expect(r.inner.sent).toHaveLength(4);
    expect(r.waits).toEqual([500 + 249, 1000 + 249, 2000 + 249]);
    expect(r.notes.map((n) => [n.reason, n.attempt, n.attempts])).toEqual([
      ['server error 503', 1, 4],
      ['server error 500', 2, 4],
      ['server error 502', 3, 4],
    ]);
  });

  it('gives the last 5xx back after the last try', async () => {
    const r = await run([status(503)], GET);
    expect(r.result?.status).toBe(503);
    expect(r.inner.sent).toHaveLength(4);
    expect(r.waits).toEqual([500, 1000, 2000]);
  });

  it('caps the backoff at 8 seconds', async () => {
    const r = await run([status(500)], GET, { attempts: 7 });
    expect(r.inner.sent).toHaveLength(7);
    expect(r.waits).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('does not resend a 4xx other than 429', async () => {
    const r = await run([status(499), ok], GET);
    expect(r.result?.status).toBe(499);
    expect(r.inner.sent).toHaveLength(1);
  });

  it('resends a read after a lost connection, and throws the last failure once the tries are spent', async () => {
    const again = await run([lost(), ok], GET, { jitter: 0.5 });
    expect(again.result).toBe(ok);
    expect(again.waits).toEqual([500 + 125]);
    expect(again.notes[0]).toEqual({ reason: 'the connection was reset', waitMs: 625, attempt: 1, attempts: 4 });

    const spent = await run([lost()], GET, { attempts: 2 });
    expect(spent.error).toBeInstanceOf(NetworkError);
    expect(spent.inner.sent).toHaveLength(2);
  });

  it('never resends after a TLS failure: it would fail the same way', async () => {
    const tls = new NetworkError("the service's TLS certificate is not trusted", { code: 'tls_untrusted' });
    const r = await run([tls, ok], GET);
    expect(r.error).toBe(tls);
    expect(r.inner.sent).toHaveLength(1);
    expect(r.waits).toEqual([]);
  });

  it('never resends after an error that is not the network (a bad setup)', async () => {
    const bad = new UsageError('cannot send: Invalid URL');
    const r = await run([bad, ok], GET);
    expect(r.error).toBe(bad);
    expect(r.inner.sent).toHaveLength(1);
  });

  it('never resends a fund release after a lost connection or a 5xx', async () => {
    const dropped = await run([lost(), ok], FUND);
    expect(dropped.error).toBeInstanceOf(NetworkError);
    expect(dropped.inner.sent).toHaveLength(1);

    const failed = await run([status(503), ok], FUND);
    expect(failed.result?.status).toBe(503);
    expect(failed.inner.sent).toHaveLength(1);
    expect(failed.waits).toEqual([]);
  });

  it('resends a fund release refused with 429: it was refused unprocessed', async () => {
    const r = await run([status(429, { retry_after: 2 }), ok], FUND, { jitter: 0.5 });
    expect(r.result).toBe(ok);
    expect(r.inner.sent).toHaveLength(2);
    expect(r.waits).toEqual([2000 + 250]);
    expect(r.notes[0]?.reason).toBe('rate limited');
  });

  it('resends a claim submission (it carries an Idempotency-Key) after a lost connection, the same key each time', async () => {
    const r = await run([lost(), status(502), ok], SUBMIT);
    expect(r.result).toBe(ok);
    expect(r.inner.sent.map((s) => s.headers['idempotency-key'])).toEqual(['k-2', 'k-2', 'k-2']);
  });

  it('does not resend a write without an Idempotency-Key after a 5xx', async () => {
    const r = await run([status(500), ok], { ...SUBMIT, headers: {} });
    expect(r.result?.status).toBe(500);
    expect(r.inner.sent).toHaveLength(1);
  });

  it('on 429 waits what the answer asks, and gives the 429 back after the last try', async () => {
    const r = await run([status(429, { retry_after: 1 })], GET, { attempts: 3 });
    expect(r.result?.status).toBe(429);
    expect(r.inner.sent).toHaveLength(3);
    expect(r.waits).toEqual([1000, 1000]);
  });

  it('on 429 without retry_after waits until X-RateLimit-Reset', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 30);
    const r = await run([status(429, { error: 'rate_limit_exceeded' }, { 'x-ratelimit-reset': reset }), ok], GET);
    expect(r.result).toBe(ok);
    expect(r.waits).toHaveLength(1);
    expect(r.waits[0]).toBeGreaterThan(28_000);
    expect(r.waits[0]).toBeLessThanOrEqual(30_000);
  });

  it('on 429 gives up at once when the wait is longer than it will wait (five minutes unless told)', async () => {
    const atLimit = await run([status(429, { retry_after: 300 }), ok], GET);
    expect(atLimit.result).toBe(ok);
    expect(atLimit.waits).toEqual([300_000]);

    const over = await run([status(429, { retry_after: 301 }), ok], GET);
    expect(over.result?.status).toBe(429);
    expect(over.inner.sent).toHaveLength(1);
    expect(over.waits).toEqual([]);

    const told = await run([status(429, { retry_after: 3 }), ok], GET, { maxRateLimitWaitMs: 2999 });
    expect(told.result?.status).toBe(429);
    expect(told.inner.sent).toHaveLength(1);
  });

  it('waits for real when no sleep is given, and draws its own jitter', async () => {
    const inner = new Scripted([status(429, { retry_after: 0 }), ok]);
    const transport = new RetryingTransport(inner, { maxRateLimitWaitMs: 600 });
    // retry_after 0 plus a jitter under half a second stays under the 600 ms it may wait.
    expect(await transport.send(GET)).toBe(ok);
    expect(inner.sent).toHaveLength(2);
  });
});
