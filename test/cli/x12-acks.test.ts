// Acknowledgments back to an 837's sender (docs/x12.md "Acknowledgments"): `claim submit --ack` and
// `claim validate --ack` write a TA1 (an envelope that cannot be read), a 999 per functional group
// and a 277CA per claim, in X12 and JSON, each re-read here by node-x12 (test/helpers/x12-ack-check.ts).
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { IG_EXAMPLES, igX12Mapped } from '../helpers/ig-examples.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { readAck } from '../helpers/x12-ack-check.js';

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
      expect(o.source).toMatch(new RegExp(`CLM ${a.clm01}$`));
    }
    const a999 = readAck(read('acks/many.837.999'), '005010X231A1');
    expect(a999.sets[0]!.filter((s) => s[0] === 'IK5')).toEqual([
      ['IK5', 'E', 'I5'],
      ['IK5', 'E', 'I5'],
    ]);
  });

  it('a claim whose identity repeats is rejected in the 277CA; the first is accepted', async () => {
    const text = interchange([
      transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'SAME' }), professionalClaim({ clm01: 'SAME' })] }),
    ]);
    const path = write('dup.837', text);
    const dir = acksDir();
    const r = await run(['claim', 'submit', path, '--ack', dir, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(2);
    const set = readAck(read('acks/dup.837.277ca')).sets[0]!;
    expect(
      set
        .filter((s) => s[0] === 'STC')
        .slice(1)
        .map((s) => s[1]!.slice(0, 2)),
    ).toEqual(['A2', 'A7']);
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
