// docs/screens.md is made by scripts/screens.mjs from real runs under a pseudo-terminal: the script
// runs here into a temporary file, and its captures must hold what they are there to show.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = tempDir();
afterAll(() => dir.remove());

/** The text block under a `## ` heading. */
function capture(doc: string, heading: string): string[] {
  const at = doc.indexOf(`## ${heading}`);
  expect(at, heading).toBeGreaterThan(-1);
  const block = /```text\n([\s\S]*?)\n```/.exec(doc.slice(at))!;
  return block[1]!.split('\n');
}

describe('scripts/screens.mjs (npm run screens)', () => {
  it('writes the 80-column screens of a batch at its midpoint and of fund run at its total prompt', async () => {
    const out = join(dir.dir, 'screens.md');
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [join(ROOT, 'scripts', 'screens.mjs'), '--out', out], { cwd: ROOT, timeout: 600_000 }, (err, _stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(),
      ),
    );
    const doc = readFileSync(out, 'utf8');
    const batch = capture(doc, 'A claim batch at its midpoint');
    // The command, then at most 30 rows of 80 columns.
    expect(batch.length).toBeLessThanOrEqual(31);
    for (const line of batch.slice(1)) expect(line.length, line).toBeLessThanOrEqual(80);
    const progress = batch.filter((l) => /\d+ of 200 claims/.test(l));
    expect(progress, batch.join('\n')).toHaveLength(1);
    expect(progress[0]).toMatch(/100 of 200 claims.*rate limited, resuming in \S+.*about \S+ left/);
    expect(batch.join('\n')).toMatch(/this key allows 100 requests a minute/);
    const run = capture(doc, '`fund run` at its total prompt');
    expect(run.length).toBeLessThanOrEqual(31);
    expect(run.join('\n')).toMatch(/type the total/);
  }, 600_000);
});
