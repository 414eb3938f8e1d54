// tpa fund approve: the irreversible fund release of one encounter.
// The approval moves money and cannot be undone: nothing is sent without every value and an
// explicit confirmation, and after an ambiguous failure the request is never resent blindly: the
// settlement tells whether it happened.
import type { TpaClient } from '../../../client/client.js';
import { type ApprovalRecord, codeOfAnother, type FundHistory } from '../../../jobs/fund-history.js';
import type { LostRelease, Released } from '../../../jobs/fund-release.js';
import type { FundingApproved, LedgerDetail, SettlementRecord } from '../../../client/types.js';
import type { AuditHead } from '../../../domain/audit.js';
import { authorizationCodeProblem, authorizationCodesOf, codeKey } from '../../../domain/funding.js';
import { closedClaimMessage, isClosedStatus } from '../../../domain/ledger.js';
import { centsToAmount, formatCentsGrouped, parseTypedAmount } from '../../../domain/money.js';
import { MAX_FUNDING_NOTES, type PayoutShare } from '../../../domain/settlement.js';
import { characterCount } from '../../../domain/validation.js';
import { ConflictError, NetworkError, NotFoundError, type TpaError, ValidationFailed } from '../../../errors.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { wrapProse } from '../../../render/text.js';
import { terminalWidth } from '../../io.js';
import { suggestCommand } from '../../options.js';
import { ask } from '../../prompt.js';
import { holdNotes, moneyTarget, promptTag, writeTargetLine } from '../../where.js';
import { argument, option, fieldsOf, verb } from '../../verb.js';
import { codeReferenceLine, offeredAuthorizationCode, shapeWarning, typeToConfirm, whileReleaseIsOut } from './confirm.js';
import { benefitOf, reviewPayouts } from './review.js';
import { needsWithoutTerminal } from './without-terminal.js';

export const approve = verb({
  name: 'approve',
  description: 'release the adjudicated benefit to the providers: a review and a confirmation on a terminal; --yes and every value otherwise',
  args: { encounterId: argument.required('<encounter_id>', 'the encounter: its id (external_claim_id of the claim) or its number, ENC-2026-000002') },
  options: {
    amount: option.text(
      '--amount <usd>',
      'the amount, as tpa prints it or plain (2,460.00 or 2460): must equal the adjudicated benefit (typed to confirm on a terminal)',
    ),
    authCode: option.text('--auth-code <code>', 'your reference for the audit trail, as recommended AUTH-<date>-<organization>-<sequence>'),
    notes: option.text('--notes <text>', 'internal audit notes, at most 500 characters'),
    idempotencyKey: option.text('--idempotency-key <key>', 'reuse a key so that a retried approval is recognised (default: a new one)'),
  },
  fields: [...fieldsOf<FundingApproved>({ status: true, processor_transfer_id: true, estimated_arrival: true, settlement_record_id: true }), 'audit_head'],
  examples: [
    'tpa fund approve enc_3b302036a412ed8b301f',
    'tpa fund approve ENC-2026-000002',
    'tpa fund approve ENC-2026-000002 --amount 284.00 --auth-code AUTH-20261127-ACME-0001 --yes -o json',
  ],
  async run(ctx, { encounterId: given }, opts) {
    const { amount: amountText, authCode, notes } = opts;
    if (notes !== undefined && characterCount(notes) > MAX_FUNDING_NOTES)
      throw new ValidationFailed(`--notes: at most ${MAX_FUNDING_NOTES} characters (got ${characterCount(notes)})`);
    if (amountText !== undefined) {
      const parsed = parseTypedAmount(amountText);
      if ('problem' in parsed) throw new ValidationFailed(`--amount: ${parsed.problem}; nothing was sent`);
    }
    needsWithoutTerminal(ctx, 'fund approve', { '--amount': amountText, '--auth-code': authCode });
    // On a terminal the review's first line names where the money moves: the notes said before it
    // (the keychain's, a transfer that ended) are held until it is drawn (where.ts holdNotes).
    const release = ctx.canPrompt ? holdNotes(ctx) : undefined;
    try {
      const client = await ctx.client();
      const { resolveEncounter } = await import('../../../client/encounter-ref.js');
      const encounterId = await resolveEncounter(client, given);
      const { FundHistory } = await import('../../../jobs/fund-history.js');
      const history = FundHistory.open(ctx.paths.dataDir);
      try {
        return await approveOne(ctx, client, history, encounterId, opts);
      } finally {
        history.close();
      }
    } finally {
      release?.();
    }
  },
});

/**
 * The review, under the line naming where the money moves: the encounter, its amounts and each
 * payout. Every amount is written one way (2,460.00), and each payout is one line at 80 columns: a
 * provider's name is cut with … before an NPI or an amount is touched (docs/approval.md "Approval screens").
 */
function reviewScreen(t: TableTools, detail: LedgerDetail, payouts: PayoutShare[], codeLine: string): string {
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
      ['Fees (2.2% + 0.30 each)', money(payouts.reduce((s, p) => s + p.feeCents, 0))],
      ['Benefit amount', t.c.bold(t.amount(f.payer_responsibility?.total))],
    ]),
    t.table(
      [
        '#',
        { header: 'Provider', cut: true },
        'NPI',
        'Role',
        { header: 'Amount', align: 'right' },
        { header: 'Fee', align: 'right' },
        { header: 'Net', align: 'right' },
      ],
      payouts.map((p) => [String(p.sequence), p.providerName, p.providerNpi, p.providerRole, money(p.amountCents), money(p.feeCents), money(p.netCents)]),
    ),
    codeLine,
  ].join('\n');
}

/** The authorization codes taken for an approval of `id`: those payment runs hold for their approvals, this machine's fund history (any outcome) and the encounter's own releases in the ledger, each with where it was used. */
function usedCodes(records: readonly ApprovalRecord[], detail: LedgerDetail, id: string, reserved: ReadonlyMap<string, string>): Map<string, string> {
  const used = new Map<string, string>(reserved);
  for (const a of records) used.set(codeKey(a.authorization_code), usedBy(a));
  for (const c of authorizationCodesOf(detail)) used.set(codeKey(c), `by a fund release of ${id}`);
  return used;
}

const usedBy = (a: { encounter_id: string; at: string; outcome: string }) => `by the approval of ${a.encounter_id} on ${a.at.slice(0, 10)} (${a.outcome})`;

/**
 * An --auth-code that cannot be sent, with or without a terminal: one holding control characters
 * (refused before it is recorded anywhere, as the service refuses it), or one this machine's history
 * gave to an approval of another encounter, whatever became of it. The same encounter's earlier
 * attempts are the service's to judge (a retried approval may reuse its code).
 */
function givenCodeProblem(
  code: string,
  records: readonly { authorization_code: string; encounter_id: string; at: string; outcome: string }[],
  id: string,
  reserved: ReadonlyMap<string, string>,
): TpaError | undefined {
  const problem = authorizationCodeProblem(code);
  if (problem) return new ValidationFailed(`--auth-code: ${problem}; nothing was sent`);
  const run = reserved.get(codeKey(code));
  if (run)
    return new ConflictError(`--auth-code ${code.trim()} is taken ${run}: each approval has its own code. Nothing was sent`, {
      code: 'authorization_code_used',
    });
  const other = codeOfAnother(records, id, code);
  if (other)
    return new ConflictError(`--auth-code ${code.trim()} is used already (${usedBy(other)}): each approval has its own code. Nothing was sent`, {
      code: 'authorization_code_used',
    });
  return undefined;
}

/** --amount other than the benefit: refused as the service refuses it (409 amount_mismatch, exit 4), naming both. */
function amountMismatch(amountText: string, benefitCents: number): ConflictError {
  const body = {
    error: 'amount_mismatch',
    expected_amount: centsToAmount(benefitCents),
    submitted_amount: centsToAmount(centsOf(amountText)),
    message: `The amount must equal the adjudicated benefit amount ${formatCentsGrouped(benefitCents)}`,
  };
  return new ConflictError(
    `--amount ${formatCentsGrouped(centsOf(amountText))} differs from the benefit of ${formatCentsGrouped(benefitCents)}: only the adjudicated benefit can be released; nothing was sent`,
    { code: 'amount_mismatch', body, details: body, hint: `approve the benefit: --amount ${formatCentsGrouped(benefitCents)}, or no --amount to be asked` },
  );
}

/** The cents of an amount already checked by parseTypedAmount. */
function centsOf(text: string): number {
  const parsed = parseTypedAmount(text);
  if ('problem' in parsed) throw new ValidationFailed(`--amount: ${parsed.problem}; nothing was sent`);
  return parsed.cents;
}

/**
 * What to say of a release whose answer was lost and that the ledger does not show (fund-release.ts
 * LostRelease): nobody can tell when the ledger could not be read; else it did not happen.
 */
function lostReleaseError(ctx: Context, encounterId: string, lost: LostRelease): NetworkError {
  if (lost.unknown)
    return new NetworkError(`could not tell whether the approval of ${encounterId} happened (${lost.readError!.message})`, {
      hint: `check before trying again: ${suggestCommand(ctx, ['ledger', 'show', encounterId])}`,
    });
  if (lost.notFound)
    return new NetworkError(`the approval of ${encounterId} did not happen: ${lost.readError!.message}`, {
      hint: 'check the encounter id; nothing was funded',
    });
  return new NetworkError(`the approval of ${encounterId} did not happen: the ledger has no fund release`, {
    hint: 'it is safe to run the same command again',
  });
}

/**
 * The approval a release came to: the service's answer; or, its answer lost, the one the ledger
 * shows (its settlement read for the transfer and arrival). Funded by another approval: refused
 * (exit 4), with the service's own refusal when it answered one.
 */
async function approvalOf(ctx: Context, client: TpaClient, encounterId: string, released: Released): Promise<{ approved: FundingApproved; head?: AuditHead }> {
  if (released.status === 'FUNDED_BY_ANOTHER') {
    if (released.refusal) throw released.refusal;
    throw new ConflictError(
      `encounter ${encounterId} was funded by another approval (authorization ${released.funding.reference ?? 'unknown'}), not by this request`,
      { hint: `see: ${suggestCommand(ctx, ['settlement', 'show', encounterId])}` },
    );
  }
  if (released.answer) return released.head ? { approved: released.answer.body, head: released.head } : { approved: released.answer.body };
  const settlement = (await client.settlement(encounterId)).body as SettlementRecord;
  ctx.note(`the approval did happen: transfer ${released.transfer ?? settlement.processor_transfer_id}, settlement ${settlement.settlement_id}`);
  return {
    approved: {
      status: 'APPROVED',
      processor_transfer_id: settlement.processor_transfer_id,
      estimated_arrival: settlement.payouts[0]?.expected_arrival ?? '',
      settlement_record_id: settlement.settlement_id,
    },
  };
}

/**
 * Refuses, before anything is sent, an encounter that is already funded: its latest transfer is on
 * its way or completed. After a FAILED or REFUNDED transfer the encounter can be approved again:
 * the transfers that ended so are returned, none of which a new approval may answer with.
 */
async function ensureNotFunded(ctx: Context, client: TpaClient, encounterId: string): Promise<Set<string>> {
  let current: Awaited<ReturnType<TpaClient['settlement']>>;
  try {
    current = await client.settlement(encounterId);
  } catch (err) {
    // A denied encounter has no settlement and never will: refused as the service refuses its
    // approval (400 reason CLAIM_DENIED, exit 4), without sending it.
    if (err instanceof NotFoundError && err.code === 'no_settlement') {
      // A claim a corrected claim closed: refused as the service refuses it (CLAIM_NOT_ADJUDICATED
      // naming SUPERSEDED or VOIDED, and the replacement), with the body the service would answer, not as denied.
      const said = (err.body ?? {}) as { status?: unknown; replaced_by?: unknown; message?: unknown };
      if (typeof said.status === 'string' && isClosedStatus(said.status)) {
        const closed = { status: said.status, replacedBy: typeof said.replaced_by === 'string' ? said.replaced_by : null };
        const body = {
          error: 'invalid_state',
          reason: 'CLAIM_NOT_ADJUDICATED',
          encounter_id: encounterId,
          status: closed.status,
          ...(closed.replacedBy ? { replaced_by: closed.replacedBy } : {}),
          message: closedClaimMessage(encounterId, closed),
        };
        throw new ConflictError(`${closedClaimMessage(encounterId, closed)}; nothing was sent`, {
          code: 'CLAIM_NOT_ADJUDICATED',
          body,
          details: body,
          hint: `see why: ${suggestCommand(ctx, ['ledger', 'show', closed.replacedBy ?? encounterId])}`,
        });
      }
      const body = { error: 'invalid_state', reason: 'CLAIM_DENIED', encounter_id: encounterId, message: 'The claim was denied; there is nothing to fund' };
      throw new ConflictError(`encounter ${encounterId} was denied (CLAIM_DENIED): there is nothing to fund; nothing was sent`, {
        code: 'CLAIM_DENIED',
        body,
        details: body,
        hint: `see why: ${suggestCommand(ctx, ['ledger', 'show', encounterId])}`,
      });
    }
    throw err;
  }
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
      hint: `see: ${suggestCommand(ctx, ['settlement', 'show', encounterId])}`,
    });
  }
  return new Set();
}

type Given = { amount?: string | undefined; authCode?: string | undefined; notes?: string | undefined; idempotencyKey?: string | undefined };

async function approveOne(ctx: Context, client: TpaClient, history: FundHistory, id: string, given: Given): Promise<CommandOutput> {
  const [{ FundHistory }, { settleLostReleases }] = await Promise.all([import('../../../jobs/fund-history.js'), import('../../../jobs/fund-release.js')]);
  // An earlier approval of this encounter from this machine whose answer was lost: the ledger says now what became of it.
  const records = FundHistory.read(ctx.paths.dataDir);
  for (const note of await settleLostReleases(client, history, records, id)) ctx.note(note);
  const [{ pendingRunCodes }, { journalsDir }] = await Promise.all([import('../../../jobs/job-journals.js'), import('../../../jobs/journal.js')]);
  const reserved = pendingRunCodes(journalsDir(ctx.paths.dataDir));
  if (given.authCode !== undefined) {
    const problem = givenCodeProblem(given.authCode, records, id, reserved);
    if (problem) throw problem;
  }
  const ended = await ensureNotFunded(ctx, client, id);
  let chosen: { amountText: string; authCode: string };
  if (ctx.canPrompt) chosen = await reviewed(ctx, client, id, records, given, reserved);
  else {
    const warning = shapeWarning(given.authCode!, undefined, 'code');
    if (warning) ctx.note(warning);
    chosen = { amountText: given.amount!, authCode: given.authCode! };
  }
  const { approved, head } = await sent(ctx, client, history, id, { ...chosen, notes: given.notes, idempotencyKey: given.idempotencyKey }, ended);
  // The engine's audit head after this release (docs/local.md "The audit chain"): for the operator to keep elsewhere.
  return {
    data: head ? { ...approved, audit_head: head } : approved,
    done: `the release was sent and APPROVED (transfer ${approved.processor_transfer_id})`,
    table: (t) =>
      `${t.c.green('✓')} Fund release approved\n` +
      t.keyValues([
        ['Transfer', approved.processor_transfer_id],
        ['Settlement record', approved.settlement_record_id],
        ['Estimated arrival', approved.estimated_arrival],
        ...(head ? ([['Audit head', `record ${head.seq} ${head.hash}`]] as [string, string][]) : []),
        ['Next', suggestCommand(ctx, ['settlement', 'show', id])],
      ]),
  };
}

/**
 * On a terminal: the review under the line naming where the money moves, the authorization code
 * asked (the next free one offered) and the amount typed to confirm. Returns what was confirmed.
 */
async function reviewed(
  ctx: Context,
  client: TpaClient,
  id: string,
  records: readonly ApprovalRecord[],
  given: Given,
  reserved: ReadonlyMap<string, string>,
): Promise<{ amountText: string; authCode: string }> {
  let { amount: amountText, authCode } = given;
  const detail = (await client.ledgerDetail(id)).body;
  if (detail.encounter.status !== 'ADJUDICATED') {
    throw new ConflictError(`encounter ${id} is ${detail.encounter.status}: only an adjudicated claim can be funded; nothing was sent`);
  }
  const benefitCents = benefitOf(detail);
  if (benefitCents === 0) throw new ConflictError(`encounter ${id} has a benefit of 0.00: there is nothing to fund; nothing was sent`);
  // An amount other than the benefit never reaches the review: given on the command line it is
  // refused first, as the service would refuse it (409 amount_mismatch, exit 4); typed, it is asked again.
  if (amountText !== undefined && centsOf(amountText) !== benefitCents) throw amountMismatch(amountText, benefitCents);
  // Every code used is taken: this encounter's in the ledger (a failed transfer's too) and this
  // machine's history, whatever became of those approvals. The next free one is offered, dated by
  // the engine's clock, and a used one is refused before the review, typed or given as --auth-code.
  const used = usedCodes(records, detail, id, reserved);
  const offered = await offeredAuthorizationCode(ctx, client, detail, used.keys());
  const usedProblem = (code: string) =>
    used.has(codeKey(code)) ? `${code} is used already (${used.get(codeKey(code))}): each approval has its own code; ${offered} is free` : undefined;
  if (authCode !== undefined && usedProblem(authCode.trim()))
    throw new ConflictError(`--auth-code ${usedProblem(authCode.trim())}. Nothing was sent`, { code: 'authorization_code_used' });
  const payouts = reviewPayouts(detail);
  const target = await moneyTarget(ctx);
  const { tableTools } = await import('../../../render/output.js');
  const t = await tableTools(ctx.colorErr, terminalWidth(ctx.io.stderr));
  const codeLine = authCode === undefined ? wrapProse(codeReferenceLine('code'), t.width) : '';
  // Where the money moves first, then the notes held until it; a code given of another shape is
  // warned about there, above the review, so that the first line stays on an 80×24 screen.
  writeTargetLine(ctx, target, t.width);
  const givenWarning = authCode === undefined ? undefined : shapeWarning(authCode, offered, 'code');
  if (givenWarning) ctx.note(givenWarning);
  ctx.io.stderr.write(`${reviewScreen(t, detail, payouts, codeLine).replace(/\n$/, '')}\n`);
  const typedCode = authCode === undefined;
  authCode ??= await ask('Authorization code', {
    default: offered,
    validate: (v) => authorizationCodeProblem(v) ?? usedProblem(v.trim()) ?? true,
  });
  const warning = typedCode ? shapeWarning(authCode, offered, 'code', true) : undefined;
  if (warning) ctx.note(warning);
  // The one confirmation: the amount typed, never pre-filled (docs/approval.md "Approval screens").
  // With --yes and --amount, nothing is asked.
  if (!ctx.yes || amountText === undefined) {
    const e = detail.encounter;
    const providers = `${payouts.length} provider${payouts.length === 1 ? '' : 's'}`;
    await typeToConfirm(
      benefitCents,
      `${promptTag(target)}Release ${e.encounter_number} (${e.patient.name ?? e.patient.member_id}) to ${providers}, which cannot be undone`,
      'amount',
    );
    amountText = formatCentsGrouped(benefitCents);
  }
  // Another approver on this machine may have taken the code while the prompts were open.
  const { FundHistory } = await import('../../../jobs/fund-history.js');
  const taken = usedCodes(FundHistory.read(ctx.paths.dataDir), detail, id, reserved).get(codeKey(authCode));
  if (taken)
    throw new ConflictError(`${authCode.trim()} was taken meanwhile (${taken}): nothing was sent; run the command again for a free code`, {
      code: 'authorization_code_used',
    });
  return { amountText, authCode };
}

/**
 * The confirmed release sent, once, through the one fund release (jobs/fund-release.ts): recorded in
 * this machine's history with the database it goes to, and a lost answer settled from the ledger.
 */
async function sent(
  ctx: Context,
  client: TpaClient,
  history: FundHistory,
  id: string,
  chosen: { amountText: string; authCode: string; notes?: string | undefined; idempotencyKey?: string | undefined },
  ended: ReadonlySet<string>,
): Promise<{ approved: FundingApproved; head?: AuditHead }> {
  const { randomUUID } = await import('node:crypto');
  const key = chosen.idempotencyKey ?? randomUUID();
  if (ctx.debug) ctx.note(`[debug] Idempotency-Key: ${key}`);
  const amount = centsToAmount(centsOf(chosen.amountText));
  // The database the release goes to, named in its record: after a reset or a restore, `fund history` shows it apart.
  const [{ databaseOf }, { LostRelease, releaseFunds }] = await Promise.all([import('../../../jobs/journal.js'), import('../../../jobs/fund-release.js')]);
  const database = (await databaseOf(client).catch(() => undefined))?.id;
  const release = { encounter_id: id, amount, authorization_code: chosen.authCode.trim(), ...(chosen.notes ? { notes: chosen.notes } : {}) };
  const onSignal = whileReleaseIsOut(ctx, id, release.authorization_code);
  try {
    const released = await releaseFunds(client, release, key, {
      history: { log: history, dataDir: ctx.paths.dataDir, profile: ctx.profileName, environment: ctx.profile().env, database },
      ended,
      onLostAnswer: (cause) => ctx.note(`the approval request failed without an answer (${cause.message}); it is not resent. Checking whether it happened…`),
    });
    return await approvalOf(ctx, client, id, released);
  } catch (err) {
    if (err instanceof LostRelease) throw lostReleaseError(ctx, id, err);
    throw err;
  } finally {
    onSignal.done();
  }
}
