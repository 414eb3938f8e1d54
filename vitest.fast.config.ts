import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { define } from './scripts/define.mjs';
import { fastFiles } from './scripts/fast-set.mjs';

// `npm run test:fast`, the inner loop: the test files that run in the test's own process (the unit
// and engine tests, and the CLI tests through run(args, io)), chosen by scripts/fast-set.mjs from
// what each file imports. None may start a process: test/helpers/no-processes.ts makes that fail.
// `npm test` still runs everything.
export default defineConfig({
  define,
  test: {
    include: fastFiles(),
    setupFiles: ['test/helpers/openapi-setup.ts', 'test/helpers/no-processes.ts'],
    // For a test that hangs, never for a slow machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // As in vitest.config.ts: forks (runTpa changes the working directory), modules kept between files.
    // CPU-bound, with nothing to wait for: one fork a core.
    pool: 'forks',
    maxWorkers: availableParallelism(),
    isolate: false,
  },
});
