// `--all` for a list that pages: the pages followed (client/pages.ts) inside one snapshot where the
// transport has one, each page written as it arrives (render/stream.ts), and a progress line on
// stderr when stderr is a terminal: count, total, rate, time left, and the wait for the rate-limit
// window. Nothing on stderr otherwise.
import type { ApiResult } from '../client/client.js';
import { pages, type PageOf, type PagingProgress } from '../client/pages.js';
import { tableTools } from '../render/output.js';
import { CLEAR_LINE } from '../render/screen.js';
import { rowWriter, type TableSpec } from '../render/stream.js';
import type { Context } from './context.js';
import { terminalWidth } from './io.js';
import { keepHeapFlat } from './heap.js';

/** A wait or a time left, as a person reads it: 45s, 3m05s. */
export function seconds(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

export function progressText(what: string, p: PagingProgress): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const parts = [`${n(p.done)} of ${n(p.total)} ${what}`, `${n(p.rate)}/s`];
  if (p.waitingMs !== undefined) parts.push(`rate limit: waiting ${seconds(p.waitingMs)}`);
  if (p.leftMs !== undefined && p.done < p.total) parts.push(`about ${seconds(p.leftMs)} left`);
  return parts.join(', ');
}

/** Streams every row of a paged list to stdout in the context's format. */
export async function streamAll<T>(
  ctx: Context,
  what: string,
  first: () => Promise<ApiResult<PageOf<T>>>,
  next: (link: string) => Promise<ApiResult<PageOf<T>>>,
  idOf: (row: T) => string,
  table: TableSpec<T>,
): Promise<void> {
  const { io } = ctx;
  // Memory flat in the number of rows (docs/design.md "Long listings").
  keepHeapFlat();
  const tools = ctx.format === 'table' ? await tableTools(ctx.color, terminalWidth(io.stdout)) : undefined;
  const writer = rowWriter<T>(ctx.format, io.stdout, tools ? { tools, spec: table } : undefined);
  const client = await ctx.client();
  // Not over a pager's screen (cli/pager.ts).
  const live = io.stderr.isTTY && !io.paging;
  let shown = false;
  await client.snapshot(async (consistent) => {
    const pager = pages(await first(), next, {
      idOf,
      window: consistent ? 0 : undefined,
      stop: () => io.stdout.closed === true,
      onProgress: live
        ? (p) => {
            io.stderr.write(`${CLEAR_LINE}${progressText(what, p)}`);
            shown = true;
          }
        : undefined,
    });
    // Each page is let go once written, before the next is awaited (not `for await`: its binding
    // stays in this function's suspended frame). Held, a page lives through the next one's reading,
    // about a young generation's worth of allocation, so it is promoted, and the old generation
    // grows with the rows until a full collection (docs/design.md "The ledger at volume").
    let step: IteratorResult<T[]> | undefined;
    while (!(step = await pager.next()).done) {
      if (shown) io.stderr.write(CLEAR_LINE), (shown = false);
      writer.write(step.value);
      step = undefined;
    }
  });
  if (shown) io.stderr.write(CLEAR_LINE);
  writer.end();
}
