// tpa local simulate: the sandbox triggers of the unhappy paths, on a funded encounter.
import type { SettlementRecord } from '../../../client/types.js';
import type { Scenario } from '../../../engine/services/sandbox.js';
import { UsageError } from '../../../errors.js';
import { argument, verb } from '../../verb.js';
import { withEngine } from './engine.js';

export const simulate = verb({
  name: 'simulate',
  description: 'sandbox triggers for the unhappy paths: a failed transfer, a refund, an AEOB that does not match',
  args: {
    scenario: argument.required('<scenario>', 'settlement-failure | refund | aeob-variance | missing-aeob', [
      'settlement-failure',
      'refund',
      'aeob-variance',
      'missing-aeob',
    ]),
    encounterId: argument.required('<encounter_id>', 'a funded encounter: its id or its number, ENC-2026-000002'),
  },
  examples: ['tpa local simulate settlement-failure ENC-2026-000003', 'tpa local clock advance 3d && tpa local simulate refund ENC-2026-000002'],
  async run(ctx, { scenario, encounterId }) {
    const { SCENARIOS } = await import('../../../engine/services/sandbox.js');
    const known = (s: string): s is Scenario => (SCENARIOS as readonly string[]).includes(s);
    if (!known(scenario)) throw new UsageError(`unknown scenario "${scenario}": use ${SCENARIOS.join(', ')}`);
    const { encounterNumber, resolveEncounter } = await import('../../../client/encounter-ref.js');
    // An encounter number is found in the ledger, as every command that takes an encounter finds it.
    const id = encounterNumber(encounterId) ? await resolveEncounter(await ctx.client(), encounterId) : encounterId;
    const record = await withEngine(ctx, (e) => e.simulate(scenario, id));
    const { settlementTable } = await import('../settlement/settlement-table.js');
    return { data: record, table: (t) => settlementTable(t, record as unknown as SettlementRecord) };
  },
});
