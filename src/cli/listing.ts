// `--all` for a list that pages: the pages followed (client/pages.ts) inside one snapshot where the
// transport has one, each page written as it arrives (render/stream.ts), and the progress line on
// stderr when stderr is a terminal (ctx.status): count, total, rate, time left, and the wait for the
// rate-limit window. Nothing on stderr otherwise.
import type { ApiResult } from '../client/client.js';
import type { UsageError } from '../errors.js';
import { pages, type PageOf, type PagingProgress } from '../client/pages.js';
import { tableTools } from '../render/output.js';
import type { ProgressState } from '../render/progress-line.js';
import type { RowWriter } from '../render/json-writer.js';
import { rowWriter, type TableSpec } from '../render/stream.js';
import type { Context } from './context.js';
import { terminalWidth } from './io.js';
import { keepHeapFlat } from './heap.js';

/** The listing's progress line. */
export function progressState(what: string, p: PagingProgress, nowMs: number): ProgressState {
  return {
    done: p.done,
    total: p.total,
    unit: what,
    rate: p.rate,
    leftMs: p.leftMs,
    ...(p.waitingMs !== undefined ? { wait: { untilMs: nowMs + p.waitingMs, text: 'rate limited, resuming in' } } : {}),
  };
}

/** Streams every row of a paged list to stdout in the context's format. */
export async function streamAll<T>(
  ctx: Context,
  what: string,
  first: () => Promise<ApiResult<PageOf<T>>>,
  next: (link: string) => Promise<ApiResult<PageOf<T>>>,
  idOf: (row: T) => string,
  table: TableSpec<T>,
  startsAt = 0,
): Promise<void> {
  const { io } = ctx;
  // Memory flat in the number of rows (docs/design.md "Long listings"), a young generation of 2 MB.
  keepHeapFlat(10, 2);
  const tools = ctx.format === 'table' ? await tableTools(ctx.color, terminalWidth(io.stdout)) : undefined;
  const writer = rowWriter<T>(ctx.format, io.stdout, tools ? { tools, spec: table } : undefined, table.csv, ctx.shape);
  const client = await ctx.client();
  // Not over a pager's screen (cli/pager.ts).
  const live = io.stderr.isTTY && !io.paging;
  await client.snapshot(async (consistent) => {
    const pager = pages(await first(), next, {
      idOf,
      window: consistent ? 0 : undefined,
      startsAt,
      stop: () => io.stdout.closed === true,
      onProgress: live ? (p) => ctx.status.show(progressState(what, p, Date.now()), p.waitingMs !== undefined) : undefined,
    });
    // Each page is let go once written, before the next is awaited (not `for await`: its binding
    // stays in this function's suspended frame). Held, a page lives through the next one's reading,
    // about a young generation's worth of allocation, so it is promoted, and the old generation
    // grows with the rows until a full collection (docs/local.md "The ledger at volume").
    let step: IteratorResult<T[]> | undefined;
    while (!(step = await pager.next()).done) {
      // Written to stdout: on the same terminal, the line is cleared first (context.ts), and drawn again at the next page.
      writer.write(step.value);
      step = undefined;
    }
  });
  ctx.status.clear();
  writer.end();
}

/** A writer of records as they come (a batch's outcomes, a run's approvals), in the output chosen: json, ndjson, csv, or shaped (--json, --jq, --template). Not a table. */
export function recordWriter<T>(ctx: Context, done: string): RowWriter<T> {
  // A filter that fails on one of them stops only its printing (shape.ts AfterAction): the job goes on, recording what the service answers.
  const acted = { stderr: ctx.io.stderr, failed: (err: UsageError) => (ctx.filterFailure ??= { err, done }) };
  return rowWriter<T>(ctx.format, ctx.io.stdout, undefined, undefined, ctx.shape, acted);
}
