// tpa ledger list: encounters, newest service date first; filters, pages, or --all of them.
import type { LedgerFilters, LedgerItem } from '../../../client/types.js';
import type { FieldError } from '../../../domain/errors.js';
import { LEDGER_STATUSES } from '../../../domain/ledger.js';
import { wholeNumberProblem } from '../../../domain/validation.js';
import { fieldsInvalid, UsageError } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import type { TableSpec } from '../../../render/stream.js';
import { bySpec, countedPeriod, givenArgs, lookbackSpec, periodFilters, periodSpec, scanProgress, suggestCommand, withPeriodDates } from '../../options.js';
import { option, verb, type OptionValues } from '../../verb.js';

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
  all: option.flag('--all', 'follow the pages to the end (json: one array; ndjson and csv: every entry)'),
};

export const list = verb({
  name: 'list',
  description: 'encounters, newest service date first; filters, pages, or --all of them',
  options,
  examples: [
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
    if (counted) {
      // Funded or settled in the period: the service dates before it are read and the dates counted
      // here (docs/periods.md "Which date a period counts"), so every match is listed, as with --all.
      if (opts.limit !== undefined || opts.offset !== undefined)
        throw new UsageError(`--limit and --offset page the service's list; --by ${counted.kind} lists every match, as --all does`);
      const { entriesWithEvent } = await import('../../../client/activity.js');
      const progress = scanProgress(ctx);
      const { entries } = await entriesWithEvent(client, { ...counted.filters, status: f.status }, counted.kind, counted.span, progress.onProgress);
      progress.done();
      return { data: entries, items: entries, table: (t) => (entries.length === 0 ? LIST_TABLE.empty : listTable(t, entries)) };
    }
    if (opts.all) {
      // Each page is written as it arrives; in-process every page comes from one snapshot. The
      // largest page the contract (docs/api.md) allows unless --limit says otherwise: a hundredth of the requests.
      f.limit ??= 100;
      const { streamAll } = await import('../../listing.js');
      await streamAll(
        ctx,
        'entries',
        () => client.ledgerList(f),
        (link) => client.ledgerPage(link),
        (i: LedgerItem) => i.encounter_id,
        LIST_TABLE,
      );
      return;
    }
    const page = (await client.ledgerList(f)).body;
    if (ctx.format === 'table' && page.next) {
      const shown = (f.offset ?? 0) + page.results.length;
      // The same selection (filters, page size, profile), the next page or every page.
      const same = givenArgs(cmd, ['offset', 'all']);
      ctx.note(
        `showing ${(f.offset ?? 0) + 1}–${shown} of ${page.count.toLocaleString('en-US')}; next page: ${suggestCommand(ctx, ['ledger', 'list', ...same, '--offset', String(shown)])}; all of them: ${suggestCommand(ctx, ['ledger', 'list', ...same, '--all'])}`,
      );
    }
    return { data: page, items: page.results, table: (t) => (page.results.length === 0 ? LIST_TABLE.empty : listTable(t, page.results)) };
  },
});

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

const LIST_TABLE: TableSpec<LedgerItem> = {
  columns: [
    'Encounter',
    'Id',
    'Service date',
    'Provider',
    'Status',
    { header: 'Charges', align: 'right' },
    { header: 'Allowed', align: 'right' },
    { header: 'Benefit', align: 'right' },
  ],
  cells: (t, i) => [
    i.encounter_number,
    i.encounter_id,
    i.service_date,
    `${i.provider.name} (${i.provider.npi})`,
    t.status(i.status),
    t.amount(i.financial_summary.charges),
    t.amount(i.financial_summary.allowed_amount),
    t.amount(i.financial_summary.benefit_amount),
  ],
  empty: 'No ledger entries match.',
};

function listTable(t: TableTools, items: LedgerItem[]): string {
  return t.table(
    LIST_TABLE.columns,
    items.map((i) => LIST_TABLE.cells(t, i)),
  );
}
