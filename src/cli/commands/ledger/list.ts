// tpa ledger list: encounters, newest service date first; filters, pages, or --all of them.
import type { Command } from 'commander';
import type { LedgerFilters, LedgerItem } from '../../../client/types.js';
import type { FieldError } from '../../../domain/errors.js';
import { JsonRow } from '../../../domain/json-row.js';
import { stepKinds } from '../../../domain/activity.js';
import { withCsvAmounts } from '../../../domain/csv.js';
import { LEDGER_STATUSES } from '../../../domain/ledger.js';
import { supersededBy } from '../../../domain/report.js';
import { wholeNumberProblem } from '../../../domain/validation.js';
import { fieldsInvalid, UsageError } from '../../../errors.js';
import { count } from '../../../render/format.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import type { TableSpec } from '../../../render/stream.js';
import {
  ALL_HELP,
  bySpec,
  countedPeriod,
  givenArgs,
  lookbackDays,
  lookbackSpec,
  pageHint,
  outputArgs,
  pageShown,
  periodFilters,
  periodSpec,
  scanProgress,
  scanOf,
  suggestCommand,
  withPeriodDates,
} from '../../options.js';
import type { Context } from '../../context.js';
import { fieldsOf, option, verb, type OptionValues } from '../../verb.js';

const options = {
  from: option.text('--from <date>', 'service date on or after (YYYY-MM-DD)'),
  to: option.text('--to <date>', 'service date on or before (YYYY-MM-DD)'),
  period: periodSpec,
  by: bySpec,
  lookback: lookbackSpec,
  npi: option.text('--npi <npi>', 'billing or rendering provider NPI'),
  status: option.text('--status <status>', LEDGER_STATUSES.join(' | '), { values: LEDGER_STATUSES }),
  limit: option.text('--limit <n>', 'entries per page, 1 to 100 (default 20)'),
  offset: option.text('--offset <n>', 'entries to skip (default 0)'),
  all: option.flag('--all', ALL_HELP),
};

export const list = verb({
  name: 'list',
  description: 'encounters, newest service date first; filters, pages, or --all of them',
  options,
  fields: fieldsOf<LedgerItem>({
    id: true,
    encounter_id: true,
    encounter_number: true,
    ssp_code: true,
    ssp_name: true,
    provider: true,
    payer: true,
    service_date: true,
    status: true,
    status_progression: true,
    financial_summary: true,
    superseded_by: true,
  }),
  examples: [
    'tpa ledger list --json encounter_number,status   # these fields of each entry; --json alone lists them',
    `tpa ledger list --all --jq '.[] | select(.status == "RECONCILED") | .encounter_number'`,
    "tpa ledger list --template '{{range .}}{{tablerow .encounter_number .status}}{{end}}'",
    'tpa ledger list --status FUNDED',
    'tpa ledger list --from 2026-03-01 --to 2026-03-31 --npi 1234567893 --all -o csv > march.csv',
    'tpa ledger list --period last-month --by funded -o csv > funded.csv',
    'tpa ledger list --all -o ndjson | jq -r \'select(.status == "ADJUDICATED") | .encounter_id\'',
  ],
  async run(ctx, _args, opts, cmd) {
    const given = filters(opts);
    // --by and --lookback are checked before the service is asked what day it is.
    countedPeriod(opts.by, opts.lookback, { start_date: '2000-01-01' });
    const f = await withPeriodDates(ctx, opts, given);
    const counted = countedPeriod(opts.by, opts.lookback, f);
    const client = await ctx.client();
    if (counted) return listedByEvent(ctx, client, f, counted, opts);
    if (opts.all) return listedAll(ctx, client, f);
    return onePage(ctx, client, f, cmd);
  },
});

/** A ledger row's identity, whichever form it comes in. */
const rowId = (row: LedgerItem | JsonRow): string => (row instanceof JsonRow ? row.id : row.encounter_id);
/** No table of these rows: they are only ever written as NDJSON. */
const NDJSON_ONLY: TableSpec<LedgerItem | JsonRow> = { columns: [], cells: () => [], empty: '' };

function filters(opts: OptionValues<typeof options>): LedgerFilters {
  const errors: FieldError[] = [];
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  const f: LedgerFilters = periodFilters(opts, errors);
  if (opts.status !== undefined) {
    const status = opts.status.toUpperCase();
    if (!(LEDGER_STATUSES as readonly string[]).includes(status)) add('--status', `must be one of ${LEDGER_STATUSES.join(', ')}`);
    f.status = status;
  }
  const integer = (name: string, value: string | undefined, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    add(name, wholeNumberProblem(value, min, max));
    return Number(value);
  };
  f.limit = integer('--limit', opts.limit, 1, 100);
  f.offset = integer('--offset', opts.offset, 0, Number.MAX_SAFE_INTEGER);
  if (errors.length > 0) throw fieldsInvalid(errors);
  return f;
}

/**
 * What became of the encounter's latest transfer, when it is not what the status says: the ledger
 * goes back to ADJUDICATED after a transfer that failed (FUNDED, then ADJUDICATED) or came back
 * (RECONCILED, or FUNDED at the arrival when it was not reconciled, then ADJUDICATED), and the list must
 * not hide that money was sent and is owed again
 * (docs/money-funding.md "Failed and refunded transfers").
 */
export function transferFlag(progression: readonly { status: string }[]): 'failed' | 'refunded' | undefined {
  // The latest step read as activity reads it (domain/activity.ts), which needs the whole progression
  // to tell a transfer that failed from one refunded after it arrived unreconciled (FUNDED twice).
  const last = stepKinds(progression).at(-1);
  return last === 'failed' || last === 'refunded' ? last : undefined;
}

function statusCell(t: TableTools, i: LedgerItem): string {
  const flag = transferFlag(i.status_progression ?? []);
  if (flag === 'failed') return `${t.status(i.status)} ${t.c.red('✗ failed')}`;
  if (flag === 'refunded') return `${t.status(i.status)} ${t.c.red('↩ refunded')}`;
  // A pended claim sent again (its superseded_by): acted on, nothing more to do for it.
  if (supersededBy(i) !== null) return `${t.status(i.status)} ${t.c.green('↪ sent again')}`;
  return t.status(i.status);
}

/**
 * A ledger entry as a CSV line: the progression (a list) does not fit one cell, so the line has the
 * latest status and when it was entered (status, status_at); json and ndjson keep the progression.
 * Its amounts have two decimals.
 */
function csvRow(i: LedgerItem): Record<string, unknown> {
  const { status_progression: progression, ...rest } = i;
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    // Amounts with two decimals, as a spreadsheet shows money (domain/csv.ts csvAmount).
    row[k] = k === 'financial_summary' && v !== null && typeof v === 'object' ? withCsvAmounts(v as Record<string, unknown>, Object.keys(v)) : v;
    if (k === 'status') row.status_at = progression?.[progression.length - 1]?.timestamp ?? null;
  }
  return row;
}

const CSV_COLUMNS = [
  'id',
  'encounter_id',
  'encounter_number',
  'ssp_code',
  'ssp_name',
  'provider.npi',
  'provider.name',
  'provider.role',
  'payer.name',
  'payer.id',
  'service_date',
  'status',
  'status_at',
  'financial_summary.charges',
  'financial_summary.allowed_amount',
  'financial_summary.deductible_applied',
  'financial_summary.copay_applied',
  'financial_summary.coinsurance_applied',
  'financial_summary.patient_responsibility',
  'financial_summary.benefit_amount',
  'financial_summary.payer_responsibility',
  'superseded_by',
];

// An entry is one line at any width (docs/design.md "Output"): on a terminal too narrow for every
// column, Charges goes first, then Allowed, then the encounter number (the id stays: it is what the
// other commands take), then the service date, then the provider, whose name is cut with … first,
// its NPI kept.
const LIST_TABLE: TableSpec<LedgerItem> = {
  columns: [
    { header: 'Encounter', drop: 3 },
    'Id',
    { header: 'Service date', drop: 4 },
    { header: 'Provider', cut: true, drop: 5 },
    // Room for the longest status with its flag, "ADJUDICATED ↩ refunded", on every page of --all.
    { header: 'Status', whole: true, room: 22 },
    { header: 'Charges', align: 'right', drop: 1 },
    { header: 'Allowed', align: 'right', drop: 2 },
    { header: 'Benefit', align: 'right' },
  ],
  cells: (t, i) => [
    i.encounter_number,
    i.encounter_id,
    i.service_date,
    `${i.provider.name} (${i.provider.npi})`,
    statusCell(t, i),
    t.amount(i.financial_summary.charges),
    t.amount(i.financial_summary.allowed_amount),
    t.amount(i.financial_summary.benefit_amount),
  ],
  empty: 'No ledger entries match.',
  csv: { columns: CSV_COLUMNS, row: csvRow },
};

function listTable(t: TableTools, items: LedgerItem[]): string {
  return t.table(
    LIST_TABLE.columns,
    items.map((i) => LIST_TABLE.cells(t, i)),
    { list: true },
  );
}

type Client = Awaited<ReturnType<Context['client']>>;
type Counted = NonNullable<ReturnType<typeof countedPeriod>>;

/** --by funded or settled: every match in the period. */
async function listedByEvent(ctx: Context, client: Client, f: LedgerFilters, counted: Counted, opts: OptionValues<typeof options>): Promise<CommandOutput> {
  // Funded or settled in the period: the service dates before it are read and the dates counted
  // here (docs/periods.md "Which date a period counts"), so every match is listed, as with --all.
  if (opts.limit !== undefined || opts.offset !== undefined)
    throw new UsageError(`--limit and --offset page the service's list; --by ${counted.kind} lists every match, as --all does`);
  const { entriesWithEvent } = await import('../../../client/activity.js');
  const progress = scanProgress(ctx);
  const { entries, entriesRead } = await entriesWithEvent(client, { ...counted.filters, status: f.status }, counted.kind, counted.span, progress.onProgress);
  progress.done();
  // A partial read (--lookback) says what it left out, on stderr.
  await scanOf(ctx, counted.filters.start_date, counted.filters.end_date, lookbackDays(opts.lookback), entriesRead, {
    provider_npi: f.provider_npi,
    status: f.status,
  });
  return {
    data: entries,
    items: ctx.format === 'csv' ? entries.map(csvRow) : entries,
    columns: CSV_COLUMNS,
    table: (t) => (entries.length === 0 ? LIST_TABLE.empty : listTable(t, entries)),
  };
}

/** --all: each page written as it arrives. */
async function listedAll(ctx: Context, client: Client, f: LedgerFilters): Promise<undefined> {
  // Each page is written as it arrives; in-process every page comes from one snapshot. The
  // largest page the contract (docs/api.md) allows unless --limit says otherwise: a hundredth of the requests.
  f.limit ??= 100;
  const { streamAll } = await import('../../listing.js');
  // NDJSON prints each row as the engine writes it: in-process, rows come as their JSON text.
  if (ctx.format === 'ndjson' && !ctx.shape) {
    await streamAll(
      ctx,
      'entries',
      () => client.ledgerRows(f),
      (link) => client.ledgerRowsPage(link),
      rowId,
      NDJSON_ONLY,
      f.offset ?? 0,
    );
    return;
  }
  await streamAll(
    ctx,
    'entries',
    () => client.ledgerList(f),
    (link) => client.ledgerPage(link),
    (i: LedgerItem) => i.encounter_id,
    LIST_TABLE,
    f.offset ?? 0,
  );
}

/** One page of the service's list, with the hint naming the next and --all. */
async function onePage(ctx: Context, client: Client, f: LedgerFilters, cmd: Command): Promise<CommandOutput> {
  const page = (await client.ledgerList(f)).body;
  // The hint comes after the table, on stderr: printed first, a page of rows scrolled it away. Its
  // commands keep the same selection (filters, page size, profile). In every format: a script that
  // pipes one page of several into a file is told, on stderr, that rows were left out
  // (docs/design.md "Output").
  const offset = f.offset ?? 0;
  const same = [...givenArgs(cmd, ['offset', 'all']), ...outputArgs(ctx)];
  const after = page.next
    ? [
        pageHint(pageShown(ctx, `${count(offset + 1)}–${count(offset + page.results.length)} of ${count(page.count)}`, 'entries'), {
          next: suggestCommand(ctx, ['ledger', 'list', ...same, '--offset', String(offset + page.results.length)]),
          all: suggestCommand(ctx, ['ledger', 'list', ...same, '--all']),
        }),
      ]
    : [];
  return {
    data: page,
    items: ctx.format === 'csv' ? page.results.map(csvRow) : page.results,
    columns: CSV_COLUMNS,
    after,
    table: (t) => (page.results.length === 0 ? LIST_TABLE.empty : listTable(t, page.results)),
  };
}
