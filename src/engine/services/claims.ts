// Claim submission and the claim response (docs/api-routes.md "POST /v1/claims/submit/" and
// "GET /v1/claims/{submission_id}/response/"). One claim is one encounter and one ledger entry
// (docs/money-rules.md "Adjudication"). Adjudication is decided at submission, in the same transaction that
// records the claim, and revealed when the engine clock reaches its ready time.
import {
  adjudicate,
  BUNDLE_EPISODE_DAYS,
  claimServiceDate,
  DENIAL,
  paidLines as linesPaid,
  planYearOf,
  shiftDate,
  type Adjudication,
  type ContractTerms,
  type LineAdjudication,
  type LinePayee,
  type PlanBenefits,
  type PriorLine,
} from '../../domain/adjudication.js';
import { linesDigest, outcomeDigest } from '../../domain/audit-deep.js';
import { contractRate } from '../../domain/contract-rates.js';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import { clip } from '../../domain/validation.js';
import { parseClaimText, type ParsedClaim } from '../../domain/fhir-claim.js';
import { isClosedStatus, sentAgain, type ClaimIdentity, type LedgerStatus } from '../../domain/ledger.js';
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { lineFeeKind, linePayeeNpi } from '../../domain/payee.js';
import { isoDate, isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { withIdempotency } from '../idempotency.js';
import { fhirId, newId } from '../ids.js';
import { activeContractsFor, contractById, contractTerms, type ContractRow } from '../store/contracts.js';
import { inDiscardedTransaction, inWriteTransaction, type Db } from '../store/db.js';
import {
  addEncounterProviders,
  closeEncounter,
  encounterById,
  encounterByNumber,
  encounterBySubmission,
  historyOf,
  insertEncounter,
  nextEncounterSequence,
  pendedNotSuperseded,
  type EncounterRow,
} from '../store/encounters.js';
import { anyPendedOn } from '../store/ledger.js';
import { addDeductibleMet, memberWithBenefits, type MemberRow } from '../store/members.js';
import { deletePaidLines, episodeLines, insertIncludedDay, insertPaidLine, paidLinesOfCodes, visitCopaysTaken } from '../store/paid-lines.js';
import { providerRegistry } from '../store/providers.js';
import { settlementsOf } from '../store/settlements.js';
import { adjudicationBody, claimResponseResource } from './claim-response.js';
import { resolvePatient } from './dependents.js';
import { addFirstHistory, addHistory, finalLedgerStatus, type HistoryEntry } from './encounters.js';
import { advanceDue } from './progress.js';
import { revealEntry } from './reveal.js';
import { transferStands } from './settlement.js';

export function submitClaim(ctx: EngineContext, req: EngineRequest): EngineResponse {
  return inWriteTransaction(ctx.db, () => {
    // Parsed inside the transaction, whose clock reads the latest time recorded once: a read of it
    // outside would take a read snapshot of its own (docs/numbers-history.md "The claim path").
    let claim: ParsedClaim;
    try {
      claim = parseClaimText(req.body ?? '', { today: isoDate(ctx.clock.now()), depthChecked: req.depthChecked });
    } catch (err) {
      if (err instanceof ValidationError) throw new HttpError(400, { errors: err.errors });
      throw err;
    }
    // The route advances itself (routes.ts): what the clock made due is moved first, in this transaction.
    advanceDue(ctx);
    return withIdempotency(ctx, 'claims.submit', req, () => recordClaim(ctx, claim));
  });
}

/**
 * What submitting the claim would do, with nothing kept: the claim parsed, recorded and adjudicated
 * as `submitClaim` does, in a transaction rolled back at the end (`claim validate` on the embedded
 * engine). The answer is the submission's when it is refused (400, 404), else the claim response it
 * would get (disposition, lines and their reasons), adjudicated at once.
 */
export function checkClaim(ctx: EngineContext, text: string): EngineResponse {
  return inDiscardedTransaction(ctx.db, () => {
    let claim: ParsedClaim;
    try {
      claim = parseClaimText(text, { today: isoDate(ctx.clock.now()) });
    } catch (err) {
      if (err instanceof ValidationError) return respond(400, { errors: err.errors });
      throw err;
    }
    advanceDue(ctx);
    const now = { ...ctx, adjudicationDelayMs: 0 };
    let ack: EngineResponse;
    try {
      ack = recordClaim(now, claim);
    } catch (err) {
      if (err instanceof HttpError) return respond(err.status, err.body);
      throw err;
    }
    if (ack.status !== 201) return ack;
    const submissionId = (ack.body as { submission_id: string }).submission_id;
    const read: EngineRequest = { method: 'GET', path: '', query: new URLSearchParams(), headers: {}, body: undefined };
    const answer = claimResponse(now, read, { submission_id: submissionId });
    // Each line's outcome, with its reason, as the claim response's items say it.
    // A void makes no encounter: the answer is the voided claim's, whose lines it does not judge.
    const row = (ack.body as { status: string }).status === 'VOIDED' ? undefined : encounterBySubmission(ctx.db, submissionId);
    const lines = row
      ? (JSON.parse(row.outcome_json) as Adjudication).lines.map((l) => ({
          sequence: l.sequence,
          cpt_code: l.cptCode === '' ? null : l.cptCode,
          status: l.status,
          reason_code: l.reasonCode,
          reason: l.reason ?? Object.values(DENIAL).find((d) => d.code === l.reasonCode)?.reason ?? null,
          ...(l.remarkCodes ? { remark_codes: l.remarkCodes } : {}),
          benefit_amount: centsToAmount(l.benefitCents),
        }))
      : [];
    return respond(answer.status, { ...(answer.body as Record<string, unknown>), lines });
  });
}

type ActiveContract = ReturnType<typeof activeContractsFor>[number];

interface ClaimPayees {
  /** The claim's network group: the billing provider's, when it is in the network. */
  groupId: string | undefined;
  payees: LinePayee[];
  /** The contracts of each line's payee in force on its date in the claim's network group, best first. */
  candidates: (readonly ActiveContract[])[];
}

/**
 * Who is paid for each line (docs/money-rules.md "Payees"). The engine's providers
 * holding a direct contract stand for the parties the processor can pay (docs/api.md: valid banking
 * details); a care-team NPI the engine does not know cannot be paid, and money is never routed to
 * an unknown party: the claim is refused naming the entry. A known provider without any contract is
 * paid through the billing provider; any other line is paid to its own provider, under its own
 * contract in force on the line's date in the claim's network group (the billing provider's group):
 * a payee other than the billing provider without one is not eligible (CARC-B7). The line's fee kind
 * is its renderer's role either way (lineFeeKind).
 */
function linePayees(db: Db, claim: ParsedClaim): ClaimPayees {
  const facts = providerRegistry(db);
  const errors: FieldError[] = [];
  // Only a line's payee (the care-team member its careTeamSequence names first) is ever paid: one no
  // line names (an attending physician from outside the plan) is not refused (docs/x12.md).
  const named = new Set(claim.lines.map((l) => l.careTeamSequences[0]));
  claim.careTeam.forEach((member, i) => {
    if (!named.has(member.sequence)) return;
    // The billing provider is paid through its own contract (without one the claim is a 404).
    if (member.npi !== claim.providerNpi && !facts.has(member.npi))
      errors.push({ field: `careTeam[${i}].provider`, message: `NPI ${member.npi} is not a provider known to the plan; it cannot be paid` });
  });
  if (errors.length > 0) throw new HttpError(400, { errors });
  const billing = claim.providerNpi;
  // The claim's network group is the billing provider's, when it is in the network: known to the
  // registry and holding a contract. A billing provider outside it (an NPI the plan does not know,
  // a provider without banking details) has no group its care team could be paid in: its care
  // team's lines are not eligible (CARC-B7), and its own have no contract, so the claim is a 404.
  const billingFacts = facts.get(billing);
  const groupId = billingFacts?.payable ? billingFacts.groupId : undefined;
  // Every care-team NPI is known by now (refused above otherwise).
  const npis = claim.lines.map((line) => linePayeeNpi(claim, line, (own) => facts.get(own)!.payable));
  // The codes each payee bills on the claim: its contract covering most of them is chosen first.
  const codesOf = new Map<string, string[]>();
  claim.lines.forEach((line, i) => {
    const codes = codesOf.get(npis[i]!) ?? [];
    // A line tpa does not price (HCPCS Level II, a revenue code alone) chooses no contract.
    if (line.unpriced === undefined && !codes.includes(line.cptCode)) codes.push(line.cptCode);
    codesOf.set(npis[i]!, codes);
  });
  const inForce = new Map<string, readonly ActiveContract[]>();
  const candidates = claim.lines.map((line, i) => {
    const npi = npis[i]!;
    const key = `${npi}|${line.serviceDate}`;
    let list = inForce.get(key);
    if (!list) {
      // Outside the network there is no contract to pay under (groupId above).
      list = (groupId === undefined ? [] : activeContractsFor(db, npi, line.serviceDate, codesOf.get(npi)!, groupId)).sort(
        // Stable: contracts come newest first, then by id (contractsOfProvider), among those covering as many.
        (a, b) => b.covered.length - a.covered.length,
      );
      inForce.set(key, list);
    }
    return list;
  });
  // The fee kind is the renderer's role, not the payee's: a surgeon paid through the facility still
  // renders a surgeon's fee (docs/money-rules.md "Duplicates"). The payee's own role, where it
  // differs, is kept for the anesthesia rule (isAnesthesiaFee).
  const payees = npis.map((npi, i): LinePayee => {
    const feeKind = lineFeeKind(claim, claim.lines[i]!, (own) => facts.get(own)?.role);
    const role = facts.get(npi)?.role;
    return { npi, feeKind, ...(role !== undefined && role !== feeKind ? { payeeRole: role } : {}), eligible: npi === billing || candidates[i]!.length > 0 };
  });
  return { groupId, payees, candidates };
}

/**
 * The contract pricing each line: its payee's own, in force on the line's date in the claim's
 * network group, whose rates that date cover its code (the one covering most of the payee's codes
 * on the claim first, then the newest, then by id). Terms are read per contract and date, as the
 * rates in force may differ from one date to another.
 */
function contractsPerLine(claim: ParsedClaim, p: ClaimPayees): { rows: (ContractRow | null)[]; terms: (ContractTerms | null)[] } {
  const terms = new Map<string, ContractTerms>();
  const picked = claim.lines.map((line, i) =>
    p.payees[i]!.eligible && line.unpriced === undefined ? (p.candidates[i]!.find((c) => c.covered.includes(line.cptCode)) ?? null) : null,
  );
  const termsOf = (c: ActiveContract, date: string) => {
    const key = `${c.contract.id}|${date}`;
    let t = terms.get(key);
    if (!t) {
      t = contractTerms(c.contract, c.rates);
      terms.set(key, t);
    }
    return t;
  };
  return {
    rows: picked.map((c) => c?.contract ?? null),
    terms: picked.map((c, i) => (c === null ? null : termsOf(c, claim.lines[i]!.serviceDate))),
  };
}

function recordClaim(ctx: EngineContext, sent: ParsedClaim): EngineResponse {
  const { db } = ctx;
  // A dependent named by name and birth date is paid under their own member id (docs/x12.md "A dependent patient").
  const claim = resolvePatient(db, sent);
  let member = memberWithBenefits(db, claim.memberId);
  if (!member) {
    throw new HttpError(400, { errors: [{ field: 'patient.reference', message: `no member "${claim.memberId}" is enrolled with the plan` }] });
  }
  // A claim addressed to another payer (an 837's NM1*PR) is not this plan's to pay, whoever the member is.
  if (claim.insurerIdentifier !== undefined && claim.insurerIdentifier !== member.payer_id) {
    const payer = member.payer_id;
    throw new HttpError(400, {
      errors: [
        {
          field: 'insurer.identifier',
          message: `is ${clip(claim.insurerIdentifier)}, not the payer of member ${member.member_id}’s plan (${payer}): tpa adjudicates claims addressed to ${payer} only (send it to its payer, or name ${payer} as the insurer)`,
        },
      ],
    });
  }
  // A corrected claim names the claim it changes: found, the same member's and billing provider's,
  // still open and not funded (refused otherwise). A void closes it and makes no encounter.
  const prior = claim.correction ? correctedClaim(db, claim, member) : undefined;
  if (prior && claim.correction?.kind === 'void') return voidClaim(ctx, prior, member);
  const payees = linePayees(db, claim);
  const serviceDate = claimServiceDate(claim);
  const lineContracts = contractsPerLine(claim, payees);
  // The encounter's contract: the billing provider's that prices a line, else the first line's;
  // a claim of lines tpa does not price alone (every one HCPCS Level II or a revenue code without
  // a procedure code) is adjudicated and denied under the billing provider's contract in force in
  // its group on the claim's service date, its earliest (docs/money-rules.md "Lines tpa does not price").
  const chosen =
    lineContracts.rows.find((row) => row !== null && row.npi === claim.providerNpi) ??
    lineContracts.rows.find((row) => row !== null) ??
    (claim.lines.every((l) => l.unpriced !== undefined) && payees.groupId !== undefined
      ? activeContractsFor(db, claim.providerNpi, serviceDate, [], payees.groupId)[0]?.contract
      : undefined);
  if (!chosen) {
    const codes = [...new Set(claim.lines.map((l) => l.cptCode || `revenue ${l.revenueCode}`))];
    const dates = [...new Set(claim.lines.map((l) => l.serviceDate))].sort();
    // Each line is priced under its payee's contract (the rendering provider's when it names one):
    // the message names whose contracts were looked for, not only the billing provider.
    const payeeNpis = [...new Set(payees.payees.map((p) => p.npi))];
    const whose =
      payeeNpis.length === 1 && payeeNpis[0] === claim.providerNpi
        ? `provider ${claim.providerNpi}`
        : `the lines' payees (${payeeNpis.join(', ')}; billing provider ${claim.providerNpi})`;
    return respond(404, {
      error: 'no_active_contract',
      message: `No active contract for ${whose} covers ${codes.join(', ')} on ${dates.join(', ')}`,
      provider_npi: claim.providerNpi,
      cpt_codes: codes,
    });
  }
  // A replacement is adjudicated as if the claim it replaces had never been paid: its lines leave
  // the paid lines (no duplicate of them) and its deductible leaves the member's (read again).
  if (prior) {
    releasePaidLines(db, prior, member);
    member = memberWithBenefits(db, member.member_id)!;
  }
  const benefits = planBenefits(member, claim, serviceDate);
  const adjudication = adjudicate({
    claim,
    lineContracts: lineContracts.terms,
    linePayees: payees.payees,
    benefits,
    ...priorLines(db, member.member_id, claim, lineContracts.terms),
    // The copay is per visit (member, billing provider, date of service), whatever the packing of visits into claims.
    visitCopays: member.copay_cents > 0 ? visitCopaysTaken(db, member.member_id, claim.providerNpi, [...new Set(claim.lines.map((l) => l.serviceDate))]) : {},
  });

  const now = ctx.clock.now();
  const submittedAt = isoSeconds(now);
  const readyAt = isoSeconds(new Date(now.getTime() + ctx.adjudicationDelayMs));
  // With no adjudication delay the claim is revealed now: the row is written in its final state at
  // once, as the next request would have completed it (one write of each page instead of two).
  const dueNow = readyAt <= submittedAt;
  const finalStatus = finalLedgerStatus(adjudication.disposition);
  // Only a claim that goes on to adjudication passes through PROCESSING (docs/money-funding.md "The ledger":
  // SUBMITTED → PENDED and SUBMITTED → DENIED are direct).
  const progression: { status: LedgerStatus; timestamp: string }[] = [{ status: 'SUBMITTED', timestamp: submittedAt }];
  if (finalStatus === 'ADJUDICATED') progression.push({ status: 'PROCESSING', timestamp: submittedAt });
  if (dueNow) progression.push({ status: finalStatus, timestamp: readyAt });
  const encounterId = newId('enc_');
  const submissionId = newId('sub_');
  const claimResponseId = fhirId(newId('cr-'));
  // A claim can send a pended one again only where one is pended: read before this claim counts in the day.
  const mayResend = anyPendedOn(db, claim.providerNpi, serviceDate);
  const encounterNumber = `ENC-${serviceDate.slice(0, 4)}-${String(nextEncounterSequence(db)).padStart(6, '0')}`;
  insertEncounter(db, {
    id: encounterId,
    ledgerId: newId('led_'),
    encounterNumber,
    submissionId,
    contractId: chosen.id,
    memberId: member.member_id,
    serviceDate,
    submittedAt,
    readyAt,
    completedAt: dueNow ? readyAt : null,
    status: progression.at(-1)!.status,
    claimResponseId,
    aeobReference: `AEOB-${encounterNumber.slice(4)}`,
    // The processor's transfer id is assigned at adjudication and used by the funding transfer.
    processorTraceId: newId('tr_'),
    claim,
    adjudication,
    benefits,
    progression,
  });
  addEncounterProviders(db, encounterId, new Set([claim.providerNpi, ...claim.careTeam.map((m) => m.npi)]));
  countAsPaid(db, encounterId, member, claim, adjudication, payees.payees);

  const history = acceptanceEntries(claim, adjudication, { submissionId, submittedAt, contract: chosen, member });
  if (dueNow) history.push(revealEntry(adjudication, claimResponseId, readyAt));
  // The claim a replacement names is closed first: it is SUPERSEDED, no pended claim this one
  // could send again (a pended original replaced is replaced, not sent again).
  if (prior) {
    history.push({
      type: 'REPLACES',
      timestamp: submittedAt,
      reference: prior.id,
      description: `Corrected claim: replaces claim ${prior.encounter_number}, which is superseded and will not be paid`,
    });
    closeEncounter(db, prior.id, 'SUPERSEDED', submittedAt);
    addHistory(db, prior.id, {
      type: 'REPLACED',
      timestamp: submittedAt,
      reference: encounterId,
      description: `Replaced by corrected claim ${encounterNumber}: this claim is superseded and will not be paid`,
      audit: { replaced_by: encounterId, status: 'SUPERSEDED' },
    });
  }
  const superseded = mayResend && supersedePended(db, claim, { encounterId, encounterNumber, memberId: member.member_id, serviceDate, at: submittedAt });
  if (superseded)
    history.push({
      type: 'SUPERSEDES',
      timestamp: submittedAt,
      reference: superseded.id,
      description: `Sends again pended claim ${superseded.encounter_number}, which it supersedes`,
    });
  addFirstHistory(db, encounterId, history);

  return respond(201, {
    submission_id: submissionId,
    external_claim_id: encounterId,
    status: 'ACKNOWLEDGED',
    message: `Claim received for asynchronous adjudication; poll GET /tpa-api/v1/claims/${submissionId}/response/`,
  });
}

/**
 * The claim a corrected claim replaces or voids (docs/money-funding.md "Corrected and void claims"),
 * by the payer's claim number tpa returned: its encounter id or its ENC number. Refused (400,
 * naming it) when no encounter has that number, when it is another member's or billing
 * provider's, when a corrected claim already replaced or voided it, and once money moved or may
 * move for it (a transfer initiated or completed): recovering paid money is not done by tpa yet.
 */
function correctedClaim(db: Db, claim: ParsedClaim, member: MemberRow): EncounterRow {
  const { kind, priorClaim } = claim.correction!;
  const field = 'related[0].claim.identifier.value';
  const what = kind === 'void' ? 'void' : 'replacement';
  const refuse = (message: string): never => {
    throw new HttpError(400, { errors: [{ field, message }] });
  };
  const prior = priorClaim.startsWith('enc_') ? encounterById(db, priorClaim) : encounterByNumber(db, priorClaim);
  if (!prior)
    return refuse(`is ${clip(priorClaim)}: no claim of that number is known to the plan (a ${what} names the encounter id or ENC number tpa returned)`);
  const name = `claim ${prior.encounter_number} (${prior.id})`;
  if (prior.member_id !== member.member_id || prior.provider_npi !== claim.providerNpi)
    return refuse(
      `names ${name}, which is not member ${member.member_id}’s claim from provider ${claim.providerNpi}: a ${what} changes the sender’s own claim for the same member`,
    );
  if (isClosedStatus(prior.status)) {
    const by = prior.status === 'SUPERSEDED' ? historyReference(db, prior.id, 'REPLACED') : null;
    return refuse(
      `names ${name}, which is already ${prior.status === 'SUPERSEDED' ? `superseded${by ? ` by ${by}` : ''}` : 'voided'}: ${prior.status === 'SUPERSEDED' ? 'send the correction against the claim that replaced it' : 'a voided claim is closed'}`,
    );
  }
  // A pended claim already sent again (the pended-resend rule) is as good as replaced: the
  // correction goes against the claim that sent it again.
  const resentBy = prior.status === 'PENDED' ? historyReference(db, prior.id, 'SUPERSEDED') : null;
  if (resentBy) {
    const resent = encounterById(db, resentBy);
    return refuse(
      `names ${name}, which is already superseded by ${resent ? `claim ${resent.encounter_number} (${resentBy})` : resentBy}, which sent the pended claim again: send the correction against that claim`,
    );
  }
  const funded = settlementsOf(db, prior.id).find(transferStands);
  if (funded)
    return refuse(
      `names ${name}, which is funded (transfer ${funded.processor_transfer_id}, ${funded.status}): a ${what} after funding is not taken, as recovery of paid money is not done by tpa yet`,
    );
  return prior;
}

/** The reference of an encounter's first history entry of a type (the other encounter of a link). */
function historyReference(db: Db, encounterId: string, type: string): string | null {
  return historyOf(db, encounterId).find((e) => e.type === type)?.reference ?? null;
}

/**
 * The lines of a claim a corrected claim replaces or voids no longer count as paid, and the
 * deductible it applied leaves the member's, by plan year (countAsPaid undone).
 */
function releasePaidLines(db: Db, prior: EncounterRow, member: MemberRow): void {
  deletePaidLines(db, prior.member_id, prior.id);
  for (const [year, cents] of deductibleByPlanYear(JSON.parse(prior.outcome_json) as Adjudication, member.plan_year_start))
    if (cents > 0) addDeductibleMet(db, member.member_id, year, -cents);
}

/**
 * A void (docs/money-funding.md "Corrected and void claims"): the claim it names is closed (VOIDED,
 * never payable), its lines and deductible released; no encounter is made. The answer names the
 * voided encounter and its submission, whose claim response then says VOIDED.
 */
function voidClaim(ctx: EngineContext, prior: EncounterRow, member: MemberRow): EngineResponse {
  const { db } = ctx;
  const at = isoSeconds(ctx.clock.now());
  releasePaidLines(db, prior, member);
  closeEncounter(db, prior.id, 'VOIDED', at);
  addHistory(db, prior.id, {
    type: 'VOIDED',
    timestamp: at,
    reference: null,
    description: `Voided by the provider: claim ${prior.encounter_number} is closed and will not be paid`,
    audit: { status: 'VOIDED' },
  });
  return respond(201, {
    submission_id: prior.submission_id,
    external_claim_id: prior.id,
    status: 'VOIDED',
    message: `Claim ${prior.encounter_number} (${prior.id}) voided: it is closed and will not be paid`,
  });
}

/**
 * A claim sent again for a pended one (docs/money-funding.md "The finance desk's report"): the
 * oldest pended encounter of the same member, billing provider and claim service date that it sends
 * again (domain/ledger.ts sentAgain) and that nothing superseded yet gets a SUPERSEDED entry naming
 * the new encounter; it stays PENDED, its pend acted on. Whatever the new claim's outcome: a claim
 * pended again supersedes the older pend too, so the service is pended once.
 */
function supersedePended(
  db: Db,
  claim: ParsedClaim,
  at: { encounterId: string; encounterNumber: string; memberId: string; serviceDate: string; at: string },
): Pick<EncounterRow, 'id' | 'encounter_number'> | undefined {
  const sent: ClaimIdentity = { ...claim, memberId: at.memberId };
  const pended = pendedNotSuperseded(db, at.memberId, claim.providerNpi, at.serviceDate, at.encounterId).find((p) => {
    // The services that waited for a preauthorization: the pended claim's PENDED lines.
    const waiting = (JSON.parse(p.outcome_lines) as LineAdjudication[]).filter((l) => l.status === 'PENDED');
    return sentAgain({ ...(JSON.parse(p.claim_json) as ParsedClaim), memberId: at.memberId, waiting }, sent);
  });
  if (!pended) return undefined;
  addHistory(db, pended.id, {
    type: 'SUPERSEDED',
    timestamp: at.at,
    reference: at.encounterId,
    description: `Sent again as ${at.encounterNumber}: this pended claim is superseded and needs nothing more`,
  });
  return pended;
}

/** The entries that record the claim's acceptance: its submission, with the adjudication decided now, and the contract it matched. */
function acceptanceEntries(
  claim: ParsedClaim,
  adjudication: Adjudication,
  at: { submissionId: string; submittedAt: string; contract: ContractRow; member: MemberRow },
): HistoryEntry[] {
  const t = adjudication.totals;
  return [
    {
      type: 'SUBMISSION',
      timestamp: at.submittedAt,
      reference: at.submissionId,
      // The claim accepted with its adjudication (decided now, shown when due).
      audit: {
        disposition: adjudication.disposition,
        charge_cents: t.chargeCents,
        allowed_cents: t.allowedCents,
        patient_cents: t.patientResponsibilityCents,
        benefit_cents: t.benefitCents,
        lines_sha256: linesDigest(adjudication.lines),
        // The whole adjudication as stored: a line's charge or share split edited in the file disagrees.
        outcome_sha256: outcomeDigest(adjudication),
        // Whose claim it is, who is paid and under which contract: an encounter moved to another
        // member, provider or contract behind the engine's back disagrees with its record.
        member_id: at.member.member_id,
        provider_npi: claim.providerNpi,
        contract_id: at.contract.id,
      },
      description: `${claim.type === 'institutional' ? 'Institutional' : 'Professional'} claim submitted via the API: ${claim.lines.length} line${claim.lines.length === 1 ? '' : 's'}, charges ${formatCentsGrouped(claim.totalChargeCents)}`,
    },
    {
      type: 'VALIDATION',
      timestamp: at.submittedAt,
      reference: at.contract.id,
      description: validationText(at.contract.contract_number, at.member, adjudication),
    },
  ];
}

/** The member's plan benefits for the claim, with the deductible met so far in each plan year its lines fall in. */
function planBenefits(member: MemberRow, claim: ParsedClaim, serviceDate: string): PlanBenefits {
  const byClaims = JSON.parse(member.met_json) as Record<string, number>;
  const metIn = (year: string) => member.deductible_met_cents + (byClaims[year] ?? 0);
  const planYears = [...new Set(claim.lines.map((l) => planYearOf(l.serviceDate, member.plan_year_start)))];
  return {
    deductibleCents: member.deductible_cents,
    deductibleMetCents: metIn(planYearOf(serviceDate, member.plan_year_start)),
    deductibleMetByPlanYear: Object.fromEntries(planYears.map((y) => [y, metIn(y)])),
    planYearStart: member.plan_year_start,
    copayCents: member.copay_cents,
    coinsurancePercent: member.coinsurance_percent,
    coverageStart: member.coverage_start,
    coverageEnd: member.coverage_end,
  };
}

/**
 * The member's lines paid before that the claim's lines are judged against: those from the claim's
 * first date to its last that a line may repeat (the duplicate and anesthesia rules), and those of
 * each bundle contract pricing a line whose episode could hold the claim's dates.
 */
function priorLines(
  db: Db,
  memberId: string,
  claim: ParsedClaim,
  terms: readonly (ContractTerms | null)[],
): { paidLines: PriorLine[]; bundleLines: PriorLine[] } {
  // Lines tpa does not price are never paid: no paid line of their codes can make them a duplicate.
  const codes = [...new Set(claim.lines.filter((l) => l.unpriced === undefined).map((l) => l.cptCode))];
  const dates = claim.lines.map((l) => l.serviceDate).sort();
  const first = dates[0]!;
  const last = dates.at(-1)!;
  // mutation: no survivors (the duplicate rule: the paid lines read)
  const paidLines = paidLinesOfCodes(db, memberId, first, last, codes);
  // mutation: end
  const bundleLines: PriorLine[] = [];
  const bundleContracts = new Map<string, ContractTerms>();
  for (const t of terms) if (t !== null && contractRate(t.rateType).byEpisode) bundleContracts.set(t.id, t);
  for (const t of bundleContracts.values()) {
    const span = BUNDLE_EPISODE_DAYS[t.bundleType ?? 'PACKAGE'];
    bundleLines.push(...episodeLines(db, memberId, t.id, shiftDate(first, -(span - 1)), shiftDate(last, span - 1)));
  }
  return { paidLines, bundleLines };
}

/**
 * A line counts as paid, and the member's deductible toward later claims of its plan year, from
 * the moment the claim is accepted (the adjudication is decided now and revealed later). A line
 * allowed 0.00 was not paid: it makes no later line a duplicate.
 */
function countAsPaid(db: Db, encounterId: string, member: MemberRow, claim: ParsedClaim, adjudication: Adjudication, payees: readonly LinePayee[]): void {
  // mutation: no survivors (the duplicate rule: the paid lines written)
  const paid = linesPaid(adjudication.lines);
  // Which line of which claim: the adjudication's lines are the claim's, in its order.
  const lineRow = (i: number, line: Adjudication['lines'][number]) => ({
    encounterId,
    sequence: line.sequence,
    memberId: member.member_id,
    providerNpi: line.providerNpi,
    feeKind: payees[i]!.feeKind,
    cptCode: line.cptCode,
    serviceDate: line.serviceDate,
    contractId: line.contractId,
    episodeStart: line.episodeStart,
    modifiers: claim.lines[i]!.modifiers ?? [],
  });
  for (const [i, line] of adjudication.lines.entries()) {
    if (line.status !== 'ALLOWED') continue;
    if (paid[i]) {
      insertPaidLine(db, {
        ...lineRow(i, line),
        allowedCents: line.allowedCents,
        copayCents: line.copayCents,
        includesAnesthesia: line.includesAnesthesia === true,
        anesthesiaDeductedCents: line.anesthesiaDeductedCents ?? 0,
      });
    }
  }
  // A bundle part included in an episode already paid: the episode holds its day (after this
  // claim's paid lines, so that an episode this claim paid is recorded).
  for (const [i, line] of adjudication.lines.entries()) {
    if (line.status !== 'BUNDLED' || line.episodeStart === null || line.contractId === null) continue;
    insertIncludedDay(db, { ...lineRow(i, line), includesAnesthesia: line.includesAnesthesia === true });
  }
  // mutation: end
  for (const [year, cents] of deductibleByPlanYear(adjudication, member.plan_year_start)) if (cents > 0) addDeductibleMet(db, member.member_id, year, cents);
}

/** The deductible a claim's allowed lines applied, by plan year: what it adds to the member's met, and a correction takes back. */
function deductibleByPlanYear(adjudication: Adjudication, planYearStart: string): Map<string, number> {
  const byYear = new Map<string, number>();
  for (const line of adjudication.lines) {
    if (line.status !== 'ALLOWED') continue;
    const year = planYearOf(line.serviceDate, planYearStart);
    byYear.set(year, (byYear.get(year) ?? 0) + line.deductibleCents);
  }
  return byYear;
}

function validationText(contractNumber: string, member: MemberRow, adjudication: Adjudication): string {
  const uncovered = [
    ...new Set(
      adjudication.lines
        .filter((l) => l.reasonCode === DENIAL.COVERAGE_NOT_STARTED.code || l.reasonCode === DENIAL.COVERAGE_TERMINATED.code)
        .map((l) => l.serviceDate),
    ),
  ];
  const covered = [...new Set(adjudication.lines.map((l) => l.serviceDate))].filter((d) => !uncovered.includes(d));
  const text = [`Contract ${contractNumber} matched`];
  if (covered.length > 0) text.push(`member ${member.member_id} covered on ${covered.sort().join(', ')}`);
  if (uncovered.length > 0) text.push(`member ${member.member_id} not covered on ${uncovered.sort().join(', ')}`);
  return text.join('; ');
}

export function claimResponse(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const submissionId = params.submission_id!;
  const row = encounterBySubmission(ctx.db, submissionId);
  if (!row) {
    return respond(404, { error: 'submission_not_found', submission_id: submissionId, message: `No claim submission ${submissionId}` });
  }
  // A claim a corrected claim replaced or voided: closed, whatever its adjudication said.
  if (isClosedStatus(row.status)) {
    const by = row.status === 'SUPERSEDED' ? historyReference(ctx.db, row.id, 'REPLACED') : null;
    return respond(200, {
      submission_id: submissionId,
      external_claim_id: row.id,
      status: row.status,
      disposition: row.status,
      ...(by ? { replaced_by: by } : {}),
      message:
        row.status === 'SUPERSEDED'
          ? `Claim ${row.encounter_number} was replaced by a corrected claim${by ? ` (${by})` : ''} and will not be paid`
          : `Claim ${row.encounter_number} was voided and will not be paid`,
      completed_at: row.completed_at,
    });
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
    ...(raw
      ? { claim_response: claimResponseResource(row, JSON.parse(row.claim_json) as ParsedClaim, adjudication, contractById(ctx.db, row.contract_id)) }
      : {}),
    adjudication: adjudicationBody(adjudication),
    aeob_reference: row.aeob_reference,
    processor_trace_id: row.processor_trace_id,
    completed_at: row.completed_at,
  });
}
