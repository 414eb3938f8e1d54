// `npm run mutate` (scripts/mutate.mjs): StrykerJS over the rules where a bug moves money or opens
// a door, with the in-process tests (vitest.mutate.config.ts). docs/development.md "Mutation testing".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Forks, as in the main suite: runTpa changes the working directory, which a worker thread cannot.
  vitest: { configFile: 'vitest.mutate.config.ts', pool: 'forks' },
  // Stryker rewrites the named tsconfig's `extends` and `references` for its sandbox through
  // TypeScript's JavaScript API, which TypeScript 7 (a native compiler) does not have. Ours has
  // neither to rewrite, so it names no file: the sandbox keeps tsconfig.json as it is.
  tsconfigFile: 'none',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/domain/**/*.ts',
    'src/engine/services/claims.ts',
    'src/engine/services/reveal.ts',
    'src/engine/services/funding.ts',
    'src/engine/services/settlement.ts',
    'src/engine/services/ledger.ts',
    'src/engine/services/keys.ts',
    // Their queries: the duplicate rule's paid lines, the ledger's pages, transfers and keys.
    'src/engine/store/paid-lines.ts',
    'src/engine/store/ledger.ts',
    'src/engine/store/settlements.ts',
    'src/engine/store/keys.ts',
    'src/engine/routes.ts',
    'src/server/limits.ts',
    'src/client/retry.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  // Sandboxes and reports of other runs are not part of the project.
  ignorePatterns: ['.stryker-*', 'reports'],
  cleanTempDir: true,
  thresholds: { high: 95, low: 85, break: null },
};
