// Follows a list's `next` links page by page (docs/design.md "Streaming lists"): each page
// is handed on as it arrives, so a listing of any length holds one page in memory. It paces itself
// by the rate-limit headers, waiting for the window to reset before a request that would be
// refused rather than after a 429, and never hands on a row twice (over HTTP an insert during the
// listing shifts offset pages; a bounded window of recent ids absorbs the shift).
import { NetworkError, TpaError } from '../errors.js';
import { CATALOG_DEFAULT_PAGE_SIZE } from '../domain/page-size.js';
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
  /** Rows of the list before the first page (a listing begun mid-list): its count is reached from there. */
  startsAt?: number;
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
  const freshOf = recentIds(options.idOf, windowSize);
  const started = now();
  const total = first.body.count;
  let done = 0;
  const progress = (waitingMs?: number) => {
    if (!options.onProgress) return;
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    options.onProgress({ done, total, rate, leftMs: rate > 0 ? (Math.max(0, total - done) / rate) * 1000 : undefined, waitingMs });
  };
  let page: ApiResult<PageOf<T>> = first;
  let link: string | undefined;
  let followed = new Set<string>();
  let received = options.startsAt ?? 0;
  let lastCount = first.body.count;
  // Rows that left the list while it was read (a count below the page before's), and how far it stepped back.
  let left = 0;
  let steppedBack = 0;
  for (let number = 1; ; number++) {
    const drop = dropOf(lastCount, page.body.count);
    lastCount = page.body.count;
    if (drop > 0 && link !== undefined) {
      // Offset pages: rows after those that left moved up past this page's start, unread. Read again from
      // as many rows earlier (rows handed on are skipped by id); steps back bounded by the first count.
      const back = windowSize > 0 && steppedBack + drop <= total ? stepBack(link, drop) : undefined;
      if (back !== undefined) {
        steppedBack += drop;
        received = Math.max(0, received - drop);
        followed = new Set<string>();
        link = back;
        page = await laterPage(fetchNext, back, number);
        continue;
      }
      left += drop;
    }
    received += page.body.results.length;
    const fresh = freshOf(page.body.results);
    done += fresh.length;
    if (fresh.length > 0) yield fresh;
    progress();
    const next = page.body.next;
    if (options.stop?.()) return;
    if (!next) return endOfList(received, page.body.count, number, left);
    nextFollowable(next, number, page.body.results.length, followed);
    const wait = pacingWaitMs(page.headers, now());
    if (wait > 0) {
      progress(wait);
      await sleep(wait);
    }
    link = next;
    page = await laterPage(fetchNext, next, number + 1);
  }
}

/**
 * The rows of a page not handed on already: a ring of the last `windowSize` ids, the oldest leaving
 * the set as a new one comes in. Remembering ids costs memory that grows with the listing (each id
 * outlives a young-generation collection, so it is promoted and only a full collection frees it):
 * only where rows can repeat (0: every row is fresh).
 */
function recentIds<T>(idOf: (row: T) => string, windowSize: number): (rows: readonly T[]) => T[] {
  if (windowSize === 0) return (rows) => [...rows];
  const seen = new Set<string>();
  const ring: (string | undefined)[] = new Array(windowSize);
  let at = 0;
  return (rows) => {
    const fresh: T[] = [];
    for (const row of rows) {
      const id = idOf(row);
      if (seen.has(id)) continue;
      const oldest = ring[at];
      if (oldest !== undefined) seen.delete(oldest);
      ring[at] = id;
      at = (at + 1) % windowSize;
      seen.add(id);
      fresh.push(row);
    }
    return fresh;
  };
}

/**
 * The rules of a `next` link (docs/design.md "Streaming lists"), for every listing that follows
 * them (`--all`, `tpa api --paginate`, the runs' and batches' reads): a link already followed is a
 * loop, and so is a page with no rows that still names a next one; either stops the listing, exit 8.
 */
function nextFollowable(next: string, number: number, rows: number, followed: Set<string>): void {
  if (followed.has(next))
    throw new NetworkError(`page ${number}'s next link names a page already read: the service's pages loop; the listing stops there`, {
      code: 'pages_loop',
    });
  if (rows === 0)
    throw new NetworkError(`page ${number} has no rows but names a next page: the service's pages do not end; the listing stops there`, {
      code: 'pages_loop',
    });
  followed.add(next);
}

/**
 * The last page (no `next`): the rows received must make up its `count`, the list's length as the
 * service answered the last page (rows removed meanwhile are out of it). Fewer is a list cut short:
 * exit 8 naming both, never a short list passed for whole.
 */
function endOfList(received: number, count: number, pagesRead: number, left: number): void {
  if (left > 0)
    throw new NetworkError(
      `the list changed while it was read: ${left} row${left === 1 ? '' : 's'} left it after it began; what was printed may miss rows that were still in it; run it again`,
      { code: 'list_changed' },
    );
  if (Number.isInteger(count) && received < count)
    throw new NetworkError(
      `the list ended short: ${received} row${received === 1 ? '' : 's'} received in ${pagesRead} page${pagesRead === 1 ? '' : 's'}, but the service counts ${count}; what was printed is not the whole list`,
      { code: 'list_short' },
    );
}

/** How many rows left the list between two pages: by how much its count fell (0 when it did not, or a count is not a number). */
function dropOf(before: number, after: number): number {
  return Number.isInteger(before) && Number.isInteger(after) && after < before ? before - after : 0;
}

/**
 * The link of the page `by` rows before the one `link` names, for an offset page (`offset=N` in its
 * query); undefined for any other link (a page number cannot step back by rows).
 */
export function stepBack(link: string, by: number): string | undefined {
  const match = /([?&]offset=)(\d+)(?=&|#|$)/.exec(link);
  if (!match) return undefined;
  const offset = Math.max(0, Number(match[2]) - by);
  return `${link.slice(0, match.index)}${match[1]}${offset}${link.slice(match.index + match[0].length)}`;
}

/**
 * How many rows of the list come before the first page a query asks: its `offset`, or by its `page`
 * (from 1) of `page_size` rows (the catalog's default when absent); 0 for a query with neither.
 */
export function rowsBefore(target: string): number {
  const at = target.indexOf('?');
  const query = new URLSearchParams(at < 0 ? '' : target.slice(at + 1));
  const whole = (name: string): number | undefined => {
    const text = query.get(name);
    return text !== null && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const offset = whole('offset');
  if (offset !== undefined) return offset;
  const page = whole('page');
  if (page === undefined || page < 1) return 0;
  return (page - 1) * (whole('page_size') ?? CATALOG_DEFAULT_PAGE_SIZE);
}

/** A later page: an error answer says which page, without its body (stdout keeps the rows so far, and nothing else). */
async function laterPage<T>(fetchNext: (link: string) => Promise<ApiResult<PageOf<T>>>, link: string, number: number): Promise<ApiResult<PageOf<T>>> {
  try {
    return await fetchNext(link);
  } catch (err) {
    if (!(err instanceof TpaError) || err.body === undefined) throw err;
    throw new TpaError(err.exitCode, err.code, `page ${number}: ${err.message}`, { status: err.status, hint: err.hint });
  }
}
