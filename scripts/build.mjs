// Builds dist/ with esbuild: one ESM entry plus lazily loaded chunks, so that heavy modules
// (SQLite, got, prompts, tables) load only when a command needs them (DESIGN.md section 5).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { define } from './define.mjs';

// commander requires node:child_process at load time, for executable subcommands tpa never uses;
// loading it (with net, dgram, streams) is a measurable share of `tpa --help`. This stub loads the
// real module on first use only.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'child_process', namespace: 'lazy-child-process' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_t, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// An ESM import of a Node built-in (`import { x } from 'node:crypto'`) makes Node build the module's
// ESM facade, which reads every export: node:crypto loads all its internals (webcrypto, x509, …),
// node:util its lazy parts, node:process the diagnostic report. That was a third of a lookup's
// start-up. require() hands back the module object without reading anything; every built-in is
// taken through it.
const builtinsThroughRequire = {
  name: 'builtins-through-require',
  setup(b) {
    const names = new Set(builtinModules);
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!args.path.startsWith('node:') && !names.has(args.path)) return undefined;
      // Inside the stand-in, the real module: left to the bundle's require(). A dynamic import()
      // stays one: it must resolve to the module's named exports, and it runs only when needed.
      if (args.namespace === 'builtin' || args.kind === 'dynamic-import') return { path: args.path, external: true };
      return { path: args.path, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Dependencies are bundled (resolving and reading many small files from node_modules costs more
  // at start-up than one chunk); native addons (better-sqlite3, the keychain binding) stay external.
  external: ['better-sqlite3', '@napi-rs/keyring'],
  // CommonJS dependencies inside an ESM bundle need require().
  banner: { js: "import { createRequire as __tpaCreateRequire } from 'node:module'; const require = __tpaCreateRequire(import.meta.url);" },
  plugins: [lazyChildProcess, builtinsThroughRequire],
  // The version's one home is package.json.
  define,
  sourcemap: 'linked',
  // Fewer bytes to read and parse at start-up; names stay, so errors remain readable.
  minifySyntax: true,
  minifyWhitespace: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

// The root help, rendered once here for 80 columns (what a pipe or a plain terminal gets), so that
// `tpa --help` prints it without building the command tree; any other width still goes through
// commander. Generated from the program just built, so it cannot drift from it.
const { spawnSync } = await import('node:child_process');
const { writeFileSync } = await import('node:fs');
const help = spawnSync(process.execPath, [new URL('../bin/tpa', import.meta.url).pathname, '--help'], { encoding: 'utf8', env: { ...process.env, TPA_NO_STATIC_HELP: '1' } });
if (help.status !== 0) throw new Error(`could not render the help: ${help.stderr}`);
writeFileSync(new URL('../dist/help.txt', import.meta.url), help.stdout);
