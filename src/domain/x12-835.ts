// ASC X12 835 005010X221A1 remittance advice, written from a transfer's payouts and the lines of the
// encounter it paid (docs/x12-835.md "835 out"): one transaction per payee and transfer, amounts in
// integer cents throughout, every text from outside screened of the delimiters. The writer checks
// what it is given (dates, sequences, units, amounts) and the implementation guide's balancing
// before it returns: what it cannot write as it should throws a RemitError, never a file.
import { MAX_LINE_CONTROL_NUMBER } from './fhir-claim.js';
import { MAX_LINE_MODIFIERS } from './modifiers.js';
import { centsToJson } from './money.js';

/** The line statuses of the ledger that pay nothing: their charge is adjusted under their denial code. */
const UNPAID = new Set(['DENIED', 'NOT_COVERED', 'BUNDLED', 'PENDED']);

export const IMPLEMENTATION = '005010X221A1';
/** Segment terminator, element separator, component separator, repetition separator. */
const SEG = '~';
const EL = '*';
const COMP = ':';
const REP = '^';

/** One service line of the claim, as adjudicated. */
export interface RemitLine {
  sequence: number;
  cptCode: string;
  /** The line's procedure modifiers, as sent (SVC01-3…6); absent: none. */
  modifiers?: readonly string[];
  /** The sender's line control number (REF*6R); null or absent: the line's sequence is written. */
  controlNumber?: string | null;
  /** An institutional line's revenue code (the 837I's SV201): SVC04, or SVC01 `NU:<code>` when the line has no procedure code. */
  revenueCode?: string | null;
  /** The line's remark codes (RARC: N130, M15…), each an `LQ*HE` of the line; absent: none. */
  remarkCodes?: readonly string[];
  /** YYYY-MM-DD. */
  serviceDate: string;
  /** SVC05: the line's quantity as sent (whole, or decimal: drug and time units). */
  units: number;
  chargeCents: number;
  allowedCents: number;
  deductibleCents: number;
  coinsuranceCents: number;
  copayCents: number;
  /** All the member owes of the line (deductible + coinsurance + copay + anything not covered). */
  patientCents: number;
  /** The benefit of the line: what the plan pays. */
  paidCents: number;
  /** ALLOWED, DENIED, NOT_COVERED, BUNDLED, PENDED. */
  status: string;
  /** tpa's denial code (CARC-96, …), when the line is not paid. */
  denialCode: string | null;
  /** The provider the line is paid to (its payee's NPI): a copy names it with `REF*HPI` when it is not the copy's receiver. */
  payeeNpi?: string | null;
  /**
   * Of the charge over the allowed amount, what was taken off the line's price because another
   * payment includes it (the anesthesia paid on another claim): CO-97, not the contract's CO-45.
   */
  includedElsewhereCents?: number;
}

/** The payer's address (loop 1000A N3/N4). */
export interface PayerAddress {
  line1: string;
  line2?: string | null;
  city: string;
  /** Two letters (N402). */
  state: string;
  /** Five or nine digits (N403). */
  postalCode: string;
}

/** The payer's technical contact (loop 1000A PER*BL): a name and at least one of phone, email, web address. */
export interface PayerContact {
  name?: string | null;
  phone?: string | null;
  email?: string | null;
  url?: string | null;
}

/** The payer of the claim: its name and id, and what loop 1000A and TRN03 need when the service gives it. */
export interface RemitPayer {
  name: string;
  id: string;
  /** The payer's federal tax id (EIN, nine digits): TRN03 and BPR10 are `1` and it. Absent: its id, cut to ten. */
  taxId?: string | null;
  address?: PayerAddress | null;
  contact?: PayerContact | null;
}

/** One transaction set: one payee's part of one transfer. */
export interface RemitTransaction {
  /**
   * payment: money sent (BPR01 I); notice: the payee's lines paid nothing (BPR01 H); reversal: a
   * refunded transfer (CLP02 22); copy: the billing provider's information (BPR01 H) of a claim whose
   * lines were paid to other providers, each payee's part a PLB `CS` so that it moves no money.
   */
  kind: 'payment' | 'notice' | 'reversal' | 'copy';
  /**
   * A copy or a notice of a reversal: the billing provider's copy of a refunded transfer, its claim
   * CLP02 22 with the amounts negated and each payee's part a negative PLB `CS`, moving no money; or
   * the notice of a payee the transfer paid nothing, reversed with it (CLP02 22, amounts negated, BPR H 0.00).
   */
  reverses?: boolean;
  /**
   * TRN02. A copy's is its own (`<transfer or refund>-INFO`), and so is a notice sent with a transfer
   * (`<transfer or refund>-NOTICE`), never a payment's, so that no posting system takes it for one.
   */
  transferId: string;
  payer: RemitPayer;
  payee: { npi: string; name: string };
  /** CLP01: the claim's CLM01 when it came in an 837, else the encounter number. */
  claimId: string;
  /** CLP07: the encounter id, the payer's claim control number. */
  encounterId: string;
  /** CLP08 and CLP09: an institutional claim's facility type code (CLM05-1) and claim frequency code (CLM05-3), when it sent them. */
  facilityTypeCode?: string | null;
  claimFrequencyCode?: string | null;
  /**
   * A copy's lines paid to other providers: each payee's NPI and the benefit of its lines, a PLB `CS`
   * (`CS:<NPI>`) of the copy; the copy's lines carry `REF*HPI` with the NPI of their payee.
   */
  paidToOthers?: readonly { npi: string; cents: number }[];
  patient: { memberId: string; name: string | null };
  /** YYYY-MM-DD the claim was received (DTM*050). */
  receivedDate: string | null;
  lines: RemitLine[];
  /** The payout's amount before the fee (= the sum of the lines' benefit); 0 for a notice. */
  paymentCents: number;
  /** The processor's fee, shown as a PLB (CS) so that BPR02 is what reaches the payee's bank. */
  feeCents: number;
  /** The processor's payout id, PLB03-2 of the fee. */
  payoutId: string | null;
  /** A reversal's refund id, PLB03-2 of the authorized return (72). */
  refundId: string | null;
  /** DTM*405, YYYY-MM-DD: when the payment (or the refund) was made. */
  productionDate: string;
  /** BPR16, YYYY-MM-DD: the EFT's effective date. */
  effectiveDate: string;
}

export interface Envelope {
  /** ISA13 and GS06: 1 to 999,999,999. */
  controlNumber: number;
  /** ISA06 and GS02 (the payer's id). */
  sender: string;
  /** ISA08 and GS03. */
  receiver: string;
  /** ISO instant: ISA09/10 and GS04/05. */
  createdAt: string;
  /** ISA15: P production, T test. */
  usage?: 'P' | 'T';
}

/**
 * The CARC (X12 Claim Adjustment Reason Code) of a tpa denial code: tpa writes them "CARC-96";
 * the 835 takes the code alone ("96"). A line without a CARC-shaped code is adjusted under 97 when
 * BUNDLED (included in another service's payment), else under 96 (non-covered charge).
 */
export function carcOf(denialCode: string | null | undefined, status: string): string {
  const m = /^(?:CARC-?)?([A-Z0-9]{1,3})$/i.exec((denialCode ?? '').trim());
  if (m) return m[1]!.toUpperCase();
  return status === 'BUNDLED' ? '97' : '96';
}

/**
 * Text from outside as an X12 element: the delimiters (~ * : ^), control characters and anything
 * outside printable ASCII become a space (accents are dropped first: "Zoë" → "Zoe"), runs of spaces
 * one, cut to `max` characters.
 */
export function x12Text(text: string, max = 60): string {
  const plain = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return plain
    .replace(/[^\x20-\x7e]|[~*:^]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
}

/**
 * Why an 835 is not written: `unusable`, what it was given is not what an 835 can carry (a date
 * that is not one, a sequence that is not a number: the service's answer cannot be used);
 * `unbalanced`, its amounts do not balance as the implementation guide requires.
 */
export class RemitError extends Error {
  constructor(
    readonly kind: 'unusable' | 'unbalanced',
    message: string,
  ) {
    super(message);
    this.name = 'RemitError';
  }
}

/** Cents as an X12 decimal (R), money.ts's centsToJson: no trailing zeros after the point, no point for a whole amount. 12340 → "123.4", -500 → "-5". */
export function x12Amount(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RemitError('unusable', `not an amount in cents: ${JSON.stringify(cents)}`);
  return centsToJson(cents);
}

/** A YYYY-MM-DD date as CCYYMMDD; anything else (a date-time, text after it) is refused, never cut. */
function ymd(date: unknown, what: string): string {
  const m = typeof date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(date) : null;
  const out = m ? `${m[1]}${m[2]}${m[3]}` : '';
  if (!/^\d{8}$/.test(out)) throw new RemitError('unusable', `${what} is not a date (YYYY-MM-DD): ${JSON.stringify(date)}`);
  return out;
}

/**
 * A line's units as SVC05 (a decimal, R): as sent, whole (2) or decimal (drug and time units, 1.5),
 * written without exponent or trailing zeros; anything else (not a number, negative, more than four
 * decimals) refused, never rounded.
 */
function quantity(value: unknown, what: string): string {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? String(value) : '';
  if (!/^\d{1,11}(\.\d{1,4})?$/.test(text)) throw new RemitError('unusable', `${what} is not a quantity: ${JSON.stringify(value)}`);
  return text;
}

/** A count (a line's sequence) as X12 text: a safe non-negative integer, else refused. */
function count(value: unknown, what: string): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new RemitError('unusable', `${what} is not a whole number: ${JSON.stringify(value)}`);
  return String(value);
}

/** An adjustment of a claim or a line: group (CO, PR, OA), reason (CARC), amount in cents. */
interface Adjustment {
  group: 'CO' | 'PR' | 'OA';
  reason: string;
  cents: number;
}

/**
 * The adjustments of a line, which take its charge to its payment: CO-45 for the charge over the
 * allowed amount (the contract's reduction of the charge to its price), CO-97 for what was taken off
 * the price because another payment includes it, PR-1 deductible, PR-2 coinsurance, PR-3 copay; a
 * line paid nothing for a denial has its charge under CO with the denial's CARC, less what the member
 * owes of it, which is under PR with the same CARC.
 */
export function lineAdjustments(line: RemitLine): Adjustment[] {
  const out: Adjustment[] = [];
  if (UNPAID.has(line.status) || line.denialCode) {
    const carc = carcOf(line.denialCode, line.status);
    const patient = line.patientCents;
    const contractual = line.chargeCents - line.paidCents - patient;
    if (contractual !== 0) out.push({ group: 'CO', reason: carc, cents: contractual });
    if (patient !== 0) out.push({ group: 'PR', reason: carc, cents: patient });
    return out;
  }
  const included = line.includedElsewhereCents ?? 0;
  const overPrice = line.chargeCents - line.allowedCents - included;
  if (included !== 0) out.push({ group: 'CO', reason: '97', cents: included });
  if (overPrice !== 0) out.push({ group: 'CO', reason: '45', cents: overPrice });
  if (line.deductibleCents) out.push({ group: 'PR', reason: '1', cents: line.deductibleCents });
  if (line.coinsuranceCents) out.push({ group: 'PR', reason: '2', cents: line.coinsuranceCents });
  if (line.copayCents) out.push({ group: 'PR', reason: '3', cents: line.copayCents });
  // Whatever else the member owes of an allowed line (another service's split): non-covered, PR-96.
  const other = line.patientCents - line.deductibleCents - line.coinsuranceCents - line.copayCents;
  if (other !== 0) out.push({ group: 'PR', reason: '96', cents: other });
  return out;
}

/** CAS segments, one per group, up to six reason/amount triplets each (the segment's limit). */
function casSegments(adjustments: readonly Adjustment[], sign: 1 | -1): string[][] {
  const segments: string[][] = [];
  for (const group of ['CO', 'PR', 'OA'] as const) {
    const of = adjustments.filter((a) => a.group === group);
    for (let i = 0; i < of.length; i += 6) {
      const elements = ['CAS', group];
      for (const [j, a] of of.slice(i, i + 6).entries()) {
        if (j > 0) elements.push('');
        elements.push(a.reason, x12Amount(sign * a.cents));
      }
      segments.push(elements);
    }
  }
  return segments;
}

/** The claim's figures for its CLP (charge, payment, patient responsibility) and its status code. */
export function claimFigures(t: RemitTransaction): { chargeCents: number; paidCents: number; patientCents: number; status: string } {
  let chargeCents = 0;
  let paidCents = 0;
  let patientCents = 0;
  for (const l of t.lines) {
    chargeCents += l.chargeCents;
    paidCents += l.paidCents;
    patientCents += l.patientCents;
  }
  const allDenied = t.lines.every((l) => UNPAID.has(l.status));
  const status = reversing(t) ? '22' : paidCents === 0 && allDenied ? '4' : '1';
  return { chargeCents, paidCents, patientCents, status };
}

/** A reversal, or the billing provider's copy or a notice of one: its claim is CLP02 22, its amounts negated. */
const reversing = (t: RemitTransaction): boolean => t.kind === 'reversal' || ((t.kind === 'copy' || t.kind === 'notice') && t.reverses === true);

/**
 * What a transaction's 835 says in money, checked as the guide balances it (RemitError otherwise):
 * its claim's figures, the provider-level adjustments (PLB) and the payment (BPR02).
 */
function balanceOf(t: RemitTransaction): {
  sign: 1 | -1;
  claim: ReturnType<typeof claimFigures>;
  plb: { reason: string; ref: string | null; cents: number }[];
  bpr: number;
} {
  const sign: 1 | -1 = reversing(t) ? -1 : 1;
  const claim = claimFigures(t);
  if (t.kind !== 'notice' && t.kind !== 'copy' && claim.paidCents !== t.paymentCents)
    throw new RemitError('unbalanced', `the lines of ${t.payee.npi} pay ${claim.paidCents} cents, its payout is ${t.paymentCents}: the 835 would not balance`);
  // The guide's balancing, per line and for the claim, checked on what is written: each SVC02 less
  // its adjustments is SVC03; the claim's PR adjustments are CLP05; CLP03 less every CAS is CLP04.
  let claimAdjusted = 0;
  let claimPatient = 0;
  for (const l of t.lines) {
    const adjustments = lineAdjustments(l);
    const adjusted = adjustments.reduce((s, a) => s + a.cents, 0);
    const seq = count(l.sequence, "a service line's sequence");
    if (l.chargeCents - adjusted !== l.paidCents)
      throw new RemitError(
        'unbalanced',
        `line ${seq} (${x12Text(l.cptCode, 48)}) of ${t.encounterId} does not balance: charge ${x12Amount(l.chargeCents)} less adjustments ${x12Amount(adjusted)} is not its payment ${x12Amount(l.paidCents)} (allowed ${x12Amount(l.allowedCents)}, patient responsibility ${x12Amount(l.patientCents)})`,
      );
    claimAdjusted += adjusted;
    claimPatient += adjustments.filter((a) => a.group === 'PR').reduce((s, a) => s + a.cents, 0);
  }
  if (claimPatient !== claim.patientCents)
    throw new RemitError(
      'unbalanced',
      `the patient responsibility of ${t.encounterId} (${x12Amount(claim.patientCents)}) is not its PR adjustments (${x12Amount(claimPatient)})`,
    );
  if (claim.chargeCents - claimAdjusted !== claim.paidCents)
    throw new RemitError('unbalanced', `the claim ${t.encounterId} does not balance: charge less adjustments is not its payment`);
  // The provider-level adjustments: the processor's fee (CS) on a payment; on a reversal the fee
  // given back (CS, negative) and the refund the payee returned (72, negative), which make it net 0.
  const plb: { reason: string; ref: string | null; cents: number }[] = [];
  if (t.kind === 'payment' && t.feeCents !== 0) plb.push({ reason: 'CS', ref: t.payoutId, cents: t.feeCents });
  if (t.kind === 'reversal') {
    plb.push({ reason: '72', ref: t.refundId, cents: -(t.paymentCents - t.feeCents) });
    if (t.feeCents !== 0) plb.push({ reason: 'CS', ref: t.payoutId, cents: -t.feeCents });
  }
  // A copy: what each other payee was paid of the claim's lines, so that the copy moves no money.
  // A copy of a reversal: each payee's part given back, negative.
  if (t.kind === 'copy') for (const p of t.paidToOthers ?? []) if (p.cents !== 0) plb.push({ reason: 'CS', ref: p.npi, cents: sign * p.cents });
  const bpr = sign * claim.paidCents - plb.reduce((s, a) => s + a.cents, 0);
  if (bpr < 0) throw new RemitError('unbalanced', `the payment to ${t.payee.npi} would be negative (${bpr} cents)`);
  if (t.kind !== 'payment' && bpr !== 0) throw new RemitError('unbalanced', `the ${t.kind} to ${t.payee.npi} would move money (${bpr} cents)`);
  return { sign, claim, plb, bpr };
}

function transactionBody(t: RemitTransaction): string[][] {
  const { sign, claim, plb, bpr } = balanceOf(t);
  const paying = t.kind === 'payment' && bpr > 0;
  const segments: string[][] = [];
  const originator = originatorOf(t.payer);
  segments.push(
    paying
      ? ['BPR', 'I', x12Amount(bpr), 'C', 'ACH', 'CCP', '', '', '', '', originator, '', '', '', '', '', ymd(t.effectiveDate, 'the effective date')]
      : ['BPR', 'H', x12Amount(bpr), 'C', 'NON', '', '', '', '', '', '', '', '', '', '', '', ymd(t.effectiveDate, 'the effective date')],
  );
  segments.push(['TRN', '1', x12Text(t.transferId, 50), originator]);
  segments.push(['DTM', '405', ymd(t.productionDate, 'the production date')]);
  segments.push(['N1', 'PR', x12Text(t.payer.name, 60)]);
  segments.push(...payerLoop(t.payer));
  segments.push(['N1', 'PE', x12Text(t.payee.name, 60), 'XX', x12Text(t.payee.npi, 10)]);
  segments.push(['LX', '1']);
  segments.push([
    'CLP',
    x12Text(t.claimId, 38),
    claim.status,
    x12Amount(sign * claim.chargeCents),
    x12Amount(sign * claim.paidCents),
    x12Amount(sign * claim.patientCents),
    'CI',
    x12Text(t.encounterId, 50),
    ...institutional(t),
  ]);
  const [last, ...first] = patientName(t.patient.name);
  segments.push(['NM1', 'QC', '1', last ?? '', first.join(' '), '', '', '', 'MI', x12Text(t.patient.memberId, 80)]);
  if (t.receivedDate) segments.push(['DTM', '050', ymd(t.receivedDate, "the claim's submission date")]);
  for (const line of t.lines) {
    const revenue = revenueOf(line);
    const procedure = x12Text(line.cptCode, 48);
    // A line with a procedure code is HC:<code>[:modifiers], its revenue code (an 837I's SV201) in
    // SVC04; a revenue-code-only line is NU:<revenue code>. tpa adjudicates the code sent, so the
    // adjudicated code is never another than the submitted one and SVC06 is never written.
    const svc01 =
      procedure === '' || (revenue !== null && procedure === revenue)
        ? ['NU', revenue ?? procedure]
        : ['HC', procedure, ...(line.modifiers ?? []).slice(0, MAX_LINE_MODIFIERS).map((m) => x12Text(m, 2))];
    segments.push([
      'SVC',
      svc01.join(COMP),
      x12Amount(sign * line.chargeCents),
      x12Amount(sign * line.paidCents),
      svc01[0] === 'HC' && revenue !== null ? revenue : '',
      quantity(line.units, `the units of line ${line.sequence}`),
    ]);
    segments.push(['DTM', '472', ymd(line.serviceDate, `the service date of line ${line.sequence}`)]);
    segments.push(...casSegments(lineAdjustments(line), sign));
    // The sender's line control number when it sent one (an 837's REF*6R), else the line's sequence.
    const control = x12Text(line.controlNumber ?? '', MAX_LINE_CONTROL_NUMBER);
    segments.push(['REF', '6R', control !== '' ? control : count(line.sequence, "a service line's sequence")]);
    // A line paid to another provider than the transaction's payee (a copy's): its rendering provider.
    if (line.payeeNpi && line.payeeNpi !== t.payee.npi) segments.push(['REF', 'HPI', x12Text(line.payeeNpi, 50)]);
    if (!UNPAID.has(line.status)) segments.push(['AMT', 'B6', x12Amount(sign * line.allowedCents)]);
    for (const code of line.remarkCodes ?? []) segments.push(['LQ', 'HE', remarkCode(code, line.sequence)]);
  }
  if (plb.length > 0) {
    const elements = ['PLB', x12Text(t.payee.npi, 50), `${ymd(t.productionDate, 'the production date').slice(0, 4)}1231`];
    for (const a of plb) elements.push(a.ref ? `${a.reason}${COMP}${x12Text(a.ref, 50)}` : a.reason, x12Amount(a.cents));
    segments.push(elements);
  }
  return segments;
}

/**
 * TRN03 and BPR10, the payer as originator of the payment: `1` and its nine-digit federal tax id
 * (the guide's form); a payer whose tax id the service does not give is named by its id, cut to ten.
 */
export function originatorOf(payer: RemitPayer): string {
  const ein = (payer.taxId ?? '').replace(/-/g, '');
  if (payer.taxId !== undefined && payer.taxId !== null && payer.taxId !== '') {
    if (!/^\d{9}$/.test(ein)) throw new RemitError('unusable', `the payer's tax id is not nine digits: ${JSON.stringify(payer.taxId)}`);
    return `1${ein}`;
  }
  return x12Text(payer.id, 10);
}

/**
 * Loop 1000A after its N1: the payer's address (N3, N4), its id (REF*2U) and its technical contact
 * (PER*BL), each when the service gives it; the guide requires N3, N4 and PER*BL, so an answer
 * without them makes an 835 a strict validator refuses (remit says so on stderr).
 */
function payerLoop(payer: RemitPayer): string[][] {
  const out: string[][] = [];
  const a = payer.address;
  if (a) {
    const line2 = x12Text(a.line2 ?? '', 55);
    out.push(['N3', x12Text(a.line1, 55), ...(line2 !== '' ? [line2] : [])]);
    const state = x12Text(a.state, 2).toUpperCase();
    const zip = a.postalCode.replace(/-/g, '');
    if (!/^[A-Z]{2}$/.test(state)) throw new RemitError('unusable', `the payer's state is not two letters: ${JSON.stringify(a.state)}`);
    if (!/^(\d{5}|\d{9})$/.test(zip)) throw new RemitError('unusable', `the payer's postal code is not five or nine digits: ${JSON.stringify(a.postalCode)}`);
    out.push(['N4', x12Text(a.city, 30), state, zip]);
  }
  out.push(['REF', '2U', x12Text(payer.id, 50)]);
  const c = payer.contact;
  const means: [string, string][] = [];
  if (c?.phone) means.push(['TE', c.phone.replace(/\D/g, '').slice(0, 256)]);
  if (c?.email) means.push(['EM', x12Text(c.email, 256)]);
  if (c?.url) means.push(['UR', x12Text(c.url, 256)]);
  const usable = means.filter(([, v]) => v !== '');
  if (usable.length > 0) out.push(['PER', 'BL', x12Text(c?.name ?? '', 60), ...usable.slice(0, 3).flat()]);
  return out;
}

/** CLP08 (facility type code) and CLP09 (claim frequency code) of an institutional claim, when it sent them; else nothing. */
function institutional(t: RemitTransaction): string[] {
  const facility = t.facilityTypeCode ?? '';
  const frequency = t.claimFrequencyCode ?? '';
  if (facility === '' && frequency === '') return [];
  if (facility !== '' && !/^\d{2}$/.test(facility)) throw new RemitError('unusable', `the facility type code is not two digits: ${JSON.stringify(facility)}`);
  if (frequency !== '' && !/^[0-9A-Z]$/.test(frequency))
    throw new RemitError('unusable', `the claim frequency code is not one character: ${JSON.stringify(frequency)}`);
  return [facility, frequency];
}

/** A line's revenue code as the 835 takes it (four digits), null when it has none. */
function revenueOf(line: RemitLine): string | null {
  const code = line.revenueCode ?? '';
  if (code === '') return null;
  if (!/^\d{4}$/.test(code)) throw new RemitError('unusable', `the revenue code of line ${line.sequence} is not four digits: ${JSON.stringify(code)}`);
  return code;
}

/** A remark code (RARC: a letter or two and digits, N130, MA01) as LQ02; anything else refused. */
function remarkCode(code: string, sequence: number): string {
  if (!/^[A-Z]{1,2}\d{1,4}$/.test(code)) throw new RemitError('unusable', `a remark code of line ${sequence} is not one: ${JSON.stringify(code)}`);
  return code;
}

/** The patient's name as NM103 (last) and NM104 (first and middle): the last word is the last name. */
function patientName(name: string | null): string[] {
  const words = x12Text(name ?? '', 95)
    .split(' ')
    .filter(Boolean);
  if (words.length === 0) return [];
  const last = words.pop()!;
  return [last.slice(0, 60), words.join(' ').slice(0, 35)];
}

const line = (elements: readonly string[]) => {
  const copy = [...elements];
  while (copy.length > 1 && copy.at(-1) === '') copy.pop();
  return copy.join(EL) + SEG;
};

/** ISA's fixed-width fields: padded with spaces, cut to the width. */
const fixed = (text: string, width: number) => x12Text(text, width).padEnd(width, ' ');

/**
 * The interchange: ISA/GS around one ST/SE per transaction, each ST with its own control number
 * (0001, 0002, …), SE01 counting ST to SE, GE01 the transactions, IEA01 the one group. One segment a
 * line (the terminator then a newline), as most 835s are delivered to be read.
 */
/** Checks one transaction as write835 would write it: throws its RemitError, else returns nothing. */
export function checkTransaction(t: RemitTransaction): void {
  transactionBody(t);
}

export function write835(transactions: readonly RemitTransaction[], envelope: Envelope): string {
  if (transactions.length === 0) throw new Error('an 835 needs at least one transaction');
  const control = envelope.controlNumber;
  if (!Number.isSafeInteger(control) || control < 1 || control > 999_999_999) throw new Error(`ISA13 must be 1 to 999999999, not ${control}`);
  const isa13 = String(control).padStart(9, '0');
  const d = new Date(envelope.createdAt);
  const iso = d.toISOString();
  const date8 = iso.slice(0, 10).replace(/-/g, '');
  const time4 = iso.slice(11, 16).replace(':', '');
  const out: string[] = [];
  out.push(
    line([
      'ISA',
      '00',
      ' '.repeat(10),
      '00',
      ' '.repeat(10),
      'ZZ',
      fixed(envelope.sender, 15),
      'ZZ',
      fixed(envelope.receiver, 15),
      date8.slice(2),
      time4,
      REP,
      '00501',
      isa13,
      '0',
      envelope.usage ?? 'P',
      COMP,
    ]),
  );
  out.push(line(['GS', 'HP', x12Text(envelope.sender, 15), x12Text(envelope.receiver, 15), date8, time4, String(control), 'X', IMPLEMENTATION]));
  transactions.forEach((t, i) => {
    const st = String(i + 1).padStart(4, '0');
    const body = transactionBody(t);
    out.push(line(['ST', '835', st, IMPLEMENTATION]));
    for (const s of body) out.push(line(s));
    out.push(line(['SE', String(body.length + 2), st]));
  });
  out.push(line(['GE', String(transactions.length), String(control)]));
  out.push(line(['IEA', '1', isa13]));
  return `${out.join('\n')}\n`;
}
