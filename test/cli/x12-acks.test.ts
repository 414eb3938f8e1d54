// Acknowledgments back to an 837's sender (docs/x12-refusals.md "Acknowledgments"): `claim submit --ack` and
// `claim validate --ack` write a TA1 (an envelope that cannot be read), a 999 per functional group
// and a 277CA per claim, in X12 and JSON, each re-read here by node-x12 (test/helpers/x12-ack-check.ts).
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { IG_EXAMPLES, igX12Mapped } from '../helpers/ig-examples.js';
import { type Delimiters, institutionalClaim, interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { login, serve } from '../helpers/server.js';
import { readAck, readAcks } from '../helpers/x12-ack-check.js';

type Row = Record<string, any>;
const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeEach, afterEach, env);
const run = home.run;

/** Valid claims, an unknown member (the engine refuses it), a line date that is no date (the reader refuses it) and a duplicate CLM01 identity. */
const mixed = () =>
  interchange(
    [
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({ clm01: 'P1' }),
          professionalClaim({ clm01: 'P2', member: 'MBR-9999' }),
          professionalClaim({ clm01: 'P3', lines: [{ cpt: '45378', charge: '1800', date: '2025011' }] }),
          professionalClaim({ clm01: 'P4', member: 'MBR-1003', lines: [{ cpt: '43235', charge: '1500', date: '20250111' }] }),
        ],
      }),
    ],
    { isa13: '000000042', gs06: '77' },
  );

const write = (name: string, text: string) => {
  writeFileSync(join(home.dir, name), text);
  return join(home.dir, name);
};
const read = (name: string) => readFileSync(join(home.dir, name), 'utf8');
const acksDir = () => {
  const dir = join(home.dir, 'acks');
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe('claim submit --ack', () => {
  it('writes a 999 and a 277CA of an 837 with valid, invalid and refused claims, each re-read by node-x12, X12 and JSON alike', async () => {
    const path = write('claims.837', mixed());
    const dir = acksDir();
    const r = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['claims.837.277ca', 'claims.837.277ca.json', 'claims.837.999', 'claims.837.999.json']);
    for (const f of readdirSync(dir)) expect(lstatSync(join(dir, f)).mode & 0o777).toBe(0o600);
    const ack999 = readAck(read('acks/claims.837.999'), '005010X231A1');
    expect(ack999.sets).toHaveLength(1);
    const s999 = ack999.sets[0]!;
    // AK1 and AK2 echo the 837's GS06 and ST02.
    expect(s999.find((s) => s[0] === 'AK1')).toEqual(['AK1', 'HC', '77', '005010X222A1']);
    expect(s999.find((s) => s[0] === 'AK2')).toEqual(['AK2', '837', '0001', '005010X222A1']);
    // The bad line date: IK3 names the DTP, its position in the set and loop 2400; IK4 DTP03, an invalid date.
    const ik3 = s999.find((s) => s[0] === 'IK3')!;
    const lines = mixed().split('~\n');
    const st = lines.findIndex((l) => l.startsWith('ST*'));
    const dtp = lines.indexOf('DTP*472*D8*2025011');
    expect(ik3).toEqual(['IK3', 'DTP', String(dtp - st + 1), '2400', '8']);
    expect(s999[s999.indexOf(ik3) + 1]).toEqual(['IK4', '3', '', '8']);
    expect(s999.find((s) => s[0] === 'IK5')).toEqual(['IK5', 'E', 'I5']);
    expect(s999.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'A', '1', '1', '1']);
    // The 999's own ISA13 and the 277CA's differ (the data directory's counter).
    const ack277 = readAck(read('acks/claims.837.277ca'), '005010X214');
    expect(ack277.isa[13]).not.toBe(ack999.isa[13]);
    const set = ack277.sets[0]!;
    // The payer the claims name (NM1*PR) is the 277CA's 2100A.
    expect(set.find((s) => s[0] === 'NM1' && s[1] === 'PR')).toEqual(['NM1', 'PR', '2', 'ACME HEALTH PLAN', '', '', '', '', 'PI', 'PAYER-ACME']);
    // The 837's BHT03 comes back as the information receiver's trace (TRN*2 of 2200B).
    expect(set.filter((s) => s[0] === 'TRN' && s[1] === '2').map((s) => s[2])).toEqual(['0123', 'P1', 'P2', 'P3', 'P4']);
    const stc = set.filter((s) => s[0] === 'STC').slice(1);
    expect(stc.map((s) => s[1])).toEqual(['A2:20:PR', 'A7:21:IL', 'A7:21:85', 'A2:20:PR']);
    expect(stc[1]![12]).toMatch(/MBR-9999/);
    const refs = set.filter((s) => s[0] === 'REF' && s[1] === '1K').map((s) => s[2]);
    const sent = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(refs).toEqual(sent.filter((o) => o.status === 'ACKNOWLEDGED').map((o) => o.external_claim_id));
    expect(refs).toHaveLength(2);
    expect(set.filter((s) => s[0] === 'QTY').slice(0, 2)).toEqual([
      ['QTY', '90', '2'],
      ['QTY', 'AA', '2'],
    ]);
    // The JSON form says the same.
    const json = JSON.parse(read('acks/claims.837.277ca.json')) as Row;
    expect(Number(json.interchange_control_number)).toBe(Number(ack277.isa[13]));
    expect(json.transactions[0].claims.map((c: Row) => [c.patient_control_number, c.category, c.payer_claim_control_number])).toEqual([
      ['P1', 'A2', refs[0]],
      ['P2', 'A7', null],
      ['P3', 'A7', null],
      ['P4', 'A2', refs[1]],
    ]);
    const j999 = JSON.parse(read('acks/claims.837.999.json')) as Row;
    expect(j999.acknowledgments[0].transaction_sets[0].segment_errors[0]).toMatchObject({ segment: 'DTP', position: dtp - st + 1, loop: '2400', code: '8' });
  });

  it('a generated 837 of two transaction sets, 60 claims sent 10 at a time: each claim of the 277CA has its own outcome, in the file’s order', async () => {
    const claims = (from: number) =>
      Array.from({ length: 30 }, (_, k) => {
        const n = from + k;
        return professionalClaim({
          clm01: n % 13 === 0 ? `G${n - 1}` : `G${n}`,
          member: n % 7 === 0 ? 'MBR-9999' : n % 2 === 0 ? 'MBR-1003' : 'MBR-1001',
          lines: [
            {
              cpt: n % 2 === 0 ? '43235' : '45378',
              charge: String(100 + n),
              date: n % 11 === 0 ? '2025011' : `202501${String(1 + (n % 28)).padStart(2, '0')}`,
            },
          ],
        });
      });
    const text = interchange([
      transaction({ st02: '0001', type: 'professional', claims: claims(1) }),
      transaction({ st02: '0002', type: 'professional', claims: claims(31) }),
    ]);
    const path = write('many.837', text);
    const dir = acksDir();
    const r = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    const outcomes = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(outcomes).toHaveLength(60);
    const ack = readAck(read('acks/many.837.277ca'), '005010X214');
    expect(ack.sets).toHaveLength(2);
    const acked = ack.sets.flatMap((set) => {
      const out: { clm01: string; category: string; ref: string | null }[] = [];
      // Each claim is a patient loop (HL…PT), then its TRN*2 (CLM01), STC and REF*1K.
      for (const s of set) {
        if (s[0] === 'HL' && s[3] === 'PT') out.push({ clm01: '', category: '', ref: null });
        const claim = out.at(-1);
        if (!claim) continue;
        if (s[0] === 'TRN' && s[1] === '2') claim.clm01 = s[2]!;
        if (s[0] === 'STC') claim.category = s[1]!.slice(0, 2);
        if (s[0] === 'REF' && s[1] === '1K') claim.ref = s[2]!;
      }
      return out;
    });
    expect(acked).toHaveLength(60);
    // Every acknowledged encounter id is in the 277CA once, on a claim accepted; the others are rejected.
    const sent = outcomes.filter((o) => o.status === 'ACKNOWLEDGED').map((o) => o.external_claim_id as string);
    expect(
      acked
        .filter((a) => a.category === 'A2')
        .map((a) => a.ref)
        .sort(),
    ).toEqual([...sent].sort());
    expect(acked.filter((a) => a.category === 'A7')).toHaveLength(60 - sent.length);
    // Each claim's own outcome: the claim of each source, in the file's order.
    for (const a of acked.filter((x) => x.ref !== null)) {
      const o = outcomes.find((x) => x.external_claim_id === a.ref)!;
      expect(o.source).toMatch(new RegExp(`CLM ${a.clm01}( #\\d+)?$`));
    }
    const a999 = readAck(read('acks/many.837.999'), '005010X231A1');
    expect(a999.sets[0]!.filter((s) => s[0] === 'IK5')).toEqual([
      ['IK5', 'E', 'I5'],
      ['IK5', 'E', 'I5'],
    ]);
  });

  it('--ack - prints the acknowledgments on stdout (X12), the counts on stderr', async () => {
    const path = write('one.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]));
    const r = await run(['claim', 'submit', path, '--ack', '-']);
    expect(r.code, r.stderr).toBe(0);
    const parts = r.stdout.split(/(?=ISA\*)/);
    expect(parts).toHaveLength(2);
    expect(readAck(parts[0]!, '005010X231A1').sets[0]!.find((s) => s[0] === 'IK5')).toEqual(['IK5', 'A']);
    expect(readAck(parts[1]!, '005010X214').sets[0]!.find((s) => s[0] === 'REF')![1]).toBe('1K');
  });

  it('--ack - with -o json prints their JSON forms; a file of JSON claims gets none, said', async () => {
    const path = write('one.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]));
    const r = await run(['claim', 'validate', path, '--ack', '-', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const acks = JSON.parse(r.stdout) as Row[];
    expect(acks.map((a) => a.kind)).toEqual(['999', '277CA']);
    expect(acks[1]!.transactions[0].claims[0]).toMatchObject({
      patient_control_number: 'ONE',
      status: 'received',
      category: 'A1',
      payer_claim_control_number: null,
    });
    const template = await run(['claim', 'template']);
    const json = write('claim.json', template.stdout);
    const none = await run(['claim', 'validate', json, '--ack', acksDir(), '-o', 'json']);
    expect(none.stderr).toMatch(/--ack: no X12 837 among the claims read/);
    expect(readdirSync(join(home.dir, 'acks'))).toEqual([]);
  });

  it('an interchange whose IEA02 is not its ISA13 gets a TA1 (R, 001), and its claims are rejected', async () => {
    const text = interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })], {
      isa13: '000000005',
    }).replace('IEA*1*000000005', 'IEA*1*000000006');
    const dir = acksDir();
    const r = await run(['claim', 'submit', write('iea.837', text), '--ack', dir, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    expect(readAck(read('acks/iea.837.ta1')).loose).toEqual([['TA1', '000000005', '250115', '1200', 'R', '001']]);
    const set = readAck(read('acks/iea.837.277ca')).sets[0]!;
    // Never read as a claim: returned as unprocessable (A3), the envelope's fault in STC12.
    const stc = set.filter((s) => s[0] === 'STC').at(-1)!;
    expect(stc[1]).toBe('A3:21:85');
    expect(stc[12]).toMatch(/IEA02 "000000006" is not the ISA13 control number "000000005"/);
  });

  it('--ack names a folder; a file or two 837s with - are refused (exit 2), nothing sent', async () => {
    const path = write('one.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]));
    const notDir = await run(['claim', 'submit', path, '--ack', path]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toMatch(/not a folder/);
    const two = await run(['claim', 'submit', path, path, '--ack', '-']);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/exactly one 837/);
    const ledger = await run(['ledger', 'list', '-o', 'json']);
    expect(ledger.json<Row>().count).toBe(0);
  });

  it('an ack file that is a symlink is replaced, never written through', async () => {
    const path = write('one.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]));
    const dir = acksDir();
    const victim = write('victim.txt', 'keep me');
    symlinkSync(victim, join(dir, 'one.837.999'));
    const r = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(read('victim.txt')).toBe('keep me');
    expect(lstatSync(join(dir, 'one.837.999')).isSymbolicLink()).toBe(false);
    readAck(read('acks/one.837.999'));
  });
});

describe('claim validate --ack', () => {
  it('a valid claim is received (A1:19) without a claim control number; nothing is sent', async () => {
    const path = write('claims.837', mixed());
    const dir = acksDir();
    const r = await run(['claim', 'validate', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(2);
    const set = readAck(read('acks/claims.837.277ca'), '005010X214').sets[0]!;
    expect(
      set
        .filter((s) => s[0] === 'STC')
        .slice(1)
        .map((s) => s[1]),
    ).toEqual(['A1:19:PR', 'A7:21:IL', 'A7:21:85', 'A1:19:PR']);
    expect(set.some((s) => s[0] === 'REF' && s[1] === '1K')).toBe(false);
    // The 999 says the 837's syntax as claim submit's does: the bad date, not the member the plan lacks.
    const a999 = readAck(read('acks/claims.837.999')).sets[0]!;
    expect(a999.filter((s) => s[0] === 'IK3').map((s) => s[1])).toEqual(['DTP']);
    const ledger = await run(['ledger', 'list', '-o', 'json']);
    expect(ledger.json<Row>().count).toBe(0);
  });

  it('an envelope that does not count right: the 999 rejects the set (IK5 R 4), a file that is no interchange gets a TA1 (R 024)', async () => {
    const text = interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]).replace(
      /SE\*\d+\*0001/,
      'SE*99*0001',
    );
    const dir = acksDir();
    const r = await run(['claim', 'validate', write('bad-se.837', text), '--ack', dir, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    const set = readAck(read('acks/bad-se.837.999')).sets[0]!;
    expect(set.find((s) => s[0] === 'IK5')).toEqual(['IK5', 'R', '4']);
    expect(set.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'R', '1', '1', '0']);
    const broken = await run(['claim', 'validate', write('broken.837', `ISA*00*short~`), '--ack', dir, '-o', 'ndjson']);
    expect(broken.code).toBe(2);
    const ta1 = readAck(read('acks/broken.837.ta1'));
    expect(ta1.loose).toEqual([['TA1', '000000000', '000000', '0000', 'R', '024']]);
    expect(readdirSync(dir).filter((f) => f.startsWith('broken'))).toEqual(['broken.837.ta1', 'broken.837.ta1.json']);
  });

  it('the public examples: a 999 accepting the set and a 277CA per claim, re-read by node-x12', async () => {
    const dir = acksDir();
    for (const example of IG_EXAMPLES) {
      const path = write(example.x12, igX12Mapped(example));
      const r = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      const a999 = readAck(read(`acks/${example.x12}.999`), '005010X231A1');
      expect(a999.sets[0]!.find((s) => s[0] === 'AK9')![1]).toBe('A');
      const set = readAck(read(`acks/${example.x12}.277ca`), '005010X214').sets[0]!;
      expect(set.filter((s) => s[0] === 'TRN' && s[1] === '2').at(-1)![2]).toBe(example.clm01);
      expect(set.filter((s) => s[0] === 'STC').at(-1)![1]).toBe('A2:20:PR');
    }
  });
});

/** The one claim of a transaction set: a dependent (loop 2000C, HL 3) of MBR-1006, the engine's Sofia Rivera; no member id of her own. */
const dependentClaim = (clm01: string, name: [string, string, string] = ['RIVERA', 'SOFIA', '']) => {
  const [, , , pr, ...rest] = professionalClaim({ clm01 });
  return [
    'HL*2*1*22*1',
    'SBR*P**GRP-1001******CI',
    'NM1*IL*1*RIVERA*DANIEL****MI*MBR-1006',
    pr!,
    'HL*3*2*23*0',
    'PAT*19',
    `NM1*QC*1*${name[0]}*${name[1]}${name[2] ? `*${name[2]}` : ''}`,
    'DMG*D8*20120618*F',
    ...rest,
  ];
};
const one = (clm01: string, o: { isa13?: string; claims?: string[][] } = {}) =>
  interchange([transaction({ st02: '0001', type: 'professional', claims: o.claims ?? [professionalClaim({ clm01 })] })], { isa13: o.isa13 ?? '000000001' });
/** The 277CA's claims: each patient loop's NM1*QC, TRN*2 and STC. */
const patients = (set: string[][]) => {
  const out: { nm1: string[]; clm01: string; stc: string[] }[] = [];
  for (const s of set) {
    if (s[0] === 'HL' && s[3] === 'PT') out.push({ nm1: [], clm01: '', stc: [] });
    const p = out.at(-1);
    if (!p) continue;
    if (s[0] === 'NM1' && s[1] === 'QC') p.nm1 = s;
    if (s[0] === 'TRN' && s[1] === '2') p.clm01 = s[2]!;
    if (s[0] === 'STC') p.stc = s;
  }
  return out;
};

describe('acknowledgments say only what is known', () => {
  it('a claim whose answer was lost is not rejected: it is left out of the 277CA, said on stderr, and acknowledged (A2) by the run that settles it', async () => {
    const path = write('lost.837', one('', { claims: [professionalClaim({ clm01: 'LOST1' }), professionalClaim({ clm01: 'LOST2' })] }));
    const dir = acksDir();
    const lost = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson'], { TPA_FAULT: 'lose-response:/claims/submit' });
    expect(lost.code).not.toBe(0);
    // The service has the first claim (the ledger shows it), though its answer never came.
    const ledger = await run(['ledger', 'list', '-o', 'json']);
    expect(ledger.json<Row>().count).toBeGreaterThan(0);
    expect(lost.stderr).toMatch(/LOST1.* not in the 277CA: .*answer is not known.*run the same command again/);
    // Nothing known to say of any claim: no 277CA at all; the 999 (the file's syntax) is written.
    expect(readdirSync(dir).sort()).toEqual(['lost.837.999', 'lost.837.999.json']);
    const again = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    const set = readAck(read('acks/lost.837.277ca'), '005010X214').sets[0]!;
    expect(patients(set).map((p) => [p.clm01, p.stc[1]])).toEqual([
      ['LOST1', 'A2:20:PR'],
      ['LOST2', 'A2:20:PR'],
    ]);
  });

  it('a claim whose send failed with a 503 (the batch stopped, the next never reached) is not rejected: no 277CA yet, then A2 when sent', async () => {
    const path = write('busy.837', one('', { claims: [professionalClaim({ clm01: 'BUSY1' }), professionalClaim({ clm01: 'BUSY2' })] }));
    const dir = acksDir();
    const busy = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson'], { TPA_FAULT: 'error-503:/claims/submit' });
    expect(busy.code).not.toBe(0);
    expect(busy.stderr).toMatch(/claims BUSY1, BUSY2 not in the 277CA/);
    expect(readdirSync(dir).filter((f) => f.includes('277ca'))).toEqual([]);
    const again = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(patients(readAck(read('acks/busy.837.277ca')).sets[0]!).map((p) => p.stc[1])).toEqual(['A2:20:PR', 'A2:20:PR']);
  });

  it('a file of a production and a test interchange: one acknowledgment interchange of each usage, each answering its own', async () => {
    const prod = one('PROD1', { isa13: '000000011' });
    const test = one('TEST1', { isa13: '000000012' }).replace('*0*P*', '*0*T*');
    const path = write('mixed-usage.837', prod + test);
    const dir = acksDir();
    const r = await run(['claim', 'validate', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    for (const [kind, version] of [
      ['999', '005010X231A1'],
      ['277ca', '005010X214'],
    ] as const) {
      const acks = readAcks(read(`acks/mixed-usage.837.${kind}`), version);
      expect(acks.map((a) => a.isa[15])).toEqual(['P', 'T']);
      expect(acks[0]!.isa[13]).not.toBe(acks[1]!.isa[13]);
      const json = JSON.parse(read(`acks/mixed-usage.837.${kind}.json`)) as Row[];
      expect(json.map((j) => [j.usage, Number(j.interchange_control_number)])).toEqual(acks.map((a) => [a.isa[15], Number(a.isa[13])]));
    }
    const [p277, t277] = readAcks(read('acks/mixed-usage.837.277ca'));
    expect(patients(p277!.sets[0]!).map((p) => p.clm01)).toEqual(['PROD1']);
    expect(patients(t277!.sets[0]!).map((p) => p.clm01)).toEqual(['TEST1']);
    const [p999, t999] = readAcks(read('acks/mixed-usage.837.999'));
    expect(p999!.sets).toHaveLength(1);
    expect(t999!.sets).toHaveLength(1);
  });

  it('an interchange of other delimiters after the first: its TA1 (R 026) names its own ISA13, not the first’s', async () => {
    const pipes: Delimiters = { element: '|', component: '>', segment: '~' };
    const first = one('FIRST', { isa13: '000000021' });
    const other = interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'OTHER' })] })], {
      isa13: '000000022',
      d: pipes,
    });
    const dir = acksDir();
    await run(['claim', 'validate', write('delims.837', first + other), '--ack', dir, '-o', 'ndjson']);
    expect(readAck(read('acks/delims.837.ta1')).loose).toEqual([['TA1', '000000022', '250115', '1200', 'R', '026']]);
    // The first interchange is read as ever: its claim received.
    const set = readAck(read('acks/delims.837.277ca')).sets[0]!;
    expect(patients(set).map((p) => [p.clm01, p.stc[1]])).toEqual([['FIRST', 'A1:19:PR']]);
  });

  it('a set whose claims its group or interchange envelope refused is rejected in the 999 (IK5 R, AK9 R), as the TA1 and the 277CA say', async () => {
    const dir = acksDir();
    const ge = one('GE1').replace('GE*1*1', 'GE*2*1');
    await run(['claim', 'validate', write('ge.837', ge), '--ack', dir, '-o', 'ndjson']);
    const g = readAck(read('acks/ge.837.999')).sets[0]!;
    expect(g.find((s) => s[0] === 'IK5')).toEqual(['IK5', 'R', '5']);
    expect(g.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'R', '1', '1', '0', '5']);
    expect(patients(readAck(read('acks/ge.837.277ca')).sets[0]!)[0]!.stc[1]).toBe('A3:21:85');
    const iea = one('IEA1', { isa13: '000000005' }).replace('IEA*1*000000005', 'IEA*1*000000006');
    await run(['claim', 'validate', write('iea.837', iea), '--ack', dir, '-o', 'ndjson']);
    expect(readAck(read('acks/iea.837.ta1')).loose[0]![4]).toBe('R');
    const i = readAck(read('acks/iea.837.999')).sets[0]!;
    expect(i.find((s) => s[0] === 'IK5')).toEqual(['IK5', 'R', '5']);
    expect(i.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'R', '1', '1', '0']);
    const j999 = JSON.parse(read('acks/iea.837.999.json')) as Row;
    expect(j999.acknowledgments[0].transaction_sets[0]).toMatchObject({ status: 'R', problems: [{ code: '5', message: expect.stringMatching(/IEA02/) }] });
  });

  it('a transaction set that is not an 837 gets no 277CA entry (the 999 rejects it); a file of only such a set gets no 277CA', async () => {
    const t270 = ['ST*270*0002*005010X279A1', 'BHT*0022*13*X*20250115*1200', 'SE*3*0002'];
    const both = interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'REAL' })] }), t270]);
    const dir = acksDir();
    await run(['claim', 'validate', write('both.837', both), '--ack', dir, '-o', 'ndjson']);
    const a999 = readAck(read('acks/both.837.999')).sets[0]!;
    expect(a999.filter((s) => s[0] === 'IK5').map((s) => s.slice(0, 2))).toEqual([
      ['IK5', 'A'],
      ['IK5', 'R'],
    ]);
    const a277 = readAck(read('acks/both.837.277ca'));
    expect(a277.sets).toHaveLength(1);
    expect(a277.sets[0]!.filter((s) => s[0] === 'TRN' && s[1] === '2').map((s) => s[2])).toEqual(['0123', 'REAL']);
    expect((JSON.parse(read('acks/both.837.277ca.json')) as Row).transactions).toHaveLength(1);
    await run(['claim', 'validate', write('only270.837', interchange([t270])), '--ack', dir, '-o', 'ndjson']);
    expect(readdirSync(dir).filter((f) => f.startsWith('only270'))).toEqual(['only270.837.999', 'only270.837.999.json']);
  });

  it('a dependent: the member id the engine resolved (submit), none at all before it has (validate), never UNKNOWN; X12 and JSON agree', async () => {
    const dir = acksDir();
    const path = write('dep.837', one('', { claims: [dependentClaim('DEP1')] }));
    const v = await run(['claim', 'validate', path, '--ack', dir, '-o', 'ndjson']);
    expect(v.code, v.stderr).toBe(0);
    expect(patients(readAck(read('acks/dep.837.277ca')).sets[0]!)[0]!.nm1).toEqual(['NM1', 'QC', '1', 'RIVERA', 'SOFIA']);
    expect((JSON.parse(read('acks/dep.837.277ca.json')) as Row).transactions[0].claims[0].patient.memberId).toBeNull();
    const s = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(s.code, s.stderr).toBe(0);
    expect(patients(readAck(read('acks/dep.837.277ca')).sets[0]!)[0]!.nm1).toEqual(['NM1', 'QC', '1', 'RIVERA', 'SOFIA', '', '', '', 'MI', 'MBR-1008']);
    expect((JSON.parse(read('acks/dep.837.277ca.json')) as Row).transactions[0].claims[0].patient.memberId).toBe('MBR-1008');
  });

  it('the patient’s name is NM103/NM104/NM105 as the 837 sent them, never split again from a display name', async () => {
    const claim = professionalClaim({ clm01: 'NAME1' }).map((s) => (s.startsWith('NM1*IL') ? 'NM1*IL*1*DE LA CRUZ*MARIA*J***MI*MBR-1001' : s));
    const dir = acksDir();
    await run(['claim', 'validate', write('name.837', one('', { claims: [claim] })), '--ack', dir, '-o', 'ndjson']);
    expect(patients(readAck(read('acks/name.837.277ca')).sets[0]!)[0]!.nm1.slice(0, 6)).toEqual(['NM1', 'QC', '1', 'DE LA CRUZ', 'MARIA', 'J']);
    expect((JSON.parse(read('acks/name.837.277ca.json')) as Row).transactions[0].claims[0].patient).toMatchObject({
      last: 'DE LA CRUZ',
      first: 'MARIA',
      middle: 'J',
    });
  });

  it('a diagnosis pointer present but naming no diagnosis is IK403 7, not 1 (missing)', async () => {
    const claim = professionalClaim({ clm01: 'PTR1', hi: 'HI*ABK:K635' }).map((s) => (s.startsWith('SV1*') ? s.replace(/\*1$/, '*3') : s));
    const dir = acksDir();
    await run(['claim', 'validate', write('ptr.837', one('', { claims: [claim] })), '--ack', dir, '-o', 'ndjson']);
    const set = readAck(read('acks/ptr.837.999')).sets[0]!;
    const ik3 = set.find((s) => s[0] === 'IK3')!;
    expect(ik3.slice(0, 2)).toEqual(['IK3', 'SV1']);
    expect(set[set.indexOf(ik3) + 1]).toEqual(['IK4', '7:1', '', '7']);
  });

  it('every claim the reader refuses has an IK3: a care-team NPI failing its check digit, a line without DTP*472', async () => {
    const badNpi = professionalClaim({ clm01: 'NPI1' }).map((s) => (s.startsWith('NM1*82') ? 'NM1*82*1*MORGAN*ALICE****XX*1045782369' : s));
    const noDate = professionalClaim({ clm01: 'DTP1' }).filter((s) => !s.startsWith('DTP*472'));
    const dir = acksDir();
    const r = await run(['claim', 'validate', write('ik3.837', one('', { claims: [badNpi, noDate] })), '--ack', dir, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    const set = readAck(read('acks/ik3.837.999')).sets[0]!;
    expect(set.find((s) => s[0] === 'IK5')![1]).toBe('R');
    const lines = one('', { claims: [badNpi, noDate] }).split('~\n');
    const st = lines.findIndex((l) => l.startsWith('ST*'));
    const at = (prefix: string) => String(lines.findIndex((l) => l.startsWith(prefix)) - st + 1);
    const ik3s = set.filter((s) => s[0] === 'IK3').map((s) => s.slice(1, 3));
    // The NPI at its NM1*82; the missing date at the second claim (its CLM, or its line).
    expect(ik3s).toContainEqual(['NM1', at('NM1*82*1*MORGAN*ALICE****XX*1045782369')]);
    expect(ik3s.some(([, p]) => Number(p) >= Number(at('CLM*DTP1')))).toBe(true);
  });

  it('a rejection names the claim by its place in the interchange, never by a path of this machine', async () => {
    const text = one('TWICE', { isa13: '000000031' });
    const a = write('a.837', text);
    const b = write('b.837', text);
    const dir = acksDir();
    const r = await run(['claim', 'submit', a, b, '--ack', dir, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    // One identity is one claim: the first file's is accepted, the second's rejected.
    expect(patients(readAck(read('acks/a.837.277ca')).sets[0]!)[0]!.stc[1]).toBe('A2:20:PR');
    const stc = patients(readAck(read('acks/b.837.277ca')).sets[0]!)[0]!.stc;
    expect(stc[1]).toMatch(/^A7:21/);
    expect(stc[12]).toMatch(/as ST 0001, CLM TWICE \(x12 SUBMITTER 000000031 1 0001 TWICE\)/);
    expect(stc[12]).not.toContain(home.dir);
    expect(stc[12]).not.toMatch(/\/|a\.837/);
    expect(read('acks/b.837.277ca.json')).not.toContain(home.dir);
  });
});

describe('the 999 places a refusal at the segment refused', () => {
  /** A transaction set of one claim, with `add` inserted after the first segment that is `after` (SE counted again). */
  const setWith = (claim: string[], after?: string, ...add: string[]) => {
    const set = transaction({ st02: '0001', type: claim.some((s) => s.startsWith('SV2*')) ? 'institutional' : 'professional', claims: [claim] });
    if (after !== undefined) {
      const i = set.indexOf(after);
      expect(i, after).toBeGreaterThan(0);
      set.splice(i + 1, 0, ...add);
    }
    set[set.length - 1] = `SE*${set.length}*0001`;
    return set;
  };
  /** The position (ST 1) of the n-th segment of the set that is `segment`. */
  const at = (set: string[], segment: string, nth = 1) => {
    let n = 0;
    return String(set.findIndex((s) => s === segment && ++n === nth) + 1);
  };
  /** The 999's IK3, IK4 and IK5 of the set (claim validate --ack), and the 277CA's segments when there is one. */
  const ack = async (name: string, set: string[]) => {
    const dir = acksDir();
    const gs08 = set[0]!.split('*')[3];
    await run(['claim', 'validate', write(name, interchange([set], { gs08 })), '--ack', dir, '-o', 'ndjson']);
    const ik = readAck(read(`acks/${name}.999`)).sets[0]!.filter((s) => /^IK[345]$/.test(s[0]!));
    return { ik, json: JSON.parse(read(`acks/${name}.999.json`)) as Row };
  };

  it('an HI refusal at its own HI (IK304 8) with the element named (IK4; IK403 1 only for a missing one), one IK3 for two problems of one HI', async () => {
    const hi = 'HI*ABK:K635';
    const cases: [string, string[], string, string[][]][] = [
      ['qualifier', [hi, 'HI*ABF:Z0000*abf:Z0001'], 'HI*ABF:Z0000*abf:Z0001', [['IK4', '2:1', '', '7']]],
      ['principal', ['HI*ABK:K635*ABK:Z0000'], 'HI*ABK:K635*ABK:Z0000', [['IK4', '2', '', '7']]],
      ['bbr', [hi, 'HI*BBR:0DTJ4ZZ'], 'HI*BBR:0DTJ4ZZ', [['IK4', '1', '', '7']]],
      ['bh', [hi, 'HI*BH:11'], 'HI*BH:11', [['IK4', '1:3', '', '1']]],
      ['poa', ['HI*ABK:K635:::::::X'], 'HI*ABK:K635:::::::X', [['IK4', '1:9', '', '7']]],
      [
        'dated',
        ['HI*ABK:K635:D8:20250110'],
        'HI*ABK:K635:D8:20250110',
        [
          ['IK4', '1:3', '', '7'],
          ['IK4', '1:4', '', '7'],
        ],
      ],
    ];
    for (const [name, his, refused, ik4] of cases) {
      const claim = professionalClaim({ clm01: name.toUpperCase(), hi: his[0] });
      const set = setWith(claim, his[0], ...his.slice(1));
      const { ik } = await ack(`${name}.837`, set);
      expect(ik, name).toEqual([['IK3', 'HI', at(set, refused), '2300', '8'], ...ik4, ['IK5', 'R', 'I5']]);
    }
  });

  it('a segment said twice is placed at the second (the one refused), IK304 5 (a loop begun twice 4), with the loop of the guide', async () => {
    const claim = professionalClaim({ clm01: 'TWO', lines: [{ cpt: '45378', charge: '1800', ref6r: 'L1' }] });
    const clm = claim.find((s) => s.startsWith('CLM*'))!;
    const sv1 = claim.find((s) => s.startsWith('SV1*'))!;
    const dependent = [
      // The one claim of the set: its subscriber is HL 2, the patient HL 3.
      'HL*2*1*22*1',
      'SBR*P********CI',
      'NM1*IL*1*RIVERA*DANIEL****MI*MBR-1006',
      'NM1*PR*2*ACME HEALTH PLAN*****PI*PAYER-ACME',
      'HL*3*2*23*0',
      'PAT*19',
      'NM1*QC*1*RIVERA*ANA',
      'DMG*D8*20150101*F',
      ...claim.slice(4),
    ];
    const cases: [string, string[], string, string, string, string][] = [
      // name, set, the segment refused (its second occurrence), its ID, loop, IK304
      [
        'nm182',
        setWith(claim, 'NM1*82*1*MORGAN*ALICE****XX*1045782368', 'NM1*82*2*SUMMIT*****XX*1196382455'),
        'NM1*82*2*SUMMIT*****XX*1196382455',
        'NM1',
        '2310B',
        '4',
      ],
      ['g1', setWith(claim, 'REF*G1*AUTH-77', 'REF*G1*AUTH-78'), 'REF*G1*AUTH-78', 'REF', '2300', '5'],
      ['d472', setWith(claim, clm, 'DTP*472*D8*20250110', 'DTP*472*D8*20250111'), 'DTP*472*D8*20250111', 'DTP', '2300', '5'],
      ['r6', setWith(claim, 'REF*6R*L1', 'REF*6R*L2'), 'REF*6R*L2', 'REF', '2400', '5'],
      ['sv1', setWith(claim, sv1, 'SV1*HC:43235*1800*UN*1***1'), 'SV1*HC:43235*1800*UN*1***1', 'SV1', '2400', '5'],
      [
        'f8',
        setWith(
          claim.map((s) => (s === clm ? s.replace('11:B:1', '11:B:7') : s)),
          'REF*G1*AUTH-77',
          'REF*F8*enc_AAA',
          'REF*F8*enc_BBB',
        ),
        'REF*F8*enc_BBB',
        'REF',
        '2300',
        '5',
      ],
      ['il', setWith(claim, 'NM1*IL*1*DOE*JANE****MI*MBR-1001', 'NM1*IL*1*ROE*JOHN****MI*MBR-1003'), 'NM1*IL*1*ROE*JOHN****MI*MBR-1003', 'NM1', '2010BA', '4'],
      [
        'n85',
        setWith(claim, 'NM1*85*2*RIVERSIDE SURGERY CENTER*****XX*1234567893', 'NM1*85*2*SUMMIT*****XX*1196382455'),
        'NM1*85*2*SUMMIT*****XX*1196382455',
        'NM1',
        '2010AA',
        '4',
      ],
      ['sbr', setWith(claim, 'SBR*P*18*GRP-1001******CI', 'SBR*P*18*GRP-1002******CI'), 'SBR*P*18*GRP-1002******CI', 'SBR', '2000B', '5'],
      ['qc', setWith(dependent, 'NM1*QC*1*RIVERA*ANA', 'NM1*QC*1*RIVERA*BOB'), 'NM1*QC*1*RIVERA*BOB', 'NM1', '2010CA', '4'],
      ['dmg', setWith(dependent, 'DMG*D8*20150101*F', 'DMG*D8*20150102*F'), 'DMG*D8*20150102*F', 'DMG', '2010CA', '5'],
    ];
    const inst = institutionalClaim({ clm01: 'TWOI' });
    cases.push(['d434', setWith(inst, 'DTP*434*RD8*20250110-20250110', 'DTP*434*RD8*20250111-20250111'), 'DTP*434*RD8*20250111-20250111', 'DTP', '2300', '5']);
    for (const [name, set, refused, id, loop, code] of cases) {
      const { ik, json } = await ack(`${name}.837`, set);
      expect(ik, name).toEqual([
        ['IK3', id, at(set, refused), loop, code],
        ['IK5', 'R', 'I5'],
      ]);
      expect(json.acknowledgments[0].transaction_sets[0].segment_errors[0], name).toMatchObject({
        position: Number(at(set, refused)),
        loop,
        code,
        element: null,
      });
    }
  });

  it('a second BHT: the set is rejected with an IK3 at the second BHT, and the 277CA echoes the first BHT03', async () => {
    const set = setWith(professionalClaim({ clm01: 'BHT2' }), 'BHT*0019*00*0123*20250115*1200*CH', 'BHT*0019*00*SECOND*20250115*1200*CH');
    const { ik } = await ack('bht.837', set);
    expect(ik).toEqual([
      ['IK3', 'BHT', '3', '', '5'],
      ['IK5', 'R', '5'],
    ]);
    const trn = readAck(read('acks/bht.837.277ca')).sets[0]!.filter((s) => s[0] === 'TRN' && s[1] === '2');
    expect(trn[0]).toEqual(['TRN', '2', '0123']);
    expect((JSON.parse(read('acks/bht.837.277ca.json')) as Row).transactions[0].trace).toBe('0123');
  });
});

describe('acknowledgments over tpa local serve (HTTP)', () => {
  it('a claim whose answer the server lost is not rejected: left out of the 277CA, then acknowledged (A2) by the run that settles it', async () => {
    const path = write('lost.837', one('LOSTH'));
    const dir = acksDir();
    const lossy = await serve(home.dir, [], { TPA_FAULT: 'lose-response:/claims/submit' });
    try {
      await login(home.dir, lossy.url);
      const lost = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
      expect(lost.code).not.toBe(0);
      expect(lost.stderr).toMatch(/claim LOSTH not in the 277CA/);
      expect(readdirSync(dir).filter((f) => f.includes('277ca'))).toEqual([]);
    } finally {
      await lossy.stop();
    }
    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const again = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
      expect(again.code, again.stderr).toBe(0);
      const claim = (JSON.parse(read('acks/lost.837.277ca.json')) as Row).transactions[0].claims[0];
      expect(claim).toMatchObject({ patient_control_number: 'LOSTH', category: 'A2', payer_claim_control_number: expect.stringMatching(/^enc_/) });
    } finally {
      await server.stop();
    }
  });
});
