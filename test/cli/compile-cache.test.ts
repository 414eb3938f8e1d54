// The launcher keeps Node's compiled code in a folder of the user's own (0700): compiled code is run
// as is, so a folder another user may write in is never used. And the command tree's code as V8
// compiled it while a command ran, one file a command (src/cli/tree-cache.ts). A real process, since
// the launcher and the build are the point.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
});
afterAll(() => home.remove());

const withCache = (cacheHome: string, args = ['--version']) =>
  tpa(args, { home: home.dir, env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined } });

const LOOKUP = ['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-o', 'json'];

/** The files of the command tree's code kept under `cache` (in Node's folder for its version). */
function treeFiles(cache: string): string[] {
  const dir = join(cache, 'tpa', 'compile');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /(^|\/)tree-[^/]*\.v8$/.test(f))
    .map((f) => join(dir, f));
}

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

  it('keeps the code a command ran, one file a command, 0600, and the next run starts from it', async () => {
    const cache = join(home.dir, 'tree');
    const first = await withCache(cache, LOOKUP);
    expect(first.code).toBe(0);
    const kept = treeFiles(cache);
    expect(kept.map((f) => f.split('/').pop())).toEqual([expect.stringMatching(/^tree-lookup-blind\.[0-9a-z]+\.[0-9a-f]{32}\.v8$/)]);
    // Named by the bundle's own hash (its first line), not its size and time: an upgrade to a
    // bundle of the same length, installed with the package's one time of writing, is new code.
    const hash = /^\/\*tpa-tree:([0-9a-f]{32})\*\//.exec(readFileSync(new URL('../../dist/tpa.cjs', import.meta.url), 'utf8'))?.[1];
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(kept[0]!.endsWith(`.${hash}.v8`)).toBe(true);
    expect(statSync(kept[0]!).mode & 0o777).toBe(0o600);
    const code = readFileSync(kept[0]!);
    // V8 took it: the second run neither rejects nor writes it again, and answers the same.
    const second = await withCache(cache, LOOKUP);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect(treeFiles(cache)).toEqual(kept);
    expect(readFileSync(kept[0]!).equals(code)).toBe(true);
    // Another command has its own.
    expect((await withCache(cache, ['config', 'list'])).code).toBe(0);
    expect(
      treeFiles(cache)
        .map((f) => f.split('/').pop()?.split('.')[0])
        .sort(),
    ).toEqual(['tree-config-list', 'tree-lookup-blind']);
  });

  it('keeps and takes no command code from a cache folder others may write in', async () => {
    const cache = join(home.dir, 'open');
    expect((await withCache(cache, LOOKUP)).code).toBe(0);
    const [kept] = treeFiles(cache);
    const folder = kept!.slice(0, kept!.lastIndexOf('/'));
    chmodSync(folder, 0o777);
    writeFileSync(kept!, 'planted by another user');
    const r = await withCache(cache, LOOKUP);
    expect(r.code, r.stderr).toBe(0);
    // Neither read (it would have been refused and replaced) nor written.
    expect(readFileSync(kept!, 'utf8')).toBe('planted by another user');
    chmodSync(folder, 0o700);
  });

  it('replaces a kept file V8 refuses, and tpa still runs', async () => {
    const cache = join(home.dir, 'garbage');
    expect((await withCache(cache, LOOKUP)).code).toBe(0);
    const [kept] = treeFiles(cache);
    writeFileSync(kept!, 'not code');
    const r = await withCache(cache, LOOKUP);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).match_found).toBe(true);
    expect(readFileSync(kept!, 'utf8')).not.toBe('not code');
  });

  it("keeps nothing of a command's help, which runs none of it: the command's own run keeps its code after it", async () => {
    const cache = join(home.dir, 'help');
    const help = await withCache(cache, [...LOOKUP, '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: tpa lookup blind');
    expect(treeFiles(cache)).toEqual([]);
    const run = await withCache(cache, LOOKUP);
    expect(run.code, run.stderr).toBe(0);
    expect(treeFiles(cache).map((f) => f.split('/').pop())).toEqual([expect.stringMatching(/^tree-lookup-blind\./)]);
  });

  it('keeps nothing of a command that failed', async () => {
    const cache = join(home.dir, 'failed');
    const r = await withCache(cache, ['lookup', 'blind', '--npi', 'nope', '--group', 'GRP-1001', '--cpt', '45378']);
    expect(r.code).not.toBe(0);
    expect(treeFiles(cache)).toEqual([]);
  });

  it('keeps nothing of a command that set V8 flags as it ran: the next start would refuse it', async () => {
    const cache = join(home.dir, 'flags');
    // A listing of every entry sizes its heap with V8 flags (src/cli/heap.ts).
    const r = await withCache(cache, ['ledger', 'list', '--all', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(treeFiles(cache)).toEqual([]);
  });
});
