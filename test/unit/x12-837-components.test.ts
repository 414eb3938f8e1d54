// A simple element holds one value: one holding the component separator (ISA16) is refused naming
// its segment, element and parts, never cut to its first part; so is a composite's component beyond
// the 837's (CLM05-4). An LX without SV1/SV2 is said once, at that LX; a second SBR of a subscriber
// loop is refused and the loop is not judged from it. Synthetic 837s (test/helpers/x12.ts), read as
// the CLI reads them.
import { describe, expect, it } from 'vitest';
import { convert, interchange, professionalClaim, transaction } from '../helpers/x12.js';

const professional = (claims: string[][]) => interchange([transaction({ st02: '0001', type: 'professional', claims })]);
/** A professional claim with `edit` applied to each of its segments (a segment may become several). */
const edited = (edit: (s: string) => string | string[]) => professionalClaim({ clm01: 'CMP' }).flatMap(edit);
const problems = async (claim: string[]) => (await convert(professional([claim])))[0]!.problems;

describe('a simple element holding the component separator is refused, never cut', () => {
  it('REF*F8 naming two claims (E1:E2) is refused naming both: the claim is not a replacement of the first', async () => {
    const claim = edited((s) => (s.startsWith('CLM*') ? [s.replace('11:B:1', '11:B:7'), 'REF*F8*enc_AAA:enc_BBB'] : s));
    const [c] = await convert(professional([claim]));
    expect(c!.problems).toEqual([
      {
        segment: 'REF*F8',
        message:
          'REF02 holds a component separator, so it is several parts ("enc_AAA", "enc_BBB") where the 837 has one simple element: which one is meant is not for tpa to guess, and the claim is not read from its first part',
      },
    ]);
  });

  it.each([
    [
      'CLM01 and CLM02',
      (s: string) => (s.startsWith('CLM*') ? s.replace('CLM*CMP*1800', 'CLM*A:B*1800:99') : s),
      'CLM',
      ['CLM01', '"A", "B"', 'CLM02', '"1800", "99"'],
    ],
    [
      'SV102, SV104, SV105',
      (s: string) => (s.startsWith('SV1*') ? 'SV1*HC:45378*1800:5*UN*1:7*11:22**1' : s),
      'SV1 #1',
      ['SV102', 'SV104', 'SV105', '"11", "22"'],
    ],
    ['DTP03 of a line', (s: string) => (s.startsWith('DTP*472') ? 'DTP*472*D8*20250110:20250112' : s), 'SV1 #1, DTP*472', ['DTP03', '"20250110", "20250112"']],
    ['REF02 of REF*6R', (s: string) => (s.startsWith('DTP*472') ? [s, 'REF*6R*L1:L2'] : s), 'SV1 #1, REF*6R', ['REF02', '"L1", "L2"']],
    ['REF02 of REF*G1', (s: string) => (s.startsWith('REF*G1') ? 'REF*G1*AU1:AU2' : s), 'REF*G1', ['REF02', '"AU1", "AU2"']],
    ['NM103 of the rendering provider', (s: string) => (s.startsWith('NM1*82') ? 'NM1*82*1*MORGAN:X*ALICE****XX*1045782368' : s), 'NM1*82', ['NM103']],
    ['SBR01 of the subscriber', (s: string) => (s.startsWith('SBR*') ? 'SBR*P:S*18*GRP-1001******CI' : s), 'SBR', ['SBR01', '"P", "S"']],
    ['NM104 of the subscriber', (s: string) => (s.startsWith('NM1*IL') ? 'NM1*IL*1*DOE*JANE:JO****MI*MBR-1001' : s), 'NM1*IL', ['NM104']],
    ['HL03 of the subscriber loop', (s: string) => (s.startsWith('HL*') ? s.replace('*22*', '*22:9*') : s), 'HL*2', ['HL03', '"22", "9"']],
  ])('%s', async (_, edit, segment, words) => {
    const found = await problems(edited(edit));
    const mine = found.filter((p) => p.message.includes('holds a component separator'));
    expect(mine.length, JSON.stringify(found)).toBeGreaterThan(0);
    for (const p of mine) expect(p.segment).toBe(segment);
    const text = mine.map((p) => p.message).join('\n');
    for (const w of words) expect(text).toContain(w);
  });

  it('an attending provider (not paid) holding one is said and left out as before: the claim is read', async () => {
    const found = await problems(edited((s) => (s.startsWith('NM1*82') ? [s, 'NM1*71*1*JONES:X*JOHN'] : s)));
    expect(found).toEqual([]);
  });

  it('BHT03 holding a component separator refuses the claims of its transaction set', async () => {
    const text = professional([professionalClaim({ clm01: 'BHT' })]).replace('BHT*0019*00*0123', 'BHT*0019*00*0123:4');
    const [c] = await convert(text);
    expect(c!.problems.map((p) => p.message).join('\n')).toMatch(/BHT03 holds a component separator, so it is several parts \("0123", "4"\)/);
  });

  it("a composite's component beyond the 837's (CLM05-4) is refused naming it; CLM05 of 3 components is read", async () => {
    const found = await problems(edited((s) => (s.startsWith('CLM*') ? s.replace('11:B:1', '11:B:1:9') : s)));
    expect(found).toEqual([
      {
        segment: 'CLM',
        message:
          'CLM05 has 4 components ("11", "B", "1", "9") where the 837 has 3: what follows the 3rd (CLM05-4 "9") is not for tpa to drop, and the claim is not read without it',
      },
    ]);
    expect(await problems(edited((s) => s))).toEqual([]);
  });

  it('composites are read as before: SV101 with modifiers, SV107 pointers, HI codes', async () => {
    const claim = professionalClaim({ clm01: 'OK', lines: [{ cpt: '45380:59:76', charge: '1800' }], hi: 'HI*ABK:K635*ABF:Z1211' }).map((s) =>
      s.startsWith('SV1*') ? s.replace('***1', '***1:2') : s,
    );
    expect(await problems(claim)).toEqual([]);
  });
});

describe("an HI composite's components beyond the 10th", () => {
  it('are named and refused, never dropped (HI01-12)', async () => {
    const found = await problems(professionalClaim({ clm01: 'HI12', hi: `HI*ABK:K635${':'.repeat(10)}X` }));
    expect(found).toEqual([
      { segment: 'HI #1', message: 'HI01-12 "X" (a part) is not something tpa reads for a ABK code: not kept, so the claim is not sent' },
    ]);
  });
});

describe('SV101 after its four modifiers', () => {
  it('a fifth modifier (SV101-7, the description) is said and left out, never dropped without a word; the claim is read', async () => {
    const [five] = await convert(professional([professionalClaim({ clm01: 'M5', lines: [{ cpt: '45378:25:59:XS:XU:XP', charge: '1800' }] })]));
    expect(five!.problems).toEqual([]);
    expect(five!.notes).toEqual([
      {
        segment: 'SV1 #1',
        message:
          'SV101-7 "XP" (a description of the procedure, after the four modifiers SV101-3 to -6; a fifth modifier has no place in the 837) is not read: the line is priced by its code and four modifiers',
      },
    ]);
    const [four] = await convert(professional([professionalClaim({ clm01: 'M4', lines: [{ cpt: '45378:25:59:XS:XU', charge: '1800' }] })]));
    expect([four!.problems, four!.notes]).toEqual([[], []]);
  });
});

describe('a service line without SV1 or SV2', () => {
  it('LX*1 then LX*2 with its SV1: "LX 1 has no SV1" once, at LX #1, and nothing else', async () => {
    const found = await problems(edited((s) => (s === 'LX*1' ? ['LX*1', 'LX*2'] : s)));
    expect(found).toEqual([
      {
        segment: 'LX #1',
        message:
          'LX 1 has no SV1: a service line (LX) has one SV1, which says what was done, for what charge and on what date; the claim is not read without it',
      },
    ]);
  });

  it('a last LX without SV1 is said at its LX', async () => {
    const found = await problems(edited((s) => s).concat(['LX*2']));
    expect(found.map((p) => p.segment)).toEqual(['LX #2']);
  });
});

describe('a second SBR in a subscriber loop', () => {
  it('is refused, and the loop is not judged from it (no "SBR01 is S")', async () => {
    const found = await problems(edited((s) => (s.startsWith('SBR*') ? [s, 'SBR*S*18*GRP-1001******CI'] : s)));
    expect(found.map((p) => p.segment)).toEqual(['SBR']);
    expect(found[0]!.message).toMatch(/^a second SBR in the subscriber loop \(2000B\)/);
  });
});
