// tpa settlement report: the period's ledger entries (pages followed to the end) and the
// settlement records of the encounters that were ever funded, paced by the rate-limit headers, each
// page folded into the report by domain/report.ts as it is read, then written in the chosen format
// (docs/money-funding.md "The finance desk's report").
import type { ScanProgress } from '../../../client/activity.js';
import type { TpaClient } from '../../../client/client.js';
import type { LedgerFilters, LedgerItem } from '../../../client/types.js';
import { withCsvAmounts } from '../../../domain/csv.js';
import { centsToAmount, formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { AS_OF_NOW_EXCEPTIONS, type PeriodReport, type ReportSettlement, type TransferLine } from '../../../domain/report.js';
import { fieldsInvalid, UsageError, ValidationFailed } from '../../../errors.js';
import { count } from '../../../render/format.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import { aligned } from '../../../render/text.js';
import type { Context } from '../../context.js';
import {
  bySpec,
  type CountedPeriod,
  countedPeriod,
  lookbackDays,
  lookbackSpec,
  periodFilters,
  periodSpec,
  readWait,
  type ScanInfo,
  scanLine,
  scanOf,
  withPeriodDates,
} from '../../options.js';
import { counter } from '../../status-line.js';
import { option, verb, type OptionValues } from '../../verb.js';

export const SECTIONS = ['providers', 'status', 'money', 'reconciliation', 'exceptions', 'days'] as const;
type Section = (typeof SECTIONS)[number];

const options = {
  from: option.text('--from <date>', 'first day of the period (YYYY-MM-DD); --from and --to, or --period, are required'),
  to: option.text('--to <date>', 'last day of the period (YYYY-MM-DD)'),
  period: periodSpec,
  by: bySpec,
  lookback: lookbackSpec,
  npi: option.text('--npi <npi>', 'only the encounters this provider is on, and only its payouts in the money'),
  section: option.text(
    '--section <name>',
    'the rows -o csv prints: all (default: every section, a section column first), providers, status, money, reconciliation, exceptions, days',
    { values: ['all', ...SECTIONS] },
  ),
};

export const report = verb({
  name: 'report',
  description:
    "the period's money for the finance desk: encounters by status, funded, in transit, settled, failed and refunded, fees and nets per provider, AEOB reconciliation, exceptions to act on, settled per day",
  options,
  fields: [
    // A line per encounter (-o ndjson), or with --by funded or settled per transfer (reportLines).
    'encounter_id',
    'encounter_number',
    'service_date',
    'status',
    'superseded_by',
    'provider_npi',
    'charges',
    'allowed',
    'patient_responsibility',
    'benefit',
    'transfer_status',
    'processor_transfer_id',
    'initiated_at',
    'completed_at',
    'released',
    'in_transit',
    'settled',
    'released_then_refunded',
    'came_back',
    'failed',
    'fees_charged',
    'reconciliation_status',
    'match_status',
    'variance',
  ],
  examples: [
    'tpa settlement report --from 2026-11-01 --to 2026-11-30',
    'tpa settlement report --from 2026-11-01 --to 2026-11-30 -o csv > november.csv   # every section, a section column first',
    'tpa settlement report --from 2026-11-01 --to 2026-11-30 -o csv --section exceptions',
    'tpa settlement report --from 2026-11-01 --to 2026-11-30 -o ndjson   # one line per encounter; --by funded: per transfer',
    'tpa settlement report --period last-month --by settled',
  ],
  run(ctx, _args, opts) {
    return settlementReport(ctx, opts);
  },
});

// JSON numbers like every other output's amounts, written from integer cents (docs/api.md: money is a
// number with at most two decimals).
const money = (c: number) => centsToAmount(c);

async function filtersOf(ctx: Context, opts: OptionValues<typeof options>): Promise<{ f: LedgerFilters; counted: CountedPeriod | undefined }> {
  if (opts.period === undefined) {
    for (const name of ['from', 'to'] as const) {
      if (opts[name] === undefined) throw new UsageError(`--${name} is required: the report covers the period from --from to --to (or name it with --period)`);
    }
  }
  const errors: { field: string; message: string }[] = [];
  const checked = periodFilters(opts, errors);
  if (errors.length > 0) throw fieldsInvalid(errors);
  if (checked.start_date !== undefined && checked.end_date !== undefined && checked.end_date < checked.start_date)
    throw new ValidationFailed('--to is before --from');
  // --by and --lookback are checked before the service is asked what day it is.
  countedPeriod(opts.by, opts.lookback, { start_date: '2000-01-01', end_date: '2000-01-01' });
  const f = await withPeriodDates(ctx, opts, checked);
  return { f, counted: countedPeriod(opts.by, opts.lookback, f) };
}

/** What the days of "settled per day" are, in every by: their sum is money.settled. */
const SETTLED_PER_DAY_OF = 'the arrival days of the transfers counted released and settled now; their sum is money.settled';
// Two lines, each within 80 columns.
const AS_OF_NOW_NOTE = `Facts of now, not of a period, listed with --by service only:\n${AS_OF_NOW_EXCEPTIONS.join(', ')}`;

/** The report as data: amounts as JSON numbers, exact to the cent. */
function reportData(r: PeriodReport, f: LedgerFilters, now: string, by: string): Record<string, unknown> {
  const line = (l: { count: number; chargesCents: number; allowedCents: number; patientCents: number; benefitCents: number }) => ({
    count: l.count,
    charges: money(l.chargesCents),
    allowed: money(l.allowedCents),
    patient_responsibility: money(l.patientCents),
    benefit: money(l.benefitCents),
  });
  return {
    period: { from: f.start_date, to: f.end_date, by, provider_npi: f.provider_npi ?? null },
    as_of: now,
    encounters: {
      ...line(r.totals),
      by_status: r.byStatus.map((s) => ({ status: s.status, ...line(s) })),
      // Pended claims sent again: counted once, as their resubmission (docs/money-funding.md "The finance desk's report").
      superseded_pended: { count: r.superseded.count, charges: money(r.superseded.chargesCents) },
      // Claims replaced or voided by corrected claims: closed, never paid (docs/money-funding.md "Corrected and void claims").
      corrected: { count: r.corrected.count, charges: money(r.corrected.chargesCents) },
    },
    money: {
      released: money(r.money.releasedCents),
      in_transit: money(r.money.inTransitCents),
      settled: money(r.money.settledCents),
      released_then_refunded: money(r.money.refundedCents),
      came_back: money(r.money.cameBackCents),
      fees_charged: money(r.money.feesChargedCents),
      fees_kept: money(r.money.feesKeptCents),
      net_to_providers: money(r.money.netCents),
      spent: money(r.money.spentCents),
      failed: money(r.money.failedCents),
      transfers: r.money.transfers,
    },
    providers: r.providers.map(providerRow),
    reconciliation: {
      matched: { count: r.reconciliation.matched.count, amount: money(r.reconciliation.matched.amountCents) },
      variance: {
        count: r.reconciliation.variance.count,
        amount: money(r.reconciliation.variance.amountCents),
        items: r.reconciliation.variance.items.map((i) => ({ encounter_id: i.encounter_id, variance: money(i.varianceCents) })),
      },
      missing_aeob: { count: r.reconciliation.missingAeob.count, amount: money(r.reconciliation.missingAeob.amountCents) },
      not_reconciled: { count: r.reconciliation.notReconciled.count, amount: money(r.reconciliation.notReconciled.amountCents) },
    },
    exceptions: r.exceptions.map(exceptionRow),
    // Under --by funded/settled the facts of now (pended too long, not funded) are in no period.
    exceptions_not_listed: r.asOfNowExceptionsListed ? [] : AS_OF_NOW_EXCEPTIONS,
    settled_per_day: r.settledPerDay.map((d) => ({ day: d.day, amount: money(d.amountCents) })),
    settled_per_day_of: SETTLED_PER_DAY_OF,
  };
}

const providerRow = (p: PeriodReport['providers'][number]) => ({
  npi: p.npi,
  name: p.name,
  payouts: p.payouts,
  amount: money(p.amountCents),
  refunded: money(p.refundedCents),
  fees: money(p.feeCents),
  net: money(p.netCents),
});
const exceptionRow = (x: PeriodReport['exceptions'][number]) => ({
  kind: x.kind,
  encounter_id: x.encounter_id,
  encounter_number: x.encounter_number,
  amount: money(x.amountCents),
  since: x.since,
  reference: x.reference,
});

/** The CSV header of each section, written even when the section has no row. */
const SECTION_COLUMNS: Record<Section, readonly string[]> = {
  providers: ['npi', 'name', 'payouts', 'amount', 'refunded', 'fees', 'net'],
  status: ['status', 'count', 'charges', 'allowed', 'patient_responsibility', 'benefit'],
  money: ['measure', 'amount'],
  reconciliation: ['reconciliation', 'count', 'amount'],
  exceptions: ['kind', 'encounter_id', 'encounter_number', 'amount', 'since', 'reference'],
  days: ['day', 'amount'],
};

/** The amount columns of the sections: two decimals in CSV (domain/csv.ts csvAmount). */
const AMOUNT_COLUMNS = ['amount', 'refunded', 'fees', 'net', 'charges', 'allowed', 'patient_responsibility', 'benefit'];

/**
 * The CSV of `-o csv`: one section's own columns, or (all) every section in one table, a `section`
 * column first and the columns of every section after it, each row filling its own section's
 * (docs/money-funding.md "The finance desk's report").
 */
// biome-ignore lint/suspicious/noExplicitAny: the report as JSON, walked by section name
function csvOf(data: Record<string, any>, section: Section | 'all'): { rows: Record<string, unknown>[]; columns: string[] } {
  const amounts = (rows: Record<string, unknown>[]) => rows.map((r) => withCsvAmounts(r, AMOUNT_COLUMNS));
  if (section !== 'all') return { rows: amounts(sectionRows(data, section)), columns: [...SECTION_COLUMNS[section]] };
  const columns = ['section', ...new Set(SECTIONS.flatMap((s) => SECTION_COLUMNS[s]))];
  const rows = SECTIONS.flatMap((s) =>
    amounts(sectionRows(data, s)).map((r) => Object.fromEntries(columns.map((c) => [c, c === 'section' ? s : (r[c] ?? null)]))),
  );
  return { rows, columns };
}

/** Rows of one section, for csv. */
// biome-ignore lint/suspicious/noExplicitAny: the report as JSON, walked by section name
function sectionRows(data: Record<string, any>, section: Section): Record<string, unknown>[] {
  switch (section) {
    case 'providers':
      return data.providers;
    case 'status':
      return data.encounters.by_status;
    case 'money':
      return Object.entries(data.money as Record<string, unknown>)
        .filter(([k]) => k !== 'transfers')
        .map(([measure, amount]) => ({ measure, amount }));
    case 'reconciliation':
      return ['matched', 'variance', 'missing_aeob', 'not_reconciled'].map((k) => ({
        reconciliation: k,
        count: data.reconciliation[k].count,
        amount: data.reconciliation[k].amount,
      }));
    case 'exceptions':
      return data.exceptions;
    case 'days':
      return data.settled_per_day;
  }
}

/** Horizontal bars of the amount settled per day, scaled to the width (plain Unicode, no colour needed). */
export function settledChart(days: readonly { day: string; amountCents: number }[], width: number): string {
  if (days.length === 0) return 'Nothing settled in the period.';
  const amounts = days.map((d) => formatCentsGrouped(d.amountCents));
  const amountWidth = Math.max(...amounts.map((a) => a.length));
  const room = Math.max(10, width - 10 - 2 - amountWidth - 2);
  const max = Math.max(...days.map((d) => d.amountCents));
  return days
    .map((d, i) => {
      // Eighths of a block: every amount above zero shows at least a sliver.
      const eighths = max === 0 ? 0 : Math.max(d.amountCents > 0 ? 1 : 0, Math.round((d.amountCents / max) * room * 8));
      const bar = '█'.repeat(Math.floor(eighths / 8)) + (eighths % 8 ? ' ▏▎▍▌▋▊▉'[eighths % 8] : '');
      return `${d.day}  ${amounts[i]!.padStart(amountWidth)}  ${bar}`;
    })
    .join('\n');
}

/** The report for a person: sections of tables, counts and amounts with thousands separators. */
export function reportTable(t: TableTools, r: PeriodReport, f: LedgerFilters, now: string, by: string, scan?: ScanInfo): string {
  const title = `${t.c.bold(`Settlement report, ${f.start_date} to ${f.end_date}`)}\n${
    f.provider_npi ? `NPI ${f.provider_npi}: the encounters it is on; the money is its own payouts. ` : ''
  }${by === 'service' ? 'Service dates' : `Encounters ${by}`} in the period, as of ${now}${scan ? `\n${scanLine(scan)}` : ''}`;
  return [
    title,
    ...encountersSection(t, r),
    ...moneySection(t, r),
    ...reconciliationSection(t, r),
    `${t.c.bold('Settled per day')}\nArrivals of the transfers ${by === 'service' ? 'of these encounters' : 'released in the period'}; the days sum to Settled.`,
    settledChart(r.settledPerDay, t.width ?? 80),
  ].join('\n\n');
}

const m = (c: number) => formatCentsGrouped(c);

/** The report's encounters by status, and those not counted (resubmitted, corrected). */
function encountersSection(t: TableTools, r: PeriodReport): string[] {
  const parts = [
    t.c.bold('Encounters'),
    t.table(
      [
        'Status',
        { header: 'Count', align: 'right' },
        { header: 'Charges', align: 'right' },
        { header: 'Allowed', align: 'right' },
        { header: 'Patient', align: 'right' },
        { header: 'Benefit', align: 'right' },
      ],
      [...r.byStatus, { status: 'Total', ...r.totals }].map((s) => [
        s.status,
        count(s.count),
        m(s.chargesCents),
        m(s.allowedCents),
        m(s.patientCents),
        m(s.benefitCents),
      ]),
    ),
  ];
  if (r.superseded.count > 0)
    parts.push(
      `Not counted: ${count(r.superseded.count)} pended claim${r.superseded.count === 1 ? '' : 's'} sent again (${m(r.superseded.chargesCents)} charges), counted as ${r.superseded.count === 1 ? 'its resubmission' : 'their resubmissions'}`,
    );
  if (r.corrected.count > 0)
    parts.push(
      `Not counted: ${count(r.corrected.count)} claim${r.corrected.count === 1 ? '' : 's'} replaced or voided by a corrected claim (${m(r.corrected.chargesCents)} charges), never paid`,
    );
  return parts;
}

/** The report's money, and each provider's payouts. */
function moneySection(t: TableTools, r: PeriodReport): string[] {
  return [
    t.c.bold('Money'),
    t.keyValues([
      ['Released', m(r.money.releasedCents)],
      ['  In transit', m(r.money.inTransitCents)],
      ['  Settled', m(r.money.settledCents)],
      ['  Released, then refunded', m(r.money.refundedCents)],
      ['Came back (refunds, net of fees)', m(r.money.cameBackCents)],
      ['Processor fees charged', m(r.money.feesChargedCents)],
      ['  Kept on refunded or failed transfers', m(r.money.feesKeptCents)],
      ['Net to providers', m(r.money.netCents)],
      ['Spent in all (left the plan, not come back)', m(r.money.spentCents)],
      ['Failed (not moved)', m(r.money.failedCents)],
    ]),
    t.c.bold('Providers'),
    r.providers.length === 0
      ? 'No payouts in the period.'
      : t.table(
          [
            'Provider',
            { header: 'Payouts', align: 'right' },
            { header: 'Amount', align: 'right' },
            { header: 'Refunded', align: 'right' },
            { header: 'Fees', align: 'right' },
            { header: 'Net', align: 'right' },
          ],
          r.providers.map((p) => [`${p.name} (${p.npi})`, count(p.payouts), m(p.amountCents), m(p.refundedCents), m(p.feeCents), m(p.netCents)]),
          { list: true },
        ),
  ];
}

/** The report's reconciliation, and the exceptions to act on. */
function reconciliationSection(t: TableTools, r: PeriodReport): string[] {
  const rec = r.reconciliation;
  return [
    t.c.bold('Reconciliation'),
    // Label, count, amount: counts and amounts each right-aligned in a column of their own.
    aligned(
      [
        ['', 'Encounters', 'Amount'],
        ['Matched', count(rec.matched.count), m(rec.matched.amountCents)],
        ['Variance', count(rec.variance.count), m(rec.variance.amountCents)],
        ['Missing AEOB', count(rec.missingAeob.count), m(rec.missingAeob.amountCents)],
        ['Not yet reconciled', count(rec.notReconciled.count), m(rec.notReconciled.amountCents)],
      ],
      [false, true, true],
    ).join('\n'),
    t.c.bold('Exceptions to act on'),
    (r.asOfNowExceptionsListed ? '' : `${AS_OF_NOW_NOTE}.\n`) +
      (r.exceptions.length === 0
        ? 'None.'
        : t.table(
            ['Kind', 'Encounter', { header: 'Amount', align: 'right' }, 'Since', 'Reference'],
            r.exceptions.map((x) => [x.kind, x.encounter_id, m(x.amountCents), x.since ?? '—', x.reference ?? '—']),
          )),
  ];
}

/** What a COMPLETED transfer settled: all its payouts, or one provider's. */
function settledOf(s: ReportSettlement, npi: string | undefined): number {
  if (npi === undefined) return s.total_amount;
  return centsToAmount(s.payouts.filter((p) => p.provider_npi === npi).reduce((sum, p) => sum + (jsonNumberToCents(p.amount) ?? 0), 0));
}

async function settlementReport(ctx: Context, opts: OptionValues<typeof options>): Promise<CommandOutput> {
  const { f, counted } = await filtersOf(ctx, opts);
  const by = counted?.kind ?? 'service';
  const section = opts.section ?? 'all';
  if (section !== 'all' && !isSection(section)) throw new UsageError(`--section must be one of all, ${SECTIONS.join(', ')}`);
  const client = await ctx.client();
  const { serviceNow } = await import('../../../client/activity.js');
  const now = await serviceNow(client);
  // The report's records: a line per encounter, or per transfer by the money's own times. -o ndjson
  // writes them a line each as the pages are read; --json <fields>, --jq and --template shape them
  // all (cli/shape.ts).
  const shaped: Record<string, unknown>[] = [];
  const onLines = ctx.shape
    ? (lines: Record<string, unknown>[]) => shaped.push(...lines)
    : ctx.format === 'ndjson'
      ? (lines: Record<string, unknown>[]) => lines.length > 0 && ctx.io.stdout.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
      : undefined;
  const { report, scan } = await readReport(ctx, client, f, counted, now, opts.lookback, onLines);
  if (ctx.shape) return { data: shaped };
  if (ctx.format === 'ndjson') return { exitCode: 0 };
  const data = { ...reportData(report, f, now, by), ...(scan ? { scan } : {}) };
  const csv = ctx.format === 'csv' ? csvOf(data, section) : undefined;
  return {
    data,
    items: csv?.rows ?? sectionRows(data, section === 'all' ? 'providers' : section),
    columns: csv?.columns,
    table: (t: TableTools) => reportTable(t, report, f, now, by, scan),
  };
}

/**
 * The period's ledger entries read page by page, and for each page the settlement records of its
 * encounters that were ever funded (--by funded or settled: that had money move in the period),
 * paced by the rate limits; each page folded into the report (domain/report.ts reportAccumulator)
 * and its records handed to `onLines`, then let go: the report holds its figures, never the
 * period's entries.
 */
async function readReport(
  ctx: Context,
  client: TpaClient,
  f: LedgerFilters,
  counted: CountedPeriod | undefined,
  now: string,
  lookback: string | undefined,
  onLines: ((lines: Record<string, unknown>[]) => void) | undefined,
): Promise<{ report: PeriodReport; scan: ScanInfo | undefined }> {
  const [{ reportAccumulator, supersededBy }, { eachEntry, eachPageWithEvent }, { readSettlements }, { keepHeapFlat }] = await Promise.all([
    import('../../../domain/report.js'),
    import('../../../client/activity.js'),
    import('../../../client/settlement-reads.js'),
    import('../../heap.js'),
  ]);
  // Memory flat in the number of entries (docs/design.md "Long listings").
  keepHeapFlat();
  const npi = f.provider_npi;
  const report = reportAccumulator(now, npi, counted ? { by: counted.kind, startMs: counted.span.startMs, endMs: counted.span.endMs } : undefined);
  // One progress line, redrawn, with its rate and time left (docs/jobs.md "Long jobs"); the
  // settlement reads' waits for the rate limit are shown on it too.
  const reading = counter(ctx.status, 'reading the ledger', 'entries');
  const at = { read: 0, total: 0 };
  const onProgress = (p: ScanProgress) => {
    at.read = p.read;
    at.total = p.total;
    reading(p.read, p.total, readWait(p));
  };
  const fold = async (entries: LedgerItem[], moneyEntries: LedgerItem[]) => {
    const funded = (counted ? moneyEntries : entries.filter((e) => e.status_progression.some((p) => p.status === 'FUNDED'))).map((e) => e.encounter_id);
    const settlements = new Map<string, ReportSettlement>();
    const read = await readSettlements(client, funded, {
      onProgress: (p) => p.waitingUntilMs !== undefined && at.total > 0 && reading(at.read, at.total, readWait(p)),
    });
    for (const [id, s] of read) if (s && !(s instanceof Error)) settlements.set(id, s);
    const transferLines = report.add(entries, settlements, moneyEntries);
    onLines?.(counted ? transferRecords(transferLines, entries, moneyEntries) : encounterRecords(entries, settlements, npi, supersededBy));
  };
  let scan: ScanInfo | undefined;
  if (counted) {
    // Funded or settled in the period: the service dates before it are read, the dates counted here (docs/periods.md "Which date a period counts").
    const entriesRead = await eachPageWithEvent(client, counted.filters, counted.kind, counted.span, fold, onProgress);
    ctx.status.clear();
    scan = await scanOf(ctx, counted.filters.start_date, counted.filters.end_date, lookbackDays(lookback), entriesRead, { provider_npi: npi });
  } else await eachEntry(client, f, (rows) => fold(rows, []), onProgress);
  ctx.status.clear();
  return { report: report.result(), scan };
}

/**
 * By the money's own times: one record per transfer with a figure in the period, its amounts
 * those the money section counts here, so the records add up to it (docs/money-funding.md "The finance desk's report").
 */
function transferRecords(
  transferLines: readonly TransferLine[],
  entries: readonly LedgerItem[],
  moneyEntries: readonly LedgerItem[],
): Record<string, unknown>[] {
  if (transferLines.length === 0) return [];
  const byId = new Map<string, LedgerItem>();
  for (const list of [moneyEntries, entries]) for (const e of list) byId.set(e.encounter_id, e);
  return transferLines.map((l) => {
    const e = byId.get(l.encounter_id);
    const t = l.transfer;
    return {
      encounter_id: l.encounter_id,
      encounter_number: e?.encounter_number ?? null,
      service_date: e?.service_date ?? null,
      status: e?.status ?? null,
      provider_npi: e?.provider.npi ?? null,
      processor_transfer_id: t.processor_transfer_id,
      transfer_status: t.status,
      initiated_at: t.initiated_at ?? null,
      completed_at: t.completed_at,
      released: money(l.releasedCents),
      in_transit: money(l.inTransitCents),
      settled: money(l.settledCents),
      released_then_refunded: money(l.refundedCents),
      came_back: money(l.cameBackCents),
      failed: money(l.failedCents),
      fees_charged: money(l.feeCents),
      reconciliation_status: t.reconciliation_status ?? null,
      match_status: t.aeob_match?.match_status ?? null,
      variance: t.aeob_match?.variance ?? null,
    };
  });
}

/** By service dates: one record per encounter with its settlement state, for scripts that build their own. */
function encounterRecords(
  entries: readonly LedgerItem[],
  settlements: ReadonlyMap<string, ReportSettlement>,
  npi: string | undefined,
  supersededBy: (e: LedgerItem) => string | null,
): Record<string, unknown>[] {
  return entries.map((e) => {
    const s = settlements.get(e.encounter_id);
    return {
      encounter_id: e.encounter_id,
      encounter_number: e.encounter_number,
      service_date: e.service_date,
      status: e.status,
      // A pended claim sent again: the report counts it under superseded_pended, not in its
      // statuses or totals; the lines whose superseded_by is null sum to the report's figures.
      superseded_by: supersededBy(e),
      provider_npi: e.provider.npi,
      charges: e.financial_summary.charges,
      allowed: e.financial_summary.allowed_amount,
      patient_responsibility: e.financial_summary.patient_responsibility,
      benefit: e.financial_summary.benefit_amount,
      transfer_status: s?.status ?? null,
      processor_transfer_id: s?.processor_transfer_id ?? null,
      // With --npi, that provider's payouts in the transfer (docs/money-funding.md "The finance desk's report").
      settled: s?.status === 'COMPLETED' ? settledOf(s, npi) : 0,
      reconciliation_status: s?.reconciliation_status ?? null,
      match_status: s?.aeob_match?.match_status ?? null,
      variance: s?.aeob_match?.variance ?? null,
    };
  });
}

const isSection = (name: string): name is Section => (SECTIONS as readonly string[]).includes(name);
