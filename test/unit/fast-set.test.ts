// `npm run test:fast` (vitest.fast.config.ts) runs the test files scripts/fast-set.mjs finds to run
// in the test's own process. These keep that reading honest: every helper that starts a process is
// named, and a file using one is out.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fastFiles, PROCESS_HELPERS, startsProcess } from '../../scripts/fast-set.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HELPERS = `${ROOT}test/helpers/`;
/** The examples below are written with FROM and IMPORT, so that this file's own source imports no process helper. */
const written = (source: string) => source.replace(' FROM ', ' from ').replace('IMPORT(', 'import(');

describe('the fast set', () => {
  it('names, for every helper that imports node:child_process, what it exports that starts a process; and only what it exports', () => {
    const helpers = readdirSync(HELPERS).filter((f) => f.endsWith('.ts'));
    const starting = helpers.filter((f) => /from ['"]node:child_process['"]/.test(readFileSync(`${HELPERS}${f}`, 'utf8')));
    expect(starting.length).toBeGreaterThan(0);
    for (const f of starting)
      expect(Object.keys(PROCESS_HELPERS), `test/helpers/${f} starts processes: name its exports in scripts/fast-set.mjs`).toContain(f.replace(/\.ts$/, ''));
    for (const [module, names] of Object.entries(PROCESS_HELPERS)) {
      const source = readFileSync(`${HELPERS}${module}.ts`, 'utf8');
      for (const name of names) expect(source, `${module}.ts exports ${name}`).toMatch(new RegExp(`export (?:async )?(?:function|const|class) ${name}\\b`));
    }
  });

  it('leaves out a file that starts a process, in every way a test file imports one', () => {
    const out = [
      "import { spawn } FROM 'node:child_process';",
      "import { build } FROM 'esbuild';",
      "import { runTpa, tpa } FROM '../helpers/cli.js';",
      "import {\n  TPA_BIN,\n  useTpaHome,\n} FROM '../../helpers/cli.js';",
      "import { type Served, serve } FROM '../../helpers/server.js';",
      "  const { serve } = await IMPORT('../../helpers/server.js');",
      "import { ptyRun as drive } FROM '../helpers/pty.js';",
      "import { killRepeatedly } FROM '../helpers/kill.js';",
      "import { TestCa } FROM '../helpers/certs.js';",
    ];
    for (const source of out.map(written)) expect(startsProcess(source, 'test/cli/fund/x.test.ts', ROOT), source).toBeDefined();
    expect(startsProcess(written("import { runNode } FROM '../../bench/lib/ledger.mjs';"), 'test/unit/x.test.ts', ROOT)).toMatch(/bench\/lib\/ledger\.mjs/);
  });

  it('keeps a file that runs in its own process: runTpa, the engine, a screen read from text', () => {
    const kept = [
      "import { runTpa, useTpaHome } FROM '../helpers/cli.js';",
      "import { type RunResult } FROM '../../helpers/cli.js';",
      "import { createKey, login } FROM '../helpers/server.js';",
      "import { screenOf } FROM '../helpers/pty.js';",
      "import { engineAt } FROM '../helpers/engine.js';",
      "import { formatCents } FROM '../../src/domain/money.js';",
    ];
    for (const source of kept.map(written)) expect(startsProcess(source, 'test/cli/x.test.ts', ROOT), source).toBeUndefined();
  });

  it('holds the in-process tests of the verbs and none of the process tests', () => {
    const fast = fastFiles(ROOT);
    for (const f of [
      'test/unit/money.test.ts',
      'test/engine/claims.test.ts',
      'test/cli/claim/template.test.ts',
      'test/cli/fund/run-review.test.ts',
      'test/unit/fast-set.test.ts',
    ])
      expect(fast).toContain(f);
    for (const f of [
      'test/cli/crash.test.ts',
      'test/cli/screen-pty.test.ts',
      'test/cli/fund/run.test.ts',
      'test/http/server.test.ts',
      'test/cli/exactly-once.test.ts',
    ])
      expect(fast).not.toContain(f);
  });
});
