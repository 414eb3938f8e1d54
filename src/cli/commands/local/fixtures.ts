// tpa local fixtures: the seeded reference data (providers, contracts, members), so you know what to try.
import type { TableTools } from '../../../render/output.js';
import { verb } from '../../verb.js';
import { openEngine } from './engine.js';

type Row = Record<string, unknown>;

export const fixtures = verb({
  name: 'fixtures',
  description: 'the seeded reference data: providers, contracts, members, so you know what to try',
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

function fixturesTable(t: TableTools, f: Record<string, Row[]>): string {
  const s = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  const h = (title: string) => t.c.bold(title);
  return [
    h('Providers'),
    t.table(
      ['NPI', 'Name', 'Role', 'Group'],
      f.providers!.map((p) => [s(p.npi), s(p.name), s(p.role), s(p.group_id)]),
    ),
    '',
    h('Contracts'),
    t.table(
      ['Contract id', 'Number', 'NPI', 'Group', 'Rate type', 'Bundle', 'Effective', 'Codes'],
      f.contracts!.map((c) => [
        s(c.contract_id),
        s(c.contract_number),
        s(c.npi),
        s(c.group_id),
        s(c.rate_type),
        s(c.bundle_type),
        `${s(c.effective_date)} → ${c.termination_date === null ? 'open' : s(c.termination_date)}`,
        (c.codes as Row[]).map((r) => `${s(r.cpt_code)}${r.requires_preauthorization ? '*' : ''}`).join(' '),
      ]),
    ),
    '  * needs a preauthorization reference in supportingInfo, else the claim is pended',
    '',
    h('Members'),
    t.table(
      [
        'Member',
        'Name',
        'Plan',
        { header: 'Deductible', align: 'right' },
        { header: 'Met', align: 'right' },
        { header: 'Copay', align: 'right' },
        'Coins.',
        'Coverage',
      ],
      f.members!.map((m) => [
        s(m.member_id),
        s(m.name),
        s(m.plan_id),
        t.amount(m.deductible),
        t.amount(m.deductible_met),
        t.amount(m.copay),
        `${s(m.coinsurance_percent)}%`,
        `${s(m.coverage_start)} → ${m.coverage_end === null ? 'open' : s(m.coverage_end)}`,
      ]),
    ),
  ].join('\n');
}
