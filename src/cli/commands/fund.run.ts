// Handlers of `tpa fund` (declared in fund.ts). The approval moves money and cannot be undone:
// nothing is sent without every value and an explicit confirmation, and after an ambiguous
// failure the request is never resent blindly: the settlement tells whether it happened.
import type { TpaClient } from '../../client/client.js';
import type { FundingApproved, LedgerDetail, SettlementRecord } from '../../client/types.js';
import type { ProviderRole } from '../../domain/fhir-claim.js';
import { AUDIT_HEAD_HEADER, parseAuditHead, type AuditHead } from '../../domain/audit.js';
import { centsToAmount, formatCents, formatCentsGrouped, jsonNumberToCents, MAX_AMOUNT_CENTS, parseCents } from '../../domain/money.js';
import { MAX_FUNDING_NOTES, splitPayouts, type PayoutShare } from '../../domain/settlement.js';
import { characterCount } from '../../domain/validation.js';
import { ConflictError, EXIT, NetworkError, NotFoundError, TpaError, UsageError, ValidationFailed } from '../../errors.js';
import { approvalOf, FundHistory, fundingOf, withTransfers } from '../../client/fund-history.js';
import type { CommandOutput, TableTools } from '../../render/output.js';
import type { Handler } from '../action.js';
import type { Context } from '../context.js';
import { terminalWidth } from '../io.js';
import { ask, confirm } from '../prompt.js';

/** An amount from the service in cents; one that is missing or not money is an error, never 0. */
function cents(amount: unknown, what: string): number {
  const c = typeof amount === 'number' ? jsonNumberToCents(amount) : undefined;
  if (c === undefined)
    throw new TpaError(EXIT.INTERNAL, 'bad_amount', `the service gave ${what} as ${JSON.stringify(amount)}, not an amount; nothing was sent`);
  return c;
}

/**
 * The payouts the approval will make, by the same rule the engine applies (docs/money-rules.md "Settlement").
 * Service lines that do not name their provider (a service without tpa's extra fields) are all
 * counted as the billing provider's.
 */
export function reviewPayouts(detail: LedgerDetail): PayoutShare[] {
  const billing = detail.encounter.provider;
  const lines = detail.service_lines.map((l) => ({
    providerNpi: l.provider_npi ?? billing.npi,
    providerName: l.provider_name ?? billing.name,
    providerRole: (l.provider_role ?? billing.role ?? 'FACILITY') as ProviderRole,
    benefitCents: cents(l.benefit_amount, `the benefit of line ${l.sequence}`),
  }));
  return splitPayouts(lines, benefitOf(detail));
}

function benefitOf(detail: LedgerDetail): number {
  return cents(detail.financial_summary.payer_responsibility?.total, 'the benefit amount');
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
      [
        '#',
        'Provider',
        'Role',
        { header: 'Amount', align: 'right' },
        { header: 'Fee (2.2% + 0.30)', align: 'right' },
        { header: 'Net to provider', align: 'right' },
      ],
      payouts.map((p) => [
        String(p.sequence),
        `${p.providerName} (${p.providerNpi})`,
        p.providerRole,
        money(p.amountCents),
        money(p.feeCents),
        money(p.netCents),
      ]),
    ),
  ].join('\n');
}

function suggestAuthCode(detail: LedgerDetail, today: string): string {
  const org =
    detail.encounter.payer.id
      .replace(/^PAYER-/, '')
      .replace(/[^A-Za-z0-9]/g, '')
      .toUpperCase() || 'ORG';
  return `AUTH-${today.replace(/-/g, '')}-${org}-0001`;
}

/**
 * After a failure that leaves it unknown whether this approval landed: never resend; read the
 * ledger. The encounter was not funded before this request (checked first), so a FUNDING_APPROVED
 * entry with this request's authorization code is this approval; another code means someone else's.
 * Only entries since the last failed or refunded transfer count: those before it are of a transfer
 * that no longer funds the encounter (and an authorization code is never used twice).
 */
async function afterAmbiguousFailure(ctx: Context, client: TpaClient, encounterId: string, authCode: string, cause: NetworkError): Promise<FundingApproved> {
  ctx.note(`the approval request failed without an answer (${cause.message}); it is not resent. Checking whether it happened…`);
  let detail: LedgerDetail;
  try {
    detail = (await client.ledgerDetail(encounterId)).body;
  } catch (err) {
    if (err instanceof NotFoundError) {
      throw new NetworkError(`the approval of ${encounterId} did not happen: ${err.message}`, { hint: 'check the encounter id; nothing was funded' });
    }
    throw new NetworkError(`could not tell whether the approval of ${encounterId} happened (${(err as Error).message})`, {
      hint: `check before trying again: tpa ledger show ${encounterId}`,
    });
  }
  // This request's approval, by its authorization code, even if its transfer has failed since.
  const mine = approvalOf(detail, authCode);
  const funding = mine ? { reference: authCode, transfer: mine.transfer } : fundingOf(detail);
  if (!funding)
    throw new NetworkError(`the approval of ${encounterId} did not happen: the ledger has no fund release`, {
      hint: 'it is safe to run the same command again',
    });
  if (funding.reference !== authCode) {
    throw new ConflictError(`encounter ${encounterId} was funded by another approval (authorization ${funding.reference ?? 'unknown'}), not by this request`, {
      hint: `see: tpa settlement show ${encounterId}`,
    });
  }
  const settlement = (await client.settlement(encounterId)).body as SettlementRecord;
  ctx.note(`the approval did happen: transfer ${funding.transfer ?? settlement.processor_transfer_id}, settlement ${settlement.settlement_id}`);
  return {
    status: 'APPROVED',
    processor_transfer_id: settlement.processor_transfer_id,
    estimated_arrival: settlement.payouts[0]?.expected_arrival ?? '',
    settlement_record_id: settlement.settlement_id,
  };
}

/**
 * Refuses, before anything is sent, an encounter that is already funded: its latest transfer is on
 * its way or completed. After a FAILED or REFUNDED transfer the encounter can be approved again:
 * the transfers that ended so are returned, none of which a new approval may answer with.
 */
async function ensureNotFunded(ctx: Context, client: TpaClient, encounterId: string): Promise<Set<string>> {
  const current = await client.settlement(encounterId);
  if (current.status === 200) {
    const s = current.body as SettlementRecord;
    if (s.status === 'FAILED' || s.status === 'REFUNDED') {
      ctx.note(
        `transfer ${s.processor_transfer_id} of encounter ${encounterId} is ${s.status}; this approval starts a new transfer (with a new authorization code)`,
      );
      return new Set([s.processor_transfer_id, ...(s.previous_transfers ?? []).map((p) => p.processor_transfer_id)]);
    }
    const message = `encounter ${encounterId} is already funded (transfer ${s.processor_transfer_id}); nothing was sent`;
    throw new ConflictError(message, {
      code: 'duplicate_approval',
      body: { error: 'duplicate_approval', message, previous_processor_transfer_id: s.processor_transfer_id, encounter_id: encounterId },
      hint: `see: tpa settlement show ${encounterId}`,
    });
  }
  return new Set();
}

export const approve: Handler = async (ctx, [encounterId], opts) => {
  const id = encounterId!;
  const amountText = opts.amount as string | undefined;
  const authCode = opts.authCode as string | undefined;
  const notes = opts.notes as string | undefined;
  if (notes !== undefined && characterCount(notes) > MAX_FUNDING_NOTES)
    throw new ValidationFailed(`--notes: at most ${MAX_FUNDING_NOTES} characters (got ${characterCount(notes)})`);
  if (amountText !== undefined && parseCents(amountText) === undefined) {
    throw new ValidationFailed(`--amount: "${amountText}" is not an amount with at most two decimals, e.g. 2280.00`);
  }
  if (amountText !== undefined && parseCents(amountText)! > MAX_AMOUNT_CENTS)
    throw new ValidationFailed(`--amount: ${amountText} is more than ${formatCentsGrouped(MAX_AMOUNT_CENTS)}, the most one amount may be; nothing was sent`);
  if (!ctx.canPrompt) {
    const missing = [amountText === undefined && '--amount', authCode === undefined && '--auth-code', !ctx.yes && '--yes'].filter(Boolean);
    if (missing.length > 0) {
      throw new UsageError(
        `fund approve moves money and cannot be undone; without a terminal to confirm on, it needs ${missing.join(', ')}. Nothing was sent.`,
      );
    }
  }
  const client = await ctx.client();
  const history = FundHistory.open(ctx.paths.dataDir);
  try {
    return await approveOne(ctx, client, history, id, { amountText, authCode, notes, idempotencyKey: opts.idempotencyKey as string | undefined });
  } finally {
    history.close();
  }
};

async function approveOne(
  ctx: Context,
  client: TpaClient,
  history: FundHistory,
  id: string,
  given: { amountText?: string; authCode?: string; notes?: string; idempotencyKey?: string },
): Promise<CommandOutput> {
  let { amountText, authCode } = given;
  const { notes } = given;
  // An earlier approval of this encounter from this machine whose answer was lost: the ledger says now what became of it.
  const records = FundHistory.read(ctx.paths.dataDir);
  if (records.some((a) => a.encounter_id === id && a.outcome === 'UNKNOWN')) {
    for (const note of history.resolve(records, id, (await client.ledgerDetail(id)).body)) ctx.note(note);
  }
  const ended = await ensureNotFunded(ctx, client, id);
  if (ctx.canPrompt) {
    const { tableTools } = await import('../../render/output.js');
    const t = await tableTools(ctx.colorErr, terminalWidth(ctx.io.stderr));
    const detail = (await client.ledgerDetail(id)).body;
    if (detail.encounter.status !== 'ADJUDICATED') {
      throw new ConflictError(`encounter ${id} is ${detail.encounter.status}: only an adjudicated claim can be funded; nothing was sent`);
    }
    if (benefitOf(detail) === 0) throw new ConflictError(`encounter ${id} has a benefit of 0.00: there is nothing to fund; nothing was sent`);
    const payouts = reviewPayouts(detail);
    ctx.io.stderr.write(`${reviewScreen(t, detail, payouts)}\n`);
    const benefit = formatCents(benefitOf(detail));
    amountText ??= await ask('Amount to release (USD)', {
      default: benefit,
      validate: (v) =>
        parseCents(v) === undefined
          ? 'an amount with at most two decimals'
          : parseCents(v)! === 0
            ? 'must be more than 0.00'
            : parseCents(v)! > MAX_AMOUNT_CENTS
              ? `at most ${formatCentsGrouped(MAX_AMOUNT_CENTS)}`
              : true,
    });
    if (parseCents(amountText) !== benefitOf(detail)) {
      ctx.note(t.c.yellow(`warning: ${amountText} differs from the adjudicated benefit ${benefit}; the service will refuse it`));
    }
    authCode ??= await ask('Authorization code', {
      default: suggestAuthCode(detail, new Date().toISOString().slice(0, 10)),
      validate: (v) => (v.trim() === '' ? 'required' : true),
    });
    if (!ctx.yes) {
      await confirm(
        ctx,
        `Release $${formatCentsGrouped(parseCents(amountText)!)} to ${payouts.length} provider${payouts.length === 1 ? '' : 's'}? This cannot be undone`,
      );
    }
  }
  const { randomUUID } = await import('node:crypto');
  const key = given.idempotencyKey ?? randomUUID();
  if (ctx.debug) ctx.note(`[debug] Idempotency-Key: ${key}`);
  const amount = centsToAmount(parseCents(amountText!)!);
  const hid = history.begin({
    profile: ctx.profileName,
    environment: ctx.profile().env,
    encounter_id: id,
    amount,
    authorization_code: authCode!.trim(),
  });
  let approved: FundingApproved;
  let head: AuditHead | undefined;
  try {
    try {
      const answer = await client.approveFunding({ encounter_id: id, amount, authorization_code: authCode!.trim(), ...(notes ? { notes } : {}) }, key);
      approved = answer.body;
      head = parseAuditHead(answer.headers[AUDIT_HEAD_HEADER]);
      // The service answered with a transfer that already ended: the replay of the earlier approval
      // that used this Idempotency-Key (its answer is kept and sent again), not a new release.
      if (ended.has(approved.processor_transfer_id)) {
        throw new ConflictError(
          `the service answered with transfer ${approved.processor_transfer_id}, which already ended (failed or refunded): the Idempotency-Key ${key} was used for that earlier approval, so this one was not sent and nothing moved. Encounter ${id} is still owed`,
          { code: 'idempotency_key_replayed', hint: `approve it with a new --idempotency-key (or none) and a new --auth-code` },
        );
      }
    } catch (err) {
      // A lost answer or a 5xx (a gateway may have passed the request on) leaves it unknown.
      if (err instanceof NetworkError) approved = await afterAmbiguousFailure(ctx, client, id, authCode!.trim(), err);
      else throw err;
    }
  } catch (err) {
    // Still unknown (the ledger could not be read): the record stays UNKNOWN until a later run finds out.
    if (err instanceof TpaError && !/could not tell whether/.test(err.message))
      history.end(hid, err instanceof ConflictError ? 'SKIPPED' : 'FAILED', null, err.message);
    throw err;
  }
  history.end(hid, 'APPROVED', approved.processor_transfer_id);
  // The engine's audit head after this release (docs/design.md "The audit chain"): for the operator to keep elsewhere.
  return {
    data: head ? { ...approved, audit_head: head } : approved,
    table: (t) =>
      `${t.c.green('✓')} Fund release approved\n` +
      t.keyValues([
        ['Transfer', approved.processor_transfer_id],
        ['Settlement record', approved.settlement_record_id],
        ['Estimated arrival', approved.estimated_arrival],
        ...(head ? ([['Audit head', `record ${head.seq} ${head.hash}`]] as [string, string][]) : []),
        ['Next', `tpa settlement show ${id}`],
      ]),
  };
}

/** `tpa fund run`: a payment run (cli/payment-run.ts, client/payment-run.ts). */
export const run: Handler = async (ctx, _args, opts) => (await import('../payment-run.js')).fundRun(ctx, opts);

/**
 * `tpa fund history`: the approvals made from this machine, newest last, with their outcomes and
 * what became of each approved transfer (one settlement read per encounter of the active profile).
 */
export const history: Handler = async (ctx, _args, opts) => {
  const from = opts.from as string | undefined;
  const to = opts.to as string | undefined;
  const records = FundHistory.read(ctx.paths.dataDir).filter((a) => (!from || a.at >= from) && (!to || a.at.slice(0, 10) <= to));
  const rows = await withTransfers(() => ctx.client(), records, ctx.profileName, ctx.note);
  return {
    data: rows,
    items: rows,
    table: (t: TableTools) =>
      rows.length === 0
        ? 'No approvals from this machine.'
        : t.table(
            ['When', 'Profile', 'Encounter', { header: 'Amount', align: 'right' }, 'Authorization', 'Outcome', 'Transfer', 'Transfer status'],
            rows.map((a) => [
              a.at.replace(/\.\d+Z$/, 'Z'),
              `${a.profile} (${a.environment})`,
              a.encounter_id,
              t.amount(a.amount),
              a.authorization_code,
              a.outcome === 'OWED' ? `${t.status('OWED')} (owed again)` : a.outcome === 'ENDED' ? `${t.status('ENDED')} (funded since)` : t.status(a.outcome),
              a.processor_transfer_id ?? '—',
              a.transfer_status === null ? (a.outcome === 'APPROVED' ? 'not checked' : '—') : t.status(a.transfer_status),
            ]),
          ),
  };
};
