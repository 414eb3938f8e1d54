// tpa ratesheet catalog: the SSP catalog, a page at a time or every page with --all.
import { withCsvAmounts } from '../../../domain/csv.js';
import { CATALOG_DEFAULT_PAGE_SIZE } from '../../../domain/page-size.js';
import type { Ssp } from '../../../client/types.js';
import { count } from '../../../render/format.js';
import type { TableTools } from '../../../render/output.js';
import type { TableSpec } from '../../../render/stream.js';
import { ALL_HELP, givenArgs, outputArgs, pageHint, pageShown, suggestCommand, wholeNumberOption } from '../../options.js';
import { option, fieldsOf, verb } from '../../verb.js';

/** An SSP's fields: `--json` selects from them, and they are the CSV header, written even when none matches. */
const SSP_FIELDS = fieldsOf<Ssp>({
  id: true,
  code: true,
  name: true,
  level: true,
  medicare_rate: true,
  base_weight: true,
  primary_cpt_code: true,
  requires_anesthesia: true,
});

const CATALOG_TABLE: TableSpec<Ssp> = {
  // A package a line: on a narrow terminal its id (--ssp takes the code too), then whether it needs anesthesia, then its CPT give way.
  columns: ['Code', 'Name', { header: 'Medicare', align: 'right' }, { header: 'CPT', drop: 3 }, { header: 'Anesthesia', drop: 2 }, { header: 'Id', drop: 1 }],
  cells: (t, s) => [s.code, s.name, t.amount(s.medicare_rate), s.primary_cpt_code, s.requires_anesthesia ? 'yes' : 'no', s.id],
  empty: 'No SSPs match.',
  // The Medicare rate is money: two decimals in CSV (domain/csv.ts csvAmount).
  csv: {
    columns: SSP_FIELDS,
    row: (s) => withCsvAmounts(s as unknown as Record<string, unknown>, ['medicare_rate']),
  },
};

export const catalog = verb({
  name: 'catalog',
  description: 'the SSP catalog: active encounter-level standard service packages',
  options: {
    search: option.text('--search <text>', 'filter by name or code'),
    page: option.text('--page <n>', 'page number (default 1)'),
    pageSize: option.text('--page-size <n>', 'entries per page, 1 to 200 (default 20)'),
    version: option.text('--version <version>', 'catalog version (default: the current one)'),
    all: option.flag('--all', ALL_HELP),
  },
  fields: SSP_FIELDS,
  examples: ['tpa ratesheet catalog --search knee', 'tpa ratesheet catalog --all -o csv > catalog.csv'],
  async run(ctx, _args, opts, cmd) {
    const client = await ctx.client();
    const query = {
      search: opts.search,
      page: wholeNumberOption('--page', opts.page, 1, Number.MAX_SAFE_INTEGER),
      page_size: wholeNumberOption('--page-size', opts.pageSize, 1, 200),
      version: opts.version,
    };
    if (opts.all) {
      // Each page is written as it arrives (json: one array), like ledger list --all.
      const { streamAll } = await import('../../listing.js');
      await streamAll(
        ctx,
        'SSPs',
        () => client.catalog(query),
        (link) => client.catalogPage(link),
        (s: Ssp) => s.id,
        CATALOG_TABLE,
        ((query.page ?? 1) - 1) * (query.page_size ?? CATALOG_DEFAULT_PAGE_SIZE),
      );
      return;
    }
    const first = (await client.catalog(query)).body;
    // The hint comes after the table, on stderr, where a page of rows does not scroll it away; in
    // every format, as ledger list's (docs/design.md "Output"): one page of several is never silent.
    const same = [...givenArgs(cmd, ['page', 'all']), ...outputArgs(ctx)];
    const after = first.next
      ? [
          pageHint(pageShown(ctx, `${count(first.results.length)} of ${count(first.count)}`, 'SSPs'), {
            next: suggestCommand(ctx, ['ratesheet', 'catalog', ...same, '--page', String((query.page ?? 1) + 1)]),
            all: suggestCommand(ctx, ['ratesheet', 'catalog', ...same, '--all']),
          }),
        ]
      : [];
    const table = (t: TableTools) =>
      t.table(
        CATALOG_TABLE.columns,
        first.results.map((s) => CATALOG_TABLE.cells(t, s)),
        { list: true },
      );
    return {
      data: first,
      items: ctx.format === 'csv' ? first.results.map(CATALOG_TABLE.csv!.row!) : first.results,
      columns: CATALOG_TABLE.csv!.columns,
      after,
      table,
    };
  },
});
