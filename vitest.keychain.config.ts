import { defineConfig } from 'vitest/config';
import { define } from './scripts/define.mjs';

// The keychain suite: run by scripts/test.mjs inside a D-Bus session with an unlocked Secret Service.
export default defineConfig({
  define,
  test: {
    include: ['test/keychain/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
