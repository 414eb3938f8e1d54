// Fund release approval (docs/api-routes.md "POST /v1/funding/approve/" and "Funding approval
// preconditions"). Irreversible: the decision and its writes happen in one IMMEDIATE transaction,
// so concurrent approvals of one encounter, from any number of processes, fund it exactly once.
import type { FieldError } from '../../domain/errors.js';
import { closedClaimMessage } from '../../domain/ledger.js';
import { centsToAmount, formatCentsGrouped, jsonNumberToCents, MAX_AMOUNT_CENTS } from '../../domain/money.js';
import { addBusinessDays, MAX_FUNDING_NOTES, splitPayouts } from '../../domain/settlement.js';
import { characterCount } from '../../domain/validation.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, jsonBody, respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { withIdempotency } from '../idempotency.js';
import { newId } from '../ids.js';
import { addStatus, encounterById } from '../store/encounters.js';
import { insertPayout, insertSettlement, settlementsOf } from '../store/settlements.js';
import { appendAudit } from './audit.js';
import { addHistory, closedClaim, encounterData, lineProviders } from './encounters.js';
import { transferStands } from './settlement.js';

interface Approval {
  encounterId: string;
  amountCents: number;
  submittedAmount: number;
  authorizationCode: string;
  notes: string | null;
}

function readApproval(req: EngineRequest): Approval {
  const body = jsonBody(req);
  const errors: FieldError[] = [];
  if (typeof body.encounter_id !== 'string' || body.encounter_id === '') errors.push({ field: 'encounter_id', message: 'is required' });
  const amountCents = jsonNumberToCents(body.amount);
  if (body.amount === undefined) errors.push({ field: 'amount', message: 'is required: the adjudicated benefit amount in USD' });
  // More than one amount may be is refused as such, not compared with the benefit (docs/money-rules.md "Money rules").
  else if (typeof body.amount === 'number' && body.amount > MAX_AMOUNT_CENTS / 100)
    errors.push({ field: 'amount', message: `is more than ${formatCentsGrouped(MAX_AMOUNT_CENTS)}, the most one amount may be` });
  else if (amountCents === undefined || amountCents === 0) errors.push({ field: 'amount', message: 'must be a positive number with at most two decimals' });
  const code = body.authorization_code;
  if (typeof code !== 'string' || code.trim() === '') errors.push({ field: 'authorization_code', message: 'is required, e.g. AUTH-20260302-ACME-0001' });
  else if (code.length > 100) errors.push({ field: 'authorization_code', message: 'must be at most 100 characters' });
  // It is an identifier kept in the ledger, the audit chain and the fund history, and shown to approvers.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  else if (/[\u0000-\u001f\u007f-\u009f]/.test(code)) errors.push({ field: 'authorization_code', message: 'must not hold control characters' });
  if (body.notes !== undefined && body.notes !== null && typeof body.notes !== 'string') errors.push({ field: 'notes', message: 'must be text' });
  else if (typeof body.notes === 'string' && characterCount(body.notes) > MAX_FUNDING_NOTES) {
    errors.push({ field: 'notes', message: `must be at most ${MAX_FUNDING_NOTES} characters (got ${characterCount(body.notes)})` });
  }
  if (errors.length > 0) throw new HttpError(400, { errors });
  return {
    encounterId: body.encounter_id as string,
    amountCents: amountCents!,
    submittedAmount: body.amount as number,
    authorizationCode: (code as string).trim(),
    notes: typeof body.notes === 'string' ? body.notes : null,
  };
}

// mutation: no survivors (the exactly-once funding decision)
export function approveFunding(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const approval = readApproval(req);
  // BEGIN IMMEDIATE: concurrent approvals are serialised before they read (test/cli/exactly-once.test.ts).
  // Stryker disable next-line StringLiteral: the idempotency scope's name only has to differ from the other routes' names
  return ctx.db.transaction(() => withIdempotency(ctx, 'funding.approve', req, () => decide(ctx, approval))).immediate();
}

function decide(ctx: EngineContext, a: Approval): EngineResponse {
  const { db } = ctx;
  const encounter = encounterById(db, a.encounterId);
  if (!encounter) return respond(404, { error: 'encounter_not_found', encounter_id: a.encounterId, message: `No encounter ${a.encounterId}` });
  // A transfer that FAILED or was REFUNDED no longer funds the encounter: it can be approved again,
  // under a new authorization code (each approval is its own authorization).
  const transfers = settlementsOf(db, a.encounterId);
  const previous = transfers.at(-1);
  if (previous && transferStands(previous)) {
    return respond(400, {
      error: 'duplicate_approval',
      message: `Encounter ${a.encounterId} was already funded (transfer ${previous.processor_transfer_id}); nothing was sent`,
      previous_processor_transfer_id: previous.processor_transfer_id,
      encounter_id: a.encounterId,
    });
  }
  const reused = transfers.find((t) => t.authorization_code === a.authorizationCode);
  if (reused) {
    return respond(400, {
      errors: [
        {
          field: 'authorization_code',
          message: `was the authorization of transfer ${reused.processor_transfer_id}, which is ${reused.status}; approving the encounter again needs a new authorization code`,
        },
      ],
    });
  }
  // mutation: end
  const closed = closedClaim(db, encounter);
  if (closed) {
    return respond(400, {
      error: 'invalid_state',
      reason: 'CLAIM_NOT_ADJUDICATED',
      encounter_id: a.encounterId,
      status: closed.status,
      ...(closed.replacedBy ? { replaced_by: closed.replacedBy } : {}),
      message: closedClaimMessage(a.encounterId, closed),
    });
  }
  if (encounter.status === 'DENIED') {
    return respond(400, {
      error: 'invalid_state',
      reason: 'CLAIM_DENIED',
      encounter_id: a.encounterId,
      message: 'The claim was denied; there is nothing to fund',
    });
  }
  if (encounter.status !== 'ADJUDICATED') {
    return respond(400, {
      error: 'invalid_state',
      reason: 'CLAIM_NOT_ADJUDICATED',
      encounter_id: a.encounterId,
      message: encounter.status === 'PENDED' ? 'The claim is pended waiting for information from the provider' : 'The claim is not adjudicated yet',
    });
  }
  const data = encounterData(encounter);
  const expectedCents = data.adjudication.totals.benefitCents;
  if (expectedCents === 0) {
    return respond(400, {
      error: 'invalid_state',
      reason: 'NOTHING_TO_FUND',
      encounter_id: a.encounterId,
      message: 'The adjudicated benefit is 0.00 (the member owes the whole allowed amount): there is nothing to fund',
    });
  }
  if (a.amountCents !== expectedCents) {
    return respond(409, {
      error: 'amount_mismatch',
      expected_amount: centsToAmount(expectedCents),
      submitted_amount: a.submittedAmount,
      message: `The amount must equal the adjudicated benefit amount ${formatCentsGrouped(expectedCents)}`,
    });
  }

  const now = ctx.clock.now();
  const initiatedAt = isoSeconds(now);
  const estimatedArrival = isoSeconds(addBusinessDays(now, 1));
  const settlementId = newId('stl_');
  // The first transfer uses the trace id given at adjudication; a new one after a failed or
  // refunded transfer is a new transfer with the processor, under a new id.
  const transferId = previous ? newId('tr_') : encounter.processor_trace_id;
  insertSettlement(db, {
    id: settlementId,
    encounterId: encounter.id,
    attempt: (previous?.attempt ?? 0) + 1,
    processorTransferId: transferId,
    totalAmountCents: expectedCents,
    authorizationCode: a.authorizationCode,
    notes: a.notes,
    initiatedAt,
    estimatedArrival,
  });
  const payouts = splitPayouts(lineProviders(db, data), expectedCents).map((p) => ({ ...p, payoutId: newId('po_') }));
  for (const p of payouts) insertPayout(db, settlementId, p);
  addHistory(db, encounter.id, {
    type: 'FUNDING_APPROVED',
    timestamp: initiatedAt,
    reference: a.authorizationCode,
    description: `Fund release of ${formatCentsGrouped(expectedCents)} approved${a.notes ? `: ${a.notes}` : ''}`,
    financialImpact: { transfer_amount: centsToAmount(expectedCents) },
  });
  addHistory(db, encounter.id, {
    type: 'SETTLEMENT_INITIATED',
    timestamp: initiatedAt,
    reference: transferId,
    description: `Transfer created; expected ${estimatedArrival}`,
    audit: { settlement_id: settlementId, attempt: (previous?.attempt ?? 0) + 1, total_cents: expectedCents, authorization_code: a.authorizationCode },
  });
  // Who each payout goes to, in the chain: a payout redirected in the database is caught by
  // `tpa local audit verify --deep`.
  for (const p of payouts) {
    appendAudit(db, 'PAYOUT', encounter.id, initiatedAt, {
      settlement_id: settlementId,
      sequence: p.sequence,
      processor_payout_id: p.payoutId,
      provider_npi: p.providerNpi,
      provider_role: p.providerRole,
      amount_cents: p.amountCents,
      fee_cents: p.feeCents,
      net_cents: p.netCents,
    });
  }
  addStatus(db, encounter.id, 'FUNDED', initiatedAt);
  return respond(200, { status: 'APPROVED', processor_transfer_id: transferId, estimated_arrival: estimatedArrival, settlement_record_id: settlementId });
}
