// Reading a span of time out of the ledger (docs/periods.md): the ledger filters by service date
// only, so the entries whose history may hold the span's events are read page by page over a window
// of service dates (the span's last day and the days before it, back to a bound the caller gives),
// paced by the rate-limit headers, and each page is reduced to what is kept before the next is read.
import { entryEvents, hadEventIn, type ActivityEvent, type ActivityKind, type Span } from '../domain/activity.js';
import type { TpaClient } from './client.js';
import type { LedgerFilters, LedgerItem } from './types.js';

export interface ScanProgress {
  read: number;
  total: number;
}

/** Every entry of the filters' service dates, page by page, in one snapshot where the transport has one. */
async function eachEntry(
  client: TpaClient,
  filters: LedgerFilters,
  onRows: (rows: LedgerItem[]) => void,
  onProgress?: (p: ScanProgress) => void,
): Promise<number> {
  const { pages } = await import('./pages.js');
  let read = 0;
  await client.snapshot(async (consistent) => {
    const first = await client.ledgerList({ ...filters, limit: 100 });
    for await (const rows of pages(first, (link) => client.ledgerPage(link), { idOf: (i: LedgerItem) => i.encounter_id, window: consistent ? 0 : undefined })) {
      read += rows.length;
      onRows(rows);
      onProgress?.({ read, total: first.body.count });
    }
  });
  return read;
}

/** The events inside `span` of the entries the filters select, and how many entries were read for them. */
export async function scanActivity(
  client: TpaClient,
  filters: LedgerFilters,
  span: Span,
  onProgress?: (p: ScanProgress) => void,
): Promise<{ events: ActivityEvent[]; entriesRead: number }> {
  const events: ActivityEvent[] = [];
  const entriesRead = await eachEntry(
    client,
    filters,
    (rows) => {
      for (const row of rows) for (const e of entryEvents(row, span)) events.push(e);
    },
    onProgress,
  );
  return { events, entriesRead };
}

/** The entries the filters select that had an event of `kind` inside `span` (--by funded, --by settled), in ledger order. */
export async function entriesWithEvent(
  client: TpaClient,
  filters: LedgerFilters,
  kind: ActivityKind,
  span: Span,
  onProgress?: (p: ScanProgress) => void,
): Promise<{ entries: LedgerItem[]; entriesRead: number }> {
  const entries: LedgerItem[] = [];
  const entriesRead = await eachEntry(
    client,
    filters,
    (rows) => {
      for (const row of rows) if (hadEventIn(row, kind, span)) entries.push(row);
    },
    onProgress,
  );
  return { entries, entriesRead };
}

/**
 * The service's time (what `tpa health` shows: the engine clock, in-process and behind `tpa local
 * serve`), from which today and yesterday are counted; the client's own clock when the service
 * does not say.
 */
export function serviceNow(client: TpaClient): Promise<string> {
  // Asked once per client: a command's period and the time its answer is "as of" are one instant.
  let now = asked.get(client);
  if (!now) {
    now = client.health().then((r) => {
      const time = r.body?.time;
      return typeof time === 'string' && !Number.isNaN(Date.parse(time)) ? time : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    });
    asked.set(client, now);
  }
  return now;
}

const asked = new WeakMap<TpaClient, Promise<string>>();
