// The launcher keeps Node's compiled code in a folder of the user's own (0700): compiled code is run
// as is, so a folder another user may write in is never used. A real process, since the launcher is
// the point.
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
});
afterAll(() => home.remove());

const withCache = (cacheHome: string) =>
  tpa(['--version'], { home: home.dir, env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined } });

describe('the compile cache', () => {
  it('is made in the user cache folder, mode 0700, and filled', async () => {
    const cache = join(home.dir, 'own');
    expect((await withCache(cache)).code).toBe(0);
    const dir = join(cache, 'tpa', 'compile');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
  });

  it('is not used from a folder others may write in, and tpa still runs', async () => {
    const cache = join(home.dir, 'shared');
    const dir = join(cache, 'tpa', 'compile');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    const r = await withCache(cache);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
