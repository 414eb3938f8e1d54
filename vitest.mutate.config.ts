import { defineConfig } from 'vitest/config';
import { define } from './scripts/define.mjs';

// The suite a mutant can reach (`npm run mutate`): the unit and engine tests import src/ directly.
// The CLI, HTTP and TLS suites run the built bundle in dist/, which Stryker does not mutate.
export default defineConfig({
  define,
  test: {
    include: ['test/unit/**/*.test.ts', 'test/engine/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
