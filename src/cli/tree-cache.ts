// Loads the command tree's bundle (dist/tpa.cjs, scripts/build.mjs) with V8 code made after a command
// has run (docs/design.md "Start-up"). Node's compile cache keeps only what V8 compiles before a file
// runs: the bundle's top level. Every function a command then runs (commander's, the engine's, the
// command's own) was compiled again at each start, a third of a lookup's work over bare Node
// (docs/numbers-history.md "Start-up pieces"). V8 can serialise those too, after they ran: this keeps that
// code per command (`lookup blind`, `ledger list`), so a command loads compiled code for what it runs
// and no other command's. Only the build uses this module; the tests run the sources.
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, getCompileCacheDir } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The bytes that head V8's code cache: a magic number, V8's version, the source's length, V8's flags. */
const HEADER = 16;

/**
 * The command tree's exports. `file` is the function a CommonJS module's code runs in (scripts/build.mjs
 * writes it so, with a sixth parameter for its one import()): compiled with this command's kept code
 * if there is any.
 */
export function loadTree(file: string, args: readonly string[]): unknown {
  const source = readFileSync(file, 'utf8');
  const vm = process.getBuiltinModule('node:vm');
  // Where Node keeps its compile cache (the launcher's folder of the user's own, 0700, one folder
  // for each Node version): nowhere when the launcher found no such folder or the cache is off.
  const dir = getCompileCacheDir?.();
  const kept = dir && ownPrivateFolder(dir) ? keptCode(dir, file, source, args) : undefined;
  const script = new vm.Script(source, { filename: file, cachedData: kept?.data });
  // A command's help runs none of the command (its engine, its output): kept, its code would stand
  // for the command's until the next build, which would compile the rest at every start.
  if (kept && (!kept.data || script.cachedDataRejected) && !asksHelp(args)) {
    // What V8 checks a cache against (its version and flags) heads the code it makes.
    const header = script.createCachedData().subarray(0, HEADER);
    // The code of the functions that ran is there at exit; a failed command may have stopped short.
    process.once('exit', (code) => {
      if (code !== 0) return;
      const data = script.createCachedData();
      // A command that set V8's flags as it ran (a long listing sizes its heap, src/cli/heap.ts) made
      // code that the next start, with Node's flags, would refuse: nothing is kept for it.
      keep(kept.dir, kept.name, kept.file, data.subarray(0, HEADER).equals(header) ? data : undefined);
    });
  }
  const module = { exports: {} as unknown };
  // The bundle's one import() (the prompts, an ES module): code compiled by node:vm has none of its own.
  const importFromTree = (specifier: string) => import(pathToFileURL(join(dirname(file), specifier)).href);
  const tree = script.runInThisContext() as (...a: unknown[]) => void;
  tree.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), importFromTree);
  return module.exports;
}

/**
 * Whether V8 code may be taken from `dir`: a folder of this user's own that no one else may write
 * in (code kept there runs as the user). Node makes its cache folders with the umask.
 */
function ownPrivateFolder(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Where this command's kept code for this bundle is, and the code if there is any. */
function keptCode(dir: string, file: string, source: string, args: readonly string[]): { dir: string; name: string; file: string; data?: Buffer } | undefined {
  // The bundle's own hash (scripts/build.mjs writes it on its first line) names its code: V8 checks
  // a kept code's source by its length only, and an installed package's files share one time of
  // writing, so neither size nor time tells two builds apart.
  const stamp = /^\/\*tpa-tree:([0-9a-f]{16,64})\*\//.exec(source)?.[1];
  if (stamp === undefined) return undefined;
  // One install's files are not another's (two checkouts share the user's folder).
  const name = `tree-${commandKey(args)}.${pathTag(file)}`;
  const cacheFile = join(dir, `${name}.${stamp}.v8`);
  try {
    return { dir, name, file: cacheFile, data: readFileSync(cacheFile) };
  } catch {
    // None yet: made when this command ends well.
    return { dir, name, file: cacheFile };
  }
}

/** Whether the command line asks for help (`-h`, `--help`) rather than running the command. */
function asksHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '-h' || arg === '--help') return true;
  }
  return false;
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

/** A short tag of the bundle's path (FNV-1a, 32 bits). */
function pathTag(file: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) hash = Math.imul(hash ^ file.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
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
