// Who may be paid for a service line: the one home of the payee rule, which the claim's
// adjudication, the ledger's and the settlement's payees, and the migration carrying older claims
// over all apply.
import { claimFeeKind, type FeeKind, lineProviderNpi } from './adjudication.js';
import type { ClaimLine, ParsedClaim, ProviderRole } from './fhir-claim.js';

/**
 * The payee of a line: its own provider (the care-team member it names first, else the billing
 * provider) when that is the billing provider or a party the processor can pay, else the billing
 * provider. The contract (docs/api.md) requires valid banking details with the processor; the engine's providers that
 * hold a direct contract stand for those (`canBePaid`), so Valley Family Clinic, with none, is paid
 * through the billing provider. A line the claim does not list (`line` undefined) is the billing
 * provider's.
 */
export function linePayeeNpi(claim: ParsedClaim, line: ClaimLine | undefined, canBePaid: (npi: string) => boolean): string {
  const own = line ? lineProviderNpi(claim, line) : claim.providerNpi;
  return own === claim.providerNpi || canBePaid(own) ? own : claim.providerNpi;
}

/**
 * The fee kind of a line (docs/money-rules.md "Duplicates"): the role, in the providers registry, of
 * the provider who rendered it (the care-team member it names first, else the billing provider),
 * whoever is paid for it. A surgeon without a contract, paid through the facility, still renders a
 * surgeon's fee: the facility's own fee for the procedure is another. A renderer the registry does
 * not know (only a billing provider can be: care-team NPIs are checked) has the claim type's kind.
 */
export function lineFeeKind(claim: ParsedClaim, line: ClaimLine, roleOf: (npi: string) => ProviderRole | undefined): FeeKind {
  return roleOf(lineProviderNpi(claim, line)) ?? claimFeeKind(claim);
}
