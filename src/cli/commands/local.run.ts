// Handlers of `tpa local` (declared in local.ts): parse and check options, call the client, shape the output.
import { UsageError } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { Handler } from '../action.js';
import type { Context } from '../context.js';
import { confirm } from '../prompt.js';

type Row = Record<string, unknown>;

function fixturesTable(t: TableTools, f: Record<string, Row[]>): string {
  const s = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  const h = (title: string) => t.c.bold(title);
  return [
    h('Providers'),
    t.table(['NPI', 'Name', 'Role', 'Group'], f.providers!.map((p) => [s(p.npi), s(p.name), s(p.role), s(p.group_id)])),
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
      ['Member', 'Name', 'Plan', { header: 'Deductible', align: 'right' }, { header: 'Met', align: 'right' }, { header: 'Copay', align: 'right' }, 'Coins.', 'Coverage'],
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

async function openEngine(ctx: Context) {
  if (ctx.profile().env !== 'local') throw new UsageError(`\`tpa local\` works on the embedded engine; profile "${ctx.profileName}" is ${ctx.profile().env}`);
  const { LocalTransport } = await import('../../client/local.js');
  return new LocalTransport(ctx.paths.dataDir, ctx.io.env);
}

export const fixtures: Handler = async (ctx) => {
      const transport = await openEngine(ctx);
      try {
        const data = (await transport.open()).fixtures() as Record<string, Row[]>;
        return { data, items: data.contracts, table: (t) => fixturesTable(t, data) };
      } finally {
        transport.close();
      }
    };

export const reset: Handler = async (ctx) => {
      await openEngine(ctx);
      const [{ databaseFile }, { removeDatabase }] = await Promise.all([import('../../engine/engine.js'), import('../../engine/store/db.js')]);
      const file = databaseFile(ctx.paths.dataDir);
      await confirm(ctx, `Delete every claim and change in ${file} and start again from the seed?`);
      const existed = removeDatabase(file);
      ctx.note(existed ? `reset: deleted ${file}; it will be re-seeded on next use` : `reset: nothing to delete at ${file}`);
      return { data: { reset: true, database: file, existed } };
    };
