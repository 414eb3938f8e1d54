// ASC X12 837 (005010X222A1 professional, 005010X223A2 institutional) to FHIR R4 Claims
// (docs/x12.md "837 in"). Pure: segments in (as a tokenizer gives them), claims and problems out,
// one claim at a time, so that a file of any size streams. The envelopes (ISA/IEA, GS/GE, ST/SE)
// are checked here too: their control numbers and counts. What an 837 carries that the service
// cannot take is a problem of its claim, with the segment it is in, never dropped without a word.
import {
  CLAIM_TYPE_SYSTEM,
  CPT_SYSTEM,
  type ClaimType,
  DATA_ABSENT_REASON_SYSTEM,
  HCPCS_LEVEL_II,
  HCPCS_SYSTEM,
  ICD10_SYSTEM,
  LINE_CONTROL_NUMBER_URL,
  memberNumberType,
  testDataTagged,
  NPI_SYSTEM,
  nonX12IdCharacters,
  RELATED_CLAIM_RELATIONSHIP_SYSTEM,
  REVENUE_SYSTEM,
  SUBSCRIBER_RELATIONSHIP_SYSTEM,
  SUPPORTING_INFO_TYPE_SYSTEM,
  TYPE_OF_BILL_SYSTEM,
  X12_ID_CHARACTERS,
} from './fhir-claim.js';
import { clip, isoDateProblem } from './validation.js';
import { x12Identity } from './x12-identity.js';

/**
 * One segment as the x12-parser tokenizer gives it: `name`, then each element by its number, the
 * element's FIRST component under `"1"` and its second under `"1-1"`, third `"1-2"`… (read them
 * with `element`, never by key).
 */
export interface X12Segment {
  readonly name: string;
  readonly [key: string]: string | undefined;
}

/**
 * Why element `i` of a segment, an identifier naming a party (NM109: a member id, an NPI, a payer
 * id), cannot be read: it holds a component separator, so it is several parts where the 837 has one
 * simple element; reading its first part alone would name the party by half of what was sent.
 * Undefined when it is one part.
 */
export function componentsInSimpleElement(s: X12Segment, i: number, what: string): string | undefined {
  if (s[`${i}-1`] === undefined) return undefined;
  const parts: string[] = [];
  for (let c = 1; s[c === 1 ? String(i) : `${i}-${c - 1}`] !== undefined && c <= 8; c++) parts.push(element(s, i, c));
  return `${what} (NM1${String(i).padStart(2, '0')}) holds a component separator, so it is several parts (${parts.map((v) => `"${clip(v)}"`).join(', ')}) where the 837 has one simple element: which one names the party is not for tpa to guess`;
}

/**
 * The composite elements of the segments the reader reads (BHT, HL, NM1, PAT, DMG, SBR, CLM, LX,
 * SV1, SV2, DTP, REF): element number → how many components the 837 gives it. Every other element
 * of these segments is simple: one value.
 */
const COMPOSITES: Readonly<Record<string, Readonly<Record<number, number>>>> = {
  CLM: { 5: 3, 11: 5 },
  DMG: { 5: 3 },
  REF: { 4: 6 },
  SV1: { 1: 8, 7: 4 },
  SV2: { 2: 8 },
};

/**
 * Why the elements of a segment cannot be read as sent, by element (`CLM01`, `CLM05`): a simple
 * element holding the component separator is several parts where the 837 has one value, and a
 * composite with more components than the 837 gives it carries what tpa would drop. Reading the
 * first part alone would take half of what was sent (a REF*F8 naming two claims would change the
 * first), so each is refused, naming its parts. `skip`: elements checked elsewhere (NM109).
 */
export function componentProblems(s: X12Segment, skip: readonly number[] = []): { element: string; message: string }[] {
  // x12-parser names an element's second and later components `<i>-<c>`: only those keys matter, and
  // most segments have none (this runs on every segment read).
  let counts: Map<number, number> | undefined;
  for (const key in s) {
    const dash = key.indexOf('-');
    if (dash <= 0) continue;
    const i = Number(key.slice(0, dash));
    const c = Number(key.slice(dash + 1));
    if (!Number.isInteger(i) || !Number.isInteger(c)) continue;
    counts ??= new Map();
    counts.set(i, Math.max(counts.get(i) ?? 1, c + 1));
  }
  if (counts === undefined) return [];
  const out: { element: string; message: string }[] = [];
  for (const [i, count] of [...counts].sort(([a], [b]) => a - b)) {
    if (skip.includes(i)) continue;
    const allowed = COMPOSITES[s.name]?.[i];
    if (allowed !== undefined && count <= allowed) continue;
    const at = `${s.name}${String(i).padStart(2, '0')}`;
    const parts: string[] = [];
    for (let c = 1; c <= count; c++) parts.push(element(s, i, c));
    const shown = parts
      .slice(0, 8)
      .map((v) => `"${clip(v)}"`)
      .join(', ');
    if (allowed === undefined)
      out.push({
        element: at,
        message: `${at} holds a component separator, so it is several parts (${shown}${count > 8 ? ', …' : ''}) where the 837 has one simple element: which one is meant is not for tpa to guess, and the claim is not read from its first part`,
      });
    else
      out.push({
        element: at,
        message: `${at} has ${count} components (${shown}${count > 8 ? ', …' : ''}) where the 837 has ${allowed}: what follows the ${allowed === 3 ? '3rd' : `${allowed}th`} (${at}-${allowed + 1} "${clip(element(s, i, allowed + 1))}") is not for tpa to drop, and the claim is not read without it`,
      });
  }
  return out;
}

/** Element `i` (1-based) of a segment, component `c` (1-based) of it; '' when absent. */
export function element(s: X12Segment, i: number, c = 1): string {
  return (c === 1 ? s[String(i)] : s[`${i}-${c - 1}`]) ?? '';
}

/** How the reader begins the refusal of a claim whose envelope (ST/SE, GS/GE, ISA/IEA) is wrong: the acknowledgments tell it by this. */
export const ENVELOPE_REFUSAL = 'not sent: ';

export const CLM01_SYSTEM = 'urn:tpa:x12:clm01';
export const ICD9_SYSTEM = 'http://hl7.org/fhir/sid/icd-9-cm';
export const ICD10_PCS_SYSTEM = 'http://www.cms.gov/Medicare/Coding/ICD10';
export { HCPCS_SYSTEM };
export const CARE_TEAM_ROLE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/claimcareteamrole';
export const PLACE_OF_SERVICE_SYSTEM = 'https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set';
const DIAGNOSIS_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/ex-diagnosistype';
const PRIORITY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/processpriority';
const INFO_CATEGORY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/claiminformationcategory';
const UCUM_SYSTEM = 'http://unitsofmeasure.org';

/** The ISA is fixed-width: each element's width, ISA01 to ISA16. */
const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];
/** An ISA segment with its terminator: 106 characters. */
export const ISA_LENGTH = 106;

/**
 * Why the first characters of a file are not an X12 interchange header, or undefined when they are:
 * `ISA`, then 16 elements of their fixed widths, each after the element separator (the 4th
 * character), and a segment terminator at the 106th that is no letter, digit or separator already.
 */
export function isaProblem(head: string): string | undefined {
  const shown = JSON.stringify(clip(head.slice(0, 20)));
  if (head === '') return 'the file is empty';
  if (!head.startsWith('ISA')) return `not an X12 interchange: it must start with ISA (it starts ${shown})`;
  if (head.length < ISA_LENGTH) return `not an X12 interchange: its ISA segment is cut short (${head.length} characters; an ISA is ${ISA_LENGTH})`;
  const sep = head[3]!;
  // Each element ends where the next separator is: a separator elsewhere means a wrong width.
  let at = 3;
  for (const [i, width] of ISA_WIDTHS.entries()) {
    at += 1 + width;
    if (i < ISA_WIDTHS.length - 1 && head[at] !== sep)
      return `not an X12 interchange: ISA${String(i + 1).padStart(2, '0')} must be ${width} characters wide (the ISA is fixed-width, ${ISA_LENGTH} characters)`;
  }
  const component = head[104]!;
  const terminator = head[105]!;
  if (/[A-Za-z0-9 ]/.test(sep) || /[A-Za-z0-9 ]/.test(component) || /[A-Za-z0-9 ]/.test(terminator) || new Set([sep, component, terminator]).size < 3)
    return 'not an X12 interchange: its element separator, component separator (ISA16) and segment terminator must be three different characters, none a letter, digit or space';
  return amountDelimiterProblem(sep, component, terminator);
}

/** A delimiter that is a period or a hyphen would cut amounts (1500.75) and date ranges (RD8 CCYYMMDD-CCYYMMDD) apart. */
function amountDelimiterProblem(...delimiters: string[]): string | undefined {
  const bad = delimiters.find((c) => c === '.' || c === '-');
  if (bad === undefined) return undefined;
  return `not an X12 interchange tpa reads: a ${bad === '.' ? 'period' : 'hyphen'} ("${bad}") as a delimiter would cut ${bad === '.' ? 'amounts (1500.75)' : 'date ranges (CCYYMMDD-CCYYMMDD)'} apart; give the file other delimiters`;
}

/** A problem of the file with its place: `ST 0001, CLM PATIENT123, SV1 #2`, `ISA 000000001`, `segment 12`. */
export interface X12Problem {
  place: string;
  message: string;
  /** The segment a claim's refusal names, when the problem is of one (`BHT`). */
  segment?: string;
}

type Json = Record<string, unknown>;

/**
 * The FHIR R4 Claim one CLM becomes (what `claim convert` prints): its top-level elements, those an
 * 837 may lack optional. `claim convert`'s `--json <fields>` lists these keys.
 */
export type X12FhirClaim = {
  resourceType: 'Claim';
  contained?: Json[];
  identifier: { system: string; value: string }[];
  status: 'active' | 'cancelled';
  type: Json;
  use: 'claim';
  patient: Json;
  billablePeriod?: { start: string; end: string };
  created?: string;
  insurer?: Json;
  provider: Json;
  priority: Json;
  related?: Json[];
  facility?: Json;
  careTeam?: Json[];
  supportingInfo?: Json[];
  diagnosis?: Json[];
  procedure?: Json[];
  insurance: Json[];
  item: Json[];
  total: { value: number | string; currency: 'USD' };
};

/** One CLM as a FHIR R4 Claim. */
export interface X12Claim {
  /** The FHIR R4 Claim. */
  claim: Record<string, unknown>;
  /**
   * The claim's identity in a batch journal: `x12:<ISA06 trimmed>:<ISA13>:<GS06>:<ST02>:<CLM01>` (ST02
   * is unique only within its functional group, GS06 within its interchange), each part escaped
   * (x12-identity.ts identityPart), with `#<n>`, the
   * claim's place among its transaction set's CLMs, when an earlier claim of the set has its CLM01.
   */
  identity: string;
  clm01: string;
  /** Where it is: `ST 0001, CLM PATIENT123` (with `ISA <ISA13>, ` in front when the file has several interchanges). */
  place: string;
  type: ClaimType | undefined;
  /** What the service cannot take, each with its segment in the claim (`SV1 #2`, `SBR`): such a claim is not sent. */
  problems: { segment: string; message: string }[];
  /**
   * What the 837 says that the claim leaves out without changing what is paid (another payer that
   * pays after tpa's plan, an attending provider without an NPI): said, and the claim is sent.
   */
  notes: { segment: string; message: string }[];
  /** The segment a field of the FHIR Claim came from (`item[1]…` → `SV1 #2`), for the parser's errors. */
  segmentOf(field: string): string | undefined;
}

export type X12Event = { kind: 'claim'; claim: X12Claim } | { kind: 'problem'; problem: X12Problem };

/** What the first reading of a file found wrong in its envelopes, for the second to attach to the claims. */
export interface EnvelopeReport {
  /** Problems of each transaction set, by its ordinal in the file (1, 2, …). */
  byTransaction: Map<number, X12Problem[]>;
  /** Problems that fall on no claim (an empty transaction, text after the last IEA). */
  loose: X12Problem[];
  /** Interchanges in the file. */
  interchanges: number;
  /** CLM segments in the file. */
  claims: number;
  /** A problem that stops the file being read further (a segment too long to be X12): no claim of it is read. */
  fatal?: X12Problem;
}

interface Party {
  npi: string;
  name: string | null;
  qualifier: string;
  segment: string;
}

interface Line {
  n: number;
  kind: 'SV1' | 'SV2';
  revenue: string | null;
  code: string;
  modifiers: string[];
  charge: string;
  units: string;
  unitBasis: string;
  place: string | null;
  pointers: number[];
  date: { start: string; end: string } | undefined;
  rendering: Party | undefined;
  preauth: string[];
  /** REF*6R of loop 2400: the sender's line control number, which the 835 gives back. */
  controlNumber: string | null;
  /** Segments the line has already had once (SV1/SV2, DTP*472): a second is a problem. */
  seen?: Set<string>;
  /** True when the line has no SV1 or SV2 (said at its LX, and left out of the claim). */
  empty?: boolean;
}

interface Diagnosis {
  system: string;
  code: string;
  type: string | undefined;
  /** A diagnosis's present-on-admission indicator (837I HI0x-9): FHIR's onAdmission code. */
  onAdmission?: string;
  /** A procedure's date (837I HI0x-3 D8, HI0x-4). */
  date?: string;
  /** Where it was read: `HI #2, HI03`. */
  from?: string;
}

/** An HI code kept as supporting information (condition, occurrence, occurrence span, value codes…), with what its composite carries. */
interface Info {
  qualifier: string;
  code: string;
  /** HI0x-3 D8 or RD8, HI0x-4: an occurrence's date or span. */
  date?: { start: string; end: string };
  /** HI0x-5: a value code's amount. */
  amount?: number;
  /** Where it was read: `HI #2, HI03`. */
  from?: string;
}

interface ClaimDraft {
  clm01: string;
  /** The claim's place among the CLMs of its transaction set, from 1. */
  ordinal: number;
  charge: string;
  placeOfService: string;
  /** CLM05-3, the claim frequency code ('' when not sent). */
  frequency: string;
  statement: { start: string; end: string } | undefined;
  preauth: string[];
  diagnoses: Diagnosis[];
  /** Diagnoses an SV107 pointer counts (principal and other). */
  pointable: number[];
  procedures: Diagnosis[];
  info: Info[];
  /** HI segments of the claim so far: a problem of one names it `HI #n`. */
  hiSegments: number;
  careTeam: Party[];
  facility: Party | undefined;
  lines: Line[];
  problems: { segment: string; message: string }[];
  notes: { segment: string; message: string }[];
  /** CLM05-3 7 (replacement) or 8 (void); undefined for an original claim. */
  correction?: '7' | '8';
  /** The claim's own DTPs read so far (434, 472), by qualifier: a loop 2300 has each once. */
  dates: Map<string, { start: string; end: string }>;
  /** The payer's claim control number of the claim a replacement or void changes (2300 REF*F8). */
  priorClaim?: string;
}

/**
 * Providers of a claim that are no line's payee (attending, operating, other operating,
 * supervising, referring, primary care): noted and left out of the care team, with an NPI or
 * without one, valid or not, so that a physician from outside the plan never refuses the claim.
 */
const NOT_PAID = new Set(['71', '72', 'ZZ', 'DQ', 'DN', 'P3']);

const FRIENDLY_ROLE: Record<string, { role: string; what: string }> = {
  '82': { role: 'primary', what: 'rendering' },
  '72': { role: 'primary', what: 'operating' },
  '71': { role: 'supervisor', what: 'attending' },
  DQ: { role: 'supervisor', what: 'supervising' },
  ZZ: { role: 'assist', what: 'other operating' },
  DN: { role: 'other', what: 'referring' },
  P3: { role: 'other', what: 'primary care' },
};

/** What a note says of a provider that is no line's payee, left out of the care team. */
const LEFT_OUT = 'left out of the care team: tpa pays the billing provider and each line’s rendering provider, and no one else of the claim';

/** HI qualifiers of diagnoses: ICD-10-CM (AB…) and ICD-9-CM, principal, other, admitting, reason for visit, external cause. */
const DIAGNOSIS_QUALIFIERS: Record<string, { system: string; type?: string; pointable: boolean }> = {
  ABK: { system: ICD10_SYSTEM, type: 'principal', pointable: true },
  ABF: { system: ICD10_SYSTEM, pointable: true },
  ABJ: { system: ICD10_SYSTEM, type: 'admitting', pointable: false },
  APR: { system: ICD10_SYSTEM, pointable: false },
  ABN: { system: ICD10_SYSTEM, pointable: false },
  BK: { system: ICD9_SYSTEM, type: 'principal', pointable: true },
  BF: { system: ICD9_SYSTEM, pointable: true },
  BJ: { system: ICD9_SYSTEM, type: 'admitting', pointable: false },
  PR: { system: ICD9_SYSTEM, pointable: false },
  BN: { system: ICD9_SYSTEM, pointable: false },
};
/**
 * HI qualifiers kept as supporting information: condition (BG), occurrence (BH), occurrence span
 * (BI), value (BE), treatment (TC) codes, the DRG (DR), and an anesthesia-related procedure (BP, BO).
 */
const INFO_QUALIFIERS = new Set(['BG', 'BH', 'BI', 'BE', 'TC', 'DR', 'BP', 'BO']);

/** An HI composite's parts after its code, by number: what a refusal names. */
const HI_PART: Record<number, string> = {
  3: 'a date format',
  4: 'a date',
  5: 'an amount',
  6: 'a quantity',
  7: 'a code list version',
  8: 'an industry code',
  9: 'a present-on-admission indicator',
  10: 'a part the 837 does not define',
};
/** HI0x-9 present on admission (837I) as FHIR's ex-diagnosis-on-admission codes. */
const POA: Record<string, string> = { Y: 'y', N: 'n', U: 'u', W: 'w' };
const ON_ADMISSION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/ex-diagnosis-on-admission';

/** ICD procedure codes of an 837I: ICD-10-PCS (BBR principal, BBQ other). ICD-9 procedures (BR, BQ) are refused. */
const PROCEDURE_QUALIFIERS: Record<string, string | undefined> = { BBR: 'principal', BBQ: undefined };

/** An ICD code as FHIR writes it, with its dot: X12 sends `K635`, FHIR `K63.5` (ICD-9: `25000` → `250.00`, `E8809` → `E880.9`). */
export function icdWithDot(code: string, system: string): string {
  if (code.includes('.')) return code;
  const at = system === ICD9_SYSTEM && code.startsWith('E') ? 4 : 3;
  return code.length > at ? `${code.slice(0, at)}.${code.slice(at)}` : code;
}

/** CCYYMMDD → YYYY-MM-DD, or undefined when it is no calendar date. */
function x12Date(text: string): string | undefined {
  if (!/^\d{8}$/.test(text)) return undefined;
  const iso = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
  return isoDateProblem(iso) ? undefined : iso;
}

/** A DTP's date (D8) or range (RD8), or why not. */
function dtpPeriod(s: X12Segment): { start: string; end: string } | string {
  const format = element(s, 2);
  const value = element(s, 3);
  if (format === 'D8') {
    const d = x12Date(value);
    return d ? { start: d, end: d } : `DTP03 "${clip(value)}" is not a date (CCYYMMDD)`;
  }
  if (format === 'RD8') {
    const [from, to] = value.split('-');
    const start = x12Date(from ?? '');
    const end = x12Date(to ?? '');
    return start && end ? { start, end } : `DTP03 "${clip(value)}" is not a date range (CCYYMMDD-CCYYMMDD)`;
  }
  return `DTP02 "${clip(format)}" is not a date format tpa reads (D8 or RD8)`;
}

/** A period as a message says it: `2026-01-05` or `2026-01-05 to 2026-01-09`. */
function periodText(p: { start: string; end: string }): string {
  return p.start === p.end ? p.start : `${p.start} to ${p.end}`;
}

/** An X12 decimal (R) as a JSON number, or undefined when it is not a plain non-negative decimal. */
function decimal(text: string): number | undefined {
  return /^\d{1,12}(\.\d*)?$|^\.\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Reads an 837 a segment at a time (`push`), giving each claim as soon as it is complete. `report`,
 * the first reading's findings, puts each envelope problem on the claims it concerns: a claim of a
 * transaction whose counts or control numbers are wrong is not sent.
 */
export class X12ClaimReader {
  private segmentNo = 0;
  // Interchange
  private inInterchange = false;
  private interchanges = 0;
  private isa06 = '';
  private isa13 = '';
  private groupsInInterchange = 0;
  private transactionsOfInterchange: number[] = [];
  // Group
  private inGroup = false;
  private gs06 = '';
  private gs08 = '';
  private transactionsInGroup = 0;
  private transactionsOfGroup: number[] = [];
  // Transaction
  private inTransaction = false;
  private transactionNo = 0;
  private st02 = '';
  private segmentsInTransaction = 0;
  private claimsInTransaction = 0;
  private claimsInFile = 0;
  private type: ClaimType | undefined;
  private typeProblem: string | undefined;
  private created = '';
  private level = '';
  private billing: Party | undefined;
  private billingProblem: string | undefined;
  /** The subscriber loop's member (NM1*IL), its payer sequence (SBR01) and, once its SBR is read, its relationship to the patient (SBR02: 18 is self). */
  private subscriber: { memberId: string; name: string | null; sbr01: string; sbr02?: string } | undefined;
  private subscriberProblem: string | undefined;
  /** The payer's id (NM1*PR NM109) cannot be read as one. */
  private payerProblem: string | undefined;
  private payer: { id: string; name: string | null } | undefined;
  private patientName: string | null = null;
  private inPatientLoop = false;
  /** The patient loop's (2000C) dependent: PAT01, NM1*QC's names (and an NM109, which 5010 does not use), DMG's birth date and gender. */
  private dependent: DependentLoop | undefined;
  /** A patient (NM1*QC) named outside a patient loop (2000C): a second person beside the subscriber, said at the claim. */
  private strayPatient: string | undefined;
  private draft: ClaimDraft | undefined;
  private line: Line | undefined;
  private afterClm = false;
  /** Inside a loop 2320/2330 (another payer, after an SBR in the claim): its NM1s are that payer's, not this claim's. */
  private otherPayer = false;
  private readonly found: X12Problem[] = [];
  /** What the interchange and transaction say of their purpose: ISA15 (P production, T test) and BHT06 (CH a claim for payment). */
  private isa15 = '';
  private bht06: string | undefined;
  private bhtSeen = false;
  /** The BHT's elements that cannot be read as sent (componentProblems): problems of each claim of the transaction set. */
  private bhtProblems: { segment: string; message: string }[] = [];
  /** The hierarchy: each HL01 of the transaction by its level, the one being read of each level, and the problems of each level's loop. */
  private readonly hlLevels = new Map<string, string>();
  private hlCount = 0;
  private readonly currentHl = new Map<string, string>();
  private readonly loopProblems = new Map<string, { segment: string; message: string }[]>();
  private readonly loopSeen = new Map<string, Set<string>>();
  /** What the first of each once-only segment of a loop said, by level and segment. */
  private readonly loopFirsts = new Map<string, Map<string, string>>();
  /** Inside an interchange whose ISA declares another element separator than the first: not read, up to the next ISA. */
  private foreign = false;
  private firstIsa16: string | undefined;
  private readonly byTransaction = new Map<number, X12Problem[]>();
  private readonly claimsOfTransaction = new Map<number, number>();
  /** The CLM01s of the transaction set being read: a repeated one makes the claim's place part of its identity. */
  private readonly clm01sOfTransaction = new Set<string>();

  constructor(private readonly options: { report?: EnvelopeReport; mapping?: boolean } = {}) {}

  private get mapping(): boolean {
    return this.options.mapping !== false;
  }

  private transactionPlace(): string {
    const isa = (this.options.report?.interchanges ?? 1) > 1 ? `ISA ${this.isa13}, ` : '';
    return `${isa}ST ${this.st02}`;
  }

  /** An envelope problem falling on the given transactions (the current one when none are named). */
  private envelope(place: string, message: string, transactions: readonly number[] = this.inTransaction ? [this.transactionNo] : [], segment?: string): void {
    const problem: X12Problem = segment ? { place, message, segment } : { place, message };
    this.found.push(problem);
    for (const t of transactions) {
      const list = this.byTransaction.get(t) ?? [];
      list.push(problem);
      this.byTransaction.set(t, list);
    }
  }

  /** Takes one segment; returns the claims (and problems) it completes. */
  push(s: X12Segment): X12Event[] {
    const out: X12Event[] = [];
    const name = s.name;
    // Line breaks after the last terminator come out as a segment of nothing.
    if (name === '' && s['1'] === undefined) return out;
    this.segmentNo++;
    if (this.otherDelimiters(name, out)) return out;
    if (!/^[A-Z][A-Z0-9]{1,2}$/.test(name)) {
      this.envelope(`segment ${this.segmentNo}`, `${JSON.stringify(clip(name))} is not an X12 segment (its delimiters are not the ISA's?)`);
      return out;
    }
    if (this.inTransaction) this.segmentsInTransaction++;
    switch (name) {
      case 'ISA':
        this.isa(s, out);
        return out;
      case 'IEA':
        this.iea(s, out);
        return out;
      case 'GS':
        this.gs(s, out);
        return out;
      case 'GE':
        this.ge(s, out);
        return out;
      case 'ST':
        this.st(s, out);
        return out;
      case 'SE':
        this.se(s, out);
        return out;
    }
    if (!this.inTransaction) {
      this.envelope(`segment ${this.segmentNo}`, `${name} outside a transaction set (ST … SE)`);
      return out;
    }
    if (this.typeProblem !== undefined) return out;
    this.body(s, out);
    return out;
  }

  /**
   * An ISA with another element separator than the first comes out whole, as a segment of no name:
   * said once, and its interchange is not read (its segments would each be garbage) up to the next
   * ISA of the first's delimiters. True when the segment is taken so.
   */
  private otherDelimiters(name: string, out: X12Event[]): boolean {
    if (name.startsWith('ISA') && name.length >= ISA_LENGTH - 1 && !/[A-Za-z0-9 ]/.test(name[3]!)) {
      if (this.inInterchange) this.close(out, 'the next ISA begins');
      this.foreign = true;
      const elements = name.split(name[3]!);
      const isa13 = clip(elements[13] ?? '');
      this.envelope(
        `ISA ${isa13}`,
        `declares other delimiters than the first interchange: element ${JSON.stringify(name[3])}, component ${JSON.stringify(name[104] ?? '')}; this interchange is not read: give each such interchange a file of its own`,
      );
      return true;
    }
    if (name === 'ISA') this.foreign = false;
    return this.foreign;
  }

  /** The end of the input: what is still open is a problem. */
  end(): X12Event[] {
    const out: X12Event[] = [];
    this.close(out, 'the file ends');
    if (this.interchanges === 0) this.envelope('file', 'holds no interchange (ISA)');
    return out;
  }

  /** Closes what is open (at the end of the file, or at an ISA inside an interchange): each is a problem. */
  private close(out: X12Event[], where: string): void {
    if (this.inTransaction) {
      this.flushClaim(out);
      this.envelope(this.transactionPlace(), `${where} inside this transaction set: no SE`);
      this.claimsOfTransaction.set(this.transactionNo, this.claimsInTransaction);
    }
    if (this.inGroup) this.envelope(`GS ${this.gs06}`, `${where} inside this functional group: no GE`, this.transactionsOfGroup);
    if (this.inInterchange) this.envelope(`ISA ${this.isa13}`, `${where} inside this interchange: no IEA`, this.transactionsOfInterchange);
    this.inTransaction = this.inGroup = this.inInterchange = false;
  }

  /** What this reading found wrong with the envelopes (the first reading's result). */
  report(): EnvelopeReport {
    const byTransaction = new Map<number, X12Problem[]>();
    const attached = new Set<X12Problem>();
    for (const [t, problems] of this.byTransaction) {
      if ((this.claimsOfTransaction.get(t) ?? 0) === 0) continue;
      byTransaction.set(t, problems);
      for (const p of problems) attached.add(p);
    }
    const loose = this.found.filter((p) => !attached.has(p));
    return { byTransaction, loose, interchanges: this.interchanges, claims: this.claimsInFile };
  }

  private isa(s: X12Segment, out: X12Event[]): void {
    if (this.inInterchange) this.close(out, 'the next ISA begins');
    this.interchanges++;
    this.inInterchange = true;
    this.isa06 = element(s, 6).trim();
    this.isa13 = element(s, 13);
    this.isa15 = element(s, 15);
    this.groupsInInterchange = 0;
    this.transactionsOfInterchange = [];
    this.firstIsa16 ??= element(s, 16);
    if (element(s, 16) !== this.firstIsa16 || s['17'] !== undefined)
      this.envelope(`ISA ${this.isa13}`, 'its delimiters differ from the first interchange of the file: give each such interchange a file of its own');
  }

  private iea(s: X12Segment, _out: X12Event[]): void {
    const place = `ISA ${this.isa13}`;
    if (!this.inInterchange) return void this.envelope(`segment ${this.segmentNo}`, 'IEA without an ISA before it');
    if (this.inGroup) {
      this.envelope(`GS ${this.gs06}`, 'no GE before the IEA', this.transactionsOfGroup);
      this.inGroup = false;
    }
    if (element(s, 2) !== this.isa13)
      this.envelope(place, `IEA02 "${clip(element(s, 2))}" is not the ISA13 control number "${this.isa13}"`, this.transactionsOfInterchange);
    if (element(s, 1) !== String(this.groupsInInterchange))
      this.envelope(
        place,
        `IEA01 says ${clip(element(s, 1))} functional group(s); the interchange holds ${this.groupsInInterchange}`,
        this.transactionsOfInterchange,
      );
    this.inInterchange = false;
  }

  private gs(s: X12Segment, _out: X12Event[]): void {
    if (!this.inInterchange) this.envelope(`segment ${this.segmentNo}`, 'GS outside an interchange (ISA … IEA)');
    if (this.inGroup) this.envelope(`GS ${this.gs06}`, 'no GE before the next GS', this.transactionsOfGroup);
    this.inGroup = true;
    this.groupsInInterchange++;
    this.gs06 = element(s, 6);
    this.gs08 = element(s, 8);
    this.transactionsInGroup = 0;
    this.transactionsOfGroup = [];
  }

  private ge(s: X12Segment, _out: X12Event[]): void {
    const place = `GS ${this.gs06}`;
    if (!this.inGroup) return void this.envelope(`segment ${this.segmentNo}`, 'GE without a GS before it');
    if (element(s, 2) !== this.gs06)
      this.envelope(place, `GE02 "${clip(element(s, 2))}" is not the GS06 control number "${this.gs06}"`, this.transactionsOfGroup);
    if (element(s, 1) !== String(this.transactionsInGroup))
      this.envelope(place, `GE01 says ${clip(element(s, 1))} transaction set(s); the group holds ${this.transactionsInGroup}`, this.transactionsOfGroup);
    this.inGroup = false;
  }

  private st(s: X12Segment, out: X12Event[]): void {
    if (this.inTransaction) {
      this.flushClaim(out);
      this.envelope(this.transactionPlace(), 'no SE before the next ST');
    }
    if (!this.inGroup) this.envelope(`segment ${this.segmentNo}`, 'ST outside a functional group (GS … GE)');
    this.transactionNo++;
    this.transactionsInGroup++;
    this.transactionsOfGroup.push(this.transactionNo);
    this.transactionsOfInterchange.push(this.transactionNo);
    this.inTransaction = true;
    this.st02 = element(s, 2);
    this.segmentsInTransaction = 1;
    this.claimsInTransaction = 0;
    this.clm01sOfTransaction.clear();
    this.created = '';
    this.level = '';
    this.billing = this.subscriber = this.payer = this.draft = this.line = undefined;
    this.billingProblem = this.subscriberProblem = this.payerProblem = undefined;
    this.resetHierarchy();
    const version = element(s, 3) || this.gs08;
    this.type = version.includes('X222') ? 'professional' : version.includes('X223') ? 'institutional' : undefined;
    this.typeProblem =
      element(s, 1) !== '837'
        ? `transaction set ${clip(element(s, 1))}, not an 837 claim`
        : this.type
          ? undefined
          : `version ${clip(version)} is not one tpa reads: 837P (005010X222A1) or 837I (005010X223A2)`;
    if (this.typeProblem) this.envelope(this.transactionPlace(), this.typeProblem);
  }

  private se(s: X12Segment, out: X12Event[]): void {
    if (!this.inTransaction) return void this.envelope(`segment ${this.segmentNo}`, 'SE without an ST before it');
    this.flushClaim(out);
    const place = this.transactionPlace();
    if (element(s, 2) !== this.st02) this.envelope(place, `SE02 "${clip(element(s, 2))}" is not the ST02 control number "${this.st02}"`);
    if (element(s, 1) !== String(this.segmentsInTransaction))
      this.envelope(place, `SE01 says ${clip(element(s, 1))} segments; the transaction set has ${this.segmentsInTransaction} (ST to SE)`);
    if (this.claimsInTransaction === 0 && !this.typeProblem) this.envelope(place, 'holds no claim (CLM)');
    this.claimsOfTransaction.set(this.transactionNo, this.claimsInTransaction);
    this.inTransaction = false;
  }

  /** A segment inside a transaction set: the hierarchy, the claim and its lines. */
  private body(s: X12Segment, out: X12Event[]): void {
    const name = s.name;
    if (name === 'BHT') {
      // A transaction set begins once: a second BHT would say again what its claims are (BHT06), and
      // neither is taken; every claim of the set is refused (the first reading tells them all).
      if (this.bhtSeen)
        return void this.envelope(
          this.transactionPlace(),
          'a second BHT in the transaction set: a transaction set has one beginning (BHT), which says what its claims are (BHT06); tpa does not choose between them',
          undefined,
          'BHT',
        );
      this.bhtSeen = true;
      this.bhtProblems = componentProblems(s).map((p) => ({ segment: 'BHT', message: p.message }));
      this.created = x12Date(element(s, 4)) ?? '';
      this.bht06 = element(s, 6);
      return;
    }
    if (name === 'HL') {
      this.flushClaim(out);
      this.level = element(s, 3);
      this.strayPatient = undefined;
      if (this.mapping) {
        this.hierarchy(s);
        this.loopComponents(s, `HL*${clip(element(s, 1))}`);
      }
      if (this.level === '20') {
        this.billing = undefined;
        this.billingProblem = 'no billing provider (loop 2010AA, NM1*85)';
        // A claim belongs to a subscriber of this billing provider: never to the one before it.
        this.subscriber = this.payer = this.payerProblem = this.dependent = undefined;
        this.patientName = null;
        this.inPatientLoop = false;
        this.subscriberProblem = 'no subscriber loop (HL 22, NM1*IL) under its billing provider (HL 20): the claim would be another member’s';
      } else if (this.level === '22') {
        this.subscriber = this.dependent = undefined;
        this.payer = this.payerProblem = undefined;
        this.patientName = null;
        this.inPatientLoop = false;
        this.subscriberProblem = 'no subscriber (loop 2010BA, NM1*IL)';
      } else if (this.level === '23') {
        this.inPatientLoop = true;
        this.patientName = null;
        this.dependent = { relationship: '', family: '', given: [], id: '', birthDate: undefined, gender: '', named: false, dmg: undefined };
      }
      return;
    }
    if (name === 'CLM') {
      this.flushClaim(out);
      this.claimsInTransaction++;
      this.claimsInFile++;
      this.afterClm = true;
      this.draft = {
        clm01: element(s, 1),
        ordinal: this.claimsInTransaction,
        charge: element(s, 2),
        placeOfService: element(s, 5),
        frequency: element(s, 5, 3),
        statement: undefined,
        preauth: [],
        diagnoses: [],
        pointable: [],
        procedures: [],
        info: [],
        hiSegments: 0,
        careTeam: [],
        facility: undefined,
        lines: [],
        problems: [],
        notes: [],
        dates: new Map(),
      };
      this.line = undefined;
      if (!this.mapping) return;
      const d = this.draft;
      if (d.clm01 === '') d.problems.push({ segment: 'CLM', message: 'CLM01 (the patient control number, the claim’s id) is missing' });
      const clm01 = clm01Problem(d.clm01);
      if (clm01) d.problems.push({ segment: 'CLM', message: clm01 });
      for (const p of componentProblems(s)) d.problems.push({ segment: 'CLM', message: p.message });
      const other = this.otherComponentSeparator(s, 5);
      if (other) d.problems.push({ segment: 'CLM', message: other });
      // CLM05-3: 1 an original claim, 7 a replacement and 8 a void of the claim REF*F8 names
      // (docs/x12.md "Corrected and void claims"); another frequency is refused.
      const frequency = element(s, 5, 3);
      if (frequency === '7' || frequency === '8') d.correction = frequency;
      else if (frequency !== '' && frequency !== '1')
        d.problems.push({
          segment: 'CLM',
          message: `CLM05-3 is ${clip(frequency)} (a change to an earlier claim): tpa takes original claims (1), replacements (7) and voids (8) only`,
        });
      return;
    }
    if (!this.afterClm) {
      this.header(s);
      return;
    }
    if (this.mapping) this.claimSegment(s);
  }

  /** A segment of the billing provider, subscriber or patient loops. */
  private header(s: X12Segment): void {
    if (this.mapping) {
      // A second of a segment the loop has once is refused (repeatedInLoop): the loop is judged from
      // the first alone, never from the one refused.
      if (this.repeatedInLoop(s)) return;
      this.headerComponents(s);
    }
    if (s.name === 'NM1') {
      const entity = element(s, 1);
      if (entity === '85' && this.level === '20') {
        const party = this.party(s, 'NM1*85');
        if (typeof party === 'string') this.billingProblem = `billing provider (NM1*85): ${party}`;
        else {
          this.billing = party;
          this.billingProblem = undefined;
        }
      } else if (entity === 'IL' && this.level === '22') {
        const qualifier = element(s, 8);
        const id = element(s, 9);
        const parts = componentsInSimpleElement(s, 9, "the subscriber's member id");
        if (parts) this.subscriberProblem = `the subscriber (NM1*IL): ${parts}`;
        else if (id === '') this.subscriberProblem = `the subscriber (NM1*IL) has no member id (NM109; NM108 "${clip(qualifier)}")`;
        else {
          this.subscriber = {
            memberId: id,
            name: personName(s),
            sbr01: this.subscriber?.sbr01 ?? '',
            ...(this.subscriber?.sbr02 !== undefined ? { sbr02: this.subscriber.sbr02 } : {}),
          };
          this.subscriberProblem = undefined;
        }
      } else if (entity === 'PR' && this.level === '22') {
        this.payer = { id: element(s, 9), name: element(s, 3) || null };
        this.payerProblem = componentsInSimpleElement(s, 9, "the payer's id");
      } else if (entity === 'QC' && this.inPatientLoop) {
        this.patientName = personName(s);
        if (this.dependent) {
          this.dependent.named = true;
          this.dependent.family = element(s, 3);
          this.dependent.given = [element(s, 4), element(s, 5)].filter((g) => g !== '');
          this.dependent.id = element(s, 9);
        }
      } else if (entity === '82' && this.level !== '') {
        // A rendering provider is the claim's (2310B, after CLM) or a line's (2420A): one before the
        // CLM is of no claim, and reading on would pay its lines to the billing provider instead.
        const list = this.loopProblems.get(this.level) ?? [];
        list.push({
          segment: 'NM1*82',
          message: `a rendering provider (NM1*82${element(s, 9) ? `, NPI ${clip(element(s, 9))}` : ''}) in the ${X12ClaimReader.LEVEL_NAME[this.level] ?? 'header'} loop${this.level === '20' ? ' (2000A)' : this.level === '22' ? ' (2000B)' : this.level === '23' ? ' (2000C)' : ''}, before the CLM: it belongs in the claim (loop 2310B, after CLM) or a service line (loop 2420A); the claim is not paid to the billing provider in its stead`,
        });
        this.loopProblems.set(this.level, list);
      } else if (entity === 'QC') {
        // The subscriber loop names its member once (NM1*IL, SBR02 18: the patient); a patient named
        // beside it is a second answer to "who is the patient", and neither is chosen.
        const id = element(s, 9);
        const name = personName(s);
        const who = [name ? clip(name) : '', id ? `NM109 ${clip(id)}` : ''].filter(Boolean).join(', ');
        this.strayPatient = `a patient (NM1*QC${who ? `: ${who}` : ''}) is named outside a patient loop (HL 23), beside the subscriber${this.subscriber?.memberId ? ` ${clip(this.subscriber.memberId)}` : ''} (NM1*IL): which person the claim is for is not for tpa to guess; send the patient as the subscriber (SBR02 18, NM1*IL) alone`;
      }
      return;
    }
    if (s.name === 'PAT' && this.dependent) {
      this.dependent.relationship = element(s, 1);
      // A patient loop names a dependent: PAT01 18 (self) says the patient is the subscriber, whom the
      // subscriber loop names.
      if (element(s, 1) === '18' && this.inPatientLoop) {
        const list = this.loopProblems.get(this.level) ?? [];
        list.push({
          segment: 'PAT',
          message:
            'PAT01 is 18 (self) in a patient loop (2000C): a patient loop names a dependent, not the subscriber; send the subscriber’s own claim as the subscriber (SBR02 18) with no patient loop',
        });
        this.loopProblems.set(this.level, list);
      }
    }
    if (s.name === 'DMG' && this.dependent && this.inPatientLoop) {
      const format = element(s, 1);
      const date = element(s, 2);
      const birth = format === 'D8' ? x12Date(date) : undefined;
      this.dependent.dmg = birth
        ? undefined
        : `DMG02 ${date === '' ? 'is missing' : `"${clip(date)}"`}${format === 'D8' ? '' : ` (DMG01 "${clip(format)}", not D8)`}: the dependent's date of birth (CCYYMMDD)`;
      this.dependent.birthDate = birth;
      this.dependent.gender = element(s, 3);
    }
    if (s.name === 'SBR' && this.level === '22') {
      this.subscriber = { memberId: this.subscriber?.memberId ?? '', name: this.subscriber?.name ?? null, sbr01: element(s, 1), sbr02: element(s, 2) };
    }
  }

  /** An NM1 of a provider: its NPI (NM108 XX, NM109) and name, or why it has none. */
  private party(s: X12Segment, segment: string): Party | string {
    const qualifier = element(s, 8);
    const id = element(s, 9);
    const parts = componentsInSimpleElement(s, 9, 'the NPI');
    if (parts) return parts;
    if (qualifier !== 'XX' || id === '') return `has no NPI (NM108 must be XX, with the NPI in NM109; got "${clip(qualifier)}")`;
    return { npi: id, name: element(s, 2) === '2' ? element(s, 3) || null : personName(s), qualifier: element(s, 1), segment };
  }

  /** A segment of the claim (loop 2300 and below). */
  private claimSegment(s: X12Segment): void {
    const d = this.draft!;
    const name = s.name;
    const line = this.line;
    const here = line ? `${line.kind} #${line.n}` : name;
    this.claimComponents(s, d, here);
    switch (name) {
      case 'LX': {
        this.otherPayer = false;
        this.lineWithoutService(d);
        this.line = {
          n: d.lines.length + 1,
          kind: this.type === 'institutional' ? 'SV2' : 'SV1',
          revenue: null,
          code: '',
          modifiers: [],
          charge: '',
          units: '',
          unitBasis: '',
          place: null,
          pointers: [],
          date: undefined,
          rendering: undefined,
          preauth: [],
          controlNumber: null,
        };
        d.lines.push(this.line);
        return;
      }
      case 'SV1':
      case 'SV2':
        return void this.serviceLine(s, d);
      case 'DTP': {
        const qualifier = element(s, 1);
        if (qualifier !== '472' && qualifier !== '434') return;
        const period = dtpPeriod(s);
        const segment = line ? `${here}, DTP*${qualifier}` : `DTP*${qualifier}`;
        if (typeof period === 'string') return void d.problems.push({ segment, message: period });
        if (!line && d.dates.has(qualifier)) {
          const first = d.dates.get(qualifier)!;
          if (first.start !== period.start || first.end !== period.end)
            d.problems.push({
              segment,
              message: `a second DTP*${qualifier} (${periodText(period)}), but the first says ${periodText(first)}: the claim has one ${qualifier === '434' ? 'statement period' : 'date of service'}, and which is not for tpa to guess`,
            });
          return;
        }
        if (!line) d.dates.set(qualifier, period);
        if (qualifier === '434' && !line) d.statement = period;
        else if (qualifier === '472' && line && repeatedOnLine(line, 'DTP*472'))
          d.problems.push({ segment, message: `a second DTP*472 on service line ${line.n}: a line has one date of service; this one is not read` });
        else if (qualifier === '472' && line) line.date = period;
        else if (qualifier === '472') d.statement ??= period;
        return;
      }
      case 'REF':
        if (element(s, 1) === 'F8' && !line && element(s, 2).trim() !== '') {
          // A claim changes one earlier claim: a second REF*F8 naming another is two answers, and neither
          // is taken (the same one twice is one).
          const prior = element(s, 2).trim();
          if (d.priorClaim === undefined) d.priorClaim = prior;
          else if (d.correction && d.priorClaim !== prior)
            d.problems.push({
              segment: 'REF*F8',
              message: `a second REF*F8 names claim ${clip(prior)}, but the first names ${clip(d.priorClaim)}: a replacement or void changes one claim, and which one is not for tpa to guess`,
            });
        } else if (element(s, 1) === 'G1' && element(s, 2) !== '' && !line && d.preauth.length > 0) {
          // Loop 2300 has one prior authorization (a line may have its own): a second naming another
          // is two answers; the same one again is one.
          if (!d.preauth.includes(element(s, 2)))
            d.problems.push({
              segment: 'REF*G1',
              message: `a second REF*G1 on the claim names authorization ${clip(element(s, 2))}, but the first names ${clip(d.preauth[0]!)}: a claim has one prior authorization (a line may carry its own), and which is meant is not for tpa to guess`,
            });
        } else if (element(s, 1) === 'G1' && element(s, 2) !== '') (line ? line.preauth : d.preauth).push(element(s, 2));
        else if (element(s, 1) === '6R' && line && repeatedOnLine(line, 'REF*6R'))
          d.problems.push({
            segment: `${here}, REF*6R`,
            message: `a second REF*6R on service line ${line.n}: a line has one line control number (the 835 gives back one)`,
          });
        else if (element(s, 1) === '6R' && line && element(s, 2).trim() !== '') line.controlNumber = element(s, 2).trim();
        return;
      case 'HI':
        if (!line) {
          d.hiSegments++;
          this.hi(s, d);
        }
        return;
      case 'NM1': {
        const entity = element(s, 1);
        // A subscriber, billing provider or payer begins a loop of its own (a new HL): inside a claim
        // (not another payer's loop 2320/2330) it would say the claim is someone else's.
        if ((entity === 'IL' || entity === 'QC' || entity === '85' || entity === 'PR') && !this.otherPayer) {
          d.problems.push({
            segment: line ? `${here}, NM1*${entity}` : `NM1*${entity}`,
            message: `NM1*${entity} inside the claim, with no HL before it: a ${entity === 'IL' ? 'subscriber' : entity === 'QC' ? 'patient' : entity === '85' ? 'billing provider' : 'payer'} begins its own loop; the claim is not read as anyone's`,
          });
          return;
        }
        const known = FRIENDLY_ROLE[entity];
        if ((!known && entity !== '77') || this.otherPayer) return;
        const segment = line ? `${here}, NM1*${entity}` : `NM1*${entity}`;
        const party = this.party(s, segment);
        // Only the rendering provider is paid (and the billing one, read elsewhere): one that is not
        // (an attending physician from outside the plan, one known by a legacy id) is said and left out.
        if (NOT_PAID.has(entity)) {
          const who = typeof party === 'string' ? party : `NPI ${clip(party.npi)}${party.name ? ` (${clip(party.name)})` : ''}`;
          d.notes.push({ segment, message: `the ${known!.what} provider ${typeof party === 'string' ? who : `is ${who}`}: ${LEFT_OUT}` });
          return;
        }
        if (typeof party === 'string') {
          d.problems.push({ segment, message: `the ${known?.what ?? 'service facility'} provider ${party}` });
          return;
        }
        // A provider loop (2310x, 2420A) names one provider: a second NM1 of it naming another NPI is
        // two answers to who it is, and neither is taken; naming the same NPI again adds nothing.
        const claimLevel = entity === '77' ? d.facility : d.careTeam.find((p) => p.qualifier === entity);
        const before = line ? (entity === '82' ? line.rendering : undefined) : claimLevel;
        if (before) {
          if (before.npi !== party.npi)
            d.problems.push({
              segment,
              message: `a second ${known?.what ?? 'service facility'} provider (NM1*${entity}) ${line ? `on service line ${line.n}` : 'on the claim'}: NPI ${clip(party.npi)}, but the first names NPI ${clip(before.npi)}; which provider is meant is not for tpa to guess`,
            });
          return;
        }
        if (entity === '77') {
          if (!line) d.facility = party;
          return;
        }
        if (line && entity === '82') line.rendering = party;
        else if (!line) d.careTeam.push(party);
        return;
      }
      case 'SBR': {
        this.otherPayer = true;
        const sequence = element(s, 1);
        // Another payer after tpa's plan (S, T…) does not change what tpa, the primary, pays; one
        // that is primary itself does, and tpa does not coordinate benefits.
        if (sequence !== 'P' && this.subscriber?.sbr01 === 'P')
          d.notes.push({
            segment: 'SBR',
            message: `another payer follows tpa's plan (loop 2320, SBR01 ${clip(sequence)}): tpa pays as the primary payer, and its coverage is not sent`,
          });
        else
          d.problems.push({
            segment: 'SBR',
            message: `another payer (loop 2320, SBR01 ${clip(sequence)}) is on the claim: tpa pays as the only payer and does not coordinate benefits with another`,
          });
        return;
      }
      case 'AMT':
        // What another payer already paid (loop 2320 AMT*D): that payer paid first.
        if (this.otherPayer && element(s, 1) === 'D')
          d.problems.push({
            segment: 'AMT*D',
            message: 'another payer has paid on this claim (loop 2320, AMT*D): tpa pays as the primary payer and does not coordinate benefits with another',
          });
        return;
      case 'SVD':
        d.problems.push({
          segment: line ? `${here}, SVD` : 'SVD',
          message: 'another payer’s adjudication of this line (loop 2430): tpa does not coordinate benefits with another payer',
        });
        return;
    }
  }

  /**
   * The elements of a claim segment tpa reads (LX, SV1, SV2, DTP*472/434, REF*F8/G1/6R, the NM1 of
   * a provider who is paid or is the facility, SBR) that hold what cannot be read as sent
   * (componentProblems), as the claim's problems. A provider's NPI (NM109) is checked where it is
   * read (party); a provider who is not paid (an attending) is said and left out, whatever it holds.
   */
  private claimComponents(s: X12Segment, d: ClaimDraft, here: string): void {
    const name = s.name;
    const first = element(s, 1);
    let segment: string | undefined;
    if (name === 'LX') segment = `LX #${d.lines.length + 1}`;
    else if (name === 'SV1' || name === 'SV2') segment = this.line ? `${name} #${this.line.n}` : name;
    else if ((name === 'DTP' && (first === '472' || first === '434')) || (name === 'REF' && (first === 'F8' || first === 'G1' || first === '6R')))
      segment = this.line ? `${here}, ${name}*${first}` : `${name}*${first}`;
    else if (name === 'NM1' && !this.otherPayer && !NOT_PAID.has(first) && (FRIENDLY_ROLE[first] !== undefined || first === '77'))
      segment = this.line ? `${here}, NM1*${first}` : `NM1*${first}`;
    else if (name === 'SBR') segment = 'SBR';
    if (segment === undefined) return;
    for (const p of componentProblems(s, name === 'NM1' ? [9] : [])) d.problems.push({ segment, message: p.message });
  }

  /**
   * The service line being read, when it has no SV1 or SV2 (an LX followed by another LX, or by
   * the end of the claim): said once, at its LX, and left out of the claim, so that what it lacks
   * (a procedure, a charge, a date) is not said again of an empty line.
   */
  private lineWithoutService(d: ClaimDraft): void {
    const line = this.line;
    if (!line || line.seen?.has('SV') || line.empty) return;
    line.empty = true;
    const kinds = this.type === 'institutional' ? 'SV2' : this.type === 'professional' ? 'SV1' : 'SV1 or SV2';
    d.problems.push({
      segment: `LX #${line.n}`,
      message: `LX ${line.n} has no ${kinds}: a service line (LX) has one ${kinds}, which says what was done, for what charge and on what date; the claim is not read without it`,
    });
  }

  private serviceLine(s: X12Segment, d: ClaimDraft): void {
    const line = this.line;
    const kind = s.name as 'SV1' | 'SV2';
    if (!line) return void d.problems.push({ segment: kind, message: `${kind} outside a service line (no LX before it)` });
    if (repeatedOnLine(line, 'SV'))
      return void d.problems.push({
        segment: `${line.kind} #${line.n}`,
        message: `a second ${kind} in service line ${line.n} (LX): a service line has one; this one is not read`,
      });
    line.kind = kind;
    const segment = `${kind} #${line.n}`;
    const problem = (message: string): void => {
      d.problems.push({ segment, message });
    };
    if ((kind === 'SV1') !== (this.type === 'professional')) return void problem(`${kind} in an ${this.type} claim: an 837P has SV1 lines, an 837I SV2 lines`);
    const composite = kind === 'SV1' ? 1 : 2;
    const qualifier = element(s, composite, 1);
    line.code = element(s, composite, 2);
    for (let c = 3; c <= 6; c++) if (element(s, composite, c) !== '') line.modifiers.push(element(s, composite, c));
    // After the four modifiers come a description (-7) and a product id (-8), which tpa does not
    // price by: one sent (a fifth modifier written there too) is said and left out, never dropped
    // without a word (a not-otherwise-classified code's description is no reason to refuse its claim).
    for (const c of [7, 8])
      if (element(s, composite, c) !== '')
        d.notes.push({
          segment,
          message: `${kind}0${composite}-${c} "${clip(element(s, composite, c))}" (${c === 7 ? 'a description of the procedure' : 'a product or service id'}, after the four modifiers ${kind}0${composite}-3 to -6; a fifth modifier has no place in the 837) is not read: the line is priced by its code and four modifiers`,
        });
    if (this.lineParts(s, kind, problem)) return;
    if (kind === 'SV1') {
      line.charge = element(s, 2);
      line.unitBasis = element(s, 3);
      line.units = element(s, 4);
      line.place = element(s, 5) || null;
      for (let c = 1; c <= 4; c++) {
        const p = element(s, 7, c);
        if (p === '') continue;
        const n = Number(p);
        if (!Number.isInteger(n) || n < 1 || n > 12) problem(`SV107-${c}, diagnosis pointer "${clip(p)}", must be 1 to 12`);
        else line.pointers.push(n);
      }
    } else {
      const revenue = element(s, 1);
      line.revenue = /^\d{3}$/.test(revenue) ? `0${revenue}` : revenue;
      line.charge = element(s, 3);
      line.unitBasis = element(s, 4);
      line.units = element(s, 5);
      // The code set tpa does not price: a revenue code without a procedure code (room and board
      // 0120) is read, and the engine denies the line (CARC-96, M51), as it does a HCPCS Level II code.
      if (line.code === '' && qualifier === '') return;
    }
    // What stays refused is what tpa cannot read: a code set other than HCPCS (HC), or a code that
    // is neither CPT (5 digits) nor HCPCS Level II (a letter A to V and 4 digits).
    if (qualifier !== 'HC')
      return void problem(
        `${kind}0${composite}-1 is "${clip(qualifier)}": tpa reads HCPCS/CPT codes (HC) only, not ${qualifier === 'ER' ? 'jurisdiction-specific codes' : qualifier === 'IV' ? 'home infusion EDI codes' : qualifier === 'WK' ? 'advanced billing concepts codes' : 'that code set'}`,
      );
    if (!/^\d{5}$/.test(line.code) && !HCPCS_LEVEL_II.test(line.code))
      problem(`procedure ${JSON.stringify(clip(line.code))} is neither a CPT code (5 digits) nor a HCPCS Level II code (a letter A to V and 4 digits)`);
  }

  /**
   * What a service line says of its procedure, charge and units, checked so that each fault is said
   * as itself: a composite written with another component separator than ISA16 (not blamed on the
   * code set), a charge or quantity that is missing (not a range error), a unit that is neither UN
   * nor MJ (837P) / UN nor DA (837I). True when the line cannot be read further.
   */
  private lineParts(s: X12Segment, kind: 'SV1' | 'SV2', problem: (message: string) => void): boolean {
    const composite = kind === 'SV1' ? 1 : 2;
    const other = this.otherComponentSeparator(s, composite);
    if (other) {
      problem(other);
      return true;
    }
    const [chargeAt, unitAt, quantityAt] = kind === 'SV1' ? [2, 3, 4] : [3, 4, 5];
    const id = (i: number) => `${kind}${String(i).padStart(2, '0')}`;
    const units = kind === 'SV1' ? ['UN', 'MJ'] : ['UN', 'DA'];
    const unitWords = kind === 'SV1' ? 'UN (units) or MJ (minutes of anesthesia)' : 'UN (units) or DA (days)';
    if (element(s, chargeAt) === '') problem(`${id(chargeAt)} (the line's charge) is missing`);
    const unit = element(s, unitAt);
    if (unit === '') problem(`${id(unitAt)} (the unit of measure) is missing: ${unitWords}`);
    else if (!units.includes(unit)) problem(`${id(unitAt)} "${clip(unit)}" is not a unit tpa reads: ${unitWords}`);
    const quantity = element(s, quantityAt);
    if (quantity === '') problem(`${id(quantityAt)} (the quantity) is missing: how many ${unit === 'MJ' ? 'minutes' : 'units'} the charge is for`);
    else if (quantityProblem(quantity)) problem(`${id(quantityAt)} "${clip(quantity)}" ${quantityProblem(quantity)}`);
    return false;
  }

  /**
   * The problem of a composite element of the segment that holds another character where ISA16
   * should be, when it has no component separator of the ISA's but one of another (`HC>99213` in a
   * file whose ISA16 is `:`): said as such, never blamed on the code set.
   */
  private otherComponentSeparator(s: X12Segment, i: number): string | undefined {
    if (s[`${i}-1`] !== undefined) return undefined;
    const other = /^[A-Z0-9]{1,3}([^A-Za-z0-9 .-])[A-Za-z0-9]/.exec(element(s, i))?.[1];
    if (other === undefined) return undefined;
    return `${s.name}${String(i).padStart(2, '0')} ${JSON.stringify(clip(element(s, i)))} holds ${JSON.stringify(other)} where the ISA declares ${JSON.stringify(this.firstIsa16 ?? '')} as the component separator (ISA16): the file uses another component separator than its ISA says; write the ISA16 it uses`;
  }

  /**
   * An HI segment: each composite's qualifier and code, and what else it carries, kept or refused,
   * never dropped: a diagnosis's present-on-admission indicator (HI0x-9), a procedure's date, an
   * occurrence's date or span (HI0x-3 D8/RD8, HI0x-4), a value code's amount (HI0x-5). A 13th code
   * (HI13…) is refused: an HI holds 12.
   */
  private hi(s: X12Segment, d: ClaimDraft): void {
    const last = Math.max(
      0,
      ...Object.keys(s)
        .map((k) => Number.parseInt(k, 10))
        .filter((n) => Number.isInteger(n)),
    );
    for (let i = 1; i <= last; i++) {
      const qualifier = element(s, i, 1);
      const code = element(s, i, 2);
      if (qualifier === '' && code === '') continue;
      const at = `HI${String(i).padStart(2, '0')}`;
      const problem = (message: string) => void d.problems.push({ segment: `HI #${d.hiSegments}`, message });
      if (i > 12)
        return void problem(
          `${at} (${clip(qualifier)} ${clip(code)}): a code beyond the 12th of one HI segment: an HI holds at most 12 codes; it is not read, and the claim is not sent without it`,
        );
      if (qualifier === '') {
        problem(`${at}-1 is empty: code ${clip(code)} has no qualifier, and what kind of code it is is not for tpa to guess`);
        continue;
      }
      const other = this.otherComponentSeparator(s, i);
      if (other) {
        problem(other);
        continue;
      }
      // The parts of the composite after the code, by number (3 date format, 4 date, 5 amount, 6 quantity, 7 version, 8 industry code, 9 present on admission).
      const parts = new Map<number, string>();
      // Every component sent is read or named, however many there are (a composite has 9).
      let components = 10;
      while (s[`${i}-${components}`] !== undefined) components++;
      for (let c = 3; c <= components; c++) if (element(s, i, c) !== '') parts.set(c, element(s, i, c));
      const take = (c: number): string | undefined => {
        const v = parts.get(c);
        parts.delete(c);
        return v;
      };
      const dated = (): { start: string; end: string } | undefined | string => {
        const format = take(3);
        const value = take(4);
        if (format === undefined && value === undefined) return undefined;
        return dtpPeriod({ name: 'HI', '2': format ?? '', '3': value ?? '' }) as { start: string; end: string } | string;
      };
      const diagnosis = DIAGNOSIS_QUALIFIERS[qualifier];
      let kept: (() => void) | undefined;
      if (diagnosis) {
        // A claim has one principal diagnosis (ABK or BK): a second is two answers.
        const principal = diagnosis.type === 'principal' ? d.diagnoses.find((x) => x.type === 'principal') : undefined;
        if (principal) {
          problem(
            `${at}: a second principal diagnosis (${clip(qualifier)} ${clip(code)}), but ${principal.from ?? 'an earlier HI'} is ${principal.code}: a claim has one principal diagnosis`,
          );
          continue;
        }
        const poa = take(9);
        const onAdmission = poa === undefined ? undefined : POA[poa];
        if (poa !== undefined && onAdmission === undefined) problem(`present-on-admission indicator (${at}-9) "${clip(poa)}" is not one of Y, N, U, W`);
        kept = () => {
          d.diagnoses.push({
            system: diagnosis.system,
            code: icdWithDot(code, diagnosis.system),
            type: diagnosis.type,
            ...(onAdmission ? { onAdmission } : {}),
            from: `HI #${d.hiSegments}, ${at}`,
          });
          if (diagnosis.pointable) d.pointable.push(d.diagnoses.length);
        };
      } else if (qualifier in PROCEDURE_QUALIFIERS) {
        if (this.type !== 'institutional') {
          problem(
            `${at}: ICD-10-PCS procedure ${clip(code)} (${qualifier}) in an 837P: an inpatient procedure code is an 837I’s; an 837P’s procedures are its service lines`,
          );
          continue;
        }
        const date = dated();
        if (typeof date === 'string') problem(date.replace('DTP02', `${at}-3`).replace('DTP03', `${at}-4`));
        else if (date && date.start !== date.end) problem(`${at}-3: a procedure's date is one day (D8), not a range`);
        kept = () =>
          d.procedures.push({
            system: ICD10_PCS_SYSTEM,
            code,
            type: PROCEDURE_QUALIFIERS[qualifier],
            ...(date && typeof date !== 'string' ? { date: date.start } : {}),
            from: `HI #${d.hiSegments}, ${at}`,
          });
      } else if (qualifier === 'BR' || qualifier === 'BQ') {
        problem(`${at}: ICD-9-CM procedure ${clip(code)} (${qualifier}): claims after 2015-10-01 carry ICD-10-PCS (BBR, BBQ)`);
        continue;
      } else if (!INFO_QUALIFIERS.has(qualifier)) {
        // Only the qualifiers of the guides' code lists, as they write them (upper case): any other
        // (`abk`, `XYZ`) would be a code of a kind tpa does not know, kept as if it meant nothing.
        d.problems.push({
          segment: `HI #${d.hiSegments}, ${at}-1`,
          message: `${at}-1 ${JSON.stringify(clip(qualifier))} is not a qualifier of the 837's HI code lists (diagnoses ${Object.keys(DIAGNOSIS_QUALIFIERS).join(', ')}; procedures BBR, BBQ; ${[...INFO_QUALIFIERS].join(', ')}), written as the guide writes it: what kind of code ${clip(code)} is is not for tpa to guess`,
        });
        continue;
      } else {
        // Condition, occurrence, occurrence span, value, treatment codes and DRGs: kept as supporting
        // information, with the date or span of an occurrence (BH, BI: required) and the amount of a
        // value code (BE: required, in cents at most). A part the code's kind does not have is refused below.
        const timed = qualifier === 'BH' || qualifier === 'BI';
        const date = timed ? dated() : undefined;
        if (typeof date === 'string') problem(date.replace('DTP02', `${at}-3`).replace('DTP03', `${at}-4`));
        else if (timed && date === undefined)
          problem(
            `${at} (${qualifier} ${clip(code)}) has no date (${at}-3 D8 or RD8, ${at}-4): an occurrence${qualifier === 'BI' ? ' span' : ''} code carries its date`,
          );
        else if (date && date.start > date.end) problem(`${at}-4: the span ${date.start} to ${date.end} ends before it starts`);
        else if (date && qualifier === 'BH' && date.start !== date.end)
          problem(`${at}-3: an occurrence's date is one day (D8), not a range (an occurrence span is BI)`);
        const amountText = qualifier === 'BE' ? take(5) : undefined;
        const amount = amountText === undefined ? undefined : decimal(amountText);
        if (amountText !== undefined && amount === undefined) problem(`amount (${at}-5) "${clip(amountText)}" is not an amount`);
        else if (amountText !== undefined && !/^\d*(\.\d{0,2})?$/.test(amountText))
          problem(`amount (${at}-5) "${clip(amountText)}" has more than two decimals: an amount is in dollars and cents`);
        else if (qualifier === 'BE' && amountText === undefined) problem(`${at} (BE ${clip(code)}) has no amount (${at}-5): a value code carries its amount`);
        kept = () =>
          d.info.push({
            qualifier,
            code,
            ...(date && typeof date !== 'string' ? { date } : {}),
            ...(amount !== undefined ? { amount } : {}),
            from: `HI #${d.hiSegments}, ${at}`,
          });
      }
      for (const [c, v] of parts)
        problem(
          `${at}-${c} "${clip(v)}" (${HI_PART[c] ?? 'a part'}) is not something tpa reads for a ${clip(qualifier)} code: not kept, so the claim is not sent`,
        );
      kept();
    }
  }

  /**
   * Data that is not a claim for payment (BHT06 other than CH) and an interchange that is neither
   * production nor test (ISA15 other than P or T): refused on every claim they cover. Test data (ISA15
   * T) is read as test: each claim carries the HTEST tag (testDataTagged), which the embedded engine
   * adjudicates and keeps, and which only a service where real money moves refuses (docs/x12.md "Test data").
   */
  private notForPayment(): { segment: string; message: string }[] {
    const out: { segment: string; message: string }[] = [];
    if (this.isa15 !== 'P' && this.isa15 !== 'T')
      out.push({
        segment: 'ISA15',
        message: `ISA15 is ${JSON.stringify(clip(this.isa15))}: an interchange is production data (P) or test data (T)`,
      });
    const bht06 = this.bht06 ?? '';
    if (bht06 !== 'CH') {
      const what =
        bht06 === 'RP' ? ' (reporting: encounter data, not for payment)' : bht06 === '31' ? ' (subrogation demand)' : bht06 === '' ? ' (missing)' : '';
      out.push({ segment: 'BHT06', message: `BHT06 is ${clip(bht06) || '""'}${what}: not a claim for payment (CH), which is all tpa pays` });
    }
    return out;
  }

  /** A new transaction set: its hierarchy starts again. */
  private resetHierarchy(): void {
    this.bht06 = undefined;
    this.bhtSeen = false;
    this.bhtProblems = [];
    this.hlLevels.clear();
    this.hlCount = 0;
    this.currentHl.clear();
    this.loopProblems.clear();
    this.loopSeen.clear();
    this.loopFirsts.clear();
  }

  /** The levels a claim hangs from: billing provider (20), subscriber (22), patient (23), each below the one before. */
  private static readonly PARENT_LEVEL: Record<string, string | undefined> = { '20': undefined, '22': '20', '23': '22' };
  private static readonly LEVEL_NAME: Record<string, string> = { '20': 'billing provider', '22': 'subscriber', '23': 'patient' };

  /** An HL: HL01 counts up by one from 1; HL02 names the HL of the level above that is being read (20 ← 22 ← 23). */
  private hierarchy(s: X12Segment): void {
    const id = element(s, 1);
    const parent = element(s, 2);
    const level = element(s, 3);
    // A new loop of a level ends the loops below it.
    for (const l of level === '20' ? ['20', '22', '23'] : level === '22' ? ['22', '23'] : [level]) {
      this.loopProblems.delete(l);
      this.loopSeen.delete(l);
      this.loopFirsts.delete(l);
      this.currentHl.delete(l);
    }
    const problems: { segment: string; message: string }[] = [];
    const segment = `HL*${clip(id)}`;
    this.hlCount++;
    if (id !== String(this.hlCount))
      problems.push({
        segment,
        message: `HL01 ${JSON.stringify(clip(id))} must be ${this.hlCount}: HL01 counts the HL segments of the transaction set from 1`,
      });
    const expected = X12ClaimReader.PARENT_LEVEL[level];
    if (level in X12ClaimReader.PARENT_LEVEL) {
      const above = expected ? this.currentHl.get(expected) : undefined;
      if (expected === undefined && parent !== '')
        problems.push({ segment, message: `HL02 ${JSON.stringify(clip(parent))}: a billing provider loop (HL 20) has no parent` });
      else if (expected !== undefined && parent !== above) {
        const named = this.hlLevels.get(parent);
        const why =
          named === undefined
            ? 'names no earlier HL'
            : named !== expected
              ? `names an HL of level ${clip(named)}`
              : `names an earlier ${X12ClaimReader.LEVEL_NAME[expected]}, not the one being read`;
        problems.push({
          segment,
          message: `HL02 ${JSON.stringify(clip(parent))} ${why}: this ${X12ClaimReader.LEVEL_NAME[level]} loop hangs from the ${X12ClaimReader.LEVEL_NAME[expected]} loop (HL ${expected})${above ? `, HL ${above}` : ''}`,
        });
      }
    }
    if (!this.hlLevels.has(id)) this.hlLevels.set(id, level);
    this.currentHl.set(level, id);
    this.loopProblems.set(level, problems);
    this.loopSeen.set(level, new Set());
    this.loopFirsts.set(level, new Map());
  }

  /**
   * The elements of a header segment tpa reads (NM1*85, NM1*IL, NM1*PR, NM1*QC, SBR, PAT, DMG) that
   * hold what cannot be read as sent (componentProblems): problems of the claims below. NM109 of a
   * party is checked where it is read (componentsInSimpleElement), a patient's here.
   */
  private headerComponents(s: X12Segment): void {
    const entity = s.name === 'NM1' ? element(s, 1) : '';
    const read =
      s.name === 'NM1'
        ? (entity === '85' && this.level === '20') || ((entity === 'IL' || entity === 'PR') && this.level === '22') || entity === 'QC'
        : s.name === 'SBR'
          ? this.level === '22'
          : (s.name === 'PAT' || s.name === 'DMG') && this.dependent !== undefined;
    if (read) this.loopComponents(s, s.name === 'NM1' ? `NM1*${entity}` : s.name, entity === 'QC' ? [] : [9]);
  }

  /** The component problems (componentProblems) of a segment of the loop being read: problems of the claims below it. */
  private loopComponents(s: X12Segment, segment: string, skip: readonly number[] = []): void {
    const found = componentProblems(s, s.name === 'NM1' ? skip : []);
    if (found.length === 0) return;
    const list = this.loopProblems.get(this.level) ?? [];
    for (const p of found) list.push({ segment, message: p.message });
    this.loopProblems.set(this.level, list);
  }

  /**
   * A segment the billing provider or subscriber loop has once (NM1*85; NM1*IL, NM1*PR, SBR), given
   * twice: a problem of the claims below. True when it is such a second.
   */
  private repeatedInLoop(s: X12Segment): boolean {
    const key = s.name === 'NM1' ? `NM1*${element(s, 1)}` : s.name;
    const once = this.level === '20' ? ['NM1*85'] : this.level === '22' ? ['NM1*IL', 'NM1*PR', 'SBR'] : this.level === '23' ? ['NM1*QC', 'DMG', 'PAT'] : [];
    if (!once.includes(key)) return false;
    const seen = this.loopSeen.get(this.level) ?? new Set<string>();
    this.loopSeen.set(this.level, seen);
    // What the first of each said, to name both when a second says otherwise (the segment's elements as sent).
    const said = Object.entries(s)
      .filter(([k]) => k !== 'name' && /^\d+$/.test(k))
      .map(([, v]) => v)
      .join('*')
      .replace(/\*+$/, '');
    const firsts = this.loopFirsts.get(this.level) ?? new Map<string, string>();
    this.loopFirsts.set(this.level, firsts);
    if (!seen.has(key)) {
      firsts.set(key, said);
      seen.add(key);
      return false;
    }
    const what = this.level === '20' ? 'billing provider loop (2010AA)' : this.level === '22' ? 'subscriber loop (2000B)' : 'patient loop (2000C)';
    const first = firsts.get(key) ?? '';
    const both = first === said ? '' : ` (${clip(`${s.name}*${said}`)}, but the first is ${clip(`${s.name}*${first}`)})`;
    const list = this.loopProblems.get(this.level) ?? [];
    list.push({ segment: key, message: `a second ${key} in the ${what}${both}: the loop has one, and tpa does not choose between them` });
    this.loopProblems.set(this.level, list);
    return true;
  }

  /** The problems of the loops the claim hangs from (its HLs, their repeated segments). */
  private hierarchyProblems(): { segment: string; message: string }[] {
    return ['20', '22', '23'].flatMap((l) => this.loopProblems.get(l) ?? []);
  }

  /** The claim being read, as a FHIR Claim, when it is complete (at the next CLM, HL, SE or the end). */
  private flushClaim(out: X12Event[]): void {
    const d = this.draft;
    if (d && this.mapping) this.lineWithoutService(d);
    this.draft = undefined;
    this.line = undefined;
    this.afterClm = false;
    this.otherPayer = false;
    if (!d || !this.mapping) return;
    // CLM01 is the sender's account number and need not be unique: a CLM01 the transaction set has
    // already had is told apart by the claim's place in it (`#3`: its third CLM), in its identity and
    // its place. The first keeps the identity it always had, so a journal of files without repeats matches.
    const repeated = this.clm01sOfTransaction.has(d.clm01);
    this.clm01sOfTransaction.add(d.clm01);
    const nth = repeated ? ` #${d.ordinal}` : '';
    const place = `${this.transactionPlace()}, CLM ${placeClm01(d.clm01)}${nth}`;
    const report = this.options.report?.byTransaction.get(this.transactionNo);
    const problems = [...(report ?? []).map((p) => ({ segment: p.segment ?? '', message: `${ENVELOPE_REFUSAL}${p.place}: ${p.message}` })), ...d.problems];
    if (d.correction && d.priorClaim === undefined)
      problems.push({
        segment: 'CLM',
        message: `CLM05-3 is ${d.correction} (${d.correction === '7' ? 'a replacement of' : 'a void of'} an earlier claim) with no REF*F8: the payer's claim control number of the claim it changes is required`,
      });
    if (this.billingProblem) problems.unshift({ segment: 'NM1*85', message: this.billingProblem });
    if (this.subscriberProblem) problems.unshift({ segment: 'NM1*IL', message: this.subscriberProblem });
    if (this.payerProblem) problems.push({ segment: 'NM1*PR', message: `the payer (NM1*PR): ${this.payerProblem}` });
    if (this.strayPatient) problems.push({ segment: 'NM1*QC', message: this.strayPatient });
    // A dependent (loop 2000C) is found by the engine among the members enrolled under the subscriber,
    // by name and date of birth (docs/x12.md "A dependent patient"): both are needed to find them.
    if (this.inPatientLoop) {
      const dep = this.dependent;
      if (!dep?.named || dep.family === '' || dep.given.length === 0)
        problems.push({
          segment: 'NM1*QC',
          message: `the patient loop (2000C) ${dep?.named ? 'names no last and first name (NM103, NM104)' : 'has no patient (NM1*QC)'}: a dependent of subscriber${this.subscriber?.memberId ? ` ${clip(this.subscriber.memberId)}` : ''} is found by name and date of birth`,
        });
      if (dep?.birthDate === undefined)
        problems.push({
          segment: 'DMG',
          message:
            dep?.dmg ??
            `the patient loop (2000C) has no DMG: a dependent of subscriber${this.subscriber?.memberId ? ` ${clip(this.subscriber.memberId)}` : ''} is found by name and date of birth (DMG*D8)`,
        });
      if (this.subscriber?.sbr02 === '18')
        problems.push({
          segment: 'SBR',
          message: `SBR02 is 18 (the subscriber is the patient), and a patient loop (2000C) names another patient${this.patientName ? `, ${clip(this.patientName)}` : ''}: which person the claim is for is not for tpa to guess`,
        });
    }
    // SBR02 18 says the subscriber is the patient; without it (and without the patient loop, said
    // above) the 837 says the patient is someone else and names no one: the claim would be paid
    // as the subscriber's, a person it says is not the patient.
    const sbr02 = this.subscriber?.sbr02;
    if (!this.inPatientLoop && sbr02 !== undefined && sbr02 !== '18')
      problems.push({
        segment: 'SBR',
        message: `SBR02 is ${sbr02 === '' ? 'empty' : `"${clip(sbr02)}"`}, not 18 (self): the subscriber${this.subscriber?.memberId ? ` ${clip(this.subscriber.memberId)}` : ''} is not the patient, and no patient loop (2000C) names who is; tpa pays a claim under the patient's own member id, sent as the subscriber (SBR02 18)`,
      });
    const sbr01 = this.subscriber?.sbr01 ?? '';
    if (sbr01 !== '' && sbr01 !== 'P')
      problems.push({
        segment: 'SBR',
        message: `SBR01 is ${clip(sbr01)}: tpa pays as the primary payer (P); a claim where another payer is primary needs coordination of benefits, which tpa does not do`,
      });
    if (d.lines.length === 0) problems.push({ segment: 'CLM', message: 'has no service line (LX with SV1 or SV2)' });
    problems.push(...this.bhtProblems, ...this.notForPayment(), ...this.hierarchyProblems(), ...pointerProblems(d));
    const segments = new Map<string, string>();
    const claim = this.isa15 === 'T' ? testDataTagged(this.fhir(d, segments)) : this.fhir(d, segments);
    const identity = x12Identity({ isa06: this.isa06, isa13: this.isa13, gs06: this.gs06, st02: this.st02, clm01: d.clm01 }, repeated ? d.ordinal : undefined);
    out.push({
      kind: 'claim',
      claim: {
        claim,
        identity,
        clm01: d.clm01,
        place,
        type: this.type,
        problems,
        notes: d.notes,
        segmentOf: (field) => {
          let best: string | undefined;
          let length = -1;
          for (const [prefix, segment] of segments)
            if ((field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`)) && prefix.length > length) {
              best = segment;
              length = prefix.length;
            }
          return best;
        },
      },
    });
  }

  /**
   * A dependent (loop 2000C) as contained resources: the Patient by name and birth date (with the
   * member id NM1*QC NM109 gives, which 5010 does not use, when sent), and the subscriber's Coverage
   * (subscriberId NM1*IL NM109, relationship PAT01, the payer NM1*PR) whose beneficiary it is. The
   * engine resolves the patient to the member enrolled under the subscriber.
   */
  private dependentResources(subscriberId: string): { contained: Record<string, unknown>[] } {
    const dep = this.dependent;
    const gender = GENDER[dep?.gender ?? ''];
    const patient = {
      resourceType: 'Patient',
      id: 'patient',
      ...(dep?.id ? { identifier: [{ type: memberNumberType(), value: dep.id }] } : {}),
      ...(dep?.family || dep?.given.length
        ? { name: [{ ...(dep.family ? { family: dep.family } : {}), ...(dep.given.length > 0 ? { given: [...dep.given] } : {}) }] }
        : {}),
      ...(gender ? { gender } : {}),
      ...(dep?.birthDate ? { birthDate: dep.birthDate } : {}),
    };
    const coverage = {
      resourceType: 'Coverage',
      id: 'coverage',
      status: 'active',
      subscriberId,
      beneficiary: { reference: '#patient' },
      relationship: { coding: [{ system: SUBSCRIBER_RELATIONSHIP_SYSTEM, code: RELATIONSHIP[dep?.relationship ?? ''] ?? 'other' }] },
      payor: [
        {
          ...(this.payer?.id ? { identifier: { value: this.payer.id } } : {}),
          display: this.payer?.name ?? 'the payer (NM1*PR)',
        },
      ],
    };
    return { contained: [patient, coverage] };
  }

  /** The FHIR R4 Claim of a draft; `segments` gets where each part came from. */
  private fhir(d: ClaimDraft, segments: Map<string, string>): X12FhirClaim {
    const type = this.type ?? 'professional';
    const member = this.subscriber?.memberId ?? '';
    // The claim's rendering provider (2310B) is the payee of each line without its own (837P); one
    // that is no line's payee (every line names its own, or an 837I's lines are the facility's) is
    // said and left out, as an attending is.
    const claimRendering = d.careTeam.find((p) => p.qualifier === '82');
    const payee = claimRendering !== undefined && d.lines.some((l) => (l.rendering ? l.rendering.npi === claimRendering.npi : type === 'professional'));
    if (claimRendering && !payee)
      d.notes.push({ segment: claimRendering.segment, message: `the rendering provider is NPI ${clip(claimRendering.npi)}, no line's payee: ${LEFT_OUT}` });
    const careTeam = (payee ? [claimRendering!] : []).map((p, i) => {
      segments.set(`careTeam[${i}]`, p.segment);
      return {
        sequence: i + 1,
        provider: { identifier: { system: NPI_SYSTEM, value: p.npi }, ...(p.name ? { display: p.name } : {}) },
        role: { coding: [{ system: CARE_TEAM_ROLE_SYSTEM, code: FRIENDLY_ROLE[p.qualifier]!.role }] },
      };
    });
    const rendering = payee ? 0 : -1;
    const items = d.lines
      .filter((line) => !line.empty)
      .map((line, i) => {
        segments.set(`item[${i}]`, `${line.kind} #${line.n}`);
        let careTeamSequence: number[] | undefined;
        if (line.rendering) {
          const existing = careTeam.findIndex((m) => m.provider.identifier.value === line.rendering!.npi);
          if (existing >= 0) careTeamSequence = [existing + 1];
          else {
            segments.set(`careTeam[${careTeam.length}]`, line.rendering.segment);
            careTeam.push({
              sequence: careTeam.length + 1,
              provider: { identifier: { system: NPI_SYSTEM, value: line.rendering.npi }, ...(line.rendering.name ? { display: line.rendering.name } : {}) },
              role: { coding: [{ system: CARE_TEAM_ROLE_SYSTEM, code: 'primary' }] },
            });
            careTeamSequence = [careTeam.length];
          }
        } else if (rendering >= 0 && type === 'professional') careTeamSequence = [rendering + 1];
        // The quantity as sent, decimals and minutes alike: minutes of anesthesia (SV103 MJ) in UCUM `min`.
        const units = decimal(line.units);
        const charge = decimal(line.charge);
        const place = line.place ?? (type === 'professional' ? d.placeOfService : '');
        return {
          sequence: i + 1,
          ...(careTeamSequence ? { careTeamSequence } : {}),
          ...(line.pointers.length > 0 ? { diagnosisSequence: line.pointers.map((p) => d.pointable[p - 1]).filter((n): n is number => n !== undefined) } : {}),
          ...(line.revenue !== null ? { revenue: { coding: [{ system: REVENUE_SYSTEM, code: line.revenue }] } } : {}),
          // A revenue-code-only line has no procedure code: FHIR requires productOrService, so it says so.
          productOrService:
            line.code === ''
              ? { coding: [{ system: DATA_ABSENT_REASON_SYSTEM, code: 'not-applicable' }] }
              : { coding: [{ system: /^\d{5}$/.test(line.code) ? CPT_SYSTEM : HCPCS_SYSTEM, code: line.code }] },
          ...(line.modifiers.length > 0 ? { modifier: line.modifiers.map((m) => ({ coding: [{ system: CPT_SYSTEM, code: m }] })) } : {}),
          ...(line.controlNumber !== null ? { extension: [{ url: LINE_CONTROL_NUMBER_URL, valueString: line.controlNumber }] } : {}),
          ...(line.date
            ? line.date.start === line.date.end
              ? { servicedDate: line.date.start }
              : { servicedPeriod: { start: line.date.start, end: line.date.end } }
            : {}),
          ...(place ? { locationCodeableConcept: { coding: [{ system: PLACE_OF_SERVICE_SYSTEM, code: place }] } } : {}),
          quantity: { value: units ?? line.units, ...(line.unitBasis === 'MJ' ? { unit: 'min', system: UCUM_SYSTEM, code: 'min' } : {}) },
          net: { value: charge ?? line.charge, currency: 'USD' },
        };
      });
    const preauth = [...d.preauth, ...d.lines.flatMap((l) => l.preauth)];
    segments.set('patient', this.inPatientLoop ? 'NM1*QC' : 'NM1*IL');
    if (this.inPatientLoop) {
      segments.set('contained[0].name', 'NM1*QC');
      segments.set('contained[0].birthDate', 'DMG');
      segments.set('contained[1]', 'SBR');
    }
    segments.set('provider', 'NM1*85');
    segments.set('created', 'BHT');
    segments.set('total', 'CLM');
    segments.set('billablePeriod', 'DTP*434');
    // A replacement or void: the claim it changes (REF*F8) and what it is (CLM05-3, in CLM).
    if (d.correction) {
      segments.set('related', 'REF*F8');
      segments.set('status', 'CLM');
    }
    segments.set('insurance', 'SBR');
    segments.set('insurer', 'NM1*PR');
    segments.set('facility', 'NM1*77');
    // Each HI code by its segment and element (`HI #2, HI03`).
    d.procedures.forEach((p, i) => segments.set(`procedure[${i}]`, p.from ?? 'HI'));
    d.info.forEach((info, i) => segments.set(`supportingInfo[${i}]`, info.from ?? 'HI'));
    d.diagnoses.forEach((dx, i) => segments.set(`diagnosis[${i}]`, dx.from ?? 'HI'));
    const patientName = this.patientName ?? this.subscriber?.name ?? null;
    const charge = decimal(d.charge);
    const dependent = this.inPatientLoop ? this.dependentResources(member) : undefined;
    const typeOfBill =
      type === 'institutional' && /^\d{2}$/.test(d.placeOfService) && /^[0-9A-Z]$/.test(d.frequency) ? `0${d.placeOfService}${d.frequency}` : undefined;
    if (typeOfBill) segments.set(`supportingInfo[${d.info.length}]`, 'CLM');
    return {
      resourceType: 'Claim',
      ...(dependent ? { contained: dependent.contained } : {}),
      identifier: [{ system: CLM01_SYSTEM, value: d.clm01 }],
      // A void (CLM05-3 8) is a cancelled Claim naming the claim it voids as its prior.
      status: d.correction === '8' ? 'cancelled' : 'active',
      type: { coding: [{ system: CLAIM_TYPE_SYSTEM, code: type }] },
      use: 'claim',
      patient: dependent
        ? { reference: '#patient', ...(patientName ? { display: patientName } : {}) }
        : {
            ...(/^[A-Za-z0-9\-.]{1,64}$/.test(member) ? { reference: `Patient/${member}` } : {}),
            identifier: { value: member },
            ...(patientName ? { display: patientName } : {}),
          },
      ...(d.statement ? { billablePeriod: { start: d.statement.start, end: d.statement.end } } : {}),
      ...(this.created ? { created: this.created } : {}),
      ...(this.payer
        ? { insurer: { ...(this.payer.id ? { identifier: { value: this.payer.id } } : {}), ...(this.payer.name ? { display: this.payer.name } : {}) } }
        : {}),
      provider: {
        identifier: { system: NPI_SYSTEM, value: this.billing?.npi ?? '' },
        ...(this.billing?.name ? { display: this.billing.name } : {}),
      },
      priority: { coding: [{ system: PRIORITY_SYSTEM, code: 'normal' }] },
      // A replacement or void names the claim it changes by the payer's claim number (REF*F8).
      ...(d.correction && d.priorClaim !== undefined
        ? {
            related: [
              {
                claim: { identifier: { value: d.priorClaim } },
                relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code: 'prior' }] },
              },
            ],
          }
        : {}),
      ...(d.facility
        ? { facility: { identifier: { system: NPI_SYSTEM, value: d.facility.npi }, ...(d.facility.name ? { display: d.facility.name } : {}) } }
        : {}),
      ...(careTeam.length > 0 ? { careTeam } : {}),
      ...(d.info.length > 0 || typeOfBill
        ? {
            supportingInfo: [
              ...d.info.map((info, i) => ({
                sequence: i + 1,
                category: { coding: [{ system: INFO_CATEGORY_SYSTEM, code: 'info' }] },
                code: { coding: [{ system: `urn:tpa:x12:hi:${info.qualifier}`, code: info.code }] },
                ...(info.date
                  ? info.date.start === info.date.end
                    ? { timingDate: info.date.start }
                    : { timingPeriod: { start: info.date.start, end: info.date.end } }
                  : {}),
                ...(info.amount !== undefined ? { valueQuantity: { value: info.amount, unit: 'USD', system: 'urn:iso:std:iso:4217', code: 'USD' } } : {}),
              })),
              // An 837I's CLM05-1 and CLM05-3, its type of bill (CARIN's category): the 835 gives them back as CLP08 and CLP09.
              ...(typeOfBill
                ? [
                    {
                      sequence: d.info.length + 1,
                      category: { coding: [{ system: SUPPORTING_INFO_TYPE_SYSTEM, code: 'typeofbill' }] },
                      code: { coding: [{ system: TYPE_OF_BILL_SYSTEM, code: typeOfBill }] },
                    },
                  ]
                : []),
            ],
          }
        : {}),
      ...(d.diagnoses.length > 0
        ? {
            diagnosis: d.diagnoses.map((dx, i) => ({
              sequence: i + 1,
              diagnosisCodeableConcept: { coding: [{ system: dx.system, code: dx.code }] },
              ...(dx.type ? { type: [{ coding: [{ system: DIAGNOSIS_TYPE_SYSTEM, code: dx.type }] }] } : {}),
              ...(dx.onAdmission ? { onAdmission: { coding: [{ system: ON_ADMISSION_SYSTEM, code: dx.onAdmission }] } } : {}),
            })),
          }
        : {}),
      ...(d.procedures.length > 0
        ? {
            procedure: d.procedures.map((p, i) => ({
              sequence: i + 1,
              ...(p.type ? { type: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/ex-procedure-type', code: 'primary' }] }] } : {}),
              ...(p.date ? { date: p.date } : {}),
              procedureCodeableConcept: { coding: [{ system: p.system, code: p.code }] },
            })),
          }
        : {}),
      insurance: [
        {
          sequence: 1,
          focal: true,
          coverage: dependent
            ? { reference: '#coverage', ...(this.payer?.name ? { display: `${this.payer.name}, subscriber ${member}` } : {}) }
            : {
                identifier: { type: memberNumberType(), value: member },
                ...(this.payer?.name ? { display: `${this.payer.name}, member ${member}` } : {}),
              },
          ...(preauth.length > 0 ? { preAuthRef: preauth } : {}),
        },
      ],
      item: items,
      total: { value: charge ?? d.charge, currency: 'USD' },
    };
  }
}

/** A dependent's loop 2000C as read: PAT01, NM1*QC, DMG. */
interface DependentLoop {
  relationship: string;
  family: string;
  given: string[];
  /** NM1*QC NM109: not used in 5010; when sent, the member id the patient is said to be (the engine compares it with the dependent found). */
  id: string;
  birthDate: string | undefined;
  gender: string;
  named: boolean;
  /** Why DMG's birth date cannot be read, when it cannot. */
  dmg: string | undefined;
}

/** PAT01 (the patient's relationship to the insured) as FHIR's subscriber-relationship. */
const RELATIONSHIP: Record<string, string> = { '01': 'spouse', '19': 'child', '53': 'common' };
/** DMG03 as FHIR's administrative gender. */
const GENDER: Record<string, string> = { M: 'male', F: 'female', U: 'unknown' };

/** The most decimals a line's quantity may have (drug units such as 0.125 mg vials, time units). */
export const QUANTITY_DECIMALS = 3;

/** Why a quantity as an 837 writes it (SV104, SV205) is none tpa reads, or undefined: a number above 0 with at most 3 decimals, up to 9999. */
export function quantityProblem(text: string): string | undefined {
  const n = decimal(text);
  if (n === undefined || !/^\d*(\.\d{0,3})?$/.test(text)) return `is not a quantity: a number above 0 with at most ${QUANTITY_DECIMALS} decimals`;
  if (n <= 0) return 'is not above 0: a line is for some units (or minutes)';
  if (n > 9999) return 'is more than 9999';
  return undefined;
}

/** Whether a line already had this segment (marks it as had). */
function repeatedOnLine(line: Line, key: string): boolean {
  line.seen ??= new Set();
  if (line.seen.has(key)) return true;
  line.seen.add(key);
  return false;
}

/** The 837 IG's longest patient control number (CLM01). */
const CLM01_MAX = 38;

/** Why a CLM01 cannot be the claim's id (tpa writes it back as the 835's CLP01), or undefined. */
/**
 * CLM01 as a claim's place gives it: as sent, or quoted (JSON) when it holds a space, `#`, `,` or `"`,
 * so that a CLM01 `P1 #2` is never read as the second CLM `P1` of its transaction set.
 */
export function placeClm01(clm01: string): string {
  return /[\s#,"]/.test(clm01) ? JSON.stringify(clm01) : clm01;
}

function clm01Problem(clm01: string): string | undefined {
  if (clm01.length > CLM01_MAX) return `CLM01 is ${clm01.length} characters: at most ${CLM01_MAX} (the patient control number, 837 IG)`;
  if (X12_ID_CHARACTERS.test(clm01)) return undefined;
  const bad = nonX12IdCharacters(clm01);
  return `CLM01 ${JSON.stringify(clip(clm01))} holds ${bad}: outside X12's character sets, or a delimiter (~ * : ^) of the 835 tpa writes it back into (CLP01)`;
}

/** SV107 pointers to a diagnosis the claim does not have (HI). */
function pointerProblems(d: ClaimDraft): { segment: string; message: string }[] {
  return d.lines.flatMap((line) =>
    line.pointers.flatMap((p, i) =>
      p > d.pointable.length
        ? [
            {
              segment: `${line.kind} #${line.n}`,
              message: `SV107-${i + 1}, diagnosis pointer ${p}, names no diagnosis: the claim has ${d.pointable.length} that a line can point to (HI)`,
            },
          ]
        : [],
    ),
  );
}

/** A person's name from an NM1: first (NM104) and last (NM103). */
function personName(s: X12Segment): string | null {
  return [element(s, 4), element(s, 3)].filter(Boolean).join(' ') || null;
}

/** Longer than any segment of an 837 by far: a file that runs on without a terminator is not X12, and is not held. */
export const MAX_SEGMENT_CHARS = 64 * 1024;

/** The segments the first reading needs the elements of; of the others, their names are enough. */
const ENVELOPE_SEGMENTS = new Set(['ISA', 'IEA', 'GS', 'GE', 'ST', 'SE']);

/**
 * The first reading of a file: its envelopes checked and its claims counted, by a scan of its
 * segment terminators that splits only the envelope segments into elements. It cuts segments as
 * x12-parser does (CR LF read as LF, line breaks and the ends' blanks dropped), so that its counts
 * are the second reading's; the tokenizer's object for every segment would cost as much again as
 * the conversion (docs/x12.md "837 in").
 */
export class EnvelopeScanner {
  private readonly reader = new X12ClaimReader({ mapping: false });
  private readonly separator: string;
  private readonly terminator: string;
  private leftover = '';
  private segments = 0;
  private fatal: X12Problem | undefined;

  /** `head`: the file's first 106 characters, an ISA (isaProblem says it is one). */
  constructor(head: string) {
    this.separator = head[3]!;
    this.terminator = head[105]!;
  }

  push(chunk: string): void {
    if (this.fatal) return;
    const data = (this.leftover + chunk).replace(/\r\n/g, '\n');
    let start = 0;
    for (let end = data.indexOf(this.terminator); end !== -1; end = data.indexOf(this.terminator, start)) {
      if (end - start > MAX_SEGMENT_CHARS) return void this.tooLong();
      this.segment(data.slice(start, end));
      start = end + 1;
    }
    // A CR at the end of a chunk may be the first half of a CR LF.
    this.leftover = data.slice(start);
    if (this.leftover.length > MAX_SEGMENT_CHARS) this.tooLong();
  }

  /** A segment longer than any of an 837, with its terminator or without: the file is not read (docs/x12.md "837 in"). */
  private tooLong(): void {
    this.fatal = {
      place: `segment ${this.segments + 1}`,
      message: `runs on for more than ${MAX_SEGMENT_CHARS / 1024} KiB before the ISA's segment terminator (no segment of an 837 is that long): not X12 (nothing of the file is read)`,
    };
    this.leftover = '';
  }

  end(): EnvelopeReport {
    if (!this.fatal) this.segment(this.leftover);
    this.reader.end();
    return { ...this.reader.report(), ...(this.fatal ? { fatal: this.fatal } : {}) };
  }

  private segment(raw: string): void {
    this.segments++;
    const at = raw.indexOf(this.separator);
    const name = (at < 0 ? raw : raw.slice(0, at)).replace(/\n/g, '').trim();
    if (!ENVELOPE_SEGMENTS.has(name)) {
      this.reader.push(at < 0 ? { name } : { name, '1': '' });
      return;
    }
    const segment: Record<string, string> = { name };
    raw
      .slice(at + 1)
      .split(this.separator)
      .forEach((value, i) => {
        segment[String(i + 1)] = value.replace(/\n/g, '').trim();
      });
    this.reader.push(segment as X12Segment);
  }
}
