// The single executable (`npm run sea`, docs/packaging.md "Single executable") on a machine with no
// Node: built from this checkout, copied out of it, and run with a PATH that holds nothing and no
// Node variable, so that neither a node nor the project's node_modules is within its reach. For
// linux-x64, the one platform it is built for (this machine and CI).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

let dir: string;
let exe: string;

/** The environment of a machine with no Node: an empty PATH folder, homes in the scratch folder, no NODE_* variable. */
function bare(home: string): NodeJS.ProcessEnv {
  return {
    PATH: join(dir, 'empty-bin'),
    HOME: join(dir, 'home'),
    TPA_HOME: home,
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
    LANG: 'C.UTF-8',
  };
}

function tpa(args: string[], home = join(dir, 'tpa-home')): SpawnSyncReturns<string> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return spawnSync(exe, args, { cwd: dir, env: bare(home), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(() => {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`the single executable is built and tested on linux-x64 only, not ${process.platform}-${process.arch}`);
  const built = spawnSync('npm', ['run', 'sea'], { cwd: ROOT, encoding: 'utf8' });
  expect(built.status, `npm run sea failed:\n${built.stdout}\n${built.stderr}`).toBe(0);
  // What was built, and its size, in the test's output.
  process.stdout.write(`${built.stdout.split('\n').find((l) => l.includes('tpa-linux-x64:'))}\n`);
  dir = mkdtempSync(join(tmpdir(), 'tpa-sea-'));
  mkdirSync(join(dir, 'empty-bin'));
  mkdirSync(join(dir, 'home'), { mode: 0o700 });
  exe = join(dir, 'tpa-linux-x64');
  copyFileSync(join(ROOT, 'build/tpa-linux-x64'), exe);
  spawnSync('chmod', ['755', exe]);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the single executable', () => {
  it('runs where no node can be found: the environment finds none, and the executable is outside the checkout', () => {
    const which = spawnSync('/bin/sh', ['-c', 'command -v node || command -v nodejs'], { env: bare(join(dir, 'tpa-home')), encoding: 'utf8' });
    expect(which.status).not.toBe(0);
    expect(which.stdout).toBe('');
    expect(readdirSync(join(dir, 'empty-bin'))).toEqual([]);
    expect(exe.startsWith(ROOT)).toBe(false);
    expect(Object.keys(bare(dir)).filter((k) => k.startsWith('NODE'))).toEqual([]);
  });

  it('prints its version', () => {
    const r = tpa(['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it('runs tpa demo to its end, every rule holding', () => {
    const table = tpa(['demo', '-o', 'table'], join(dir, 'demo-table'));
    expect(table.stderr).toBe('');
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('the run moved exactly the confirmed total: 1,033.50 = 1,033.50');
    expect(table.stdout).toContain('Next: the same on your own local engine');
    expect(table.stdout).not.toContain('✗');
    const json = tpa(['demo', '-o', 'json'], join(dir, 'demo-json'));
    expect(json.status).toBe(0);
    const result = JSON.parse(json.stdout) as { rules_hold: boolean; payment_run: { approvals: number; total: string } };
    expect(result.rules_hold).toBe(true);
    expect(result.payment_run).toMatchObject({ approvals: 4, total: '1,033.50' });
  });

  it('looks a contract up on the embedded engine, whose database it creates', () => {
    const home = join(dir, 'lookup');
    const r = tpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '-o', 'json'], home);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ match_found: true });
    expect(existsSync(join(home, 'local.sqlite'))).toBe(true);
  });

  it('filters with --jq, jq carried inside (no node_modules beside it)', () => {
    const r = tpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '--jq', '.match_found'], join(dir, 'lookup'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('true\n');
  });

  it('keeps its SQLite addon in a folder of the user (0700), a file of the user (0600) named by its digest, the bytes of better-sqlite3', () => {
    expect(tpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380']).status).toBe(0);
    const folder = join(dir, 'cache', 'tpa', 'sea');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    const addon = readFileSync(join(ROOT, 'node_modules/better-sqlite3/prebuilds/linux-x64.node'));
    expect(files).toEqual([`better_sqlite3-${createHash('sha256').update(addon).digest('hex').slice(0, 16)}.node`]);
    const file = join(folder, files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).equals(addon)).toBe(true);
  });

  it('writes its addon again when the kept one is not whole', () => {
    expect(tpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380']).status).toBe(0);
    const folder = join(dir, 'cache', 'tpa', 'sea');
    const file = join(folder, readdirSync(folder)[0]!);
    const whole = readFileSync(file);
    truncateSync(file, 4096);
    const r = tpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '-o', 'json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ match_found: true });
    expect(readFileSync(file).equals(whole)).toBe(true);
    expect(readdirSync(folder)).toHaveLength(1);
  });

  it('loads no addon a folder open to others holds: a cache folder others may write in is not used', () => {
    const cache = join(dir, 'open-cache');
    mkdirSync(join(cache, 'tpa', 'sea'), { recursive: true });
    spawnSync('chmod', ['-R', '777', cache]);
    const home = join(dir, 'open-home');
    mkdirSync(home, { mode: 0o700 });
    const r = spawnSync(exe, ['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '-o', 'json'], {
      cwd: dir,
      env: { ...bare(home), XDG_CACHE_HOME: cache },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ match_found: true });
    expect(readdirSync(join(cache, 'tpa', 'sea'))).toEqual([]);
  });

  it('has the help of every command, and the completions, inside', () => {
    const root = tpa(['--help']);
    expect(root.status).toBe(0);
    expect(root.stdout).toBe(readFileSync(join(ROOT, 'dist/help.txt'), 'utf8'));
    const help = tpa(['help', 'fund', 'approve']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tpa fund approve \[options\] <encounter_id>/);
    const completion = tpa(['completion', 'bash']);
    expect(completion.status).toBe(0);
    expect(completion.stdout).toBe(readFileSync(join(ROOT, 'completions/tpa.bash'), 'utf8'));
  });

  it('has no keychain: a login keeps its key in the 0600 file, and TPA_KEYRING=required says why it cannot; its server answers the OpenAPI document', async () => {
    const home = join(dir, 'login');
    mkdirSync(home, { mode: 0o700 });
    // The executable's own server, on a free port of 127.0.0.1 (printed on its first line).
    const server = spawn(exe, ['local', 'serve', '--port', '0'], { cwd: dir, env: bare(home), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const m = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        server.on('exit', (code) => reject(new Error(`local serve exited ${code}`)));
      });
      const key = tpa(['local', 'keys', 'create'], home).stdout;
      const login = (env: NodeJS.ProcessEnv) =>
        spawnSync(exe, ['auth', 'login', '--env', 'sandbox', '--base-url', url, '--with-key-stdin'], {
          cwd: dir,
          env: { ...bare(home), ...env },
          input: key,
          encoding: 'utf8',
        });
      const required = login({ TPA_KEYRING: 'required' });
      expect(required.status).toBe(5);
      expect(required.stderr).toContain('TPA_KEYRING=required, but no keychain answered: the single executable of tpa has no keychain');
      // Its hint fits a build without a keychain: nothing to unlock or start.
      expect(required.stderr).toContain('use the npm package of tpa');
      expect(required.stderr).not.toContain('Secret Service');
      expect(existsSync(join(home, 'credentials.json'))).toBe(false);
      const auto = login({});
      expect(auto.status, auto.stderr).toBe(0);
      expect(auto.stderr).toContain(`no keychain here: credentials are kept in ${join(home, 'credentials.json')} (mode 0600)`);
      expect(statSync(join(home, 'credentials.json')).mode & 0o777).toBe(0o600);
      // The service's OpenAPI document is inside too, served as the npm build serves it.
      const document = await fetch(`${url}/openapi.yaml`);
      expect(document.status).toBe(200);
      expect(await document.text()).toBe(readFileSync(join(ROOT, 'docs/openapi.yaml'), 'utf8'));
      const lookup = tpa(['-p', 'sandbox', 'lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '-o', 'json'], home);
      expect(lookup.status, lookup.stderr).toBe(0);
      expect(JSON.parse(lookup.stdout)).toMatchObject({ match_found: true });
    } finally {
      const exited = new Promise((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve(null) : server.once('exit', resolve)));
      server.kill('SIGINT');
      await exited;
    }
  });

  it('in an encrypted data directory whose database a reset removed, refuses a command and makes no database file', () => {
    const home = join(dir, 'encrypted-reset');
    mkdirSync(home, { mode: 0o700 });
    const env = { ...bare(home), TPA_DB_KEY: 'ab'.repeat(32), TPA_KEYRING: 'off' };
    // The npm build (the one with encryption) makes the encrypted data directory, then resets it.
    const npm = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/tpa'), ...args], { cwd: dir, env, encoding: 'utf8' });
    expect(npm(['local', 'init', '--encrypt']).status).toBe(0);
    expect(npm(['local', 'reset', '--yes']).status).toBe(0);
    expect(existsSync(join(home, 'local.sqlite'))).toBe(false);
    expect(existsSync(join(home, 'local.sqlite.encrypted'))).toBe(true);
    const r = spawnSync(exe, ['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380'], { cwd: dir, env, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('this tpa is the single executable, which has no encryption');
    expect(readdirSync(home).filter((f) => f.startsWith('local.sqlite') && f !== 'local.sqlite.encrypted')).toEqual([]);
  });

  it('refuses an encrypted database, saying to use the npm package, and writes nothing', () => {
    const home = join(dir, 'encrypt');
    const r = tpa(['local', 'init', '--encrypt'], home);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('this tpa is the single executable, which has no encryption');
    expect(r.stderr).toContain('npm package');
    expect(readdirSync(home)).toEqual([]);
  });
});
