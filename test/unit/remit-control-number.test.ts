// The interchange control number (ISA13) of `settlement remit`: two remits at
// once, in two real processes, never take the same number; files are written whole through
// files/write-whole.ts, which removes only the temporary file it made.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeNewWhole } from '../../src/files/write-whole.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

/** `count` control numbers taken one after another by a process of its own; what it took. */
function take(bundle: string, dataDir: string, count: number): Promise<number[]> {
  const script = `const { nextControlNumber } = require(${JSON.stringify(bundle)});
(async () => { const got = []; for (let i = 0; i < ${count}; i++) got.push(await nextControlNumber(${JSON.stringify(dataDir)})); process.stdout.write(JSON.stringify(got)); })();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`exit ${code}`))));
  });
}

describe('the X12 control number', () => {
  it('two processes taking numbers at once never get the same one, and the file ends at the last', async () => {
    // Beside the project's node_modules, where the bundle finds better-sqlite3 (the lock's).
    const dir = mkdtempSync(join(process.cwd(), 'node_modules', '.tpa-test-'));
    const bundle = join(dir, 'remit.cjs');
    buildSync({
      entryPoints: ['src/jobs/remit.ts'],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      external: ['better-sqlite3*'],
      logLevel: 'silent',
    });
    const [a, b] = await Promise.all([take(bundle, home.dir, 150), take(bundle, home.dir, 150)]).finally(() => rmSync(dir, { recursive: true, force: true }));
    const all = [...a!, ...b!].sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(readFileSync(join(home.dir, 'x12-control-number'), 'utf8')).toBe('300\n');
  }, 60_000);
});

describe('writeNewWhole', () => {
  it('keeps a file already there, and never removes a file it did not make (one named as its temporary files were)', () => {
    const path = join(home.dir, 'out.835');
    const other = `${path}.${process.pid}.tmp`;
    writeFileSync(other, 'not ours');
    expect(writeNewWhole(path, 'first', false)).toBe('written');
    expect(readFileSync(other, 'utf8')).toBe('not ours');
    expect(writeNewWhole(path, 'second', false)).toBe('exists');
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(writeNewWhole(path, 'third', true)).toBe('written');
    expect(readFileSync(path, 'utf8')).toBe('third');
    expect(existsSync(other)).toBe(true);
  });
});
