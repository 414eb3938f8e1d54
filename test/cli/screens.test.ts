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
  it('writes the 80-column screens of a batch at its midpoint, of fund run at its total prompt, and the approval screens of a local and a production profile', async () => {
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
    // The approval screens at 80×24, local and production: the command, then at most 24 rows of 80
    // columns, the first naming where the money moves, the question last.
    const where = {
      local: /^Profile local · local engine \(no real money\) · ~\/\.local\/share\/tpa\/local\.sqlite$/,
      production: /^Profile prod · PRODUCTION · https:\/\/127\.0\.0\.1:\d+$/,
    };
    for (const [command, noun] of [
      ['fund approve', 'amount'],
      ['fund run', 'total'],
    ] as const) {
      for (const env of ['local', 'production'] as const) {
        const screen = capture(doc, `\`${command}\` at its ${noun} to type, ${env}`);
        const why = screen.join('\n');
        expect(screen[0], why).toMatch(new RegExp(`^\\$ tpa ${command} `.replace(/ $/, '')));
        expect(screen.length, why).toBeLessThanOrEqual(25);
        for (const line of screen.slice(1)) expect(line.length, line).toBeLessThanOrEqual(80);
        expect(screen[1], why).toMatch(where[env]);
        expect(screen.at(-1), why).toBe(`  type the ${noun} to release (${/\(([\d,]+\.\d\d)\) to confirm/.exec(why)![1]}) to confirm`);
        expect(why).toMatch(env === 'production' ? /\? \[PRODUCTION\] Release/ : /\? Release/);
      }
    }
    expect(doc).toMatch(/on 127\.0\.0\.1/);
  }, 600_000);
});
