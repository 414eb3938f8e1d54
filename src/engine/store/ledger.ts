// The ledger's listing: the counts of entries per month and per day (ledger_months, ledger_days,
// kept by migration 8's triggers, a row per scope, day and status) and a page's rows read through
// the narrow listing index. Named queries; how a page is located from the counts is the service's.
import { statusesOf } from '../../domain/ledger.js';
import type { Db } from './db.js';

/** The ledger's filters and page, as read from a query string. */
export interface LedgerQuery {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
  status?: string;
  limit: number;
  offset: number;
}

export interface Span {
  /** The month (YYYY-MM) or day (YYYY-MM-DD). */
  key: string;
  n: number;
}

/** `<column> IN (@s0, …)` for the filter's statuses, its parameters added to `params`; undefined with no status filter. */
function statusIn(f: LedgerQuery, column: string, params: Record<string, unknown>): string | undefined {
  const statuses = statusesOf(f.status);
  if (!statuses) return undefined;
  statuses.forEach((s, i) => (params[`s${i}`] = s));
  return `${column} IN (${statuses.map((_, i) => `@s${i}`).join(', ')})`;
}

/**
 * How many entries match the filters in each month (or each day of one month) from `from` to `to`,
 * newest first: a few dozen rows to read, whatever the size of the ledger. They come back as one
 * text ("2026-03 41,2026-03 2,…", a row per status) summed here: better-sqlite3 makes a JS object of
 * every row it returns, which cost more than the query, and so did grouping in SQL.
 */
export function ledgerCounts(db: Db, f: LedgerQuery, level: 'month' | 'day', from: string, to: string): Span[] {
  const { sql, params } = countsQuery(f, level, from, to);
  return spansOf(db.prepare(sql).pluck().get(params) as string | null);
}

/**
 * Whether an encounter of the provider (billing it, or on its care team) on the service day is
 * PENDED: the ledger's day counts (ledger_days) answer it from their key, where pendedNotSuperseded
 * walks every encounter of the day.
 */
export function anyPendedOn(db: Db, npi: string, serviceDate: string): boolean {
  return db.prepare("SELECT 1 FROM ledger_days WHERE scope = ? AND day = ? AND status = 'PENDED' AND n > 0").get(npi, serviceDate) !== undefined;
}

/** The text of `countsQuery` ("key n,key n,…", a row per status) as spans, newest first (exported for a test). */
export function spansOf(text: string | null): Span[] {
  const rows = (text ? text.split(',') : []).map((pair) => {
    const space = pair.indexOf(' ');
    return { key: pair.slice(0, space), n: Number(pair.slice(space + 1)) };
  });
  // They come in the key's order (scope, day, status), so a day's statuses are next to each other
  // and the days ascend; sorted only if they do not.
  if (rows.some((r, i) => i > 0 && rows[i - 1]!.key > r.key)) rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const spans: Span[] = [];
  for (const r of rows) {
    const last = spans.at(-1);
    if (last?.key === r.key) last.n += r.n;
    else spans.push(r);
  }
  return spans.filter((s) => s.n > 0).reverse();
}

/** The SQL of `ledgerCounts` (exported so that a test checks every filter combination's plan). */
export function countsQuery(f: LedgerQuery, level: 'month' | 'day', from: string, to: string): { sql: string; params: Record<string, unknown> } {
  const table = level === 'month' ? 'ledger_months' : 'ledger_days';
  const params: Record<string, unknown> = { scope: f.provider_npi ?? '', from, to };
  const status = statusIn(f, 'status', params);
  const sql = `SELECT group_concat(${level} || ' ' || n) FROM ${table} WHERE scope = @scope ${status ? `AND ${status}` : ''} AND ${level} BETWEEN @from AND @to AND n <> 0`;
  return { sql, params };
}

/**
 * The rowids of a page over the service days from `lo` to `hi`, newest first, the first `skip`
 * entries of those days skipped: from the narrow listing index only, never the wide rows.
 */
export function pageRowids(db: Db, f: LedgerQuery, lo: string, hi: string, skip: number): number[] {
  const { sql, params } = pageQuery(f, lo, hi, skip);
  return db.prepare(sql).pluck().all(params) as number[];
}

/** The SQL of a page's rowids over the days from `lo` to `hi` (exported for the plan test). */
export function pageQuery(f: LedgerQuery, lo: string, hi: string, skip: number): { sql: string; params: Record<string, unknown> } {
  const where = ['e.service_date BETWEEN @lo AND @hi'];
  const params: Record<string, unknown> = { lo, hi, limit: f.limit, skip };
  const status = statusIn(f, 'e.status', params);
  if (status) where.push(status);
  if (f.provider_npi) {
    where.push('EXISTS (SELECT 1 FROM encounter_providers p WHERE p.encounter_id = e.id AND p.npi = @npi)');
    params.npi = f.provider_npi;
  }
  const sql = `SELECT e.rowid FROM encounters e INDEXED BY encounters_listing WHERE ${where.join(' AND ')} ORDER BY e.service_date DESC, e.submitted_at DESC, e.id LIMIT @limit OFFSET @skip`;
  return { sql, params };
}

/** A list item's columns, all from the encounter row (the names it shows come from store/reference.ts). */
const LIST_COLUMNS = `e.id, e.ledger_id, e.encounter_number, e.provider_npi, e.member_id, e.service_date, e.status, e.completed_at, e.disposition, e.first_cpt_code,
  e.charge_cents, e.allowed_cents, e.deductible_cents, e.copay_cents, e.coinsurance_cents, e.patient_cents, e.benefit_cents, e.progression_json,
  CASE WHEN e.status = 'PENDED' THEN (SELECT h.reference FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'SUPERSEDED') END`;

/**
 * The SQL reading a page's rows by their rowids (a JSON array), in the order given: each row
 * LIST_COLUMNS as an array (better-sqlite3's raw rows; an object a row cost more than the queries,
 * and a JSON text of the page parsed again cost a tenth more than arrays).
 */
export const PAGE_ROWS_SQL = `SELECT ${LIST_COLUMNS} FROM json_each(?) j JOIN encounters e ON e.rowid = j.value ORDER BY j.key`;

/** A row of a page: LIST_COLUMNS in their order. */
export type PageRow = [
  id: string,
  ledger_id: string,
  encounter_number: string,
  provider_npi: string,
  member_id: string,
  service_date: string,
  status: string,
  completed_at: string | null,
  disposition: string,
  first_cpt_code: string,
  charge_cents: number,
  allowed_cents: number,
  deductible_cents: number,
  copay_cents: number,
  coinsurance_cents: number,
  patient_cents: number,
  benefit_cents: number,
  progression_json: string,
  /** A pended encounter's: the encounter of the claim that sent it again (its SUPERSEDED entry), else null. */
  superseded_by: string | null,
];

/** The rows of the rowids given, in their order. */
export function pageRowsOf(db: Db, rowids: readonly number[]): PageRow[] {
  return db.prepare(PAGE_ROWS_SQL).raw(true).all(JSON.stringify(rowids)) as PageRow[];
}
