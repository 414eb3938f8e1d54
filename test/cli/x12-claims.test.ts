// X12 837 in, through the command line: `claim convert` prints the FHIR Claims without sending them,
// `claim validate` and `claim submit` read .837 files and folders through the batch path, a claim
// known in the journal by its interchange, transaction and CLM01. Synthetic 837s with the engine's
// seed members and providers (test/helpers/x12.ts).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { institutionalClaim, interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { ndjson } from '../helpers/values.js';
import { countClaims } from '../../src/cli/commands/claim/submit-sources.js';
import { envelopeReport } from '../../src/cli/commands/claim/x12-source.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const twoClaims = (isa13 = '000000001') =>
  interchange(
    [
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({ clm01: 'PATIENT123', lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] }),
          professionalClaim({ clm01: 'PATIENT124', member: 'MBR-1003', lines: [{ cpt: '43235', charge: '1500', date: '20250111' }] }),
        ],
      }),
    ],
    { isa13 },
  );

const write = (name: string, text: string) => {
  writeFileSync(join(home, name), text);
  return name;
};

describe('tpa claim convert', () => {
  it('prints one FHIR Claim a line (ndjson by default) and sends nothing', async () => {
    write('in.837', twoClaims());
    const r = await runTpa(['claim', 'convert', 'in.837'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    const claims = ndjson(r.stdout);
    expect(claims.map((c) => [c.resourceType, c.identifier[0].value, c.patient.identifier.value])).toEqual([
      ['Claim', 'PATIENT123', 'MBR-1001'],
      ['Claim', 'PATIENT124', 'MBR-1003'],
    ]);
    expect(r.stderr).toContain('2 claims: 2 converted; nothing was sent');
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Row>().count).toBe(0);
  });

  it('-o json is one FHIR Bundle of the claims; -o csv is refused', async () => {
    write('in.837', twoClaims());
    const r = await runTpa(['claim', 'convert', 'in.837', '-o', 'json'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    const bundle = r.json<Row>();
    expect(bundle.resourceType).toBe('Bundle');
    expect(bundle.type).toBe('collection');
    expect(bundle.entry.map((e: Row) => e.resource.identifier[0].value)).toEqual(['PATIENT123', 'PATIENT124']);
    expect(r.stdout).toBe(`${JSON.stringify(bundle, null, 2)}\n`);
    const csv = await runTpa(['claim', 'convert', 'in.837', '-o', 'csv'], { home, env });
    expect(csv.code).toBe(2);
    expect(csv.stdout).toBe('');
    expect(csv.stderr).toContain('-o ndjson');
  });

  it('a claim the service cannot take is not printed; stderr names it with its segment, exit 2', async () => {
    const cob = professionalClaim({ clm01: 'COB1', extra: ['SBR*P*18*GRP-9******CI'] });
    const hcpcs = professionalClaim({
      clm01: 'HCPCS1',
      lines: [
        { cpt: '45378', charge: '1800' },
        { cpt: 'J349', charge: '20' },
      ],
    });
    const good = professionalClaim({ clm01: 'GOOD1' });
    write('mixed.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [cob, hcpcs, good] })]));
    const r = await runTpa(['claim', 'convert', 'mixed.837'], { home, env });
    expect(r.code).toBe(2);
    expect(ndjson(r.stdout).map((c) => c.identifier[0].value)).toEqual(['GOOD1']);
    expect(r.stderr).toContain('mixed.837: ST 0001, CLM COB1, SBR: another payer (loop 2320, SBR01 P)');
    expect(r.stderr).toContain('mixed.837: ST 0001, CLM HCPCS1, SV1 #2: procedure "J349" is neither a CPT code (5 digits) nor a HCPCS Level II code');
    expect(r.stderr).toContain('3 claims: 1 converted, 2 not');
  });

  it('a file that is not X12, and an envelope whose counts are wrong, are refused with their places', async () => {
    write('bad.837', '{"resourceType":"Claim"}');
    const notX12 = await runTpa(['claim', 'convert', 'bad.837'], { home, env });
    expect(notX12.code).toBe(2);
    expect(notX12.stdout).toBe('');
    expect(notX12.stderr).toContain('bad.837: not an X12 interchange: it must start with ISA');
    write('count.837', twoClaims().replace(/SE\*\d+\*0001/, 'SE*7*0001'));
    const count = await runTpa(['claim', 'convert', 'count.837'], { home, env });
    expect(count.code).toBe(2);
    expect(count.stdout).toBe('');
    expect(count.stderr).toMatch(/count\.837: ST 0001, CLM PATIENT123: not sent: ST 0001: SE01 says 7 segments; the transaction set has \d+/);
  });

  it('a file that runs on without a segment terminator is refused without being held, quickly', async () => {
    const isa = twoClaims().slice(0, 106);
    write('endless.837', `${isa}\nGS*${'A'.repeat(4 * 1024 * 1024)}`);
    const r = await runTpa(['claim', 'convert', 'endless.837'], { home, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("endless.837: segment 2: runs on for more than 64 KiB before the ISA's segment terminator");
  });

  it('a public 835 (x12-parser’s test file): its envelopes count as its author’s, and it is no 837', async () => {
    copyFileSync(fileURLToPath(new URL('../fixtures/x12/profee-835.edi', import.meta.url)), join(home, 'profee.edi'));
    const r = await runTpa(['claim', 'convert', 'profee.edi'], { home, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('profee.edi: ST 1740: transaction set 835, not an 837 claim');
    expect(r.stderr).not.toMatch(/SE01|GE01|IEA01|control number/);
  });
});

describe('tpa claim validate and submit of an 837', () => {
  it('validate: one row a claim with its X12 place, even for one claim; problems on stderr with the segment', async () => {
    write('one.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONE' })] })]));
    const r = await runTpa(['claim', 'validate', 'one.837', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toEqual([expect.objectContaining({ source: 'one.837: ST 0001, CLM ONE', valid: true, member_id: 'MBR-1001' })]);
    write(
      'cob.837',
      interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'COB1', extra: ['SVD*PAYER2*10'] })] })]),
    );
    const bad = await runTpa(['claim', 'validate', 'cob.837', '-o', 'ndjson'], { home, env });
    expect(bad.code).toBe(2);
    const row = ndjson(bad.stdout)[0]!;
    expect(row).toMatchObject({ source: 'cob.837: ST 0001, CLM COB1', valid: false });
    expect(row.errors[0]).toMatchObject({ segment: 'SVD', field: '' });
    expect(bad.stderr).toContain('cob.837: ST 0001, CLM COB1, SVD: another payer’s adjudication');
  });

  it('submit twice: the second run skips every claim by its interchange, transaction and CLM01; another interchange is new', async () => {
    write('a.837', twoClaims('000000001'));
    const args = ['claim', 'submit', 'a.837', '--journal', 'x12.journal', '-o', 'ndjson'];
    const first = await runTpa(args, { home, env });
    expect(first.code, first.stderr).toBe(0);
    expect(ndjson(first.stdout).map((o) => [o.source, o.status])).toEqual([
      ['a.837: ST 0001, CLM PATIENT123', 'ACKNOWLEDGED'],
      ['a.837: ST 0001, CLM PATIENT124', 'ACKNOWLEDGED'],
    ]);
    const records = readFileSync(join(home, 'x12.journal'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(records.filter((r) => r.type === 'sending').map((r) => [r.claim, r.clm01])).toEqual([
      ['x12:SUBMITTER:000000001:1:0001:PATIENT123', 'PATIENT123'],
      ['x12:SUBMITTER:000000001:1:0001:PATIENT124', 'PATIENT124'],
    ]);
    expect(records.filter((r) => r.type === 'acknowledged').map((r) => [r.claim, /^enc_/.test(r.external_claim_id)])).toEqual([
      ['x12:SUBMITTER:000000001:1:0001:PATIENT123', true],
      ['x12:SUBMITTER:000000001:1:0001:PATIENT124', true],
    ]);

    const again = await runTpa(args, { home, env });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((o) => o.status)).toEqual(['SKIPPED', 'SKIPPED']);

    // The same CLM01s in another interchange (ISA13) are other claims: sent (the engine judges duplicates).
    write('b.837', twoClaims('000000002'));
    const other = await runTpa(['claim', 'submit', 'b.837', '--journal', 'x12.journal', '-o', 'ndjson'], { home, env });
    expect(ndjson(other.stdout).map((o) => o.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Row>().count).toBe(4);
  });

  it('one CLM01 twice in a transaction set is two claims, the second known by its place (#2): each sent once, the file again skips both', async () => {
    // Both CLM TWIN in ST 0001: the first (A) is invalid at first (served after it was created).
    const twins = (dateA: string) =>
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [
            professionalClaim({ clm01: 'TWIN', lines: [{ cpt: '45378', charge: '1800', date: dateA }] }),
            professionalClaim({ clm01: 'TWIN', member: 'MBR-1003', lines: [{ cpt: '43235', charge: '1500', date: '20250111' }] }),
          ],
        }),
      ]);
    write('twins.837', twins('20250120'));
    const args = ['claim', 'submit', 'twins.837', '--journal', 'twins.journal', '-o', 'ndjson'];
    const first = await runTpa(args, { home, env });
    const bySource = (out: string) => Object.fromEntries(ndjson(out).map((o) => [o.source, o.status]));
    expect(bySource(first.stdout)).toEqual({ 'twins.837: ST 0001, CLM TWIN': 'INVALID', 'twins.837: ST 0001, CLM TWIN #2': 'ACKNOWLEDGED' });
    const journal = readFileSync(join(home, 'twins.journal'), 'utf8');
    expect(journal).toContain('"x12:SUBMITTER:000000001:1:0001:TWIN#2"');
    // The first fixed: sent under the identity it always had; the second, acknowledged, is skipped.
    write('twins.837', twins('20250110'));
    const fixed = await runTpa(args, { home, env });
    expect(bySource(fixed.stdout)).toEqual({ 'twins.837: ST 0001, CLM TWIN': 'ACKNOWLEDGED', 'twins.837: ST 0001, CLM TWIN #2': 'SKIPPED' });
    const sent = ndjson(fixed.stdout).find((o) => o.status === 'ACKNOWLEDGED')!;
    expect((await runTpa(['ledger', 'show', sent.external_claim_id, '-o', 'json'], { home, env })).json<Row>().encounter.patient.member_id).toBe('MBR-1001');
    const again = await runTpa(args, { home, env });
    expect(bySource(again.stdout)).toEqual({ 'twins.837: ST 0001, CLM TWIN': 'SKIPPED', 'twins.837: ST 0001, CLM TWIN #2': 'SKIPPED' });
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Row>().count).toBe(2);
  });

  it('validate and convert say of a second claim of an identity what submit says: the same refusal, the first taken', async () => {
    mkdirSync(join(home, 'dup'));
    const file = interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'COPY' })] })]);
    write('dup/f1.837', file);
    write('dup/f2.837', file);
    const said = /the same interchange, group, transaction set and CLM01 as dup\/f1\.837: ST 0001, CLM COPY/;
    const validate = await runTpa(['claim', 'validate', 'dup', '-o', 'ndjson'], { home, env });
    expect(validate.code).toBe(2);
    expect(ndjson(validate.stdout).map((r) => r.valid)).toEqual([true, false]);
    expect(ndjson(validate.stdout)[1]!.errors[0].message).toMatch(said);
    const convert = await runTpa(['claim', 'convert', 'dup'], { home, env });
    expect(convert.code).toBe(2);
    expect(ndjson(convert.stdout)).toHaveLength(1);
    expect(convert.stderr).toMatch(said);
    const dry = await runTpa(['claim', 'submit', 'dup', '--dry-run', '-o', 'ndjson'], { home, env });
    expect(dry.code).toBe(2);
    expect(dry.stderr).toMatch(said);
    const submit = await runTpa(['claim', 'submit', 'dup', '-o', 'ndjson'], { home, env });
    // Outcomes come as they finish (the refused one at once): by status.
    const outcomes = Object.fromEntries(ndjson(submit.stdout).map((o) => [o.status, o]));
    expect(Object.keys(outcomes).sort()).toEqual(['ACKNOWLEDGED', 'INVALID']);
    expect(outcomes.ACKNOWLEDGED!.source).toMatch(/^dup\/f1\.837/);
    expect(outcomes.INVALID!.errors[0].message).toMatch(said);
  });

  it('a claim no payee’s contract prices names the payees looked at, not only the billing provider', async () => {
    // The rendering provider (Dr. Haddad, contracted for 29880 and 29881) is each line's payee.
    const claim = professionalClaim({ clm01: 'RENDER' }).map((seg) => (seg.startsWith('NM1*82*') ? 'NM1*82*1*HADDAD*OMAR****XX*1582736496' : seg));
    write('render.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [claim] })]));
    const r = await runTpa(['claim', 'submit', 'render.837', '-o', 'ndjson'], { home, env });
    const [outcome] = ndjson(r.stdout);
    expect(outcome).toMatchObject({ status: 'FAILED' });
    expect(outcome!.errors[0].message).toMatch(/No active contract for the lines' payees \(1582736496; billing provider 1234567893\) covers 45378/);
  });

  it('a file added to a folder with an identity already sent: the new one is refused, the sent one skipped, nothing sent twice', async () => {
    mkdirSync(join(home, 'inbox'));
    const one = (member: string, cpt: string) =>
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [professionalClaim({ clm01: 'C1', member, lines: [{ cpt, charge: '1500', date: '20250111' }] })],
        }),
      ]);
    write('inbox/b.837', one('MBR-1001', '45378'));
    const args = ['claim', 'submit', 'inbox', '--journal', 'inbox.journal', '-o', 'ndjson'];
    const first = await runTpa(args, { home, env });
    expect(ndjson(first.stdout).map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    const before = (await runTpa(['ledger', 'list', '--all', '-o', 'json'], { home, env })).json<unknown[]>().length;
    // a.837 sorts first: same sender, ISA13, GS06, ST02 and CLM01, another member and code.
    write('inbox/a.837', one('MBR-1003', '43235'));
    const second = await runTpa(args, { home, env });
    const bySource = Object.fromEntries(ndjson(second.stdout).map((o) => [o.source.split(':')[0], o]));
    expect(bySource['inbox/a.837']).toMatchObject({ status: 'INVALID' });
    expect(bySource['inbox/a.837']!.errors[0].message).toMatch(/sent before with other content/);
    expect(bySource['inbox/b.837']).toMatchObject({ status: 'SKIPPED', external_claim_id: ndjson(first.stdout)[0]!.external_claim_id });
    expect((await runTpa(['ledger', 'list', '--all', '-o', 'json'], { home, env })).json<unknown[]>().length).toBe(before);
  });

  it('a claim acknowledged before under its identity, now with other content, is INVALID and not sent, saying what to do', async () => {
    const file = (charge: string) =>
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [professionalClaim({ clm01: 'CHANGED', lines: [{ cpt: '45378', charge, date: '20250110' }] }), professionalClaim({ clm01: 'SAME' })],
        }),
      ]);
    write('c.837', file('1800'));
    const args = ['claim', 'submit', 'c.837', '--journal', 'c.journal', '-o', 'ndjson'];
    expect((await runTpa(args, { home, env })).code).toBe(0);
    write('c.837', file('1700'));
    const again = await runTpa(args, { home, env });
    expect(again.code).toBe(2);
    const [changed, same] = ndjson(again.stdout);
    expect(same).toMatchObject({ source: 'c.837: ST 0001, CLM SAME', status: 'SKIPPED' });
    expect(changed).toMatchObject({ source: 'c.837: ST 0001, CLM CHANGED', status: 'INVALID' });
    expect(changed!.errors[0].message).toMatch(/sent before with other content under the same interchange, group, transaction set and CLM01/);
    expect(changed!.errors[0].message).toMatch(/new interchange .* or under a new CLM01/);
    expect(again.stderr).toContain('c.837: ST 0001, CLM CHANGED: invalid, not sent');
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Row>().count).toBe(2);
  });

  it('a claim perhaps sent before (its answer never recorded) under its identity, now with other content, is not sent: find out first', async () => {
    const file = (charge: string) =>
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [professionalClaim({ clm01: 'LOST', lines: [{ cpt: '45378', charge, date: '20250110' }] })],
        }),
      ]);
    write('l.837', file('1800'));
    const args = ['claim', 'submit', 'l.837', '--journal', 'l.journal', '-o', 'ndjson'];
    expect((await runTpa(args, { home, env })).code).toBe(0);
    // The answer lost: the journal says it was sent, not what came back.
    const journal = join(home, 'l.journal');
    const kept = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && JSON.parse(l).type !== 'acknowledged');
    writeFileSync(journal, `${kept.join('\n')}\n`);
    write('l.837', file('1700'));
    const again = await runTpa(args, { home, env });
    expect(again.code).toBe(2);
    const [lost] = ndjson(again.stdout);
    expect(lost).toMatchObject({ status: 'INVALID' });
    expect(lost!.errors[0].message).toMatch(/perhaps sent before with other content .* Find out first whether the earlier one reached the service/);
    expect(lost!.errors[0].message).not.toMatch(/^sent before/);
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Row>().count).toBe(1);
  });

  it('a claim addressed to another payer (NM1*PR, insurer.identifier) is refused by the engine, saying whose; tpa’s payer, or none, is taken', async () => {
    write(
      'payers.837',
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [professionalClaim({ clm01: 'OTHER', payer: '999996666' }), professionalClaim({ clm01: 'OURS', member: 'MBR-1003' })],
        }),
      ]),
    );
    const r = await runTpa(['claim', 'submit', 'payers.837', '-o', 'ndjson'], { home, env });
    const bySource = Object.fromEntries(ndjson(r.stdout).map((o) => [o.source, o]));
    expect(bySource['payers.837: ST 0001, CLM OURS']).toMatchObject({ status: 'ACKNOWLEDGED' });
    const other = bySource['payers.837: ST 0001, CLM OTHER']!;
    expect(other.status).toBe('FAILED');
    const reason = 'is 999996666, not the payer of member MBR-1001’s plan (PAYER-ACME): tpa adjudicates claims addressed to PAYER-ACME only';
    expect(other.errors).toEqual([{ segment: 'NM1*PR', field: 'insurer.identifier', message: expect.stringContaining(reason) }]);
    expect(r.stderr).toContain(reason);
    // The same exit code as a claim refused for an unknown member.
    const unknown = professionalClaim({ clm01: 'NOBODY', member: 'MBR-9999' });
    write('nobody.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [unknown] })]));
    const nobody = await runTpa(['claim', 'submit', 'nobody.837', '-o', 'ndjson'], { home, env });
    expect(ndjson(nobody.stdout)[0]).toMatchObject({ status: 'FAILED' });
    expect(r.code).toBe(nobody.code);
    expect(r.code).not.toBe(0);

    // A FHIR claim: an insurer identifier of another payer is refused; one without (a reference, or none) is taken.
    write('json.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'J1', member: 'MBR-1003' })] })]));
    const fhir = ndjson((await runTpa(['claim', 'convert', 'json.837'], { home, env })).stdout)[0]!;
    write('other.json', JSON.stringify({ ...fhir, insurer: { identifier: { value: 'OTHER-PAYER' }, display: 'Someone else' } }));
    const json = await runTpa(['claim', 'submit', 'other.json'], { home, env });
    expect(json.code).toBe(nobody.code);
    expect(json.stderr).toContain('is OTHER-PAYER, not the payer of member MBR-1003’s plan (PAYER-ACME)');
    const { insurer: _, ...none } = fhir;
    write('none.json', JSON.stringify(none));
    const taken = await runTpa(['claim', 'submit', 'none.json', '-o', 'json'], { home, env });
    expect(taken.code, taken.stderr).toBe(0);
  });

  it('submit: an INVALID claim’s errors keep the FHIR path and name the segment, in ndjson and on stderr; the others are sent', async () => {
    const late = professionalClaim({ clm01: 'LATE', lines: [{ cpt: '45378', charge: '1800', date: '20250120' }] });
    write('late.837', interchange([transaction({ st02: '0007', type: 'professional', claims: [late, professionalClaim({ clm01: 'OK' })] })]));
    const r = await runTpa(['claim', 'submit', 'late.837', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(2);
    const [invalid, sent] = ndjson(r.stdout);
    expect(invalid).toMatchObject({
      source: 'late.837: ST 0007, CLM LATE',
      status: 'INVALID',
      errors: [{ field: 'item[0].servicedDate', segment: 'SV1 #1', message: "is 2025-01-20, after the claim's created date 2025-01-15" }],
    });
    expect(sent).toMatchObject({ source: 'late.837: ST 0007, CLM OK', status: 'ACKNOWLEDGED' });
    expect(r.stderr).toContain("late.837: ST 0007, CLM LATE: invalid, not sent: SV1 #1: item[0].servicedDate: is 2025-01-20, after the claim's created date");
  });

  it('an 837 of one claim goes through the batch path (its journal, one outcome row); a folder of .837 files is read', async () => {
    mkdirSync(join(home, 'inbox'));
    write(
      'inbox/fac.837',
      interchange([transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'FAC1' })] })], { gs08: '005010X223A2' }),
    );
    const r = await runTpa(['claim', 'submit', 'inbox/fac.837', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toEqual([expect.objectContaining({ source: 'inbox/fac.837: ST 0001, CLM FAC1', status: 'ACKNOWLEDGED' })]);
    expect(r.stderr).toMatch(/journal: .*claims-[0-9a-f]{16}\.ndjson/);
    const folder = await runTpa(['claim', 'submit', 'inbox', '-o', 'ndjson'], { home, env });
    expect(folder.code, folder.stderr).toBe(0);
    expect(ndjson(folder.stdout).map((o) => [o.source, o.status])).toEqual([['inbox/fac.837: ST 0001, CLM FAC1', 'ACKNOWLEDGED']]);
  });
});

describe('an 837 read for a count and then for its claims', () => {
  it('has its envelopes read once: the report is kept for the file as it is (its size and time), read anew once it changes', async () => {
    const file = join(home, 'count.837');
    writeFileSync(file, twoClaims());
    expect(await countClaims([file])).toBe(2);
    const counted = await envelopeReport(file);
    // The claims' reading takes the count's report: the same object, not a second reading.
    expect(await envelopeReport(file)).toBe(counted);
    writeFileSync(file, interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'ONLY' })] })]));
    const changed = await envelopeReport(file);
    expect(changed).not.toBe(counted);
    expect(changed.claims).toBe(1);
  });
});

describe('an 837 that is not a regular file', () => {
  it('a FIFO named .837 is a usage error (exit 2), not an internal error; X12 through a pipe is said to be X12', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(home, 'fifo.837')]);
    for (const args of [
      ['claim', 'convert', 'fifo.837'],
      ['claim', 'submit', 'fifo.837', '-p', 'local', '--dry-run'],
      ['claim', 'validate', 'fifo.837'],
    ]) {
      const r = await runTpa(args, { home, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/fifo\.837 is not a regular file .*an 837 is read twice/);
      expect(r.stderr).not.toMatch(/internal error/);
    }
    // As `<(cat claims.837)` or /dev/stdin from a shell pipe give it: a pipe, named without .837.
    execFileSync('mkfifo', [join(home, 'piped')]);
    const { writeFile } = await import('node:fs/promises');
    const [piped] = await Promise.all([runTpa(['claim', 'validate', 'piped'], { home, env }), writeFile(join(home, 'piped'), twoClaims())]);
    expect(piped.code, piped.stderr).toBe(2);
    expect(piped.stderr).toMatch(/is X12 \(it starts with ISA\).*regular file/);
    expect(piped.stderr).not.toMatch(/not valid JSON/);
  });
});

describe('what a folder or a file holds that is not read', () => {
  it('files of other names in a folder are counted in one note; an empty folder is "no claim" (exit 2) for convert too; an empty file is said empty', async () => {
    mkdirSync(join(home, 'in'));
    write('in/a.837', twoClaims());
    write('in/notes.txt', 'x');
    write('in/scan.pdf', 'x');
    const convert = await runTpa(['claim', 'convert', 'in'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    expect(convert.stderr).toMatch(
      /^note: in: 2 other entries skipped \(notes\.txt, scan\.pdf\): claim convert reads X12 files \(any file starting with ISA, or named \*\.837, \*\.x12, \*\.edi\)$/m,
    );
    const validate = await runTpa(['claim', 'validate', 'in'], { home, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toMatch(
      /^note: in: 2 other entries skipped \(notes\.txt, scan\.pdf\): claims are read from \*\.json, \*\.ndjson, \*\.jsonl files and X12 files \(any file starting with ISA, or named \*\.837, \*\.x12, \*\.edi\)$/m,
    );

    mkdirSync(join(home, 'none'));
    const empty = await runTpa(['claim', 'convert', 'none'], { home, env });
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr).toMatch(/no claim in none/);

    write('empty.json', '');
    const dry = await runTpa(['claim', 'submit', 'empty.json', 'in/a.837', '-p', 'local', '--dry-run'], { home, env });
    expect(dry.stderr).toMatch(/^empty\.json: claim file is empty$/m);
    expect(dry.stderr).not.toMatch(/not valid JSON/);
  });
});
