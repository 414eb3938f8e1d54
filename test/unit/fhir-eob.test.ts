// The member's ExplanationOfBenefit from a ledger detail (domain/fhir-eob.ts): what the engine does
// not make in every claim (an inpatient bill, HCPCS codes and modifiers, anesthesia minutes,
// remark codes, test data, a corrected claim) is written as docs/api-resources.md "Explanation of benefits"
// says and validates against the official FHIR R4 schema; amounts that disagree make no EOB.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type EobLedgerDetail, type EobLedgerLine, explanationOfBenefit } from '../../src/domain/fhir-eob.js';

type Body = Record<string, any>;
const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };
const validator = new JSONSchemaValidator();

function line(over: Partial<EobLedgerLine>): EobLedgerLine {
  return {
    sequence: 1,
    cpt_code: '45378',
    cpt_description: 'Colonoscopy, diagnostic',
    quantity: 1,
    submitted_charge: 1000,
    allowed_amount: 800,
    deductible_applied: 100,
    copay_applied: 25,
    coinsurance_applied: 135,
    patient_responsibility: 260,
    benefit_amount: 540,
    status: 'ALLOWED',
    denial_code: null,
    provider_npi: '1234567893',
    provider_name: 'Riverside Surgery Center',
    service_date: '2026-03-02',
    ...over,
  };
}

function detail(lines: EobLedgerLine[], encounter: Partial<EobLedgerDetail['encounter']> = {}): EobLedgerDetail {
  const sum = (f: keyof EobLedgerLine) => lines.reduce((a, l) => a + Math.round(Number(l[f] ?? 0) * 100), 0) / 100;
  return {
    encounter: {
      id: 'enc_0123456789abcdef0123',
      encounter_number: 'ENC-2026-000042',
      status: 'ADJUDICATED',
      service_date: '2026-03-02',
      submission_date: '2026-03-02',
      patient: { member_id: 'MBR-1001', name: 'Jane Doe', dob: '1984-03-12' },
      provider: { npi: '1234567893', name: 'Riverside Surgery Center' },
      payer: { name: 'Acme Health Plan', id: 'PAYER-ACME' },
      claim_type: 'institutional',
      diagnosis_codes: ['Z12.11', 'K63.5'],
      ...encounter,
    },
    entries: [
      { type: 'SUBMISSION', timestamp: '2026-03-02T10:00:00Z', description: 'Institutional claim submitted' },
      { type: 'ADJUDICATION', timestamp: '2026-03-02T10:00:03Z', description: 'Claim adjudicated: APPROVED' },
    ],
    financial_summary: {
      submitted_charges: sum('submitted_charge'),
      allowed_amount: sum('allowed_amount'),
      patient_responsibility: {
        total: sum('patient_responsibility'),
        deductible: sum('deductible_applied'),
        copay: sum('copay_applied'),
        coinsurance: sum('coinsurance_applied'),
        non_covered: 0,
      },
      payer_responsibility: { total: sum('benefit_amount'), benefit_amount: sum('benefit_amount') },
    },
    service_lines: lines,
  };
}

describe('explanationOfBenefit', () => {
  it('an inpatient bill with a revenue-code-only line, HCPCS with modifiers, anesthesia minutes, remark codes, test data and a replaced claim', () => {
    const d = detail(
      [
        line({ revenue_code: '0120', cpt_code: '', cpt_description: null }),
        line({ sequence: 2, cpt_code: 'J1885', modifiers: ['JW', '59'], quantity: 2.5, provider_npi: '1045782368', provider_name: 'Dr. Alice Morgan' }),
        line({ sequence: 3, cpt_code: '00811', quantity: 45, unit_of_measure: 'MJ', provider_npi: '1196382455' }),
        line({
          sequence: 4,
          allowed_amount: 0,
          deductible_applied: 0,
          copay_applied: 0,
          coinsurance_applied: 0,
          patient_responsibility: 0,
          benefit_amount: 0,
          status: 'NOT_COVERED',
          denial_code: 'CARC-96',
          remark_codes: ['N130'],
        }),
      ],
      { facility_type_code: '11', test_data: true, replaces: 'enc_00000000000000000001' },
    );
    const r = explanationOfBenefit(d, null) as Body;
    expect(validator.validate(r, true)).toEqual([]);
    expect(r.meta.profile).toEqual(['http://hl7.org/fhir/us/carin-bb/StructureDefinition/C4BB-ExplanationOfBenefit-Inpatient-Institutional|2.0.0']);
    expect(r.subType.coding[0].code).toBe('inpatient');
    expect(r.meta.tag[0]).toMatchObject({ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST' });
    expect(r.related[0]).toMatchObject({ relationship: { coding: [{ code: 'prior' }] }, reference: { value: 'enc_00000000000000000001' } });
    const [room, drug, anesthesia, denied] = r.item as Body[];
    expect(room!.revenue.coding[0].code).toBe('0120');
    expect(room!.productOrService.coding[0].code).toBe('not-applicable');
    expect(drug!.productOrService.coding[0]).toMatchObject({ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: 'J1885' });
    expect(drug!.modifier.map((m: Body) => m.coding[0].code)).toEqual(['JW', '59']);
    expect(drug!.quantity).toEqual({ value: 2.5 });
    expect(anesthesia!.quantity).toEqual({ value: 45, unit: 'minutes', system: 'http://unitsofmeasure.org', code: 'min' });
    const reason = denied!.adjudication.find((a: Body) => a.category.coding[0].code === 'adjustmentreason');
    expect(reason.reason.coding.map((c: Body) => c.code)).toEqual(['96', 'N130']);
    expect(r.careTeam.map((c: Body) => c.provider.identifier.value)).toEqual(['1234567893', '1045782368', '1196382455']);
    expect(r.item.map((i: Body) => i.careTeamSequence)).toEqual([[1], [2], [3], [1]]);
    expect(r.diagnosis.map((x: Body) => x.type[0].coding[0].code)).toEqual(['principal', 'other']);
    expect(r.payment.type.coding[0].code).toBe('partiallypaid');
  });

  it('an outpatient bill (facility type 13) and one that names none are outpatient; a detail without claim_type is professional', () => {
    for (const code of ['13', null]) {
      const r = explanationOfBenefit(detail([line({})], { facility_type_code: code }), null) as Body;
      expect(r.subType.coding[0].code).toBe('outpatient');
    }
    const r = explanationOfBenefit(detail([line({})], { claim_type: undefined }), null) as Body;
    expect(r.type.coding[0].code).toBe('professional');
    expect(r.subType).toBeUndefined();
    expect(validator.validate(r, true)).toEqual([]);
  });

  it("refuses a line whose allowed is not benefit + the member's share, and totals that are not the lines'", () => {
    expect(() => explanationOfBenefit(detail([line({ benefit_amount: 541 })]), null)).toThrow(
      expect.objectContaining({ kind: 'unbalanced', message: expect.stringMatching(/^line 1: allowed 800 is not benefit 541/) }),
    );
    const d = detail([line({})]);
    d.financial_summary.payer_responsibility.total = 541;
    expect(() => explanationOfBenefit(d, null)).toThrow(
      expect.objectContaining({ kind: 'unbalanced', message: 'financial_summary.payer_responsibility.total is 541 but its lines add up to 540' }),
    );
    expect(() => explanationOfBenefit(detail([line({ allowed_amount: '800' as unknown as number })]), null)).toThrow(
      expect.objectContaining({ kind: 'unusable' }),
    );
  });

  it('refuses an encounter not decided yet', () => {
    for (const status of ['SUBMITTED', 'PROCESSING', 'PENDED'])
      expect(() => explanationOfBenefit(detail([line({})], { status }), null)).toThrow(expect.objectContaining({ kind: 'undecided' }));
  });

  it('the whole resource of a paid professional claim, as reviewed: every code, display and amount', () => {
    const d = detail([line({ provider_npi: '1045782368', provider_name: 'Dr. Alice Morgan', modifiers: ['59'] })], {
      claim_type: 'professional',
      provider: { npi: '1045782368', name: 'Dr. Alice Morgan' },
      patient_control_number: 'PATIENT123',
      replaced_by: 'enc_00000000000000000002',
    });
    const r = explanationOfBenefit(d, { processor_transfer_id: 'tr_0001', status: 'COMPLETED', completed_at: '2026-03-03T09:00:00Z' });
    expect(validator.validate(r, true)).toEqual([]);
    expect(r).toMatchInlineSnapshot(`
      {
        "billablePeriod": {
          "end": "2026-03-02",
          "start": "2026-03-02",
        },
        "careTeam": [
          {
            "provider": {
              "display": "Dr. Alice Morgan",
              "identifier": {
                "system": "http://hl7.org/fhir/sid/us-npi",
                "value": "1045782368",
              },
            },
            "role": {
              "coding": [
                {
                  "code": "rendering",
                  "display": "Rendering provider",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBClaimCareTeamRole",
                },
              ],
            },
            "sequence": 1,
          },
        ],
        "created": "2026-03-02T10:00:03Z",
        "diagnosis": [
          {
            "diagnosisCodeableConcept": {
              "coding": [
                {
                  "code": "Z12.11",
                  "system": "http://hl7.org/fhir/sid/icd-10-cm",
                },
              ],
            },
            "sequence": 1,
            "type": [
              {
                "coding": [
                  {
                    "code": "principal",
                    "display": "Principal Diagnosis",
                    "system": "http://terminology.hl7.org/CodeSystem/ex-diagnosistype",
                  },
                ],
              },
            ],
          },
          {
            "diagnosisCodeableConcept": {
              "coding": [
                {
                  "code": "K63.5",
                  "system": "http://hl7.org/fhir/sid/icd-10-cm",
                },
              ],
            },
            "sequence": 2,
            "type": [
              {
                "coding": [
                  {
                    "code": "secondary",
                    "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBClaimDiagnosisType",
                  },
                ],
              },
            ],
          },
        ],
        "disposition": "Claim adjudicated: APPROVED",
        "id": "ENC-2026-000042",
        "identifier": [
          {
            "system": "urn:tpa:encounter",
            "type": {
              "coding": [
                {
                  "code": "uc",
                  "display": "Unique Claim ID",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBIdentifierType",
                },
              ],
            },
            "value": "enc_0123456789abcdef0123",
          },
        ],
        "insurance": [
          {
            "coverage": {
              "display": "Acme Health Plan coverage",
              "identifier": {
                "system": "urn:tpa:member",
                "value": "MBR-1001",
              },
            },
            "focal": true,
          },
        ],
        "insurer": {
          "display": "Acme Health Plan",
          "identifier": {
            "system": "urn:tpa:payer",
            "value": "PAYER-ACME",
          },
        },
        "item": [
          {
            "adjudication": [
              {
                "category": {
                  "coding": [
                    {
                      "code": "benefitpaymentstatus",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudicationDiscriminator",
                    },
                  ],
                },
                "reason": {
                  "coding": [
                    {
                      "code": "innetwork",
                      "display": "In Network",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBPayerAdjudicationStatus",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 1000,
                },
                "category": {
                  "coding": [
                    {
                      "code": "submitted",
                      "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 800,
                },
                "category": {
                  "coding": [
                    {
                      "code": "eligible",
                      "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 100,
                },
                "category": {
                  "coding": [
                    {
                      "code": "deductible",
                      "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 25,
                },
                "category": {
                  "coding": [
                    {
                      "code": "copay",
                      "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 135,
                },
                "category": {
                  "coding": [
                    {
                      "code": "coinsurance",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 0,
                },
                "category": {
                  "coding": [
                    {
                      "code": "noncovered",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 260,
                },
                "category": {
                  "coding": [
                    {
                      "code": "memberliability",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 540,
                },
                "category": {
                  "coding": [
                    {
                      "code": "benefit",
                      "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                    },
                  ],
                },
              },
              {
                "amount": {
                  "currency": "USD",
                  "value": 540,
                },
                "category": {
                  "coding": [
                    {
                      "code": "paidtoprovider",
                      "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                    },
                  ],
                },
              },
            ],
            "careTeamSequence": [
              1,
            ],
            "modifier": [
              {
                "coding": [
                  {
                    "code": "59",
                    "system": "http://www.ama-assn.org/go/cpt",
                  },
                ],
              },
            ],
            "productOrService": {
              "coding": [
                {
                  "code": "45378",
                  "display": "Colonoscopy, diagnostic",
                  "system": "http://www.ama-assn.org/go/cpt",
                },
              ],
            },
            "quantity": {
              "value": 1,
            },
            "sequence": 1,
            "servicedDate": "2026-03-02",
          },
        ],
        "meta": {
          "lastUpdated": "2026-03-02T10:00:03Z",
          "profile": [
            "http://hl7.org/fhir/us/carin-bb/StructureDefinition/C4BB-ExplanationOfBenefit-Professional-NonClinician|2.0.0",
          ],
        },
        "outcome": "complete",
        "patient": {
          "display": "Jane Doe",
          "identifier": {
            "system": "urn:tpa:member",
            "value": "MBR-1001",
          },
        },
        "payee": {
          "type": {
            "coding": [
              {
                "code": "provider",
                "display": "Provider",
                "system": "http://terminology.hl7.org/CodeSystem/payeetype",
              },
            ],
          },
        },
        "payment": {
          "amount": {
            "currency": "USD",
            "value": 540,
          },
          "date": "2026-03-03",
          "identifier": {
            "system": "urn:tpa:processor-transfer",
            "value": "tr_0001",
          },
          "type": {
            "coding": [
              {
                "code": "paid",
                "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBPayerAdjudicationStatus",
              },
            ],
          },
        },
        "provider": {
          "display": "Dr. Alice Morgan",
          "identifier": {
            "system": "http://hl7.org/fhir/sid/us-npi",
            "value": "1045782368",
          },
        },
        "related": [
          {
            "reference": {
              "system": "urn:tpa:encounter",
              "value": "enc_00000000000000000002",
            },
            "relationship": {
              "coding": [
                {
                  "code": "replacedby",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBRelatedClaimRelationshipCodes",
                },
              ],
            },
          },
        ],
        "resourceType": "ExplanationOfBenefit",
        "status": "active",
        "supportingInfo": [
          {
            "category": {
              "coding": [
                {
                  "code": "clmrecvddate",
                  "display": "Claim Received Date",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBSupportingInfoType",
                },
              ],
            },
            "sequence": 1,
            "timingDate": "2026-03-02",
          },
          {
            "category": {
              "coding": [
                {
                  "code": "patientaccountnumber",
                  "display": "Patient Account Number",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBSupportingInfoType",
                },
              ],
            },
            "sequence": 2,
            "valueString": "PATIENT123",
          },
        ],
        "total": [
          {
            "amount": {
              "currency": "USD",
              "value": 1000,
            },
            "category": {
              "coding": [
                {
                  "code": "submitted",
                  "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 800,
            },
            "category": {
              "coding": [
                {
                  "code": "eligible",
                  "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 100,
            },
            "category": {
              "coding": [
                {
                  "code": "deductible",
                  "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 25,
            },
            "category": {
              "coding": [
                {
                  "code": "copay",
                  "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 135,
            },
            "category": {
              "coding": [
                {
                  "code": "coinsurance",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 0,
            },
            "category": {
              "coding": [
                {
                  "code": "noncovered",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 260,
            },
            "category": {
              "coding": [
                {
                  "code": "memberliability",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 540,
            },
            "category": {
              "coding": [
                {
                  "code": "benefit",
                  "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                },
              ],
            },
          },
          {
            "amount": {
              "currency": "USD",
              "value": 540,
            },
            "category": {
              "coding": [
                {
                  "code": "paidtoprovider",
                  "system": "http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBAdjudication",
                },
              ],
            },
          },
        ],
        "type": {
          "coding": [
            {
              "code": "professional",
              "system": "http://terminology.hl7.org/CodeSystem/claim-type",
            },
          ],
        },
        "use": "claim",
      }
    `);
  });
});
