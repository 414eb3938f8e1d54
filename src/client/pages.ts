// Follows a list's `next` links page by page (docs/design.md "Streaming lists"): each page
// is handed on as it arrives, so a listing of any length holds one page in memory. It paces itself
// by the rate-limit headers, waiting for the window to reset before a request that would be
// refused rather than after a 429, and never hands on a row twice (over HTTP an insert during the
// listing shifts offset pages; a bounded window of recent ids absorbs the shift).
import type { ApiResult } from './client.js';

export interface PageOf<T> {
  count: number;
  next: string | null;
  results: T[];
}

export interface PagingProgress {
  /** Rows handed on so far, and the total the first page announced. */
  done: number;
  total: number;
  /** Rows per second since the start, waits included. */
  rate: number;
  /** Estimated milliseconds until the end at that rate (undefined until a rate is known). */
  leftMs?: number;
  /** While waiting for the rate-limit window: milliseconds until it resets. */
  waitingMs?: number;
}

export interface PagingOptions<T> {
  /** A row's identity, for never handing on a row twice. */
  idOf: (row: T) => string;
  onProgress?: (p: PagingProgress) => void;
  /** Whether to stop early (the reader of stdout went away). */
  stop?: () => boolean;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /**
   * How many recent ids to remember (default 10,000: a hundred pages of 100); 0 when every page comes
   * from one snapshot, where no row can come twice.
   */
  window?: number;
}

/**
 * How long to wait before the next request: until the window resets when it has no request left
 * (X-RateLimit-Remaining 0, X-RateLimit-Reset a Unix time in seconds), else 0. Headers that are
 * absent or not numbers (a service without limits) mean no wait.
 */
export function pacingWaitMs(headers: Record<string, string>, nowMs: number): number {
  const remaining = Number(headers['x-ratelimit-remaining']);
  const reset = Number(headers['x-ratelimit-reset']);
  const remainingText = headers['x-ratelimit-remaining'];
  if (remainingText === undefined || remainingText === '' || !Number.isFinite(remaining) || remaining > 0) return 0;
  if (!Number.isFinite(reset)) return 0;
  // A second's margin: the service counts whole seconds, and clocks differ a little.
  return Math.max(0, reset * 1000 - nowMs + 1000);
}

export async function* pages<T>(
  first: ApiResult<PageOf<T>>,
  fetchNext: (link: string) => Promise<ApiResult<PageOf<T>>>,
  options: PagingOptions<T>,
): AsyncGenerator<T[]> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  const windowSize = options.window ?? 10_000;
  const seen = new Set<string>();
  // A ring of the last `windowSize` ids: the oldest leaves the set as a new one comes in.
  // Remembering ids costs memory that grows with the listing (each id outlives a young-generation
  // collection, so it is promoted and only a full collection frees it): only where rows can repeat.
  const ring: (string | undefined)[] = new Array(windowSize);
  let at = 0;
  const started = now();
  const total = first.body.count;
  let done = 0;
  const progress = (waitingMs?: number) => {
    if (!options.onProgress) return;
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    options.onProgress({ done, total, rate, leftMs: rate > 0 ? (Math.max(0, total - done) / rate) * 1000 : undefined, waitingMs });
  };
  let page: ApiResult<PageOf<T>> | undefined = first;
  while (page) {
    const fresh: T[] = [];
    for (const row of page.body.results) {
      if (windowSize === 0) {
        fresh.push(row);
        continue;
      }
      const id = options.idOf(row);
      if (seen.has(id)) continue;
      const oldest = ring[at];
      if (oldest !== undefined) seen.delete(oldest);
      ring[at] = id;
      at = (at + 1) % windowSize;
      seen.add(id);
      fresh.push(row);
    }
    done += fresh.length;
    if (fresh.length > 0) yield fresh;
    progress();
    const next = page.body.next;
    if (!next || options.stop?.()) return;
    const wait = pacingWaitMs(page.headers, now());
    if (wait > 0) {
      progress(wait);
      await sleep(wait);
    }
    page = await fetchNext(next);
  }
}
