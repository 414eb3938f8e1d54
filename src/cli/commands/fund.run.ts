// Handlers of `tpa fund` (declared in fund.ts). The approval moves money and cannot be undone:
// nothing is sent without every value and an explicit confirmation, and after an ambiguous
// failure the request is never resent blindly: the settlement tells whether it happened.
import type { TpaClient } from '../../client/client.js';
import type { FundingApproved, LedgerDetail } from '../../client/types.js';
import type { ProviderRole } from '../../domain/fhir-claim.js';
import { centsToAmount, formatCents, formatCentsGrouped, jsonNumberToCents, parseCents } from '../../domain/money.js';
import { splitPayouts, type PayoutShare } from '../../domain/settlement.js';
import { ConflictError, NetworkError, NotFoundError, UsageError, ValidationFailed } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { Handler } from '../action.js';
import type { Context } from '../context.js';
import { ask, confirm } from '../prompt.js';

const cents = (amount: number | null | undefined): number => (amount === null || amount === undefined ? 0 : jsonNumberToCents(amount) ?? 0);

/** The payouts the approval will make, by the same rule the service applies (DESIGN.md section 4). */
export function reviewPayouts(detail: LedgerDetail): PayoutShare[] {
  const lines = detail.service_lines.map((l) => ({
    providerNpi: l.provider_npi,
    providerName: l.provider_name,
    providerRole: l.provider_role as ProviderRole,
    benefitCents: cents(l.benefit_amount),
  }));
  return splitPayouts(lines, cents(detail.financial_summary.payer_responsibility?.total));
}

function reviewScreen(t: TableTools, detail: LedgerDetail, payouts: PayoutShare[]): string {
  const e = detail.encounter;
  const f = detail.financial_summary;
  const money = (c: number) => formatCentsGrouped(c);
  return [
    t.c.bold(`Fund release for encounter ${e.encounter_number} (${e.id})`),
    t.keyValues([
      ['Patient', `${e.patient.name ?? '—'} (${e.patient.member_id})`],
      ['Provider', `${e.provider.name} (NPI ${e.provider.npi})`],
      ['Service date', e.service_date],
      ['Allowed', t.amount(f.allowed_amount)],
      ['Patient responsibility', t.amount(f.patient_responsibility?.total)],
      ['Benefit amount', t.c.bold(t.amount(f.payer_responsibility?.total))],
    ]),
    t.table(
      ['#', 'Provider', 'Role', { header: 'Amount', align: 'right' }, { header: 'Fee (2.2% + 0.30)', align: 'right' }, { header: 'Net to provider', align: 'right' }],
      payouts.map((p) => [String(p.sequence), `${p.providerName} (${p.providerNpi})`, p.providerRole, money(p.amountCents), money(p.feeCents), money(p.netCents)]),
    ),
  ].join('\n');
}

function suggestAuthCode(detail: LedgerDetail, today: string): string {
  const org = detail.encounter.payer.id.replace(/^PAYER-/, '').replace(/[^A-Za-z0-9]/g, '').toUpperCase() || 'ORG';
  return `AUTH-${today.replace(/-/g, '')}-${org}-0001`;
}

/** After a failure that leaves it unknown whether the approval landed, ask the settlement. */
async function afterAmbiguousFailure(ctx: Context, client: TpaClient, encounterId: string, cause: NetworkError): Promise<FundingApproved> {
  ctx.note(`the approval request failed without an answer (${cause.message}); it is not resent. Checking whether it happened…`);
  let settlement;
  try {
    settlement = await client.settlement(encounterId);
  } catch (err) {
    if (err instanceof NotFoundError) {
      throw new NetworkError(`the approval of ${encounterId} did not happen: ${err.message}`, { hint: 'check the encounter id; nothing was funded' });
    }
    throw new NetworkError(`could not tell whether the approval of ${encounterId} happened (${(err as Error).message})`, {
      hint: `check before trying again: tpa settlement show ${encounterId}`,
    });
  }
  if (settlement.status === 200 && 'processor_transfer_id' in settlement.body) {
    const s = settlement.body;
    ctx.note(`the approval did happen: transfer ${s.processor_transfer_id}, settlement ${s.settlement_id}`);
    return { status: 'APPROVED', processor_transfer_id: s.processor_transfer_id, estimated_arrival: s.payouts[0]?.expected_arrival ?? '', settlement_record_id: s.settlement_id };
  }
  throw new NetworkError(`the approval of ${encounterId} did not happen: no settlement exists`, { hint: 'it is safe to run the same command again' });
}

export const approve: Handler = async (ctx, [encounterId], opts) => {
  const id = encounterId!;
  let amountText = opts.amount as string | undefined;
  let authCode = opts.authCode as string | undefined;
  const notes = opts.notes as string | undefined;
  if (notes !== undefined && notes.length > 500) throw new ValidationFailed(`--notes: at most 500 characters (got ${notes.length})`);
  if (amountText !== undefined && parseCents(amountText) === undefined) {
    throw new ValidationFailed(`--amount: "${amountText}" is not an amount with at most two decimals, e.g. 2280.00`);
  }
  if (!ctx.canPrompt) {
    const missing = [amountText === undefined && '--amount', authCode === undefined && '--auth-code', !ctx.yes && '--yes'].filter(Boolean);
    if (missing.length > 0) {
      throw new UsageError(`fund approve moves money and cannot be undone; without a terminal to confirm on, it needs ${missing.join(', ')}. Nothing was sent.`);
    }
  }
  const client = await ctx.client();
  if (ctx.canPrompt) {
    const { tableTools } = await import('../../render/output.js');
    const t = await tableTools(ctx.colorErr);
    const detail = (await client.ledgerDetail(id)).body;
    if (detail.reconciliation.settlement_record_id) {
      throw new ConflictError(`encounter ${id} is already funded (settlement ${detail.reconciliation.settlement_record_id}); nothing was sent`, { hint: `see: tpa settlement show ${id}` });
    }
    if (detail.encounter.status !== 'ADJUDICATED') {
      throw new ConflictError(`encounter ${id} is ${detail.encounter.status}: only an adjudicated claim can be funded; nothing was sent`);
    }
    const payouts = reviewPayouts(detail);
    ctx.io.stderr.write(`${reviewScreen(t, detail, payouts)}\n`);
    const benefit = formatCents(cents(detail.financial_summary.payer_responsibility?.total));
    amountText ??= await ask('Amount to release (USD)', {
      default: benefit,
      validate: (v) => (parseCents(v) === undefined ? 'an amount with at most two decimals' : parseCents(v)! === 0 ? 'must be more than 0.00' : true),
    });
    if (parseCents(amountText) !== cents(detail.financial_summary.payer_responsibility?.total)) {
      ctx.note(t.c.yellow(`warning: ${amountText} differs from the adjudicated benefit ${benefit}; the service will refuse it`));
    }
    authCode ??= await ask('Authorization code', { default: suggestAuthCode(detail, new Date().toISOString().slice(0, 10)), validate: (v) => (v.trim() === '' ? 'required' : true) });
    if (!ctx.yes) {
      await confirm(ctx, `Release $${formatCentsGrouped(parseCents(amountText)!)} to ${payouts.length} provider${payouts.length === 1 ? '' : 's'}? This cannot be undone`);
    }
  }
  const { randomUUID } = await import('node:crypto');
  const key = (opts.idempotencyKey as string | undefined) ?? randomUUID();
  if (ctx.debug) ctx.note(`[debug] Idempotency-Key: ${key}`);
  let approved: FundingApproved;
  try {
    approved = (await client.approveFunding({ encounter_id: id, amount: centsToAmount(parseCents(amountText!)!), authorization_code: authCode!.trim(), ...(notes ? { notes } : {}) }, key)).body;
  } catch (err) {
    // A lost answer or a 5xx (a gateway may have passed the request on) leaves it unknown.
    if (err instanceof NetworkError) approved = await afterAmbiguousFailure(ctx, client, id, err);
    else throw err;
  }
  return {
    data: approved,
    table: (t) =>
      `${t.c.green('✓')} Fund release approved\n` +
      t.keyValues([
        ['Transfer', approved.processor_transfer_id],
        ['Settlement record', approved.settlement_record_id],
        ['Estimated arrival', approved.estimated_arrival],
        ['Next', `tpa settlement show ${id}`],
      ]),
  };
};
