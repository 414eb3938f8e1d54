// The acknowledgment writers (src/domain/x12-ack.ts): a 999 per functional group, a 277CA per claim,
// a TA1 per interchange that needs one, each re-read by node-x12 (test/helpers/x12-ack-check.ts), and
// the places of an 837 reader's problems as IK3/IK4 (cli/commands/claim/acks.ts segmentError).
import { describe, expect, it } from 'vitest';
import { nextLoop, segmentError, withoutPaths } from '../../src/cli/commands/claim/acks.js';
import {
  type AckClaim,
  type AckInterchange,
  type AckTransactionSet,
  ack277Json,
  ack999Json,
  byUsage,
  inError,
  type ReceivedFile,
  write277ca,
  write999,
  writeTa1,
} from '../../src/domain/x12-ack.js';
import { readAck } from '../helpers/x12-ack-check.js';

const env = { controlNumber: 41, createdAt: '2026-06-30T12:34:56Z', usage: 'P' as const };

const claim = (clm01: string, verdict: AckClaim['verdict'], chargeCents = 180000): AckClaim => ({
  clm01,
  chargeCents,
  billing: { npi: '1234567893', name: 'RIVERSIDE SURGERY CENTER' },
  patient: { memberId: 'MBR-1001', name: 'Jane Doe' },
  service: { start: '2026-06-01', end: '2026-06-03' },
  verdict,
});

const set = (control: string, claims: AckClaim[], more: Partial<AckTransactionSet> = {}): AckTransactionSet => ({
  id: '837',
  control,
  version: '005010X222A1',
  bht03: `REF-${control}`,
  problems: [],
  segmentErrors: [],
  claims,
  ...more,
});

const isa = (more: Partial<AckInterchange> = {}): AckInterchange => ({
  senderQualifier: 'ZZ',
  sender: 'SUBMITTER',
  receiverQualifier: '30',
  receiver: 'RECEIVER',
  date: '250115',
  time: '1200',
  control: '000000007',
  ackRequested: false,
  usage: 'P',
  problems: [],
  groups: [],
  ...more,
});

describe('999', () => {
  it('one ST per functional group, AK1/AK2 echoing GS06 and ST02, IK3/IK4 with the element component, AK9 partly accepted', () => {
    const bad = set('0002', [claim('B1', { status: 'rejected', reasons: [{ message: 'no' }] })], {
      segmentErrors: [{ segment: 'CLM', position: 14, loop: '2300', code: '8', element: { position: 5, component: 3, code: '7' }, message: 'CLM05-3 is 7' }],
    });
    const file: ReceivedFile = {
      interchanges: [
        isa({
          groups: [
            {
              functionalId: 'HC',
              sender: 'S',
              receiver: 'R',
              control: '11',
              version: '005010X222A1',
              problems: [],
              sets: [set('0001', [claim('A1', { status: 'accepted', encounterId: 'enc_1', reasons: [] })]), bad],
            },
            {
              functionalId: 'HC',
              sender: 'S',
              receiver: 'R',
              control: '12',
              version: '005010X222A1',
              problems: [],
              sets: [set('0001', [claim('C1', { status: 'accepted', encounterId: 'enc_2', reasons: [] })])],
            },
          ],
        }),
      ],
    };
    const read = readAck(write999(file, env), '005010X231A1');
    expect(read.isa[6]!.trim()).toBe('RECEIVER');
    expect(read.isa[5]).toBe('30');
    expect(read.isa[8]!.trim()).toBe('SUBMITTER');
    expect(read.gs!.slice(1, 4)).toEqual(['FA', 'RECEIVER', 'SUBMITTER']);
    expect(read.sets).toHaveLength(2);
    const [first, second] = read.sets as [string[][], string[][]];
    expect(first.filter((s) => s[0] === 'AK1' || s[0] === 'AK2' || s[0] === 'IK3' || s[0] === 'IK4' || s[0] === 'IK5' || s[0] === 'AK9')).toEqual([
      ['AK1', 'HC', '11', '005010X222A1'],
      ['AK2', '837', '0001', '005010X222A1'],
      ['IK5', 'A'],
      ['AK2', '837', '0002', '005010X222A1'],
      ['IK3', 'CLM', '14', '2300', '8'],
      ['IK4', '5:3', '', '7'],
      ['IK5', 'R', 'I5'],
      ['AK9', 'P', '2', '2', '1'],
    ]);
    expect(second.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'A', '1', '1', '1']);
    const json = ack999Json(file, env) as { acknowledgments: { status: string; transaction_sets: { status: string }[] }[] };
    expect(json.acknowledgments.map((a) => [a.status, a.transaction_sets.map((t) => t.status)])).toEqual([
      ['P', ['A', 'R']],
      ['A', ['A']],
    ]);
  });

  it("a set whose envelope is wrong is rejected with its IK502, and the group's own problem is its AK905", () => {
    const file: ReceivedFile = {
      interchanges: [
        isa({
          groups: [
            {
              functionalId: 'HC',
              sender: 'S',
              receiver: 'R',
              control: '1',
              version: '005010X222A1',
              problems: [{ code: '5', message: 'GE01 says 3' }],
              sets: [set('0001', [claim('A1', { status: 'rejected', reasons: [] })], { problems: [{ code: '4', message: 'SE01 says 99' }] })],
            },
          ],
        }),
      ],
    };
    const s = readAck(write999(file, env)).sets[0]!;
    expect(s.find((x) => x[0] === 'IK5')).toEqual(['IK5', 'R', '4']);
    expect(s.find((x) => x[0] === 'AK9')).toEqual(['AK9', 'R', '1', '1', '0', '5']);
  });
});

describe('277CA', () => {
  it('accepted claims carry the encounter id (REF*1K); a rejection its reasons, whose delimiters cannot break the file', () => {
    const hostile = 'member "X~IEA*1*000000001~ISA*00" is unknown: * : ^';
    const file: ReceivedFile = {
      interchanges: [
        isa({
          groups: [
            {
              functionalId: 'HC',
              sender: 'S',
              receiver: 'R',
              control: '1',
              version: '005010X222A1',
              problems: [],
              sets: [
                set('0001', [
                  claim('A1', { status: 'accepted', encounterId: 'enc_01a2', reasons: [] }, 150070),
                  claim('A2', { status: 'rejected', reasons: [{ message: hostile, entity: 'IL' }] }),
                  claim('A3', { status: 'received', reasons: [] }),
                ]),
              ],
            },
          ],
        }),
      ],
    };
    const text = write277ca(file, env);
    const s = readAck(text, '005010X214').sets[0]!;
    expect(text.match(/^ISA/gm)).toHaveLength(1);
    expect(s.filter((x) => x[0] === 'TRN').map((x) => x.slice(1))).toEqual([
      ['1', '00000000710001'],
      ['2', 'REF-0001'],
      ['1', '1234567893'],
      ['2', 'A1'],
      ['2', 'A2'],
      ['2', 'A3'],
    ]);
    const stc = s.filter((x) => x[0] === 'STC');
    expect(stc.map((x) => [x[1], x[3], x[4]])).toEqual([
      ['A1:19:PR', 'WQ', '5100.7'],
      ['A2:20:PR', 'WQ', '1500.7'],
      ['A7:21:IL', 'U', '1800'],
      ['A1:19:PR', 'WQ', '1800'],
    ]);
    expect(stc[2]![12]).toBe('member "X IEA 1 000000001 ISA 00" is unknown');
    expect(s.filter((x) => x[0] === 'REF')).toEqual([['REF', '1K', 'enc_01a2']]);
    expect(s.filter((x) => x[0] === 'DTP' && x[1] === '472')[0]).toEqual(['DTP', '472', 'RD8', '20260601-20260603']);
    expect(s.filter((x) => x[0] === 'QTY').slice(0, 2)).toEqual([
      ['QTY', '90', '2'],
      ['QTY', 'AA', '1'],
    ]);
    const json = ack277Json(file, env) as { transactions: { claims: { status: string; reasons: { message: string }[] }[] }[] };
    expect(json.transactions[0]!.claims[1]!.reasons[0]!.message).toBe(hostile);
  });
});

describe('TA1 and usage', () => {
  it('a TA1 for an interchange whose envelope is wrong (R) or that asked for one (A); none otherwise; T when any interchange is test data', () => {
    const file: ReceivedFile = {
      interchanges: [
        isa({ control: '000000001', problems: [{ code: '001', message: 'IEA02 is not ISA13' }] }),
        isa({ control: '000000002', ackRequested: true, usage: 'T' }),
      ],
    };
    const read = readAck(writeTa1(file, env)!);
    expect(read.loose).toEqual([
      ['TA1', '000000001', '250115', '1200', 'R', '001'],
      ['TA1', '000000002', '250115', '1200', 'A', '000'],
    ]);
    expect(writeTa1({ interchanges: [isa()] }, env)).toBeUndefined();
    // One acknowledgment interchange per usage: the production interchange's apart from the test one's.
    expect(byUsage(file).map((p) => [p.usage, p.file.interchanges.map((i) => i.control)])).toEqual([
      ['P', ['000000001']],
      ['T', ['000000002']],
    ]);
    expect(byUsage({ interchanges: [isa()] }).map((p) => p.usage)).toEqual(['P']);
    expect(readAck(writeTa1(file, { ...env, usage: 'T' })!).isa[15]).toBe('T');
  });
});

describe('the place of a problem', () => {
  const places = {
    clm: 10,
    header: { 'NM1*85': 4, 'NM1*IL': 8 },
    segments: [
      ['CLM', 10],
      ['HI', 11],
      ['LX', 12],
      ['SV1', 13],
      ['DTP*472', 14],
      ['LX', 15],
      ['SV1', 16],
      ['DTP*472', 17],
    ] as [string, number][],
  };
  it('a line segment by its line, a header segment by its loop, a segment the claim lacks at its CLM', () => {
    expect(segmentError(places, 'SV1 #2, DTP*472', 'DTP03 "2025011" is not a date (CCYYMMDD)')).toEqual({
      segment: 'DTP',
      position: 17,
      loop: '2400',
      code: '8',
      element: { position: 3, code: '8' },
      message: 'DTP03 "2025011" is not a date (CCYYMMDD)',
    });
    expect(segmentError(places, 'SV1 #1', 'SV107-2, diagnosis pointer 5, names no diagnosis')).toMatchObject({
      segment: 'SV1',
      position: 13,
      element: { position: 7, component: 2 },
    });
    expect(segmentError(places, 'NM1*85', 'billing provider (NM1*85): has no NPI')).toMatchObject({ segment: 'NM1', position: 4, loop: '2010AA', code: 'I9' });
    expect(segmentError(places, 'NM1*PR', 'the payer (NM1*PR): no')).toMatchObject({ segment: 'NM1', position: 10, code: '3' });
    expect(segmentError(places, 'ISA15', 'ISA15 is "X"')).toBeUndefined();
    expect(segmentError(places, '', 'not sent: ST 0001: SE01 says 3')).toBeUndefined();
  });

  it('an HI refusal (`HI #n, HI0x-y`) is placed at that HI segment of the claim, not at a service line', () => {
    const twoHi = {
      ...places,
      segments: [
        ['CLM', 10],
        ['HI', 11],
        ['HI', 12],
        ['LX', 13],
        ['SV1', 14],
      ] as [string, number][],
    };
    expect(segmentError(twoHi, 'HI #2, HI02-1', 'HI02-1 "abf" is no qualifier of the guides')).toMatchObject({ segment: 'HI', position: 12, loop: '2300' });
    expect(segmentError(twoHi, 'HI #1', 'HI13 (a 13th code)')).toMatchObject({ segment: 'HI', position: 11, loop: '2300' });
  });

  it('IK403 1 (missing) only for an element the words say is missing; present but wrong is 7, not a date 8', () => {
    const code = (segment: string, message: string) => segmentError(places, segment, message)?.element?.code;
    expect(code('SV1 #1', 'SV107-1, diagnosis pointer 3, names no diagnosis: the claim has 1 that a line can point to (HI)')).toBe('7');
    expect(code('NM1*IL', 'the subscriber (NM1*IL) has no member id (NM109; NM108 "MI")')).toBe('1');
    expect(code('NM1*IL', 'DMG02 is missing')).toBeUndefined();
    expect(code('CLM', 'CLM05-3 is 7 (a replacement of an earlier claim) with no REF*F8: the payer’s claim control number is required')).toBe('7');
    expect(code('CLM', 'CLM05-3 is missing')).toBe('1');
    expect(code('SV1 #2, DTP*472', 'DTP03 "2025011" is not a date (CCYYMMDD)')).toBe('8');
  });
});

describe('the loops of the guide and one IK3 per segment', () => {
  const loops = (segments: string[], institutional: boolean) => {
    let loop = '';
    return segments.map((s) => {
      const e = s.split('*');
      loop = nextLoop(loop, e[0]!, e[1] ?? '', e[3] ?? '', institutional);
      return loop;
    });
  };
  it('each segment in the loop an HL, SBR, CLM, LX or NM1 begins: 837P and 837I name their provider loops apart', () => {
    const head = ['BHT*0019', 'NM1*41', 'HL*1**20*1', 'NM1*85', 'N3', 'HL*2*1*22*1', 'SBR*P', 'NM1*IL', 'NM1*PR', 'HL*3*2*23*0', 'PAT*19', 'NM1*QC', 'DMG*D8'];
    expect(loops(head, false)).toEqual(['', '1000A', '2000A', '2010AA', '2010AA', '2000B', '2000B', '2010BA', '2010BB', '2000C', '2000C', '2010CA', '2010CA']);
    const claim = ['CLM*X', 'HI*ABK:K635', 'NM1*82', 'PRV*PE', 'SBR*S', 'NM1*IL', 'NM1*PR', 'LX*1', 'SV1*HC:1', 'DTP*472', 'NM1*82', 'LX*2', 'NM1*DK'];
    expect(loops(claim, false)).toEqual(['2300', '2300', '2310B', '2310B', '2320', '2330A', '2330B', '2400', '2400', '2400', '2420A', '2400', '2420E']);
    expect(loops(['CLM*X', 'NM1*71', 'NM1*82', 'LX*1', 'SV2*0450', 'NM1*82'], true)).toEqual(['2300', '2310A', '2310D', '2400', '2400', '2420C']);
  });

  it('"a second" places at the second only where the segment is there twice: in the header, within its HL', () => {
    const places = { clm: 10, header: { 'NM1*IL': 8 }, segments: [['CLM', 10]] as [string, number][] };
    const second = 'a second NM1*IL in the subscriber loop (2000B): the loop has one';
    expect(segmentError({ ...places, twice: { 'NM1*IL': true } }, 'NM1*IL', second)).toMatchObject({ position: 8, code: '4' });
    expect(segmentError({ ...places, twice: {} }, 'NM1*IL', second)).toMatchObject({ position: 8, code: 'I9' });
  });

  it('two problems of one segment are one IK3 (8) with an IK4 each, the same IK4 once', () => {
    const e = (element: { position: number; component?: number; code: string } | undefined, message: string) => ({
      segment: 'HI',
      position: 12,
      loop: '2300',
      code: element ? '8' : 'I9',
      ...(element ? { element } : {}),
      message,
    });
    expect(
      inError([
        e({ position: 1, component: 3, code: '7' }, 'a'),
        e(undefined, 'b'),
        e({ position: 1, component: 4, code: '7' }, 'c'),
        e({ position: 1, component: 4, code: '7' }, 'd'),
      ]),
    ).toEqual([
      {
        segment: 'HI',
        position: 12,
        loop: '2300',
        code: '8',
        message: 'a',
        elements: [
          { position: 1, component: 3, code: '7' },
          { position: 1, component: 4, code: '7' },
        ],
      },
    ]);
  });
});

describe('the words of a rejection', () => {
  it('name no path of this machine: the claim by its place in its interchange', () => {
    const said = 'the same interchange, group, transaction set and CLM01 as /tmp/w3/dup/a.837: ST 0001, CLM X (x12:S:000000031:1:0001:X): not sent';
    expect(withoutPaths(said, ['/tmp/w3/dup/a.837', '/tmp/w3/dup/b.837'])).toBe(
      'the same interchange, group, transaction set and CLM01 as ST 0001, CLM X (x12:S:000000031:1:0001:X): not sent',
    );
    // A path it was not told of is taken out all the same; a URL and a date range are not paths.
    expect(withoutPaths('as /home/someone/claims/x.837: ST 0001, CLM Y', [])).toBe('as ST 0001, CLM Y');
    expect(withoutPaths('read C:\\claims\\x.837 and ./in/y.837', [])).toBe('read a file and a file');
    expect(withoutPaths('see http://terminology.hl7.org/CodeSystem/x, 20250101-20250131, 1/2', [])).toBe(
      'see http://terminology.hl7.org/CodeSystem/x, 20250101-20250131, 1/2',
    );
  });
});
