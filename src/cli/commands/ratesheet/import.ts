// tpa ratesheet import: a bulk upsert from a CSV, every row checked before anything is written,
// the changes shown first (or only, with --dry-run).
import { instanceArgument } from './instance.js';
import type { TpaClient } from '../../../client/client.js';
import type { RateSchedule, ScheduleItemInput, Ssp } from '../../../client/types.js';
import { parseCsv } from '../../../domain/csv.js';
import type { FieldError } from '../../../domain/errors.js';
import { formatCentsGrouped, jsonNumberToCents, MAX_AMOUNT_CENTS } from '../../../domain/money.js';
import {
  allowedOverMax,
  isScheduleBundleType,
  rateOnScreen,
  SCHEDULE_BUNDLE_TYPES,
  scheduleRate,
  scheduleRateProblem,
} from '../../../domain/schedule-rates.js';
import { characterCount } from '../../../domain/validation.js';
import { TpaError, ValidationFailed } from '../../../errors.js';
import { csvCellValue } from '../../../render/screen.js';
import { counted } from '../../../render/format.js';
import { readInput } from '../../options.js';
import { argument, option, verb } from '../../verb.js';
import { counter } from '../../status-line.js';
import { CSV_COLUMNS } from './rates.js';

export const importCsv = verb({
  name: 'import',
  description:
    'bulk upsert from a CSV of ssp_code,rate_type,rate_value,bundle_type,notes; shows the changes first; a bad row stops it before anything is written',
  args: {
    instanceId: instanceArgument(),
    file: argument.required('<file>', 'CSV file, or - for stdin'),
  },
  options: { dryRun: option.flag('--dry-run', 'show what would change, write nothing') },
  examples: [
    'tpa ratesheet init BLD-1002 && tpa ratesheet export BLD-1002 > rates.csv   # then edit rates.csv in a spreadsheet',
    'tpa ratesheet import BLD-1002 rates.csv --dry-run   # what it would add, change or leave; nothing written',
    'tpa ratesheet import BLD-1002 rates.csv',
  ],
  async run(ctx, { instanceId, file }, opts) {
    const text = await readInput(ctx, file, 'CSV');
    const client = await ctx.client();
    const schedule = (await client.schedule(instanceId)).body.rate_schedule;
    if (schedule.status === 'FINALIZED')
      throw new TpaError(4, 'finalized', `the rate schedule of ${instanceId} is finalized and can no longer be changed; nothing was written`);
    const plan = await planImport(client, schedule, text);
    const writes = plan.filter((p) => p.action !== 'unchanged');
    const dryRun = opts.dryRun === true;
    if (!dryRun) {
      const writing = counter(ctx.status, 'writing', 'rates');
      for (const [n, p] of writes.entries()) {
        writing(n, writes.length);
        try {
          await client.addSsp(instanceId, p.item);
        } catch (err) {
          // Every row was checked first, so this is the service or the network; say exactly where it stopped.
          if (err instanceof TpaError) {
            throw new TpaError(
              err.exitCode,
              err.code,
              `the import stopped at line ${p.line} (${p.ssp_code}): ${n} of ${counted(writes.length, 'row')} ${n === 1 ? 'was' : 'were'} written before it; ${err.message}`,
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
              rateOnScreen(p.item.rate_type, p.item.rate_value),
              p.item.bundle_type ?? '—',
              p.changes.join('; '),
            ]),
          ),
          `${counts.add} to add, ${counts.change} to change, ${counts.unchanged} unchanged: ${dryRun ? 'dry run, nothing written' : `${writes.length} written`}`,
        ].join('\n'),
    };
  },
});

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

/** The header's columns, lower case; a header that does not name exactly the CSV's columns is refused. */
function columnsOf(header: { fields: string[] } | undefined): string[] {
  const columns = header?.fields.map((f) => f.trim().toLowerCase()) ?? [];
  const missing = CSV_COLUMNS.filter((c) => !columns.includes(c));
  const extra = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (!header || missing.length > 0 || extra.length > 0) {
    throw new ValidationFailed(
      `line 1: the header must name the columns ${CSV_COLUMNS.join(',')}${missing.length ? ` (missing ${missing.join(', ')})` : ''}${extra.length ? ` (unknown ${shortList(extra)})` : ''}; nothing was written`,
    );
  }
  return columns;
}

/** The whole catalog of SSPs by code, read once (when a row needs it). */
async function readWholeCatalog(client: TpaClient, catalog: Map<string, Ssp>): Promise<void> {
  if (catalog.size > 0) return;
  let page = (await client.catalog({ page_size: 200 })).body;
  for (;;) {
    for (const s of page.results) catalog.set(s.code, s);
    if (!page.next) break;
    page = (await client.catalogPage(page.next)).body;
  }
}

/** What a row changes in an item the schedule has, as said in the plan. */
function changesOf(existing: RateSchedule['items'][number], item: ScheduleItemInput): string[] {
  return [
    existing.rate_type !== item.rate_type && `rate_type ${existing.rate_type} → ${item.rate_type}`,
    existing.rate_value !== item.rate_value &&
      `rate_value ${rateOnScreen(existing.rate_type, existing.rate_value)} → ${rateOnScreen(item.rate_type, item.rate_value)}`,
    (existing.bundle_type ?? null) !== item.bundle_type && `bundle_type ${existing.bundle_type ?? '—'} → ${item.bundle_type ?? '—'}`,
    existing.notes !== item.notes && 'notes',
  ].filter((c): c is string => typeof c === 'string');
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
  const columns = columnsOf(header);
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
      errors.push({ field: at, message: `has ${counted(record.fields.length, 'field')}; the header has ${columns.length}` });
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
    const problem = scheduleRateProblem(rateType, rateText);
    if (problem) errors.push({ field: at, message: problem });
    if (bundleType !== '' && !isScheduleBundleType(bundleType))
      errors.push({ field: at, message: `bundle_type must be empty, ${SCHEDULE_BUNDLE_TYPES.join(' or ')} (got "${bundleType}")` });
    if (characterCount(notes) > 500) errors.push({ field: at, message: `notes are longer than 500 characters (got ${characterCount(notes)})` });
    if (code === '' || problem) continue;
    const readCatalog = () => readWholeCatalog(client, catalog);
    let sspId = schedule.items.find((i) => i.ssp_code === code)?.ssp_id;
    if (!sspId) {
      await readCatalog();
      sspId = catalog.get(code)?.id;
    }
    // A rate priced from the Medicare rate makes a contract rate that must be money too, checked
    // here so that the service does not refuse a row after others were written.
    const rules = scheduleRate(rateType);
    if (rules.usesMedicareRate) {
      await readCatalog();
      const medicareCents = jsonNumberToCents(catalog.get(code)?.medicare_rate);
      if (medicareCents !== undefined && allowedOverMax(rules, rateText, medicareCents) !== undefined) {
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
    const changes = existing ? changesOf(existing, item) : [];
    planned.push({ line: record.line, ssp_code: code, ssp_id: sspId, action: existing ? (changes.length > 0 ? 'change' : 'unchanged') : 'add', changes, item });
  }
  if (errors.length > 0) throw badRows(errors);
  return planned;
}

/** Every bad row, by line, in one refusal: nothing is written. */
function badRows(errors: FieldError[]): ValidationFailed {
  return new ValidationFailed(
    `the CSV has ${errors.length} bad row${errors.length === 1 ? '' : 's'}; nothing was written:\n${errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`,
    { details: errors },
  );
}
