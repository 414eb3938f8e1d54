// The page iterator of --all: it waits for the rate-limit window before the request
// that would be refused (not after a 429), ignores limits it cannot read, says how long is left,
// and never hands on a row twice.
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/client/client.js';
import { pacingWaitMs, pages, type PageOf, type PagingProgress } from '../../src/client/pages.js';

type Row = { id: string };
const page = (ids: string[], next: string | null, headers: Record<string, string> = {}, count = 6): ApiResult<PageOf<Row>> => ({
  status: 200,
  headers,
  body: { count, next, results: ids.map((id) => ({ id })) },
});

describe('pacingWaitMs', () => {
  it('waits until the reset (plus a second) only when no request is left', () => {
    expect(pacingWaitMs({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1000' }, 990_000)).toBe(11_000);
    expect(pacingWaitMs({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '1000' }, 990_000)).toBe(0);
    expect(pacingWaitMs({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '900' }, 990_000)).toBe(0);
    expect(pacingWaitMs({ 'x-ratelimit-remaining': 'unlimited', 'x-ratelimit-reset': '1000' }, 990_000)).toBe(0);
    expect(pacingWaitMs({}, 990_000)).toBe(0);
    expect(pacingWaitMs({ 'x-ratelimit-remaining': '0' }, 990_000)).toBe(0);
  });
});

describe('pages', () => {
  it('sleeps before the next request when the window is spent, reports the wait and the time left, and yields each page once', async () => {
    let clock = 1_000_000;
    const sleeps: number[] = [];
    const requested: string[] = [];
    const later = { '/2': page(['c', 'd'], '/3', { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '1070' }), '/3': page(['e', 'f'], null) } as Record<
      string,
      ApiResult<PageOf<Row>>
    >;
    const progress: PagingProgress[] = [];
    const got: string[][] = [];
    const it = pages(
      page(['a', 'b'], '/2', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1060' }),
      async (link) => (requested.push(`${link}@${clock}`), later[link]!),
      {
        idOf: (r) => r.id,
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
        onProgress: (p) => progress.push(p),
      },
    );
    for await (const rows of it) {
      got.push(rows.map((r) => r.id));
      clock += 1000;
    }
    expect(got).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
    // The window resets at 1,060 s: the second request goes after it, not before.
    expect(sleeps).toEqual([60_000]);
    expect(requested).toEqual(['/2@1061000', '/3@1062000']);
    expect(progress.find((p) => p.waitingMs !== undefined)).toMatchObject({ done: 2, total: 6, waitingMs: 60_000 });
    expect(progress.at(-1)).toMatchObject({ done: 6, total: 6 });
    expect(progress[0]!.leftMs).toBeGreaterThan(0);
  });

  it('drops a row shifted onto the next page by an insert, within its window of recent ids', async () => {
    const next = { '/2': page(['b', 'c'], '/3'), '/3': page(['c', 'd'], null) } as Record<string, ApiResult<PageOf<Row>>>;
    const got: string[] = [];
    for await (const rows of pages(page(['a', 'b'], '/2'), async (l) => next[l]!, { idOf: (r) => r.id, window: 2 })) got.push(...rows.map((r) => r.id));
    expect(got).toEqual(['a', 'b', 'c', 'd']);
  });

  it('remembers no id when its pages come from one snapshot (window 0), where no row can come twice', async () => {
    const next = { '/2': page(['c', 'd'], null, {}, 4) } as Record<string, ApiResult<PageOf<Row>>>;
    const got: string[] = [];
    let asked = 0;
    const idOf = (r: Row) => (asked++, r.id);
    for await (const rows of pages(page(['a', 'b'], '/2', {}, 4), async (l) => next[l]!, { idOf, window: 0 })) got.push(...rows.map((r) => r.id));
    expect(got).toEqual(['a', 'b', 'c', 'd']);
    expect(asked).toBe(0);
  });

  it('steps back at most as many rows as the first page counted: a service whose count falls at every page still ends, exit 8', async () => {
    let asked = 0;
    const at = (link: string) => Number(/offset=(\d+)/.exec(link)![1]);
    const answer = (offset: number) => {
      asked++;
      const p = page([`r${offset}`, `r${offset + 1}`], offset + 2 < 8 ? `/l?offset=${offset + 2}` : null, {}, 100 - asked);
      return p;
    };
    const got: string[] = [];
    const read = async () => {
      for await (const rows of pages(answer(0), async (l) => answer(at(l)), { idOf: (r) => r.id })) got.push(...rows.map((r) => r.id));
    };
    await expect(read()).rejects.toMatchObject({ code: 'list_changed', exitCode: 8 });
    expect(asked).toBeLessThan(120);
    expect(new Set(got).size).toBe(got.length);
  });

  it('stops fetching when told to (the reader of stdout went away)', async () => {
    let fetched = 0;
    const got: string[] = [];
    for await (const rows of pages(page(['a'], '/2'), async () => (fetched++, page(['b'], null)), { idOf: (r) => r.id, stop: () => true }))
      got.push(...rows.map((r) => r.id));
    expect(got).toEqual(['a']);
    expect(fetched).toBe(0);
  });
});
