// Builds dist/ with esbuild: one ESM entry plus lazily loaded chunks, so that heavy modules
// (SQLite, got, prompts, tables) load only when a command needs them (DESIGN.md section 5).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay in node_modules: better-sqlite3 is native, and leaving the others external
  // keeps the bundle small; they are resolved by Node at the moment a chunk imports them.
  packages: 'external',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
