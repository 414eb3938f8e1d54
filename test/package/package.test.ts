// The package as a user gets it (docs/packaging.md "Package"): from a fresh clone of the
// repository's HEAD (what is committed, not the work tree), the Quick start's first line leaves the
// clone clean; the README's "Install" lines, as printed: `npm pack` gives the built program, its
// man pages and completions; the tarball installs into an empty prefix (npm_config_prefix) on the
// oldest Node of "engines" without a warning and without the encryption package, and runs the
// demo, `man` and the completions; the command its message names installs the encryption package
// where tpa finds it. Real npm, the real registry, real processes:
// a suite apart from `npm test` (vitest.package.config.ts, `npm run test:package`).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
  man: string[];
  devDependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), 'tpa-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The environment of a user's shell: none of the variables `npm run` sets (npm_config_* would
 * carry this project's settings into every npm below), and no node_modules/.bin on the PATH (the
 * project's own Node and tools), no MANPATH (man finds pages from the PATH).
 */
function userEnv(extra: Record<string, string> = {}, pathFirst: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !['INIT_CWD', 'NODE', 'MANPATH'].includes(k)) env[k] = v;
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => p && !p.includes('node_modules/.bin'));
  env.PATH = [...pathFirst, ...path].join(delimiter);
  env.XDG_CACHE_HOME = join(work, 'cache');
  return { ...env, ...extra };
}

type Ran = SpawnSyncReturns<string> & { seconds: number };
/** A command run to its end (the time limit is for a hang only). */
function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Ran {
  const started = performance.now();
  const r = spawnSync(cmd, args, { cwd: options.cwd ?? work, env: options.env ?? userEnv(), encoding: 'utf8', timeout: 600_000 });
  if (r.error) throw r.error;
  return { ...r, seconds: (performance.now() - started) / 1000 };
}
const said = (r: Ran) => `exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** The disk a folder takes, in MB (du, as a user would measure it). */
function megabytes(dir: string): number {
  const r = run('du', ['-sk', dir]);
  return Math.round(Number.parseInt(r.stdout, 10) / 102.4) / 10;
}

const clone = join(work, 'clone');

/** git clone, then the Quick start's first line, with the machine's own node and npm. */
const quickStart = once(() => {
  const cloned = run('git', ['clone', '--quiet', repo, clone]);
  expect(cloned.status, said(cloned)).toBe(0);
  return run('sh', ['-c', 'npm install && npx tpa demo'], { cwd: clone, env: userEnv({ TPA_HOME: join(work, 'quick-start-home') }) });
});

/** The commands of the README's "Install" block, as printed (their comments left out). */
function readmeInstall(): string[] {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const block = /\n## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme);
  expect(block, 'README.md has an "Install" section with a sh block').not.toBeNull();
  return block![1]!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** The README's `npm pack`, in the clone: the tarball's path and what it holds. */
const packed = once(() => {
  expect(quickStart().status, said(quickStart())).toBe(0);
  const [pack] = readmeInstall();
  expect(pack).toBe('npm pack');
  const r = run('sh', ['-c', pack!], { cwd: clone, env: userEnv({ npm_config_loglevel: 'warn' }) });
  expect(r.status, said(r)).toBe(0);
  const tgz = readdirSync(clone).filter((f) => f.endsWith('.tgz'));
  expect(tgz).toEqual([`tpa-${pkg.version}.tgz`]);
  const file = join(clone, tgz[0]!);
  const listed = run('tar', ['tzf', file]);
  return { file, entries: listed.stdout.split('\n').filter(Boolean), pack: r };
});

/** The oldest Node of "engines", from the registry the way .ci/run gets it. */
const oldestNode = once(() => {
  let minimum = pkg.engines.node.replace(/^>=\s*/, '');
  if (minimum.split('.').length === 2) minimum += '.0';
  const dir = join(work, 'oldest-node');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), '{"private": true, "allowScripts": {"node": true}}');
  const r = run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `node@${minimum}`]);
  expect(r.status, said(r)).toBe(0);
  const bin = join(dir, 'node_modules', 'node', 'bin');
  const version = run(join(bin, 'node'), ['--version']);
  expect(version.stdout.trim()).toBe(`v${minimum}`);
  return { bin, version: minimum };
});

const prefix = join(work, 'prefix');
/** The environment of a machine with the oldest supported Node and the package's prefix on its PATH. */
const installedEnv = (extra: Record<string, string> = {}) => userEnv({ TPA_HOME: join(work, 'home'), ...extra }, [join(prefix, 'bin'), oldestNode().bin]);

/**
 * The README's `npm install -g` of the tarball, as printed, into an empty prefix (npm's own
 * variable for it), npm itself running on the oldest Node.
 */
const installed = once(() => {
  const { file } = packed();
  const install = readmeInstall()[1]!;
  expect(install).toBe(`npm install -g ./${file.split('/').pop()}`);
  mkdirSync(prefix);
  const env = installedEnv({ npm_config_prefix: prefix, npm_config_loglevel: 'warn', npm_config_audit: 'false', npm_config_fund: 'false' });
  const r = run('sh', ['-c', install], { cwd: clone, env });
  console.log(`${install} on Node ${oldestNode().version}: ${r.seconds.toFixed(1)} s, the prefix ${megabytes(prefix)} MB`);
  return r;
});
const tpa = (args: string[], extra: Record<string, string> = {}) => run(join(prefix, 'bin', 'tpa'), args, { env: installedEnv(extra) });

describe('a fresh clone', () => {
  it("stays clean after the Quick start's first line, which runs the demo", () => {
    const r = quickStart();
    expect(r.status, said(r)).toBe(0);
    expect(r.stdout).toContain('ENC-');
    const status = run('git', ['status', '--porcelain'], { cwd: clone });
    expect(status.stdout, 'the Quick start changed tracked files (the lock file is not the one npm writes?)').toBe('');
  });
});

describe('npm pack', () => {
  it('gives a tarball of the built program and the OpenAPI document it serves, LICENSE, README, man pages and completions, and nothing of the sources, tests or maps', () => {
    const { entries } = packed();
    const files = entries.map((e) => e.replace(/^package\//, ''));
    for (const f of [
      'package.json',
      'LICENSE',
      'README.md',
      'bin/tpa',
      'dist/main.cjs',
      'dist/tpa.cjs',
      'dist/prompts.js',
      'dist/help.txt',
      'dist/openapi.yaml',
    ])
      expect(files).toContain(f);
    for (const f of ['completions/tpa.bash', 'completions/_tpa', 'completions/tpa.fish']) expect(files).toContain(f);
    for (const page of pkg.man) expect(files).toContain(page.replace(/^\.\//, ''));
    const runtime =
      /^(package\.json|LICENSE|README\.md|bin\/tpa|dist\/[\w.-]+\.(cjs|js|txt)|man\/[\w.-]+\.1|completions\/(tpa\.bash|_tpa|tpa\.fish)|dist\/openapi\.yaml)$/;
    expect(files.filter((f) => !runtime.test(f))).toEqual([]);
  });

  it('packs what is committed: its prepack build leaves the clone clean', () => {
    packed();
    expect(run('git', ['status', '--porcelain'], { cwd: clone }).stdout).toBe('');
  });
});

describe('the tarball installed into an empty prefix on the oldest supported Node', () => {
  it('installs without any warning, without the dev dependencies or the encryption package', () => {
    const r = installed();
    expect(r.status, said(r)).toBe(0);
    expect(r.stderr, 'npm warned').toBe('');
    // What esbuild bundles into dist/ is a devDependency: only the native addons are installed.
    const own = readdirSync(join(prefix, 'lib', 'node_modules', 'tpa', 'node_modules'));
    expect(own).toContain('better-sqlite3');
    expect(own.filter((name) => name in pkg.devDependencies)).toEqual([]);
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['tpa']);
  });

  it('runs tpa demo on that Node', () => {
    installed();
    const version = tpa(['--version']);
    expect(version.stdout).toContain(pkg.version);
    const r = tpa(['demo']);
    expect(r.status, said(r)).toBe(0);
    expect(r.stdout).toContain('ENC-');
  });

  it('puts the man pages where man finds them from the PATH alone', () => {
    installed();
    // man-db reads <prefix>/share/man from <prefix>/bin on the PATH; npm links the pages there.
    const r = run('man', ['-P', 'cat', 'tpa-fund-approve'], { env: installedEnv({ MANWIDTH: '80' }) });
    expect(r.status, said(r)).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+tpa-fund-approve - release the adjudicated benefit/);
    const where = run('man', ['-w', 'tpa'], { env: installedEnv() });
    expect(where.status, said(where)).toBe(0);
    expect(realpathSync(where.stdout.trim())).toBe(realpathSync(join(prefix, 'share', 'man', 'man1', 'tpa.1')));
    expect(realpathSync(where.stdout.trim())).toBe(join(realpathSync(prefix), 'lib', 'node_modules', 'tpa', 'man', 'tpa.1'));
  });

  it('completes in bash, with the shipped script and the one tpa completion bash prints', () => {
    installed();
    const shipped = join(prefix, 'lib', 'node_modules', 'tpa', 'completions', 'tpa.bash');
    const printed = tpa(['completion', 'bash']);
    expect(printed.status, said(printed)).toBe(0);
    expect(printed.stdout).toBe(readFileSync(shipped, 'utf8'));
    const script = `source '${shipped}'; COMP_WORDS=(tpa fu); COMP_CWORD=1; _tpa; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = run('bash', ['--norc', '--noprofile', '-c', script], { env: installedEnv() });
    expect(r.stdout.split('\n')).toContain('fund');
  });

  it('without the encryption package, local init --encrypt names the command that installs it, and that command makes it work', () => {
    installed();
    const key = 'ab'.repeat(32);
    const home = join(work, 'encrypted-home');
    const missing = tpa(['local', 'init', '--encrypt'], { TPA_HOME: home, TPA_DB_KEY: key });
    expect(missing.status, said(missing)).toBe(2);
    const spec = `better-sqlite3-multiple-ciphers@${pkg.devDependencies['better-sqlite3-multiple-ciphers']}`;
    const command = `npm install -g --prefix ${prefix} ${spec}`;
    expect(missing.stderr).toContain(`install it with: ${command}`);
    expect(readmeInstall()[2]).toBe(`npm install -g ${spec}`);
    expect(missing.stderr).not.toMatch(/\n\s+at /);

    const before = megabytes(prefix);
    const add = run('sh', ['-c', `${command} --no-audit --no-fund --loglevel=warn`], { env: installedEnv() });
    expect(add.status, said(add)).toBe(0);
    expect(add.stderr, 'npm warned').toBe('');
    console.log(`the encryption package, on request: ${add.seconds.toFixed(1)} s, the prefix ${before} MB → ${megabytes(prefix)} MB`);

    const init = tpa(['local', 'init', '--encrypt'], { TPA_HOME: home, TPA_DB_KEY: key });
    expect(init.status, said(init)).toBe(0);
    const header = Buffer.alloc(16);
    const fd = openSync(join(home, 'local.sqlite'), 'r');
    readSync(fd, header, 0, 16, 0);
    closeSync(fd);
    expect(header.toString('latin1')).not.toBe('SQLite format 3\0');
    const lookup = tpa(['local', 'fixtures'], { TPA_HOME: home, TPA_DB_KEY: key });
    expect(lookup.status, said(lookup)).toBe(0);
  });
});
