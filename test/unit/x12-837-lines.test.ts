// The 837 reader's claim data, kept or refused, never half-kept: HI composites (a 13th code, the
// dates of occurrence codes, the amounts of value codes, present on admission, procedure dates),
// units as sent, and a claim's place in its transaction set as part of its identity. Synthetic
// 837s (test/helpers/x12.ts), both readings as the CLI does them.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { flatRatePrice } from '../../src/domain/contract-rates.js';
import { parseClaim } from '../../src/domain/fhir-claim.js';
import { IG_EXAMPLES, igText } from '../helpers/ig-examples.js';
import { institutionalClaim, interchange, professionalClaim, convert, transaction } from '../helpers/x12.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };
const schema = new JSONSchemaValidator();

/** An 837I claim with these HI segments in place of its one. */
const withHi = (clm01: string, hi: string[]) => institutionalClaim({ clm01 }).flatMap((seg) => (seg.startsWith('HI*') ? hi : [seg]));
const professional = (claims: string[][]) => interchange([transaction({ st02: '0001', type: 'professional', claims })]);
const institutional = (claims: string[][]) => interchange([transaction({ st02: '0001', type: 'institutional', claims })], { gs08: '005010X223A2' });
type Body = Record<string, any>;

describe('HI: what a composite carries is kept or refused', () => {
  it('a 13th code in one HI segment is refused with its segment and element, never dropped', async () => {
    const codes = ['ABK:K635', ...Array.from({ length: 12 }, (_, i) => `ABF:Z12${String(i).padStart(2, '0')}`)];
    const [c] = await convert(professional([professionalClaim({ clm01: 'DX13', hi: `HI*${codes.join('*')}` })]));
    expect(c!.problems).toEqual([
      {
        segment: 'HI #1',
        message:
          'HI13 (ABF Z1211): a code beyond the 12th of one HI segment: an HI holds at most 12 codes; it is not read, and the claim is not sent without it',
      },
    ]);
    // Twelve codes are read, all of them.
    const [twelve] = await convert(professional([professionalClaim({ clm01: 'DX12', hi: `HI*${codes.slice(0, 12).join('*')}` })]));
    expect(twelve!.problems).toEqual([]);
    expect((twelve!.claim as Body).diagnosis).toHaveLength(12);
  });

  it("the published 837I's occurrence codes keep their dates and its value code its amount, valid FHIR R4", async () => {
    const example = IG_EXAMPLES.find((e) => e.kind === 'institutional')!;
    const [c] = await convert(igText(example.x12));
    const claim = c!.claim as Body;
    const info = (claim.supportingInfo as Body[]).map(({ sequence, category, ...rest }) => rest);
    expect(info).toEqual([
      { code: { coding: [{ system: 'urn:tpa:x12:hi:BH', code: 'A1' }] }, timingDate: '1926-11-11' },
      { code: { coding: [{ system: 'urn:tpa:x12:hi:BH', code: 'A2' }] }, timingDate: '1991-11-01' },
      { code: { coding: [{ system: 'urn:tpa:x12:hi:BH', code: 'B1' }] }, timingDate: '1926-11-11' },
      { code: { coding: [{ system: 'urn:tpa:x12:hi:BH', code: 'B2' }] }, timingDate: '1987-01-01' },
      {
        code: { coding: [{ system: 'urn:tpa:x12:hi:BE', code: 'A2' }] },
        valueQuantity: { value: 15.31, unit: 'USD', system: 'urn:iso:std:iso:4217', code: 'USD' },
      },
      { code: { coding: [{ system: 'urn:tpa:x12:hi:BG', code: '09' }] } },
      // CLM05 14:A:1, the type of bill, after the HI codes (the 835's CLP08/CLP09).
      { code: { coding: [{ system: 'https://www.nubc.org/CodeSystem/TypeOfBill', code: '0141' }] } },
    ]);
    expect(schema.validate(claim)).toEqual([]);
  });

  it('an occurrence span (BI, RD8) is a timingPeriod; POA and a procedure date are kept; what is not read is refused, naming it', async () => {
    const [c] = await convert(institutional([withHi('SPAN1', ['HI*ABK:K635:::::::Y', 'HI*BI:74:RD8:20250101-20250105', 'HI*BBR:0DJ08ZZ:D8:20250110'])]));
    expect(c!.problems).toEqual([]);
    const claim = c!.claim as Body;
    expect(claim.diagnosis[0].onAdmission).toEqual({ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/ex-diagnosis-on-admission', code: 'y' }] });
    expect(claim.supportingInfo[0].timingPeriod).toEqual({ start: '2025-01-01', end: '2025-01-05' });
    expect(claim.procedure[0].date).toBe('2025-01-10');
    expect(schema.validate(claim)).toEqual([]);

    const [bad] = await convert(institutional([withHi('BAD1', ['HI*ABK:K635:D8:20250101', 'HI*BH:11:D8:20251399', 'HI*BE:80:::1.2.3', 'HI*ABF:R05:::::::Q'])]));
    expect(bad!.problems.map((p) => `${p.segment}: ${p.message}`)).toEqual([
      'HI #1: HI01-3 "D8" (a date format) is not something tpa reads for a ABK code: not kept, so the claim is not sent',
      'HI #1: HI01-4 "20250101" (a date) is not something tpa reads for a ABK code: not kept, so the claim is not sent',
      'HI #2: HI01-4 "20251399" is not a date (CCYYMMDD)',
      'HI #3: amount (HI01-5) "1.2.3" is not an amount',
      'HI #4: present-on-admission indicator (HI01-9) "Q" is not one of Y, N, U, W',
    ]);
  });
});

describe('a service line says each fault as itself', () => {
  it('a missing SV104 is said missing, not a range error; SV103 must be UN or MJ; a bad quantity is named', async () => {
    const line = (sv1: string) =>
      professionalClaim({ clm01: 'U1', lines: [{ cpt: '45378', charge: '1800' }] }).map((seg) => (seg.startsWith('SV1*') ? sv1 : seg));
    const [missing] = await convert(professional([line('SV1*HC:45378*1800*UN****1')]));
    expect(missing!.problems).toEqual([{ segment: 'SV1 #1', message: 'SV104 (the quantity) is missing: how many units the charge is for' }]);
    const [noUnit] = await convert(professional([line('SV1*HC:45378*1800**1***1')]));
    expect(noUnit!.problems).toEqual([{ segment: 'SV1 #1', message: 'SV103 (the unit of measure) is missing: UN (units) or MJ (minutes of anesthesia)' }]);
    const [f2] = await convert(professional([line('SV1*HC:45378*1800*F2*1***1')]));
    expect(f2!.problems).toEqual([{ segment: 'SV1 #1', message: 'SV103 "F2" is not a unit tpa reads: UN (units) or MJ (minutes of anesthesia)' }]);
    const [four] = await convert(professional([line('SV1*HC:45378*1800*UN*1.2345***1')]));
    expect(four!.problems).toEqual([{ segment: 'SV1 #1', message: 'SV104 "1.2345" is not a quantity: a number above 0 with at most 3 decimals' }]);
    const [zero] = await convert(professional([line('SV1*HC:45378*1800*UN*0***1')]));
    expect(zero!.problems).toEqual([{ segment: 'SV1 #1', message: 'SV104 "0" is not above 0: a line is for some units (or minutes)' }]);
  });

  it('units as sent: SV104 1.5 and SV103 MJ 60 are kept, the minutes in UCUM min; the parsed line carries MJ', async () => {
    const claim = professionalClaim({
      clm01: 'U2',
      lines: [
        { cpt: '45378', charge: '1800', units: '1.5' },
        { cpt: '00811', charge: '900', units: '60' },
      ],
    }).map((seg) => (seg.startsWith('SV1*HC:00811') ? seg.replace('*UN*60', '*MJ*60') : seg));
    const [c] = await convert(professional([claim]));
    expect(c!.problems).toEqual([]);
    const items = (c!.claim as Body).item as Body[];
    expect(items.map((i) => i.quantity)).toEqual([{ value: 1.5 }, { value: 60, unit: 'min', system: 'http://unitsofmeasure.org', code: 'min' }]);
    const parsed = parseClaim(c!.claim);
    expect(parsed.lines.map((l) => [l.quantity, l.unitOfMeasure ?? 'UN'])).toEqual([
      [1.5, 'UN'],
      [60, 'MJ'],
    ]);
    expect(schema.validate(c!.claim)).toEqual([]);
  });

  it('a body written with another component separator than ISA16 says so, not blamed on the code set', async () => {
    const claim = professionalClaim({ clm01: 'SEP1' }).map((seg) =>
      seg.startsWith('SV1*') ? seg.replace('HC:45378', 'HC>45378') : seg.startsWith('HI*') ? seg.replaceAll(':', '>') : seg,
    );
    const [c] = await convert(professional([claim]));
    expect(c!.problems).toEqual([
      {
        segment: 'HI #1',
        message:
          'HI01 "ABK>K635" holds ">" where the ISA declares ":" as the component separator (ISA16): the file uses another component separator than its ISA says; write the ISA16 it uses',
      },
      {
        segment: 'HI #1',
        message:
          'HI02 "ABF>Z1211" holds ">" where the ISA declares ":" as the component separator (ISA16): the file uses another component separator than its ISA says; write the ISA16 it uses',
      },
      {
        segment: 'SV1 #1',
        message:
          'SV101 "HC>45378" holds ">" where the ISA declares ":" as the component separator (ISA16): the file uses another component separator than its ISA says; write the ISA16 it uses',
      },
    ]);
    expect(JSON.stringify(c!.problems)).not.toMatch(/code set/);
  });
});

describe('how a FLAT_RATE prices the quantity as sent', () => {
  it('a decimal quantity rounds to the cent, halves away from zero; minutes of anesthesia are one service', () => {
    expect(flatRatePrice(48000, { quantity: 1.5 })).toBe(72000);
    expect(flatRatePrice(10001, { quantity: 1.5 })).toBe(15002);
    expect(flatRatePrice(333, { quantity: 0.125 })).toBe(42);
    expect(flatRatePrice(48000, { quantity: 2 })).toBe(96000);
    expect(flatRatePrice(48000, { quantity: 60, unitOfMeasure: 'MJ' })).toBe(48000);
  });
});

describe("a claim's place and its fields' segments", () => {
  it('a CLM01 repeated in a transaction set is known by its place (#n); the first keeps the identity it always had', async () => {
    const claims = await convert(
      professional([
        professionalClaim({ clm01: 'P1' }),
        professionalClaim({ clm01: 'P2', member: 'MBR-1003' }),
        professionalClaim({ clm01: 'P1', member: 'MBR-1003' }),
      ]),
    );
    expect(claims.map((c) => [c.identity, c.place])).toEqual([
      ['x12:SUBMITTER:000000001:1:0001:P1', 'ST 0001, CLM P1'],
      ['x12:SUBMITTER:000000001:1:0001:P2', 'ST 0001, CLM P2'],
      ['x12:SUBMITTER:000000001:1:0001:P1#3', 'ST 0001, CLM P1 #3'],
    ]);
  });

  it('an HI code is placed by its segment and element: HI #2, HI03', async () => {
    const claim = professionalClaim({ clm01: 'DXS', hi: 'HI*ABK:K635*ABF:Z1211' }).flatMap((s) =>
      s.startsWith('HI*') ? [s, 'HI*ABF:R05*ABF:R060*ABF:Q999'] : [s],
    );
    const [c] = await convert(professional([claim]));
    expect(c!.segmentOf('diagnosis[4].diagnosisCodeableConcept.coding[0].code')).toBe('HI #2, HI03');
    expect(c!.segmentOf('diagnosis[0]')).toBe('HI #1, HI01');
  });
});
