// Ledger statuses (docs/api-resources.md "Ledger status"); the status filter takes all nine (docs/money-funding.md "The ledger").
// SUPERSEDED and VOIDED are tpa's own: a claim a corrected claim replaced or voided before funding.
import type { Disposition } from './adjudication.js';

export const LEDGER_STATUSES = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED', 'SUPERSEDED', 'VOIDED'] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/**
 * The status an adjudication leaves its encounter in once revealed, by disposition: one entry
 * each, so a new disposition cannot fall into another's status. Only an ADJUDICATED encounter
 * has an adjudication to show and to fund (docs/api-resources.md "Ledger status").
 */
export const LEDGER_STATUS_OF_DISPOSITION: Readonly<Record<Disposition, 'ADJUDICATED' | 'DENIED' | 'PENDED'>> = {
  APPROVED: 'ADJUDICATED',
  PARTIAL_APPROVAL: 'ADJUDICATED',
  DENIED: 'DENIED',
  PENDING_REVIEW: 'PENDED',
};

export function isDisposition(value: unknown): value is Disposition {
  return typeof value === 'string' && Object.hasOwn(LEDGER_STATUS_OF_DISPOSITION, value);
}

/**
 * A claim a corrected claim closed: replaced (SUPERSEDED, by the encounter that replaced it) or
 * voided. Closed is final: nothing is owed on it, it has no settlement and nothing funds it
 * (docs/money-funding.md "Corrected and void claims"); a transfer it had before (FAILED or REFUNDED)
 * is history.
 */
export interface ClosedClaim {
  status: 'SUPERSEDED' | 'VOIDED';
  /** The encounter that replaced it (SUPERSEDED), when known. */
  replacedBy: string | null;
}

export const isClosedStatus = (status: string): status is ClosedClaim['status'] => status === 'SUPERSEDED' || status === 'VOIDED';

/** What closed the claim, in words: "SUPERSEDED (replaced by a corrected claim, enc_…)" or "VOIDED (voided by a corrected claim)". */
export function closedClaimWords(c: ClosedClaim): string {
  return c.status === 'SUPERSEDED'
    ? `SUPERSEDED (replaced by a corrected claim${c.replacedBy ? `, ${c.replacedBy}` : ''})`
    : 'VOIDED (voided by a corrected claim)';
}

/** The one refusal for a closed claim, wherever something would fund, settle or explain it as open. */
export function closedClaimMessage(encounterId: string, c: ClosedClaim): string {
  return `Encounter ${encounterId} is closed: ${closedClaimWords(c)}; there is nothing to fund and it has no settlement${c.status === 'SUPERSEDED' && c.replacedBy ? ` (the claim to fund is ${c.replacedBy})` : ''}`;
}

/**
 * The statuses a ledger filter value stands for. A claim goes SUBMITTED → PROCESSING in the same
 * instant, so SUBMITTED (one of the contract's filter values) finds every claim not yet adjudicated;
 * PROCESSING alone still filters as itself. Undefined: no status filter.
 */
export function statusesOf(status: string | undefined): readonly string[] | undefined {
  if (status === 'SUBMITTED') return ['SUBMITTED', 'PROCESSING'];
  return status ? [status] : undefined;
}

/** What tells a claim sent again from another: its sender's id, its billing provider, member and services. */
export interface ClaimIdentity {
  patientControlNumber?: string;
  providerNpi: string;
  memberId: string;
  lines: readonly { cptCode: string; serviceDate: string }[];
  /** A pended claim's services that waited for a preauthorization (its PENDED lines' codes and dates). */
  waiting?: readonly { cptCode: string; serviceDate: string }[];
}

/**
 * Whether `claim` is `pended` sent again (docs/money-funding.md "The finance desk's report"): the
 * same member and billing provider, billing every service of `pended` that waited for a
 * preauthorization (`pended.waiting`: each code and date), and the same claim by its sender's
 * identifier (an 837's CLM01, a FHIR Claim.identifier of system urn:tpa:x12:clm01) when both carry
 * one, else, when neither does, the same services (each line's code and date, in any order). One
 * with an identifier and one without are not taken for each other; a claim that leaves out a
 * service that waited is not its resubmission, whatever its identifier.
 */
export function sentAgain(pended: ClaimIdentity, claim: ClaimIdentity): boolean {
  if (pended.memberId !== claim.memberId || pended.providerNpi !== claim.providerNpi) return false;
  const billed = new Set(claim.lines.map((l) => `${l.cptCode}|${l.serviceDate}`));
  if ((pended.waiting ?? []).some((w) => !billed.has(`${w.cptCode}|${w.serviceDate}`))) return false;
  if (pended.patientControlNumber !== undefined || claim.patientControlNumber !== undefined) return pended.patientControlNumber === claim.patientControlNumber;
  const services = (c: ClaimIdentity) =>
    c.lines
      .map((l) => `${l.cptCode}|${l.serviceDate}`)
      .sort()
      .join(',');
  return services(pended) === services(claim);
}
