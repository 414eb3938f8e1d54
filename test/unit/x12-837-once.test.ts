// What a loop of an 837 holds once is read once (docs/x12-refusals.md "What is refused, and why", its "Said twice"): a second REF*F8, BHT,
// NM1*QC/DMG/PAT of a patient loop, claim DTP*434 is refused, never read as replacing the first; an
// HI qualifier the guides do not list, and a rendering provider before the CLM, are refused as well.
import { describe, expect, it } from 'vitest';
import { institutionalClaim, interchange, professionalClaim, convert, transaction } from '../helpers/x12.js';

const one = async (claims: string[][], type: 'professional' | 'institutional' = 'professional') =>
  convert(interchange([transaction({ st02: '0001', type, claims })], type === 'institutional' ? { gs08: '005010X223A2' } : {}));

/** A professional claim with `after` right after its CLM. */
const withAfterClm = (clm01: string, after: string[], frequency = '1') =>
  professionalClaim({ clm01 }).flatMap((s) => (s.startsWith('CLM*') ? [s.replace('11:B:1', `11:B:${frequency}`), ...after] : [s]));

/** A claim of MBR-1006's dependent, with the patient loop's segments as given. */
function dependentClaim(patient: string[]): string[] {
  const [, , il, pr, ...rest] = professionalClaim({ clm01: 'DEP1', member: 'MBR-1006' });
  return ['HL*2*1*22*1', 'SBR*P**GRP-1001******CI', il!, pr!, 'HL*3*2*23*0', ...patient, ...rest];
}

describe('837 segments a loop holds once', () => {
  it('a void with two REF*F8 naming two claims is refused naming both (never the last one voided); the same one twice is one', async () => {
    const [two, same] = await one([withAfterClm('VOID2', ['REF*F8*E1', 'REF*F8*E2'], '8'), withAfterClm('VOID1', ['REF*F8*E1', 'REF*F8*E1'], '8')]);
    expect(two!.problems).toEqual([
      {
        segment: 'REF*F8',
        message: 'a second REF*F8 names claim E2, but the first names E1: a replacement or void changes one claim, and which one is not for tpa to guess',
      },
    ]);
    expect(same!.problems).toEqual([]);
    expect((same!.claim as any).related[0].claim.identifier.value).toBe('E1');
  });

  it('a second NM1*QC, DMG or PAT in one patient loop is refused naming both; the same DMG twice is refused too', async () => {
    const base = ['PAT*19', 'NM1*QC*1*RIVERA*SOFIA*A', 'DMG*D8*20120618*F'];
    const [qc] = await one([dependentClaim([...base, 'NM1*QC*1*RIVERA*MATEO'])]);
    expect(qc!.problems).toEqual([
      {
        segment: 'NM1*QC',
        message:
          'a second NM1*QC in the patient loop (2000C) (NM1*QC*1*RIVERA*MATEO, but the first is NM1*QC*1*RIVERA*SOFIA*A): the loop has one, and tpa does not choose between them',
      },
    ]);
    const [dmg] = await one([dependentClaim([...base, 'DMG*D8*20150101*M'])]);
    expect(dmg!.problems).toEqual([
      {
        segment: 'DMG',
        message:
          'a second DMG in the patient loop (2000C) (DMG*D8*20150101*M, but the first is DMG*D8*20120618*F): the loop has one, and tpa does not choose between them',
      },
    ]);
    const [pat] = await one([dependentClaim([...base, 'PAT*01'])]);
    expect(pat!.problems).toEqual([
      {
        segment: 'PAT',
        message: 'a second PAT in the patient loop (2000C) (PAT*01, but the first is PAT*19): the loop has one, and tpa does not choose between them',
      },
    ]);
    const [again] = await one([dependentClaim([...base, 'DMG*D8*20120618*F'])]);
    expect(again!.problems).toEqual([
      { segment: 'DMG', message: 'a second DMG in the patient loop (2000C): the loop has one, and tpa does not choose between them' },
    ]);
    const [ok] = await one([dependentClaim(base)]);
    expect(ok!.problems).toEqual([]);
  });

  it('a second BHT in a transaction set refuses every claim of the set, naming BHT (RP then CH is not a claim for payment)', async () => {
    const body = transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'A1' }), professionalClaim({ clm01: 'A2' })] });
    const bht = body.findIndex((s) => s.startsWith('BHT*'));
    const rp = [...body];
    rp[bht] = 'BHT*0019*00*0123*20250115*1200*RP';
    // The second BHT after the first claim: the claim before it is refused as well.
    const firstClm = rp.findIndex((s) => s.startsWith('LX*'));
    rp.splice(firstClm, 0, 'BHT*0019*00*0123*20250115*1200*CH');
    rp[rp.length - 1] = `SE*${rp.length}*0001`;
    const claims = await convert(interchange([rp]));
    expect(claims).toHaveLength(2);
    for (const c of claims)
      expect(c.problems).toContainEqual({
        segment: 'BHT',
        message:
          'not sent: ST 0001: a second BHT in the transaction set: a transaction set has one beginning (BHT), which says what its claims are (BHT06); tpa does not choose between them',
      });
  });

  it('a second claim DTP*434 (statement period) is refused naming both; the same period twice is one', async () => {
    const withDates = (clm01: string, dates: string[]) => institutionalClaim({ clm01 }).flatMap((s) => (s.startsWith('DTP*434') ? dates : [s]));
    const [two, same] = await one(
      [
        withDates('I1', ['DTP*434*RD8*20250110-20250110', 'DTP*434*RD8*20250101-20250131']),
        withDates('I2', ['DTP*434*RD8*20250110-20250110', 'DTP*434*RD8*20250110-20250110']),
      ],
      'institutional',
    );
    expect(two!.problems).toEqual([
      {
        segment: 'DTP*434',
        message:
          'a second DTP*434 (2025-01-01 to 2025-01-31), but the first says 2025-01-10: the claim has one statement period, and which is not for tpa to guess',
      },
    ]);
    expect(same!.problems).toEqual([]);
  });

  it('an HI qualifier no code list of the guides has, or one in lower case, is refused naming its HI element', async () => {
    const [claim] = await one([professionalClaim({ clm01: 'H1', hi: 'HI*ABK:K635*abf:Z1212*XYZ:Z1213' })]);
    expect(claim!.problems.map((p) => p.segment)).toEqual(['HI #1, HI02-1', 'HI #1, HI03-1']);
    expect(claim!.problems[0]!.message).toMatch(
      /^HI02-1 "abf" is not a qualifier of the 837's HI code lists \(diagnoses ABK, ABF, .*what kind of code Z1212 is is not for tpa to guess$/,
    );
    const [lower] = await one([professionalClaim({ clm01: 'H2', hi: 'HI*abk:K635' })]);
    expect(lower!.problems.map((p) => p.segment)).toContain('HI #1, HI01-1');
    const [known] = await one([professionalClaim({ clm01: 'H3', hi: 'HI*ABK:K635*BG:09' })]);
    expect(known!.problems).toEqual([]);
  });

  it('a rendering provider (NM1*82) before the CLM, in the subscriber or billing provider loop, is refused saying where it belongs', async () => {
    const subscriber = professionalClaim({ clm01: 'R1' }).flatMap((s) => (s.startsWith('CLM*') ? ['NM1*82*1*SMITH*JO****XX*1245319599', s] : [s]));
    const [claim] = await one([subscriber]);
    expect(claim!.problems).toEqual([
      {
        segment: 'NM1*82',
        message:
          'a rendering provider (NM1*82, NPI 1245319599) in the subscriber loop (2000B), before the CLM: it belongs in the claim (loop 2310B, after CLM) or a service line (loop 2420A); the claim is not paid to the billing provider in its stead',
      },
    ]);
    const body = transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'R2' })] });
    body.splice(body.findIndex((s) => s.startsWith('NM1*85')) + 1, 0, 'NM1*82*1*SMITH*JO****XX*1245319599');
    body[body.length - 1] = `SE*${body.length}*0001`;
    const [billing] = await convert(interchange([body]));
    expect(billing!.problems.map((p) => p.segment)).toEqual(['NM1*82']);
    expect(billing!.problems[0]!.message).toMatch(
      /^a rendering provider \(NM1\*82, NPI 1245319599\) in the billing provider loop \(2000A\), before the CLM: it belongs in/,
    );
  });

  it("a replacement's or void's prior claim and status are mapped to REF*F8 and CLM, for the service's refusals", async () => {
    const [claim] = await one([withAfterClm('REP', ['REF*F8*E1'], '7')]);
    expect(claim!.segmentOf('related[0].claim.identifier.value')).toBe('REF*F8');
    expect(claim!.segmentOf('status')).toBe('CLM');
    const [original] = await one([professionalClaim({ clm01: 'ORIG' })]);
    expect(original!.segmentOf('related[0].claim.identifier.value')).toBeUndefined();
  });

  it('a CLM01 holding # or a space is never the place or identity of a repeated CLM01 (P1#2, "P1 #2" beside the second P1)', async () => {
    const claims = await one([
      professionalClaim({ clm01: 'P1' }),
      professionalClaim({ clm01: 'P1' }),
      professionalClaim({ clm01: 'P1#2' }),
      professionalClaim({ clm01: 'P1 #2' }),
    ]);
    expect(claims.map((c) => c.identity)).toEqual([
      'x12:SUBMITTER:000000001:1:0001:P1',
      'x12:SUBMITTER:000000001:1:0001:P1#2',
      'x12:SUBMITTER:000000001:1:0001:P1%232',
      'x12:SUBMITTER:000000001:1:0001:P1 %232',
    ]);
    expect(claims.map((c) => c.place)).toEqual(['ST 0001, CLM P1', 'ST 0001, CLM P1 #2', 'ST 0001, CLM "P1#2"', 'ST 0001, CLM "P1 #2"']);
  });

  it('two principal diagnoses are refused naming the second; so is ICD-10-PCS in an 837P', async () => {
    const [two] = await one([professionalClaim({ clm01: 'D1', hi: 'HI*ABK:K635*ABK:Z1211' })]);
    expect(two!.problems).toEqual([
      { segment: 'HI #1', message: 'HI02: a second principal diagnosis (ABK Z1211), but HI #1, HI01 is K63.5: a claim has one principal diagnosis' },
    ]);
    const [pcs] = await one([professionalClaim({ clm01: 'D2', hi: 'HI*ABK:K635*BBR:0DTJ4ZZ:D8:20250110' })]);
    expect(pcs!.problems.map((p) => p.message)).toEqual([
      'HI02: ICD-10-PCS procedure 0DTJ4ZZ (BBR) in an 837P: an inpatient procedure code is an 837I’s; an 837P’s procedures are its service lines',
    ]);
  });

  it('an occurrence without its date, a span ending before it starts, a value code without its amount or with a third decimal, a condition code with an amount: refused', async () => {
    const cases: [string, string][] = [
      ['HI*BH:11', 'HI01 (BH 11) has no date (HI01-3 D8 or RD8, HI01-4): an occurrence code carries its date'],
      ['HI*BI:70:RD8:20250110-20250101', 'HI01-4: the span 2025-01-10 to 2025-01-01 ends before it starts'],
      ['HI*BE:80', 'HI01 (BE 80) has no amount (HI01-5): a value code carries its amount'],
      ['HI*BE:80:::1.005', 'amount (HI01-5) "1.005" has more than two decimals: an amount is in dollars and cents'],
      ['HI*BG:09:::15', 'HI01-5 "15" (an amount) is not something tpa reads for a BG code: not kept, so the claim is not sent'],
    ];
    for (const [hi, message] of cases) {
      const claim = institutionalClaim({ clm01: 'V1' }).flatMap((s) => (s === 'HI*ABK:K635' ? [s, hi] : [s]));
      const [read] = await one([claim], 'institutional');
      expect(read!.problems, hi).toEqual([{ segment: 'HI #2', message }]);
    }
    const fine = institutionalClaim({ clm01: 'V2' }).flatMap((s) =>
      s === 'HI*ABK:K635' ? [s, 'HI*BH:11:D8:20250110*BI:70:RD8:20250101-20250110*BE:80:::1.25*BG:09'] : [s],
    );
    const [ok] = await one([fine], 'institutional');
    expect(ok!.problems).toEqual([]);
  });

  it('PAT01 18 (self) in a patient loop is refused: a patient loop names a dependent', async () => {
    const [self] = await one([dependentClaim(['PAT*18', 'NM1*QC*1*RIVERA*SOFIA*A', 'DMG*D8*20120618*F'])]);
    expect(self!.problems.map((p) => p.segment)).toEqual(['PAT']);
    expect(self!.problems[0]!.message).toMatch(/^PAT01 is 18 \(self\) in a patient loop \(2000C\)/);
  });

  it('a second claim REF*G1 (prior authorization) naming another is refused naming both; the same one again is one', async () => {
    const [two, same] = await one([withAfterClm('G1', ['REF*G1*AUTH-78']), withAfterClm('G2', ['REF*G1*AUTH-77'])]);
    expect(two!.problems).toEqual([
      {
        segment: 'REF*G1',
        message:
          'a second REF*G1 on the claim names authorization AUTH-77, but the first names AUTH-78: a claim has one prior authorization (a line may carry its own), and which is meant is not for tpa to guess',
      },
    ]);
    expect(same!.problems).toEqual([]);
    expect((same!.claim as any).insurance[0].preAuthRef).toEqual(['AUTH-77']);
  });
});
