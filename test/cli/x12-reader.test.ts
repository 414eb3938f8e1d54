// The 837 reader through the command line: a folder's X12 files told by their content, and what
// the reader says of a claim (notes told from refusals, every problem at once, each with its
// segment). Synthetic 837s with the engine's seed members and providers (test/helpers/x12.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
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
    expect(convert.stderr).toMatch(/^in: 1 other entry skipped \(notes\.txt\): claim convert reads X12 files \(any file starting with ISA/m);
    const validate = await runTpa(['claim', 'validate', 'in', '-o', 'ndjson'], { home, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(ndjson(validate.stdout).map((c) => [c.source, c.valid])).toEqual([
      ['in/a.837p: ST 0001, CLM PA', true],
      ['in/b.837i: ST 0001, CLM PB', true],
      ['in/c.txt: ST 0001, CLM PC', true],
      ['in/d.dat: ST 0001, CLM PD', true],
    ]);
    expect(validate.stderr).toMatch(/^in: 1 other entry skipped \(notes\.txt\)/m);
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
    expect(convert.stderr).toMatch(/^in: 1 other entry skipped \(pipe\.dat\)/m);
  });
});
