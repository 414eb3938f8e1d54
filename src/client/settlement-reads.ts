// The settlement records of many encounters, read as settlement report, fund history and
// settlement remit need them: a few requests in flight at once, all paced by the service's rate
// limit headers (X-RateLimit-Remaining 0: every worker waits until the window resets).
import type { ApiResult, TpaClient } from './client.js';
import { NotFoundError } from '../errors.js';
import { pacingWaitMs } from './pages.js';
import type { LedgerDetail, SettlementRecord } from './types.js';

/** How many settlement reads are in flight at once. */
export const READS_IN_FLIGHT = 4;

export interface SettlementReadProgress {
  read: number;
  total: number;
  /** Set while the reads wait out the rate limit: the time they resume (ms since the epoch). */
  waitingUntilMs?: number;
}

/**
 * Each encounter's settlement record (null: the service has none, 202 or 404). A read that throws
 * is kept as its Error when `keepErrors`, else thrown (the reads in flight end first). In the
 * order of `ids`, whatever order they were answered in.
 */
export async function readSettlements(
  client: TpaClient,
  ids: readonly string[],
  options: { keepErrors?: boolean; inFlight?: number; onProgress?: (p: SettlementReadProgress) => void } = {},
): Promise<Map<string, SettlementRecord | null | Error>> {
  return readPaced(ids, (id) => client.settlement(id).catch(closedHistory) as Promise<ApiResult<SettlementRecord>>, options);
}

/**
 * A claim a corrected claim closed answers 404 no_settlement; one whose transfer FAILED or was
 * REFUNDED before it was closed sends that record as `history`: the money moved and came back (or
 * never moved), which the books keep (docs/api-resources.md "Settlement"). Read as that record; else rethrown.
 */
function closedHistory(err: unknown): ApiResult<SettlementRecord | null> {
  if (err instanceof NotFoundError && err.code === 'no_settlement') {
    const history = (err.body as { history?: SettlementRecord } | undefined)?.history;
    return { status: history ? 200 : 404, headers: {}, body: history ?? null };
  }
  throw err;
}

/** The ledger detail of each encounter (null: none), read as readSettlements reads settlement records. */
export function readLedgerDetails(
  client: TpaClient,
  ids: readonly string[],
  options: { inFlight?: number; onProgress?: (p: SettlementReadProgress) => void } = {},
): Promise<Map<string, LedgerDetail | null | Error>> {
  return readPaced(ids, (id) => client.ledgerDetail(id), options);
}

/** One answer per id, a few requests in flight at once, paced by the rate-limit headers. */
async function readPaced<T>(
  ids: readonly string[],
  readOne: (id: string) => Promise<ApiResult<T>>,
  options: { keepErrors?: boolean; inFlight?: number; onProgress?: (p: SettlementReadProgress) => void },
): Promise<Map<string, T | null | Error>> {
  const out = new Map<string, T | null | Error>();
  let next = 0;
  let read = 0;
  let pausedUntil = 0;
  let failed: unknown;
  const worker = async () => {
    while (next < ids.length && failed === undefined) {
      const id = ids[next++]!;
      const wait = pausedUntil - Date.now();
      if (wait > 0) {
        options.onProgress?.({ read, total: ids.length, waitingUntilMs: pausedUntil });
        await new Promise((r) => setTimeout(r, wait));
      }
      try {
        const s = await readOne(id);
        pausedUntil = Math.max(pausedUntil, Date.now() + pacingWaitMs(s.headers, Date.now()));
        out.set(id, s.status === 200 ? s.body : null);
      } catch (err) {
        if (!options.keepErrors) {
          failed ??= err;
          return;
        }
        out.set(id, err instanceof Error ? err : new Error(String(err)));
      }
      read++;
      options.onProgress?.({ read, total: ids.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.inFlight ?? READS_IN_FLIGHT, ids.length) }, worker));
  if (failed !== undefined) throw failed;
  return new Map(ids.filter((id) => out.has(id)).map((id) => [id, out.get(id)!]));
}
