import { defineConfig } from 'vitest/config';

// The package suite (`npm run test:package`, run by .ci/run): it packs, installs and builds
// executables from a fresh clone, so it runs apart from `npm test`.
export default defineConfig({
  test: { include: ['test/package/**/*.test.ts'], testTimeout: 900_000, hookTimeout: 900_000, pool: 'forks', maxWorkers: 1 },
});
