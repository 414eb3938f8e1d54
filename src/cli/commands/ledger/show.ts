// tpa ledger show: the full history of one encounter: entries, the money breakdown, service lines, reconciliation.
import type { LedgerDetail, SettlementRecord } from '../../../client/types.js';
import type { TableTools } from '../../../render/output.js';
import { argument, fieldsOf, verb } from '../../verb.js';

export const show = verb({
  name: 'show',
  description: 'the full history of one encounter: entries, the money breakdown, service lines, reconciliation',
  args: { encounterId: argument.required('<encounter_id>', 'the encounter: its id (external_claim_id of the claim) or its number, ENC-2026-000002') },
  fields: fieldsOf<LedgerDetail['entries'][number]>({
    sequence: true,
    type: true,
    timestamp: true,
    reference: true,
    description: true,
    financial_impact: true,
  }),
  examples: ['tpa ledger show enc_3b302036a412ed8b301f', 'tpa ledger show ENC-2026-000002'],
  async run(ctx, { encounterId }) {
    const client = await ctx.client();
    const { resolveEncounter } = await import('../../../client/encounter-ref.js');
    const detail = (await client.ledgerDetail(await resolveEncounter(client, encounterId))).body;
    // An AEOB reported missing (the reconciliation UNMATCHED: a variance, or no AEOB) is said so, not
    // named: the settlement tells which, when the table is drawn.
    const missingAeob =
      ctx.format === 'table' && detail.reconciliation.claim_match_status === 'UNMATCHED' && detail.reconciliation.settlement_record_id
        ? await client.settlement(detail.encounter.id).then(
            (r) => (r.body as SettlementRecord).aeob_match?.match_status === 'MISSING_AEOB',
            () => false,
          )
        : false;
    return { data: detail, items: detail.entries, table: (t) => detailTable(t, detail, missingAeob) };
  },
});

function detailTable(t: TableTools, d: LedgerDetail, missingAeob: boolean): string {
  const e = d.encounter;
  const f = d.financial_summary;
  const pr = f.patient_responsibility ?? {};
  const h = (s: string) => `\n${t.c.bold(s)}`;
  return [
    t.c.bold(`${e.encounter_number} (${e.id})  ${t.status(e.status)}`),
    t.keyValues([
      [
        'Patient',
        `${e.patient.name ?? '—'} (${e.patient.member_id}, born ${e.patient.dob ?? '—'}${e.patient.subscriber_id ? `; dependent of ${e.patient.subscriber_id}` : ''})`,
      ],
      ['Provider', `${e.provider.name} (NPI ${e.provider.npi}${e.provider.role ? `, ${e.provider.role}` : ''})`],
      ...(e.provider.facility_name ? [['Facility', `${e.provider.facility_name} (NPI ${e.provider.facility_npi})`] as [string, string]] : []),
      ['Payer', `${e.payer.name} (${e.payer.id})`],
      ['Service date', e.service_date],
      ['Submitted', e.submission_date],
      // A corrected claim and the claim it replaced (docs/money-funding.md "Corrected and void claims").
      ...(e.replaces ? [['Replaces', e.replaces] as [string, string]] : []),
      ...(e.replaced_by ? [['Replaced by', `${e.replaced_by} (this claim is superseded and will not be paid)`] as [string, string]] : []),
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
    serviceLinesTable(t, d.service_lines),
    h('Reconciliation'),
    t.keyValues([
      ['Match', t.status(d.reconciliation.claim_match_status)],
      [
        'AEOB',
        missingAeob ? `missing: the payer has no AEOB to match the settlement against (${t.status('MISSING_AEOB')})` : (d.reconciliation.aeob_reference ?? '—'),
      ],
      // The processor's id (docs/api-resources.md "Claim response"): a transfer's once funded, before that only the id it will take.
      e.status === 'FUNDED' || e.status === 'RECONCILED' || d.reconciliation.settlement_record_id
        ? ['Transfer', d.reconciliation.processor_trace_id ?? '—']
        : ['Trace', d.reconciliation.processor_trace_id ? `${d.reconciliation.processor_trace_id} (the transfer's id once funded)` : '—'],
      ['Settlement record', d.reconciliation.settlement_record_id ?? '—'],
    ]),
  ].join('\n');
}

function serviceLinesTable(t: TableTools, lines: LedgerDetail['service_lines']): string {
  return t.table(
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
    lines.map((l) => [
      String(l.sequence),
      // With its modifiers as they are written on a claim form: 88305-59.
      // A revenue-code-only line has no procedure code: its revenue code instead.
      [l.cpt_code ?? `rev ${l.revenue_code ?? ''}`, ...(l.modifiers ?? [])].join('-'),
      l.cpt_description,
      `${l.provider_role ?? '—'} ${l.provider_npi ?? ''}`,
      t.amount(l.submitted_charge),
      t.amount(l.allowed_amount),
      t.amount(l.patient_responsibility),
      t.amount(l.benefit_amount),
      l.denial_code ? `${t.status(l.status)} ${[l.denial_code, ...(l.remark_codes ?? [])].join(' ')}` : t.status(l.status),
    ]),
  );
}
