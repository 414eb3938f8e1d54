// The encounter ledger (docs/api.md "GET /v1/ledger/entries/" and ".../{encounter_id}/").
import type { FieldError } from '../../domain/errors.js';
import { LEDGER_STATUSES } from '../../domain/ledger.js';
import { centsToAmount, centsToJson } from '../../domain/money.js';
import { isoDateProblem, npiProblem } from '../../domain/validation.js';
import type { EngineContext } from '../context.js';
import { HttpError, JsonText, queryWholeNumber, respond, servedLink, type EngineRequest, type EngineResponse } from '../exchange.js';
import type { Db } from '../store/db.js';
import { reference, type Reference } from '../store/reference.js';
import { encounterById, encounterData, lineProviders, providerByNpi } from './encounters.js';
import { settlementFor } from './settlement.js';

export const LEDGER_DEFAULT_LIMIT = 20;
export const LEDGER_MAX_LIMIT = 100;

export interface Filters {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
  status?: string;
  limit: number;
  offset: number;
}

/** The filters of a ledger query string, or the 400 naming what is wrong (exported for the plan test). */
export function readFilters(query: URLSearchParams): Filters {
  const errors: FieldError[] = [];
  const text = (name: string) => {
    const v = query.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const f: Filters = {
    start_date: text('start_date'),
    end_date: text('end_date'),
    provider_npi: text('provider_npi'),
    status: text('status'),
    limit: queryWholeNumber(query, 'limit', LEDGER_DEFAULT_LIMIT, 1, LEDGER_MAX_LIMIT, errors),
    offset: queryWholeNumber(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors),
  };
  for (const name of ['start_date', 'end_date'] as const) {
    const problem = f[name] === undefined ? undefined : isoDateProblem(f[name]);
    if (problem) errors.push({ field: name, message: problem });
  }
  if (f.start_date && f.end_date && f.end_date < f.start_date && errors.length === 0) errors.push({ field: 'end_date', message: 'is before start_date' });
  const npi = f.provider_npi === undefined ? undefined : npiProblem(f.provider_npi);
  if (npi) errors.push({ field: 'provider_npi', message: npi });
  if (f.status !== undefined && !(LEDGER_STATUSES as readonly string[]).includes(f.status)) {
    errors.push({ field: 'status', message: `must be one of ${LEDGER_STATUSES.join(', ')}` });
  }
  if (errors.length > 0) throw new HttpError(400, { errors });
  return f;
}

function pageUrl(req: EngineRequest, f: Filters, offset: number): string {
  const q = new URLSearchParams();
  for (const key of ['start_date', 'end_date', 'provider_npi', 'status'] as const) if (f[key] !== undefined) q.set(key, f[key]);
  q.set('limit', String(f.limit));
  q.set('offset', String(offset));
  return servedLink(req, `${req.path}?${q.toString()}`);
}

/** A list item's columns, all from the encounter row (the names it shows come from `reference`). */
const LIST_COLUMNS = `e.id, e.ledger_id, e.encounter_number, e.provider_npi, e.member_id, e.service_date, e.status, e.completed_at, e.disposition, e.first_cpt_code,
  e.charge_cents, e.allowed_cents, e.deductible_cents, e.copay_cents, e.coinsurance_cents, e.patient_cents, e.benefit_cents, e.progression_json`;

/** The statuses a filter value stands for: SUBMITTED finds every claim not yet adjudicated. */
function statusesOf(f: Filters): readonly string[] | undefined {
  // A claim goes SUBMITTED → PROCESSING in the same instant, so SUBMITTED (one of the contract's filter
  // values) finds every claim not yet adjudicated; PROCESSING alone still filters as itself.
  if (f.status === 'SUBMITTED') return ['SUBMITTED', 'PROCESSING'];
  return f.status ? [f.status] : undefined;
}

/** `<column> IN (@s0, …)` for the filter's statuses, its parameters added to `params`; undefined with no status filter. */
function statusIn(f: Filters, column: string, params: Record<string, unknown>): string | undefined {
  const statuses = statusesOf(f);
  if (!statuses) return undefined;
  statuses.forEach((s, i) => (params[`s${i}`] = s));
  return `${column} IN (${statuses.map((_, i) => `@s${i}`).join(', ')})`;
}

/** The days of `month` (YYYY-MM) inside the filters' date range: [from, to]. */
function daysOf(f: Filters, month: string): [string, string] {
  const from = f.start_date && f.start_date > `${month}-01` ? f.start_date : `${month}-01`;
  const to = f.end_date && f.end_date < `${month}-31` ? f.end_date : `${month}-31`;
  return [from, to];
}

export interface Span {
  /** The month (YYYY-MM) or day (YYYY-MM-DD). */
  key: string;
  n: number;
}

/**
 * How many entries match the filters in each month (or each day of one month), newest first, from
 * the counts migration 8 keeps: a few dozen rows to read, whatever the size of the ledger. They come
 * back as one text ("2026-03 41,2026-03 2,…", a row per status) summed here: better-sqlite3 makes a
 * JS object of every row it returns, which cost more than the query, and so did grouping in SQL.
 */
function counts(db: Db, f: Filters, level: 'month' | 'day', from: string, to: string): Span[] {
  const { sql, params } = countsQuery(f, level, from, to);
  return spansOf(db.prepare(sql).pluck().get(params) as string | null);
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

/** The SQL of `counts` (exported so that a test checks every filter combination's plan). */
export function countsQuery(f: Filters, level: 'month' | 'day', from: string, to: string): { sql: string; params: Record<string, unknown> } {
  const table = level === 'month' ? 'ledger_months' : 'ledger_days';
  const params: Record<string, unknown> = { scope: f.provider_npi ?? '', from, to };
  const status = statusIn(f, 'status', params);
  const sql = `SELECT group_concat(${level} || ' ' || n) FROM ${table} WHERE scope = @scope ${status ? `AND ${status}` : ''} AND ${level} BETWEEN @from AND @to AND n <> 0`;
  return { sql, params };
}

/** Every month in the filters' range, newest first, with the days of a month the range cuts counted alone. */
function monthCounts(db: Db, f: Filters): Span[] {
  const first = (f.start_date ?? '0000-01-01').slice(0, 7);
  const last = (f.end_date ?? '9999-12-31').slice(0, 7);
  return counts(db, f, 'month', first, last)
    .map((m) => (m.key === first || m.key === last ? { key: m.key, n: counts(db, f, 'day', ...daysOf(f, m.key)).reduce((sum, d) => sum + d.n, 0) } : m))
    .filter((m) => m.n > 0);
}

interface Located {
  day: string;
  before: number;
}

/**
 * For each position (0-based, newest first, ascending), the service day holding that entry and how
 * many entries of the day come before it: one walk down the month counts, then the day counts of
 * the months the positions fall in.
 */
function locate(db: Db, f: Filters, months: Span[], positions: number[]): Located[] {
  const found: Located[] = [];
  let skipped = 0;
  for (const m of months) {
    if (found.length === positions.length) break;
    if (skipped + m.n <= positions[found.length]!) {
      skipped += m.n;
      continue;
    }
    for (const d of counts(db, f, 'day', ...daysOf(f, m.key))) {
      while (found.length < positions.length && skipped + d.n > positions[found.length]!)
        found.push({ day: d.key, before: positions[found.length]! - skipped });
      skipped += d.n;
    }
  }
  if (found.length < positions.length) throw new Error(`ledger counts do not reach position ${positions.at(-1)}`);
  return found;
}

export function listLedger(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const f = readFilters(req.query);
  const months = monthCounts(ctx.db, f);
  const count = months.reduce((sum, m) => sum + m.n, 0);
  const rows = f.offset < count ? pageRows(ctx.db, f, months, count) : [];
  const ref = reference(ctx.db);
  const link = (offset: number | null) => (offset === null ? 'null' : JSON.stringify(pageUrl(req, f, offset)));
  // Written as JSON text (listItemJson): the page's objects would only be serialised again.
  return respond(
    200,
    new JsonText(
      `{"count":${count},"next":${link(f.offset + f.limit < count ? f.offset + f.limit : null)},"previous":${link(f.offset > 0 ? Math.max(0, f.offset - f.limit) : null)},` +
        `"results":[${rows.map((row) => listItemJson(row, ref, ctx.db)).join(',')}]}`,
    ),
  );
}

/**
 * A page's rows: the days it spans come from the counts; its rowids from the narrow listing index
 * over those days only (never the wide rows it skips); then each row by its rowid.
 */
function pageRows(db: Db, f: Filters, months: Span[], count: number): PageRow[] {
  const [first, last] = locate(db, f, months, [f.offset, Math.min(f.offset + f.limit, count) - 1]) as [Located, Located];
  const { sql, params } = pageQuery(f, last.day, first.day, first.before);
  const rowids = db.prepare(sql).pluck().all(params) as number[];
  const rows = JSON.parse(db.prepare(PAGE_ROWS_SQL).pluck().get(JSON.stringify(rowids)) as string) as [number, ...PageRow][];
  const byRowid = new Map(rows.map(([rowid, ...row]) => [rowid, row]));
  return rowids.map((rowid) => byRowid.get(rowid)!);
}

/** The SQL of a page's rowids over the days from `lo` to `hi` (exported for the plan test). */
export function pageQuery(f: Filters, lo: string, hi: string, skip: number): { sql: string; params: Record<string, unknown> } {
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

/**
 * The SQL reading a page's rows by their rowids (a JSON array), as one JSON array of rows, each its
 * rowid then LIST_COLUMNS: one value for better-sqlite3 to hand over instead of eighteen a row
 * (making a JS object of every row cost more than the queries).
 */
export const PAGE_ROWS_SQL = `SELECT json_group_array(json_array(e.rowid, ${LIST_COLUMNS})) FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))`;

/** A row of a page: LIST_COLUMNS in their order. */
type PageRow = [
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
];

interface PayerRow {
  payer_id: string;
  payer_name: string;
}

function payerOf(db: Db, memberId: string): { name: string; id: string } {
  const p = db.prepare('SELECT p.payer_id, p.payer_name FROM members m JOIN plans p ON p.id = m.plan_id WHERE m.member_id = ?').get(memberId) as
    | PayerRow
    | undefined;
  return { name: p?.payer_name ?? 'Unknown payer', id: p?.payer_id ?? 'UNKNOWN' };
}

function cptDescription(db: Db, code: string): string {
  return (db.prepare('SELECT description FROM cpt_codes WHERE code = ?').pluck().get(code) as string | undefined) ?? `CPT ${code}`;
}

function providerOf(db: Db, npi: string, fallbackName: string | null) {
  const p = providerByNpi(db, npi);
  return { npi, name: p?.name ?? fallbackName ?? `NPI ${npi}`, role: p?.role ?? null, facility_npi: p?.facility_npi ?? null };
}

/**
 * Whether the encounter has an adjudication: not before its completion, and never when it was
 * pended or denied (docs/api.md: an entry that has no adjudication yet has null amounts).
 */
function adjudicated(completedAt: string | null, disposition: string): boolean {
  return completedAt !== null && disposition !== 'PENDING_REVIEW' && disposition !== 'DENIED';
}

/** The claim's own name for a billing provider the plan does not know (the rare row, read alone). */
function claimProviderName(db: Db, encounterId: string): string | null {
  return (
    (db.prepare("SELECT json_extract(claim_json, '$.providerName') FROM encounters WHERE id = ?").pluck().get(encounterId) as string | null | undefined) ?? null
  );
}

/**
 * A ledger list item (docs/api.md "Ledger entry") as JSON text, keys in the order the service gives
 * them; the stored status progression is JSON already. Amounts are null until adjudicated.
 */
function listItemJson(row: PageRow, ref: Reference, db: Db): string {
  const [id, ledgerId, encounterNumber, npi, memberId, serviceDate, status, completedAt, disposition, cpt, ...amounts] = row;
  const [chargeCents, allowedCents, deductibleCents, copayCents, coinsuranceCents, patientCents, benefitCents, progressionJson] = amounts;
  const q = JSON.stringify;
  const has = adjudicated(completedAt, disposition);
  const amount = (cents: number) => (has ? centsToJson(cents) : 'null');
  const provider = ref.providers.get(npi);
  const payer = ref.payers.get(memberId);
  return (
    `{"id":${q(ledgerId)},"encounter_id":${q(id)},"encounter_number":${q(encounterNumber)},` +
    `"ssp_code":${q(cpt)},"ssp_name":${ref.cptDescriptions.get(cpt) ?? q(`CPT ${cpt}`)},` +
    `"provider":{"npi":${q(npi)},"name":${provider?.name ?? q(claimProviderName(db, id) ?? `NPI ${npi}`)},"role":${provider?.role ?? 'null'}},` +
    `"payer":{"name":${payer?.name ?? '"Unknown payer"'},"id":${payer?.id ?? '"UNKNOWN"'}},` +
    `"service_date":${q(serviceDate)},"status":${q(status)},"status_progression":${progressionJson},` +
    `"financial_summary":{"charges":${centsToJson(chargeCents)},"allowed_amount":${amount(allowedCents)},` +
    `"deductible_applied":${amount(deductibleCents)},"copay_applied":${amount(copayCents)},"coinsurance_applied":${amount(coinsuranceCents)},` +
    `"patient_responsibility":${amount(patientCents)},"benefit_amount":${amount(benefitCents)},"payer_responsibility":${amount(benefitCents)}}}`
  );
}

export function ledgerDetail(ctx: EngineContext, _req: EngineRequest, params: Record<string, string>): EngineResponse {
  const encounterId = params.encounter_id!;
  const row = encounterById(ctx.db, encounterId);
  if (!row) return respond(404, { error: 'encounter_not_found', encounter_id: encounterId, message: `No ledger entry for encounter ${encounterId}` });
  const { db } = ctx;
  const data = encounterData(row);
  const { claim, adjudication: a, benefits } = data;
  const t = a.totals;
  const done = row.completed_at !== null;
  const hasAdjudication = adjudicated(row.completed_at, row.disposition);
  const amount = (cents: number) => (hasAdjudication ? centsToAmount(cents) : null);
  const member = db.prepare('SELECT member_id, name, dob FROM members WHERE member_id = ?').get(row.member_id) as
    | { member_id: string; name: string; dob: string }
    | undefined;
  const provider = providerOf(db, row.provider_npi, claim.providerName);
  const facility = provider.facility_npi ? providerByNpi(db, provider.facility_npi) : undefined;
  const settlement = settlementFor(db, row.id);
  const entries = db
    .prepare('SELECT seq, type, timestamp, reference, description, financial_impact_json FROM history_entries WHERE encounter_id = ? ORDER BY timestamp, seq')
    .all(row.id) as {
    seq: number;
    type: string;
    timestamp: string;
    reference: string | null;
    description: string;
    financial_impact_json: string | null;
  }[];
  const providers = lineProviders(db, data);
  // Money on its way is not settled yet; a FAILED or REFUNDED transfer settles nothing.
  const settled = settlement?.status === 'COMPLETED' ? settlement.total_amount_cents : 0;
  // FAILED and REFUNDED (the latest transfer's) mean the benefit is owed again and can be funded anew.
  const balanceStatus = !done
    ? 'PENDING_ADJUDICATION'
    : row.status === 'DENIED'
      ? 'DENIED'
      : row.status === 'PENDED'
        ? 'PENDED'
        : !settlement
          ? t.benefitCents === 0
            ? 'SETTLED'
            : 'OPEN'
          : settlement.status === 'INITIATED'
            ? 'IN_TRANSIT'
            : settlement.status === 'COMPLETED'
              ? 'SETTLED'
              : settlement.status;
  return respond(200, {
    encounter: {
      id: row.id,
      encounter_number: row.encounter_number,
      status: row.status,
      service_date: row.service_date,
      submission_date: row.submitted_at.slice(0, 10),
      patient: { member_id: row.member_id, name: member?.name ?? null, dob: member?.dob ?? null },
      provider: { npi: provider.npi, name: provider.name, role: provider.role, facility_npi: provider.facility_npi, facility_name: facility?.name ?? null },
      payer: payerOf(db, row.member_id),
    },
    entries: entries.map((e, i) => ({
      sequence: i + 1,
      type: e.type,
      timestamp: e.timestamp,
      reference: e.reference,
      description: e.description,
      financial_impact: e.financial_impact_json ? JSON.parse(e.financial_impact_json) : null,
    })),
    financial_summary: {
      service_date: row.service_date,
      submitted_charges: centsToAmount(t.chargeCents),
      allowed_amount: amount(t.allowedCents),
      adjustments: { contractual_adjustment: amount(t.chargeCents - t.allowedCents), other_adjustments: amount(0) },
      deductible: {
        plan_deductible: centsToAmount(benefits.deductibleCents),
        deductible_met_prior: centsToAmount(Math.min(benefits.deductibleMetCents, benefits.deductibleCents)),
        deductible_applied: amount(t.deductibleCents),
      },
      copay: { plan_copay: centsToAmount(benefits.copayCents), copay_applied: amount(t.copayCents) },
      coinsurance: { plan_coinsurance_percentage: benefits.coinsurancePercent, coinsurance_applied: amount(t.coinsuranceCents) },
      patient_responsibility: {
        total: amount(t.patientResponsibilityCents),
        copay: amount(t.copayCents),
        coinsurance: amount(t.coinsuranceCents),
        deductible: amount(t.deductibleCents),
        non_covered: amount(t.nonCoveredCents),
      },
      payer_responsibility: { total: amount(t.benefitCents), benefit_amount: amount(t.benefitCents) },
      balance: { running_balance: amount(t.benefitCents - settled), status: balanceStatus },
    },
    service_lines: a.lines.map((line) => {
      const p = providers.find((x) => x.sequence === line.sequence)!;
      return {
        sequence: line.sequence,
        cpt_code: line.cptCode,
        cpt_description: cptDescription(db, line.cptCode),
        quantity: line.quantity,
        submitted_charge: centsToAmount(line.chargeCents),
        allowed_amount: amount(line.allowedCents),
        deductible_applied: amount(line.deductibleCents),
        copay_applied: amount(line.copayCents),
        coinsurance_applied: amount(line.coinsuranceCents),
        patient_responsibility: amount(line.patientResponsibilityCents),
        benefit_amount: amount(line.benefitCents),
        // Each line's own outcome (DENIED, NOT_COVERED, BUNDLED) with its reason code; lines stored
        // before line-level outcomes existed take the claim's.
        status: !done ? 'PENDING' : a.disposition === 'PENDING_REVIEW' ? 'PENDED' : a.disposition === 'DENIED' && !line.reasonCode ? 'DENIED' : line.status,
        denial_code: done && a.disposition !== 'PENDING_REVIEW' ? (line.reasonCode ?? (a.disposition === 'DENIED' ? a.denialCode : null)) : null,
        provider_npi: p.providerNpi,
        provider_name: p.providerName,
        provider_role: p.providerRole,
      };
    }),
    // As the claim response carries them: none before adjudication or for a pended claim, the AEOB
    // only for a denied one; once funded, the trace is the current transfer's.
    reconciliation: {
      claim_match_status: settlement?.reconciliation_status ?? 'PENDING',
      aeob_reference: done && row.disposition !== 'PENDING_REVIEW' ? row.aeob_reference : null,
      processor_trace_id: hasAdjudication ? (settlement?.processor_transfer_id ?? row.processor_trace_id) : null,
      settlement_record_id: settlement?.id ?? null,
      external_claim_id: row.id,
    },
  });
}
