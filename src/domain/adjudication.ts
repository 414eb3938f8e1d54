// Adjudication as DESIGN.md section 4 decides it: per line, allowed = the lesser of the billed
// charge and the contract price; then the claim's copay, the member's remaining deductible and
// coinsurance on the rest. benefit = allowed − patient responsibility, so the rule
// allowed = benefit + patient responsibility holds to the cent on every line and in total.
import { allocate, mulDivRound, type Ratio } from './money.js';
import type { ClaimLine, ParsedClaim } from './fhir-claim.js';

export const RATE_TYPES = ['FLAT_RATE', 'CASE_RATE', 'PERCENT_OF_CHARGES', 'BUNDLE'] as const;
export type RateType = (typeof RATE_TYPES)[number];
export const BUNDLE_TYPES = ['SINGLE', 'DOUBLE_HEADER', 'PACKAGE'] as const;
export type BundleType = (typeof BUNDLE_TYPES)[number];
export type Disposition = 'APPROVED' | 'PARTIAL_APPROVAL' | 'DENIED' | 'PENDING_REVIEW';
export type LineStatus = 'ALLOWED' | 'NOT_COVERED';

/** CARC-style denial codes used by the engine (X12 Claim Adjustment Reason Codes). */
export const DENIAL = {
  COVERAGE_NOT_STARTED: { code: 'CARC-26', reason: 'Expenses incurred prior to coverage' },
  COVERAGE_TERMINATED: { code: 'CARC-27', reason: 'Expenses incurred after coverage terminated' },
  DUPLICATE: { code: 'CARC-18', reason: 'Exact duplicate claim/service' },
} as const;
export const PEND_MISSING_PREAUTH = 'MISSING_PREAUTHORIZATION';

export interface ContractCodeTerms {
  /** Fixed amount per unit for FLAT_RATE / CASE_RATE; null for percentage and bundle contracts. */
  negotiatedRateCents: number | null;
  requiresPreauth: boolean;
}

export interface ContractTerms {
  rateType: RateType;
  /** PERCENT_OF_CHARGES: the multiplier applied to submitted charges. */
  multiplier: Ratio | null;
  bundleType: BundleType | null;
  /** BUNDLE: one negotiated rate for the whole bundle. */
  bundleRateCents: number | null;
  codes: ReadonlyMap<string, ContractCodeTerms>;
}

export interface PlanBenefits {
  deductibleCents: number;
  /** Deductible already met before this claim (earlier claims of the plan year included). */
  deductibleMetCents: number;
  copayCents: number;
  coinsurancePercent: number;
  coverageStart: string;
  coverageEnd: string | null;
}

export interface LineAdjudication {
  sequence: number;
  cptCode: string;
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
  careTeamSequences: number[];
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
  contract: ContractTerms;
  benefits: PlanBenefits;
  /** Set when an earlier claim for the same member, provider, date and codes exists. */
  duplicateOf: string | null;
}

/** The claim's service date: the earliest line date. */
export function claimServiceDate(claim: ParsedClaim): string {
  return claim.lines.map((l) => l.serviceDate).sort()[0] ?? claim.billablePeriod.start ?? claim.created;
}

export function adjudicate(input: AdjudicationInput): Adjudication {
  const { claim, contract, benefits } = input;
  const serviceDate = claimServiceDate(claim);
  const outcome = (disposition: Disposition, extra: Partial<Adjudication> = {}): Adjudication => {
    const lines = extra.lines ?? claim.lines.map((line) => zeroLine(line, 'NOT_COVERED'));
    return { disposition, serviceDate, denialCode: null, denialReason: null, pendReason: null, ...extra, lines, totals: sumLines(lines) };
  };

  if (serviceDate < benefits.coverageStart) {
    return outcome('DENIED', { denialCode: DENIAL.COVERAGE_NOT_STARTED.code, denialReason: DENIAL.COVERAGE_NOT_STARTED.reason });
  }
  if (benefits.coverageEnd !== null && serviceDate > benefits.coverageEnd) {
    return outcome('DENIED', { denialCode: DENIAL.COVERAGE_TERMINATED.code, denialReason: DENIAL.COVERAGE_TERMINATED.reason });
  }
  if (input.duplicateOf !== null) {
    return outcome('DENIED', { denialCode: DENIAL.DUPLICATE.code, denialReason: `${DENIAL.DUPLICATE.reason} (${input.duplicateOf})` });
  }
  const needsPreauth = claim.lines.some((line) => contract.codes.get(line.cptCode)?.requiresPreauth);
  if (needsPreauth && claim.preauthorizations.length === 0) {
    return outcome('PENDING_REVIEW', { pendReason: PEND_MISSING_PREAUTH });
  }

  const allowed = contractAllowed(claim.lines, contract);
  let copayLeft = benefits.copayCents;
  let deductibleLeft = Math.max(0, benefits.deductibleCents - benefits.deductibleMetCents);
  const lines = claim.lines.map((line, i): LineAdjudication => {
    const allowedCents = allowed[i]!;
    if (!contract.codes.has(line.cptCode)) return zeroLine(line, 'NOT_COVERED');
    const copayCents = Math.min(copayLeft, allowedCents);
    copayLeft -= copayCents;
    const deductibleCents = Math.min(deductibleLeft, allowedCents - copayCents);
    deductibleLeft -= deductibleCents;
    const coinsuranceCents = mulDivRound(allowedCents - copayCents - deductibleCents, benefits.coinsurancePercent, 100);
    const nonCoveredCents = 0;
    const patientResponsibilityCents = copayCents + deductibleCents + coinsuranceCents + nonCoveredCents;
    return {
      ...lineBase(line),
      allowedCents,
      copayCents,
      deductibleCents,
      coinsuranceCents,
      nonCoveredCents,
      patientResponsibilityCents,
      benefitCents: allowedCents - patientResponsibilityCents,
      status: 'ALLOWED',
    };
  });
  const covered = lines.filter((l) => l.status === 'ALLOWED').length;
  return outcome(covered === lines.length ? 'APPROVED' : 'PARTIAL_APPROVAL', { lines });
}

/** Allowed amount per line (0 for a code the contract does not cover). */
function contractAllowed(lines: readonly ClaimLine[], contract: ContractTerms): number[] {
  const covered = lines.map((line) => contract.codes.has(line.cptCode));
  if (contract.rateType === 'BUNDLE') {
    // One negotiated rate for the bundle, spread over its lines by charge (DESIGN.md section 4).
    const bundleCharges = lines.reduce((sum, line, i) => sum + (covered[i] ? line.chargeCents : 0), 0);
    const bundleAllowed = Math.min(bundleCharges, contract.bundleRateCents ?? 0);
    const shares = allocate(bundleAllowed, lines.map((line, i) => (covered[i] ? line.chargeCents : 0)));
    return lines.map((_, i) => (covered[i] ? shares[i]! : 0));
  }
  return lines.map((line, i) => {
    if (!covered[i]) return 0;
    const terms = contract.codes.get(line.cptCode)!;
    const price =
      contract.rateType === 'PERCENT_OF_CHARGES'
        ? mulDivRound(line.chargeCents, contract.multiplier?.numerator ?? 0, contract.multiplier?.denominator ?? 1)
        : (terms.negotiatedRateCents ?? 0) * line.quantity;
    return Math.min(line.chargeCents, price);
  });
}

function lineBase(line: ClaimLine) {
  return {
    sequence: line.sequence,
    cptCode: line.cptCode,
    quantity: line.quantity,
    chargeCents: line.chargeCents,
    careTeamSequences: line.careTeamSequences,
  };
}

function zeroLine(line: ClaimLine, status: LineStatus): LineAdjudication {
  return {
    ...lineBase(line),
    allowedCents: 0,
    copayCents: 0,
    deductibleCents: 0,
    coinsuranceCents: 0,
    nonCoveredCents: 0,
    patientResponsibilityCents: 0,
    benefitCents: 0,
    status,
  };
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
