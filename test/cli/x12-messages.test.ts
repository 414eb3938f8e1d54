// What `claim validate`, `claim convert` and `claim submit` say of an 837's claims: notes told from
// refusals (`note: …`), every problem of a claim at once (the reader's and the field rules'), each
// refusal naming its segment (the engine's too, on both transports), a denied claim its code and
// reason, and the same clock rule for validate as for submit. Synthetic 837s (test/helpers/x12.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve } from '../helpers/server.js';
import { ndjson } from '../helpers/values.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';

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
const file837 = (claims: string[][], isa13 = '000000001') => interchange([transaction({ st02: '0001', type: 'professional', claims })], { isa13 });

describe('stderr: notes are told from refusals', () => {
  it('a note starts "note: "; a refusal names its file and place with no prefix', async () => {
    const noted = professionalClaim({ clm01: 'NOTED', extra: ['NM1*DN*1*REFERRING*RITA****XX*1234567893'] });
    const refused = professionalClaim({ clm01: 'REFUSED', lines: [{ cpt: '45378', charge: '1800', qualifier: 'ER' }] });
    write('in.837', file837([noted, refused]));
    const r = await runTpa(['claim', 'convert', 'in.837'], { home, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^note: in\.837: ST 0001, CLM NOTED, NM1\*DN: the referring provider is NPI 1234567893 \(RITA REFERRING\): left out of the care team/m,
    );
    expect(r.stderr).toMatch(/^in\.837: ST 0001, CLM REFUSED, SV1 #1: SV101-1 is "ER"/m);
    expect(r.stderr).not.toMatch(/^note: in\.837: ST 0001, CLM REFUSED/m);
  });
});

describe('every problem of a claim at once', () => {
  it("the reader's problem and the field rules' are said together, each with its segment, in one round", async () => {
    // Another payer primary (the reader: SBR) and a line dated after the claim was created (the field rules: DTP*472 of SV1 #1).
    const claim = professionalClaim({ clm01: 'BOTH', lines: [{ cpt: '45378', charge: '1800', date: '20250120' }] }).map((s) =>
      s.startsWith('SBR*P') ? s.replace('SBR*P', 'SBR*S') : s,
    );
    write('in.837', file837([claim]));
    const r = await runTpa(['claim', 'validate', 'in.837', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(2);
    const [row] = ndjson(r.stdout);
    expect(row!.errors.map((e: Record<string, string>) => [e.segment, e.field])).toEqual([
      ['SBR', ''],
      ['SV1 #1', 'item[0].servicedDate'],
    ]);
    expect(row!.errors[1].message).toMatch(/after the claim's created date 2025-01-15/);
    const submit = await runTpa(['claim', 'submit', 'in.837', '-p', 'local', '-o', 'ndjson'], { home, env });
    expect(ndjson(submit.stdout)[0]!.errors.map((e: Record<string, string>) => e.segment)).toEqual(['SBR', 'SV1 #1']);
  });
});

describe("the engine's refusal of an X12 claim names its segment", () => {
  const wrongPayer = () => write('in.837', file837([professionalClaim({ clm01: 'PAYER1', payer: 'PAYER-OTHER' })]));
  const expectSegment = (stdout: string) => {
    const [outcome] = ndjson(stdout);
    expect(outcome).toMatchObject({ status: 'FAILED' });
    expect(outcome!.errors[0]).toMatchObject({ segment: 'NM1*PR', field: 'insurer.identifier' });
  };

  it('in-process: FAILED with the segment beside the FHIR path', async () => {
    wrongPayer();
    const r = await runTpa(['claim', 'submit', 'in.837', '-p', 'local', '-o', 'ndjson'], { home, env });
    expectSegment(r.stdout);
    expect(r.stderr).toMatch(/in\.837: ST 0001, CLM PAYER1: failed: NM1\*PR: insurer\.identifier: /);
  });

  it('over tpa local serve (HTTP): the same', async () => {
    wrongPayer();
    const server = await serve(home, [], env);
    try {
      await login(home, server.url);
      const r = await runTpa(['claim', 'submit', 'in.837', '-o', 'ndjson'], { home, env });
      expectSegment(r.stdout);
    } finally {
      await server.stop();
    }
  });
});

describe("a batch's DENIED claim says why", () => {
  it('the denial code and reason in the ndjson outcome and on stderr', async () => {
    // The same claim in a second interchange: the engine's duplicate rule denies it (CARC-18).
    write('a.837', file837([professionalClaim({ clm01: 'DUP1' })], '000000001'));
    write('b.837', file837([professionalClaim({ clm01: 'DUP1' })], '000000002'));
    const first = await runTpa(['claim', 'submit', 'a.837', '-p', 'local', '--wait', '-o', 'ndjson'], { home, env });
    expect(ndjson(first.stdout)[0]).toMatchObject({ disposition: 'APPROVED' });
    const second = await runTpa(['claim', 'submit', 'b.837', '-p', 'local', '--wait', '-o', 'ndjson'], { home, env });
    const [outcome] = ndjson(second.stdout);
    expect(outcome).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18', denial_reason: expect.any(String) });
    expect(outcome!.denial_reason.length).toBeGreaterThan(0);
    expect(second.stderr).toMatch(/^note: b\.837: ST 0001, CLM DUP1: DENIED CARC-18: \S/m);
    const csv = await runTpa(['claim', 'submit', 'b.837', '-p', 'local', '--wait', '-o', 'csv', '--journal', 'other.journal'], { home, env });
    expect(csv.stdout.split('\n')[0]).toContain('denial_code');
  });
});

describe('claim validate runs the clock rules claim submit runs', () => {
  it('on another profile, a BHT04 after today (this machine’s clock) is refused, as the service refuses it', async () => {
    // Real clocks on both sides (no TPA_CLOCK): the day after tomorrow is after today on either.
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    write('in.837', file837([professionalClaim({ clm01: 'FUT1' })]).replace('BHT*0019*00*0123*20250115', `BHT*0019*00*0123*${later.replaceAll('-', '')}`));
    const server = await serve(home);
    try {
      await login(home, server.url);
      const validate = await runTpa(['claim', 'validate', 'in.837', '-o', 'ndjson'], { home });
      expect(validate.code).toBe(2);
      expect(ndjson(validate.stdout)[0]!.errors).toEqual([
        expect.objectContaining({ segment: 'BHT', field: 'created', message: expect.stringMatching(new RegExp(`^is ${later}, after today`)) }),
      ]);
      const submit = await runTpa(['claim', 'submit', 'in.837', '-o', 'ndjson'], { home });
      expect(ndjson(submit.stdout)[0]).toMatchObject({ status: 'FAILED', errors: [expect.objectContaining({ field: 'created', segment: 'BHT' })] });
      // One JSON claim the same: refused naming created, exit 2.
      const template = await runTpa(['claim', 'template'], { home });
      const claim = JSON.parse(template.stdout);
      claim.created = later;
      write('one.json', JSON.stringify(claim, null, 2));
      const one = await runTpa(['claim', 'validate', 'one.json'], { home });
      expect(one.code).toBe(2);
      expect(one.stderr).toMatch(new RegExp(`created: is ${later}, after today`));
    } finally {
      await server.stop();
    }
  });
});
