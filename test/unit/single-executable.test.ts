// Where the single executable keeps its SQLite addon (src/cli/single-executable.ts): written once,
// whole, into a folder of the user's own, and never taken from a place others may write in. The
// executable itself is run by test/package/sea.test.ts.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addonFolder, keptAddon } from '../../src/cli/single-executable.js';

const NAME = 'better_sqlite3-0123456789abcdef.node';
const BYTES = new Uint8Array(Buffer.from('an addon, as bytes'));
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tpa-sea-addon-'));
  chmodSync(root, 0o700);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('is kept under XDG_CACHE_HOME, else ~/.cache, in tpa/sea', () => {
  expect(addonFolder({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/tpa/sea');
  expect(addonFolder({})).toMatch(/\/\.cache\/tpa\/sea$/);
});

it('writes the addon once, 0600 in a 0700 folder, whatever the umask, and finds it there the next time', () => {
  const dir = join(root, 'cache', 'tpa', 'sea');
  const old = process.umask(0o022);
  try {
    const file = keptAddon(dir, NAME, BYTES);
    expect(file).toBe(join(dir, NAME));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(readFileSync(file!).equals(Buffer.from(BYTES))).toBe(true);
    const written = statSync(file!).mtimeMs;
    expect(keptAddon(dir, NAME, BYTES)).toBe(file);
    expect(statSync(file!).mtimeMs).toBe(written);
    expect(readdirSync(dir)).toEqual([NAME]);
  } finally {
    process.umask(old);
  }
});

it('writes again an addon kept short (not whole), under a temporary name then renamed', () => {
  const dir = join(root, 'sea');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, NAME), 'an add', { mode: 0o600 });
  expect(keptAddon(dir, NAME, BYTES)).toBe(join(dir, NAME));
  expect(readFileSync(join(dir, NAME)).equals(Buffer.from(BYTES))).toBe(true);
  expect(readdirSync(dir)).toEqual([NAME]);
});

it('keeps nothing in a folder others may write in, nor under a parent others may write in', () => {
  const open = join(root, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  expect(keptAddon(open, NAME, BYTES)).toBeUndefined();
  expect(readdirSync(open)).toEqual([]);
  const parent = join(root, 'parent');
  mkdirSync(join(parent, 'sea'), { recursive: true });
  chmodSync(parent, 0o777);
  chmodSync(join(parent, 'sea'), 0o700);
  expect(keptAddon(join(parent, 'sea'), NAME, BYTES)).toBeUndefined();
  expect(readdirSync(join(parent, 'sea'))).toEqual([]);
});

it('does not take a kept addon that others may write, nor one behind a symbolic link: it writes its own', () => {
  const dir = join(root, 'sea');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, NAME), 'x'.repeat(BYTES.length));
  chmodSync(join(dir, NAME), 0o666);
  expect(keptAddon(dir, NAME, BYTES)).toBe(join(dir, NAME));
  expect(readFileSync(join(dir, NAME)).equals(Buffer.from(BYTES))).toBe(true);
  expect(statSync(join(dir, NAME)).mode & 0o777).toBe(0o600);
  const elsewhere = join(root, 'elsewhere.node');
  writeFileSync(elsewhere, 'y'.repeat(BYTES.length), { mode: 0o600 });
  rmSync(join(dir, NAME));
  symlinkSync(elsewhere, join(dir, NAME));
  expect(keptAddon(dir, NAME, BYTES)).toBe(join(dir, NAME));
  expect(readFileSync(join(dir, NAME)).equals(Buffer.from(BYTES))).toBe(true);
  expect(readFileSync(elsewhere, 'utf8')).toBe('y'.repeat(BYTES.length));
});

it('writes again a kept addon whose bytes changed, its size and mode kept: only the carried bytes are loaded', () => {
  const dir = join(root, 'sea');
  const file = keptAddon(dir, NAME, BYTES)!;
  const tampered = Buffer.from(BYTES);
  tampered.write('XXXXXXXX', 3);
  writeFileSync(file, tampered);
  expect(statSync(file).size).toBe(BYTES.length);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(keptAddon(dir, NAME, BYTES)).toBe(file);
  expect(readFileSync(file).equals(Buffer.from(BYTES))).toBe(true);
  expect(readdirSync(dir)).toEqual([NAME]);
});
