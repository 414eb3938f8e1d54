import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { define } from './scripts/define.mjs';

/**
 * The files that take longest (they run real processes, or many cases), first: started last, one of
 * them would run alone at the end. Vitest orders by the last run's durations when it has them; a
 * fresh clone has none.
 */
const LONGEST = [
  'test/cli/crash.test.ts',
  'test/cli/claim/submit-batch.test.ts',
  'test/cli/fund-interactive.test.ts',
  'test/cli/fund/run.test.ts',
  'test/engine/line-rules.property.test.ts',
  'test/cli/credentials.test.ts',
  'test/http/retry.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  define,
  test: {
    include: ['test/**/*.test.ts'],
    // The keychain suite runs apart, inside its own D-Bus session (scripts/test.mjs).
    exclude: ['test/keychain/**', 'test/package/**', 'node_modules/**'],
    // Every exchange with a server a test starts is checked against docs/openapi.yaml.
    setupFiles: ['test/helpers/openapi-setup.ts'],
    // Time limits are for a test that hangs, never for a slow machine: generous, so that a loaded
    // 2-core machine passes what a quiet one does.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Forks, not threads: runTpa changes the working directory, which a worker thread cannot. Three
    // on two cores: the process tests spend much of their time waiting for their children.
    pool: 'forks',
    maxWorkers: 3,
    // A fork runs its files one after another with the modules it has loaded (the engine, the
    // CLI): importing them again for each file was a quarter of the suite's CPU time. Nothing a
    // test file leaves behind reaches the next: homes are fresh temporary folders, runTpa puts back
    // the working directory and the variables it set, and no file mocks a module.
    isolate: false,
    sequence: { sequencer: LongestFirst },
  },
});
