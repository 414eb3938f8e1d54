// The adjudication summary and the FHIR R4 ClaimResponse of an adjudicated claim (SPEC.md
// "Claim response"; DESIGN.md section 4 on FHIR ids and category codes).
import type { Adjudication } from '../../domain/adjudication.js';
import { CLAIM_TYPE_SYSTEM, type ParsedClaim } from '../../domain/fhir-claim.js';
import { centsToAmount } from '../../domain/money.js';
import { fhirId } from '../ids.js';
import type { ContractRow } from '../store/contracts.js';
import type { EncounterRow } from './encounters.js';

const ADJUDICATION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/adjudication';

export function adjudicationBody(a: Adjudication): Record<string, unknown> {
  const t = a.totals;
  return {
    service_date: a.serviceDate,
    total_charges: centsToAmount(t.chargeCents),
    allowed_amount: centsToAmount(t.allowedCents),
    deductible_applied: centsToAmount(t.deductibleCents),
    copay_applied: centsToAmount(t.copayCents),
    coinsurance_applied: centsToAmount(t.coinsuranceCents),
    patient_responsibility: centsToAmount(t.patientResponsibilityCents),
    benefit_amount: centsToAmount(t.benefitCents),
    payer_responsibility: centsToAmount(t.benefitCents),
  };
}

const money = (cents: number) => ({ value: centsToAmount(cents), currency: 'USD' });
const category = (code: string) => ({ coding: [{ system: ADJUDICATION_SYSTEM, code }] });

export function claimResponseResource(row: EncounterRow, claim: ParsedClaim, a: Adjudication, contract: ContractRow | undefined): Record<string, unknown> {
  const partial = a.disposition === 'PARTIAL_APPROVAL';
  return {
    resourceType: 'ClaimResponse',
    id: row.claim_response_id,
    status: 'active',
    type: { coding: [{ system: CLAIM_TYPE_SYSTEM, code: claim.type }] },
    use: 'claim',
    patient: { reference: `Patient/${fhirId(claim.memberId)}` },
    created: (row.completed_at ?? row.submitted_at).slice(0, 10),
    insurer: { reference: claim.insurerReference ?? 'Organization/PAYER-ACME' },
    request: { reference: `Claim/${fhirId(row.id)}` },
    outcome: partial ? 'partial' : 'complete',
    disposition: partial
      ? 'Claim partially approved: some service lines are not covered by the contract'
      : `Claim approved under contract ${contract?.contract_number ?? row.contract_id}`,
    item: a.lines.map((line) => ({
      itemSequence: line.sequence,
      adjudication: [
        { category: category('submitted'), amount: money(line.chargeCents) },
        { category: category('allowable'), amount: money(line.allowedCents) },
        { category: category('copay'), amount: money(line.copayCents) },
        { category: category('deductible'), amount: money(line.deductibleCents) },
        { category: category('benefit'), amount: money(line.benefitCents) },
      ],
    })),
    total: [
      { category: category('submitted'), amount: money(a.totals.chargeCents) },
      { category: category('allowable'), amount: money(a.totals.allowedCents) },
      { category: category('benefit'), amount: money(a.totals.benefitCents) },
    ],
  };
}
