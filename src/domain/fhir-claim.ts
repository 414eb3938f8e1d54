// FHIR R4 Claim parsing for both workflows (docs/api-routes.md "POST /v1/claims/submit/"). Claims arrive
// from other systems in every shape FHIR allows, so this accepts what the service can use
// (references, identifiers, contained resources, codings in any order, extra elements) and names
// the exact path of anything it cannot use.
import { jsonDepthProblem } from './json-depth.js';
import { duplicateKeyPath } from './json-keys.js';
import { jsonSyntaxMessage } from './json-position.js';
import { type DependentSent, describeSent } from './dependent.js';
import { type FieldError, ValidationError } from './errors.js';
import { formatCentsGrouped, jsonNumberToCents, jsonNumberToRatio, MAX_AMOUNT_CENTS, mulRatiosRound, type Ratio, ratioText } from './money.js';
import { MAX_LINE_MODIFIERS, modifierProblem } from './modifiers.js';
import { clip, cptProblem, datePart, MAX_QUANTITY, npiProblem, quantityRatio } from './validation.js';

export type ClaimType = 'professional' | 'institutional';
export const PROVIDER_ROLES = ['FACILITY', 'SURGEON', 'ANESTHESIA', 'PATHOLOGY'] as const;
export type ProviderRole = (typeof PROVIDER_ROLES)[number];

export const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';
/** The NPI's OID (HL7's identifier of the NPI system, http://hl7.org/fhir/sid/us-npi's other name): an identifier of either system is an NPI. */
export const NPI_OID = 'urn:oid:2.16.840.1.113883.4.6';

/** Whether an identifier's system is the NPI's: its URL, or its OID (then both name the NPI, and must agree). */
export function isNpiSystem(system: unknown): boolean {
  return system === NPI_SYSTEM || system === NPI_OID;
}
export const CPT_SYSTEM = 'http://www.ama-assn.org/go/cpt';
export const CLAIM_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/claim-type';
export const ICD10_SYSTEM = 'http://hl7.org/fhir/sid/icd-10-cm';
/** ICD-10 (WHO), whose codes ICD-10-CM extends: checked as ICD-10 too. */
export const ICD10_WHO_SYSTEM = 'http://hl7.org/fhir/sid/icd-10';
export const ICD9_SYSTEM = 'http://hl7.org/fhir/sid/icd-9-cm';
/** HIPAA's ICD-10 compliance date: services from this date are coded in ICD-10, never ICD-9. */
export const ICD10_FROM = '2015-10-01';
export const CARE_TEAM_ROLE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/claimcareteamrole';
export const REVENUE_SYSTEM = 'https://www.nubc.org/CodeSystem/RevenueCodes';
/** HCPCS Level II, whose modifiers (XS, TC…) stand beside CPT's. */
export const HCPCS_SYSTEM = 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets';
/** A HCPCS Level II code: a letter A to V and four digits (J3490 a drug, A4550 a supply, G0008…). */
export const HCPCS_LEVEL_II = /^[A-V]\d{4}$/;
/** HL7's data-absent-reason: an 837I revenue-code-only line's productOrService (`not-applicable`), which FHIR requires. */
export const DATA_ABSENT_REASON_SYSTEM = 'http://terminology.hl7.org/CodeSystem/data-absent-reason';

/** Identifier type codes of a member id: v2-0203 member number and subscriber number, CARIN's unique member id. */
const MEMBER_ID_TYPES = new Set(['MB', 'SN', 'um']);
/** The type of an identifier that is a member number (v2-0203 MB), as `claim convert` marks the coverage's identifier. */
export const MEMBER_NUMBER_TYPE = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] } as const;

/** A fresh copy of MEMBER_NUMBER_TYPE, for a resource of one's own (cheaper than structuredClone, run once a converted claim). */
export const memberNumberType = () => ({ coding: [{ system: MEMBER_NUMBER_TYPE.coding[0].system, code: MEMBER_NUMBER_TYPE.coding[0].code }] });

/** Larger claim files are refused before parsing: no real claim is anywhere near this. */
export const MAX_CLAIM_BYTES = 5 * 1024 * 1024;
export const MAX_CLAIM_ITEMS = 999;
/** 99,999,999.99 a line: far above any real charge, and it keeps every sum a safe integer of cents. */
export const MAX_LINE_CHARGE_CENTS = MAX_AMOUNT_CENTS;

export interface CareTeamMember {
  sequence: number;
  npi: string;
  name: string | null;
  /**
   * The role the claim's care team gives, when its code names one of the roles tpa pays (facility,
   * surgeon, anesthesia or anesthesiologist, pathology or pathologist); null for any other code
   * (claimcareteamrole's primary, assist, supervisor, other): the provider's contracted role, from
   * the plan's registry, is the one paid in either case.
   */
  role: ProviderRole | null;
}

/**
 * Why tpa cannot price a line it reads (docs/money-rules.md "Lines tpa does not price"): its code
 * is HCPCS Level II (a drug, a supply: J3490, A4550), or it has a revenue code and no procedure code
 * (an 837I's room and board, 0120). The claim is adjudicated and the line DENIED.
 */
export type UnpricedCode = 'HCPCS_LEVEL_II' | 'REVENUE_CODE_ONLY';

/** A line's unit of measure: units (UN, absent) or minutes (MJ, an 837's SV103; FHIR UCUM `min`). */
export type UnitOfMeasure = 'UN' | 'MJ';

export interface ClaimLine {
  sequence: number;
  /** The procedure code: CPT, or HCPCS Level II when `unpriced` says so; '' on a revenue-code-only line. */
  cptCode: string;
  revenueCode: string | null;
  serviceDate: string;
  /** The quantity as sent: units (at most three decimals), or minutes when `unitOfMeasure` is MJ. */
  quantity: number;
  /** MJ: `quantity` is minutes (absent: units; rows stored before it counted minutes as 1 unit). */
  unitOfMeasure?: 'MJ';
  /** Set on a line tpa reads but does not price: the engine denies it (absent: a CPT code, priced). */
  unpriced?: UnpricedCode;
  chargeCents: number;
  careTeamSequences: number[];
  /** The line's procedure modifiers (`item[].modifier`), upper case, in the order sent; absent on claims stored before they were kept. */
  modifiers?: string[];
  /** The sender's line control number (an 837's REF*6R, `item[].extension` LINE_CONTROL_NUMBER_URL), when it sent one. */
  lineControlNumber?: string;
}

export interface ParsedClaim {
  type: ClaimType;
  providerNpi: string;
  providerName: string | null;
  memberId: string;
  created: string;
  billablePeriod: { start: string | null; end: string | null };
  insurerReference: string | null;
  /**
   * The payer the claim is addressed to, by its identifier (`insurer.identifier.value`; an 837's
   * NM1*PR NM109), when it names one: the engine refuses a payer that is not the member's plan's.
   */
  insurerIdentifier?: string;
  lines: ClaimLine[];
  careTeam: CareTeamMember[];
  diagnosisCodes: string[];
  /** Preauthorization references from supportingInfo or insurance[].preAuthRef. */
  preauthorizations: string[];
  totalChargeCents: number;
  /** The claim's own id from its sender: Claim.identifier of system urn:tpa:x12:clm01 (an 837's CLM01), when it has one. */
  patientControlNumber?: string;
  /**
   * A corrected claim (docs/money-funding.md "Corrected and void claims"): a replacement of an earlier
   * claim, or its void, naming it by the payer's claim number (an encounter id or ENC number tpa
   * returned): `Claim.related[]` of relationship `prior` (an 837's CLM05-3 7 or 8 with REF*F8); a
   * void is `Claim.status` `cancelled` with that prior. Absent: an original claim.
   */
  correction?: ClaimCorrection;
  /**
   * A dependent patient named by name and birth date under their subscriber's member id (an 837's
   * loop 2000C; a contained Patient without an identifier, the beneficiary of a contained Coverage
   * with a subscriberId and a relationship other than self): the engine resolves it to the member
   * enrolled under that subscriber. memberId is then '' until resolved, or the member id the Patient
   * names as well, which must be the same member.
   */
  dependent?: DependentSent;
  /**
   * An institutional claim's type of bill (supportingInfo `typeofbill`, an 837I's CLM05): its facility
   * type code (two digits, CLM05-1) and claim frequency code (one, CLM05-3), when it sent one; absent on
   * claims stored before they were kept.
   */
  facilityTypeCode?: string;
  claimFrequencyCode?: string;
  /** Test data (the Claim's meta.tag HTEST, an 837 of ISA15 T); absent for production data and in claims stored before it was read. */
  testData?: true;
}

/**
 * Test data (an 837 of ISA15 T): a Claim's `meta.tag` of this system and code. The embedded engine
 * adjudicates such a claim and keeps the mark (ParsedClaim.testData, the ledger's
 * `encounter.test_data`); `claim submit` sends it to no other service (docs/x12.md "Test data").
 */
export const TEST_DATA_TAG = { system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST' } as const;

/** Whether a Claim (its JSON value) carries the test-data tag in `meta.tag`. */
export function isTestData(claim: unknown): boolean {
  if (!isObject(claim) || !isObject(claim.meta) || !Array.isArray(claim.meta.tag)) return false;
  return claim.meta.tag.some((t) => isObject(t) && t.system === TEST_DATA_TAG.system && t.code === TEST_DATA_TAG.code);
}

/** The Claim with the test-data tag in its `meta.tag` (after `resourceType`). */
export function testDataTagged(claim: Record<string, unknown>): Record<string, unknown> {
  const { resourceType, ...rest } = claim;
  return { resourceType, meta: { tag: [{ ...TEST_DATA_TAG, display: 'test health data' }] }, ...rest };
}

/** What a corrected claim changes: `replacement` supersedes the prior claim, `void` closes it. */
export interface ClaimCorrection {
  kind: 'replacement' | 'void';
  /** The payer's claim number of the claim it changes, as sent. */
  priorClaim: string;
}

/** The code system of Claim.related[].relationship, whose `prior` names the claim a correction changes. */
export const RELATED_CLAIM_RELATIONSHIP_SYSTEM = 'http://terminology.hl7.org/CodeSystem/ex-relatedclaimrelationship';

/** The system of Coverage.relationship (self, spouse, child, other…). */
export const SUBSCRIBER_RELATIONSHIP_SYSTEM = 'http://terminology.hl7.org/CodeSystem/subscriber-relationship';

/** CARIN Blue Button's supporting-information category of an institutional claim's type of bill. */
export const SUPPORTING_INFO_TYPE_SYSTEM = 'http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBSupportingInfoType';
/** NUBC's type of bill: a leading 0, the facility type code (two digits) and the claim frequency code. */
export const TYPE_OF_BILL_SYSTEM = 'https://www.nubc.org/CodeSystem/TypeOfBill';

/** The system of the Claim.identifier that carries an 837's CLM01, the patient control number. */
export const CLM01_SYSTEM = 'urn:tpa:x12:clm01';
/**
 * The extension of a Claim item that carries the sender's line control number (an 837's REF*6R of
 * loop 2400), as `valueString`: FHIR R4's Claim.item has no identifier of its own. The 835 gives it back.
 */
export const LINE_CONTROL_NUMBER_URL = 'urn:tpa:x12:ref6r';
/**
 * The extension of a Reference that carries the reference as its Bundle wrote it, when tpa made the
 * Claim self-contained (domain/fhir-bundle.ts) and that reference (`Organization/<NPI>`, a
 * conditional reference by NPI or by member id) named another party than the entry it resolved to:
 * the parser refuses the claim naming both. It is tpa's own mark: the Bundle reader refuses a Claim
 * that already carries it, and the parser reads every one on a Reference, refusing the claim when
 * any names another party than the one read (so one sent straight to the service can only add
 * refusals, never stand in for tpa's).
 */
export const BUNDLE_REFERENCE_URL = 'urn:tpa:fhir:bundle-reference';
/** UCUM, the system of a Quantity's unit codes. */
const UCUM_SYSTEM = 'http://unitsofmeasure.org';
/** A Quantity's `unit` text read as minutes when it has no code. */
const MINUTE_WORDS = new Set(['min', 'mins', 'minute', 'minutes']);
/** An 835's REF*6R holds at most 50 characters (REF02). */
export const MAX_LINE_CONTROL_NUMBER = 50;
/**
 * X12's basic and extended character sets, without the delimiters of the 835 tpa writes a sender's
 * ids back into (~ * : ^): a CLM01 (CLP01) and a line control number (REF*6R).
 */
export const X12_ID_CHARACTERS = /^[A-Za-z0-9 !"&'()+,\-./;?=%@[\]_{}\\|<>#$]*$/;
/** The characters of `text` outside X12_ID_CHARACTERS, each once, quoted and listed (for a message). */
export function nonX12IdCharacters(text: string): string {
  return [...new Set([...text].filter((c) => !X12_ID_CHARACTERS.test(c)))].map((c) => JSON.stringify(c)).join(', ');
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

export interface ParseOptions {
  /**
   * Today's date (YYYY-MM-DD, UTC) on the engine clock: services are claimed once rendered, so a
   * service or creation date after it is refused (docs/api.md: `service_date` is when the service was
   * rendered). Without it, dates are checked only against the claim's own `created` date.
   */
  today?: string;
  /** The text's nesting was counted already (the server counts a body as it arrives): not counted again. */
  depthChecked?: boolean;
}

/** Parses claim file text; one clear ValidationError for an empty, huge, non-JSON or non-Claim file. */
export function parseClaimText(text: string, options: ParseOptions = {}): ParsedClaim {
  if (Buffer.byteLength(text, 'utf8') > MAX_CLAIM_BYTES) {
    throw new ValidationError([{ field: '', message: `claim file is larger than ${MAX_CLAIM_BYTES / 1024 / 1024} MiB` }]);
  }
  if (text.trim() === '') throw new ValidationError([{ field: '', message: 'claim file is empty' }]);
  const deep = options.depthChecked ? undefined : jsonDepthProblem(text);
  if (deep) throw new ValidationError([{ field: '', message: deep }]);
  let value: unknown;
  // Files saved by some Windows tools start with a byte-order mark, which JSON.parse refuses.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    value = JSON.parse(json);
  } catch (err) {
    // Where, as a line and a column: an offset means nothing to a person with an editor.
    throw new ValidationError([{ field: '', message: `claim file is not valid JSON (${jsonSyntaxMessage((err as Error).message, json)})` }]);
  }
  sameKeyOnce(json);
  return parseClaim(value, options);
}

/**
 * A key given twice in one object of the claim's text (two `patient`s, two `net`s) is refused: JSON.parse
 * keeps the last, another reader the first, and the claim would be one claim to one and another to the other.
 */
function sameKeyOnce(text: string): void {
  const twice = duplicateKeyPath(text);
  if (twice !== undefined)
    throw new ValidationError([
      {
        field: twice,
        message: `is given twice in one object: one reader takes the first, another the last (JSON.parse keeps the last), so which one is meant is not for tpa to guess`,
      },
    ]);
}

/**
 * A claim as a reader found it, its text (as it will be sent) and the JSON value of that text: the one
 * check `claim validate` and `claim submit` both make of every claim, one or many, so that they take
 * the same inputs and give the same errors. The text's bound is the service's.
 */
export function parseReadClaim(text: string, value: unknown, options: ParseOptions = {}): ParsedClaim {
  sizeWithin(text);
  sameKeyOnce(text);
  return parseClaim(value, options);
}

/**
 * A claim tpa wrote itself (`claim convert`'s JSON.stringify of an 837's claim): the same checks but
 * the key given twice, which such a text cannot hold (JSON.stringify writes each key once).
 */
export function parseWrittenClaim(text: string, value: unknown, options: ParseOptions = {}): ParsedClaim {
  sizeWithin(text);
  return parseClaim(value, options);
}

function sizeWithin(text: string): void {
  if (Buffer.byteLength(text, 'utf8') > MAX_CLAIM_BYTES) {
    throw new ValidationError([{ field: '', message: `claim file is larger than ${MAX_CLAIM_BYTES / 1024 / 1024} MiB` }]);
  }
}

export function parseClaim(value: unknown, options: ParseOptions = {}): ParsedClaim {
  if (!isObject(value)) throw new ValidationError([{ field: '', message: 'a FHIR Claim must be a JSON object' }]);
  if (value.resourceType !== 'Claim') {
    const got = typeof value.resourceType === 'string' ? `"${clip(value.resourceType)}"` : 'nothing';
    throw new ValidationError([{ field: 'resourceType', message: `must be "Claim" (got ${got})` }]);
  }
  return new ClaimReader(value, options).read();
}

class ClaimReader {
  private readonly errors: FieldError[] = [];
  private readonly contained = new Map<string, Json>();
  /** The dependent the claim's patient is, when it is one (dependentOf). */
  private dependent: DependentSent | undefined;
  /** The Coverages already read as naming a dependent (dependentOf), each read once. */
  private readonly dependentCoverages = new Set<Json>();
  /** Sequences of every careTeam entry, valid provider or not, so lines are not blamed for it. */
  private readonly careTeamSequenceNumbers = new Set<number>();

  constructor(
    private readonly claim: Json,
    private readonly options: ParseOptions,
  ) {
    for (const [i, resource] of (asArray(claim.contained) ?? []).entries()) {
      if (!isObject(resource) || typeof resource.id !== 'string') continue;
      // Two resources of one id: a reference to it could be either (a member, a provider).
      if (this.contained.has(resource.id))
        this.errors.push({
          field: `contained[${i}].id`,
          message: `"${clip(resource.id)}" is the id of an earlier contained resource too: #${clip(resource.id)} would be ambiguous`,
        });
      else this.contained.set(resource.id, resource);
    }
  }

  private fail(field: string, message: string): undefined {
    this.errors.push({ field, message });
    return undefined;
  }

  read(): ParsedClaim {
    const c = this.claim;
    const type = this.claimType();
    const correction = this.correction();
    if (c.use !== undefined && c.use !== 'claim') {
      this.fail('use', `must be "claim" for a claim to adjudicate (got "${clip(String(c.use))}")`);
    }
    const provider = this.providerNpi(c.provider, 'provider');
    const memberId = this.memberId();
    const created = c.created === undefined ? null : datePart(c.created);
    if (c.created === undefined) this.fail('created', 'is required: the date the claim was created');
    else if (!created) this.fail('created', 'must be a date (YYYY-MM-DD) or date-time');
    else if (this.options.today && created > this.options.today) this.fail('created', `is ${created}, after today (${this.options.today})`);
    const billablePeriod = this.billablePeriod();
    const careTeam = this.careTeam();
    const lines = this.items(type, billablePeriod.start ?? billablePeriod.end, created ?? null);
    // The total is checked against the lines only once every line could be read.
    if (lines && this.errors.length === 0) this.total(lines);
    const diagnosisCodes = this.diagnoses(lines, billablePeriod, created ?? null);
    const preauthorizations = this.preauthorizations();
    const insurer = isObject(c.insurer) && typeof c.insurer.reference === 'string' ? c.insurer.reference : null;
    this.sameInsurer();
    // A dependent anywhere among the claim's coverages is the claim's patient, whatever `patient`
    // names: the engine pays the claim only when every member named is the dependent it finds.
    if (memberId !== undefined) this.coverageDependents();
    // A dependent named by name and birth date alone names no member id: the first member another
    // party field names is then the claim's (the engine compares it with the dependent it finds).
    const member = memberId === undefined ? undefined : this.sameBeneficiary(memberId);
    // A dependent is never their own subscriber: a claim that names the subscriber beside their dependent is refused here.
    if (this.dependent && member && sameId(member, this.dependent.subscriberId))
      this.fail(
        'patient',
        `names member "${clip(member)}", the subscriber of the dependent it names (${clip(describeSent(this.dependent), 80)}, ${clip(this.dependent.relationship ?? 'dependent')} of ${clip(this.dependent.subscriberId)}): which member the claim is for is not for tpa to guess`,
      );
    const clm01 = (asArray(c.identifier) ?? []).find(
      (id): id is Json => isObject(id) && id.system === CLM01_SYSTEM && typeof id.value === 'string' && id.value.trim() !== '',
    );
    const insurerId = isObject(c.insurer) && isObject(c.insurer.identifier) ? c.insurer.identifier.value : undefined;
    const typeOfBill = this.typeOfBill(type);

    if (this.errors.length > 0 || !type || !provider || (!member && !this.dependent) || member === undefined || !created || !lines) {
      throw new ValidationError(this.errors.length > 0 ? this.errors : [{ field: '', message: 'claim is incomplete' }]);
    }
    return {
      type,
      providerNpi: provider.npi,
      providerName: provider.name,
      memberId: member,
      created,
      billablePeriod,
      insurerReference: insurer,
      ...(typeof insurerId === 'string' && insurerId.trim() !== '' ? { insurerIdentifier: insurerId.trim() } : {}),
      lines,
      careTeam,
      diagnosisCodes,
      preauthorizations,
      totalChargeCents: lines.reduce((sum, line) => sum + line.chargeCents, 0),
      ...(clm01 ? { patientControlNumber: (clm01.value as string).trim().slice(0, 80) } : {}),
      ...(correction ? { correction } : {}),
      ...(this.dependent ? { dependent: this.dependent } : {}),
      ...(typeOfBill ?? {}),
      ...(isTestData(c) ? { testData: true as const } : {}),
    };
  }

  /**
   * Claim.related[] of relationship `prior` with Claim.status: the claim a correction changes, by
   * the payer's claim number (`related.claim.identifier.value`). An active claim naming a prior one
   * replaces it; a cancelled claim naming one voids it; a cancelled claim naming none is no claim
   * for payment (status, below). Related claims of another relationship (associated) are not read.
   */
  private correction(): ClaimCorrection | undefined {
    const priors: { i: number; value: unknown }[] = [];
    for (const [i, related] of (asArray(this.claim.related) ?? []).entries()) {
      if (!isObject(related) || !isObject(related.relationship)) continue;
      const prior = (asArray(related.relationship.coding) ?? []).some(
        (c) => isObject(c) && c.system === RELATED_CLAIM_RELATIONSHIP_SYSTEM && c.code === 'prior',
      );
      if (!prior) continue;
      const identifier = isObject(related.claim) && isObject(related.claim.identifier) ? related.claim.identifier.value : undefined;
      priors.push({ i, value: identifier });
    }
    const cancelled = this.claim.status === 'cancelled';
    if (priors.length === 0) {
      this.status();
      return undefined;
    }
    if (!cancelled) this.status();
    if (priors.length > 1) {
      this.fail(`related[${priors[1]!.i}]`, 'is a second prior claim: a corrected claim replaces or voids one claim');
      return undefined;
    }
    const { i, value } = priors[0]!;
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(`related[${i}].claim.identifier.value`, 'is required: the payer’s claim number of the claim this one replaces or voids');
      return undefined;
    }
    const priorClaim = value.trim();
    if (priorClaim.length > 64 || !/^[A-Za-z0-9_\-.]+$/.test(priorClaim)) {
      this.fail(`related[${i}].claim.identifier.value`, `is "${clip(priorClaim)}": the payer’s claim number is an encounter id or ENC number tpa returned`);
      return undefined;
    }
    return { kind: cancelled ? 'void' : 'replacement', priorClaim };
  }

  /**
   * The type of bill of an institutional claim (supportingInfo of category `typeofbill`, a code of
   * NUBC's type of bill: `0` or nothing, then the facility type code and the frequency code, `0131`
   * or `131`): its two codes, or a field error; none sent, undefined. A professional claim's is not read.
   */
  private typeOfBill(type: ClaimType | undefined): { facilityTypeCode: string; claimFrequencyCode: string } | undefined {
    if (type !== 'institutional') return undefined;
    for (const [index, info] of (asArray(this.claim.supportingInfo) ?? []).entries()) {
      if (!isObject(info) || !isObject(info.category)) continue;
      const category = (asArray(info.category.coding) ?? []).some((c) => isObject(c) && c.code === 'typeofbill');
      if (!category) continue;
      const coding = isObject(info.code) ? (asArray(info.code.coding) ?? []).find(isObject) : undefined;
      const code = coding?.code;
      const m = typeof code === 'string' ? /^0?(\d{2})([0-9A-Z])$/.exec(code) : null;
      if (!m) {
        this.fail(
          `supportingInfo[${index}].code.coding[0].code`,
          `must be a type of bill: its facility type and frequency codes such as 0131${typeof code === 'string' ? ` (got "${clip(code)}")` : ''}`,
        );
        return undefined;
      }
      return { facilityTypeCode: m[1]!, claimFrequencyCode: m[2]! };
    }
    return undefined;
  }

  /**
   * Claim.status: only an active claim is a claim for payment. A draft, a cancelled claim and one
   * entered in error are refused, never adjudicated, so they take no service's duplicate key. An
   * absent status is read as active: the service's claim shape (docs/api-routes.md "POST /v1/claims/submit/")
   * does not list the element, and its clients send claims without it.
   */
  private status(): void {
    const status = this.claim.status;
    if (status === undefined || status === 'active') return;
    const got = typeof status === 'string' ? `"${clip(status)}"` : clip(JSON.stringify(status) ?? String(status));
    this.fail('status', `is ${got}: only active claims are adjudicated (a draft, cancelled or entered-in-error claim is not a claim for payment)`);
  }

  private claimType(): ClaimType | undefined {
    const codings = isObject(this.claim.type) ? asArray(this.claim.type.coding) : undefined;
    if (!codings || codings.length === 0) {
      return this.fail('type.coding', 'is required: a coding with code professional or institutional');
    }
    for (const coding of codings) {
      if (isObject(coding) && (coding.code === 'professional' || coding.code === 'institutional')) return coding.code;
    }
    const first = codings[0];
    const got = isObject(first) && typeof first.code === 'string' ? ` (got "${clip(first.code)}")` : '';
    return this.fail('type.coding[0].code', `must be professional or institutional${got}`);
  }

  /** A Reference's target: a contained resource (#id), or undefined. */
  private containedTarget(ref: Json): Json | undefined {
    return typeof ref.reference === 'string' && ref.reference.startsWith('#') ? this.contained.get(ref.reference.slice(1)) : undefined;
  }

  /**
   * Every reference as its Bundle wrote it, when the Bundle reader replaced it by a contained copy of
   * the entry it names (BUNDLE_REFERENCE_URL): all of them, never the first alone, as each must
   * agree with what the claim reads.
   */
  private asSent(ref: Json): (ReferenceReading & { text: string })[] {
    return (asArray(ref.extension) ?? [])
      .filter((e): e is Json => isObject(e) && e.url === BUNDLE_REFERENCE_URL && typeof e.valueString === 'string')
      .map((e) => ({ ...readReference(e.valueString as string), text: e.valueString as string }));
  }

  /** The member each reference as its Bundle wrote it names (a conditional or literal Patient reference), with its text. */
  private sentMembers(ref: Json): { id: string; text: string }[] {
    return this.asSent(ref).flatMap((sent) =>
      sent.form === 'conditional' && sent.type === 'Patient'
        ? [{ id: sent.value, text: sent.text }]
        : sent.form === 'literal' && sent.type === 'Patient'
          ? [{ id: sent.id, text: sent.text }]
          : [],
    );
  }

  /**
   * The NPI behind a provider Reference: its identifier, the identifiers of the contained resource it
   * points to, a conditional reference by NPI (Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|…),
   * or a literal reference whose id is itself an NPI (Organization/1234567893).
   */
  private providerNpi(ref: unknown, path: string): { npi: string; name: string | null } | undefined {
    const read = this.providerNpiRead(ref, path);
    if (!read || !isObject(ref)) return read;
    const target = this.containedTarget(ref);
    // A PractitionerRole names its practitioner: by a literal Practitioner/<NPI> or an NPI identifier, that is the provider read.
    if (target?.resourceType === 'PractitionerRole' && isObject(target.practitioner)) {
      const at = `contained[${this.containedIndex(target)}].practitioner`;
      const practitioner = target.practitioner;
      const names: { npi: string; field: string }[] = [];
      if (typeof practitioner.reference === 'string') {
        const npi = literalProviderNpi(practitioner.reference) ?? conditionalProviderNpi(practitioner.reference);
        if (npi !== undefined) names.push({ npi, field: `${at}.reference` });
      }
      const id = practitioner.identifier;
      if (isObject(id) && typeof id.value === 'string' && (isNpiSystem(id.system) || (id.system === undefined && !npiProblem(id.value))))
        names.push({ npi: id.value.trim(), field: `${at}.identifier.value` });
      const other = names.find((n) => n.npi !== read.npi);
      if (other)
        return this.fail(
          other.field,
          `names NPI ${clip(other.npi)}, but ${path} is NPI ${clip(read.npi)}: the PractitionerRole ${path} points to is that practitioner's, and which provider is meant is not for tpa to guess`,
        );
    }
    // A reference as a Bundle wrote it on a Reference that points to nothing contained names the NPI read, or the claim is refused.
    if (target) return read;
    for (const sent of this.asSent(ref)) {
      const npi = literalProviderNpi(sent.text) ?? conditionalProviderNpi(sent.text);
      if (npi !== undefined && npi !== read.npi)
        return this.fail(
          `${path}.reference`,
          `is "${clip(sent.text, 80)}" in its Bundle, naming NPI ${npi}, but the claim's ${path} is NPI ${clip(read.npi)}: which provider is meant is not for tpa to guess`,
        );
    }
    return read;
  }

  private providerNpiRead(ref: unknown, path: string): { npi: string; name: string | null } | undefined {
    if (!isObject(ref)) return this.fail(path, 'is required: a reference with an NPI identifier');
    const shape = referenceIdentifierProblem(ref.identifier);
    if (shape) return this.fail(shape.value ? `${path}.identifier.value` : `${path}.identifier`, shape.message);
    const reference = typeof ref.reference === 'string' ? ref.reference : undefined;
    const target = this.containedTarget(ref);
    if (reference?.startsWith('#') && !target) {
      return this.fail(`${path}.reference`, `points to contained resource "${clip(reference)}", which the claim does not contain`);
    }
    const name = target ? resourceName(target) : typeof ref.display === 'string' ? ref.display : null;
    const candidates: { value: unknown; path: string }[] = [];
    if (isObject(ref.identifier)) candidates.push({ value: ref.identifier, path: `${path}.identifier` });
    const targetPath = target ? `contained[${this.containedIndex(target)}]` : undefined;
    const targetIds = target ? (asArray(target.identifier) ?? []) : [];
    targetIds.forEach((id, i) => candidates.push({ value: id, path: `${targetPath}.identifier[${i}]` }));
    const conditional = reference ? conditionalIdentifier(reference) : undefined;
    if (conditional) candidates.push({ value: { system: conditional.system, value: conditional.value }, path: `${path}.reference` });
    if (reference && severalIdentifiers(reference)) return this.fail(`${path}.reference`, SEVERAL_IDENTIFIERS);
    // The reference is read as it would be alone, whatever stands beside it (memberId says why).
    const read = reference !== undefined ? readReference(reference) : undefined;
    if (read?.form === 'unreadable') return this.fail(`${path}.reference`, `is not a reference tpa can read (got "${clip(reference!)}"): it ${read.why}`);
    if (read?.form === 'entry' && !target)
      return this.fail(
        `${path}.reference`,
        `points to "${clip(reference!, 60)}", which is neither contained in the claim nor an entry of its Bundle: the NPI is missing`,
      );
    const conflict = npiConflict(ref, conditional, targetIds);
    if (conflict) return this.fail(`${path}.identifier.value`, conflict);
    // The resource pointed to names one provider: two NPIs on it are two answers to one question.
    const pointedNpis = [
      ...new Set(targetIds.filter((id): id is Json => isObject(id) && isNpiSystem(id.system) && typeof id.value === 'string').map((id) => id.value as string)),
    ];
    if (pointedNpis.length > 1)
      return this.fail(
        `${targetPath}.identifier`,
        `holds several NPIs (${pointedNpis.map((v) => clip(v)).join(', ')}): the ${clip(String(target!.resourceType ?? 'resource'))} ${path} points to is one provider, and which one is meant is not for tpa to guess`,
      );
    // The reference as its Bundle wrote it (Organization/<NPI> in any form, or a conditional
    // reference by NPI), when the entry it named holds another NPI.
    // Every one of them, never the first alone: one that agrees does not stand in for one that does not.
    // The entry's NPIs as they are read: of the NPI system, else those without a system.
    const readNpis =
      pointedNpis.length > 0
        ? pointedNpis
        : targetIds.filter((id): id is Json => isObject(id) && id.system === undefined && typeof id.value === 'string').map((id) => id.value as string);
    for (const asSent of target ? this.asSent(ref) : []) {
      const sentNpi = literalProviderNpi(asSent.text) ?? conditionalProviderNpi(asSent.text);
      if (sentNpi !== undefined && !readNpis.includes(sentNpi))
        return this.fail(
          `${path}.reference`,
          `is "${clip(asSent.text, 80)}" in its Bundle, naming NPI ${sentNpi}, but the entry it names (copied to ${targetPath ?? 'contained'}) has NPI ${readNpis.map((v) => clip(v)).join(', ') || 'none'}: which provider is meant is not for tpa to guess`,
        );
    }
    // A literal reference whose id is itself an NPI (Organization/1234567893) names the provider too.
    const literal = reference ? literalProviderNpi(reference) : undefined;
    const npiIdentifier =
      candidates.find((c) => isObject(c.value) && isNpiSystem(c.value.system)) ?? candidates.find((c) => isObject(c.value) && c.value.system === undefined);
    if (npiIdentifier && isObject(npiIdentifier.value)) {
      const value = npiIdentifier.value.value;
      if (value === undefined || value === '')
        return this.fail(`${npiIdentifier.path}${npiIdentifier.path.endsWith('.reference') ? '' : '.value'}`, 'is missing: the 10-digit NPI');
      const problem = npiProblem(value);
      if (problem) return this.fail(npiIdentifier.path.endsWith('.reference') ? npiIdentifier.path : `${npiIdentifier.path}.value`, problem);
      if (literal !== undefined && literal !== value)
        return this.fail(
          `${npiIdentifier.path}.value`,
          `is NPI ${clip(value as string)}, but ${path}.reference "${clip(reference!, 80)}" names NPI ${literal}: which provider is meant is not for tpa to guess`,
        );
      return { npi: value as string, name };
    }
    if (literal !== undefined) return { npi: literal, name };
    if (target) {
      const what = typeof target.resourceType === 'string' ? `${clip(target.resourceType)} "${clip(String(target.id))}"` : `"${clip(String(target.id))}"`;
      return this.fail(`${path}.identifier`, `is missing: an NPI identifier (system ${NPI_SYSTEM}), on the reference or on the contained ${what} it points to`);
    }
    if (conditional) {
      return this.fail(
        `${path}.reference`,
        `names ${conditional.type} by identifier ${clip(`${conditional.system ?? ''}|${conditional.value}`, 80)}, not by NPI: the NPI (system ${NPI_SYSTEM}) is missing`,
      );
    }
    if (reference && /^urn:(uuid|oid):/.test(reference)) {
      return this.fail(
        `${path}.reference`,
        `points to "${clip(reference, 60)}", which is neither contained in the claim nor an entry of its Bundle: the NPI is missing`,
      );
    }
    return this.fail(`${path}.identifier`, `is missing: an NPI identifier (system ${NPI_SYSTEM})`);
  }

  private containedIndex(resource: Json): number {
    return (asArray(this.claim.contained) ?? []).indexOf(resource);
  }

  /**
   * The member id: the patient Reference's identifier, the identifier of the contained Patient it
   * points to, a conditional reference (Patient?identifier=<system>|<member id>), or the id of a
   * literal reference (Patient/<member id>).
   */
  private memberId(): string | undefined {
    const ref = this.claim.patient;
    if (!isObject(ref)) return this.fail('patient.reference', 'is missing: a reference to the member, e.g. Patient/MBR-1001');
    const reference = typeof ref.reference === 'string' ? ref.reference : undefined;
    if (reference && severalIdentifiers(reference)) return this.fail('patient.reference', SEVERAL_IDENTIFIERS);
    // The reference is read as it would be alone, whatever stands beside it: what it cannot name
    // (unreadable, another type, a Bundle entry outside a Bundle) is refused, never set aside.
    const read = reference !== undefined ? readReference(reference) : undefined;
    if (read?.form === 'unreadable') return this.fail('patient.reference', `must be Patient/<member id> (got "${clip(reference!)}"): it ${read.why}`);
    if ((read?.form === 'literal' || read?.form === 'conditional') && read.type !== 'Patient')
      return this.fail('patient.reference', `must be Patient/<member id> (got "${clip(reference!)}")`);
    if (read?.form === 'entry')
      return this.fail(
        'patient.reference',
        `points to "${clip(reference!, 60)}", which is neither contained in the claim nor an entry of its Bundle: the member id is missing`,
      );
    // In a Bundle: each reference as its Bundle wrote it names the member the entry it found must be.
    const member = this.memberIdRead(ref, reference);
    if (member === undefined) return undefined;
    const target = this.containedTarget(ref);
    for (const sent of this.sentMembers(ref))
      if (!sameId(sent.id, member))
        return this.fail(
          'patient.reference',
          `is "${clip(sent.text, 80)}" in its Bundle, naming member "${clip(sent.id)}", but ${target ? `the Patient it finds (copied to contained[${this.containedIndex(target)}])` : "the claim's patient"} is member "${clip(member)}": which member the claim is for is not for tpa to guess`,
        );
    return member;
  }

  /**
   * The dependent a contained Patient is (DependentSent), when a contained Coverage of the claim's
   * insurance names it as its beneficiary, with the subscriber's member id (subscriberId) and a
   * relationship other than self; null when it is one but its name or birth date cannot be read
   * (refused); undefined when it is not one.
   */
  private dependentOf(patient: Json, at: string, only?: Json): DependentSent | null | undefined {
    for (const insurance of asArray(this.claim.insurance) ?? []) {
      if (!isObject(insurance) || !isObject(insurance.coverage)) continue;
      const coverage = this.containedTarget(insurance.coverage);
      if (coverage?.resourceType !== 'Coverage' || !isObject(coverage.beneficiary)) continue;
      if (only !== undefined && coverage !== only) continue;
      if (coverage.beneficiary.reference !== `#${String(patient.id)}`) continue;
      const codings = isObject(coverage.relationship) ? (asArray(coverage.relationship.coding) ?? []) : [];
      const relationship = codings.find((c): c is Json => isObject(c) && c.system === SUBSCRIBER_RELATIONSHIP_SYSTEM && typeof c.code === 'string');
      const subscriberId = typeof coverage.subscriberId === 'string' ? coverage.subscriberId.trim() : '';
      if (!relationship || relationship.code === 'self' || subscriberId === '') continue;
      this.dependentCoverages.add(coverage);
      const cov = `contained[${this.containedIndex(coverage)}]`;
      if (subscriberId.length > 64) {
        this.fail(`${cov}.subscriberId`, `is ${subscriberId.length} characters: a member id has at most 64`);
        return null;
      }
      const name = (asArray(patient.name) ?? [])[0];
      const family = isObject(name) && typeof name.family === 'string' ? name.family.trim() : '';
      const given = isObject(name) ? (asArray(name.given) ?? []).filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim()) : [];
      const birthDate = typeof patient.birthDate === 'string' ? patient.birthDate : '';
      const problems: [string, string][] = [];
      if (family === '' || given.length === 0)
        problems.push([
          `${at}.name`,
          `is missing: a dependent of subscriber ${clip(subscriberId)} is found by last and first name (name[0].family, name[0].given) and birth date`,
        ]);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(birthDate) || datePart(birthDate) !== birthDate)
        problems.push([
          `${at}.birthDate`,
          `is ${birthDate === '' ? 'missing' : `"${clip(birthDate)}"`}: a dependent of subscriber ${clip(subscriberId)} is found by name and birth date (YYYY-MM-DD)`,
        ]);
      for (const [field, message] of problems) this.fail(field, message);
      if (problems.length > 0) return null;
      return { subscriberId, family, given, birthDate, relationship: String(relationship.code) };
    }
    return undefined;
  }

  /**
   * The dependent form wherever the claim's coverages hold it (a contained Coverage whose beneficiary
   * is a contained Patient, with subscriberId and a relationship other than self), not only where
   * `patient` points: a claim whose `patient` names a member (Patient/<id>, an identifier, another
   * contained Patient) beside a dependent is read as naming both, and the engine refuses it unless
   * that member is the dependent it finds. Two dependents (two contained Patients, or one under two
   * subscribers) are refused: which one is the patient is not for tpa to guess.
   */
  private coverageDependents(): void {
    for (const [i, insurance] of (asArray(this.claim.insurance) ?? []).entries()) {
      if (!isObject(insurance) || !isObject(insurance.coverage)) continue;
      const coverage = this.containedTarget(insurance.coverage);
      if (coverage?.resourceType !== 'Coverage' || !isObject(coverage.beneficiary) || this.dependentCoverages.has(coverage)) continue;
      const patient = this.containedTarget(coverage.beneficiary);
      if (patient?.resourceType !== 'Patient') continue;
      const at = `contained[${this.containedIndex(patient)}]`;
      const found = this.dependentOf(patient, at, coverage);
      if (found === null) return;
      if (!found) continue;
      const first = this.dependent;
      if (!first) {
        this.dependent = found;
        continue;
      }
      if (first.subscriberId !== found.subscriberId || describeSent(first) !== describeSent(found))
        return void this.fail(
          `contained[${this.containedIndex(coverage)}].beneficiary.reference`,
          `names the dependent ${clip(describeSent(found), 80)} of subscriber ${clip(found.subscriberId)} (the Coverage of insurance[${i}]), but the claim's patient is the dependent ${clip(describeSent(first), 80)} of subscriber ${clip(first.subscriberId)}: which patient the claim is for is not for tpa to guess`,
        );
    }
  }

  /**
   * Said when the claim's patient is a contained Patient without a member id that no Coverage names
   * as its beneficiary, while a Coverage of the claim is in the dependent form for someone else.
   */
  private dependentElsewhere(): string {
    for (const [i, insurance] of (asArray(this.claim.insurance) ?? []).entries()) {
      if (!isObject(insurance) || !isObject(insurance.coverage)) continue;
      const coverage = this.containedTarget(insurance.coverage);
      if (coverage?.resourceType !== 'Coverage' || typeof coverage.subscriberId !== 'string' || coverage.subscriberId.trim() === '') continue;
      const beneficiary = isObject(coverage.beneficiary) && typeof coverage.beneficiary.reference === 'string' ? coverage.beneficiary.reference : undefined;
      return `: the Coverage of insurance[${i}] (subscriber ${clip(coverage.subscriberId.trim())}) covers ${beneficiary ? `"${clip(beneficiary, 80)}"` : 'no one it names'}, not this Patient, so it is no dependent of that subscriber either`;
    }
    return '';
  }

  /** The member id memberId reads, before what the Bundle wrote is compared with it. */
  private memberIdRead(ref: Json, reference: string | undefined): string | undefined {
    // A Reference holds one identifier: a list, or a value that is not text, is not set aside for the reference.
    const shape = referenceIdentifierProblem(ref.identifier);
    if (shape) return this.fail(shape.value ? 'patient.identifier.value' : 'patient.identifier', shape.message);
    // A reference to a contained resource the claim does not hold names no one, whatever else is given.
    if (reference?.startsWith('#') && !this.containedTarget(ref))
      return this.fail('patient.reference', `points to contained resource "${clip(reference)}", which the claim does not contain`);
    if (isObject(ref.identifier)) {
      const value = ref.identifier.value;
      if (typeof value === 'string' && value.trim() !== '') return this.sameMember(value, reference, ref);
      // An identifier given without its value: that is what is missing, whatever the reference says.
      if (!reference) return this.fail('patient.identifier.value', 'is missing: the member id');
    }
    const target = this.containedTarget(ref);
    if (reference?.startsWith('#')) {
      if (!target) return this.fail('patient.reference', `points to contained resource "${clip(reference)}", which the claim does not contain`);
      const at = `contained[${this.containedIndex(target)}]`;
      const member = patientMemberId(target);
      if (typeof member === 'object') return this.fail(`${at}.identifier`, member.ambiguous);
      // A dependent named by name and birth date under a subscriber's coverage: resolved by the engine.
      const dependent = this.dependentOf(target, at);
      if (dependent === null) return undefined;
      if (dependent) this.dependent = dependent;
      if (member !== undefined) return member;
      if (dependent) return '';
      return this.fail(
        `${at}.identifier`,
        `is missing: the member id (the ${clip(String(target.resourceType ?? 'resource'))} "${clip(String(target.id))}" the claim's patient points to has no identifier)${this.dependentElsewhere()}`,
      );
    }
    if (reference) {
      const conditional = conditionalIdentifier(reference);
      if (conditional?.type === 'Patient') return conditional.value;
      const literal = literalPatientId(reference);
      if (literal !== undefined) return literal;
      if (/^urn:(uuid|oid):/.test(reference)) {
        return this.fail(
          'patient.reference',
          `points to "${clip(reference, 60)}", which is neither contained in the claim nor an entry of its Bundle: the member id is missing`,
        );
      }
      return this.fail('patient.reference', `must be Patient/<member id> (got "${clip(reference)}")`);
    }
    return this.fail('patient.reference', 'is missing: a reference to the member, e.g. Patient/MBR-1001');
  }

  /**
   * The member id on the patient reference, unless the reference itself names another member: the
   * resource it points to, its conditional reference, or its literal id (Patient/<member id>, the
   * member as the service reads it). Then both are said, and neither is chosen.
   */
  private sameMember(value: string, reference: string | undefined, ref: Json): string | undefined {
    const target = this.containedTarget(ref);
    const pointed = target ? patientMemberId(target) : undefined;
    // A Patient of several member ids is not made one by the identifier beside the reference.
    if (typeof pointed === 'object') return this.fail(`contained[${this.containedIndex(target!)}].identifier`, pointed.ambiguous);
    const conditional = reference ? conditionalIdentifier(reference) : undefined;
    const literal = reference ? literalPatientId(reference) : undefined;
    const other =
      typeof pointed === 'string'
        ? { id: pointed, what: `the ${clip(String(target!.resourceType ?? 'resource'))} it points to (contained[${this.containedIndex(target!)}])` }
        : conditional?.type === 'Patient'
          ? { id: conditional.value, what: `the conditional reference (patient.reference "${clip(reference!, 80)}")` }
          : literal !== undefined
            ? { id: literal, what: `patient.reference "${clip(reference!, 80)}"` }
            : undefined;
    if (other && !sameId(other.id, value))
      return this.fail(
        'patient.identifier.value',
        `is "${clip(value)}", but ${other.what} names member "${clip(other.id)}": which member the claim is for is not for tpa to guess`,
      );
    return value;
  }

  /**
   * Why a Reference names nothing (`#id` of a resource the claim does not contain, or a Bundle entry's
   * `urn:uuid:`/`urn:oid:` in a claim that is not in its Bundle any more), or undefined.
   */
  private referenceToNothing(ref: Json, what: string): string | undefined {
    const reference = typeof ref.reference === 'string' ? ref.reference : undefined;
    if (reference === undefined) return undefined;
    const read = readReference(reference);
    if (read.form === 'contained' && !this.containedTarget(ref)) return `points to contained resource "${clip(reference)}", which the claim does not contain`;
    if (read.form === 'entry')
      return `points to "${clip(reference, 60)}", which is neither contained in the claim nor an entry of its Bundle: ${what} is missing`;
    return undefined;
  }

  /**
   * The payer the claim is addressed to, when both its reference and its identifier name it: they
   * agree, or the claim is refused naming both. The reference names it by its id
   * (Organization/PAYER-ACME, as the claim's answer gives it back), by a conditional reference, or by
   * the identifiers of the contained Organization it points to.
   */
  private sameInsurer(): void {
    const ref = this.claim.insurer;
    const shape = isObject(ref) ? referenceIdentifierProblem(ref.identifier) : undefined;
    if (shape) return void this.fail(shape.value ? 'insurer.identifier.value' : 'insurer.identifier', shape.message);
    // The payer's reference is given back in the claim's answer: one tpa cannot read is refused, alone or beside an identifier.
    const written = isObject(ref) && typeof ref.reference === 'string' ? ref.reference : undefined;
    const read = written !== undefined ? readReference(written) : undefined;
    if (read?.form === 'unreadable') return void this.fail('insurer.reference', `is not a reference tpa can read (got "${clip(written!)}"): it ${read.why}`);
    // Read as a patient or provider reference is read: one that names nothing, or names another kind of resource, is refused.
    const nothing = this.referenceToNothing(isObject(ref) ? ref : {}, 'the payer');
    if (nothing) return void this.fail('insurer.reference', nothing);
    if ((read?.form === 'literal' || read?.form === 'conditional') && read.type !== 'Organization')
      return void this.fail('insurer.reference', `must be Organization/<payer id> (got "${clip(written!)}"): the insurer is an Organization`);
    if (!isObject(ref) || !isObject(ref.identifier) || typeof ref.identifier.value !== 'string' || ref.identifier.value.trim() === '') return;
    const own = ref.identifier.value;
    const reference = typeof ref.reference === 'string' ? ref.reference : undefined;
    if (!reference) return;
    const say = (what: string, other: string) =>
      this.fail(
        'insurer.identifier.value',
        `is "${clip(own)}", but ${what} names payer "${clip(other)}": which payer the claim is addressed to is not for tpa to guess`,
      );
    const target = this.containedTarget(ref);
    if (target) {
      const pointed = (asArray(target.identifier) ?? [])
        .filter((id): id is Json => isObject(id) && typeof id.value === 'string' && id.value.trim() !== '')
        .map((id) => id.value as string);
      if (pointed.length > 0 && !pointed.some((v) => sameId(v, own)))
        say(
          `the ${clip(String(target.resourceType ?? 'resource'))} insurer.reference points to (contained[${this.containedIndex(target)}])`,
          pointed.join('", "'),
        );
      return;
    }
    const conditional = conditionalIdentifier(reference);
    if (conditional) {
      if (!sameId(conditional.value, own)) say(`the conditional reference (insurer.reference "${clip(reference, 80)}")`, conditional.value);
      return;
    }
    const literal = read?.form === 'literal' && read.type === 'Organization' ? read.id : undefined;
    if (literal !== undefined && !sameId(literal, own)) say(`insurer.reference "${clip(reference, 80)}"`, literal);
  }

  /**
   * The member a contained Coverage of the claim's insurance covers (its `beneficiary`), read as the
   * claim's own patient reference is read: the claim's member, or the claim is refused naming both.
   * A dependent named by name and birth date alone ('') takes the first member another field names,
   * which every later one must be too; the member id the claim names is returned ('' when none).
   */
  private sameBeneficiary(patientMember: string): string {
    let memberId = patientMember;
    let said = `the claim's patient is member "${clip(memberId)}"`;
    /** Whether a member named at field is the claim's: the first one named is, when the patient names none. */
    const agrees = (id: string, field: string): boolean => {
      if (memberId !== '') return sameId(id, memberId);
      memberId = id.trim();
      said = `${field} names member "${clip(memberId)}" for the claim's dependent patient`;
      return true;
    };
    for (const [i, insurance] of (asArray(this.claim.insurance) ?? []).entries()) {
      if (!isObject(insurance) || !isObject(insurance.coverage)) continue;
      // The coverage's own identifier, when its type says it is a member id (MB, SN, um, as `claim
      // convert` writes it): the claim's member. Untyped, it is the policy's number, not read.
      const covered = insurance.coverage.identifier;
      if (
        isObject(covered) &&
        typeof covered.value === 'string' &&
        covered.value.trim() !== '' &&
        memberIdType(covered) !== undefined &&
        !agrees(covered.value, `insurance[${i}].coverage.identifier.value`)
      )
        this.fail(
          `insurance[${i}].coverage.identifier.value`,
          `names member "${clip(covered.value)}" (typed ${memberIdType(covered)}), but ${said}: which member the claim is for is not for tpa to guess`,
        );
      const coverage = this.containedTarget(insurance.coverage);
      if (!coverage || !isObject(coverage.beneficiary)) continue;
      const at = `contained[${this.containedIndex(coverage)}].beneficiary`;
      const beneficiary = coverage.beneficiary;
      const reference = typeof beneficiary.reference === 'string' ? beneficiary.reference : undefined;
      const read = reference !== undefined ? readReference(reference) : undefined;
      if (read?.form === 'unreadable') {
        this.fail(`${at}.reference`, `is not a reference tpa can read (got "${clip(reference!)}"): it ${read.why}`);
        continue;
      }
      const shape = referenceIdentifierProblem(beneficiary.identifier);
      if (shape) {
        this.fail(shape.value ? `${at}.identifier.value` : `${at}.identifier`, shape.message);
        continue;
      }
      // Read as the claim's patient reference is read: one that names nothing, or another kind of resource, is refused.
      const nothing = this.referenceToNothing(beneficiary, 'the member id');
      if (nothing) {
        this.fail(`${at}.reference`, nothing);
        continue;
      }
      if ((read?.form === 'literal' || read?.form === 'conditional') && read.type !== 'Patient') {
        this.fail(`${at}.reference`, `must be Patient/<member id> (got "${clip(reference!)}"): a Coverage's beneficiary is a Patient`);
        continue;
      }
      // Every name the beneficiary is given (its identifier, the Patient it points to, its conditional
      // or literal reference, the reference as its Bundle wrote it) is the claim's member.
      const names: { id: string; field: string }[] = [];
      if (isObject(beneficiary.identifier) && typeof beneficiary.identifier.value === 'string' && beneficiary.identifier.value.trim() !== '')
        names.push({ id: beneficiary.identifier.value, field: `${at}.identifier.value` });
      const pointed = this.containedTarget(beneficiary);
      if (pointed) {
        const id = patientMemberId(pointed);
        if (typeof id === 'object') {
          this.fail(`contained[${this.containedIndex(pointed)}].identifier`, id.ambiguous);
          continue;
        }
        if (typeof id === 'string') names.push({ id, field: `${at}.reference` });
      }
      if (read?.form === 'conditional') names.push({ id: read.value, field: `${at}.reference` });
      if (read?.form === 'literal') names.push({ id: read.id, field: `${at}.reference` });
      for (const sent of this.sentMembers(beneficiary)) names.push({ id: sent.id, field: `${at}.reference` });
      const named = names.find((n) => !agrees(n.id, n.field));
      if (named)
        this.fail(
          named.field,
          `names member "${clip(named.id)}", but ${said} (the Coverage of insurance[${i}] covers another member): which member the claim is for is not for tpa to guess`,
        );
    }
    return memberId;
  }

  private billablePeriod(): { start: string | null; end: string | null } {
    const period = this.claim.billablePeriod;
    if (period === undefined) return { start: null, end: null };
    if (!isObject(period)) return { start: null, end: this.fail('billablePeriod', 'must be an object with start and end') ?? null };
    const read = (key: 'start' | 'end'): string | null => {
      if (period[key] === undefined) return null;
      const d = datePart(period[key]);
      if (!d) this.fail(`billablePeriod.${key}`, 'must be a date (YYYY-MM-DD) or date-time');
      return d ?? null;
    };
    const start = read('start');
    const end = read('end');
    if (start && end && end < start) this.fail('billablePeriod.end', 'is before billablePeriod.start');
    return { start, end };
  }

  private careTeam(): CareTeamMember[] {
    const list = this.claim.careTeam;
    if (list === undefined) return [];
    const entries = asArray(list);
    if (!entries) return this.fail('careTeam', 'must be a list') ?? [];
    const members: CareTeamMember[] = [];
    entries.forEach((entry, i) => {
      const path = `careTeam[${i}]`;
      if (!isObject(entry)) return this.fail(path, 'must be an object');
      if (!Number.isInteger(entry.sequence) || (entry.sequence as number) < 1) {
        return this.fail(`${path}.sequence`, 'must be a positive integer');
      }
      // A line names its payee by sequence: two entries of one sequence would leave who is paid to their order.
      if (this.careTeamSequenceNumbers.has(entry.sequence as number)) {
        return this.fail(`${path}.sequence`, `repeats sequence ${entry.sequence as number}: a line naming it could mean either provider`);
      }
      this.careTeamSequenceNumbers.add(entry.sequence as number);
      const provider = this.providerNpi(entry.provider, `${path}.provider`);
      if (!provider) return;
      members.push({ sequence: entry.sequence as number, npi: provider.npi, name: provider.name, role: roleOf(entry.role) });
    });
    return members;
  }

  private items(type: ClaimType | undefined, defaultDate: string | null, created: string | null): ClaimLine[] | undefined {
    const items = asArray(this.claim.item);
    if (!items || items.length === 0) return this.fail('item', 'is required: at least one service line');
    if (items.length > MAX_CLAIM_ITEMS) return this.fail('item', `has ${items.length} lines; at most ${MAX_CLAIM_ITEMS} are accepted`);
    const sequences = this.careTeamSequenceNumbers;
    const lines: ClaimLine[] = [];
    const seen = new Set<number>();
    items.forEach((item, i) => {
      const path = `item[${i}]`;
      if (!isObject(item)) return this.fail(path, 'must be an object');
      const sequence = Number.isInteger(item.sequence) && (item.sequence as number) > 0 ? (item.sequence as number) : undefined;
      if (sequence === undefined) this.fail(`${path}.sequence`, 'must be a positive integer');
      else if (seen.has(sequence)) this.fail(`${path}.sequence`, `repeats sequence ${sequence}`);
      else seen.add(sequence);
      const code = this.procedureCode(item.productOrService, `${path}.productOrService`, item.revenue !== undefined);
      const cptCode = code?.code;
      const revenueCode = this.revenueCode(item.revenue, `${path}.revenue`, type === 'institutional');
      const serviceDate = this.serviceDate(item, path, defaultDate, created);
      const counted = this.quantity(item.quantity, `${path}.quantity`);
      const quantity = counted?.value;
      const chargeCents = this.charge(item, path, counted?.ratio);
      const careTeamSequences = this.careTeamSequences(item.careTeamSequence, `${path}.careTeamSequence`, sequences);
      const modifiers = this.modifiers(item.modifier, `${path}.modifier`);
      const control = this.lineControlNumber(item.extension, `${path}.extension`);
      if (
        sequence !== undefined &&
        cptCode !== undefined &&
        revenueCode !== undefined &&
        serviceDate &&
        quantity !== undefined &&
        chargeCents !== undefined &&
        careTeamSequences &&
        modifiers &&
        control !== null
      ) {
        lines.push({
          sequence,
          cptCode,
          revenueCode,
          serviceDate,
          quantity,
          ...(counted?.unit === 'MJ' ? { unitOfMeasure: 'MJ' as const } : {}),
          ...(code?.unpriced ? { unpriced: code.unpriced } : {}),
          chargeCents,
          careTeamSequences,
          ...(modifiers.length > 0 ? { modifiers } : {}),
          ...(control !== undefined ? { lineControlNumber: control } : {}),
        });
      }
    });
    return lines;
  }

  /**
   * serviced[x]: servicedDate, or servicedPeriod of one day (its end, if given, is its start; a period
   * with only an end is that day); else the claim's billablePeriod (its start, or its end alone).
   * A service is claimed once rendered: never after the claim's `created` date, nor after today.
   */
  private serviceDate(item: Json, path: string, defaultDate: string | null, created: string | null): string | null {
    let date: string | undefined | null;
    let field: string;
    if (item.servicedDate !== undefined) {
      field = `${path}.servicedDate`;
      date = datePart(item.servicedDate);
      if (!date) return this.fail(field, 'must be a date (YYYY-MM-DD)') ?? null;
    } else if (item.servicedPeriod !== undefined) {
      const period = item.servicedPeriod;
      if (!isObject(period)) return this.fail(`${path}.servicedPeriod`, 'must be an object with start and end dates') ?? null;
      const end = period.end !== undefined ? datePart(period.end) : undefined;
      if (period.end !== undefined && !end) return this.fail(`${path}.servicedPeriod.end`, 'must be a date (YYYY-MM-DD) or date-time') ?? null;
      if (period.start === undefined) {
        // Only its end: the day the service was rendered.
        if (!end) return this.fail(`${path}.servicedPeriod.start`, 'is missing, and so is its end: the date of the service') ?? null;
        field = `${path}.servicedPeriod.end`;
        date = end;
      } else {
        field = `${path}.servicedPeriod.start`;
        date = datePart(period.start);
        if (!date) return this.fail(field, 'must be a date (YYYY-MM-DD) or date-time') ?? null;
        // A period still running has not been rendered yet either.
        const today = this.options.today;
        if (end && today && end > today) return this.fail(`${path}.servicedPeriod.end`, `is ${end}, in the future (today is ${today})`) ?? null;
        // A line is priced, covered and paid once on one date (coverage, contract, rate and duplicates
        // are all checked on it): a period of several days would have its later days checked on none.
        if (end && end !== date)
          return (
            this.fail(
              `${path}.servicedPeriod.end`,
              end < date ? `is ${end}, before its start ${date}` : `is ${end}, after its start ${date}: a line is one date; bill each day as a line of its own`,
            ) ?? null
          );
      }
    } else {
      if (!defaultDate) return this.fail(`${path}.servicedDate`, 'is missing (and the claim has no billablePeriod to take it from)') ?? null;
      field = `${path}.servicedDate`;
      date = defaultDate;
    }
    const today = this.options.today;
    if (today && date > today) return this.fail(field, `is ${date}, in the future (today is ${today}): claim a service once it is rendered`) ?? null;
    if (created && date > created) return this.fail(field, `is ${date}, after the claim's created date ${created}`) ?? null;
    return date;
  }

  /**
   * The procedure code (docs/money-rules.md "Lines tpa does not price"): the coding with the CPT
   * system, else the HCPCS system, else one without a system, wherever it stands. A CPT code (5
   * digits) is priced; a HCPCS Level II code (a letter A to V and 4 digits: J3490, A4550), under
   * either system, is read and left unpriced (the engine denies the line). An item with a revenue
   * code and no procedure code (productOrService absent, without a coding, or coded only with
   * data-absent-reason, as `claim convert` writes an 837I revenue-code-only line) is a
   * revenue-code-only line, unpriced too. Anything else is refused: a code tpa cannot read.
   */
  private procedureCode(concept: unknown, path: string, hasRevenue: boolean): { code: string; unpriced?: UnpricedCode } | undefined {
    const codings = isObject(concept) ? asArray(concept.coding) : undefined;
    const absent = (c: unknown) => isObject(c) && c.system === DATA_ABSENT_REASON_SYSTEM;
    if (hasRevenue && (concept === undefined || (isObject(concept) && (!codings || codings.length === 0 || codings.every(absent)))))
      return { code: '', unpriced: 'REVENUE_CODE_ONLY' };
    if (!codings || codings.length === 0) return this.fail(`${path}.coding`, 'is required: a CPT coding');
    let index = codings.findIndex((c) => isObject(c) && c.system === CPT_SYSTEM);
    if (index < 0) index = codings.findIndex((c) => isObject(c) && c.system === HCPCS_SYSTEM);
    if (index < 0) index = codings.findIndex((c) => isObject(c) && c.system === undefined);
    if (index < 0) {
      // What it has instead (a SNOMED CT procedure…), so the person reading knows why.
      const other = codings.find((c): c is Json => isObject(c) && typeof c.system === 'string');
      const has = other ? `; it has ${clip(String(other.system), 60)}${typeof other.code === 'string' ? ` "${clip(other.code)}"` : ''}` : '';
      return this.fail(`${path}.coding`, `has no CPT coding (system ${CPT_SYSTEM})${has}`);
    }
    const code = (codings[index] as Json).code;
    if (typeof code === 'string' && HCPCS_LEVEL_II.test(code)) return { code, unpriced: 'HCPCS_LEVEL_II' };
    const problem = cptProblem(code);
    if (problem && (codings[index] as Json).system === HCPCS_SYSTEM)
      return this.fail(
        `${path}.coding[${index}].code`,
        `must be a HCPCS code: Level I (CPT, 5 digits) or Level II (a letter A to V and 4 digits)${typeof code === 'string' ? ` (got "${clip(code)}")` : ''}`,
      );
    return problem ? this.fail(`${path}.coding[${index}].code`, problem) : { code: code as string };
  }

  private revenueCode(concept: unknown, path: string, required: boolean): string | null | undefined {
    if (concept === undefined) return required ? this.fail(`${path}.coding`, 'is required on institutional claims: a 4-digit revenue code') : null;
    const codings = isObject(concept) ? asArray(concept.coding) : undefined;
    if (!codings || codings.length === 0) return this.fail(`${path}.coding`, 'must hold a revenue code coding');
    const index = Math.max(
      0,
      codings.findIndex((c) => isObject(c) && c.system === REVENUE_SYSTEM),
    );
    const code = isObject(codings[index]) ? (codings[index] as Json).code : undefined;
    if (typeof code !== 'string' || !/^\d{4}$/.test(code)) {
      return this.fail(`${path}.coding[${index}].code`, `must be a 4-digit revenue code${typeof code === 'string' ? ` (got "${clip(code)}")` : ''}`);
    }
    return code;
  }

  /**
   * The line's quantity as sent (docs/money-rules.md "Quantity"): a number above 0 and at most
   * 9999, with at most three decimals (1.5 units of a drug), as an exact `ratio` (net = quantity ×
   * unitPrice is checked on it). A quantity in minutes (UCUM `min`, or unit "min"/"minute(s)" with
   * no code) is minutes of anesthesia, unit MJ as an 837's SV103 says it: kept as sent, priced as
   * one service. Another UCUM unit that is not a count (`h`, `d`, `mg`…) is refused: no rate is per
   * hour or per milligram, and reading it as a count would price 2 hours as 2 units. A count is
   * UCUM `1` or an annotation (`{visit}`), or no code.
   */
  private quantity(value: unknown, path: string): { value: number; ratio: Ratio; unit: UnitOfMeasure } | undefined {
    if (value === undefined) return { value: 1, ratio: { numerator: 1, denominator: 1 }, unit: 'UN' };
    const q = isObject(value) ? value.value : undefined;
    const ratio = quantityRatio(q);
    if (ratio === undefined) return this.fail(`${path}.value`, `must be a number above 0 and at most ${MAX_QUANTITY}, with at most three decimals`);
    const sent = q as number;
    const quantity = value as Json;
    const code = quantity.code;
    const ucum = quantity.system === undefined || quantity.system === UCUM_SYSTEM;
    const saysMinutes = typeof quantity.unit === 'string' && MINUTE_WORDS.has(quantity.unit.trim().toLowerCase());
    const minutes = { value: sent, ratio, unit: 'MJ' as const };
    const units = { value: sent, ratio, unit: 'UN' as const };
    // A unit in minutes with a code that says otherwise is two answers to one question: never priced on either.
    const minutesOtherwise = () =>
      this.fail(`${path}.unit`, `is "${clip(String(quantity.unit))}" (minutes), but code "${clip(String(code))}" is not: minutes of anesthesia are code min`);
    if (code !== undefined && ucum) {
      if (typeof code !== 'string') return this.fail(`${path}.code`, 'must be a UCUM code (min, or 1 for a count)');
      if (code === 'min') return minutes;
      if (saysMinutes) return minutesOtherwise();
      if (code === '1' || /^\{[^{}]*\}$/.test(code)) return units;
      return this.fail(
        `${path}.code`,
        `is UCUM "${clip(code)}": a quantity is a count of services (1) or minutes of anesthesia (min, one service), not another unit`,
      );
    }
    if (saysMinutes) return code === undefined ? minutes : minutesOtherwise();
    return units;
  }

  /**
   * The line's charge, USD with at most two decimals. FHIR R4: net = quantity × unitPrice × factor;
   * when both are given they must agree to the cent (a mismatch is refused, never priced on one
   * of them); `unitPrice` alone gives quantity × unitPrice × factor, rounded half away from zero.
   */
  private charge(item: Json, path: string, quantity: Ratio | undefined): number | undefined {
    const money = (v: unknown, field: string): number | undefined => {
      if (!isObject(v)) return this.fail(field, 'must be a Money object with value and currency');
      if (v.currency !== undefined && v.currency !== 'USD') return this.fail(`${field}.currency`, `must be USD (got "${clip(String(v.currency))}")`);
      const cents = jsonNumberToCents(v.value);
      if (cents === undefined) return this.fail(`${field}.value`, 'must be a non-negative amount with at most two decimals');
      return cents;
    };
    const limit = (cents: number | undefined, field: string): number | undefined =>
      cents !== undefined && cents > MAX_LINE_CHARGE_CENTS ? this.fail(field, 'is more than 99,999,999.99 for one line') : cents;
    let factor: Ratio = { numerator: 1, denominator: 1 };
    if (item.factor !== undefined) {
      const f = jsonNumberToRatio(item.factor);
      if (f === undefined || f.numerator === 0) return this.fail(`${path}.factor`, 'must be a positive number with at most six decimals');
      factor = f;
    }
    const net = item.net === undefined ? undefined : limit(money(item.net, `${path}.net`), `${path}.net.value`);
    if (item.unitPrice === undefined) {
      if (item.net === undefined) return this.fail(`${path}.net`, 'is required: the line charge (net, or unitPrice with quantity)');
      return net;
    }
    // A unit price above the most one line may charge is refused as itself, before quantity × it is computed.
    const unit = limit(money(item.unitPrice, `${path}.unitPrice`), `${path}.unitPrice.value`);
    if (unit === undefined || quantity === undefined) return undefined;
    const computed = mulRatiosRound(unit, [quantity, factor]);
    if (item.net === undefined) return limit(computed, `${path}.unitPrice.value`);
    if (net !== undefined && net !== computed) {
      const factorText = item.factor === undefined ? '' : ` × factor ${String(item.factor)}`;
      return this.fail(
        `${path}.net.value`,
        `is ${formatCentsGrouped(net)}, but quantity ${ratioText(quantity)} × unitPrice ${formatCentsGrouped(unit)}${factorText} is ${formatCentsGrouped(computed)}`,
      );
    }
    return net;
  }

  /** The claim's `total`, when given, is USD and the sum of the lines' charges to the cent. */
  private total(lines: ClaimLine[]): void {
    const total = this.claim.total;
    if (total === undefined) return;
    if (!isObject(total)) return void this.fail('total', 'must be a Money object with value and currency');
    if (total.currency !== undefined && total.currency !== 'USD')
      return void this.fail('total.currency', `must be USD (got "${clip(String(total.currency))}")`);
    const cents = jsonNumberToCents(total.value);
    if (cents === undefined) return void this.fail('total.value', 'must be a non-negative amount with at most two decimals');
    const sum = lines.reduce((s, line) => s + line.chargeCents, 0);
    if (cents !== sum) this.fail('total.value', `is ${formatCentsGrouped(cents)}, but the lines' charges add up to ${formatCentsGrouped(sum)}`);
  }

  /**
   * The line's modifiers (docs/money-rules.md "Modifiers"): each CodeableConcept's coding of the CPT
   * or HCPCS system, else one without a system, else its first; two letters or digits, kept upper
   * case; at most four, as many as an 837 or 835 line carries.
   */
  private modifiers(value: unknown, path: string): string[] | undefined {
    if (value === undefined) return [];
    const list = asArray(value);
    if (!list) return this.fail(path, 'must be a list of modifier codings');
    if (list.length > MAX_LINE_MODIFIERS)
      return this.fail(path, `has ${list.length} modifiers; a line carries at most ${MAX_LINE_MODIFIERS}, as an 837 or 835 service line does`);
    const codes: string[] = [];
    for (const [j, concept] of list.entries()) {
      const codings = isObject(concept) ? asArray(concept.coding) : undefined;
      if (!codings || codings.length === 0) return this.fail(`${path}[${j}].coding`, 'is required: a coding with the 2-character modifier code');
      let k = codings.findIndex((c) => isObject(c) && (c.system === CPT_SYSTEM || c.system === HCPCS_SYSTEM));
      if (k < 0) k = codings.findIndex((c) => isObject(c) && c.system === undefined);
      if (k < 0) k = 0;
      const code = isObject(codings[k]) ? (codings[k] as Json).code : undefined;
      const problem = modifierProblem(code);
      if (problem) return this.fail(`${path}[${j}].coding[${k}].code`, problem);
      codes.push((code as string).toUpperCase());
    }
    return codes;
  }

  /** The sender's line control number (LINE_CONTROL_NUMBER_URL), trimmed; undefined when none, null when it cannot be used. */
  private lineControlNumber(value: unknown, path: string): string | undefined | null {
    const list = asArray(value);
    if (!list) return undefined;
    const k = list.findIndex((e) => isObject(e) && e.url === LINE_CONTROL_NUMBER_URL);
    if (k < 0) return undefined;
    // One line control number a line, as an 837's loop 2400 has one REF*6R: a second is refused, never a choice between them.
    const again = list.findIndex((e, i) => i > k && isObject(e) && e.url === LINE_CONTROL_NUMBER_URL);
    if (again >= 0)
      return (
        this.fail(`${path}[${again}]`, `is a second ${LINE_CONTROL_NUMBER_URL} extension: a line has one line control number (the 835 gives back one)`) ?? null
      );
    const text = (list[k] as Json).valueString;
    if (typeof text !== 'string' || text.trim() === '') return this.fail(`${path}[${k}].valueString`, "is missing: the sender's line control number") ?? null;
    const control = text.trim();
    if (control.length > MAX_LINE_CONTROL_NUMBER)
      return (
        this.fail(
          `${path}[${k}].valueString`,
          `is ${control.length} characters; a line control number has at most ${MAX_LINE_CONTROL_NUMBER} (an 835's REF*6R)`,
        ) ?? null
      );
    if (!X12_ID_CHARACTERS.test(control)) {
      const bad = nonX12IdCharacters(control);
      const why = `holds ${bad}: outside X12's character sets, or a delimiter (~ * : ^) of the 835 tpa writes it back into (REF*6R)`;
      return this.fail(`${path}[${k}].valueString`, why) ?? null;
    }
    return control;
  }

  private careTeamSequences(value: unknown, path: string, known: Set<number>): number[] | undefined {
    if (value === undefined) return [];
    const list = asArray(value);
    if (!list) return this.fail(path, 'must be a list of careTeam sequence numbers');
    for (const [i, s] of list.entries()) {
      if (!Number.isInteger(s) || !known.has(s as number))
        return this.fail(`${path}[${i}]`, `refers to no careTeam entry (got ${clip(JSON.stringify(s) ?? '')})`);
    }
    return list as number[];
  }

  /**
   * The diagnosis codes, each read by its coding system: ICD-10-CM (or ICD-10) codes are checked as
   * ICD-10; an ICD-9-CM code is refused on a claim with services from 2015-10-01 (ICD-10's date),
   * whatever it looks like, and checked as ICD-9 on a claim whose services are all before it. A coding without a system (or of another system,
   * when the diagnosis has no ICD coding) is checked as ICD-10.
   */
  private diagnoses(lines: ClaimLine[] | undefined, period: { start: string | null; end: string | null }, created: string | null): string[] {
    const list = this.claim.diagnosis;
    if (list === undefined) return [];
    const entries = asArray(list);
    if (!entries) return this.fail('diagnosis', 'must be a list') ?? [];
    // The date the code set is chosen by: the claim's last service date (a claim with any service
    // from ICD-10's date on is coded in ICD-10), else its billable period's, else its creation's.
    const serviceDate =
      lines
        ?.map((l) => l.serviceDate)
        .sort()
        .at(-1) ??
      period.end ??
      period.start ??
      created;
    const codes: string[] = [];
    entries.forEach((entry, i) => {
      const path = `diagnosis[${i}].diagnosisCodeableConcept.coding`;
      const codings = isObject(entry) && isObject(entry.diagnosisCodeableConcept) ? asArray(entry.diagnosisCodeableConcept.coding) : undefined;
      // A diagnosis by reference (diagnosisReference) is valid FHIR; the service does not need its code.
      if (isObject(entry) && entry.diagnosisReference !== undefined && !codings) return;
      if (!codings || codings.length === 0) return this.fail(path, 'is missing: an ICD-10-CM coding');
      const bySystem = (system: string | undefined) => codings.findIndex((c) => isObject(c) && c.system === system);
      let index = bySystem(ICD10_SYSTEM);
      if (index < 0) index = bySystem(ICD10_WHO_SYSTEM);
      const icd9 = index < 0 ? bySystem(ICD9_SYSTEM) : -1;
      if (icd9 >= 0) {
        const code = (codings[icd9] as Json).code;
        if (serviceDate === null || serviceDate >= ICD10_FROM) {
          return this.fail(
            `${path}[${icd9}].system`,
            `is ICD-9-CM${typeof code === 'string' ? ` (code "${clip(code)}")` : ''}, which is not accepted for services from ${ICD10_FROM}${serviceDate ? ` (this one is ${serviceDate})` : ''}: code the diagnosis in ICD-10-CM (${ICD10_SYSTEM})`,
          );
        }
        if (typeof code !== 'string' || !/^(\d{3}(\.?\d{1,2})?|V\d{2}(\.?\d{1,2})?|E\d{3}(\.?\d)?)$/.test(code)) {
          return this.fail(
            `${path}[${icd9}].code`,
            `must be an ICD-9-CM code such as 211.3 or V76.51${typeof code === 'string' ? ` (got "${clip(code)}")` : ' (it is missing)'}`,
          );
        }
        codes.push(code);
        return;
      }
      if (index < 0) index = bySystem(undefined);
      if (index < 0) index = 0;
      const code = isObject(codings[index]) ? (codings[index] as Json).code : undefined;
      if (typeof code !== 'string' || code === '') return this.fail(`${path}[${index}].code`, 'is missing: an ICD-10 code such as K63.5');
      if (!/^[A-Z][0-9][0-9A-Z](\.?[0-9A-Z]{1,4})?$/.test(code)) {
        return this.fail(`${path}[${index}].code`, `must be an ICD-10 code such as K63.5 (got "${clip(code)}")`);
      }
      codes.push(code);
    });
    return codes;
  }

  private preauthorizations(): string[] {
    const refs: string[] = [];
    for (const info of asArray(this.claim.supportingInfo) ?? []) {
      if (!isObject(info) || !isObject(info.category)) continue;
      const codes = (asArray(info.category.coding) ?? []).map((c) => (isObject(c) ? String(c.code ?? '') : ''));
      if (!codes.some((code) => /^(pre|prior)-?auth/i.test(code) || /preauthorization|priorauthorization/i.test(code))) continue;
      const value =
        info.valueString ??
        (isObject(info.valueReference)
          ? (info.valueReference.reference ?? (isObject(info.valueReference.identifier) ? info.valueReference.identifier.value : undefined))
          : undefined) ??
        (isObject(info.valueIdentifier) ? info.valueIdentifier.value : undefined);
      if (typeof value === 'string' && value.trim() !== '') refs.push(value);
    }
    for (const insurance of asArray(this.claim.insurance) ?? []) {
      if (!isObject(insurance)) continue;
      for (const ref of asArray(insurance.preAuthRef) ?? []) if (typeof ref === 'string' && ref.trim() !== '') refs.push(ref);
    }
    return refs;
  }
}

/**
 * The role a care team's role coding names, by its code (never a pattern on the word): the codes of
 * the roles tpa pays. claimcareteamrole's primary (a primary care practitioner), assist, supervisor
 * and other name none of them: null, the provider's contracted role (the plan's registry) is paid.
 */
const ROLE_CODES: Readonly<Record<string, ProviderRole>> = {
  facility: 'FACILITY',
  surgeon: 'SURGEON',
  anesthesia: 'ANESTHESIA',
  anesthesiologist: 'ANESTHESIA',
  pathology: 'PATHOLOGY',
  pathologist: 'PATHOLOGY',
};

function roleOf(concept: unknown): ProviderRole | null {
  const codings = isObject(concept) ? (asArray(concept.coding) ?? []) : [];
  for (const c of codings) {
    const code = isObject(c) && typeof c.code === 'string' ? c.code.toLowerCase() : '';
    if (Object.hasOwn(ROLE_CODES, code)) return ROLE_CODES[code]!;
  }
  return null;
}

function resourceName(resource: Json): string | null {
  if (typeof resource.name === 'string') return resource.name;
  const names = asArray(resource.name);
  const first = names?.find(isObject);
  if (!first) return null;
  if (typeof first.text === 'string') return first.text;
  const given = (asArray(first.given) ?? []).filter((g) => typeof g === 'string').join(' ');
  return [given, typeof first.family === 'string' ? first.family : ''].filter(Boolean).join(' ') || null;
}

/**
 * How a Reference's `reference` text reads: the one reading of it, whether it stands alone or beside
 * an identifier (docs/claim-batches.md "Claims inside a Bundle"). `#id` (a contained resource), `Type/id`
 * (also as an absolute `http(s)://…/Type/id` and with `/_history/<version>`: one resource, one
 * party), a conditional reference by one identifier (`Type?identifier=system|value`), or
 * `urn:uuid:`/`urn:oid:` (an entry of a Bundle, nothing in a lone Claim). Anything else is a
 * reference tpa cannot read and is refused, never set aside for an identifier beside it: a trailing
 * or doubled slash, a dot segment, a query or fragment, a percent-encoding, a list, a search by
 * anything but one identifier, and white space anywhere in it (a space, a tab, a no-break space: a
 * reference is a URL, and none holds one).
 */
export type ReferenceReading =
  | { form: 'contained'; id: string }
  | { form: 'literal'; type: string; id: string }
  | { form: 'conditional'; type: string; system: string | undefined; value: string }
  | { form: 'entry' }
  | { form: 'unreadable'; why: string };

const FHIR_ID = '[A-Za-z0-9\\-.]{1,64}';
const LITERAL_REFERENCE = new RegExp(`^(?:https?://[^/?#]+(?:/[^/?#]+)*/)?([A-Z][A-Za-z]{1,63})/(${FHIR_ID})(?:/_history/${FHIR_ID})?$`);

export function readReference(reference: string): ReferenceReading {
  const unreadable = (why: string): ReferenceReading => ({ form: 'unreadable', why });
  if (reference === '') return unreadable('is empty');
  // \s is every Unicode white space (no-break space included); the rest are controls and zero-width spaces.
  if (/[\s\p{Cc}\p{Cf}]/u.test(reference)) return unreadable('holds white space or an invisible character, which no reference holds');
  if (reference.startsWith('#')) return { form: 'contained', id: reference.slice(1) };
  if (/^urn:(uuid|oid):/.test(reference)) return { form: 'entry' };
  if (reference.includes('?')) {
    if (severalIdentifiers(reference)) return unreadable(SEVERAL_IDENTIFIERS);
    const conditional = conditionalIdentifier(reference);
    return conditional
      ? { form: 'conditional', ...conditional }
      : unreadable('is a search tpa does not read: a conditional reference names one identifier, Type?identifier=system|value, and nothing else');
  }
  const m = LITERAL_REFERENCE.exec(reference);
  // A dot segment (/./, /../) or an id of dots alone names a resource only once a reader resolves it.
  if (!m || /\/\.{1,2}(\/|$)|^\.{1,2}\//.test(reference.replace(/^https?:\/\//, '')) || /^\.+$/.test(m[2]!))
    return unreadable('is not Type/id (nor an absolute URL ending in Type/id, with or without /_history/<version>)');
  return { form: 'literal', type: m[1]!, id: m[2]! };
}

/**
 * The member id a literal patient reference names (`Patient/<member id>`, also as an absolute URL or
 * with a version), as the service reads `patient.reference`; undefined for any other reference.
 */
export function literalPatientId(reference: string): string | undefined {
  const read = readReference(reference);
  return read.form === 'literal' && read.type === 'Patient' ? read.id : undefined;
}

/**
 * The NPI a literal provider reference names when its id is itself a valid NPI
 * (`Organization/1234567893`, `Practitioner/…`, `PractitionerRole/…`, also as an absolute URL or
 * with a version); undefined otherwise (an id that is not an NPI names the resource, not the
 * provider's NPI).
 */
export function literalProviderNpi(reference: string): string | undefined {
  const read = readReference(reference);
  if (read.form !== 'literal' || !['Organization', 'Practitioner', 'PractitionerRole'].includes(read.type)) return undefined;
  return /^\d{10}$/.test(read.id) && !npiProblem(read.id) ? read.id : undefined;
}

/** The NPI a conditional provider reference names: by the NPI system, or by no system when its value is a valid NPI. */
export function conditionalProviderNpi(reference: string): string | undefined {
  const read = readReference(reference);
  if (read.form !== 'conditional') return undefined;
  if (isNpiSystem(read.system)) return read.value;
  return read.system === undefined && !npiProblem(read.value) ? read.value : undefined;
}

/**
 * Why a Reference's `identifier` cannot be read, when it is given: FHIR gives a Reference one
 * Identifier (an object), whose value is text. A list, or a value of another type, would be read one
 * way by one reader and another way (or not at all) by another, so it is refused, never set aside.
 */
function referenceIdentifierProblem(identifier: unknown): { value: boolean; message: string } | undefined {
  if (identifier === undefined) return undefined;
  if (!isObject(identifier))
    return {
      value: false,
      message: `must be one Identifier, an object with system and value (got ${Array.isArray(identifier) ? 'a list' : clip(JSON.stringify(identifier) ?? String(identifier))})`,
    };
  const value = identifier.value;
  if (value !== undefined && typeof value !== 'string')
    return { value: true, message: `must be text, the identifier's value as a string (got ${clip(JSON.stringify(value) ?? String(value))})` };
  return undefined;
}

/** Two spellings of one id agree when they are the same once the spaces around them are set aside. */
function sameId(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

const SEVERAL_IDENTIFIERS =
  'names several identifiers (a comma is "or" in a FHIR search): which one is meant is not for tpa to guess; name one (a comma inside a value is written \\,)';

/** Whether a conditional reference's identifier token holds several identifiers (an unescaped comma: "or"). */
export function severalIdentifiers(reference: string): boolean {
  const token = identifierToken(reference)?.token;
  return token !== undefined && /(^|[^\\]),/.test(token);
}

/** A conditional reference's type and its identifier search token, decoded (`Practitioner?identifier=<token>`). */
function identifierToken(reference: string): { type: string; token: string } | undefined {
  const m = /^([A-Z][A-Za-z]{1,63})\?identifier=([^&]+)$/.exec(reference);
  if (!m) return undefined;
  try {
    return { type: m[1]!, token: decodeURIComponent(m[2]!) };
  } catch {
    return undefined;
  }
}

/** The member-id type code an identifier's type carries (MB, SN, um), or undefined. */
function memberIdType(id: Json): string | undefined {
  return isObject(id.type)
    ? (asArray(id.type.coding) ?? []).map((c) => (isObject(c) ? String(c.code) : '')).find((code) => MEMBER_ID_TYPES.has(code))
    : undefined;
}

/**
 * The member id of a Patient (or other resource a patient reference points to): its identifier typed
 * member number (v2-0203 MB, the subscriber's SN; CARIN's um), else its first untyped identifier,
 * else its first that is not a medical record number (MR), with a value. Two different values of the chosen type (two MBs), or, with none typed, two untyped
 * identifiers of different values, are ambiguous: which member is meant is not for tpa to guess.
 */
export function patientMemberId(target: Json): string | { ambiguous: string } | undefined {
  const ids = (asArray(target.identifier) ?? []).filter((id): id is Json => isObject(id) && typeof id.value === 'string' && id.value.trim() !== '');
  const typeOf = memberIdType;
  // The plan's member number (MB) and subscriber number (SN) first; CARIN's unique member id (um), a
  // number of another system, only when neither is there (a CARIN Patient carries both, of other values).
  const planTyped = ids.filter((id) => typeOf(id) === 'MB' || typeOf(id) === 'SN');
  const typedIds = planTyped.length > 0 ? planTyped : ids.filter((id) => typeOf(id) !== undefined);
  const typed = typedIds[0];
  const group = typed ? typedIds : ids.filter((id) => id.type === undefined);
  const values = [...new Set(group.map((id) => (id.value as string).trim()))];
  if (values.length > 1) {
    const types = [...new Set(group.map(typeOf))];
    // Each member is their own subscriber at tpa: a member number (MB) beside another subscriber
    // number (SN) is a dependent of someone else, or one of the two is wrong; neither is chosen.
    const listed =
      types.length > 1
        ? `${[...new Set(group.map((id) => `"${clip(id.value as string)}" (${typeOf(id)})`))].join(', ')}`
        : values.map((v) => `"${clip(v)}"`).join(', ');
    return {
      ambiguous: `holds several member ids (${listed}), ${typed ? (types.length > 1 ? 'each typed a member or subscriber number' : `each typed ${typeOf(typed)}`) : 'none typed member number (MB)'}: which member the claim is for is not for tpa to guess`,
    };
  }
  // With none typed a member number: an untyped identifier, else the first that is not a medical
  // record number (v2-0203 MR: the provider's chart number, never the plan's member id).
  const medicalRecord = (id: Json) => isObject(id.type) && (asArray(id.type.coding) ?? []).some((c) => isObject(c) && c.code === 'MR');
  return (typed ?? group[0] ?? ids.find((id) => !medicalRecord(id)))?.value as string | undefined;
}

/** A provider reference whose own NPI identifier names another NPI than its conditional reference or the resource it points to. */
function npiConflict(ref: Json, conditional: { system: string | undefined; value: string } | undefined, targetIds: readonly unknown[]): string | undefined {
  const own = isObject(ref.identifier) && (isNpiSystem(ref.identifier.system) || ref.identifier.system === undefined) ? ref.identifier.value : undefined;
  if (typeof own !== 'string' || own === '') return undefined;
  if (conditional && (isNpiSystem(conditional.system) || conditional.system === undefined) && conditional.value !== own)
    return `is NPI ${clip(own)}, but the conditional reference names NPI ${clip(conditional.value)}: which provider is meant is not for tpa to guess`;
  const typed = targetIds.filter((id): id is Json => isObject(id) && isNpiSystem(id.system) && typeof id.value === 'string').map((id) => id.value as string);
  // With none of the NPI system, an identifier without a system that is a valid NPI is one.
  const pointed =
    typed.length > 0
      ? typed
      : targetIds.filter((id): id is Json => isObject(id) && id.system === undefined && !npiProblem(id.value)).map((id) => id.value as string);
  if (pointed.length > 0 && !pointed.includes(own))
    return `is NPI ${clip(own)}, but the resource the reference points to has NPI ${pointed.map((v) => clip(v)).join(', ')}: which provider is meant is not for tpa to guess`;
  return undefined;
}

/**
 * A conditional reference by identifier, as transaction Bundles write them
 * (`Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|1234567893`): its resource type, the
 * identifier's system (undefined when the token names none) and value.
 */
export function conditionalIdentifier(reference: string): { type: string; system: string | undefined; value: string } | undefined {
  const found = identifierToken(reference);
  // Several identifiers ("or") name no one resource (severalIdentifiers says so).
  if (!found || severalIdentifiers(reference)) return undefined;
  const { type, token } = found;
  const bar = token.indexOf('|');
  const system = bar < 0 ? undefined : token.slice(0, bar) || undefined;
  const value = bar < 0 ? token : token.slice(bar + 1);
  return value === '' ? undefined : { type, system, value };
}
