// An institutional claim's type of bill (CLM05-1 facility type code, CLM05-3 claim frequency code)
// kept from the 837I to the FHIR Claim (supportingInfo `typeofbill`, as CARIN Blue Button carries it)
// and read by the claim parser, for the 835's CLP08 and CLP09 (docs/x12-835.md "835 out").
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseClaim } from '../../src/domain/fhir-claim.js';
import { convert, institutionalClaim, interchange, professionalClaim, transaction } from '../helpers/x12.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };

type Body = Record<string, any>;

async function claimsOf(text: string): Promise<Body[]> {
  return (await convert(text)).map((c) => c.claim as Body);
}

describe("an 837I's type of bill", () => {
  it('CLM05 13:A:1 becomes supportingInfo typeofbill 0131, valid R4, and the parsed claim has facility type 13, frequency 1', async () => {
    const text = interchange([transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'FAC1' })] })], { gs08: '005010X223A2' });
    const [claim] = await claimsOf(text);
    expect(claim!.supportingInfo).toContainEqual({
      sequence: expect.any(Number),
      category: { coding: [{ system: 'http://hl7.org/fhir/us/carin-bb/CodeSystem/C4BBSupportingInfoType', code: 'typeofbill' }] },
      code: { coding: [{ system: 'https://www.nubc.org/CodeSystem/TypeOfBill', code: '0131' }] },
    });
    expect(new JSONSchemaValidator().validate(claim, true)).toEqual([]);
    expect(parseClaim(claim)).toMatchObject({ facilityTypeCode: '13', claimFrequencyCode: '1' });
  });

  it('an 837P carries none (CLM05-1 is its place of service), and a FHIR type of bill that is not one is refused naming its path', async () => {
    const [professional] = await claimsOf(interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'P1' })] })]));
    expect(JSON.stringify(professional!.supportingInfo ?? [])).not.toContain('typeofbill');
    const parsed = parseClaim(professional);
    expect(parsed.facilityTypeCode).toBeUndefined();
    expect(parsed.claimFrequencyCode).toBeUndefined();

    const text = interchange([transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'FAC1' })] })], { gs08: '005010X223A2' });
    const [claim] = await claimsOf(text);
    const info = (claim!.supportingInfo as Body[]).find((i) => i.category.coding[0].code === 'typeofbill')!;
    info.code.coding[0].code = '13~1';
    expect(() => parseClaim(claim)).toThrow(/supportingInfo\[\d+\]\.code\.coding\[0\]\.code.*must be a type of bill/s);
    // Three digits without the leading 0 are read alike.
    info.code.coding[0].code = '137';
    expect(parseClaim(claim)).toMatchObject({ facilityTypeCode: '13', claimFrequencyCode: '7' });
  });
});
