// `npm run mutate` (scripts/mutate.mjs): StrykerJS over the rules where a bug moves money or opens
// a door, with the in-process tests (vitest.mutate.config.ts). docs/development.md "Mutation testing".

// The money rules, which `npm run mutate` tests by default: the amounts, the adjudication and its
// duplicate rule, the fee and payout split, funding, and the engine services and query that apply them.
export const MONEY_SCOPE = [
  'src/domain/money.ts',
  'src/domain/adjudication.ts',
  'src/domain/contract-rates.ts',
  'src/domain/modifiers.ts',
  'src/domain/settlement.ts',
  'src/domain/funding.ts',
  'src/engine/services/claims.ts',
  'src/engine/services/funding.ts',
  'src/engine/services/settlement.ts',
  'src/engine/store/paid-lines.ts',
];

// `npm run mutate -- --all`: every rule where a bug moves money or opens a door.
export const ALL_SCOPE = [
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
];

// scripts/mutate.mjs sets it for --all.
const ALL = process.env.TPA_MUTATE_SCOPE === 'all';

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
  mutate: ALL ? ALL_SCOPE : MONEY_SCOPE,
  // Each run keeps its results, and the next one tests only the mutants of what changed since (in
  // the source or in a test that reaches it). The money scope's file is committed, so a clone's
  // first run is incremental too; the whole scope's is not.
  incremental: true,
  incrementalFile: ALL ? 'reports/stryker-incremental-all.json' : 'test/mutation/incremental.json',
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  // Sandboxes and reports of other runs are not part of the project.
  ignorePatterns: ['.stryker-*', 'reports', 'test/mutation'],
  cleanTempDir: true,
  thresholds: { high: 95, low: 85, break: null },
};
