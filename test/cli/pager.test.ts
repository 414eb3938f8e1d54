// Long listings page through $PAGER on a terminal, as gh does: a real process under a pty, with
// PAGER set to a small script that records what it got (no dependence on less being installed).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { ptyRun, SIZES } from '../helpers/pty.js';
import { distinctClaim } from '../helpers/claims.js';

let home: ReturnType<typeof tempDir>;
let bin: string;
let recorder: string;
beforeAll(() => {
  home = tempDir();
  bin = join(home.dir, 'bin');
  // A pager that writes down its arguments, $LESS and its input, and shows one line instead.
  recorder = join(home.dir, 'record-pager');
  const script = `#!/bin/sh\nprintf '%s\\n' "$*" > "$PAGER_RECORD.args"\nprintf '%s\\n' "\${LESS-unset}" > "$PAGER_RECORD.less"\ncat > "$PAGER_RECORD.in"\necho PAGER-DONE\n`;
  writeFileSync(recorder, script);
  chmodSync(recorder, 0o755);
  // A `less` of the same kind, first on the PATH, for the default.
  mkdirSync(bin);
  writeFileSync(join(bin, 'less'), script);
  chmodSync(join(bin, 'less'), 0o755);
});
afterAll(() => home.remove());

let n = 0;
/** A fresh record file's stem. */
const record = () => join(home.dir, `rec-${++n}`);

describe('the pager', () => {
  for (const { cols, rows } of SIZES) {
    it(`a long listing on a terminal goes through $PAGER, whole and at the terminal's width (${cols}x${rows})`, async () => {
      const rec = record();
      const r = await ptyRun(['local', 'fixtures'], [], { home: home.dir, cols, rows, env: { PAGER: recorder, PAGER_RECORD: rec, LESS: undefined } });
      expect(r.exit_code, r.output).toBe(0);
      const paged = readFileSync(`${rec}.in`, 'utf8');
      expect(paged).toMatch(/Providers[\s\S]*Riverside Surgery Center[\s\S]*Contracts[\s\S]*Members/);
      // Its tables are drawn for the terminal's width, as without a pager.
      const tableLines = paged.split('\n').filter((l) => /[│┌└]/.test(l));
      expect(tableLines.length).toBeGreaterThan(10);
      expect(Math.max(...tableLines.map((l) => stripVTControlCharacters(l).length))).toBeLessThanOrEqual(cols);
      // The listing went to the pager, not past it to the screen.
      expect(r.output).toContain('PAGER-DONE');
      expect(r.output).not.toContain('Riverside Surgery Center');
      // LESS says what a less started as the pager does, unless the user set it.
      expect(readFileSync(`${rec}.less`, 'utf8').trim()).toBe('FRX');
    });
  }

  it('with PAGER unset the pager is less -FRX; TPA_PAGER wins over PAGER', async () => {
    const rec = record();
    const r = await ptyRun(['local', 'fixtures'], [], {
      home: home.dir,
      env: { PAGER: undefined, PATH: `${bin}:${process.env.PATH}`, PAGER_RECORD: rec },
    });
    expect(r.exit_code, r.output).toBe(0);
    expect(readFileSync(`${rec}.args`, 'utf8').trim()).toBe('-FRX');
    const mine = record();
    const both = await ptyRun(['local', 'fixtures'], [], { home: home.dir, env: { PAGER: 'false', TPA_PAGER: recorder, PAGER_RECORD: mine } });
    expect(both.exit_code, both.output).toBe(0);
    expect(readFileSync(`${mine}.in`, 'utf8')).toContain('Riverside Surgery Center');
  });

  it('--no-pager, PAGER=cat and TPA_PAGER=cat print straight to the terminal', async () => {
    for (const [args, env] of [
      [['--no-pager'], { PAGER: recorder }],
      [[], { PAGER: 'cat' }],
      [[], { PAGER: recorder, TPA_PAGER: 'cat' }],
    ] as const) {
      const rec = record();
      const r = await ptyRun([...args, 'local', 'fixtures'], [], { home: home.dir, env: { ...env, PAGER_RECORD: rec } });
      expect(r.exit_code, r.output).toBe(0);
      expect(r.output, JSON.stringify(env)).toContain('Riverside Surgery Center');
      expect(existsSync(`${rec}.in`), JSON.stringify(env)).toBe(false);
    }
  });

  for (const { cols, rows } of [
    { cols: 80, rows: 24 },
    { cols: 120, rows: 40 },
  ]) {
    it(`a listing shorter than the screen is printed as it is, no pager; taller, it is paged: fund run --dry-run (${cols}x${rows})`, async () => {
      const dir = tempDir();
      try {
        const short = record();
        const history = await ptyRun(['fund', 'history'], [], { home: dir.dir, cols, rows, env: { PAGER: recorder, PAGER_RECORD: short } });
        expect(history.exit_code, history.output).toBe(0);
        expect(history.output).toContain('No approvals from this machine.');
        expect(existsSync(`${short}.in`)).toBe(false);
        // More encounters than the screen has rows: the dry run's listing is paged, a row a line, the summary last.
        const file = join(dir.dir, 'claims.ndjson');
        writeFileSync(file, `${Array.from({ length: rows + 20 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
        const submitted = await tpa(['claim', 'submit', file, '-o', 'ndjson'], { home: dir.dir });
        expect(submitted.code, submitted.stderr).toBe(0);
        // Those with a benefit above 0.00 (a member's first claims may go to the deductible), more than the screen has rows.
        const selected = (await tpa(['fund', 'run', '--dry-run', '-o', 'json'], { home: dir.dir })).json<{ count: number }>().count;
        expect(selected).toBeGreaterThan(rows);
        const long = record();
        const run = await ptyRun(['fund', 'run', '--dry-run'], [], { home: dir.dir, cols, rows, env: { PAGER: recorder, PAGER_RECORD: long } });
        expect(run.exit_code, run.output).toBe(0);
        const paged = stripVTControlCharacters(readFileSync(`${long}.in`, 'utf8'));
        expect(paged.split('\n').filter((l) => /│ enc_/.test(l)).length).toBe(selected);
        expect(Math.max(...paged.split('\n').map((l) => l.length))).toBeLessThanOrEqual(cols);
        expect(paged).toMatch(/Payment run \(dry run: nothing is sent\): \d+ encounters/);
        expect(run.output).toContain('PAGER-DONE');
        // The same run without --dry-run is not a listing: it asks, and is never paged.
        const { isPaged } = await import('../../src/cli/pager.js');
        expect(isPaged('fund run', () => false)).toBe(false);
        expect(isPaged('fund run', (flag) => flag === 'dryRun')).toBe(true);
      } finally {
        dir.remove();
      }
    });
  }

  it('piped output never pages, in any format; nor does a command that is not a listing', async () => {
    for (const format of [[], ['-o', 'table'], ['-o', 'json'], ['-o', 'csv'], ['-o', 'ndjson']]) {
      const rec = record();
      const r = await tpa(['local', 'fixtures', ...format], { home: home.dir, env: { PAGER: recorder, PAGER_RECORD: rec } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/1234567893/);
      expect(existsSync(`${rec}.in`), format.join(' ')).toBe(false);
    }
    const rec = record();
    const clock = await ptyRun(['local', 'clock'], [], { home: home.dir, env: { PAGER: recorder, PAGER_RECORD: rec } });
    expect(clock.exit_code).toBe(0);
    expect(existsSync(`${rec}.in`)).toBe(false);
  });
});
