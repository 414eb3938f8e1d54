// Handlers of `tpa ratesheet` (declared in ratesheet.ts).
import type { TpaClient } from '../../client/client.js';
import type { RateSchedule, ScheduleItem, ScheduleItemInput, ScheduleSettings, Ssp } from '../../client/types.js';
import { parseCsv } from '../../domain/csv.js';
import { csvCellValue } from '../../render/screen.js';
import type { FieldError } from '../../domain/errors.js';
import { checkAmount, checkRateRatio, formatCentsGrouped, jsonNumberToCents, MAX_AMOUNT_CENTS, mulDivRound, parseRatio } from '../../domain/money.js';
import { characterCount, isoDateProblem } from '../../domain/validation.js';
import { fieldsInvalid, NotFoundError, TpaError, UsageError, ValidationFailed } from '../../errors.js';
import { toCsv, type TableTools } from '../../render/output.js';
import type { TableSpec } from '../../render/stream.js';
import type { Handler, Options } from '../action.js';
import { readInput, wholeNumberOption } from '../options.js';
import { confirm } from '../prompt.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RATE_TYPES = ['CASE_RATE', 'PERCENT_MEDICARE'];
const BUNDLE_TYPES = ['CONVENED', 'PROVIDER_ONLY'];
export const CSV_COLUMNS = ['ssp_code', 'rate_type', 'rate_value', 'bundle_type', 'notes'] as const;

/** A ratio option (--fallback-percent), by the service's rule: at most four decimals, never rounded. */
function ratio(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const checked = checkRateRatio(String(value));
  if ('problem' in checked) throw new ValidationFailed(`${name}: ${checked.problem}`);
  return Number(checked.text);
}

/**
 * --default-rate: money for a CASE_RATE default, a ratio for PERCENT_MEDICARE; with no
 * --default-rate-type, the service judges by the schedule's type, so either form is let through.
 */
function defaultRate(value: unknown, rateType: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const type = typeof rateType === 'string' ? rateType.toUpperCase() : undefined;
  const problem = type === undefined ? rateProblem('CASE_RATE', text) && rateProblem('PERCENT_MEDICARE', text) : rateProblem(type, text);
  if (problem) throw new ValidationFailed(`--default-rate: ${problem}`);
  return Number(text);
}

/** Schedule options as the service's field names; the service checks the enumerated values. */
function scheduleSettings(opts: Options): Partial<ScheduleSettings> {
  const s: Partial<ScheduleSettings> = {};
  const set = <K extends keyof ScheduleSettings>(key: K, value: ScheduleSettings[K] | undefined) => value !== undefined && (s[key] = value);
  set('ssp_reference_type', opts.referenceType as string | undefined);
  set('scope_of_care', opts.scope as string | undefined);
  set('service_logic', opts.serviceLogic as string | undefined);
  set('elective_advance_hours', wholeNumberOption('--elective-hours', opts.electiveHours, 0, 8760));
  set('non_elective_fallback', opts.fallback as string | undefined);
  set('non_elective_fallback_percent', ratio('--fallback-percent', opts.fallbackPercent));
  set('default_rate_type', opts.defaultRateType as string | undefined);
  set('default_rate_value', defaultRate(opts.defaultRate, opts.defaultRateType));
  return s;
}

/** The service's own rules for a rate, so that an import is refused before anything is written. */
function rateProblem(rateType: string, value: string): string | undefined {
  if (!RATE_TYPES.includes(rateType)) return `rate type must be ${RATE_TYPES.join(' or ')} (got "${rateType}")`;
  // The rate travels as a JSON number: within these bounds it comes back as the same decimal text.
  const checked = rateType === 'CASE_RATE' ? checkAmount(value) : checkRateRatio(value);
  return 'problem' in checked ? `a ${rateType} rate ${checked.problem}` : undefined;
}

async function scheduleOrNull(client: TpaClient, instanceId: string): Promise<RateSchedule | null> {
  try {
    return (await client.schedule(instanceId)).body.rate_schedule;
  } catch (err) {
    if (err instanceof TpaError && err.exitCode === 3) return null;
    throw err;
  }
}

/** Resolves --ssp: a UUID as it is; a code from the schedule's own items first, then the catalog. */
async function resolveSsp(client: TpaClient, schedule: RateSchedule | null, ref: string): Promise<{ id: string; code: string }> {
  if (UUID.test(ref)) return { id: ref.toLowerCase(), code: schedule?.items.find((i) => i.ssp_id === ref.toLowerCase())?.ssp_code ?? ref };
  const code = ref.toUpperCase();
  const item = schedule?.items.find((i) => i.ssp_code === code);
  if (item) return { id: item.ssp_id, code };
  const found = (await client.catalog({ search: code, page_size: 200 })).body.results.find((s) => s.code === code);
  if (!found) throw new NotFoundError(`no active SSP with code ${code} in the catalog`, { hint: `try: tpa ratesheet catalog --search ${code}` });
  return { id: found.id, code };
}

function itemsTable(t: TableTools, items: ScheduleItem[]): string {
  return t.table(
    ['#', 'Code', 'Name', 'Rate type', { header: 'Rate', align: 'right' }, 'Bundle', 'Notes'],
    items.map((i) => [
      String(i.sort_order),
      i.ssp_code,
      i.ssp_name,
      i.rate_type,
      i.rate_type === 'CASE_RATE' ? t.amount(i.rate_value) : `${i.rate_value}×`,
      i.is_bundle_eligible ? String(i.bundle_type) : '—',
      i.notes,
    ]),
  );
}

function settingsPairs(s: ScheduleSettings): [string, string][] {
  return [
    ['Reference type', s.ssp_reference_type],
    ['Scope of care', s.scope_of_care],
    ['Service logic', s.service_logic],
    ['Elective advance', `${s.elective_advance_hours} h`],
    ['Non-elective fallback', `${s.non_elective_fallback} (${s.non_elective_fallback_percent}× Medicare)`],
    ['Default rate', `${s.default_rate_type} ${s.default_rate_value}`],
  ];
}

const message = (body: { message: string }) => ({ data: body, table: (t: TableTools) => `${t.c.green('✓')} ${body.message}` });

export const catalog: Handler = async (ctx, _args, opts) => {
  const client = await ctx.client();
  const query = {
    search: opts.search as string | undefined,
    page: wholeNumberOption('--page', opts.page, 1, Number.MAX_SAFE_INTEGER),
    page_size: wholeNumberOption('--page-size', opts.pageSize, 1, 200),
    version: opts.version as string | undefined,
  };
  if (opts.all) {
    // Each page is written as it arrives (json: one array), like ledger list --all.
    const { streamAll } = await import('../listing.js');
    await streamAll(
      ctx,
      'SSPs',
      () => client.catalog(query),
      (link) => client.catalogPage(link),
      (s: Ssp) => s.id,
      CATALOG_TABLE,
    );
    return;
  }
  const first = (await client.catalog(query)).body;
  if (ctx.format === 'table' && first.next) {
    ctx.note(`showing ${first.results.length} of ${first.count}: use --all, or --page ${(query.page ?? 1) + 1} for the next page`);
  }
  const table = (t: TableTools) =>
    t.table(
      CATALOG_TABLE.columns,
      first.results.map((s) => CATALOG_TABLE.cells(t, s)),
    );
  return { data: first, items: first.results, table };
};

const CATALOG_TABLE: TableSpec<Ssp> = {
  columns: ['Code', 'Name', { header: 'Medicare', align: 'right' }, 'CPT', 'Anesthesia', 'Id'],
  cells: (t, s) => [s.code, s.name, t.amount(s.medicare_rate), s.primary_cpt_code, s.requires_anesthesia ? 'yes' : 'no', s.id],
  empty: 'No SSPs match.',
};

export const init: Handler = async (ctx, [instanceId], opts) => message((await (await ctx.client()).initSchedule(instanceId!, scheduleSettings(opts))).body);

export const show: Handler = async (ctx, [instanceId]) => {
  const s = (await (await ctx.client()).schedule(instanceId!)).body.rate_schedule;
  return {
    data: { rate_schedule: s },
    items: s.items,
    table: (t) =>
      [
        t.keyValues([
          ['Rate schedule', `${s.id} (${instanceId})`],
          ['Status', s.status === 'FINALIZED' ? t.c.green(s.status) : t.c.yellow(s.status)],
          ...settingsPairs(s),
        ]),
        s.items.length === 0 ? 'No items yet: tpa ratesheet add, or tpa ratesheet load-catalog' : itemsTable(t, s.items),
      ].join('\n'),
  };
};

export const config: Handler = async (ctx, [instanceId], opts) => {
  const settings = scheduleSettings(opts);
  if (Object.keys(settings).length === 0) throw new UsageError('nothing to change: give one or more schedule options (see tpa ratesheet config --help)');
  return message((await (await ctx.client()).configureSchedule(instanceId!, settings)).body);
};

export const add: Handler = async (ctx, [instanceId], opts) => {
  const rateType = String(opts.rateType).toUpperCase();
  const rate = String(opts.rate);
  const problem = rateProblem(rateType, rate);
  if (problem) throw new ValidationFailed(`--rate: ${problem}`);
  const bundleType = opts.bundleType === undefined ? null : String(opts.bundleType).toUpperCase();
  if (bundleType !== null && !BUNDLE_TYPES.includes(bundleType)) throw new ValidationFailed(`--bundle-type: must be ${BUNDLE_TYPES.join(' or ')}`);
  if (opts.bundleEligible && bundleType === null) throw new ValidationFailed(`--bundle-type is required with --bundle-eligible: ${BUNDLE_TYPES.join(' or ')}`);
  const client = await ctx.client();
  const ssp = await resolveSsp(client, await scheduleOrNull(client, instanceId!), String(opts.ssp));
  const body = (
    await client.addSsp(instanceId!, {
      ssp_id: ssp.id,
      rate_type: rateType,
      rate_value: Number(rate),
      is_bundle_eligible: opts.bundleEligible === true,
      bundle_type: opts.bundleEligible ? bundleType : null,
      notes: (opts.notes as string | undefined) ?? '',
    })
  ).body;
  return message(body);
};

export const remove: Handler = async (ctx, [instanceId], opts) => {
  const client = await ctx.client();
  const ssp = await resolveSsp(client, await scheduleOrNull(client, instanceId!), String(opts.ssp));
  return message((await client.removeSsp(instanceId!, ssp.id)).body);
};

export const loadCatalog: Handler = async (ctx, [instanceId], opts) =>
  message((await (await ctx.client()).loadCatalog(instanceId!, opts.version as string | undefined)).body);

export const preview: Handler = async (ctx, [instanceId]) => {
  const { items } = (await (await ctx.client()).previewSchedule(instanceId!)).body;
  const { jsonNumberToCents, formatCentsGrouped } = await import('../../domain/money.js');
  const totalCents = items.reduce((sum, i) => sum + (jsonNumberToCents(i.calculated_allowed_amount) ?? 0), 0);
  return {
    data: { items },
    items,
    table: (t) =>
      t.table(
        [
          'Code',
          'Name',
          'Rate type',
          { header: 'Rate', align: 'right' },
          { header: 'Medicare', align: 'right' },
          { header: 'Allowed', align: 'right' },
          'Bundle',
        ],
        [
          ...items.map((i) => [
            i.ssp_code,
            i.ssp_name,
            i.rate_type,
            i.rate_type === 'CASE_RATE' ? t.amount(i.rate_value) : `${i.rate_value}×`,
            t.amount(i.medicare_rate),
            t.amount(i.calculated_allowed_amount),
            i.bundle_type ?? '—',
          ]),
          [t.c.bold('Total'), `${items.length} SSPs`, '', '', '', t.c.bold(formatCentsGrouped(totalCents)), ''],
        ],
      ),
  };
};

export const finalize: Handler = async (ctx, [instanceId], opts) => {
  const effective = opts.effectiveDate as string | undefined;
  if (effective !== undefined) {
    const problem = isoDateProblem(effective);
    if (problem) throw fieldsInvalid([{ field: '--effective-date', message: problem }]);
  }
  const client = await ctx.client();
  const options = { ...(effective ? { effective_date: effective } : {}), ...(opts.retroactive ? { allow_retroactive: true } : {}) };
  const shown = (body: Awaited<ReturnType<typeof client.finalize>>['body']) => ({
    data: body,
    table: (t: TableTools) =>
      `${body.status === 'DRY_RUN' ? 'Dry run, nothing written' : `${t.c.green('✓')} ${body.message}`}\n` +
      t.keyValues([
        ['Contract', body.contract_id],
        ['Rate records', String(body.rate_records_created)],
        ...(body.effective_date ? ([['In force from', body.effective_date]] as [string, string][]) : []),
        ...finalizeChanges(body),
      ]),
  });
  // What it would do, from the service itself: said before the question, or alone with --dry-run.
  if (opts.dryRun) return shown((await client.finalize(instanceId!, { ...options, dry_run: true })).body);
  if (ctx.canPrompt && !ctx.yes) {
    const plan = (await client.finalize(instanceId!, { ...options, dry_run: true })).body;
    const dropped = plan.codes_dropped ?? [];
    ctx.note(
      `${plan.rate_records_created} items of ${instanceId} will become live contract rates on ${plan.contract_id} from ${plan.effective_date ?? effective ?? 'today'}${opts.retroactive ? ' (retroactive: services already rendered are priced at them)' : ''}; the schedule is then locked.` +
        (plan.codes_ended?.length ? `\nThe rates in force of ${plan.codes_ended.length} codes end the day before.` : '') +
        (dropped.length ? `\n${dropped.length} codes are then no longer rated on this contract, and their claims are not covered: ${dropped.join(', ')}.` : ''),
    );
  }
  await confirm(ctx, `Finalize the rate schedule of ${instanceId} into live contract rates?`);
  return shown((await client.finalize(instanceId!, options)).body);
};

/** The codes a finalize ends and drops, as rows of its result (when the service says them). */
function finalizeChanges(body: { codes_ended?: string[]; codes_dropped?: string[] }): [string, string][] {
  const rows: [string, string][] = [];
  if (body.codes_ended) rows.push(['Rates ended the day before', body.codes_ended.length === 0 ? 'none' : body.codes_ended.join(', ')]);
  if (body.codes_dropped) rows.push(['No longer rated', body.codes_dropped.length === 0 ? 'none' : body.codes_dropped.join(', ')]);
  return rows;
}

// ---- CSV import and export ----

interface PlannedRow {
  line: number;
  ssp_code: string;
  ssp_id: string;
  action: 'add' | 'change' | 'unchanged';
  changes: string[];
  item: ScheduleItemInput;
}

/** Unknown header names as said back: each cut to 40 characters and at most five of them, so a hostile file is not echoed whole. */
function shortList(names: string[]): string {
  const cut = names.slice(0, 5).map((n) => (n.length > 40 ? `${n.slice(0, 40)}…` : n));
  return `${cut.join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
}

function formatRate(rateType: string, value: number): string {
  return rateType === 'CASE_RATE' ? value.toFixed(2) : String(value);
}

/** Reads and checks every row before anything is written; the first problems are reported by line. */
async function planImport(client: TpaClient, schedule: RateSchedule, text: string): Promise<PlannedRow[]> {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new ValidationFailed(`the CSV cannot be read: ${(err as Error).message}; nothing was written`);
  }
  const [header, ...rows] = records;
  const columns = header?.fields.map((f) => f.trim().toLowerCase()) ?? [];
  const missing = CSV_COLUMNS.filter((c) => !columns.includes(c));
  const extra = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (!header || missing.length > 0 || extra.length > 0) {
    throw new ValidationFailed(
      `line 1: the header must name the columns ${CSV_COLUMNS.join(',')}${missing.length ? ` (missing ${missing.join(', ')})` : ''}${extra.length ? ` (unknown ${shortList(extra)})` : ''}; nothing was written`,
    );
  }
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const catalog = new Map<string, Ssp>();
  const planned: PlannedRow[] = [];
  for (const record of rows) {
    // A cell export quoted so that a spreadsheet would not run it ('=…) reads back as it was. Codes,
    // types and values are read trimmed; notes exactly as written, so that an export imports unchanged.
    const raw = (name: (typeof CSV_COLUMNS)[number]) => csvCellValue(record.fields[columns.indexOf(name)] ?? '');
    const get = (name: (typeof CSV_COLUMNS)[number]) => csvCellValue((record.fields[columns.indexOf(name)] ?? '').trim());
    const at = `line ${record.line}`;
    if (record.fields.length !== columns.length) {
      errors.push({ field: at, message: `has ${record.fields.length} fields; the header has ${columns.length}` });
      continue;
    }
    const code = get('ssp_code').toUpperCase();
    const rateType = get('rate_type').toUpperCase();
    const rateText = get('rate_value');
    const bundleType = get('bundle_type').toUpperCase();
    const notes = raw('notes');
    if (code === '') errors.push({ field: at, message: 'ssp_code is empty' });
    else if (seen.has(code)) errors.push({ field: at, message: `${code} already appears on line ${seen.get(code)}` });
    seen.set(code, record.line);
    const problem = rateProblem(rateType, rateText);
    if (problem) errors.push({ field: at, message: problem });
    if (bundleType !== '' && !BUNDLE_TYPES.includes(bundleType))
      errors.push({ field: at, message: `bundle_type must be empty, ${BUNDLE_TYPES.join(' or ')} (got "${bundleType}")` });
    if (characterCount(notes) > 500) errors.push({ field: at, message: `notes are longer than 500 characters (got ${characterCount(notes)})` });
    if (code === '' || problem) continue;
    const readCatalog = async () => {
      if (catalog.size > 0) return;
      let page = (await client.catalog({ page_size: 200 })).body;
      for (;;) {
        for (const s of page.results) catalog.set(s.code, s);
        if (!page.next) break;
        page = (await client.catalogPage(page.next)).body;
      }
    };
    let sspId = schedule.items.find((i) => i.ssp_code === code)?.ssp_id;
    if (!sspId) {
      await readCatalog();
      sspId = catalog.get(code)?.id;
    }
    // A ratio makes a contract rate of ratio × the Medicare rate: it must be money too, checked
    // here so that the service does not refuse a row after others were written.
    if (rateType === 'PERCENT_MEDICARE') {
      await readCatalog();
      const medicareCents = jsonNumberToCents(catalog.get(code)?.medicare_rate);
      const ratio = parseRatio(rateText)!;
      if (medicareCents !== undefined && mulDivRound(medicareCents, ratio.numerator, ratio.denominator) > MAX_AMOUNT_CENTS) {
        errors.push({
          field: at,
          message: `${rateText} × the Medicare rate ${formatCentsGrouped(medicareCents)} of ${code} is more than ${formatCentsGrouped(MAX_AMOUNT_CENTS)}, the most one contract rate may be`,
        });
        continue;
      }
    }
    if (!sspId) {
      errors.push({ field: at, message: `${code} is not an active SSP in the catalog` });
      continue;
    }
    const item: ScheduleItemInput = {
      ssp_id: sspId,
      rate_type: rateType,
      rate_value: Number(rateText),
      is_bundle_eligible: bundleType !== '',
      bundle_type: bundleType || null,
      notes,
    };
    const existing = schedule.items.find((i) => i.ssp_id === sspId);
    const changes = existing
      ? [
          existing.rate_type !== item.rate_type && `rate_type ${existing.rate_type} → ${item.rate_type}`,
          existing.rate_value !== item.rate_value &&
            `rate_value ${formatRate(existing.rate_type, existing.rate_value)} → ${formatRate(item.rate_type, item.rate_value)}`,
          (existing.bundle_type ?? null) !== item.bundle_type && `bundle_type ${existing.bundle_type ?? '—'} → ${item.bundle_type ?? '—'}`,
          existing.notes !== item.notes && 'notes',
        ].filter((c): c is string => typeof c === 'string')
      : [];
    planned.push({ line: record.line, ssp_code: code, ssp_id: sspId, action: existing ? (changes.length > 0 ? 'change' : 'unchanged') : 'add', changes, item });
  }
  if (errors.length > 0) {
    throw new ValidationFailed(
      `the CSV has ${errors.length} bad row${errors.length === 1 ? '' : 's'}; nothing was written:\n${errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`,
      { details: errors },
    );
  }
  return planned;
}

export const importCsv: Handler = async (ctx, [instanceId, file], opts) => {
  const text = await readInput(ctx, file!, 'CSV');
  const client = await ctx.client();
  const schedule = (await client.schedule(instanceId!)).body.rate_schedule;
  if (schedule.status === 'FINALIZED')
    throw new TpaError(4, 'finalized', `the rate schedule of ${instanceId} is finalized and can no longer be changed; nothing was written`);
  const plan = await planImport(client, schedule, text);
  const writes = plan.filter((p) => p.action !== 'unchanged');
  const dryRun = opts.dryRun === true;
  if (!dryRun) {
    for (const [n, p] of writes.entries()) {
      ctx.progress(`writing ${n + 1} of ${writes.length}: ${p.ssp_code}`);
      try {
        await client.addSsp(instanceId!, p.item);
      } catch (err) {
        // Every row was checked first, so this is the service or the network; say exactly where it stopped.
        if (err instanceof TpaError) {
          throw new TpaError(
            err.exitCode,
            err.code,
            `the import stopped at line ${p.line} (${p.ssp_code}): ${n} of ${writes.length} rows were written before it; ${err.message}`,
            { status: err.status, body: err.body },
          );
        }
        throw err;
      }
    }
  }
  const counts = {
    add: plan.filter((p) => p.action === 'add').length,
    change: plan.filter((p) => p.action === 'change').length,
    unchanged: plan.filter((p) => p.action === 'unchanged').length,
  };
  const rows = plan.map((p) => ({
    line: p.line,
    ssp_code: p.ssp_code,
    ssp_id: p.ssp_id,
    action: p.action,
    changes: p.changes.join('; '),
    rate_type: p.item.rate_type,
    rate_value: p.item.rate_value,
    bundle_type: p.item.bundle_type,
    notes: p.item.notes,
  }));
  return {
    data: { dry_run: dryRun, written: dryRun ? 0 : writes.length, ...counts, rows },
    items: rows,
    table: (t) =>
      [
        t.table(
          ['Line', 'Code', 'Action', 'Rate type', { header: 'Rate', align: 'right' }, 'Bundle', 'Changes'],
          plan.map((p) => [
            String(p.line),
            p.ssp_code,
            p.action === 'add' ? t.c.green('add') : p.action === 'change' ? t.c.yellow('change') : 'unchanged',
            p.item.rate_type,
            formatRate(p.item.rate_type, p.item.rate_value),
            p.item.bundle_type ?? '—',
            p.changes.join('; '),
          ]),
        ),
        `${counts.add} to add, ${counts.change} to change, ${counts.unchanged} unchanged: ${dryRun ? 'dry run, nothing written' : `${writes.length} written`}`,
      ].join('\n'),
  };
};

export const exportCsv: Handler = async (ctx, [instanceId]) => {
  const s = (await (await ctx.client()).schedule(instanceId!)).body.rate_schedule;
  const rows = s.items.map((i) => ({
    ssp_code: i.ssp_code,
    rate_type: i.rate_type,
    rate_value: formatRate(i.rate_type, i.rate_value),
    bundle_type: i.bundle_type ?? '',
    notes: i.notes,
  }));
  // A spreadsheet file whatever the output format, with the header even when there are no items.
  ctx.io.stdout.write(rows.length > 0 ? toCsv(rows) : `${CSV_COLUMNS.join(',')}\n`);
};

export { importCsv as import, exportCsv as export };
