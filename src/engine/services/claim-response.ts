// The adjudication summary and the FHIR R4 ClaimResponse of an adjudicated claim (docs/api-resources.md
// "Claim response"; docs/local.md "The engine's decisions" on FHIR ids and category codes).
import { DENIAL, type Adjudication, type LineAdjudication } from '../../domain/adjudication.js';
import { CLAIM_TYPE_SYSTEM, CPT_SYSTEM, type ParsedClaim } from '../../domain/fhir-claim.js';
import { centsToAmount } from '../../domain/money.js';
import { fhirId } from '../ids.js';
import type { ContractRow } from '../store/contracts.js';
import type { EncounterRow } from '../store/encounters.js';

const ADJUDICATION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/adjudication';
// The HL7 adjudication code system has no coinsurance code; CARIN Blue Button's has (with copay and deductible).
const CARIN_ADJUDICATION_SYSTEM = 'http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication';
const CARC_SYSTEM = 'https://x12.org/codes/claim-adjustment-reason-codes';
/**
 * FHIR R4's ClaimResponse.item has no modifier (only addItem does): each modifier of the claim's
 * line is given back as an extension of its item, a CodeableConcept as in Claim.item.modifier.
 */
export const ITEM_MODIFIER_URL = 'urn:tpa:fhir:claim-item-modifier';

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
const category = (code: string, system = ADJUDICATION_SYSTEM) => ({ coding: [{ system, code }] });
/** A line's reason code (CARC-27) as an X12 CARC coding (27), with the line's reason as its display. */
const reason = (line: LineAdjudication) => {
  const display = line.reason ?? Object.values(DENIAL).find((d) => d.code === line.reasonCode)?.reason;
  return { coding: [{ system: CARC_SYSTEM, code: line.reasonCode!.replace(/^CARC-/, ''), ...(display ? { display } : {}) }] };
};

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
      ...itemModifiers(claim, line.sequence),
      itemSequence: line.sequence,
      // Every part of the member's share is listed, so that allowable = copay + deductible +
      // coinsurance + benefit can be checked on each item.
      adjudication: [
        { category: category('submitted'), amount: money(line.chargeCents) },
        { category: category('allowable'), amount: money(line.allowedCents), ...(line.reasonCode ? { reason: reason(line) } : {}) },
        { category: category('copay'), amount: money(line.copayCents) },
        { category: category('deductible'), amount: money(line.deductibleCents) },
        { category: category('coinsurance', CARIN_ADJUDICATION_SYSTEM), amount: money(line.coinsuranceCents) },
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

/** The modifiers of the claim's line `sequence`, as extensions of its ClaimResponse item (none: nothing). */
function itemModifiers(claim: ParsedClaim, sequence: number): { extension?: unknown[] } {
  const modifiers = claim.lines.find((l) => l.sequence === sequence)?.modifiers ?? [];
  if (modifiers.length === 0) return {};
  return { extension: modifiers.map((code) => ({ url: ITEM_MODIFIER_URL, valueCodeableConcept: { coding: [{ system: CPT_SYSTEM, code }] } })) };
}
