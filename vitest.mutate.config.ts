import { statSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { define } from './scripts/define.mjs';

/**
 * A mutant stops at its first failing test (Stryker bails): the pure unit tests first, then the
 * engine's files from the smallest, so that most mutants die in a fraction of a second instead of
 * after the longest engine files.
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const weight = (f: TestSpecification) => (f.moduleId.includes('/test/unit/') ? 0 : 1e9) + statSync(f.moduleId).size;
    return [...files].sort((a, b) => weight(a) - weight(b));
  }
}

// The suite a mutant can reach (`npm run mutate`): the unit and engine tests import src/ directly.
// The CLI, HTTP and TLS suites run the built bundle in dist/, which Stryker does not mutate.
export default defineConfig({
  define,
  test: {
    include: ['test/unit/**/*.test.ts', 'test/engine/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The modules stay loaded between a mutant's runs (a mutant is switched on at run time); a
    // mutant in code that runs as a module loads has them loaded again (test/helpers/mutant-modules.ts).
    isolate: false,
    setupFiles: ['test/helpers/mutant-modules.ts'],
    sequence: { sequencer: QuickestFirst },
  },
});
