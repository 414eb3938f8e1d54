// The setup of `npm run test:fast` (vitest.fast.config.ts): in the inner loop no test starts a
// process. Every way node:child_process starts one throws instead, and a file that tried fails at
// its end even if the code under test caught the error. A file that needs a process belongs to the
// full suite; scripts/fast-set.mjs leaves it out by what it imports.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll } from 'vitest';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const tried: string[] = [];

/** Makes every starter of node:child_process refuse (for the ESM imports too); idempotent. */
export function refuseProcesses(): void {
  const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
  for (const name of STARTERS) {
    const refused = (...args: unknown[]) => {
      const what = `${name}(${JSON.stringify(args[0])})`;
      tried.push(what);
      throw new Error(`npm run test:fast starts no process, and this test tried ${what}: it belongs to npm test (scripts/fast-set.mjs)`);
    };
    childProcess[name] = refused;
  }
  syncBuiltinESMExports();
}

refuseProcesses();
afterAll(() => {
  const these = tried.splice(0);
  if (these.length > 0) throw new Error(`a test of npm run test:fast tried to start a process: ${these.join(', ')}`);
});
