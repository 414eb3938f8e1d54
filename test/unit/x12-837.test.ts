// The 837 mapper (src/domain/x12-837.ts) on synthetic 837P and 837I files written for these tests
// (test/helpers/x12.ts), tokenized by x12-parser as the CLI does.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseClaim } from '../../src/domain/fhir-claim.js';
import { EnvelopeScanner, isaProblem, X12ClaimReader, type X12Claim, type X12Event, type X12Problem } from '../../src/domain/x12-837.js';
import { institutionalClaim, interchange, professionalClaim, tokens, transaction } from '../helpers/x12.js';

/** Both readings, as the CLI does them: the envelopes scanned first, then the claims. */
async function convert(text: string): Promise<{ claims: X12Claim[]; problems: X12Problem[] }> {
  const scanner = new EnvelopeScanner(text.slice(0, 106));
  scanner.push(text);
  const report = scanner.end();
  const reader = new X12ClaimReader({ report });
  const events: X12Event[] = [];
  for (const s of await tokens(text)) events.push(...reader.push(s));
  events.push(...reader.end());
  const claims = events.flatMap((e) => (e.kind === 'claim' ? [e.claim] : []));
  return { claims, problems: report.loose };
}

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };

const professional = (claims: string[][], st02 = '0001') => transaction({ st02, type: 'professional', claims });

describe('837P to FHIR Claims', () => {
  it('one claim: type, member, billing and rendering providers, diagnoses, line, dates, prior auth, CLM01', async () => {
    const { claims, problems } = await convert(interchange([professional([professionalClaim({ clm01: 'PATIENT123' })])]));
    expect(problems).toEqual([]);
    expect(claims).toHaveLength(1);
    const c = claims[0]!;
    expect(c.problems).toEqual([]);
    expect(c.identity).toBe('x12:SUBMITTER:000000001:1:0001:PATIENT123');
    expect(c.place).toBe('ST 0001, CLM PATIENT123');
    const claim = c.claim as Record<string, any>;
    expect(claim.identifier).toEqual([{ system: 'urn:tpa:x12:clm01', value: 'PATIENT123' }]);
    expect(claim.type.coding[0].code).toBe('professional');
    expect(claim.patient.identifier.value).toBe('MBR-1001');
    expect(claim.provider.identifier).toEqual({ system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' });
    expect(claim.careTeam[0].provider.identifier.value).toBe('1045782368');
    expect(claim.careTeam[0].role.coding[0]).toEqual({ system: 'http://terminology.hl7.org/CodeSystem/claimcareteamrole', code: 'primary' });
    expect(claim.diagnosis.map((d: any) => d.diagnosisCodeableConcept.coding[0])).toEqual([
      { system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'K63.5' },
      { system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'Z12.11' },
    ]);
    expect(claim.insurance[0].preAuthRef).toEqual(['AUTH-77']);
    expect(claim.item[0]).toMatchObject({
      sequence: 1,
      careTeamSequence: [1],
      diagnosisSequence: [1],
      productOrService: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '45378' }] },
      servicedDate: '2025-01-10',
      quantity: { value: 1 },
      net: { value: 1800, currency: 'USD' },
    });
    expect(claim.total).toEqual({ value: 1800, currency: 'USD' });
    // The shape the service takes: the engine's own parser reads it.
    const parsed = parseClaim(claim);
    expect(parsed).toMatchObject({ type: 'professional', providerNpi: '1234567893', memberId: 'MBR-1001', totalChargeCents: 180000 });
    expect(parsed.preauthorizations).toEqual(['AUTH-77']);
  });

  it('reads any delimiters the ISA declares', async () => {
    const file = (d?: { element: string; component: string; segment: string }) =>
      interchange([professional([professionalClaim({ clm01: 'C1' }), professionalClaim({ clm01: 'C2' })])], { d });
    const standard = await convert(file());
    const other = await convert(file({ element: '|', component: '>', segment: '!' }));
    expect(other.problems).toEqual([]);
    expect(other.claims.map((c) => c.claim)).toEqual(standard.claims.map((c) => c.claim));
    expect(other.claims.map((c) => c.problems)).toEqual([[], []]);
  });

  it('several claims in one transaction set and several transaction sets, each with its own identity', async () => {
    const { claims } = await convert(
      interchange([
        professional([professionalClaim({ clm01: 'A1' }), professionalClaim({ clm01: 'A2', member: 'MBR-1003' })], '0001'),
        professional([professionalClaim({ clm01: 'A1' })], '0002'),
      ]),
    );
    expect(claims.map((c) => [c.identity, c.place])).toEqual([
      ['x12:SUBMITTER:000000001:1:0001:A1', 'ST 0001, CLM A1'],
      ['x12:SUBMITTER:000000001:1:0001:A2', 'ST 0001, CLM A2'],
      ['x12:SUBMITTER:000000001:1:0002:A1', 'ST 0002, CLM A1'],
    ]);
    expect((claims[1]!.claim as any).patient.identifier.value).toBe('MBR-1003');
    expect(claims.every((c) => c.problems.length === 0)).toBe(true);
  });

  it('HI qualifiers choose the code system: ABK/ABF ICD-10-CM, BK/BF ICD-9-CM, with the dot FHIR writes', async () => {
    const { claims } = await convert(
      interchange([
        professional([
          professionalClaim({ clm01: 'I10', hi: 'HI*ABK:V7651*ABF:E119' }),
          professionalClaim({ clm01: 'I9', hi: 'HI*BK:V7651*BF:25000*BF:E8809' }),
        ]),
      ]),
    );
    const codings = (c: X12Claim) => (c.claim as any).diagnosis.map((d: any) => d.diagnosisCodeableConcept.coding[0]);
    expect(codings(claims[0]!)).toEqual([
      { system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'V76.51' },
      { system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'E11.9' },
    ]);
    expect(codings(claims[1]!)).toEqual([
      { system: 'http://hl7.org/fhir/sid/icd-9-cm', code: 'V76.51' },
      { system: 'http://hl7.org/fhir/sid/icd-9-cm', code: '250.00' },
      { system: 'http://hl7.org/fhir/sid/icd-9-cm', code: 'E880.9' },
    ]);
    expect((claims[1]!.claim as any).diagnosis[0].type[0].coding[0].code).toBe('principal');
  });

  it('what the service cannot take is a problem of the claim, with its segment: another payer, a code set, a replacement', async () => {
    const { claims } = await convert(
      interchange([
        professional([
          professionalClaim({
            clm01: 'COB1',
            extra: ['SBR*P*18*GRP-9******CI', 'NM1*IL*1*DOE*JOHN****MI*OTHER-1', 'NM1*82*1*OTHER*DOC****G2*PAYER2-77'],
            lines: [
              { cpt: '45378', charge: '1800' },
              { cpt: 'A1234', charge: '10', qualifier: 'ER' },
              { cpt: 'J3490', charge: '20' },
              { cpt: 'J34', charge: '20' },
            ],
          }),
        ]),
      ]),
    );
    // A HCPCS Level II code (J3490) is read (the engine denies the line); a code set or a code tpa cannot read is not.
    expect(claims[0]!.problems).toEqual([
      { segment: 'SBR', message: expect.stringMatching(/another payer \(loop 2320, SBR01 P\).*coordinate benefits/) },
      { segment: 'SV1 #2', message: expect.stringContaining('SV101-1 is "ER": tpa reads HCPCS/CPT codes (HC) only') },
      { segment: 'SV1 #4', message: expect.stringContaining('procedure "J34" is neither a CPT code (5 digits) nor a HCPCS Level II code') },
    ]);
  });

  it('a HCPCS Level II line (a drug, a supply) is converted under the HCPCS system and read unpriced', async () => {
    const { claims } = await convert(
      interchange([
        professional([
          professionalClaim({
            clm01: 'DRUG1',
            lines: [
              { cpt: '45378', charge: '1800' },
              { cpt: 'J3490', charge: '20' },
              { cpt: 'A4550', charge: '15' },
            ],
          }),
        ]),
      ]),
    );
    expect(claims[0]!.problems).toEqual([]);
    const items = (claims[0]!.claim as any).item;
    expect(items[1].productOrService.coding).toEqual([{ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: 'J3490' }]);
    const lines = parseClaim(claims[0]!.claim).lines;
    expect(lines.map((l) => [l.cptCode, l.unpriced ?? null])).toEqual([
      ['45378', null],
      ['J3490', 'HCPCS_LEVEL_II'],
      ['A4550', 'HCPCS_LEVEL_II'],
    ]);
  });

  it('another payer after tpa’s plan (2320 SBR01 S) and an attending physician without an NPI are said and the claim is sent; a payment by the other payer is refused', async () => {
    const after = professionalClaim({
      clm01: 'AFTER',
      extra: ['NM1*71*1*JONES*JOHN*J', 'REF*1G*B99937', 'SBR*S*01*351630*STATE TEACHERS*****CI', 'NM1*IL*1*DOE*JANE****MI*222004433'],
    });
    const paid = professionalClaim({ clm01: 'PAID', extra: ['SBR*S*01*351630*STATE TEACHERS*****CI', 'AMT*D*40'] });
    const { claims } = await convert(interchange([professional([after, paid])]));
    expect(claims[0]!.problems).toEqual([]);
    expect(claims[0]!.notes).toEqual([
      { segment: 'NM1*71', message: expect.stringMatching(/attending provider has no NPI.*left out of the care team/) },
      { segment: 'SBR', message: expect.stringContaining("another payer follows tpa's plan (loop 2320, SBR01 S)") },
    ]);
    // The other payer's subscriber is not the member, and its providers are not the claim's.
    expect((claims[0]!.claim as any).patient.reference).not.toContain('222004433');
    expect(claims[1]!.problems).toEqual([{ segment: 'AMT*D', message: expect.stringContaining('another payer has paid on this claim') }]);
  });

  it('a secondary payer’s claim (SBR01 S) and a replacement (CLM05-3 7) without REF*F8 are refused, not sent as primary originals', async () => {
    const secondary = professionalClaim({ clm01: 'SEC' }).map((s) => (s.startsWith('SBR*P') ? s.replace('SBR*P', 'SBR*S') : s));
    const replacement = professionalClaim({ clm01: 'REP' }).map((s) => (s.startsWith('CLM*') ? s.replace('11:B:1', '11:B:7') : s));
    const { claims } = await convert(interchange([professional([secondary, replacement])]));
    expect(claims[0]!.problems).toEqual([{ segment: 'SBR', message: expect.stringContaining('SBR01 is S: tpa pays as the primary payer') }]);
    expect(claims[1]!.problems).toEqual([{ segment: 'CLM', message: expect.stringContaining('CLM05-3 is 7 (a replacement of an earlier claim)') }]);
  });

  it('a missing CLM01 is a problem of its claim, with its place', async () => {
    const { claims } = await convert(interchange([professional([professionalClaim({ clm01: '' })])]));
    expect(claims[0]!.place).toBe('ST 0001, CLM ');
    expect(claims[0]!.problems).toEqual([{ segment: 'CLM', message: expect.stringContaining('CLM01 (the patient control number') }]);
  });

  it('a patient loop (2000C) is read as the dependent, by name and birth date under the subscriber; a line’s own rendering provider', async () => {
    const claim = professionalClaim({ clm01: 'DEP1' });
    // SBR02 empty: the subscriber is not the patient (a 2000C names who is).
    const subscriber = claim.slice(0, 4).map((s) => (s.startsWith('HL*') ? s.replace('*22*0', '*22*1') : s.startsWith('SBR*') ? 'SBR*P**GRP-1001******CI' : s));
    // HL 1 the billing provider, 2 SUB2's subscriber, 3 DEP1's subscriber, 4 its patient.
    const patient = ['HL*4*{HL}*23*0', 'PAT*19', 'NM1*QC*1*DOE*TED', 'DMG*D8*20150302*M'];
    const rest = claim.slice(4);
    rest.splice(rest.length - 1, 0, 'NM1*82*1*HADDAD*OMAR****XX*1582736496');
    const lines = [...subscriber, ...patient, ...rest];
    // Another subscriber's own claim (loop 2000B, no 2000C) is not touched by the dependent.
    const { claims: read } = await convert(interchange([professional([professionalClaim({ clm01: 'SUB2', member: 'MBR-1003' }), lines])]));
    expect(read.map((c) => c.clm01)).toEqual(['SUB2', 'DEP1']);
    const claims = [read[1]!, read[0]!];
    expect(claims[0]!.problems).toEqual([]);
    const dependent = claims[0]!.claim as Record<string, any>;
    expect(dependent.patient).toEqual({ reference: '#patient', display: 'TED DOE' });
    expect(parseClaim(dependent)).toMatchObject({
      memberId: '',
      dependent: { subscriberId: 'MBR-1001', family: 'DOE', given: ['TED'], birthDate: '2015-03-02', relationship: 'child' },
    });
    expect(claims[1]!.problems).toEqual([]);
    const c = claims[0]!.claim as Record<string, any>;
    // The line names its own rendering provider: the claim's (2310B), no line's payee, is left out with a note.
    expect(c.careTeam.map((m: any) => m.provider.identifier.value)).toEqual(['1582736496']);
    expect(c.item[0].careTeamSequence).toEqual([1]);
    expect(claims[0]!.notes).toEqual([
      { segment: 'NM1*82', message: expect.stringMatching(/^the rendering provider is NPI 1045782368, no line's payee: left out of the care team/) },
    ]);
  });

  it('care-team sequences are one per provider, never repeated, however many lines name a rendering provider; REF*6R and modifiers ride on each item', async () => {
    const lineRendering = (npi: string) => `NM1*82*1*DOC*ONE****XX*${npi}`;
    const segments = professionalClaim({
      clm01: 'TEAM1',
      lines: [
        { cpt: '45378:59', charge: '1800', ref6r: 'L-1' },
        { cpt: '45380', charge: '2400', ref6r: 'L-2' },
        { cpt: '43235', charge: '1500' },
      ],
    });
    // Line 1 and line 2 name the same other rendering provider, line 3 the claim's own.
    const at = (n: number) => segments.indexOf(`LX*${n}`) + 3;
    segments.splice(at(3), 0, lineRendering('1045782368'));
    segments.splice(at(2), 0, lineRendering('1582736496'));
    segments.splice(at(1), 0, lineRendering('1582736496'));
    const { claims } = await convert(interchange([professional([segments])]));
    expect(claims[0]!.problems).toEqual([]);
    const c = claims[0]!.claim as Record<string, any>;
    expect(c.careTeam.map((m: any) => m.sequence)).toEqual([1, 2]);
    expect(c.item.map((i: any) => i.careTeamSequence)).toEqual([[2], [2], [1]]);
    const parsed = parseClaim(c);
    expect(parsed.lines.map((l) => [l.modifiers ?? [], l.lineControlNumber ?? null])).toEqual([
      [['59'], 'L-1'],
      [[], 'L-2'],
      [[], null],
    ]);
  });

  it('an empty file is said to be empty', () => {
    expect(isaProblem('')).toBe('the file is empty');
  });

  it('a claim is never another loop’s: no subscriber under its billing provider, or an NM1*IL/NM1*85 inside a claim, is a problem with its place', async () => {
    // HL 4, a second billing provider (after subscribers HL 2 and 3), then a CLM with no subscriber loop (HL 22) of its own.
    const orphan = ['HL*4**20*1', 'NM1*85*2*BEN KILDARE*****XX*9876543213', ...professionalClaim({ clm01: 'ORPHAN' }).slice(4)];
    // After ONE's line, a subscriber's NM1*IL with no HL before it, then another CLM.
    const one = [...professionalClaim({ clm01: 'ONE' }), 'NM1*IL*1*GARCIA*MARIA****MI*MBR-1003'];
    const { claims } = await convert(interchange([professional([one, professionalClaim({ clm01: 'TWO', member: 'MBR-1003' }), orphan])]));
    expect(claims.map((c) => c.clm01)).toEqual(['ONE', 'TWO', 'ORPHAN']);
    expect(claims[0]!.problems).toEqual([{ segment: 'SV1 #1, NM1*IL', message: expect.stringMatching(/^NM1\*IL inside the claim, with no HL before it/) }]);
    expect(claims[1]!.problems).toEqual([]);
    expect(claims[2]!.problems).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/no subscriber loop \(HL 22, NM1\*IL\) under its billing provider/) }),
    ]);
    // Not MBR-1003's, the subscriber of the billing provider before.
    expect(JSON.stringify(claims[2]!.claim)).not.toContain('MBR-1003');
  });

  it('a file of two interchanges names the interchange in each place; identities differ by ISA13', async () => {
    const one = interchange([professional([professionalClaim({ clm01: 'SAME' })])], { isa13: '000000001' });
    const two = interchange([professional([professionalClaim({ clm01: 'SAME' })])], { isa13: '000000002' });
    const { claims, problems } = await convert(one + two);
    expect(problems).toEqual([]);
    expect(claims.map((c) => [c.place, c.identity])).toEqual([
      ['ISA 000000001, ST 0001, CLM SAME', 'x12:SUBMITTER:000000001:1:0001:SAME'],
      ['ISA 000000002, ST 0001, CLM SAME', 'x12:SUBMITTER:000000002:1:0001:SAME'],
    ]);
  });

  it('two functional groups of one interchange may both number a transaction 0001: identities differ by GS06', async () => {
    const one = interchange([professional([professionalClaim({ clm01: 'SAME' })])], { gs06: '1' });
    const two = interchange([professional([professionalClaim({ clm01: 'SAME' })])], { gs06: '2' });
    // One interchange of both groups: the first file's IEA becomes the second's GS … GE.
    const groupTwo = two.slice(two.indexOf('GS*'), two.indexOf('IEA*'));
    const text = one.replace('IEA*1*', `${groupTwo}IEA*2*`);
    const { claims, problems } = await convert(text);
    expect(problems).toEqual([]);
    expect(claims.map((c) => c.problems)).toEqual([[], []]);
    expect(claims.map((c) => c.identity)).toEqual(['x12:SUBMITTER:000000001:1:0001:SAME', 'x12:SUBMITTER:000000001:2:0001:SAME']);
  });

  it('the parser’s errors on a converted claim are placed on the segment they came from', async () => {
    const { claims } = await convert(
      interchange([professional([professionalClaim({ clm01: 'D1', lines: [{ cpt: '45378', charge: '1800', date: '20991301' }] })])]),
    );
    const c = claims[0]!;
    expect(c.problems).toEqual([{ segment: 'SV1 #1, DTP*472', message: expect.stringContaining('DTP03 "20991301" is not a date') }]);
    expect(c.segmentOf('item[0].servicedDate')).toBe('SV1 #1');
    expect(c.segmentOf('patient.reference')).toBe('NM1*IL');
    expect(c.segmentOf('careTeam[0].provider')).toBe('NM1*82');
  });
});

describe('837I to FHIR Claims', () => {
  it('SV2 lines with revenue codes, statement dates (DTP*434) as the billable period, the attending provider noted and left out', async () => {
    const text = interchange(
      [
        transaction({
          st02: '0001',
          type: 'institutional',
          claims: [
            institutionalClaim({
              clm01: 'FAC1',
              lines: [
                { revenue: '0750', cpt: '45380', charge: '2400' },
                { revenue: '370', cpt: '00811', charge: '900' },
              ],
            }),
          ],
        }),
      ],
      { gs08: '005010X223A2' },
    );
    const { claims, problems } = await convert(text);
    expect(problems).toEqual([]);
    const c = claims[0]!;
    expect(c.problems).toEqual([]);
    const claim = c.claim as Record<string, any>;
    expect(claim.type.coding[0].code).toBe('institutional');
    expect(claim.billablePeriod).toEqual({ start: '2025-01-10', end: '2025-01-10' });
    // The attending physician (NM1*71) is no line's payee: said, and left out of the care team.
    expect(claim.careTeam).toBeUndefined();
    expect(c.notes).toEqual([
      { segment: 'NM1*71', message: expect.stringMatching(/^the attending provider is NPI 1045782368 \(ALICE MORGAN\): left out of the care team/) },
    ]);
    expect(claim.item.map((i: any) => [i.revenue.coding[0].code, i.productOrService.coding[0].code, i.net.value, i.careTeamSequence])).toEqual([
      ['0750', '45380', 2400, undefined],
      ['0370', '00811', 900, undefined],
    ]);
    const parsed = parseClaim(claim);
    expect(parsed).toMatchObject({ type: 'institutional', totalChargeCents: 330000, billablePeriod: { start: '2025-01-10' } });
    expect(parsed.lines.map((l) => [l.revenueCode, l.serviceDate])).toEqual([
      ['0750', '2025-01-10'],
      ['0370', '2025-01-10'],
    ]);
  });

  it('an SV2 line without a HCPCS code (room and board) is read as a revenue-code-only line, unpriced; its productOrService says not-applicable', async () => {
    const text = interchange(
      [transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'ROOM', lines: [{ revenue: '0120', charge: '800' }] })] })],
      { gs08: '005010X223A2' },
    );
    const { claims } = await convert(text);
    expect(claims[0]!.problems).toEqual([]);
    expect((claims[0]!.claim as any).item[0].productOrService).toEqual({
      coding: [{ system: 'http://terminology.hl7.org/CodeSystem/data-absent-reason', code: 'not-applicable' }],
    });
    expect(parseClaim(claims[0]!.claim).lines[0]).toMatchObject({ cptCode: '', revenueCode: '0120', unpriced: 'REVENUE_CODE_ONLY' });
  });
});

describe('837 converted', () => {
  it('every claim is a valid FHIR R4 Claim (the official schema), professional and institutional', async () => {
    const validator = new JSONSchemaValidator();
    const p = await convert(interchange([professional([professionalClaim({ clm01: 'P1' })])]));
    const i = await convert(
      interchange([transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'I1' })] })], { gs08: '005010X223A2' }),
    );
    for (const c of [...p.claims, ...i.claims]) expect(validator.validate(c.claim, true)).toEqual([]);
  });

  it('the first reading counts segments as the tokenizer cuts them: CR LF, no line breaks, blanks', async () => {
    const base = interchange([professional([professionalClaim({ clm01: 'A1' }), professionalClaim({ clm01: 'A2' })])]);
    for (const text of [base, base.replace(/\n/g, '\r\n'), base.replace(/\n/g, ''), base.replace(/~\n/g, '~  \n\n')]) {
      const { claims, problems } = await convert(text);
      expect(problems).toEqual([]);
      expect(claims.map((c) => c.problems)).toEqual([[], []]);
    }
  });
});

describe('837 envelopes', () => {
  it('a file that is not X12, or whose ISA is not 106 characters, is refused with why', () => {
    expect(isaProblem('{"resourceType":"Claim"}')).toMatch(/must start with ISA/);
    expect(isaProblem('ISA*00*  *00*')).toMatch(/cut short/);
    const good = interchange([professional([professionalClaim({ clm01: 'A' })])]);
    expect(isaProblem(good.slice(0, 106))).toBeUndefined();
    expect(isaProblem(good.replace('SUBMITTER      ', 'SUBMITTER').slice(0, 106))).toBe(
      'not an X12 interchange: ISA06 must be 15 characters wide (the ISA is fixed-width, 106 characters)',
    );
  });

  it('a wrong SE01 count puts the transaction’s claims out, each saying why, with the place', async () => {
    const text = interchange([professional([professionalClaim({ clm01: 'A1' }), professionalClaim({ clm01: 'A2' })])]).replace(/SE\*(\d+)\*0001/, 'SE*99*0001');
    const { claims } = await convert(text);
    expect(claims.map((c) => c.problems)).toEqual([
      [{ segment: '', message: expect.stringMatching(/^not sent: ST 0001: SE01 says 99 segments; the transaction set has \d+ \(ST to SE\)$/) }],
      [{ segment: '', message: expect.stringMatching(/SE01 says 99/) }],
    ]);
  });

  it('wrong control numbers and group counts (IEA, GE) are said, with their places', async () => {
    const text = interchange([professional([professionalClaim({ clm01: 'A1' })])])
      .replace('IEA*1*000000001', 'IEA*2*000000009')
      .replace('GE*1*1', 'GE*3*1');
    const { claims } = await convert(text);
    expect(claims[0]!.problems.map((p) => p.message)).toEqual([
      'not sent: GS 1: GE01 says 3 transaction set(s); the group holds 1',
      'not sent: ISA 000000001: IEA02 "000000009" is not the ISA13 control number "000000001"',
      'not sent: ISA 000000001: IEA01 says 2 functional group(s); the interchange holds 1',
    ]);
  });

  it('a file cut short (no SE, GE, IEA) is said, and its open claims are not sent', async () => {
    const whole = interchange([professional([professionalClaim({ clm01: 'A1' })])]);
    const { claims } = await convert(whole.slice(0, whole.indexOf('\nSE*') + 1));
    expect(claims[0]!.problems.map((p) => p.message)).toEqual([
      'not sent: ST 0001: the file ends inside this transaction set: no SE',
      'not sent: GS 1: the file ends inside this functional group: no GE',
      'not sent: ISA 000000001: the file ends inside this interchange: no IEA',
    ]);
  });

  it('an empty transaction set and a transaction that is not an 837 are problems of the file', async () => {
    const empty = ['ST*837*0002*005010X222A1', 'BHT*0019*00*1*20250115*1200*CH', 'SE*3*0002'];
    const other = ['ST*835*0003*005010X221A1', 'BPR*I*100', 'SE*3*0003'];
    const { claims, problems } = await convert(interchange([professional([professionalClaim({ clm01: 'A1' })]), empty, other]));
    expect(claims.map((c) => c.problems)).toEqual([[]]);
    expect(problems).toEqual([
      { place: 'ST 0002', message: 'holds no claim (CLM)' },
      { place: 'ST 0003', message: 'transaction set 835, not an 837 claim' },
    ]);
  });
});

describe('837: what is not for payment, repeated and broken', () => {
  const one = (claim: string[]) => interchange([professional([claim])]);
  const messages = (c: X12Claim) => c.problems.map((p) => `${p.segment}: ${p.message}`);

  it('test data (ISA15 T) is read as test, each claim tagged HTEST; another ISA15 and reporting or subrogation data (BHT06 RP, 31) are refused on every claim they cover', async () => {
    const test = await convert(
      interchange([professional([professionalClaim({ clm01: 'A1' }), professionalClaim({ clm01: 'A2' })])]).replace('*0*P*:', '*0*T*:'),
    );
    expect(test.claims.map(messages)).toEqual([[], []]);
    for (const c of test.claims)
      expect(c.claim.meta).toEqual({ tag: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST', display: 'test health data' }] });
    const other = await convert(one(professionalClaim({ clm01: 'A1' })).replace('*0*P*:', '*0*X*:'));
    expect(messages(other.claims[0]!)).toEqual([expect.stringMatching(/^ISA15: ISA15 is "X": an interchange is production data \(P\) or test data \(T\)/)]);
    for (const code of ['RP', '31']) {
      const { claims } = await convert(one(professionalClaim({ clm01: 'A1' })).replace('1200*CH', `1200*${code}`));
      expect(messages(claims[0]!)).toEqual([expect.stringMatching(new RegExp(`^BHT06: BHT06 is ${code} .*not a claim for payment \\(CH\\)`))]);
    }
    const paid = await convert(one(professionalClaim({ clm01: 'A1' })));
    expect(paid.claims[0]!.problems).toEqual([]);
    expect(paid.claims[0]!.claim.meta).toBeUndefined();
  });

  it('a segment repeated where the loop has one is a problem with its segment, never a silent replacement', async () => {
    const il = await convert(one(professionalClaim({ clm01: 'A1' }).flatMap((s) => (s.startsWith('NM1*IL') ? [s, s.replace('MBR-1001', 'MBR-1003')] : [s]))));
    expect(messages(il.claims[0]!)).toEqual([expect.stringMatching(/^NM1\*IL: a second NM1\*IL in the subscriber loop/)]);
    const billing = await convert(
      interchange([professional([professionalClaim({ clm01: 'A1' })])])
        .replace('REF*EI*123456789~', 'REF*EI*123456789~\nNM1*85*2*OTHER*****XX*1045782368~')
        .replace(/SE\*(\d+)\*0001/, (_m, n) => `SE*${Number(n) + 1}*0001`),
    );
    expect(messages(billing.claims[0]!)).toEqual([expect.stringMatching(/^NM1\*85: a second NM1\*85 in the billing provider loop/)]);
    const sbr = await convert(one(professionalClaim({ clm01: 'A1' }).flatMap((s) => (s.startsWith('SBR') ? [s, 'SBR*S*18*GRP-9******CI'] : [s]))));
    expect(messages(sbr.claims[0]!)).toContainEqual(expect.stringMatching(/^SBR: a second SBR in the subscriber loop/));
    const sv1 = await convert(one(professionalClaim({ clm01: 'A1' }).flatMap((s) => (s.startsWith('SV1') ? [s, 'SV1*HC:99213*0*UN*1***1'] : [s]))));
    expect(messages(sv1.claims[0]!)).toEqual([expect.stringMatching(/^SV1 #1: a second SV1 in service line 1/)]);
    const dtp = await convert(one(professionalClaim({ clm01: 'A1' }).flatMap((s) => (s.startsWith('DTP*472') ? [s, 'DTP*472*D8*20250111'] : [s]))));
    expect(messages(dtp.claims[0]!)).toEqual([expect.stringMatching(/^SV1 #1, DTP\*472: a second DTP\*472 on service line 1/)]);
    const ref = await convert(one(professionalClaim({ clm01: 'A1' }).flatMap((s) => (s.startsWith('SV1') ? [s, 'REF*6R*AAA', 'REF*6R*BBB'] : [s]))));
    expect(messages(ref.claims[0]!)).toEqual([expect.stringMatching(/^SV1 #1, REF\*6R: a second REF\*6R on service line 1/)]);
  });

  it('HL01 counts up by one and HL02 names the HL of the level above that is being read', async () => {
    const base = interchange([professional([professionalClaim({ clm01: 'A1' })])]);
    const orphan = await convert(base.replace('HL*2*1*22*0', 'HL*2*9*22*0'));
    expect(messages(orphan.claims[0]!)).toEqual([expect.stringMatching(/^HL\*2: HL02 "9" .*billing provider.*HL 20/)]);
    const skipped = await convert(base.replace('HL*2*1*22*0', 'HL*5*1*22*0'));
    expect(messages(skipped.claims[0]!)).toEqual([expect.stringMatching(/^HL\*5: HL01 "5" must be 2/)]);
    // HL 4 says its billing provider is HL 1, but the one being read is HL 3.
    const two = interchange([professional([professionalClaim({ clm01: 'A1' })])]).replace(
      '\nSE*',
      '\nHL*3**20*1~\nNM1*85*2*OTHER*****XX*1045782368~\nHL*4*1*22*0~\nSBR*P*18*GRP-1001******CI~\nNM1*IL*1*DOE*JANE****MI*MBR-1001~\nCLM*A2*1800***11:B:1*Y*A*Y*Y~\nHI*ABK:K635~\nLX*1~\nSV1*HC:45378*1800*UN*1***1~\nDTP*472*D8*20250110~\nSE*',
    );
    const nested = await convert(two.replace(/SE\*(\d+)\*0001/, (_m, n) => `SE*${Number(n) + 10}*0001`));
    expect(nested.claims.map((c) => c.clm01)).toEqual(['A1', 'A2']);
    expect(messages(nested.claims[0]!)).toEqual([]);
    expect(messages(nested.claims[1]!)).toEqual([expect.stringMatching(/^HL\*4: HL02 "1" .*HL 3/)]);
  });

  it('a delimiter that is a period or a hyphen (they appear in amounts and dates) is refused in the ISA', () => {
    const good = interchange([professional([professionalClaim({ clm01: 'A' })])]);
    expect(isaProblem(`${good.slice(0, 104)}.~`)).toMatch(/period|hyphen/);
    expect(isaProblem(`${good.slice(0, 104)}:-`)).toMatch(/period|hyphen/);
    expect(isaProblem(good.slice(0, 106).replaceAll('*', '.'))).toMatch(/period|hyphen/);
    expect(isaProblem(good.slice(0, 106).replaceAll('*', '-'))).toMatch(/period|hyphen/);
  });

  it('CLM01 over 38 characters, or holding a delimiter of the 835 tpa writes from it, is a problem of the claim', async () => {
    const d = { element: '|', component: '>', segment: '!' };
    const text = interchange([professional([professionalClaim({ clm01: 'CLMX' })])], { d }).replace('CLMX', 'X*1:2^3');
    const { claims } = await convert(text);
    expect(claims[0]!.clm01).toBe('X*1:2^3');
    expect(messages(claims[0]!)).toEqual([expect.stringMatching(/^CLM: CLM01 "X\*1:2\^3" holds "\*", ":", "\^"/)]);
    const long = await convert(one(professionalClaim({ clm01: 'A'.repeat(47) })));
    expect(messages(long.claims[0]!)).toEqual([expect.stringMatching(/^CLM: CLM01 is 47 characters: at most 38/)]);
    const ok = await convert(one(professionalClaim({ clm01: 'a-1.B/2#x' })));
    expect(ok.claims[0]!.problems).toEqual([]);
  });

  it('an SV107 pointer to a diagnosis the claim does not have is a problem of its line', async () => {
    const { claims } = await convert(one(professionalClaim({ clm01: 'A1' }).map((s) => (s.startsWith('SV1') ? 'SV1*HC:45378*1800*UN*1***1:3' : s))));
    expect(messages(claims[0]!)).toEqual(['SV1 #1: SV107-2, diagnosis pointer 3, names no diagnosis: the claim has 2 that a line can point to (HI)']);
  });
});

describe('837: the bound of a segment', () => {
  it('a segment over 64 KiB is refused with its place, even with its terminator in the same chunk', () => {
    const text = interchange([professional([professionalClaim({ clm01: 'A1', extra: [`NTE*ADD*${'x'.repeat(70_000)}`] })])]);
    const scanner = new EnvelopeScanner(text.slice(0, 106));
    scanner.push(text);
    const report = scanner.end();
    expect(report.fatal).toEqual({ place: expect.stringMatching(/^segment \d+$/), message: expect.stringMatching(/more than 64 KiB/) });
  });
});

describe('837: a second interchange with other delimiters', () => {
  it('is said once, by its ISA13, and not read: no line per segment', async () => {
    const first = interchange([professional([professionalClaim({ clm01: 'A1' })])]);
    const second = interchange([professional([professionalClaim({ clm01: 'B1' })])], { isa13: '000000702', d: { element: '|', component: '>', segment: '~' } });
    const { claims, problems } = await convert(first + second);
    expect(claims.map((c) => [c.clm01, c.problems])).toEqual([['A1', []]]);
    expect(problems).toEqual([
      { place: 'ISA 000000702', message: expect.stringMatching(/^declares other delimiters than the first interchange: element "\|"/) },
    ]);
    // A third, with the first's delimiters again, is read.
    const third = interchange([professional([professionalClaim({ clm01: 'C1' })])], { isa13: '000000703' });
    const again = await convert(first + second + third);
    expect(again.claims.map((c) => c.clm01)).toEqual(['A1', 'C1']);
    expect(again.problems).toHaveLength(1);
  });
});
