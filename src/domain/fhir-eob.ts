// The member's explanation of benefits: one FHIR R4 ExplanationOfBenefit per decided encounter, in
// the CARIN Blue Button profiles (docs/api-resources.md "Explanation of benefits"), made from what the ledger
// detail and the settlement record say, so a remote service and the embedded engine answer alike.
// Every amount is the ledger's to the cent; on each item and in the totals allowed = benefit +
// member liability, and the totals are the sums of the items and the ledger's own totals, or no EOB
// is made (an EobError says which amount disagrees).
import { DENIAL } from './adjudication.js';
import { CPT_SYSTEM, HCPCS_SYSTEM, ICD10_SYSTEM, NPI_SYSTEM, TEST_DATA_TAG } from './fhir-claim.js';
import { centsToAmount, jsonNumberToCents } from './money.js';

const HL7_ADJUDICATION = 'http://terminology.hl7.org/CodeSystem/adjudication';
const C4BB = 'http://hl7.org/fhir/us/carin-bb';
const C4BB_ADJUDICATION = `${C4BB}/CodeSystem/C4BBAdjudication`;
const C4BB_DISCRIMINATOR = `${C4BB}/CodeSystem/C4BBAdjudicationDiscriminator`;
const C4BB_STATUS = `${C4BB}/CodeSystem/C4BBPayerAdjudicationStatus`;
const CARC_SYSTEM = 'https://x12.org/codes/claim-adjustment-reason-codes';
const RARC_SYSTEM = 'https://x12.org/codes/remittance-advice-remark-codes';
/** tpa's own identifier systems: the member id, the payer id and the encounter id are tpa's (or its service's). */
export const MEMBER_SYSTEM = 'urn:tpa:member';
export const PAYER_SYSTEM = 'urn:tpa:payer';
export const ENCOUNTER_SYSTEM = 'urn:tpa:encounter';
export const TRANSFER_SYSTEM = 'urn:tpa:processor-transfer';

/** CARIN Blue Button 2.0.0 (STU2), whose profiles ask meta.profile for their canonical with its version. */
export const EOB_PROFILES = {
  professional: `${C4BB}/StructureDefinition/C4BB-ExplanationOfBenefit-Professional-NonClinician|2.0.0`,
  outpatient: `${C4BB}/StructureDefinition/C4BB-ExplanationOfBenefit-Outpatient-Institutional|2.0.0`,
  inpatient: `${C4BB}/StructureDefinition/C4BB-ExplanationOfBenefit-Inpatient-Institutional|2.0.0`,
} as const;

/** The encounter statuses of a decided claim: an EOB is written for these, and only these. */
export const DECIDED_STATUSES: ReadonlySet<string> = new Set(['ADJUDICATED', 'FUNDED', 'RECONCILED', 'DENIED']);

/** One service line as the ledger detail gives it (docs/api-resources.md "Ledger entry"); tpa's fields optional. */
export interface EobLedgerLine {
  sequence: number;
  cpt_code: string | null;
  cpt_description?: string | null;
  quantity: number;
  submitted_charge: number;
  allowed_amount: number | null;
  deductible_applied: number | null;
  copay_applied: number | null;
  coinsurance_applied: number | null;
  patient_responsibility: number | null;
  benefit_amount: number | null;
  status: string;
  denial_code?: string | null;
  remark_codes?: string[];
  modifiers?: string[];
  revenue_code?: string | null;
  unit_of_measure?: string | null;
  service_date?: string;
  provider_npi?: string;
  provider_name?: string;
}

export interface EobLedgerDetail {
  encounter: {
    id: string;
    encounter_number: string;
    status: string;
    service_date: string;
    submission_date: string;
    patient: { member_id: string; name: string | null; dob: string | null };
    provider: { npi: string; name: string };
    payer: { name: string; id: string };
    patient_control_number?: string | null;
    claim_type?: string;
    diagnosis_codes?: string[];
    facility_type_code?: string | null;
    test_data?: boolean;
    replaces?: string | null;
    replaced_by?: string | null;
  };
  entries: { type: string; timestamp: string; description: string }[];
  // biome-ignore lint/suspicious/noExplicitAny: the summary's amounts are read by name, each checked
  financial_summary: Record<string, any>;
  service_lines: EobLedgerLine[];
}

/** The encounter's latest transfer, as the settlement record gives it; null when none was made. */
export interface EobTransfer {
  processor_transfer_id: string;
  status: string;
  completed_at: string | null;
  refund_details?: { refunded_at: string } | null;
}

export class EobError extends Error {
  constructor(
    /** unusable: the answer lacks what an EOB needs; unbalanced: its amounts disagree; undecided: no decision yet. */
    readonly kind: 'unusable' | 'unbalanced' | 'undecided',
    message: string,
  ) {
    super(message);
    this.name = 'EobError';
  }
}

/**
 * The amount categories of each item and of the totals, in this order: the HL7 adjudication codes
 * where HL7 has one, CARIN's (C4BBAdjudication) for the others. `memberliability` is all the member
 * owes the provider; tpa never learns what the member paid, so `paidbypatient` is not written.
 */
const AMOUNTS = [
  ['submitted', HL7_ADJUDICATION],
  ['eligible', HL7_ADJUDICATION],
  ['deductible', HL7_ADJUDICATION],
  ['copay', HL7_ADJUDICATION],
  ['coinsurance', C4BB_ADJUDICATION],
  ['noncovered', C4BB_ADJUDICATION],
  ['memberliability', C4BB_ADJUDICATION],
  ['benefit', HL7_ADJUDICATION],
  ['paidtoprovider', C4BB_ADJUDICATION],
] as const;
type AmountCode = (typeof AMOUNTS)[number][0];
type Amounts = Record<AmountCode, number>;

const money = (cents: number) => ({ value: centsToAmount(cents), currency: 'USD' });
const coding = (system: string, code: string, display?: string) => ({ system, code, ...(display ? { display } : {}) });
const concept = (system: string, code: string, display?: string) => ({ coding: [coding(system, code, display)] });

/** A ledger amount in cents: null (not adjudicated, or denied) is 0.00; anything but a number of cents is unusable. */
function cents(value: unknown, what: string): number {
  if (value === null || value === undefined) return 0;
  const c = jsonNumberToCents(value);
  if (c === undefined) throw new EobError('unusable', `${what} is not an amount: ${JSON.stringify(value)}`);
  return c;
}

/** The line's amounts in cents; paid when the transfer that pays it has arrived. */
function lineAmounts(line: EobLedgerLine, paid: boolean): Amounts {
  const at = (field: keyof EobLedgerLine) => cents(line[field], `line ${line.sequence}'s ${field}`);
  const [deductible, copay, coinsurance] = [at('deductible_applied'), at('copay_applied'), at('coinsurance_applied')];
  const memberliability = at('patient_responsibility');
  const benefit = at('benefit_amount');
  const a: Amounts = {
    submitted: at('submitted_charge'),
    eligible: at('allowed_amount'),
    deductible,
    copay,
    coinsurance,
    // The member's share beyond copay, deductible and coinsurance (money-rules.md: patient
    // responsibility = copay + deductible + coinsurance + non-covered).
    noncovered: memberliability - deductible - copay - coinsurance,
    memberliability,
    benefit,
    paidtoprovider: paid ? benefit : 0,
  };
  if (a.noncovered < 0) throw new EobError('unbalanced', `line ${line.sequence}: copay, deductible and coinsurance exceed its patient responsibility`);
  if (a.eligible !== a.benefit + a.memberliability)
    throw new EobError(
      'unbalanced',
      `line ${line.sequence}: allowed ${centsToAmount(a.eligible)} is not benefit ${centsToAmount(a.benefit)} + patient responsibility ${centsToAmount(a.memberliability)}`,
    );
  return a;
}

/** The ledger's own totals, each compared with the sum of the lines (null: not adjudicated, every line 0.00). */
function checkTotals(summary: Record<string, unknown> | undefined, total: Amounts): void {
  // biome-ignore lint/suspicious/noExplicitAny: read by name, each value checked by cents()
  const s = (summary ?? {}) as Record<string, any>;
  const pr = s.patient_responsibility ?? {};
  const ledger: [AmountCode, unknown, string][] = [
    ['submitted', s.submitted_charges, 'submitted_charges'],
    ['eligible', s.allowed_amount, 'allowed_amount'],
    ['deductible', pr.deductible, 'patient_responsibility.deductible'],
    ['copay', pr.copay, 'patient_responsibility.copay'],
    ['coinsurance', pr.coinsurance, 'patient_responsibility.coinsurance'],
    ['noncovered', pr.non_covered, 'patient_responsibility.non_covered'],
    ['memberliability', pr.total, 'patient_responsibility.total'],
    ['benefit', s.payer_responsibility?.total, 'payer_responsibility.total'],
  ];
  for (const [code, value, name] of ledger) {
    if (value === null || value === undefined) continue;
    const c = cents(value, `financial_summary.${name}`);
    if (c !== total[code])
      throw new EobError('unbalanced', `financial_summary.${name} is ${centsToAmount(c)} but its lines add up to ${centsToAmount(total[code])}`);
  }
  if (total.eligible !== total.benefit + total.memberliability)
    throw new EobError('unbalanced', 'the allowed total is not the benefit + the patient responsibility');
}

/** CPT (five characters, four digits first), HCPCS Level II (a letter, four digits), or no code (a revenue-code-only line). */
function productOrService(line: EobLedgerLine) {
  const code = line.cpt_code ?? '';
  const display = line.cpt_description ?? undefined;
  if (/^\d{4}[0-9A-Z]$/.test(code)) return concept(CPT_SYSTEM, code, display);
  if (/^[A-Z]\d{4}$/.test(code)) return concept(HCPCS_SYSTEM, code, display);
  return concept('http://terminology.hl7.org/CodeSystem/data-absent-reason', 'not-applicable', 'Not Applicable');
}

/** The item's quantity as sent: anesthesia minutes (MJ) say so in UCUM; units are a bare number. */
function quantity(line: EobLedgerLine) {
  if (typeof line.quantity !== 'number' || !(line.quantity > 0)) throw new EobError('unusable', `line ${line.sequence}'s quantity is not a number above 0`);
  return line.unit_of_measure === 'MJ' ? { value: line.quantity, unit: 'minutes', system: 'http://unitsofmeasure.org', code: 'min' } : { value: line.quantity };
}

/** The reason a line is not paid: its CARC (tpa's CARC-96 → 96) with the rule's words, and its remark codes (RARC). */
function denialReason(line: EobLedgerLine) {
  const carc = line.denial_code!.replace(/^CARC-/, '');
  const display = Object.values(DENIAL).find((d) => d.code === line.denial_code)?.reason;
  return {
    coding: [coding(CARC_SYSTEM, carc, display), ...(line.remark_codes ?? []).map((r) => coding(RARC_SYSTEM, r))],
  };
}

function amountAdjudications(a: Amounts) {
  return AMOUNTS.map(([code, system]) => ({ category: concept(system, code), amount: money(a[code]) }));
}

/**
 * Inpatient when the claim's facility type code (an 837I's CLM05-1, the type of bill's first two
 * digits) classifies the bill as inpatient (second digit 1 or 2); every other institutional claim,
 * and one that names none, is outpatient.
 */
function institutionalSetting(facilityTypeCode: string | null | undefined): 'inpatient' | 'outpatient' {
  return /^\d[12]$/.test(facilityTypeCode ?? '') ? 'inpatient' : 'outpatient';
}

/** The latest transfer of the encounter in words, for processNote; nothing when none was made or it arrived. */
function transferNote(transfer: EobTransfer | null): string | undefined {
  if (!transfer) return undefined;
  switch (transfer.status) {
    case 'COMPLETED':
      return undefined;
    case 'REFUNDED':
      return `The payment ${transfer.processor_transfer_id} was returned${transfer.refund_details?.refunded_at ? ` on ${transfer.refund_details.refunded_at.slice(0, 10)}` : ''}: the benefit is owed to the provider again.`;
    case 'FAILED':
      return `The payment ${transfer.processor_transfer_id} failed: the benefit is owed to the provider again.`;
    default:
      return `The payment ${transfer.processor_transfer_id} is on its way to the provider.`;
  }
}

/**
 * The ExplanationOfBenefit of one decided encounter. `transfer` is its latest transfer (the
 * settlement record), null when none was made. Throws an EobError for an encounter not decided
 * yet, or a detail whose amounts disagree.
 */
export function explanationOfBenefit(detail: EobLedgerDetail, transfer: EobTransfer | null): Record<string, unknown> {
  const e = detail.encounter;
  if (!DECIDED_STATUSES.has(e.status))
    throw new EobError('undecided', `encounter ${e.encounter_number} is ${e.status}: an explanation of benefits is written once the claim is decided`);
  const lines = detail.service_lines ?? [];
  if (lines.length === 0) throw new EobError('unusable', `encounter ${e.encounter_number} has no service lines`);
  const denied = e.status === 'DENIED';
  const paid = !denied && transfer?.status === 'COMPLETED';
  const institutional = e.claim_type === 'institutional';
  const setting = institutional ? institutionalSetting(e.facility_type_code) : undefined;
  const decision = [...detail.entries].reverse().find((x) => x.type === 'ADJUDICATION' || x.type === 'DENIED');

  const careTeam: { npi: string; name: string | undefined }[] = [];
  const teamSequence = (line: EobLedgerLine): number[] => {
    if (!line.provider_npi) return [];
    let i = careTeam.findIndex((m) => m.npi === line.provider_npi);
    if (i < 0) i = careTeam.push({ npi: line.provider_npi, name: line.provider_name }) - 1;
    return [i + 1];
  };
  const total = Object.fromEntries(AMOUNTS.map(([code]) => [code, 0])) as Amounts;
  const items = lines.map((line) => {
    const a = lineAmounts(line, paid);
    for (const [code] of AMOUNTS) total[code] += a[code];
    const sequence = teamSequence(line);
    return {
      sequence: line.sequence,
      ...(sequence.length > 0 ? { careTeamSequence: sequence } : {}),
      ...(line.revenue_code ? { revenue: concept('https://www.nubc.org/CodeSystem/RevenueCodes', line.revenue_code) } : {}),
      productOrService: productOrService(line),
      ...((line.modifiers ?? []).length > 0 ? { modifier: line.modifiers!.map((m) => concept(/^\d{2}$/.test(m) ? CPT_SYSTEM : HCPCS_SYSTEM, m)) } : {}),
      servicedDate: line.service_date ?? e.service_date,
      quantity: quantity(line),
      adjudication: [
        // Professional: the in-network status on each item; institutional: once, on the claim (below).
        ...(institutional ? [] : [benefitPaymentStatus()]),
        ...amountAdjudications(a),
        ...(line.denial_code
          ? [{ category: concept(C4BB_DISCRIMINATOR, institutional ? 'adjustmentreason' : 'denialreason'), reason: denialReason(line) }]
          : []),
      ],
    };
  });
  checkTotals(detail.financial_summary, total);

  const unpaidLines = lines.filter((l) => l.status !== 'ALLOWED').length;
  const paymentType = denied || unpaidLines === lines.length ? 'denied' : unpaidLines > 0 ? 'partiallypaid' : 'paid';
  const dates = lines.map((l) => l.service_date ?? e.service_date).sort();
  const note = denied ? undefined : transferNote(transfer);
  const codes = e.diagnosis_codes ?? [];
  return {
    resourceType: 'ExplanationOfBenefit',
    // The encounter number is a valid FHIR id (letters, digits, '-'); the encounter id (enc_…) is not.
    id: e.encounter_number,
    meta: {
      lastUpdated: detail.entries.at(-1)?.timestamp ?? `${e.submission_date}T00:00:00Z`,
      profile: [institutional ? EOB_PROFILES[setting!] : EOB_PROFILES.professional],
      ...(e.test_data ? { tag: [coding(TEST_DATA_TAG.system, TEST_DATA_TAG.code, 'test health data')] } : {}),
    },
    identifier: [{ type: concept(`${C4BB}/CodeSystem/C4BBIdentifierType`, 'uc', 'Unique Claim ID'), system: ENCOUNTER_SYSTEM, value: e.id }],
    status: 'active',
    type: concept('http://terminology.hl7.org/CodeSystem/claim-type', institutional ? 'institutional' : 'professional'),
    ...(institutional ? { subType: concept(`${C4BB}/CodeSystem/C4BBInstitutionalClaimSubType`, setting!) } : {}),
    use: 'claim',
    patient: { identifier: { system: MEMBER_SYSTEM, value: e.patient.member_id }, ...(e.patient.name ? { display: e.patient.name } : {}) },
    billablePeriod: { start: dates[0], end: dates.at(-1) },
    created: decision?.timestamp ?? `${e.submission_date}T00:00:00Z`,
    insurer: { identifier: { system: PAYER_SYSTEM, value: e.payer.id }, display: e.payer.name },
    provider: { identifier: { system: NPI_SYSTEM, value: e.provider.npi }, display: e.provider.name },
    ...related(e),
    // tpa pays each line's provider directly (docs/money-rules.md "Payees"): the payee is a provider.
    payee: { type: concept('http://terminology.hl7.org/CodeSystem/payeetype', 'provider', 'Provider') },
    outcome: 'complete',
    ...(decision ? { disposition: decision.description } : {}),
    careTeam: careTeam.map((m, i) => ({
      sequence: i + 1,
      provider: { identifier: { system: NPI_SYSTEM, value: m.npi }, ...(m.name ? { display: m.name } : {}) },
      role: concept(`${C4BB}/CodeSystem/C4BBClaimCareTeamRole`, 'rendering', 'Rendering provider'),
    })),
    supportingInfo: supportingInfo(e),
    ...(codes.length > 0 ? { diagnosis: diagnoses(codes, institutional) } : {}),
    insurance: [{ focal: true, coverage: { identifier: { system: MEMBER_SYSTEM, value: e.patient.member_id }, display: `${e.payer.name} coverage` } }],
    item: items,
    ...(institutional ? { adjudication: [benefitPaymentStatus()] } : {}),
    total: amountAdjudications(total),
    payment: {
      type: concept(C4BB_STATUS, paymentType),
      ...(paid && transfer?.completed_at ? { date: transfer.completed_at.slice(0, 10) } : {}),
      amount: money(total.benefit),
      ...(transfer && !denied && transfer.status !== 'FAILED' && transfer.status !== 'REFUNDED'
        ? { identifier: { system: TRANSFER_SYSTEM, value: transfer.processor_transfer_id } }
        : {}),
    },
    ...(note ? { processNote: [{ number: 1, type: 'display', text: note }] } : {}),
  };
}

/** tpa pays contracted providers only, so every claim it decides is adjudicated in network. */
function benefitPaymentStatus() {
  return { category: concept(C4BB_DISCRIMINATOR, 'benefitpaymentstatus'), reason: concept(C4BB_STATUS, 'innetwork', 'In Network') };
}

function supportingInfo(e: EobLedgerDetail['encounter']) {
  const info: Record<string, unknown>[] = [
    { category: concept(`${C4BB}/CodeSystem/C4BBSupportingInfoType`, 'clmrecvddate', 'Claim Received Date'), timingDate: e.submission_date },
  ];
  if (e.patient_control_number)
    info.push({
      category: concept(`${C4BB}/CodeSystem/C4BBSupportingInfoType`, 'patientaccountnumber', 'Patient Account Number'),
      valueString: e.patient_control_number,
    });
  return info.map((x, i) => ({ sequence: i + 1, ...x }));
}

/** The claim's diagnoses in the order sent: the first the principal, the others secondary (professional) or other (institutional). */
function diagnoses(codes: string[], institutional: boolean) {
  return codes.map((code, i) => ({
    sequence: i + 1,
    diagnosisCodeableConcept: concept(ICD10_SYSTEM, code),
    type: [
      i === 0
        ? concept('http://terminology.hl7.org/CodeSystem/ex-diagnosistype', 'principal', 'Principal Diagnosis')
        : concept(`${C4BB}/CodeSystem/C4BBClaimDiagnosisType`, institutional ? 'other' : 'secondary'),
    ],
  }));
}

/** A corrected claim and the claim it replaced, by their encounter ids. */
function related(e: EobLedgerDetail['encounter']) {
  const r: Record<string, unknown>[] = [];
  if (e.replaces)
    r.push({
      relationship: concept('http://terminology.hl7.org/CodeSystem/ex-relatedclaimrelationship', 'prior'),
      reference: { system: ENCOUNTER_SYSTEM, value: e.replaces },
    });
  if (e.replaced_by)
    r.push({
      relationship: concept(`${C4BB}/CodeSystem/C4BBRelatedClaimRelationshipCodes`, 'replacedby'),
      reference: { system: ENCOUNTER_SYSTEM, value: e.replaced_by },
    });
  return r.length > 0 ? { related: r } : {};
}
