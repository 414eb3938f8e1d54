import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, TPA_BIN, testEnv } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
  work = tempDir();
});
afterAll(() => {
  home.remove();
  work.remove();
});

describe('tpa demo', () => {
  it('says how many days the clock moves, and moves it by that many to the next business day', async () => {
    const r = await runTpa(['demo', '-o', 'table'], { home: home.dir, cwd: work.dir });
    expect(r.code, r.stderr).toBe(0);
    const words = /The next business day, (\w+) (\d{4}-\d{2}-\d{2}) \((\d+) days? later on the engine clock\)/.exec(r.stdout);
    expect(words, r.stdout).not.toBeNull();
    const [, weekday, date, days] = words!;
    expect(r.stdout).toContain(`$ tpa local clock advance ${days}d && tpa settlement show`);
    // A business day, and the first one after the approval's day: every day between is a weekend day.
    const dayName = (ms: number) => new Date(ms).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    const arrival = Date.parse(`${date}T00:00:00Z`);
    expect(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']).toContain(weekday);
    expect(dayName(arrival)).toBe(weekday);
    const between = Array.from({ length: Number(days) - 1 }, (_, i) => dayName(arrival - (i + 1) * 86_400_000));
    expect(
      between.every((d) => d === 'Saturday' || d === 'Sunday'),
      between.join(', '),
    ).toBe(true);
  });

  it('every command it suggests at the end runs as printed, in order, from the same folder and home', async () => {
    // Run as `tpa demo` (not through npx: npm_command is not exec), the lines say `tpa`.
    const r = await runTpa(['demo', '-o', 'table'], { home: home.dir, cwd: work.dir, env: { npm_command: '' } });
    expect(r.code).toBe(0);
    const next = r.stdout.slice(r.stdout.lastIndexOf('Next'));
    const lines = next
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    expect(lines.length).toBeGreaterThan(4);
    // `tpa` on the PATH, as the README's install puts it there.
    const bin = tempDir();
    try {
      writeFileSync(join(bin.dir, 'tpa'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TPA_BIN)} "$@"\n`);
      chmodSync(join(bin.dir, 'tpa'), 0o755);
      const env = testEnv({ home: home.dir });
      env.PATH = `${bin.dir}:${env.PATH}`;
      for (const line of lines) {
        const ran = spawnSync('sh', ['-c', line], { cwd: work.dir, env, encoding: 'utf8', input: '' });
        if (/^tpa fund run\s*(#|$)/.test(line)) {
          // The one documented refusal: moving money needs a terminal to confirm on (or --yes and the total).
          expect([ran.status, ran.stderr], line).toEqual([2, expect.stringMatching(/without a terminal to confirm on/)]);
        } else expect([ran.status, ran.stderr], line).toEqual([0, expect.anything()]);
      }
    } finally {
      bin.remove();
    }
  });

  it('run through npx, as the Quick start runs it, its closing lines say npx tpa, since tpa is not on the PATH yet', async () => {
    const r = await runTpa(['demo', '-o', 'table'], { home: home.dir, cwd: work.dir, env: { npm_command: 'exec' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .slice(r.stdout.lastIndexOf('Next'))
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) {
      // Every tpa of the line is npx tpa (the loop's too), and no bare one is left.
      expect(line.replace(/#.*$/, ''), line).toMatch(/\bnpx tpa /);
      expect(line.replace(/#.*$/, '').replace(/npx tpa /g, ''), line).not.toMatch(/\btpa /);
    }
  });
});
