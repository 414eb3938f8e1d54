// FirstSeen: where each X12 identity of a run was first met, held as digests outside the collected
// heap (src/jobs/first-seen.ts), and the one rule it serves: the second claim of an identity is
// refused naming the first (sameIdentitySaid, the batch's own check).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { sameIdentitySaid } from '../../src/cli/commands/claim/claim-check.js';
import { FirstSeen } from '../../src/jobs/first-seen.js';

describe('FirstSeen', () => {
  it('says nothing of an identity met first, and the first source of one met again, whatever the sources hold', () => {
    const seen = new FirstSeen();
    const long = `folder/${'é'.repeat(70_000)}.837: ST 0001, CLM A`;
    expect(seen.firstOf('x12:S:1:1:0001:A', 'a.837: ST 0001, CLM A')).toBeUndefined();
    expect(seen.firstOf('x12:S:1:1:0001:B', long)).toBeUndefined();
    expect(seen.firstOf('x12:S:1:1:0001:Ç', 'b.837: ST 0001, CLM Ç ☃')).toBeUndefined();
    expect(seen.firstOf('x12:S:1:1:0001:A', 'later')).toBe('a.837: ST 0001, CLM A');
    expect(seen.firstOf('x12:S:1:1:0001:B', 'later')).toBe(long);
    expect(seen.firstOf('x12:S:1:1:0001:Ç', 'later')).toBe('b.837: ST 0001, CLM Ç ☃');
    // An identity that only differs in case or by a character is another one.
    expect(seen.firstOf('x12:S:1:1:0001:a', 'c')).toBeUndefined();
    expect(seen.size).toBe(4);
  });

  it('keeps every identity and its first source across its growth (50,000)', () => {
    const seen = new FirstSeen();
    for (let i = 0; i < 50_000; i++) expect(seen.firstOf(`x12:S:1:1:${i % 7}:${i}`, `f${i % 3}.837: CLM ${i}`)).toBeUndefined();
    expect(seen.size).toBe(50_000);
    for (let i = 0; i < 50_000; i += 997) expect(seen.firstOf(`x12:S:1:1:${i % 7}:${i}`, 'again')).toBe(`f${i % 3}.837: CLM ${i}`);
    expect(seen.size).toBe(50_000);
  });

  it('holds 200,000 identities of claim convert outside the collected heap (a Map of their strings took 35 MB)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const same = sameIdentitySaid();
    const item = (i: number) => ({
      source: `claims/2026-12/batch-${i >> 14}.837: ST ${String(i >> 10).padStart(4, '0')}, CLM PATIENT${i}`,
      text: '',
      identity: { claim: `x12:CLEARINGHOUSE:${String(i >> 14).padStart(9, '0')}:1:${String(i >> 10).padStart(4, '0')}:PATIENT${i}`, clm01: `PATIENT${i}` },
    });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) expect(same(item(i)).errors).toBeUndefined();
    gc();
    const grew = process.memoryUsage().heapUsed - before;
    // The refusal of a second one still names the first, after all of them.
    expect(same(item(12_345)).errors?.[0]?.message).toContain(`as claims/2026-12/batch-0.837: ST 0012, CLM PATIENT12345 (x12:CLEARINGHOUSE:`);
    expect(grew).toBeLessThan(4 * 1024 * 1024);
  });
});
