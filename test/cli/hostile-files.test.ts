// A file named on the command line is read no further than its bound, whatever it is: /dev/zero
// (a stat says 0 bytes, a read never ends), a pipe, an endless line. Each refusal is exit 2 with a
// message, never a heap exhausted, and a header line is not echoed back whole.
import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedLines, type LINE_NOT_UTF8, LINE_TOO_LONG, readStreamBounded } from '../../src/cli/bounded-input.js';
import { useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll, { TPA_CLOCK: '2026-06-30T12:00:00Z' });
const run = home.run;

describe('files with no size to trust', () => {
  it('tpa api -d @/dev/zero and ratesheet import /dev/zero stop at 64 MiB: exit 2, nothing sent', async () => {
    const api = await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', '@/dev/zero']);
    expect(api.code, api.stderr).toBe(2);
    expect(api.stderr).toMatch(/\/dev\/zero: request body file is larger than 64 MiB/);
    const csv = await run(['ratesheet', 'import', 'BLD-1001', '/dev/zero', '--yes']);
    expect(csv.code, csv.stderr).toBe(2);
    expect(csv.stderr).toMatch(/\/dev\/zero: CSV file is larger than 64 MiB/);
  });

  it('a CSV header of unknown names is not echoed back whole', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    const file = join(home.dir, 'wide.csv');
    writeFileSync(file, `${'a'.repeat(100_000)},${Array.from({ length: 20 }, (_, i) => `x${i}`).join(',')}\nHD-0401,CASE_RATE,100,,\n`);
    const r = await run(['ratesheet', 'import', 'BLD-1001', file, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(2_000);
    expect(r.stderr).toMatch(/unknown a{40}…, x0, x1, x2, x3 and 16 more/);
  });
});

describe('boundedLines', () => {
  const lines = async (chunks: string[], max: number, giveUp?: number) => {
    const out: (string | typeof LINE_TOO_LONG | typeof LINE_NOT_UTF8)[] = [];
    for await (const l of boundedLines(Readable.from(chunks.map((c) => Buffer.from(c))), max, giveUp)) out.push(l);
    return out;
  };

  it('splits as readline does (CRLF, a last line without LF, a character split between chunks)', async () => {
    const euro = Buffer.from('€');
    const chunks = [Buffer.from('a\r\nb'), euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('\n\nlast')])];
    const out: unknown[] = [];
    for await (const l of boundedLines(Readable.from(chunks), 100)) out.push(l);
    expect(out).toEqual(['a', 'b€', '', 'last']);
  });

  it('a line over the bound is read past and said, the lines after it kept; an endless one ends the reading', async () => {
    expect(await lines(['ok\n', 'x'.repeat(30), 'y'.repeat(30), '\nnext\n'], 50)).toEqual(['ok', LINE_TOO_LONG, 'next']);
    expect(await lines(['ok\n', ...Array.from({ length: 100 }, () => 'z'.repeat(100))], 50, 1_000)).toEqual(['ok', LINE_TOO_LONG]);
  });

  it('readStreamBounded stops past its bound', async () => {
    expect(await readStreamBounded(Readable.from([Buffer.from('abc'), Buffer.from('def')]), 6)).toBe('abcdef');
    expect(await readStreamBounded(Readable.from([Buffer.from('abc'), Buffer.from('defg')]), 6)).toBeUndefined();
  });
});
