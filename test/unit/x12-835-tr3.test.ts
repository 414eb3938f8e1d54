// The TR3-level check of 835s (test/helpers/x12-835-tr3.ts) finds what the 005010X221A1 guide
// refuses, not only broken syntax: each rule is shown failing on an 835 changed in one place, so that
// a check that passes everything the suite writes is known to be able to fail.
import { describe, expect, it } from 'vitest';
import { npiValid, tr3Problems } from '../helpers/x12-835-tr3.js';

/** A whole 835 as the guide wants it: a payment of one claim of one line, with a fee. */
const GOOD = [
  'ISA*00*          *00*          *ZZ*PAYER-ACME     *ZZ*1234567893     *260304*1000*^*00501*000000042*0*P*:~',
  'GS*HP*PAYER-ACME*1234567893*20260304*1000*42*X*005010X221A1~',
  'ST*835*0001*005010X221A1~',
  'BPR*I*879.9*C*ACH*CCP*01*011000015*DA*12345*1990000001**01*021000021*DA*67890*20260303~',
  'TRN*1*tr_1*1990000001~',
  'DTM*405*20260302~',
  'N1*PR*Acme Health Plan~',
  'N3*100 Sandbox Way~',
  'N4*Springfield*IL*62701~',
  'REF*2U*PAYER-ACME~',
  'PER*BL*EDI Support*TE*8005550100~',
  'N1*PE*Riverside Surgery Center*XX*1234567893~',
  'LX*1~',
  'CLP*PAT1*1*2400*900*750*CI*enc_1*14*1~',
  'NM1*QC*1*Doe*Jane****MI*MBR-1001~',
  'DTM*050*20260302~',
  'SVC*HC:45380*2400*900*0305*1~',
  'DTM*472*20260302~',
  'CAS*CO*45*750~',
  'CAS*PR*1*500**2*225**3*25~',
  'REF*6R*A1~',
  'AMT*B6*1650~',
  'LQ*HE*N130~',
  'PLB*1234567893*20261231*CS:po_1*20.1~',
  'SE*23*0001~',
  'GE*1*42~',
  'IEA*1*000000042~',
].join('\n');

/** GOOD with one segment replaced (by its start), or removed (`null`). */
function changed(start: string, to: string | null): string {
  const lines = GOOD.split('\n');
  const i = lines.findIndex((l) => l.startsWith(start));
  if (i < 0) throw new Error(`no ${start}`);
  if (to === null) {
    lines.splice(i, 1);
    return lines.join('\n').replace('SE*23*0001~', 'SE*21*0001~');
  }
  lines[i] = to;
  return lines.join('\n');
}

describe('the TR3-level check of an 835', () => {
  it('passes an 835 the guide accepts, and knows an NPI by its check digit', () => {
    expect(tr3Problems(GOOD)).toEqual([]);
    expect([npiValid('1234567893'), npiValid('1234567890'), npiValid('123456789')]).toEqual([true, false, false]);
  });

  it.each([
    ['BPR*I', 'BPR*I*879.9*C*ACH*CCP~'.replace('~', '*******************~'), /BPR06 is required when BPR04 is ACH/],
    ['BPR*I', 'BPR*Z*879.9*C*ACH*CCP*01*011000015*DA*12345*1990000001**01*021000021*DA*67890*20260303~', /BPR01 is "Z"/],
    ['BPR*I', 'BPR*H*879.9*C*NON************20260303~', /BPR02 must be 0 with BPR01 H/],
    ['BPR*I', 'BPR*I*879.9*C*ACH*CCP*01*011000015*DA*12345*1990000002**01*021000021*DA*67890*20260303~', /BPR10 must be TRN03/],
    ['TRN*', 'TRN*2*tr_1*1990000001~', /TRN01 must be 1/],
    ['TRN*', 'TRN*1*tr_1*PAYER-ACME~', /TRN03 must be 1 and the payer's nine-digit EIN/],
    ['N3*', null, /payer's address \(loop 1000A\) \(N3\) is missing/],
    ['N4*', 'N4*Springfield*Illinois*627~', /N402 must be a state code[\s\S]*N403 must be a ZIP code/],
    ['PER*', null, /technical contact \(loop 1000A PER\*BL\) is missing/],
    ['REF*2U', 'REF*XX*PAYER-ACME~', /REF01 is "XX", not one of the guide's codes/],
    ['N1*PE', 'N1*PE*Riverside*XX*1234567890~', /N104 is not an NPI/],
    ['CLP*', 'CLP*PAT1*9*2400*900*750*CI*enc_1~', /CLP02 is "9"/],
    ['CLP*', 'CLP*PAT1*1*2400*900*750*XY*enc_1~', /CLP06 is "XY"/],
    ['CLP*', 'CLP*PAT1*1*2400*900*750*CI~', /CLP07 \(the payer's claim control number\) is required/],
    ['NM1*QC', null, /the patient \(NM1\*QC\) \(NM1\) is missing/],
    ['SVC*', 'SVC*ZZ:45380*2400*900*0305*1~', /SVC01 qualifier "ZZ"/],
    ['SVC*', 'SVC*HC:45380*2400*900*305*1~', /SVC04 is not a revenue code/],
    ['SVC*', 'SVC*NU:0305*2400*900*0305*1~', /SVC04 must be empty when SVC01 is a revenue code/],
    ['DTM*472', 'DTM*999*20260302~', /DTM01 is "999"/],
    ['DTM*472', 'DTM*472*20260231~', /DTM02 is not a date/],
    ['CAS*CO', 'CAS*XX*45*750~', /CAS01 is "XX"/],
    ['CAS*CO', 'CAS*CO*CARC-45*750~', /CAS02 is not a CARC/],
    ['REF*6R', 'REF*ZZ*A1~', /REF01 is "ZZ"/],
    ['LQ*', 'LQ*HE*remark~', /LQ02 is not a remark code/],
    ['PLB*', 'PLB*1234567893*20261231*Q1:po_1*20.1~', /reason "Q1" is not a PLB reason code/],
    ['SE*', 'SE*24*0001~', /SE01 is 24, the transaction has 23 segments/],
    ['AMT*B6', 'AMT*ZZ*1650~', /AMT01 is "ZZ"/],
  ])('finds %s changed to %s', (start, to, problem) => {
    const problems = tr3Problems(changed(start, to));
    expect(problems.join('\n')).toMatch(problem);
  });

  it("lets the writer's one known deviation through only when asked: no bank accounts with ACH", () => {
    const noBank = changed('BPR*I', 'BPR*I*879.9*C*ACH*CCP*****1990000001******20260303~');
    expect(tr3Problems(noBank)).toHaveLength(8);
    expect(tr3Problems(noBank, { allowMissingBankAccounts: true })).toEqual([]);
  });

  it('names a segment where the guide does not allow it', () => {
    expect(tr3Problems(changed('DTM*050', 'LX*1~')).join('\n')).toMatch(/header number LX\*1 has no claim|is not where the guide allows it/);
  });
});
