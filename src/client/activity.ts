// Reading a span of time out of the ledger (docs/periods.md): the ledger filters by service date
// only, so the entries whose history may hold the span's events are read page by page over a window
// of service dates (the span's last day and the days before it, back to a bound the caller gives),
// paced by the rate-limit headers, and each page is reduced to what is kept before the next is read.
import { entryEvents, providerShare, type ActivityEvent, type ActivityKind, type Span } from '../domain/activity.js';
import type { TpaClient } from './client.js';
import type { LedgerFilters, LedgerItem } from './types.js';

export interface ScanProgress {
  read: number;
  total: number;
  /** Set while the pages wait out the rate limit: how long, in ms. */
  waitingMs?: number;
}

/** The kinds of event that move money: the encounters a period's money is read from. */
export const MONEY_KINDS: readonly ActivityKind[] = ['funded', 'settled', 'failed', 'refunded'];

/** Every entry of the filters' service dates, page by page, in one snapshot where the transport has one. */
export async function eachEntry(
  client: TpaClient,
  filters: LedgerFilters,
  onRows: (rows: LedgerItem[]) => void | Promise<void>,
  onProgress?: (p: ScanProgress) => void,
): Promise<number> {
  const { pages } = await import('./pages.js');
  let read = 0;
  await client.snapshot(async (consistent) => {
    const first = await client.ledgerList({ ...filters, limit: 100 });
    for await (const rows of pages(first, (link) => client.ledgerPage(link), {
      idOf: (i: LedgerItem) => i.encounter_id,
      window: consistent ? 0 : undefined,
      onProgress: (p) => p.waitingMs !== undefined && onProgress?.({ read, total: first.body.count, waitingMs: p.waitingMs }),
    })) {
      read += rows.length;
      await onRows(rows);
      onProgress?.({ read, total: first.body.count });
    }
  });
  return read;
}

/**
 * The events inside `span` of the entries the filters select, and how many entries were read for
 * them. `shares`: the amounts are the filters' provider's own (domain/activity.ts ProviderShare),
 * from the ledger detail of each entry with a claim event in the span and the settlement record of
 * each with a money event, read after the pages, paced.
 */
export async function scanActivity(
  client: TpaClient,
  filters: LedgerFilters,
  span: Span,
  onProgress?: (p: ScanProgress) => void,
  shares?: { onProgress?: (p: { read: number; total: number; waitingUntilMs?: number }) => void },
): Promise<{ events: ActivityEvent[]; entriesRead: number }> {
  const events: ActivityEvent[] = [];
  // With shares: the entries with an event in the span, and whether one is a claim event (not MONEY_KINDS).
  const kept: { row: LedgerItem; claimEvent: boolean }[] = [];
  const npi = shares ? filters.provider_npi : undefined;
  const entriesRead = await eachEntry(
    client,
    filters,
    (rows) => {
      for (const row of rows) {
        const found = entryEvents(row, span);
        if (npi === undefined) events.push(...found);
        else if (found.length > 0) kept.push({ row, claimEvent: found.some((e) => !MONEY_KINDS.includes(e.kind)) });
      }
    },
    onProgress,
  );
  if (npi === undefined) return { events, entriesRead };
  const claimIds: string[] = [];
  const moneyIds: string[] = [];
  for (const { row, claimEvent } of kept) {
    if (claimEvent) claimIds.push(row.encounter_id);
    if (row.status_progression.some((p) => p.status === 'FUNDED')) moneyIds.push(row.encounter_id);
  }
  const { readLedgerDetails, readSettlements } = await import('./settlement-reads.js');
  const total = claimIds.length + moneyIds.length;
  const details = await readLedgerDetails(client, claimIds, { onProgress: (p) => shares?.onProgress?.({ ...p, total }) });
  const records = await readSettlements(client, moneyIds, { onProgress: (p) => shares?.onProgress?.({ ...p, read: claimIds.length + p.read, total }) });
  for (const { row } of kept) {
    const detail = details.get(row.encounter_id);
    const record = records.get(row.encounter_id);
    const lines = detail && !(detail instanceof Error) ? detail.service_lines : undefined;
    const transfers = record && !(record instanceof Error) ? [...(record.previous_transfers ?? []), record] : [];
    events.push(...entryEvents(row, span, providerShare(npi, row, lines, transfers)));
  }
  return { events, entriesRead };
}

/**
 * The entries the filters select that had an event of `kind` inside `span` (--by funded, --by
 * settled), in ledger order; and the encounters with any event that moved money inside it
 * (MONEY_KINDS), whose transfers the period's money is read from.
 */
export async function entriesWithEvent(
  client: TpaClient,
  filters: LedgerFilters,
  kind: ActivityKind,
  span: Span,
  onProgress?: (p: ScanProgress) => void,
): Promise<{ entries: LedgerItem[]; moneyEntries: LedgerItem[]; entriesRead: number }> {
  const entries: LedgerItem[] = [];
  const moneyEntries: LedgerItem[] = [];
  const entriesRead = await eachPageWithEvent(
    client,
    filters,
    kind,
    span,
    (found, money) => {
      entries.push(...found);
      moneyEntries.push(...money);
    },
    onProgress,
  );
  return { entries, moneyEntries, entriesRead };
}

/**
 * entriesWithEvent a page at a time: each page's entries with an event of `kind` and those with a
 * money event, handed on before the next page is read (a period's report folds them in and keeps
 * none). Returns how many entries were read.
 */
export function eachPageWithEvent(
  client: TpaClient,
  filters: LedgerFilters,
  kind: ActivityKind,
  span: Span,
  onPage: (entries: LedgerItem[], moneyEntries: LedgerItem[]) => void | Promise<void>,
  onProgress?: (p: ScanProgress) => void,
): Promise<number> {
  return eachEntry(
    client,
    filters,
    (rows) => {
      const entries: LedgerItem[] = [];
      const moneyEntries: LedgerItem[] = [];
      for (const row of rows) {
        const kinds = entryEvents(row, span).map((e) => e.kind);
        if (kinds.includes(kind)) entries.push(row);
        if (kinds.some((k) => MONEY_KINDS.includes(k))) moneyEntries.push(row);
      }
      return onPage(entries, moneyEntries);
    },
    onProgress,
  );
}

/**
 * How many entries the read's other filters (provider, status) would have kept, of service dates
 * before `serviceFrom`, a partial read (--lookback) left out: one request of one entry, its count.
 * 0 when nothing was left out.
 */
export async function entriesNotRead(
  client: TpaClient,
  serviceFrom: string | undefined,
  filters: { provider_npi?: string | undefined; status?: string | undefined },
): Promise<number> {
  if (serviceFrom === undefined) return 0;
  const { addDays } = await import('../domain/period.js');
  return (await client.ledgerList({ ...filters, end_date: addDays(serviceFrom, -1), limit: 1 })).body.count;
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
