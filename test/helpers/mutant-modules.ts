// A setup file of `npm run mutate` (vitest.mutate.config.ts). The modules stay loaded from one
// mutant's run to the next (isolate: false), which is right for a mutant Stryker switches on while
// the tests run, not for one in code that runs as a module loads (a regular expression or a table
// at the top of a file: a static mutant). For a static mutant the modules are loaded again with it
// on, and dropped after it; before any other run, what loads sees no mutant.
import { afterAll, inject, vi } from 'vitest';

const get = (key: string) => inject(key as never) as unknown;

if (get('mode') === 'mutant') {
  if (get('mutantActivation') === 'static') {
    vi.resetModules();
    afterAll(() => {
      vi.resetModules();
    });
  } else {
    const ns = (globalThis as Record<string, { activeMutant?: unknown } | undefined>)[String(get('globalNamespace'))];
    if (ns) ns.activeMutant = undefined;
  }
}
