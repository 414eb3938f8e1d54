// `npm run sea`: tpa as a single executable for linux-x64 (Node's single executable applications),
// build/tpa-linux-x64, which runs where there is no Node (docs/packaging.md "Single executable").
// Inside: the Node that runs this script (the project's, node_modules/node), stripped of its debug
// symbols when `strip` is there; all of tpa in one CommonJS file (esbuild, every dynamic import
// inlined); and, as assets, better-sqlite3's addon and the root help rendered by the build. The addon
// is loaded through better-sqlite3's own factory, as its per-platform entries load theirs, from the
// file src/cli/single-executable.ts writes once to the user's cache. Not inside: the encryption
// addon (better-sqlite3-multiple-ciphers: `local init --encrypt` says to use the npm package), the
// keychain binding (secrets go to the 0600 file, as where no keychain answers), and the man pages
// (`tpa help <command>` prints the same).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { define } from './define.mjs';
import { patchSource } from './patch-source.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'build');
const executable = join(out, 'tpa-linux-x64');
/** The string whose last byte Node's single executables flip when a program is put inside. */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function fail(message) {
  process.stderr.write(`sea: ${message}\n`);
  process.exit(1);
}

if (process.platform !== 'linux' || process.arch !== 'x64')
  fail(`builds the linux-x64 executable only, on linux-x64 (this is ${process.platform}-${process.arch})`);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const wanted = pkg.devDependencies.node;
if (process.version !== `v${wanted}`) fail(`run with the project's Node ${wanted} (npm run sea puts it first on the PATH); this is ${process.version}`);
if (!readFileSync(process.execPath).includes(FUSE)) fail(`${process.execPath} has no single-executable fuse`);

// The build first: the root help it renders (dist/help.txt) goes inside.
const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
if (built.status !== 0) fail('the build failed');

const sqliteDir = join(root, 'node_modules/better-sqlite3');
const addonBytes = readFileSync(join(sqliteDir, 'prebuilds/linux-x64.node'));
const addonName = `better_sqlite3-${createHash('sha256').update(addonBytes).digest('hex').slice(0, 16)}.node`;

// better-sqlite3 as its per-platform entries make it (lib/linux-x64.js), with the addon from the
// executable: its factory takes the function that gives the addon.
const sqliteFromTheExecutable = {
  name: 'sqlite-from-the-executable',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: 'better-sqlite3', namespace: 'sea-sqlite' }));
    b.onLoad({ filter: /.*/, namespace: 'sea-sqlite' }, () => ({
      contents: [
        `const { sqliteAddon } = require(${JSON.stringify(join(root, 'src/cli/single-executable.ts'))});`,
        `module.exports = require(${JSON.stringify(join(sqliteDir, 'lib/database.js'))})(sqliteAddon, false);`,
        `module.exports.SqliteError = require(${JSON.stringify(join(sqliteDir, 'lib/sqlite-error.js'))});`,
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

// The root help the build rendered (src/cli/main.ts reads it beside itself), from the executable's assets.
const HELP_READ = "readFileSync(new URL('./help.txt', import.meta.url), 'utf8')";
const helpFromTheExecutable = patchSource(
  'help-from-the-executable',
  /[\\/]src[\\/]cli[\\/]main\.ts$/,
  HELP_READ,
  "process.getBuiltinModule('node:sea').getAsset('help.txt', 'utf8')",
);

// No encryption inside: an encrypted database is refused with what to use instead, before anything
// looks for the cipher addon (which a node_modules near the executable could otherwise supply).
const CIPHER_LOADER = 'export function cipherSqlite(): DatabaseConstructor {';
const NO_ENCRYPTION = [
  'this tpa is the single executable, which has no encryption: an encrypted database needs the npm package of tpa',
  '(Node 22.14 or newer, with better-sqlite3-multiple-ciphers); a plain database works here (tpa local init)',
].join(' ');
const NO_ENCRYPTION_HINT = 'install the npm package (npm pack in the project, then npm install -g ./tpa-<version>.tgz) and run this command with that tpa';
const noEncryptionInside = patchSource(
  'no-encryption-inside',
  /[\\/]src[\\/]engine[\\/]store[\\/]cipher\.ts$/,
  CIPHER_LOADER,
  `${CIPHER_LOADER} throw new SeaRefusal(${JSON.stringify(NO_ENCRYPTION)}, { hint: ${JSON.stringify(NO_ENCRYPTION_HINT)} });`,
  { prelude: "import { UnusableDatabase as SeaRefusal } from '../errors.js';\n" },
);

// No keychain inside: its binding is a native addon the executable does not carry, and the helper
// process the npm build asks it through is `node -e`, which the executable does not run. Asked, it
// answers at once that there is none (TPA_KEYRING=auto then keeps credentials in the 0600 file).
const KEYCHAIN_CALL = /async function keychainCall\([^)]*\)[^{]*\{/;
const NO_KEYCHAIN = 'the single executable of tpa has no keychain (the npm package has it)';
const noKeychainInside = patchSource(
  'no-keychain-inside',
  /[\\/]src[\\/]auth[\\/]credentials\.ts$/,
  KEYCHAIN_CALL,
  (head) => `${head} throw new NoKeychainInThisBuild(${JSON.stringify(NO_KEYCHAIN)});`,
);

// jq (`--jq`) inside: the npm build loads jq-wasm's module beside it, which reads its .wasm file from
// node_modules; the executable carries jq-wasm's build with the WebAssembly inlined instead.
const JQ_LOAD = "createRequire(import.meta.url)('jq-wasm')";
const jqInside = patchSource('jq-inside', /[\\/]src[\\/]render[\\/]jq\.ts$/, JQ_LOAD, "require('jq-wasm/inline')");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const bundle = join(out, 'tpa-sea.cjs');
await build({
  stdin: { contents: "require('./src/cli/main.ts').main(process.argv);", resolveDir: root, loader: 'js', sourcefile: 'sea-main.js' },
  bundle: true,
  platform: 'node',
  target: `node${wanted.split('.')[0]}`,
  format: 'cjs',
  outfile: bundle,
  // In CommonJS import.meta is empty: the few places that ask for their own URL get the executable's.
  define: { ...define, __TPA_SEA_ADDON__: JSON.stringify(addonName), 'import.meta': '__tpaImportMeta' },
  banner: { js: 'var __tpaImportMeta = { get url() { return require("node:url").pathToFileURL(process.execPath).href; } };' },
  plugins: [sqliteFromTheExecutable, helpFromTheExecutable, noEncryptionInside, noKeychainInside, jqInside],
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// Node's debug symbols are a quarter of its size and nothing tpa needs.
let base = process.execPath;
const stripped = join(out, 'node');
if (spawnSync('strip', ['-o', stripped, process.execPath]).status === 0) base = stripped;
else process.stderr.write('sea: strip is not there: the executable keeps Node debug symbols\n');

const assets = join(out, 'assets');
mkdirSync(assets);
writeFileSync(join(assets, addonName), addonBytes);
copyFileSync(join(root, 'dist/help.txt'), join(assets, 'help.txt'));
// The OpenAPI document `local serve` answers at /openapi.yaml (src/server/document.ts).
copyFileSync(join(root, 'dist/openapi.yaml'), join(assets, 'openapi.yaml'));
const config = join(out, 'sea-config.json');
writeFileSync(
  config,
  `${JSON.stringify(
    {
      main: bundle,
      output: executable,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: { [addonName]: join(assets, addonName), 'help.txt': join(assets, 'help.txt'), 'openapi.yaml': join(assets, 'openapi.yaml') },
    },
    null,
    2,
  )}\n`,
);
const made = spawnSync(base, ['--build-sea', config], { encoding: 'utf8' });
if (made.status !== 0 || !existsSync(executable)) fail(`node --build-sea failed: ${made.stderr || made.stdout}`);
chmodSync(executable, 0o755);
rmSync(stripped, { force: true });
const mb = (statSync(executable).size / 1e6).toFixed(1);
process.stdout.write(`${executable}: ${mb} MB (Node ${process.version}${base === stripped ? ', stripped' : ''}, tpa ${pkg.version}, ${addonName})\n`);
