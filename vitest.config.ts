import { defineConfig } from 'vitest/config';
import { define } from './scripts/define.mjs';

export default defineConfig({
  define,
  test: {
    include: ['test/**/*.test.ts'],
    // The keychain suite runs apart, inside its own D-Bus session (scripts/test.mjs).
    exclude: ['test/keychain/**', 'node_modules/**'],
    // CLI tests spawn real processes and open real SQLite files: give them time on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
