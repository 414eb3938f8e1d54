// Handlers of `tpa ledger` (declared in ledger.ts).
import type { LedgerDetail, LedgerFilters, LedgerItem } from '../../client/types.js';
import type { FieldError } from '../../domain/errors.js';
import { LEDGER_STATUSES } from '../../domain/ledger.js';
import { wholeNumberProblem } from '../../domain/validation.js';
import { fieldsInvalid } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { TableSpec } from '../../render/stream.js';
import type { Handler, Options } from '../action.js';
import { periodFilters } from '../options.js';

function filters(opts: Options): LedgerFilters {
  const errors: FieldError[] = [];
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  const f: LedgerFilters = periodFilters(opts, errors);
  if (opts.status !== undefined) {
    const status = String(opts.status).toUpperCase();
    if (!(LEDGER_STATUSES as readonly string[]).includes(status)) add('--status', `must be one of ${LEDGER_STATUSES.join(', ')}`);
    f.status = status;
  }
  const integer = (name: string, value: unknown, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    add(name, wholeNumberProblem(String(value), min, max));
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

export const list: Handler = async (ctx, _args, opts) => {
  const f = filters(opts);
  const client = await ctx.client();
  if (opts.all) {
    // Each page is written as it arrives; in-process every page comes from one snapshot. The
    // largest page the contract (docs/api.md) allows unless --limit says otherwise: a hundredth of the requests.
    f.limit ??= 100;
    const { streamAll } = await import('../listing.js');
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
    ctx.note(`showing ${(f.offset ?? 0) + 1}–${shown} of ${page.count.toLocaleString('en-US')}: use --all, or --offset ${shown} for the next page`);
  }
  return { data: page, items: page.results, table: (t) => (page.results.length === 0 ? LIST_TABLE.empty : listTable(t, page.results)) };
};

function detailTable(t: TableTools, d: LedgerDetail): string {
  const e = d.encounter;
  const f = d.financial_summary;
  const pr = f.patient_responsibility ?? {};
  const h = (s: string) => `\n${t.c.bold(s)}`;
  return [
    t.c.bold(`${e.encounter_number} (${e.id})  ${t.status(e.status)}`),
    t.keyValues([
      ['Patient', `${e.patient.name ?? '—'} (${e.patient.member_id}, born ${e.patient.dob ?? '—'})`],
      ['Provider', `${e.provider.name} (NPI ${e.provider.npi}${e.provider.role ? `, ${e.provider.role}` : ''})`],
      ...(e.provider.facility_name ? [['Facility', `${e.provider.facility_name} (NPI ${e.provider.facility_npi})`] as [string, string]] : []),
      ['Payer', `${e.payer.name} (${e.payer.id})`],
      ['Service date', e.service_date],
      ['Submitted', e.submission_date],
    ]),
    h('History'),
    t.table(
      ['#', 'When', 'Type', 'Reference', 'Description'],
      d.entries.map((x) => [String(x.sequence), x.timestamp, x.type, x.reference ?? '—', x.description]),
    ),
    h('Money'),
    t.keyValues([
      ['Submitted charges', t.amount(f.submitted_charges)],
      ['Contractual adjustment', f.adjustments?.contractual_adjustment == null ? t.amount(null) : `-${t.amount(f.adjustments.contractual_adjustment)}`],
      ['Allowed', t.amount(f.allowed_amount)],
      ['  Copay', t.amount(pr.copay)],
      ['  Deductible', t.amount(pr.deductible)],
      ['  Coinsurance', t.amount(pr.coinsurance)],
      ['  Not covered', t.amount(pr.non_covered)],
      ['Patient responsibility', t.amount(pr.total)],
      ['Payer responsibility', t.c.bold(t.amount(f.payer_responsibility?.total))],
      ['Balance', `${t.amount(f.balance?.running_balance)} (${f.balance?.status ?? '—'})`],
    ]),
    h('Service lines'),
    t.table(
      [
        '#',
        'CPT',
        'Description',
        'Provider',
        { header: 'Charge', align: 'right' },
        { header: 'Allowed', align: 'right' },
        { header: 'Patient', align: 'right' },
        { header: 'Benefit', align: 'right' },
        'Status',
      ],
      d.service_lines.map((l) => [
        String(l.sequence),
        l.cpt_code,
        l.cpt_description,
        `${l.provider_role ?? '—'} ${l.provider_npi ?? ''}`,
        t.amount(l.submitted_charge),
        t.amount(l.allowed_amount),
        t.amount(l.patient_responsibility),
        t.amount(l.benefit_amount),
        l.denial_code ? `${t.status(l.status)} ${l.denial_code}` : t.status(l.status),
      ]),
    ),
    h('Reconciliation'),
    t.keyValues([
      ['Match', t.status(d.reconciliation.claim_match_status)],
      ['AEOB', d.reconciliation.aeob_reference ?? '—'],
      ['Processor trace', d.reconciliation.processor_trace_id ?? '—'],
      ['Settlement record', d.reconciliation.settlement_record_id ?? '—'],
    ]),
  ].join('\n');
}

export const show: Handler = async (ctx, [encounterId]) => {
  const client = await ctx.client();
  const detail = (await client.ledgerDetail(encounterId!)).body;
  return { data: detail, items: detail.entries, table: (t) => detailTable(t, detail) };
};
