// The memory of long X12 jobs, in a real process (a process's heap is the point): an 837's first
// reading (its envelopes) keeps V8's young generation at its first size, as the rest of the job
// does (src/cli/heap.ts keepHeapFlat), for claim validate and claim submit --dry-run as for
// claim convert. Left to grow there, it stayed at 16 to 32 MB for the rest of the run, a large part
// of what a 10,000-claim 837 submit peaked above its target; and from then on V8's optimizing
// compiler (TurboFan) is off, its compilations having stayed resident (docs/numbers-history.md "After the X12 pass").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

/** 5,000 claims in one transaction set, each of its own CLM01. */
function bigFile(): string {
  const claims = Array.from({ length: 5000 }, (_, i) => professionalClaim({ clm01: `P${i}`, lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] }));
  return interchange([transaction({ st02: '0001', type: 'professional', claims })]);
}

/** A preload that writes the young generation's largest size (bytes) when the process exits. */
function youngGenerationProbe(out: string): string {
  const probe = join(home, 'probe.mjs');
  writeFileSync(
    probe,
    `import { getHeapSpaceStatistics } from 'node:v8';
import { writeFileSync } from 'node:fs';
let largest = 0;
const look = () => { const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); if (s && s.space_size > largest) largest = s.space_size; };
const { PerformanceObserver } = await import('node:perf_hooks');
new PerformanceObserver(look).observe({ entryTypes: ['gc'] });
process.on('exit', () => { look(); writeFileSync(${JSON.stringify(out)}, String(largest)); });
`,
  );
  return probe;
}

describe('an 837 read by a long job', () => {
  for (const args of [
    ['claim', 'validate'],
    ['claim', 'submit', '--dry-run'],
  ]) {
    it(`tpa ${args.join(' ')} of 5,000 claims keeps the young generation at its first size through the first reading`, async () => {
      writeFileSync(join(home, 'big.837'), bigFile());
      const out = join(home, 'young');
      const r = await tpa([...args, 'big.837', '-o', 'ndjson'], {
        home,
        env: { TPA_CLOCK: '2026-06-30T12:00:00Z', NODE_OPTIONS: `--import ${youngGenerationProbe(out)}` },
        timeoutMs: 300_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(5000);
      // Its first size is 1 to 4 MB as Node starts it (4.25 MB seen on a quiet machine: V8 rounds to
      // its pages); grown, 16 MB or more: the line between them is drawn at 8 MB.
      expect(Number(readFileSync(out, 'utf8'))).toBeLessThan(8 * 1024 * 1024);
    }, 300_000);
  }
});

describe('the first reading, one buffer read again and again', () => {
  it('takes characters cut at the end of a read whole, and names a byte that is not UTF-8 far into the file by its offset', async () => {
    // Two-, three- and four-byte characters in every claim: some fall across the reads' edges.
    const text = bigFile().replaceAll('DOE*JANE', 'DOÉ*JAÑE☃𝄞');
    writeFileSync(join(home, 'wide.837'), text);
    const good = await runTpa(['claim', 'convert', 'wide.837'], { home, env: { TPA_CLOCK: '2026-06-30T12:00:00Z' } });
    expect(good.code, good.stderr.slice(0, 500)).toBe(0);
    expect(good.stdout.trim().split('\n')).toHaveLength(5000);
    const bytes = Buffer.from(text);
    const at = bytes.indexOf('JAÑE', 1_000_000) + 2;
    bytes[at] = 0xff;
    writeFileSync(join(home, 'bad.837'), bytes);
    const bad = await runTpa(['claim', 'convert', 'bad.837'], { home, env: { TPA_CLOCK: '2026-06-30T12:00:00Z' } });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain(`byte ${at} is not UTF-8 text`);
  }, 120_000);
});

describe('the compiler of a long X12 job', () => {
  it('claim convert of 5,000 claims optimizes nothing with TurboFan once the 837 is being read (its compilations stayed resident)', async () => {
    writeFileSync(join(home, 'big.837'), bigFile());
    // V8 says on stdout each function it compiles, and with which compiler.
    const trace = join(home, 'trace.mjs');
    writeFileSync(trace, "import { setFlagsFromString } from 'node:v8';\nsetFlagsFromString('--trace-opt');\n");
    const r = await tpa(['claim', 'convert', 'big.837'], {
      home,
      env: { TPA_CLOCK: '2026-06-30T12:00:00Z', NODE_OPTIONS: `--import ${trace}` },
      timeoutMs: 300_000,
    });
    expect(r.code, r.stderr).toBe(0);
    // V8's lines and the claims' share stdout, and may cut into each other: each is looked for as text.
    expect(r.stdout.match(/TURBOFAN[^\n]*/g) ?? []).toEqual([]);
    // Maglev compiles what is hot (the trace says so); TurboFan nothing (it did 40 functions and more).
    expect(r.stdout).toContain('(target MAGLEV)');
    expect(r.stdout.split('{"resourceType":"Claim"').length - 1).toBe(5000);
  }, 300_000);
});
