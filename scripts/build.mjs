// Builds dist/ with esbuild, in three files (docs/design.md "Architecture": heavy modules load only when a
// command needs them):
//  - dist/main.cjs, the entry: --version and the static --help, and nothing else;
//  - dist/tpa.cjs, the rest of tpa in one file: command tree, client, engine, server. A module it
//    imports dynamically (a handler, the engine) is evaluated on its first import only, so a command
//    pays for the others' code just its reading (about 0.6 million instructions a 100 KB). It is
//    written as the function a CommonJS module runs in, which src/cli/tree-cache.ts compiles with
//    the code V8 made for the same command at its last run (docs/design.md "Start-up");
//  - dist/prompts.js, @inquirer/prompts, loaded when a prompt is shown.
// CommonJS, because a start-up is mostly module loading: a lookup loaded 33 ESM chunks, and each went
// through the ESM loader's resolve, package scope lookup and link; one CommonJS file is one read and
// one compile, and its built-ins are plain require() calls (no facade, no copy of their exports).
// Chunks turned into CommonJS ran more instructions than the one file (docs/numbers-history.md "Start-up,
// compiled code kept").
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { define } from './define.mjs';
import { patchSource } from './patch-source.mjs';

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

// commander takes node:fs, node:path and node:process as default imports, which esbuild serves
// through __toESM: a copy of each module's every property, made at load. These hand the module over.
const commanderDefaultImports = {
  name: 'commander-default-imports',
  setup(b) {
    b.onResolve({ filter: /^node:(fs|path|process)$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: args.path, namespace: 'default-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'default-builtin' }, (args) => ({ contents: `export default require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

// commander tests each option's flags with /\p{ID_Continue}\.\.\.[>\]]$/u: the first such test makes
// V8 build the Unicode property's set from ICU, 2% of a lookup (docs/numbers-history.md "Start-up pieces").
// Before an ASCII character the property is \w, so only flags with another character before "..."
// are tested against it.
const COMMANDER_VARIADIC = '/\\p{ID_Continue}\\.\\.\\.[>\\]]$/u.test(flags)';
const commanderVariadicTest = patchSource(
  'commander-variadic-test',
  /[\\/]node_modules[\\/]commander[\\/]lib[\\/]option\.js$/,
  COMMANDER_VARIADIC,
  `(/\\w\\.\\.\\.[>\\]]$/.test(flags) || (/[^\\x00-\\x7f]\\.\\.\\.[>\\]]$/.test(flags) && ${COMMANDER_VARIADIC}))`,
  { loader: 'js' },
);

// better-sqlite3's JavaScript is bundled: resolving its bare name walks node_modules and reads the
// package's exports map through URL objects, and its dozen files are each resolved, read and
// compiled (docs/numbers-history.md "Start-up pieces"). Its addon stays in node_modules, found
// by better-sqlite3's own code from its folder there. A copy already loaded (a test preloads one to
// patch it) is the one used; where better-sqlite3 is not in tpa's own node_modules (hoisted), the
// bare name is.
const sqliteDir = fileURLToPath(new URL('../node_modules/better-sqlite3/', import.meta.url));
const sqliteEntry = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).exports['.'];
const bundledSqlite = {
  name: 'bundled-sqlite',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, (args) =>
      args.namespace === 'bundled-sqlite' ? { path: args.path, external: true } : { path: 'better-sqlite3', namespace: 'bundled-sqlite' },
    );
    b.onResolve({ filter: /^\/bundled$/, namespace: 'bundled-sqlite' }, () => ({ path: join(sqliteDir, sqliteEntry) }));
    b.onLoad({ filter: /.*/, namespace: 'bundled-sqlite' }, () => ({
      contents: [
        "const { existsSync } = require('node:fs');",
        "const { join } = require('node:path');",
        `const entry = join(__dirname, ${JSON.stringify(`../node_modules/better-sqlite3/${sqliteEntry.replace(/^\.\//, '')}`)});`,
        'const loaded = require.cache[entry];',
        "module.exports = loaded ? loaded.exports : existsSync(entry) ? require('/bundled') : require('better-sqlite3');",
      ].join('\n'),
      loader: 'js',
    }));
    // Where the bundled code looks for the addon: better-sqlite3's folder, not dist/.
    const libDir = join(sqliteDir, 'lib');
    b.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]binding\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        '__dirname',
        `require('node:path').join(__dirname, ${JSON.stringify(`../node_modules/better-sqlite3/${relative(sqliteDir, libDir)}`)})`,
      ),
      loader: 'js',
    }));
  },
};

// node:crypto loads many internals (docs/numbers-history.md "Start-up pieces"), and a read (a lookup, a listing) neither hashes nor draws
// an id: the functions tpa takes from it are stand-ins that load it on their first call. A name not
// listed here fails the build ("No matching export"): add it.
const LAZY_CRYPTO = [
  'createCipheriv',
  'createDecipheriv',
  'createHash',
  'createHmac',
  'hash',
  'hkdfSync',
  'randomBytes',
  'randomInt',
  'randomUUID',
  'timingSafeEqual',
];
const lazyCrypto = {
  name: 'lazy-crypto',
  setup(b) {
    b.onResolve({ filter: /^(node:)?crypto$/ }, (args) => (args.kind === 'import-statement' ? { path: 'crypto', namespace: 'lazy-crypto' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-crypto' }, () => ({
      contents: [
        "let real; const crypto = () => (real ??= require('node:crypto'));",
        ...LAZY_CRYPTO.map((name) => `export function ${name}(...args) { return crypto().${name}(...args); }`),
      ].join('\n'),
      loader: 'js',
    }));
  },
};

// What dist/tpa.cjs is written in: the parameters are those of a CommonJS module's function, and the
// import() its loader hands it (src/cli/tree-cache.ts).
const TREE_WRAPPER = '(function (exports, require, module, __filename, __dirname, __tpaImport) {';

// The entry hands everything past --version and --help to the command tree, which is dist/tpa.cjs,
// loaded with the code V8 compiled for this command the last time it ran (src/cli/tree-cache.ts).
const commandTreeInItsOwnFile = {
  name: 'command-tree-in-its-own-file',
  setup(b) {
    b.onResolve({ filter: /^\.\/run\.js$/ }, (args) => (args.importer.endsWith('src/cli/main.ts') ? { path: 'tpa', namespace: 'command-tree' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'command-tree' }, () => ({
      contents:
        "const { loadTree } = require('./tree-cache.ts'); module.exports = loadTree(require('node:path').join(__dirname, 'tpa.cjs'), process.argv.slice(2));",
      resolveDir: fileURLToPath(new URL('../src/cli/', import.meta.url)),
      loader: 'js',
    }));
  },
};

// The prompts are their own file, beside tpa.cjs.
const promptsInTheirOwnFile = {
  name: 'prompts-in-their-own-file',
  setup(b) {
    b.onResolve({ filter: /^@inquirer\/prompts$/ }, () => ({ path: './prompts.js', external: true }));
  },
};

// In CommonJS import.meta is empty; the few places that ask for their own URL get it from __filename,
// when they ask.
const commonjs = {
  format: 'cjs',
  define: { ...define, 'import.meta': '__tpaImportMeta' },
  banner: { js: 'var __tpaImportMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
};

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  // Dependencies are bundled (resolving and reading many small files from node_modules costs more
  // at start-up than one file); the keychain binding stays external, and better-sqlite3's addon (above),
  // and the optional cipher build of it, loaded only for an encrypted database (engine/store/cipher.ts),
  // and jq-wasm, which reads its WebAssembly file from its own folder, loaded only for --jq.
  external: ['@napi-rs/keyring', 'better-sqlite3-multiple-ciphers', 'jq-wasm'],
  sourcemap: 'linked',
  // Fewer bytes to read and parse at start-up; names stay, so errors remain readable.
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await Promise.all([
  build({ ...shared, ...commonjs, entryPoints: ['src/cli/main.ts'], outfile: 'dist/main.cjs', plugins: [commandTreeInItsOwnFile] }),
  build({
    ...shared,
    ...commonjs,
    entryPoints: ['src/cli/run.ts'],
    outfile: 'dist/tpa.cjs',
    plugins: [
      lazyChildProcess,
      commanderDefaultImports,
      commanderVariadicTest,
      lazyCrypto,
      builtinsThroughRequire({ dynamicOnly: true }),
      promptsInTheirOwnFile,
      bundledSqlite,
    ],
  }),
  // @inquirer/prompts is ESM: it stays ESM, its built-ins taken through require() (see above).
  build({
    ...shared,
    entryPoints: { prompts: '@inquirer/prompts' },
    outdir: 'dist',
    format: 'esm',
    banner: { js: "import { createRequire as __tpaCreateRequire } from 'node:module'; const require = __tpaCreateRequire(import.meta.url);" },
    plugins: [builtinsThroughRequire()],
  }),
]);
writeFileSync('dist/main.cjs', ascii(readFileSync('dist/main.cjs', 'utf8')));
// The OpenAPI document `tpa local serve` answers (src/server/document.ts), beside the bundle that reads it.
copyFileSync('docs/openapi.yaml', 'dist/openapi.yaml');
// The command tree is written as the function a CommonJS module's code runs in, which its loader
// compiles as it is (src/cli/tree-cache.ts): wrapping a copy of it at each start made V8 collect the
// young generation once more.
{
  const tree = `${TREE_WRAPPER}${ascii(importsThroughTheLoader(readFileSync('dist/tpa.cjs', 'utf8')))}\n})`;
  // The code's own hash names the V8 code kept for it (src/cli/tree-cache.ts): V8 checks a kept
  // code's source by its length only, and an installed package's files all have one time of writing.
  const hash = createHash('sha256').update(tree).digest('hex').slice(0, 32);
  writeFileSync('dist/tpa.cjs', `/*tpa-tree:${hash}*/${tree}`);
}

/**
 * The command tree's import() of the prompts, through the function its loader hands it. Any other
 * import() fails the build: code compiled by node:vm has no import() of its own.
 */
function importsThroughTheLoader(code) {
  const out = code.replaceAll('import("./prompts.js")', '__tpaImport("./prompts.js")');
  const left = out.match(/\bimport\s*\(\s*[^)]{0,40}/);
  if (left) throw new Error(`dist/tpa.cjs has an import() its loader cannot serve: ${left[0]}`);
  return out;
}

/**
 * The code with every character past ASCII written as an escape. One such character (esbuild leaves
 * them in regular expressions) makes Node read the whole file as a string of two bytes a character,
 * and V8 take it so. `\\uXXXX` means the same character in a string, a template, a regular
 * expression and a name.
 */
function ascii(code) {
  return code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Built-ins through require(): an import of one goes through the ESM loader, whose facade of the
 * module reads every export (node:crypto's loads all its internals). `dynamicOnly`: only import()
 * calls (the CommonJS bundle's static imports are require() already).
 */
function builtinsThroughRequire({ dynamicOnly = false } = {}) {
  const builtins = new Set(builtinModules);
  return {
    name: 'builtins-through-require',
    setup(b) {
      b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
        if (args.namespace === 'builtin') return { path: args.path, external: true };
        if (dynamicOnly && args.kind !== 'dynamic-import') return undefined;
        if (!args.path.startsWith('node:') && !builtins.has(args.path)) return undefined;
        return { path: args.path, namespace: 'builtin' };
      });
      b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
}

// The root help, rendered once here for 80 columns (what a pipe or a plain terminal gets), so that
// `tpa --help` prints it without building the command tree; any other width still goes through
// commander. Generated from the program just built, so it cannot drift from it.
const { spawnSync } = await import('node:child_process');
const help = spawnSync(process.execPath, [new URL('../bin/tpa', import.meta.url).pathname, '--help'], {
  encoding: 'utf8',
  // No config and no TPA_PROFILE: the static help names the built-in default, "local" (main.ts uses it only then).
  env: { ...process.env, TPA_NO_STATIC_HELP: '1', TPA_PROFILE: '', TPA_HOME: new URL('../dist/no-home', import.meta.url).pathname },
});
if (help.status !== 0) throw new Error(`could not render the help: ${help.stderr}`);
writeFileSync(new URL('../dist/help.txt', import.meta.url), help.stdout);
