// Claim submission and the claim response (SPEC.md "POST /v1/claims/submit/" and
// "GET /v1/claims/{submission_id}/response/"). One claim is one encounter and one ledger entry
// (DESIGN.md section 4). Adjudication is decided at submission, in the same transaction that
// records the claim, and revealed when the engine clock reaches its ready time.
import { adjudicate, claimServiceDate, type Adjudication, type PlanBenefits } from '../../domain/adjudication.js';
import { ValidationError } from '../../domain/errors.js';
import { parseClaimText, type ParsedClaim } from '../../domain/fhir-claim.js';
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, respond, type EngineRequest, type EngineResponse } from '../http.js';
import { withIdempotency } from '../idempotency.js';
import { fhirId, newId } from '../ids.js';
import { activeContractsFor, contractById, contractTerms } from '../store/contracts.js';
import { adjudicationBody, claimResponseResource } from './claim-response.js';
import { addHistory, addStatus, finalLedgerStatus, type EncounterRow } from './encounters.js';

interface MemberRow {
  member_id: string;
  name: string;
  plan_id: string;
  coverage_start: string;
  coverage_end: string | null;
  deductible_met_cents: number;
  deductible_cents: number;
  copay_cents: number;
  coinsurance_percent: number;
}

export function submitClaim(ctx: EngineContext, req: EngineRequest): EngineResponse {
  let claim: ParsedClaim;
  try {
    claim = parseClaimText(req.body ?? '');
  } catch (err) {
    if (err instanceof ValidationError) throw new HttpError(400, { errors: err.errors });
    throw err;
  }
  return ctx.db.transaction(() => withIdempotency(ctx, 'claims.submit', req, () => recordClaim(ctx, claim))).immediate();
}

function recordClaim(ctx: EngineContext, claim: ParsedClaim): EngineResponse {
  const { db } = ctx;
  const member = db
    .prepare(
      `SELECT m.*, p.deductible_cents, p.copay_cents, p.coinsurance_percent
       FROM members m JOIN plans p ON p.id = m.plan_id WHERE m.member_id = ?`,
    )
    .get(claim.memberId) as MemberRow | undefined;
  if (!member) {
    throw new HttpError(400, { errors: [{ field: 'patient.reference', message: `no member "${claim.memberId}" is enrolled with the plan` }] });
  }
  const serviceDate = claimServiceDate(claim);
  const codes = [...new Set(claim.lines.map((l) => l.cptCode))];
  const candidates = activeContractsFor(db, claim.providerNpi, serviceDate, codes)
    .filter((c) => c.covered.length > 0)
    .sort((a, b) => b.covered.length - a.covered.length);
  const chosen = candidates[0];
  if (!chosen) {
    return respond(404, {
      error: 'no_active_contract',
      message: `No active contract for provider ${claim.providerNpi} covers ${codes.join(', ')} on ${serviceDate}`,
      provider_npi: claim.providerNpi,
      cpt_codes: codes,
    });
  }
  const fingerprint = [claim.memberId, claim.providerNpi, serviceDate, [...claim.lines.map((l) => l.cptCode)].sort().join('+')].join('|');
  const duplicate = db
    // A pended claim is waiting to be sent again with its preauthorization: that is no duplicate.
    .prepare(`SELECT id FROM encounters WHERE fingerprint = ? AND disposition NOT IN ('DENIED', 'PENDING_REVIEW') ORDER BY submitted_at LIMIT 1`)
    .get(fingerprint) as { id: string } | undefined;
  const benefits: PlanBenefits = {
    deductibleCents: member.deductible_cents,
    deductibleMetCents: member.deductible_met_cents,
    copayCents: member.copay_cents,
    coinsurancePercent: member.coinsurance_percent,
    coverageStart: member.coverage_start,
    coverageEnd: member.coverage_end,
  };
  const adjudication = adjudicate({ claim, contract: contractTerms(db, chosen.contract), benefits, duplicateOf: duplicate?.id ?? null });

  const now = ctx.clock.now();
  const submittedAt = isoSeconds(now);
  const readyAt = isoSeconds(new Date(now.getTime() + ctx.adjudicationDelayMs));
  const encounterId = newId('enc_');
  const submissionId = newId('sub_');
  // Encounters are never deleted, so the next rowid numbers them (COUNT(*) would scan the ledger).
  const sequence = (db.prepare('SELECT COALESCE(MAX(rowid), 0) + 1 FROM encounters').pluck().get() as number);
  const encounterNumber = `ENC-${serviceDate.slice(0, 4)}-${String(sequence).padStart(6, '0')}`;
  db.prepare(
    `INSERT INTO encounters (id, ledger_id, encounter_number, submission_id, contract_id, member_id, provider_npi, claim_type,
       service_date, submitted_at, ready_at, completed_at, status, disposition, fingerprint, claim_response_id, aeob_reference,
       processor_trace_id, claim_json, outcome_json, benefits_json, first_cpt_code, charge_cents, allowed_cents, deductible_cents, copay_cents,
       coinsurance_cents, patient_cents, benefit_cents)
     VALUES (@id, @ledgerId, @number, @submissionId, @contractId, @memberId, @npi, @type, @serviceDate, @submittedAt, @readyAt, NULL,
       'SUBMITTED', @disposition, @fingerprint, @claimResponseId, @aeob, @trace, @claim, @outcome, @benefits, @firstCpt, @charge, @allowed,
       @deductible, @copay, @coinsurance, @patient, @benefit)`,
  ).run({
    id: encounterId,
    ledgerId: newId('led_'),
    number: encounterNumber,
    submissionId,
    contractId: chosen.contract.id,
    memberId: member.member_id,
    npi: claim.providerNpi,
    type: claim.type,
    serviceDate,
    submittedAt,
    readyAt,
    disposition: adjudication.disposition,
    fingerprint,
    claimResponseId: fhirId(newId('cr-')),
    aeob: `AEOB-${encounterNumber.slice(4)}`,
    // The processor's transfer id is assigned at adjudication and used by the funding transfer.
    trace: newId('tr_'),
    claim: JSON.stringify(claim),
    outcome: JSON.stringify(adjudication),
    benefits: JSON.stringify(benefits),
    firstCpt: claim.lines[0]!.cptCode,
    charge: adjudication.totals.chargeCents,
    allowed: adjudication.totals.allowedCents,
    deductible: adjudication.totals.deductibleCents,
    copay: adjudication.totals.copayCents,
    coinsurance: adjudication.totals.coinsuranceCents,
    patient: adjudication.totals.patientResponsibilityCents,
    benefit: adjudication.totals.benefitCents,
  });
  const providerRow = db.prepare('INSERT OR IGNORE INTO encounter_providers (encounter_id, npi) VALUES (?, ?)');
  for (const npi of new Set([claim.providerNpi, ...claim.careTeam.map((m) => m.npi)])) providerRow.run(encounterId, npi);
  // The member's deductible counts toward later claims from the moment this one is accepted.
  if (adjudication.totals.deductibleCents > 0) {
    db.prepare('UPDATE members SET deductible_met_cents = deductible_met_cents + ? WHERE member_id = ?').run(adjudication.totals.deductibleCents, member.member_id);
  }

  addStatus(db, encounterId, 'SUBMITTED', submittedAt);
  addHistory(db, encounterId, {
    type: 'SUBMISSION',
    timestamp: submittedAt,
    reference: submissionId,
    description: `${claim.type === 'institutional' ? 'Institutional' : 'Professional'} claim submitted via the API: ${claim.lines.length} line${claim.lines.length === 1 ? '' : 's'}, charges ${formatCentsGrouped(claim.totalChargeCents)}`,
  });
  addHistory(db, encounterId, {
    type: 'VALIDATION',
    timestamp: submittedAt,
    reference: chosen.contract.id,
    description: validationText(chosen.contract.contract_number, member, adjudication),
  });
  // Only a claim that goes on to adjudication passes through PROCESSING (DESIGN.md section 4:
  // SUBMITTED → PENDED and SUBMITTED → DENIED are direct).
  if (finalLedgerStatus(adjudication.disposition) === 'ADJUDICATED') addStatus(db, encounterId, 'PROCESSING', submittedAt);

  return respond(201, {
    submission_id: submissionId,
    external_claim_id: encounterId,
    status: 'ACKNOWLEDGED',
    message: `Claim received for asynchronous adjudication; poll GET /tpa-api/v1/claims/${submissionId}/response/`,
  });
}

function validationText(contractNumber: string, member: MemberRow, adjudication: Adjudication): string {
  if (adjudication.denialCode === 'CARC-26' || adjudication.denialCode === 'CARC-27') {
    return `Contract ${contractNumber} matched; member ${member.member_id} not covered on ${adjudication.serviceDate}`;
  }
  return `Contract ${contractNumber} matched; member ${member.member_id} covered on ${adjudication.serviceDate}`;
}

export function claimResponse(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const submissionId = params.submission_id!;
  const row = ctx.db.prepare('SELECT * FROM encounters WHERE submission_id = ?').get(submissionId) as EncounterRow | undefined;
  if (!row) {
    return respond(404, { error: 'submission_not_found', submission_id: submissionId, message: `No claim submission ${submissionId}` });
  }
  if (row.completed_at === null) {
    return respond(202, {
      submission_id: submissionId,
      status: 'PROCESSING',
      message: 'Adjudication is in progress; poll again later',
      estimated_completion: row.ready_at,
    });
  }
  const adjudication = JSON.parse(row.outcome_json) as Adjudication;
  const base = { submission_id: submissionId, external_claim_id: row.id, status: 'ADJUDICATED', disposition: adjudication.disposition };
  if (adjudication.disposition === 'DENIED') {
    return respond(200, {
      ...base,
      denial_reason: adjudication.denialReason,
      denial_code: adjudication.denialCode,
      aeob_reference: row.aeob_reference,
      completed_at: row.completed_at,
    });
  }
  if (adjudication.disposition === 'PENDING_REVIEW') {
    return respond(200, {
      ...base,
      pend_reason: adjudication.pendReason,
      message: 'Claim pended: a preauthorization reference is required for a code on this claim; resubmit with supportingInfo',
      completed_at: row.completed_at,
    });
  }
  const raw = /^(true|1)$/i.test(req.query.get('include_raw_response') ?? '');
  return respond(200, {
    ...base,
    ...(raw ? { claim_response: claimResponseResource(row, JSON.parse(row.claim_json) as ParsedClaim, adjudication, contractById(ctx.db, row.contract_id)) } : {}),
    adjudication: adjudicationBody(adjudication),
    aeob_reference: row.aeob_reference,
    processor_trace_id: row.processor_trace_id,
    completed_at: row.completed_at,
  });
}

/** Completes every adjudication whose ready time the engine clock has reached. */
export function completeDueClaims(ctx: EngineContext): void {
  const now = isoSeconds(ctx.clock.now());
  const due = ctx.db.prepare('SELECT * FROM encounters WHERE completed_at IS NULL AND ready_at <= ? ORDER BY ready_at, rowid').all(now) as EncounterRow[];
  if (due.length === 0) return;
  ctx.db
    .transaction(() => {
      for (const row of due) {
        const changed = ctx.db.prepare('UPDATE encounters SET completed_at = ready_at, status = ? WHERE id = ? AND completed_at IS NULL');
        const adjudication = JSON.parse(row.outcome_json) as Adjudication;
        const status = finalLedgerStatus(adjudication.disposition);
        // Another process may have completed it between the read and this write.
        if (changed.run(status, row.id).changes === 0) continue;
        addStatus(ctx.db, row.id, status, row.ready_at);
        if (status === 'DENIED') {
          addHistory(ctx.db, row.id, { type: 'DENIED', timestamp: row.ready_at, reference: adjudication.denialCode, description: `Claim denied: ${adjudication.denialReason}` });
        } else if (status === 'PENDED') {
          addHistory(ctx.db, row.id, { type: 'PENDED', timestamp: row.ready_at, reference: adjudication.pendReason, description: 'Waiting for a preauthorization reference from the provider' });
        } else {
          const t = adjudication.totals;
          addHistory(ctx.db, row.id, {
            type: 'ADJUDICATION',
            timestamp: row.ready_at,
            reference: row.claim_response_id,
            description: `Claim adjudicated: ${adjudication.disposition}, allowed ${formatCentsGrouped(t.allowedCents)}, benefit ${formatCentsGrouped(t.benefitCents)}`,
            financialImpact: {
              benefit_amount: centsToAmount(t.benefitCents),
              copay_applied: centsToAmount(t.copayCents),
              coinsurance_applied: centsToAmount(t.coinsuranceCents),
            },
          });
        }
      }
    })
    .immediate();
}
