// `tpa api --paginate` (docs/scripting.md "tpa api"): a GET of a paged list (`{count, next, results}`),
// its `next` links followed to the end, the rows written as each page arrives: one JSON array
// (written as it grows, closed only at the end) or, with `-o ndjson`, one row a line. Either way one
// page is held at a time. A link is followed only to the same list on the profile's own service.
import type { ApiResult, TpaClient } from '../../../client/client.js';
import type { PageOf } from '../../../client/pages.js';
import type { TransportResponse } from '../../../client/transport.js';
import { servedTarget } from '../../../domain/served-routes.js';
import { basePath } from '../../../domain/service-url.js';
import { EXIT, NetworkError, TpaError, errorFromResponse } from '../../../errors.js';
import type { Context } from '../../context.js';

/** Where `tpa api` prints (api.ts apiOutput): an answer's body, and a paged list's rows as they come. */
export interface ApiOutput {
  /** The answer's body, and its status (a filter that fails on it says the request was sent). */
  body(body: unknown, status: number): Promise<void>;
  rows(): Promise<{ write(rows: readonly unknown[]): Promise<void>; end(): Promise<void> }>;
}

export interface PagedRequest {
  /** The first page's target as sent: its served path, and its query. */
  target: string;
  headers: Record<string, string>;
  /** The profile's base URL over HTTP; undefined in-process, where links are paths. */
  base: string | undefined;
}

/** Whether an answer is a page of a list: `results` a list, `next` a link or null. */
function isPage(body: unknown): body is PageOf<unknown> {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return Array.isArray(b.results) && (b.next === null || typeof b.next === 'string');
}

/**
 * The target a `next` link names, if it names the next page of the same list on the same service:
 * the profile's scheme, host and port, under its base URL's path, the same path as the first page
 * (only the query differs), no user name. Anything else is the sentence that refuses it: tpa follows
 * no link off the profile's base URL, whatever an answer says.
 */
export function nextTarget(link: string, request: Pick<PagedRequest, 'target' | 'base'>): { target: string } | { problem: string } {
  const listPath = servedTarget(request.target)?.path ?? request.target;
  const origin = request.base ? new URL(request.base).origin : 'http://in-process.invalid';
  const prefix = request.base ? basePath(request.base) : '';
  let url: URL;
  try {
    url = new URL(link, `${origin}${prefix}${listPath}`);
  } catch {
    return { problem: 'it is not a URL' };
  }
  if (url.origin !== origin) return { problem: request.base ? `it is not on ${origin}, the profile's service` : 'the local engine names pages by their path' };
  if (url.username !== '' || url.password !== '') return { problem: 'it holds a user name or password' };
  if (`${url.pathname}` !== `${prefix}${listPath}`) return { problem: `it names another path than the list's ${prefix}${listPath}` };
  return { target: `${listPath}${url.search}` };
}

/**
 * Sends the first page's GET and follows its `next` links: the exit code (by the status of the first
 * answer, as without --paginate). An answer that is not a page is printed as it came. A later page
 * that fails, or a link refused, stops the listing with its error: the JSON array is then left
 * unclosed, so that no reader takes the rows so far for the whole list.
 */
export async function paginate(ctx: Context, client: TpaClient, request: PagedRequest, out: ApiOutput): Promise<number> {
  const [{ pages, rowsBefore }, { keepHeapFlat }] = await Promise.all([import('../../../client/pages.js'), import('../../heap.js')]);
  return client.snapshot(async () => {
    const first = await client.raw('GET', request.target, { headers: request.headers });
    if (first.status >= 300 || !isPage(first.body)) {
      if (first.status < 300) ctx.note('the answer is not a page of a list (no results and next): printed as it came');
      if (first.body !== undefined) await out.body(first.body, first.status);
      return exitOf(first);
    }
    keepHeapFlat();
    const writer = await out.rows();
    let pageNumber = 1;
    const fetchNext = async (link: string): Promise<ApiResult<PageOf<unknown>>> => {
      pageNumber++;
      const next = nextTarget(link, request);
      if ('problem' in next)
        throw new NetworkError(
          `page ${pageNumber}'s link "${shortLink(link)}" was not followed: ${next.problem}; tpa follows no link off the profile's base URL`,
          {
            code: 'answer_link_refused',
          },
        );
      const answer = await client.raw('GET', next.target, { headers: request.headers });
      if (answer.status >= 400) {
        const err = errorFromResponse(answer.status, answer.body);
        // Without the body: stdout holds the rows so far, and nothing else.
        throw new TpaError(err.exitCode, err.code, `page ${pageNumber} (GET ${next.target}): ${err.message}`, { status: answer.status });
      }
      if (!isPage(answer.body))
        throw new NetworkError(`page ${pageNumber} (GET ${next.target}) is not a page of the list (no results and next)`, { code: 'answer_unusable' });
      return { status: answer.status, headers: answer.headers, body: answer.body };
    };
    // Every row as answered: in-process one snapshot (no row twice); over HTTP offset pages may
    // shift under inserts, as the service answers them (`tpa ledger list --all` never repeats a row),
    // and rows that leave the list meanwhile end it with exit 8 (`--all` reads their page again).
    const pager = pages<unknown>({ status: first.status, headers: first.headers, body: first.body }, fetchNext, {
      idOf: () => '',
      window: 0,
      startsAt: rowsBefore(request.target),
      stop: () => ctx.io.stdout.closed === true,
    });
    let step: IteratorResult<unknown[]> | undefined;
    while (!(step = await pager.next()).done) {
      await writer.write(step.value);
      step = undefined;
    }
    await writer.end();
    return EXIT.OK;
  });
}

/** The exit code of an answer: its status's, 202 pending, 2xx success (docs/design.md "Exit codes"). */
export function exitOf(response: TransportResponse): number {
  return response.status >= 400 ? errorFromResponse(response.status, response.body).exitCode : response.status === 202 ? EXIT.PENDING : EXIT.OK;
}

function shortLink(link: string): string {
  const bare = link.replace(/^([a-z]+:\/\/)[^/?#]*@/i, '$1…@');
  return bare.length > 120 ? `${bare.slice(0, 120)}…` : bare;
}
