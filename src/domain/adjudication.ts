// Adjudication as docs/money-rules.md "Adjudication" decides it, line by line: each line is judged on its own
// service date (member coverage, the contract active that day), against the lines already paid
// (duplicates) and the bundle episode it belongs to; then allowed = the lesser of the billed charge
// and the contract price, the copay of each visit, the deductible of each line's plan year and
// coinsurance on the rest. Percentages are taken on the totals and the cents allocated to lines by
// largest remainder, so lines add up to the totals exactly; benefit = allowed − patient
// responsibility, so allowed = benefit + patient responsibility holds on every line and in total.
import { contractRate, type ContractPriceTerms, type ContractRateType } from './contract-rates.js';
import type { ClaimLine, ParsedClaim, ProviderRole, UnpricedCode } from './fhir-claim.js';
import { allocate, mulDivRound } from './money.js';
import { distinctServiceKey } from './modifiers.js';

export const BUNDLE_TYPES = ['SINGLE', 'DOUBLE_HEADER', 'PACKAGE'] as const;
export type BundleType = (typeof BUNDLE_TYPES)[number];
export type Disposition = 'APPROVED' | 'PARTIAL_APPROVAL' | 'DENIED' | 'PENDING_REVIEW';
/**
 * ALLOWED: priced (its benefit may still be 0.00); NOT_COVERED: no contract covers the code on the
 * line's date; DENIED: the member was not covered that day, or the line was already paid; BUNDLED:
 * included in a bundle already paid in the same episode; PENDED: the claim waits for information.
 */
export type LineStatus = 'ALLOWED' | 'NOT_COVERED' | 'DENIED' | 'BUNDLED' | 'PENDED';

/** CARC-style reason codes used by the engine (X12 Claim Adjustment Reason Codes). */
export const DENIAL = {
  COVERAGE_NOT_STARTED: { code: 'CARC-26', reason: 'Expenses incurred prior to coverage' },
  COVERAGE_TERMINATED: { code: 'CARC-27', reason: 'Expenses incurred after coverage terminated' },
  DUPLICATE: { code: 'CARC-18', reason: 'Exact duplicate claim/service' },
  NOT_CONTRACTED: { code: 'CARC-96', reason: 'Non-covered charge: no active contract covers this service on its date' },
  BUNDLED: { code: 'CARC-97', reason: 'The benefit for this service is included in the payment for another service of the bundle' },
  PAYEE_NOT_ELIGIBLE: {
    code: 'CARC-B7',
    reason: 'This provider was not certified/eligible to be paid for this procedure/service on this date of service',
  },
  ANESTHESIA_INCLUDED: {
    code: 'CARC-97',
    reason: 'The benefit for this service is included in the payment for another service: that day’s rate includes the anesthesia',
  },
  HCPCS_NOT_PRICED: {
    code: 'CARC-96',
    reason: 'Non-covered charge: the plan’s contracts rate CPT codes, not HCPCS Level II codes (drugs, supplies)',
  },
  REVENUE_CODE_ONLY: {
    code: 'CARC-96',
    reason: 'Non-covered charge: a revenue code without a procedure code; the plan’s contracts rate CPT codes',
  },
} as const;

/**
 * The remark codes (RARC, the 835's LQ*HE) the engine gives a line it denies because it cannot
 * price it (docs/money-rules.md "Lines tpa does not price"): N130 "Consult plan benefit
 * documents/guidelines for information about restrictions for this service" on a HCPCS Level II
 * code; M51 "Missing/incomplete/invalid procedure code(s)" on a revenue code without one.
 */
export const UNPRICED_REMARKS: Record<UnpricedCode, { denial: { code: string; reason: string }; remarkCodes: readonly string[] }> = {
  HCPCS_LEVEL_II: { denial: DENIAL.HCPCS_NOT_PRICED, remarkCodes: ['N130'] },
  REVENUE_CODE_ONLY: { denial: DENIAL.REVENUE_CODE_ONLY, remarkCodes: ['M51'] },
};

/**
 * The kind of fee a line is: the role, in the providers registry, of the provider who rendered it,
 * even when it is paid through the billing provider (payee.ts lineFeeKind). One service (member,
 * code, date) is paid at most once per fee kind: the facility's fee and each professional fee.
 */
export type FeeKind = ProviderRole;

/** Who is paid for a line, as the engine decides it (docs/money-rules.md "Payees"). */
export interface LinePayee {
  npi: string;
  /** The renderer's role (FeeKind), whoever is paid. */
  feeKind: FeeKind;
  /** The payee's own role in the providers registry, when it is not the fee kind (a line paid through the billing provider). */
  payeeRole?: FeeKind;
  /**
   * False when the payee is not the billing provider and holds no contract in force on the line's
   * date in the claim's network group: the line is denied CARC-B7.
   */
  eligible: boolean;
}
export const PEND_MISSING_PREAUTH = 'MISSING_PREAUTHORIZATION';

/**
 * How many days one bundle episode spans from its first service date (docs/money-rules.md "Bundles"): the two
 * procedures of a DOUBLE_HEADER are done the same day; a PACKAGE covers a multi-day episode.
 */
export const BUNDLE_EPISODE_DAYS: Record<BundleType, number> = { SINGLE: 1, DOUBLE_HEADER: 1, PACKAGE: 90 };

export interface ContractCodeTerms {
  /** Fixed amount per unit for FLAT_RATE / CASE_RATE; null for percentage and bundle contracts. */
  negotiatedRateCents: number | null;
  requiresPreauth: boolean;
}

export interface ContractTerms extends ContractPriceTerms {
  id: string;
  /** How the contract prices (contract-rates.ts). */
  rateType: ContractRateType;
  /** The rate includes the anesthesia of the member's day (contracts.anesthesia_included). */
  anesthesiaIncluded?: boolean;
  bundleType: BundleType | null;
  codes: ReadonlyMap<string, ContractCodeTerms>;
}

export interface PlanBenefits {
  deductibleCents: number;
  /** Deductible met before this claim in the plan year of the claim's service date. */
  deductibleMetCents: number;
  /** Deductible met before this claim in each plan year its lines fall in (key: the plan year's first day). */
  deductibleMetByPlanYear: Record<string, number>;
  /** The plan year's first day as MM-DD (01-01: the calendar year). */
  planYearStart: string;
  copayCents: number;
  coinsurancePercent: number;
  coverageStart: string;
  coverageEnd: string | null;
}

/** A line paid (allowed) on an earlier claim of the same member. */
export interface PriorLine {
  encounterId: string;
  /** The line's payee (see AdjudicationInput.linePayees). */
  providerNpi: string;
  /** The renderer's role (FeeKind): duplicates are one service (code, date) per fee kind. */
  feeKind: FeeKind;
  /** The payee's own role, when it is not the fee kind (see LinePayee). */
  payeeRole?: FeeKind;
  cptCode: string;
  serviceDate: string;
  contractId: string;
  /**
   * For a bundle line: its episode's key, the day the episode was opened with (its first day billed
   * in arrival order; the episode starts on its earliest day, which a claim arriving later may move).
   */
  episodeStart: string | null;
  allowedCents: number;
  /** The line included the anesthesia of its member and day (see LineAdjudication). */
  includesAnesthesia?: boolean;
  /**
   * A bundle part BUNDLED into an episode already paid, kept as one of the episode's days: it is no
   * paid line (no duplicate's original), but it may include its day's anesthesia.
   */
  included?: boolean;
  /** The anesthesia paid before it that was deducted from its allowed amount. */
  anesthesiaDeductedCents?: number;
  /** The line's modifiers: its distinct-service modifiers make it a service of its own (docs/money-rules.md "Duplicates"). */
  modifiers?: readonly string[];
}

/**
 * A line counts as paid when it was allowed more than 0.00 (before any anesthesia deducted from
 * it, which the plan paid as the anesthesia): a 0.00 line is no duplicate's original. A bundle
 * line is recorded with its episode only when it carried its part (`paidLines`), so a recorded
 * bundle line is a part billed in its episode, even when its share was 0.00.
 */
export function countsAsPaid(p: Pick<PriorLine, 'allowedCents' | 'anesthesiaDeductedCents' | 'episodeStart'>): boolean {
  return p.allowedCents + (p.anesthesiaDeductedCents ?? 0) > 0 || p.episodeStart !== null;
}

/**
 * Which lines of an adjudication are paid, to count toward later duplicates and bundle episodes:
 * those allowed more than 0.00, and a bundle part's carrier (ALLOWED, charged more than 0.00)
 * whose share was 0.00. A line charged 0.00 is never a paid part.
 */
export function paidLines(lines: readonly LineAdjudication[]): boolean[] {
  return lines.map((l) => l.status === 'ALLOWED' && (l.allowedCents + (l.anesthesiaDeductedCents ?? 0) > 0 || (l.episodeStart !== null && l.chargeCents > 0)));
}

export interface LineAdjudication {
  sequence: number;
  cptCode: string;
  serviceDate: string;
  /** As sent: units, or minutes when the claim's line says MJ (priced as one service: contract-rates.ts `pricedUnits`). */
  quantity: number;
  chargeCents: number;
  allowedCents: number;
  copayCents: number;
  deductibleCents: number;
  coinsuranceCents: number;
  nonCoveredCents: number;
  patientResponsibilityCents: number;
  benefitCents: number;
  status: LineStatus;
  /** Why a line is not ALLOWED (a DENIAL code), else null. */
  reasonCode: string | null;
  /** Who is paid for the line (AdjudicationInput.linePayees). */
  providerNpi: string;
  contractId: string | null;
  episodeStart: string | null;
  careTeamSequences: number[];
  /** The reason's text, with reasonCode (absent on lines stored before it was recorded). */
  reason?: string;
  /** Remark codes (RARC, e.g. N130) on a line denied because tpa cannot price it (UNPRICED_REMARKS); absent otherwise. */
  remarkCodes?: string[];
  /**
   * Set on a line that includes the anesthesia of its member and day (its contract's rate does): an
   * ALLOWED line priced above 0.00, or a bundle part BUNDLED into an episode already paid.
   */
  includesAnesthesia?: true;
  /** On such a line: the anesthesia paid on an earlier claim that day, deducted from its allowed amount. */
  anesthesiaDeductedCents?: number;
}

export interface AmountTotals {
  chargeCents: number;
  allowedCents: number;
  copayCents: number;
  deductibleCents: number;
  coinsuranceCents: number;
  nonCoveredCents: number;
  patientResponsibilityCents: number;
  benefitCents: number;
}

export interface Adjudication {
  disposition: Disposition;
  serviceDate: string;
  denialCode: string | null;
  denialReason: string | null;
  pendReason: string | null;
  lines: LineAdjudication[];
  totals: AmountTotals;
}

export interface AdjudicationInput {
  claim: ParsedClaim;
  /** The contract that prices each line (claim.lines order): active on the line's date and covering its code; null when none. */
  lineContracts: readonly (ContractTerms | null)[];
  benefits: PlanBenefits;
  /**
   * Who is paid for each line (claim.lines order) and its fee kind (the engine decides). When
   * absent: the line's own provider, every line of the claim's own kind (institutional FACILITY,
   * else SURGEON), eligible.
   */
  linePayees?: readonly LinePayee[];
  /**
   * Lines already paid for the member on the claim's service dates (any provider): those of the
   * claim's codes, and every anesthesia fee and every line that includes anesthesia on those dates.
   */
  paidLines: readonly PriorLine[];
  /** Bundle lines already paid for the member under the claim's bundle contracts, around the claim's dates. */
  bundleLines: readonly PriorLine[];
  /**
   * The copay the member's earlier claims took for each visit of this claim (by service date: a
   * visit is the member, the billing provider and the date of service); none when absent.
   */
  visitCopays?: Readonly<Record<string, number>>;
}

/**
 * An anesthesia fee (docs/money-rules.md "Anesthesia included"): a line rendered by an anesthesia
 * provider (its fee kind) or paid to one under its contract. Either way it is the anesthesia a rate
 * including the day's anesthesia already pays, and it includes none itself, so the plan pays the
 * anesthesia once whoever rendered it and whoever is paid.
 */
export function isAnesthesiaFee(line: { feeKind: FeeKind; payeeRole?: FeeKind }): boolean {
  return line.feeKind === 'ANESTHESIA' || line.payeeRole === 'ANESTHESIA';
}

/** The fee kind of a line whose payee the providers registry does not know: the claim type's. */
export function claimFeeKind(claim: ParsedClaim): FeeKind {
  return claim.type === 'institutional' ? 'FACILITY' : 'SURGEON';
}

/** The claim's service date: the earliest line date. */
export function claimServiceDate(claim: ParsedClaim): string {
  // A parsed claim has at least one line (fhir-claim.ts refuses a claim without items).
  return claim.lines.map((l) => l.serviceDate).sort()[0]!;
}

/** The provider of a line: the care-team member its careTeamSequence names first, else the billing provider. */
export function lineProviderNpi(claim: ParsedClaim, line: ClaimLine): string {
  const member = claim.careTeam.find((m) => m.sequence === line.careTeamSequences[0]);
  return member?.npi ?? claim.providerNpi;
}

/** The first day (YYYY-MM-DD) of the plan year a date falls in; `start` is MM-DD. */
export function planYearOf(date: string, start: string): string {
  const year = Number(date.slice(0, 4));
  return `${date.slice(5) >= start ? year : year - 1}-${start}`;
}

const DAY_MS = 86_400_000;
/** The ISO date `days` days after (before, when negative) another. */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from one ISO date to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** Where each line stands before pricing: the reason it cannot be paid, or null. */
interface LineVerdict {
  line: ClaimLine;
  providerNpi: string;
  feeKind: FeeKind;
  payeeRole?: FeeKind;
  contract: ContractTerms | null;
  status: LineStatus;
  reasonCode: string | null;
  reason: string | null;
  remarkCodes?: readonly string[];
  includesAnesthesia: boolean;
  anesthesiaDeductedCents: number;
  /** The earlier encounter a duplicate line repeats. */
  duplicateOf: string | null;
  /** The earlier line of this claim a duplicate line repeats (its index). */
  repeats: number | null;
  episodeStart: string | null;
}

export function adjudicate(input: AdjudicationInput): Adjudication {
  const { claim, benefits } = input;
  const serviceDate = claimServiceDate(claim);
  const verdicts = judgeLines(input);
  const eligible = verdicts.filter((v) => v.status === 'ALLOWED');
  const finish = (disposition: Disposition, lines: LineAdjudication[], extra: Partial<Adjudication> = {}): Adjudication => ({
    disposition,
    serviceDate,
    denialCode: null,
    denialReason: null,
    pendReason: null,
    ...extra,
    lines,
    totals: sumLines(lines),
  });
  const zeroed = (status?: LineStatus) => verdicts.map((v) => zeroLine(v, status && v.status === 'ALLOWED' ? status : v.status));

  // An eligible line's contract covers its code (judgeLines).
  const needsPreauth = eligible.some((v) => v.contract!.codes.get(v.line.cptCode)!.requiresPreauth);
  if (needsPreauth && claim.preauthorizations.length === 0) {
    return finish('PENDING_REVIEW', zeroed('PENDED'), { pendReason: PEND_MISSING_PREAUTH });
  }

  // Anesthesia fees are priced after the others, whose prices decide which lines include the
  // anesthesia of their day (in the engine a contract is its payee's, so never shared by the two).
  const allowed = verdicts.map(() => 0);
  priceLines(verdicts, input.bundleLines, allowed, (v) => !isAnesthesiaFee(v));
  includeAnesthesia(verdicts, allowed, input.paidLines);
  priceLines(verdicts, input.bundleLines, allowed, (v) => isAnesthesiaFee(v));
  // A repeat of a line the anesthesia rule bundled (0.00, not paid) is bundled for the same reason,
  // not a duplicate of a service that was not paid.
  for (const v of verdicts) {
    const first = v.repeats === null ? undefined : verdicts[v.repeats]!;
    if (first?.status === 'BUNDLED') Object.assign(v, { status: 'BUNDLED', reasonCode: first.reasonCode, reason: first.reason, repeats: null });
  }
  const lines = shareCost(verdicts, allowed, benefits, input.visitCopays ?? {});
  const paid = lines.filter((l) => l.status === 'ALLOWED');
  if (paid.length === 0) {
    // Every line not ALLOWED carries its reason (denied, not covered, bundled): the first one speaks for the claim.
    const first = verdicts.find((v) => v.reasonCode !== null)!;
    const reason = first.reason!;
    return finish('DENIED', lines, { denialCode: first.reasonCode, denialReason: first.duplicateOf ? `${reason} (${first.duplicateOf})` : reason });
  }
  return finish(paid.length === lines.length ? 'APPROVED' : 'PARTIAL_APPROVAL', lines);
}

// mutation: no survivors (the duplicate rule)
/** One service of a line: its fee kind, code, date and distinct-service modifiers (docs/money-rules.md "Duplicates"). */
function serviceKey(feeKind: FeeKind, line: { cptCode: string; serviceDate: string; modifiers?: readonly string[] | undefined }): string {
  return `${feeKind}|${line.cptCode}|${line.serviceDate}|${distinctServiceKey(line.modifiers)}`;
}

/**
 * Coverage, payee, contract and duplicates, each on the line's own date; lines that pass are
 * ALLOWED for now. One service (code, date, distinct-service modifiers) is paid once per fee kind,
 * whoever is paid for it.
 */
function judgeLines(input: AdjudicationInput): LineVerdict[] {
  const { claim, benefits } = input;
  const paid = new Map<string, string>();
  for (const p of input.paidLines) {
    if (p.included === true) continue;
    const key = serviceKey(p.feeKind, p);
    if (countsAsPaid(p) && !paid.has(key)) paid.set(key, p.encounterId);
  }
  const claimKind = claimFeeKind(claim);
  const seen = new Map<string, number>();
  return claim.lines.map((line, i): LineVerdict => {
    const payee = input.linePayees?.[i] ?? { npi: lineProviderNpi(claim, line), feeKind: claimKind, eligible: true };
    const contract = input.lineContracts[i] ?? null;
    const verdict = (status: LineStatus, denial: { code: string; reason: string } | null, duplicateOf: string | null = null): LineVerdict => ({
      line,
      providerNpi: payee.npi,
      feeKind: payee.feeKind,
      ...(payee.payeeRole === undefined ? {} : { payeeRole: payee.payeeRole }),
      contract,
      status,
      reasonCode: denial?.code ?? null,
      reason: denial?.reason ?? null,
      duplicateOf,
      repeats: null,
      episodeStart: null,
      includesAnesthesia: false,
      anesthesiaDeductedCents: 0,
    });
    if (line.serviceDate < benefits.coverageStart) return verdict('DENIED', DENIAL.COVERAGE_NOT_STARTED);
    if (line.serviceDate > (benefits.coverageEnd ?? '9999-12-31')) return verdict('DENIED', DENIAL.COVERAGE_TERMINATED);
    if (!payee.eligible) return verdict('DENIED', DENIAL.PAYEE_NOT_ELIGIBLE);
    // A code tpa reads but no contract can rate (HCPCS Level II, a revenue code alone): denied, with
    // its remark code; never paid, so never a duplicate's original nor a bundle part.
    if (line.unpriced !== undefined) {
      const { denial, remarkCodes } = UNPRICED_REMARKS[line.unpriced];
      return { ...verdict('DENIED', denial), remarkCodes };
    }
    if (contract === null || !contract.codes.has(line.cptCode)) return verdict('NOT_COVERED', DENIAL.NOT_CONTRACTED);
    // The same fee for one code and date twice is one service paid twice: quantity counts units; a
    // distinct-service modifier (59, 76…) says the line is another service of that code and date.
    const key = serviceKey(payee.feeKind, line);
    const earlier = paid.get(key);
    if (earlier !== undefined) return verdict('DENIED', DENIAL.DUPLICATE, earlier);
    // A bundle line's repeat on the claim is judged with its episode (priceBundle): a part already
    // billed there is BUNDLED at 0.00, which is not paid, so it makes no later line a duplicate.
    const rules = contractRate(contract.rateType);
    if (rules.byEpisode) return verdict('ALLOWED', null);
    const first = seen.get(key);
    if (first !== undefined) return { ...verdict('DENIED', DENIAL.DUPLICATE), repeats: first };
    // A line that can only be allowed 0.00 is not paid: no later line of the claim repeats it.
    if (line.chargeCents !== 0 && !rules.pricesZero(contract.codes.get(line.cptCode)!.negotiatedRateCents, contract)) seen.set(key, i);
    return verdict('ALLOWED', null);
  });
  // mutation: end
}

/**
 * Anesthesia included (docs/money-rules.md "Money rules, line by line"): a line priced above 0.00 under a
 * contract whose rate includes anesthesia, whose payee is not an anesthesia provider, includes the
 * anesthesia of its member and day. An anesthesia fee that day, on this claim in any line order or
 * on a later one, is BUNDLED (CARC-97). When the anesthesia was paid first (an earlier claim), what
 * of it is not yet deducted comes off that day's including lines, in line order, never below 0.00:
 * the plan pays the anesthesia once in all, whichever claim came first.
 */
function includeAnesthesia(verdicts: LineVerdict[], allowed: number[], prior: readonly PriorLine[]): void {
  const includedDays = new Set<string>();
  const left = new Map<string, number>();
  for (const p of prior) {
    if (!countsAsPaid(p)) continue;
    if (p.includesAnesthesia) includedDays.add(p.serviceDate);
    const paidAnesthesia = isAnesthesiaFee(p) ? p.allowedCents : 0;
    left.set(p.serviceDate, (left.get(p.serviceDate) ?? 0) + paidAnesthesia - (p.anesthesiaDeductedCents ?? 0));
  }
  verdicts.forEach((v, i) => {
    if (isAnesthesiaFee(v) || v.contract?.anesthesiaIncluded !== true) return;
    const date = v.line.serviceDate;
    // A part BUNDLED into its episode already paid: the package's rate paid for its day too, so it
    // includes the day's anesthesia; it was allowed 0.00, so it deducts nothing.
    if (v.status === 'BUNDLED' && v.episodeStart !== null) {
      v.includesAnesthesia = true;
      includedDays.add(date);
      return;
    }
    if (v.status !== 'ALLOWED' || allowed[i]! <= 0) return;
    v.includesAnesthesia = true;
    includedDays.add(date);
    const deducted = Math.min(Math.max(0, left.get(date) ?? 0), allowed[i]!);
    if (deducted === 0) return;
    v.anesthesiaDeductedCents = deducted;
    allowed[i]! -= deducted;
    left.set(date, left.get(date)! - deducted);
  });
  for (const v of verdicts) {
    if (v.status === 'ALLOWED' && isAnesthesiaFee(v) && includedDays.has(v.line.serviceDate)) {
      Object.assign(v, { status: 'BUNDLED', reasonCode: DENIAL.ANESTHESIA_INCLUDED.code, reason: DENIAL.ANESTHESIA_INCLUDED.reason });
    }
  }
}

/**
 * Allowed amount of the ALLOWED lines `which` selects, into `allowed`, by contract, as its rate type
 * prices them (contract-rates.ts): a bundle by episode (`priceBundle`), per bundle. Never more than
 * the billed charge of a line. Marks bundle lines BUNDLED when their part was paid before. Lines are
 * grouped by contract id: the terms of one contract may be read for each date.
 */
function priceLines(verdicts: LineVerdict[], bundleHistory: readonly PriorLine[], allowed: number[], which: (v: LineVerdict) => boolean): void {
  const byContract = new Map<string, { contract: ContractTerms; indexes: number[] }>();
  verdicts.forEach((v, i) => {
    if (v.status !== 'ALLOWED' || !which(v)) return;
    const group = byContract.get(v.contract!.id);
    if (group) group.indexes.push(i);
    else byContract.set(v.contract!.id, { contract: v.contract!, indexes: [i] });
  });
  for (const { contract, indexes } of byContract.values()) {
    const rules = contractRate(contract.rateType);
    if (rules.byEpisode) {
      priceBundle(contract, indexes, verdicts, bundleHistory, allowed);
      continue;
    }
    const lines = indexes.map((i) => verdicts[i]!.line);
    // A line's own terms: the rate in force on its date.
    const rates = indexes.map((i) => verdicts[i]!.contract!.codes.get(verdicts[i]!.line.cptCode)!.negotiatedRateCents ?? 0);
    rules.price(lines, rates, contract).forEach((cents, k) => (allowed[indexes[k]!] = cents));
  }
}

/**
 * One negotiated rate for the whole bundle, once per episode (docs/money-rules.md "Bundles"): the rate is split
 * in equal shares over the bundle's codes; each part not yet billed in its episode is allowed its
 * own share once, capped by the charge of the line carrying it (its first line charged more than
 * 0.00, in service date and line order), and no part's unused share goes to another; the part's
 * other lines, and a part billed before in the episode, are included in what was paid (BUNDLED,
 * 0.00). One claim and several in date order pay the same, line by line. An episode: the member's lines under one bundle
 * contract on days fewer than BUNDLE_EPISODE_DAYS after its earliest day, whatever order they came in.
 */
function priceBundle(contract: ContractTerms, indexes: number[], verdicts: LineVerdict[], history: readonly PriorLine[], allowed: number[]): void {
  const span = BUNDLE_EPISODE_DAYS[contract.bundleType ?? 'PACKAGE'];
  // The episodes paid before, by key (the day each was opened with), with the days they hold and
  // the parts billed in them. A day already billed stays in its episode: the facility's and the
  // surgeon's lines of one procedure are one bundle.
  const episodes = new Map<string, Episode>();
  const episodeOfDay = new Map<string, string>();
  // A day joins the episode of `key` (opened with it when there is none): an episode starts on its
  // earliest day, whichever claim brought it, so a day before it moves its start.
  const join = (key: string, date: string): Episode => {
    const episode = episodes.get(key) ?? { first: date, last: date, billed: new Set<string>() };
    if (date < episode.first) episode.first = date;
    if (date > episode.last) episode.last = date;
    episodes.set(key, episode);
    episodeOfDay.set(date, key);
    return episode;
  };
  for (const p of history) {
    if (p.contractId !== contract.id || p.episodeStart === null || !countsAsPaid(p)) continue;
    join(p.episodeStart, p.serviceDate).billed.add(p.cptCode);
  }
  const ordered = [...indexes].sort((a, b) => {
    const x = verdicts[a]!.line;
    const y = verdicts[b]!.line;
    return x.serviceDate === y.serviceDate ? x.sequence - y.sequence : x.serviceDate < y.serviceDate ? -1 : 1;
  });
  const lineEpisode = new Map<number, string>();
  for (const i of ordered) {
    const date = verdicts[i]!.line.serviceDate;
    const key = episodeOfDay.get(date) ?? episodeFor(episodes, date, span);
    join(key, date);
    lineEpisode.set(i, key);
  }
  const codes = [...contract.codes.keys()].sort();
  const shares = allocate(
    contract.bundleRateCents ?? 0,
    codes.map(() => 1),
  );
  const shareOf = new Map(codes.map((code, k) => [code, shares[k]!]));
  for (const [start, { billed: billedBefore }] of episodes) {
    const members = ordered.filter((i) => lineEpisode.get(i) === start);
    // Each part not billed before in the episode is carried by its first line charged more than
    // 0.00, in (service date, line order), allowed its own share once, capped by that line's
    // charge: no part's unused share goes to another. Every other line of the part is included
    // (BUNDLED), but a repeat of the carrier's service (date, fee kind, distinct-service modifiers)
    // is a duplicate (CARC-18), as on any other contract; a line before the carrier, charged 0.00,
    // is allowed 0.00. One claim or several in date order pay the same, line by line.
    const carriers = new Map<string, number>();
    for (const i of members) {
      const v = verdicts[i]!;
      const code = v.line.cptCode;
      v.episodeStart = start;
      const carrier = carriers.get(code);
      if (billedBefore.has(code)) {
        Object.assign(v, { status: 'BUNDLED', reasonCode: DENIAL.BUNDLED.code, reason: DENIAL.BUNDLED.reason });
      } else if (carrier !== undefined) {
        const c = verdicts[carrier]!;
        if (serviceKey(c.feeKind, c.line) === serviceKey(v.feeKind, v.line)) {
          Object.assign(v, { status: 'DENIED', reasonCode: DENIAL.DUPLICATE.code, reason: DENIAL.DUPLICATE.reason, episodeStart: null });
        } else {
          Object.assign(v, { status: 'BUNDLED', reasonCode: DENIAL.BUNDLED.code, reason: DENIAL.BUNDLED.reason });
        }
      } else if (v.line.chargeCents > 0) {
        carriers.set(code, i);
        allowed[i] = Math.min(shareOf.get(code) ?? 0, v.line.chargeCents);
      }
    }
  }
}

/** A bundle episode of a member and contract: its first and last days, and the parts billed in it before this claim. */
interface Episode {
  first: string;
  last: string;
  billed: Set<string>;
}

/**
 * The episode a day not yet billed joins (docs/money-rules.md "Bundles"): one that, with the day,
 * still spans fewer than `span` days from its earliest day, the one it makes shortest (the earlier
 * start on a tie: two episodes cannot tie on both, as that would make them end on one day, and a
 * day is in one episode); else a new episode opened with that day (its key).
 */
function episodeFor(episodes: ReadonlyMap<string, Pick<Episode, 'first' | 'last'>>, date: string, span: number): string {
  let best: string | undefined;
  let bestLength = span;
  let bestFirst = '';
  for (const [key, { first, last }] of episodes) {
    const start = date < first ? date : first;
    const length = daysBetween(start, date > last ? date : last);
    if (length < bestLength || (best !== undefined && length === bestLength && start < bestFirst)) {
      best = key;
      bestLength = length;
      bestFirst = start;
    }
  }
  return best ?? date;
}

// mutation: no survivors (the allowed/patient/payer split)
/**
 * The member's share on the ALLOWED lines, in line order: the copay of each visit (the claim's
 * lines of one date; what earlier claims took for it counts) on its first lines, then the
 * deductible left in each line's plan year, then coinsurance on the rest, computed on the claim's
 * total and allocated to the lines by largest remainder.
 */
function shareCost(verdicts: LineVerdict[], allowed: number[], benefits: PlanBenefits, visitCopays: Readonly<Record<string, number>>): LineAdjudication[] {
  const copayLeft = new Map<string, number>();
  const deductibleLeft = new Map<string, number>();
  const base: number[] = [];
  // A line not ALLOWED is allowed 0.00 (priceLines), so it takes no copay, deductible or coinsurance.
  const parts = verdicts.map((v, i) => {
    const allowedCents = allowed[i]!;
    const day = v.line.serviceDate;
    const visitLeft = copayLeft.get(day) ?? Math.max(0, benefits.copayCents - (visitCopays[day] ?? 0));
    const copayCents = Math.min(visitLeft, allowedCents);
    copayLeft.set(day, visitLeft - copayCents);
    const year = planYearOf(v.line.serviceDate, benefits.planYearStart);
    const left = deductibleLeft.get(year) ?? Math.max(0, benefits.deductibleCents - (benefits.deductibleMetByPlanYear[year] ?? 0));
    const deductibleCents = Math.min(left, allowedCents - copayCents);
    deductibleLeft.set(year, left - deductibleCents);
    base.push(allowedCents - copayCents - deductibleCents);
    return { copayCents, deductibleCents };
  });
  const totalBase = base.reduce((a, b) => a + b, 0);
  const coinsurance = allocate(mulDivRound(totalBase, benefits.coinsurancePercent, 100), base);
  return verdicts.map((v, i): LineAdjudication => {
    if (v.status !== 'ALLOWED') return zeroLine(v, v.status);
    const { copayCents, deductibleCents } = parts[i]!;
    return lineOf(v, 'ALLOWED', null, allowed[i]!, copayCents, deductibleCents, coinsurance[i]!);
  });
}

/** A line's adjudication; patient responsibility and benefit follow from the amounts given. */
function lineOf(
  v: LineVerdict,
  status: LineStatus,
  reasonCode: string | null,
  allowedCents: number,
  copayCents: number,
  deductibleCents: number,
  coinsuranceCents: number,
): LineAdjudication {
  // Nothing is charged to the member as not covered: a line the contract does not cover is allowed 0.00.
  const nonCoveredCents = 0;
  const patientResponsibilityCents = copayCents + deductibleCents + coinsuranceCents;
  return {
    sequence: v.line.sequence,
    cptCode: v.line.cptCode,
    serviceDate: v.line.serviceDate,
    quantity: v.line.quantity,
    chargeCents: v.line.chargeCents,
    allowedCents,
    copayCents,
    deductibleCents,
    coinsuranceCents,
    nonCoveredCents,
    patientResponsibilityCents,
    benefitCents: allowedCents - patientResponsibilityCents,
    status,
    reasonCode,
    providerNpi: v.providerNpi,
    contractId: v.contract?.id ?? null,
    episodeStart: v.episodeStart,
    careTeamSequences: v.line.careTeamSequences,
    ...(v.reason === null ? {} : { reason: v.reason }),
    ...(v.remarkCodes === undefined ? {} : { remarkCodes: [...v.remarkCodes] }),
    ...(v.includesAnesthesia && (status === 'ALLOWED' || status === 'BUNDLED') ? { includesAnesthesia: true as const } : {}),
    ...(v.anesthesiaDeductedCents > 0 && status === 'ALLOWED' ? { anesthesiaDeductedCents: v.anesthesiaDeductedCents } : {}),
  };
}

// mutation: end
function zeroLine(v: LineVerdict, status: LineStatus): LineAdjudication {
  // A PENDED line was ALLOWED before the claim was pended: it has no reason code.
  return lineOf(v, status, v.reasonCode, 0, 0, 0, 0);
}

export function sumLines(lines: readonly LineAdjudication[]): AmountTotals {
  const total = (key: keyof AmountTotals): number => lines.reduce((sum, line) => sum + line[key], 0);
  return {
    chargeCents: total('chargeCents'),
    allowedCents: total('allowedCents'),
    copayCents: total('copayCents'),
    deductibleCents: total('deductibleCents'),
    coinsuranceCents: total('coinsuranceCents'),
    nonCoveredCents: total('nonCoveredCents'),
    patientResponsibilityCents: total('patientResponsibilityCents'),
    benefitCents: total('benefitCents'),
  };
}
