// Claim submission and the claim response (docs/api.md "POST /v1/claims/submit/" and
// "GET /v1/claims/{submission_id}/response/"). One claim is one encounter and one ledger entry
// (docs/money-rules.md "Adjudication"). Adjudication is decided at submission, in the same transaction that
// records the claim, and revealed when the engine clock reaches its ready time.
import {
  adjudicate,
  BUNDLE_EPISODE_DAYS,
  claimFeeKind,
  claimServiceDate,
  DENIAL,
  paidLines as linesPaid,
  lineProviderNpi,
  planYearOf,
  shiftDate,
  type Adjudication,
  type ContractTerms,
  type LinePayee,
  type PlanBenefits,
  type PriorLine,
} from '../../domain/adjudication.js';
import { linesDigest } from '../../domain/audit-deep.js';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import { parseClaimText, type ParsedClaim, type ProviderRole } from '../../domain/fhir-claim.js';
import { centsToAmount, formatCentsGrouped } from '../../domain/money.js';
import { isoDate, isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { withIdempotency } from '../idempotency.js';
import { fhirId, newId } from '../ids.js';
import { activeContractsFor, contractById, contractTerms, type ContractRow } from '../store/contracts.js';
import { inWriteTransaction, type Db } from '../store/db.js';
import { perSchemaVersion } from '../store/reference.js';
import { adjudicationBody, claimResponseResource } from './claim-response.js';
import { advanceDue } from './progress.js';
import { addFirstHistory, addHistory, addStatus, finalLedgerStatus, type EncounterRow, type HistoryEntry } from './encounters.js';
import type { LedgerStatus } from '../../domain/ledger.js';

interface MemberRow {
  member_id: string;
  name: string;
  plan_id: string;
  coverage_start: string;
  coverage_end: string | null;
  deductible_cents: number;
  copay_cents: number;
  coinsurance_percent: number;
  plan_year_start: string;
  /** What every plan year starts with, met before any claim on this engine (the fixtures' figure). */
  deductible_met_cents: number;
  /** The deductible met by claims so far, by plan year, as a JSON object. */
  met_json: string;
}

export function submitClaim(ctx: EngineContext, req: EngineRequest): EngineResponse {
  return inWriteTransaction(ctx.db, () => {
    // Parsed inside the transaction, whose clock reads the latest time recorded once: a read of it
    // outside would take a read snapshot of its own (docs/numbers.md "The claim path").
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

interface ProviderFacts {
  role: ProviderRole;
  groupId: string;
  /** Holds a direct contract (any): stands for valid banking details with the processor. */
  payable: boolean;
}

/**
 * The providers registry with whether each holds a contract, per connection. Providers and
 * contracts are only ever added by a migration's seed, so it is kept as store/reference.ts keeps
 * the plan's names: a claim then costs one pragma read instead of a query.
 */
const providerRegistry = perSchemaVersion((db): ReadonlyMap<string, ProviderFacts> => {
  const rows = db.prepare('SELECT npi, role, group_id, EXISTS (SELECT 1 FROM contracts c WHERE c.npi = p.npi) AS payable FROM providers p').all() as {
    npi: string;
    role: ProviderRole;
    group_id: string;
    payable: number;
  }[];
  return new Map(rows.map((r) => [r.npi, { role: r.role, groupId: r.group_id, payable: r.payable === 1 }]));
});

type ActiveContract = ReturnType<typeof activeContractsFor>[number];

interface ClaimPayees {
  payees: LinePayee[];
  /** The contracts of each line's payee in force on its date in the claim's network group, best first. */
  candidates: (readonly ActiveContract[])[];
}

/**
 * Who is paid for each line (docs/money-rules.md "Payees"). The engine's providers
 * holding a direct contract stand for the parties the processor can pay (docs/api.md: valid banking
 * details); a care-team NPI the engine does not know cannot be paid, and money is never routed to
 * an unknown party: the claim is refused naming the entry. A known provider without any contract is
 * paid through the billing provider; any other line is paid to its own provider, in its role (the
 * line's fee kind), under its own contract in force on the line's date in the claim's network group
 * (the billing provider's group): a payee other than the billing provider without one is not
 * eligible (CARC-B7).
 */
function linePayees(db: Db, claim: ParsedClaim): ClaimPayees {
  const facts = providerRegistry(db);
  const errors: FieldError[] = [];
  claim.careTeam.forEach((member, i) => {
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
  const claimKind = claimFeeKind(claim);
  const npis = claim.lines.map((line) => {
    const own = lineProviderNpi(claim, line);
    return own === billing || facts.get(own)!.payable ? own : billing;
  });
  // The codes each payee bills on the claim: its contract covering most of them is chosen first.
  const codesOf = new Map<string, string[]>();
  claim.lines.forEach((line, i) => {
    const codes = codesOf.get(npis[i]!) ?? [];
    if (!codes.includes(line.cptCode)) codes.push(line.cptCode);
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
  const payees = npis.map((npi, i): LinePayee => ({ npi, feeKind: facts.get(npi)?.role ?? claimKind, eligible: npi === billing || candidates[i]!.length > 0 }));
  return { payees, candidates };
}

/**
 * The contract pricing each line: its payee's own, in force on the line's date in the claim's
 * network group, whose rates that date cover its code (the one covering most of the payee's codes
 * on the claim first, then the newest, then by id). Terms are read per contract and date, as the
 * rates in force may differ from one date to another.
 */
function contractsPerLine(claim: ParsedClaim, p: ClaimPayees): { rows: (ContractRow | null)[]; terms: (ContractTerms | null)[] } {
  const terms = new Map<string, ContractTerms>();
  const picked = claim.lines.map((line, i) => (p.payees[i]!.eligible ? (p.candidates[i]!.find((c) => c.covered.includes(line.cptCode)) ?? null) : null));
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

type PaidLineRow = {
  encounter_id: string;
  provider_npi: string;
  fee_kind: ProviderRole;
  cpt_code: string;
  service_date: string;
  contract_id: string;
  episode_start: string | null;
  allowed_cents: number;
  includes_anesthesia: number;
  anesthesia_deducted_cents: number;
};
const PAID_LINE_COLUMNS =
  'encounter_id, provider_npi, fee_kind, cpt_code, service_date, contract_id, episode_start, allowed_cents, includes_anesthesia, anesthesia_deducted_cents';
const toPrior = (r: PaidLineRow): PriorLine => ({
  encounterId: r.encounter_id,
  providerNpi: r.provider_npi,
  feeKind: r.fee_kind,
  cptCode: r.cpt_code,
  serviceDate: r.service_date,
  contractId: r.contract_id,
  episodeStart: r.episode_start,
  allowedCents: r.allowed_cents,
  includesAnesthesia: r.includes_anesthesia === 1,
  anesthesiaDeductedCents: r.anesthesia_deducted_cents,
});

/**
 * The member with their plan's benefits and the deductible met so far. Two lookups by primary key,
 * not one join: in a join's WHERE, SQLite's constant propagation takes a bound parameter
 * (`m.member_id = ?`) for a constant and marks the statement to be compiled again whenever that
 * parameter's value changes, and better-sqlite3 binds anew on every run, so the joined statement was
 * compiled again for every claim (what that cost: docs/numbers.md "The claim path").
 */
function memberOf(db: Db, memberId: string): MemberRow | undefined {
  const member = db
    .prepare(
      `SELECT member_id, name, plan_id, coverage_start, coverage_end, deductible_met_cents,
         (SELECT json_group_object(plan_year, met_cents) FROM member_deductibles d WHERE d.member_id = m.member_id) AS met_json
       FROM members m WHERE member_id = ?`,
    )
    .get(memberId) as Omit<MemberRow, 'deductible_cents' | 'copay_cents' | 'coinsurance_percent' | 'plan_year_start'> | undefined;
  if (!member) return undefined;
  const plan = db.prepare('SELECT deductible_cents, copay_cents, coinsurance_percent, plan_year_start FROM plans WHERE id = ?').get(member.plan_id) as
    | Pick<MemberRow, 'deductible_cents' | 'copay_cents' | 'coinsurance_percent' | 'plan_year_start'>
    | undefined;
  // members.plan_id references plans (migration 1): the inner join dropped a member without a plan.
  return plan && { ...member, ...plan };
}

function recordClaim(ctx: EngineContext, claim: ParsedClaim): EngineResponse {
  const { db } = ctx;
  const member = memberOf(db, claim.memberId);
  if (!member) {
    throw new HttpError(400, { errors: [{ field: 'patient.reference', message: `no member "${claim.memberId}" is enrolled with the plan` }] });
  }
  const payees = linePayees(db, claim);
  const serviceDate = claimServiceDate(claim);
  const lineContracts = contractsPerLine(claim, payees);
  // The encounter's contract: the billing provider's that prices a line, else the first line's.
  const chosen = lineContracts.rows.find((row) => row !== null && row.npi === claim.providerNpi) ?? lineContracts.rows.find((row) => row !== null);
  const codes = [...new Set(claim.lines.map((l) => l.cptCode))];
  const dates = [...new Set(claim.lines.map((l) => l.serviceDate))].sort();
  if (!chosen) {
    return respond(404, {
      error: 'no_active_contract',
      message: `No active contract for provider ${claim.providerNpi} covers ${codes.join(', ')} on ${dates.join(', ')}`,
      provider_npi: claim.providerNpi,
      cpt_codes: codes,
    });
  }
  const lastDate = dates.at(-1)!;
  // mutation: no survivors (the duplicate rule: the paid lines read)
  // The member's paid lines from the claim's first date to its last: of the claim's codes (the
  // adjudication matches each line's own date and fee kind), and the anesthesia fees and the lines
  // including anesthesia (the anesthesia-included rule).
  const paidLines = (
    db
      .prepare(
        `SELECT ${PAID_LINE_COLUMNS} FROM paid_lines
         WHERE member_id = ? AND service_date BETWEEN ? AND ?
           AND (cpt_code IN (SELECT value FROM json_each(?)) OR fee_kind = 'ANESTHESIA' OR includes_anesthesia = 1)`,
      )
      .all(member.member_id, serviceDate, lastDate, JSON.stringify(codes)) as PaidLineRow[]
  ).map(toPrior);
  // mutation: end
  const bundleLines: PriorLine[] = [];
  const bundleContracts = new Map<string, ContractTerms>();
  for (const terms of lineContracts.terms) if (terms?.rateType === 'BUNDLE') bundleContracts.set(terms.id, terms);
  for (const terms of bundleContracts.values()) {
    const span = BUNDLE_EPISODE_DAYS[terms.bundleType ?? 'PACKAGE'];
    const rows = db
      .prepare(`SELECT ${PAID_LINE_COLUMNS} FROM paid_lines WHERE member_id = ? AND contract_id = ? AND episode_start BETWEEN ? AND ?`)
      .all(member.member_id, terms.id, shiftDate(serviceDate, -(span - 1)), shiftDate(lastDate, span - 1)) as PaidLineRow[];
    bundleLines.push(...rows.map(toPrior));
  }
  const byClaims = JSON.parse(member.met_json) as Record<string, number>;
  const metIn = (year: string) => member.deductible_met_cents + (byClaims[year] ?? 0);
  const planYears = [...new Set(claim.lines.map((l) => planYearOf(l.serviceDate, member.plan_year_start)))];
  const benefits: PlanBenefits = {
    deductibleCents: member.deductible_cents,
    deductibleMetCents: metIn(planYearOf(serviceDate, member.plan_year_start)),
    deductibleMetByPlanYear: Object.fromEntries(planYears.map((y) => [y, metIn(y)])),
    planYearStart: member.plan_year_start,
    copayCents: member.copay_cents,
    coinsurancePercent: member.coinsurance_percent,
    coverageStart: member.coverage_start,
    coverageEnd: member.coverage_end,
  };
  const adjudication = adjudicate({ claim, lineContracts: lineContracts.terms, linePayees: payees.payees, benefits, paidLines, bundleLines });

  const now = ctx.clock.now();
  const submittedAt = isoSeconds(now);
  const readyAt = isoSeconds(new Date(now.getTime() + ctx.adjudicationDelayMs));
  // With no adjudication delay the claim is revealed now: the row is written in its final state at
  // once, as the next request would have completed it (one write of each page instead of two).
  const dueNow = readyAt <= submittedAt;
  const finalStatus = finalLedgerStatus(adjudication.disposition);
  // Only a claim that goes on to adjudication passes through PROCESSING (docs/money-rules.md "The ledger":
  // SUBMITTED → PENDED and SUBMITTED → DENIED are direct).
  const progression: { status: LedgerStatus; timestamp: string }[] = [{ status: 'SUBMITTED', timestamp: submittedAt }];
  if (finalStatus === 'ADJUDICATED') progression.push({ status: 'PROCESSING', timestamp: submittedAt });
  if (dueNow) progression.push({ status: finalStatus, timestamp: readyAt });
  const encounterId = newId('enc_');
  const submissionId = newId('sub_');
  const claimResponseId = fhirId(newId('cr-'));
  // Encounters are never deleted, so the next rowid numbers them (COUNT(*) would scan the ledger).
  const sequence = db.prepare('SELECT COALESCE(MAX(rowid), 0) + 1 FROM encounters').pluck().get() as number;
  const encounterNumber = `ENC-${serviceDate.slice(0, 4)}-${String(sequence).padStart(6, '0')}`;
  // The fingerprint column is left empty: duplicates are found line by line in paid_lines (migration 7).
  // Bound by position: better-sqlite3 looks each named parameter up on the object by name, which
  // costs a claim more than the same values in order (docs/numbers.md "The claim path").
  db.prepare(
    `INSERT INTO encounters (id, ledger_id, encounter_number, submission_id, contract_id, member_id, provider_npi, claim_type,
       service_date, submitted_at, ready_at, completed_at, status, disposition, fingerprint, claim_response_id, aeob_reference,
       processor_trace_id, claim_json, outcome_json, benefits_json, first_cpt_code, charge_cents, allowed_cents, deductible_cents, copay_cents,
       coinsurance_cents, patient_cents, benefit_cents, progression_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    encounterId, // id
    newId('led_'), // ledger_id
    encounterNumber, // encounter_number
    submissionId, // submission_id
    chosen.id, // contract_id
    member.member_id, // member_id
    claim.providerNpi, // provider_npi
    claim.type, // claim_type
    serviceDate, // service_date
    submittedAt, // submitted_at
    readyAt, // ready_at
    dueNow ? readyAt : null, // completed_at
    progression.at(-1)!.status, // status
    adjudication.disposition, // disposition
    // fingerprint: ''
    claimResponseId, // claim_response_id
    `AEOB-${encounterNumber.slice(4)}`, // aeob_reference
    // The processor's transfer id is assigned at adjudication and used by the funding transfer.
    newId('tr_'), // processor_trace_id
    JSON.stringify(claim), // claim_json
    JSON.stringify(adjudication), // outcome_json
    JSON.stringify(benefits), // benefits_json
    claim.lines[0]!.cptCode, // first_cpt_code
    adjudication.totals.chargeCents, // charge_cents
    adjudication.totals.allowedCents, // allowed_cents
    adjudication.totals.deductibleCents, // deductible_cents
    adjudication.totals.copayCents, // copay_cents
    adjudication.totals.coinsuranceCents, // coinsurance_cents
    adjudication.totals.patientResponsibilityCents, // patient_cents
    adjudication.totals.benefitCents, // benefit_cents
    JSON.stringify(progression), // progression_json
  );
  const providerRow = db.prepare('INSERT OR IGNORE INTO encounter_providers (encounter_id, npi) VALUES (?, ?)');
  for (const npi of new Set([claim.providerNpi, ...claim.careTeam.map((m) => m.npi)])) providerRow.run(encounterId, npi);
  // mutation: no survivors (the duplicate rule: the paid lines written)
  // A line counts as paid, and the member's deductible toward later claims of its plan year, from
  // the moment the claim is accepted (the adjudication is decided now and revealed later). A line
  // allowed 0.00 was not paid: it makes no later line a duplicate.
  const paidLine = db.prepare(
    `INSERT INTO paid_lines (encounter_id, sequence, member_id, provider_npi, fee_kind, cpt_code, service_date, contract_id, episode_start,
       allowed_cents, includes_anesthesia, anesthesia_deducted_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const deductibleByYear = new Map<string, number>();
  const paid = linesPaid(adjudication.lines);
  for (const [i, line] of adjudication.lines.entries()) {
    if (line.status !== 'ALLOWED') continue;
    const deducted = line.anesthesiaDeductedCents ?? 0;
    if (paid[i]) {
      paidLine.run(
        encounterId,
        line.sequence,
        member.member_id,
        line.providerNpi,
        payees.payees[i]!.feeKind,
        line.cptCode,
        line.serviceDate,
        line.contractId,
        line.episodeStart,
        line.allowedCents,
        line.includesAnesthesia ? 1 : 0,
        deducted,
      );
    }
    const year = planYearOf(line.serviceDate, member.plan_year_start);
    deductibleByYear.set(year, (deductibleByYear.get(year) ?? 0) + line.deductibleCents);
  }
  // mutation: end
  const addMet = db.prepare(
    'INSERT INTO member_deductibles (member_id, plan_year, met_cents) VALUES (?, ?, ?) ON CONFLICT (member_id, plan_year) DO UPDATE SET met_cents = met_cents + excluded.met_cents',
  );
  for (const [year, cents] of deductibleByYear) if (cents > 0) addMet.run(member.member_id, year, cents);

  const t = adjudication.totals;
  const history: HistoryEntry[] = [
    {
      type: 'SUBMISSION',
      timestamp: submittedAt,
      reference: submissionId,
      // The claim accepted with its adjudication (decided now, shown when due).
      audit: {
        disposition: adjudication.disposition,
        charge_cents: t.chargeCents,
        allowed_cents: t.allowedCents,
        patient_cents: t.patientResponsibilityCents,
        benefit_cents: t.benefitCents,
        lines_sha256: linesDigest(adjudication.lines),
      },
      description: `${claim.type === 'institutional' ? 'Institutional' : 'Professional'} claim submitted via the API: ${claim.lines.length} line${claim.lines.length === 1 ? '' : 's'}, charges ${formatCentsGrouped(claim.totalChargeCents)}`,
    },
    {
      type: 'VALIDATION',
      timestamp: submittedAt,
      reference: chosen.id,
      description: validationText(chosen.contract_number, member, adjudication),
    },
  ];
  if (dueNow) history.push(revealEntry(adjudication, claimResponseId, readyAt));
  addFirstHistory(db, encounterId, history);

  return respond(201, {
    submission_id: submissionId,
    external_claim_id: encounterId,
    status: 'ACKNOWLEDGED',
    message: `Claim received for asynchronous adjudication; poll GET /tpa-api/v1/claims/${submissionId}/response/`,
  });
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
    ...(raw
      ? { claim_response: claimResponseResource(row, JSON.parse(row.claim_json) as ParsedClaim, adjudication, contractById(ctx.db, row.contract_id)) }
      : {}),
    adjudication: adjudicationBody(adjudication),
    aeob_reference: row.aeob_reference,
    processor_trace_id: row.processor_trace_id,
    completed_at: row.completed_at,
  });
}

/** The history entry that reveals an adjudication at its ready time. */
function revealEntry(adjudication: Adjudication, claimResponseId: string, at: string): HistoryEntry {
  const status = finalLedgerStatus(adjudication.disposition);
  if (status === 'DENIED')
    return { type: 'DENIED', timestamp: at, reference: adjudication.denialCode, description: `Claim denied: ${adjudication.denialReason}` };
  if (status === 'PENDED')
    return { type: 'PENDED', timestamp: at, reference: adjudication.pendReason, description: 'Waiting for a preauthorization reference from the provider' };
  const t = adjudication.totals;
  return {
    type: 'ADJUDICATION',
    timestamp: at,
    reference: claimResponseId,
    description: `Claim adjudicated: ${adjudication.disposition}, allowed ${formatCentsGrouped(t.allowedCents)}, benefit ${formatCentsGrouped(t.benefitCents)}`,
    financialImpact: {
      benefit_amount: centsToAmount(t.benefitCents),
      copay_applied: centsToAmount(t.copayCents),
      coinsurance_applied: centsToAmount(t.coinsuranceCents),
    },
  };
}

/** Completes every adjudication whose ready time the engine clock has reached. */
export function completeDueClaims(ctx: EngineContext): void {
  const now = isoSeconds(ctx.clock.now());
  const due = ctx.db
    .prepare('SELECT id, ready_at, claim_response_id, outcome_json FROM encounters WHERE completed_at IS NULL AND ready_at <= ? ORDER BY ready_at, rowid')
    .all(now) as Pick<EncounterRow, 'id' | 'ready_at' | 'claim_response_id' | 'outcome_json'>[];
  if (due.length === 0) return;
  inWriteTransaction(ctx.db, () => {
    for (const row of due) {
      const changed = ctx.db.prepare('UPDATE encounters SET completed_at = ready_at, status = ? WHERE id = ? AND completed_at IS NULL');
      const adjudication = JSON.parse(row.outcome_json) as Adjudication;
      const status = finalLedgerStatus(adjudication.disposition);
      // Another process may have completed it between the read and this write.
      if (changed.run(status, row.id).changes === 0) continue;
      addStatus(ctx.db, row.id, status, row.ready_at);
      addHistory(ctx.db, row.id, revealEntry(adjudication, row.claim_response_id, row.ready_at));
    }
  });
}
