// Start-up of JSON-only claim commands (docs/design.md "Start-up"): `claim submit` and `claim
// validate` of JSON claims do not load the X12 reader (src/domain/x12-837.ts, ~1,000 lines); it is
// loaded where an X12 file is met.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';

const state = vi.hoisted(() => ({ loaded: 0 }));
vi.mock('../../src/domain/x12-837.js', async (importOriginal) => {
  state.loaded++;
  return await importOriginal();
});

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

it('JSON claims are read without loading the X12 reader; an 837 among them loads it', async () => {
  const { claimTexts, countClaims } = await import('../../src/cli/commands/claim/submit-sources.js');
  const json = join(home, 'claim.json');
  writeFileSync(json, JSON.stringify({ resourceType: 'Claim', status: 'active' }));
  const read = async (paths: string[]) => {
    const out = [];
    for await (const c of claimTexts(
      paths,
      () => process.stdin,
      () => undefined,
    ))
      out.push(c);
    return out;
  };
  expect(await countClaims([json])).toBe(1);
  expect(await read([json])).toHaveLength(1);
  expect(state.loaded).toBe(0);
  const x12 = join(home, 'claims.837');
  writeFileSync(x12, interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'A' })] })]));
  expect((await read([json, x12])).map((c) => c.source)).toEqual([json, `${x12}: ST 0001, CLM A`]);
  expect(state.loaded).toBe(1);
});
