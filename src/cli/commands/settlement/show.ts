// tpa settlement show: the settlement of an encounter: status, payouts with fees and nets, AEOB
// reconciliation; exit 7 while pending.
import type { ApiResult, TpaClient } from '../../../client/client.js';
import type { SettlementPending, SettlementRecord, Payout } from '../../../client/types.js';
import { formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { EXIT, PendingError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { argument, option, fieldsOf, verb } from '../../verb.js';
import { suggestCommand, timeoutOption, waitTimeoutSpec } from '../../options.js';
import { settlementTable } from './settlement-table.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'REFUNDED']);

export const show = verb({
  name: 'show',
  description: 'the settlement of an encounter: status, payouts with fees and nets, AEOB reconciliation; exit 7 while pending',
  args: { encounterId: argument.required('<encounter_id>', 'the encounter: its id (external_claim_id of the claim) or its number, ENC-2026-000002') },
  options: {
    wait: option.flag('--wait', 'poll until the transfer is final (COMPLETED, FAILED or REFUNDED)'),
    timeout: waitTimeoutSpec,
  },
  fields: [
    'settlement_id',
    'encounter_id',
    'status',
    ...fieldsOf<Payout>({
      sequence: true,
      provider_npi: true,
      provider_name: true,
      provider_role: true,
      processor_payout_id: true,
      amount: true,
      payout_status: true,
      payout_date: true,
      expected_arrival: true,
      processor_fee: true,
      net_to_provider: true,
    }),
    // Not adjudicated or not funded yet: the service's answer of a pending settlement.
    'message',
    'adjudication_complete',
    'funding_approved',
  ],
  examples: ['tpa settlement show enc_3b302036a412ed8b301f', 'tpa settlement show ENC-2026-000001 --wait --timeout 2m -o json'],
  async run(ctx, { encounterId: given }, opts) {
    const timeoutMs = timeoutOption(opts.timeout) ?? (await import('../../../client/polling.js')).DEFAULT_POLL_TIMEOUT_MS;
    const client = await ctx.client();
    const { resolveEncounter } = await import('../../../client/encounter-ref.js');
    const encounterId = await resolveEncounter(client, given);
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
    const owed = record.status === 'FAILED' || record.status === 'REFUNDED' ? await owedAgain(ctx, client, record) : undefined;
    // The body stays the service's: in json, ndjson and csv the next step goes to stderr.
    if (owed && ctx.format !== 'table') ctx.note(owed.next);
    return {
      data: record,
      items: record.payouts.map((p) => ({ settlement_id: record.settlement_id, encounter_id: record.encounter_id, status: record.status, ...p })),
      table: (t) =>
        owed
          ? // The command on a line of its own, whole, to be copied.
            `${settlementTable(t, record)}\n${t.keyValues([['Owed again', t.c.yellow(owed.what)]])}\n  ${owed.command}`
          : settlementTable(t, record),
    };
  },
});

/**
 * After a FAILED or REFUNDED transfer nothing funds the encounter: its benefit is owed again, and
 * the approver approves it anew under a new authorization code, the next free one (the failed
 * transfer's is used). A placeholder stands for the code when the ledger cannot be read.
 */
async function owedAgain(ctx: Context, client: TpaClient, s: SettlementRecord): Promise<{ what: string; command: string; next: string }> {
  const cents = jsonNumberToCents(s.total_amount);
  const amount = cents === undefined ? String(s.total_amount) : formatCentsGrouped(cents);
  let code: string | undefined;
  try {
    // The code tpa fund approve would offer: dated by the engine's clock, the next free one.
    const { offeredAuthorizationCode } = await import('../fund/confirm.js');
    code = await offeredAuthorizationCode(ctx, client, (await client.ledgerDetail(s.encounter_id)).body);
  } catch {
    // A placeholder then says what goes there.
  }
  const command = suggestCommand(ctx, ['fund', 'approve', s.encounter_id, '--auth-code', code ?? { placeholder: 'AUTH-date-org-seq' }]);
  const how = s.status === 'FAILED' ? 'FAILED' : 'was REFUNDED';
  return {
    what: `the benefit of ${amount} is owed again: transfer ${s.processor_transfer_id} ${how} and nothing funds the encounter now; approve it anew under a new authorization code:`,
    command,
    next: `the benefit of ${amount} is owed again (transfer ${s.processor_transfer_id} ${how}); approve it anew under a new authorization code: ${command}`,
  };
}
