// Writes the man pages, man/*.1, from the command tree (src/cli/commands/help/man.ts), and lists them in
// package.json "man" so that a global install puts them where man finds them. `npm run completions`
// runs it; test/cli/help/man.test.ts fails when man/ or that list differs from the tree.
// The generator is TypeScript: esbuild bundles it with the program in memory (packages stay outside,
// loaded from node_modules), and the bundle runs here.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { define } from './define.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `
import { buildProgram } from './src/cli/program.ts';
import { manPages } from './src/cli/commands/help/man.ts';
const quiet = { write() {}, isTTY: false, columns: 80 };
// No config (a home that does not exist): -p names the built-in default, whoever generates the pages.
const io = { stdout: quiet, stderr: quiet, stdinIsTTY: false, env: { TPA_HOME: '/nonexistent/tpa-man' }, readStdin: async () => '', stdinStream: () => { throw new Error('no stdin'); } };
module.exports = buildProgram(io, { exitCode: 0 }, 'full').then(manPages);
`;
const bundle = await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'man-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  packages: 'external',
  // The tree never asks for its module's URL; a bundle in CommonJS has none to give.
  define: { ...define, 'import.meta.url': JSON.stringify(pathToFileURL(root).href) },
  write: false,
  logLevel: 'warning',
});
const module = { exports: undefined };
new Function('module', 'exports', 'require', bundle.outputFiles[0].text)(module, module.exports, createRequire(`${root}package.json`));
/** @type {{ file: string; text: string }[]} */
const pages = await module.exports;

const dir = `${root}man/`;
mkdirSync(dir, { recursive: true });
// A page of a command that is gone goes too.
for (const file of readdirSync(dir)) if (file.endsWith('.1') && !pages.some((p) => p.file === file)) rmSync(`${dir}${file}`);
for (const page of pages) writeFileSync(`${dir}${page.file}`, page.text);

const pkgFile = `${root}package.json`;
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
pkg.man = pages.map((p) => `./man/${p.file}`);
writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
process.stdout.write(`man: ${pages.length} pages in man/\n`);
