// The planted bugs of `npm run planted` (scripts/planted.mjs) are patches of today's code: each must
// still apply, or the check that the relations catch them would silently check nothing.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(import.meta.dirname, 'planted');

describe('the planted bugs', () => {
  it('there are four, and each patch applies to the code as it is', () => {
    const patches = readdirSync(dir).filter((f) => f.endsWith('.patch'));
    expect(patches).toHaveLength(4);
    for (const patch of patches) {
      expect(() => execFileSync('git', ['apply', '--check', join(dir, patch)], { cwd: join(dir, '../../..'), stdio: 'pipe' }), patch).not.toThrow();
    }
  });
});
