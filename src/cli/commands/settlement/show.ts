// tpa settlement show: the settlement of an encounter: status, payouts with fees and nets, AEOB
// reconciliation; exit 7 while pending.
import type { ApiResult } from '../../../client/client.js';
import type { SettlementPending, SettlementRecord } from '../../../client/types.js';
import { EXIT, PendingError } from '../../../errors.js';
import { argument, option, verb } from '../../verb.js';
import { timeoutOption, waitTimeoutSpec } from '../../options.js';
import { settlementTable } from './settlement-table.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'REFUNDED']);

export const show = verb({
  name: 'show',
  description: 'the settlement of an encounter: status, payouts with fees and nets, AEOB reconciliation; exit 7 while pending',
  args: { encounterId: argument.required('<encounter_id>', 'the encounter (external_claim_id of the claim)') },
  options: {
    wait: option.flag('--wait', 'poll until the transfer is final (COMPLETED, FAILED or REFUNDED)'),
    timeout: waitTimeoutSpec,
  },
  examples: ['tpa settlement show enc_3b302036a412ed8b301f', 'tpa settlement show enc_3b302036a412ed8b301f --wait --timeout 2m -o json'],
  async run(ctx, { encounterId }, opts) {
    const timeoutMs = timeoutOption(opts.timeout) ?? (await import('../../../client/polling.js')).DEFAULT_POLL_TIMEOUT_MS;
    const client = await ctx.client();
    const started = Date.now();
    let result: ApiResult<SettlementRecord | SettlementPending> = await client.settlement(encounterId);
    // --wait: poll (5 s, backing off to 30 s) until the transfer is final or the timeout passes.
    for (let delay = 5000; opts.wait && !FINAL.has(result.body.status); delay = Math.min(delay * 2, 30_000)) {
      const left = started + timeoutMs - Date.now();
      if (left <= 0)
        throw new PendingError(`the settlement of ${encounterId} is still ${result.body.status} after ${Math.round(timeoutMs / 1000)}s`, {
          body: result.body,
          status: result.status,
        });
      ctx.status.show(
        {
          label: `settlement of ${encounterId} is ${result.body.status}`,
          wait: { untilMs: Date.now() + Math.min(delay, left), text: 'checking again in' },
          sinceMs: started,
        },
        true,
      );
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      result = await client.settlement(encounterId);
    }
    ctx.status.clear();
    if (result.status === 202) {
      const pending = result.body as SettlementPending;
      ctx.note(`not finished: ${pending.message}`);
      return {
        data: pending,
        exitCode: EXIT.PENDING,
        table: (t) =>
          t.keyValues([
            ['Encounter', pending.encounter_id],
            ['Status', t.status(pending.status)],
            ['Adjudication complete', pending.adjudication_complete ? 'yes' : 'no'],
            ['Funding approved', pending.funding_approved ? 'yes' : 'no'],
          ]),
      };
    }
    const record = result.body as SettlementRecord;
    return {
      data: record,
      items: record.payouts.map((p) => ({ settlement_id: record.settlement_id, encounter_id: record.encounter_id, status: record.status, ...p })),
      table: (t) => settlementTable(t, record),
    };
  },
});
