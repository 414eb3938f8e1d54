// The 837 reader through the command line: a folder's X12 files told by their content, and what
// the reader says of a claim (notes told from refusals, every problem at once, each with its
// segment). Synthetic 837s with the engine's seed members and providers (test/helpers/x12.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { ndjson } from '../helpers/values.js';
import { IG_EXAMPLES, igX12Mapped } from '../helpers/ig-examples.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { npiCheckDigit } from '../../src/domain/validation.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const write = (name: string, text: string) => {
  writeFileSync(join(home, name), text);
  return name;
};

const oneClaim = (clm01: string, isa13: string) =>
  interchange(
    [
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [professionalClaim({ clm01, lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] })],
      }),
    ],
    { isa13 },
  );

describe("a folder's X12 files are told by their content", () => {
  it('*.837p, *.837i, *.txt and *.dat starting with ISA are read; a text file that is not X12 is skipped with the note', async () => {
    mkdirSync(join(home, 'in'));
    write('in/a.837p', oneClaim('PA', '000000011'));
    write('in/b.837i', oneClaim('PB', '000000012'));
    write('in/c.txt', oneClaim('PC', '000000013'));
    write('in/d.dat', oneClaim('PD', '000000014'));
    write('in/notes.txt', 'not a claim');
    const convert = await runTpa(['claim', 'convert', 'in'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    expect(ndjson(convert.stdout).map((c) => c.identifier[0].value)).toEqual(['PA', 'PB', 'PC', 'PD']);
    expect(convert.stderr).toMatch(/^note: in: 1 other entry skipped \(notes\.txt\): claim convert reads X12 files \(any file starting with ISA/m);
    const validate = await runTpa(['claim', 'validate', 'in', '-o', 'ndjson'], { home, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(ndjson(validate.stdout).map((c) => [c.source, c.valid])).toEqual([
      ['in/a.837p: ST 0001, CLM PA', true],
      ['in/b.837i: ST 0001, CLM PB', true],
      ['in/c.txt: ST 0001, CLM PC', true],
      ['in/d.dat: ST 0001, CLM PD', true],
    ]);
    expect(validate.stderr).toMatch(/^note: in: 1 other entry skipped \(notes\.txt\)/m);
    const submit = await runTpa(['claim', 'submit', 'in', '-p', 'local', '--wait', '-o', 'ndjson'], { home, env });
    expect(submit.code, submit.stderr).toBe(0);
    const ledger = await runTpa(['ledger', 'list', '-o', 'json'], { home, env });
    expect(ledger.json<Record<string, any>>().count).toBe(4);
  });

  it('a FIFO of any name is never opened to look at its content: skipped with the other entries', async () => {
    const { execFileSync } = await import('node:child_process');
    mkdirSync(join(home, 'in'));
    write('in/a.dat', oneClaim('PA', '000000021'));
    execFileSync('mkfifo', [join(home, 'in', 'pipe.dat')]);
    const convert = await runTpa(['claim', 'convert', 'in'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    expect(ndjson(convert.stdout).map((c) => c.identifier[0].value)).toEqual(['PA']);
    expect(convert.stderr).toMatch(/^note: in: 1 other entry skipped \(pipe\.dat\)/m);
  });
});

describe("a care-team member who is no line's payee is said and left out", () => {
  /** The published 837I, its attending physician given an NPI: `npi` of no provider the plan knows. */
  const outsideAttending = (npi: string) => {
    const text = igX12Mapped(IG_EXAMPLES.find((e) => e.kind === 'institutional')!);
    const at = 'NM1*71*1*JONES*JOHN*J~';
    if (!text.includes(at)) throw new Error('the published 837I has changed');
    return text.replace(at, `NM1*71*1*JONES*JOHN*J***XX*${npi}~`);
  };
  const valid = `199999999${npiCheckDigit('199999999')}`;
  const badCheckDigit = `199999999${(npiCheckDigit('199999999') + 1) % 10}`;

  for (const [what, npi] of [
    ['a valid NPI the plan does not know', valid],
    ['an NPI whose check digit is wrong', badCheckDigit],
  ] as const)
    it(`the published 837I with an outside attending (${what}): validate and submit agree, the claim is paid, the attending noted`, async () => {
      write('in.837', outsideAttending(npi));
      const validate = await runTpa(['claim', 'validate', 'in.837', '-o', 'ndjson'], { home, env });
      expect(validate.code, validate.stderr).toBe(0);
      expect(ndjson(validate.stdout).map((c) => c.valid)).toEqual([true]);
      expect(validate.stderr).toMatch(new RegExp(`CLM 756048Q, NM1\\*71: the attending provider is NPI ${npi} \\(JOHN JONES\\): left out of the care team`));
      const convert = await runTpa(['claim', 'convert', 'in.837'], { home, env });
      expect(convert.code, convert.stderr).toBe(0);
      expect(ndjson(convert.stdout)[0]!.careTeam).toBeUndefined();
      const submit = await runTpa(['claim', 'submit', 'in.837', '-p', 'local', '--wait', '-o', 'ndjson'], { home, env });
      expect(submit.code, submit.stderr).toBe(0);
      expect(ndjson(submit.stdout).map((o) => [o.status, o.disposition])).toEqual([['ACKNOWLEDGED', 'APPROVED']]);
    });

  it('an 837P claim-level rendering provider that every line replaces with its own is noted, not sent', async () => {
    write(
      'in.837',
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [
            professionalClaim({
              clm01: 'R1',
              lines: [{ cpt: '45378', charge: '1800' }],
              extra: [],
            }).flatMap((seg) =>
              seg.startsWith('DTP*472')
                ? [seg, 'NM1*82*1*MORGAN*ALICE****XX*1045782368']
                : seg.startsWith('NM1*82')
                  ? [`NM1*82*1*ELSE*WHO****XX*${valid}`]
                  : [seg],
            ),
          ],
        }),
      ]),
    );
    const convert = await runTpa(['claim', 'convert', 'in.837'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    const claim = ndjson(convert.stdout)[0]!;
    expect(claim.careTeam.map((m: any) => m.provider.identifier.value)).toEqual(['1045782368']);
    expect(claim.item[0].careTeamSequence).toEqual([1]);
    expect(convert.stderr).toMatch(new RegExp(`CLM R1, NM1\\*82: the rendering provider is NPI ${valid}, no line's payee: left out of the care team`));
  });
});

describe('content decides what a file is, and refusals of a correction name REF*F8', () => {
  it('a *.json or *.ndjson starting with ISA is X12, in a folder as on the command line', async () => {
    mkdirSync(join(home, 'in'));
    write('in/claims.json', oneClaim('J1', '000000021'));
    write('in/more.ndjson', oneClaim('J2', '000000022'));
    const folder = await runTpa(['claim', 'validate', 'in', '-o', 'ndjson'], { home, env });
    expect(folder.code, folder.stderr).toBe(0);
    expect(ndjson(folder.stdout).map((c) => [c.source, c.valid])).toEqual([
      ['in/claims.json: ST 0001, CLM J1', true],
      ['in/more.ndjson: ST 0001, CLM J2', true],
    ]);
    const file = await runTpa(['claim', 'validate', 'in/claims.json', '-o', 'ndjson'], { home, env });
    expect(file.code, file.stderr).toBe(0);
    expect(ndjson(file.stdout).map((c) => c.source)).toEqual(['in/claims.json: ST 0001, CLM J1']);
  });

  it("the service's refusal of a replacement's prior claim names REF*F8, in -o ndjson and on stderr", async () => {
    const replacement = professionalClaim({ clm01: 'REP' }).flatMap((s) => (s.startsWith('CLM*') ? [s.replace('11:B:1', '11:B:7'), 'REF*F8*ENC-NOPE'] : [s]));
    write('r.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [replacement] })]));
    const r = await runTpa(['claim', 'submit', 'r.837', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(2);
    expect(ndjson(r.stdout)[0]).toMatchObject({
      source: 'r.837: ST 0001, CLM REP',
      errors: [{ field: 'related[0].claim.identifier.value', segment: 'REF*F8' }],
    });
    expect(r.stderr).toContain('r.837: ST 0001, CLM REP: failed: REF*F8: related[0].claim.identifier.value: is ENC-NOPE');
  });
});

describe('a REF*F8 naming two claims, and X12 that does not start at its first byte', () => {
  it('a replacement whose REF*F8 holds the component separator (N1:N2) is refused naming both parts, and neither claim is superseded', async () => {
    const originals = interchange(
      [
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [
            professionalClaim({ clm01: 'O1', lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] }),
            professionalClaim({ clm01: 'O2', lines: [{ cpt: '45378', charge: '1800', date: '20250111' }] }),
          ],
        }),
      ],
      { isa13: '000000031' },
    );
    write('o.837', originals);
    const sent = await runTpa(['claim', 'submit', 'o.837', '-o', 'ndjson'], { home, env });
    expect(sent.code, sent.stderr).toBe(0);
    const ids = ndjson(sent.stdout).map((o) => o.external_claim_id as string);
    expect(ids).toHaveLength(2);
    const numbers: string[] = [];
    for (const id of ids)
      numbers.push((await runTpa(['ledger', 'show', id, '-o', 'json'], { home, env })).json<Record<string, any>>().encounter.encounter_number);
    const replacement = professionalClaim({ clm01: 'O1R' }).flatMap((s) =>
      s.startsWith('CLM*') ? [s.replace('11:B:1', '11:B:7'), `REF*F8*${numbers[0]}:${numbers[1]}`] : [s],
    );
    write('r.837', interchange([transaction({ st02: '0001', type: 'professional', claims: [replacement] })], { isa13: '000000032' }));
    const r = await runTpa(['claim', 'submit', 'r.837', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(2);
    expect(ndjson(r.stdout)[0]).toMatchObject({ source: 'r.837: ST 0001, CLM O1R', errors: [{ segment: 'REF*F8' }] });
    expect(r.stderr).toContain(`REF02 holds a component separator, so it is several parts ("${numbers[0]}", "${numbers[1]}")`);
    for (const id of ids) {
      const e = (await runTpa(['ledger', 'show', id, '-o', 'json'], { home, env })).json<Record<string, any>>().encounter;
      expect(e.status).not.toBe('SUPERSEDED');
      expect(e.replaced_by).toBeUndefined();
    }
  });

  it('a *.json in a folder holding X12 after a blank line or a byte order mark is said to be X12 not at its first byte, not a pipe', async () => {
    mkdirSync(join(home, 'in'));
    write('in/blank.json', `\n${oneClaim('J1', '000000041')}`);
    write('in/bom.json', `\uFEFF${oneClaim('J2', '000000042')}`);
    const r = await runTpa(['claim', 'validate', 'in'], { home, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('in/blank.json:2:1: is X12 that does not start at its first byte ("\\n" comes before ISA), not JSON');
    expect(r.stderr).toMatch(
      /in\/bom\.json.*: is X12 that does not start at its first byte \("\\uFEFF" comes before ISA\), not JSON: an X12 file must start with ISA/,
    );
    expect(r.stderr).not.toContain('not a pipe or a device');
  });
});
