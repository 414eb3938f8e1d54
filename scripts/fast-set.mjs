// The inner loop's tests (`npm run test:fast`, vitest.fast.config.ts): every test file that runs in
// the test's own process, and no other. A file is out when it starts a process: it imports
// node:child_process, or one of the helpers below that run `tpa`, a server, a terminal, openssl or
// kill -9. Nothing is listed by hand, so a new test is in or out by what it does; the fast run
// itself refuses to start a process (test/helpers/no-processes.ts), so a file that starts one in a
// way this reading misses fails there instead of slowing the loop.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folders the fast set is drawn from (the keychain and package suites run apart). */
export const FAST_FOLDERS = ['test/unit', 'test/engine', 'test/cli', 'test/http', 'test/reference'];

/**
 * The helpers (test/helpers/<module>.ts) that start a process, by module: what each exports that
 * does (cli.ts exports runTpa too, which runs in this process). test/unit/fast-set.test.ts fails
 * when a helper imports node:child_process and is not named here.
 */
export const PROCESS_HELPERS = {
  cli: ['tpa', 'TPA_BIN'],
  server: ['serve', 'useServedHome', 'useServedSides'],
  pty: ['ptyRun'],
  kill: ['killRepeatedly'],
  certs: ['TestCa'],
};

/** Packages that start a process of their own (esbuild runs its service binary). */
export const PROCESS_PACKAGES = ['node:child_process', 'esbuild'];

const CHILD_PROCESS = /(?:from\s*|import\(\s*)['"]node:child_process['"]/;

/**
 * Why a test file (its source, and its path from root) starts a process, or undefined when it runs
 * in the test's own process: it imports a package of PROCESS_PACKAGES, a process helper of
 * test/helpers, or a module outside src/ (bench/lib …) that imports node:child_process.
 */
export function startsProcess(source, file = '', root = process.cwd()) {
  for (const [, names, spec] of source.matchAll(
    /(?:import|const)\s*(?:type\s*)?(?:\{([^}]*)\}|[\w*\s]+)?\s*(?:from|=\s*await\s+import\(|import\()\s*['"]([^'"]+)['"]/g,
  )) {
    if (PROCESS_PACKAGES.includes(spec)) return `imports ${spec}`;
    if (!spec.startsWith('.')) continue;
    const helper = /(?:^|\/)helpers\/([\w-]+)\.js$/.exec(spec)?.[1];
    if (helper !== undefined) {
      const used = (names ?? '')
        .split(',')
        .map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0],
        )
        .filter((n) => (PROCESS_HELPERS[helper] ?? []).includes(n));
      if (used.length > 0) return `uses ${used.join(', ')} of test/helpers/${helper}.ts`;
      continue;
    }
    // The code under test may start a process where a test does not reach (a keychain, a pager):
    // the fast run's guard tells. Other modules (bench/lib …) start them for the test.
    const target = join(root, dirname(file), spec.replace(/\.js$/, '.ts'));
    if (target.startsWith(join(root, 'src/'))) continue;
    const imported = [target, target.replace(/\.ts$/, '.js'), join(root, dirname(file), spec)].find((f) => existsSync(f));
    if (imported && CHILD_PROCESS.test(readFileSync(imported, 'utf8'))) return `imports ${spec}, which starts processes`;
  }
  return undefined;
}

const testFiles = (root, dir) =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(root, path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });

/** Every test file of FAST_FOLDERS, each with why it starts a process (undefined: it is in the fast set). */
export function classified(root = process.cwd()) {
  return FAST_FOLDERS.flatMap((dir) => testFiles(root, dir)).map((file) => ({
    file,
    process: startsProcess(readFileSync(join(root, file), 'utf8'), file, root),
  }));
}

/** The fast set: the test files that run in the test's own process. */
export function fastFiles(root = process.cwd()) {
  return classified(root)
    .filter((f) => f.process === undefined)
    .map((f) => f.file);
}
