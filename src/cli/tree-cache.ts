// Loads the command tree's bundle (dist/tpa.cjs, scripts/build.mjs) with V8 code made after a command
// has run (docs/design.md "Start-up"). Node's compile cache keeps only what V8 compiles before a file
// runs: the bundle's top level. Every function a command then runs (commander's, the engine's, the
// command's own) was compiled again at each start, a third of a lookup's work over bare Node
// (docs/numbers.md "Start-up pieces"). V8 can serialise those too, after they ran: this keeps that
// code per command (`lookup blind`, `ledger list`), so a command loads compiled code for what it runs
// and no other command's. Only the build uses this module; the tests run the sources.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, getCompileCacheDir } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The bytes that head V8's code cache: a magic number, V8's version, the source's length, V8's flags. */
const HEADER = 16;

/** The bundle at `file`, as require() would hand it, compiled with this command's kept code if there is any. */
export function loadTree(file: string, args: readonly string[]): unknown {
  const require = createRequire(file);
  // Where Node keeps its compile cache (the launcher's folder of the user's own, 0700, one folder
  // for each Node version): nowhere when the launcher found no such folder or the cache is off.
  const dir = getCompileCacheDir?.();
  if (!dir) return require(file);
  let source: string;
  let stamp: string;
  try {
    source = readFileSync(file, 'utf8');
    const st = statSync(file);
    // The bundle's size and time of writing name its code, as Python names its compiled files: a
    // new build is new code. (V8 checks its own version, its flags and the length of the source.)
    stamp = `${st.size}-${Math.floor(st.mtimeMs)}`;
  } catch {
    return require(file);
  }
  const name = `tree-${commandKey(args)}`;
  const cacheFile = join(dir, `${name}.${stamp}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet: made when this command ends well (below).
  }
  const vm = process.getBuiltinModule('node:vm');
  // The bundle's one import() (the prompts, an ES module) comes here as __tpaImport (scripts/build.mjs):
  // code compiled by node:vm has no import() of its own without an experimental option.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __tpaImport) {${source}\n})`, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // What V8 checks a cache against (its version and flags) heads the code it makes.
    const header = script.createCachedData().subarray(0, HEADER);
    // The code of the functions that ran is there at exit; a failed command may have stopped short.
    process.once('exit', (code) => {
      if (code !== 0) return;
      const data = script.createCachedData();
      // A command that set V8's flags as it ran (a long listing sizes its heap, src/cli/heap.ts) made
      // code that the next start, with Node's flags, would refuse: nothing is kept for it.
      keep(dir, name, cacheFile, data.subarray(0, HEADER).equals(header) ? data : undefined);
    });
  }
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...a: unknown[]) => void;
  const importFromTree = (specifier: string) => import(pathToFileURL(join(dirname(file), specifier)).href);
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file), importFromTree);
  return module.exports;
}

/**
 * The command's words before its options and arguments, at most two (`lookup blind`, `local clock`),
 * so that the kept files are one a command: a word that is not a command's (an id, a path) ends it.
 */
export function commandKey(args: readonly string[]): string {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const arg = args[i]!;
    if (['-p', '--profile', '-o', '--output'].includes(arg)) i++;
    else if (arg.startsWith('-')) continue;
    else if (/^[a-z][a-z0-9-]{0,31}$/.test(arg)) words.push(arg);
    else break;
  }
  return words.length ? words.join('-') : 'root';
}

/** Writes the code (0600, whole or not at all), if any, and removes the command's other code (of earlier builds). */
function keep(dir: string, name: string, cacheFile: string, data: Buffer | undefined): void {
  try {
    if (data) {
      const temp = `${cacheFile}.${process.pid}`;
      writeFileSync(temp, data, { mode: 0o600 });
      renameSync(temp, cacheFile);
    }
    for (const old of readdirSync(dir)) {
      if (old.startsWith(`${name}.`) && (!data || old !== basename(cacheFile))) rmSync(join(dir, old), { force: true });
    }
  } catch {
    // Not kept: the next run compiles as this one did.
  }
}
