import { defineConfig } from 'vitest/config';
import { define } from './scripts/define.mjs';

export default defineConfig({
  define,
  test: {
    include: ['test/**/*.test.ts'],
    // The keychain suite runs apart, inside its own D-Bus session (scripts/test.mjs).
    exclude: ['test/keychain/**', 'node_modules/**'],
    // Time limits are for a test that hangs, never for a slow machine: generous, so that a loaded
    // 2-core machine passes what a quiet one does.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
