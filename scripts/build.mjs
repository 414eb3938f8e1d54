// Builds dist/ with esbuild: one ESM entry plus lazily loaded chunks, so that heavy modules
// (SQLite, got, prompts, tables) load only when a command needs them (DESIGN.md section 5).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

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
  plugins: [lazyChildProcess],
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
