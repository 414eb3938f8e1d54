// tpa local fixtures: the seeded reference data (providers, contracts, members, builder instances), so you know what to try.
import type { TableTools } from '../../../render/output.js';
import { wrapProse } from '../../../render/text.js';
import { verb } from '../../verb.js';
import { openEngine } from './engine.js';

type Row = Record<string, unknown>;

export const fixtures = verb({
  name: 'fixtures',
  description: 'the seeded reference data: providers, contracts, members, so you know what to try',
  fields: [
    'contract_id',
    'contract_number',
    'npi',
    'group_id',
    'effective_date',
    'termination_date',
    'network_tier',
    'rate_type',
    'bundle_type',
    'negotiated_bundle_rate',
    'medicare_multiplier',
    'anesthesia_included',
    'codes',
  ],
  examples: ['tpa local fixtures', "tpa local fixtures -o json | jq '.contracts[] | {contract_id, npi, group_id}'"],
  async run(ctx) {
    const transport = await openEngine(ctx);
    try {
      const data = (await transport.open()).fixtures() as Record<string, Row[]>;
      return { data, items: data.contracts, table: (t) => fixturesTable(t, data) };
    } finally {
      transport.close();
    }
  },
});

const s = (v: unknown) => (v === null || v === undefined ? '—' : String(v));

function fixturesTable(t: TableTools, f: Record<string, Row[]>): string {
  const h = (title: string) => t.c.bold(title);
  return [
    h('Providers'),
    t.table(
      ['NPI', 'Name', 'Role', 'Group'],
      f.providers!.map((p) => [s(p.npi), s(p.name), s(p.role), s(p.group_id)]),
      { list: true },
    ),
    '',
    h('Contracts'),
    contractsTable(t, f.contracts!),
    wrapProse('  * needs a preauthorization reference in supportingInfo, else the claim is pended', t.width),
    '',
    h('Members'),
    membersTable(t, f.members!),
    // The ids the ratesheet commands take: a builder instance (`tpa ratesheet init BLD-1001`) and a catalog version (--version).
    ...(f.builder_instances && f.builder_instances.length > 0
      ? [
          '',
          h('Builder instances (tpa ratesheet … <instance_id>)'),
          t.table(
            ['Instance', 'Contract', 'NPI', 'Schedule', { header: 'Name', drop: 1 }],
            f.builder_instances.map((b) => [s(b.instance_id), s(b.contract_number), s(b.npi), s(b.schedule_status), s(b.name)]),
            { list: true },
          ),
        ]
      : []),
    ...(f.catalog_versions && f.catalog_versions.length > 0
      ? [
          '',
          h('SSP catalog versions (tpa ratesheet load-catalog --version)'),
          t.table(
            ['Version', { header: 'Active encounter SSPs', align: 'right' }],
            f.catalog_versions.map((v) => [s(v.version), s(v.active_encounter_ssps)]),
          ),
        ]
      : []),
  ].join('\n');
}

function contractsTable(t: TableTools, contracts: Row[]): string {
  return t.table(
    // A contract a line: on a narrow terminal its number, group, bundle, rate type and dates give way; its codes are never cut.
    [
      'Contract id',
      { header: 'Number', drop: 1 },
      'NPI',
      { header: 'Group', drop: 2 },
      { header: 'Rate type', drop: 4 },
      { header: 'Bundle', drop: 3 },
      { header: 'Effective', whole: true, drop: 5 },
      { header: 'Codes', whole: true },
    ],
    contracts.map((c) => [
      s(c.contract_id),
      s(c.contract_number),
      s(c.npi),
      s(c.group_id),
      s(c.rate_type),
      s(c.bundle_type),
      `${s(c.effective_date)} → ${c.termination_date === null ? 'open' : s(c.termination_date)}`,
      (c.codes as Row[]).map((r) => `${s(r.cpt_code)}${r.requires_preauthorization ? '*' : ''}`).join(' '),
    ]),
    { list: true },
  );
}

function membersTable(t: TableTools, members: Row[]): string {
  return t.table(
    [
      // A member a line: on a narrow terminal the coinsurance, the deductible met, the copay, the plan and the coverage give way.
      'Member',
      'Name',
      { header: 'Plan', drop: 4 },
      { header: 'Deductible', align: 'right' },
      { header: 'Met', align: 'right', drop: 2 },
      { header: 'Copay', align: 'right', drop: 3 },
      { header: 'Coins.', drop: 1 },
      { header: 'Coverage', whole: true, drop: 5 },
    ],
    members.map((m) => [
      s(m.member_id),
      m.subscriber_id ? `${s(m.name)} (dependent of ${s(m.subscriber_id)})` : s(m.name),
      s(m.plan_id),
      t.amount(m.deductible),
      t.amount(m.deductible_met),
      t.amount(m.copay),
      `${s(m.coinsurance_percent)}%`,
      `${s(m.coverage_start)} → ${m.coverage_end === null ? 'open' : s(m.coverage_end)}`,
    ]),
    { list: true },
  );
}
