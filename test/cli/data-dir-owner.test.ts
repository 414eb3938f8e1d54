// The data directory belongs to the user tpa runs as: a data folder, database file or journals
// folder that another user owns is refused (exit 2) naming the owner, before anything in it is read
// or written. With real user ids where the suite runs as root (65534, nobody, as the other user;
// uid 1, daemon, as a second user running tpa); otherwise what a user who is not root can show.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, TPA_BIN, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);
const root = process.getuid?.() === 0;
const OTHER = 65534;
const SECOND = 1;
const mode = (path: string) => statSync(path).mode & 0o777;
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);
const claimFile = fileURLToPath(new URL('../fixtures/claims/professional.json', import.meta.url));

/** A folder under the test's home owned by `uid`, open to all (0777), as that user would leave it. */
function othersFolder(name: string, uid: number): string {
  const dir = join(home.dir, name);
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  chownSync(dir, uid, uid);
  return dir;
}

/** A file owned by `uid`, 0666, empty: a database another user planted. */
function othersFile(path: string, uid: number): void {
  writeFileSync(path, '');
  chmodSync(path, 0o666);
  chownSync(path, uid, uid);
}

/**
 * Where the suite does not run as root (CI does), another user's files cannot be made: each test of
 * real uids then shows what such a user can, a data folder root owns refused.
 */
async function rootsFolderRefused(): Promise<void> {
  const r = await runTpa(['local', 'fixtures'], { home: '/' });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/the data folder \/ belongs to uid 0/);
  noStack(r.stderr);
}

describe('a data directory another user owns (real uids)', () => {
  it('a data folder another user owns is refused (exit 2) naming its owner; their planted 0666 database stays empty and the folder keeps its mode', async () => {
    if (!root) return rootsFolderRefused();
    chmodSync(home.dir, 0o755);
    const data = othersFolder('theirs', OTHER);
    othersFile(join(data, 'local.sqlite'), OTHER);
    const r = await runTpa(['local', 'fixtures'], { home: data });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the data folder .*theirs belongs to uid 65534.*not to the user tpa runs as \(uid 0/);
    expect(r.stderr).toMatch(/nothing there was read or written/);
    noStack(r.stderr);
    expect(statSync(join(data, 'local.sqlite')).size).toBe(0);
    expect(mode(data).toString(8)).toBe('777');
    expect(readdirSync(data).sort()).toEqual(['local.sqlite']);
  });

  it("what an interrupted encrypt left in another user's data folder is not rolled back or removed: refused first", async () => {
    if (!root) return rootsFolderRefused();
    chmodSync(home.dir, 0o755);
    const data = othersFolder('theirs', OTHER);
    othersFile(join(data, 'local.sqlite'), OTHER);
    writeFileSync(join(data, 'local.sqlite-journal'), 'x'.repeat(2048));
    writeFileSync(join(data, 'local.sqlite.encrypting'), JSON.stringify({ pid: 999999 }));
    chownSync(join(data, 'local.sqlite-journal'), OTHER, OTHER);
    chownSync(join(data, 'local.sqlite.encrypting'), OTHER, OTHER);
    const r = await runTpa(['ledger', 'list'], { home: data });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/belongs to uid 65534/);
    expect(readdirSync(data).sort()).toEqual(['local.sqlite', 'local.sqlite-journal', 'local.sqlite.encrypting']);
    expect(statSync(join(data, 'local.sqlite-journal')).size).toBe(2048);
  });

  it('a second user running tpa on a folder another user owns is refused (exit 2), not warned and then used', async () => {
    if (!root) return rootsFolderRefused();
    chmodSync(home.dir, 0o755);
    const data = othersFolder('shared', OTHER);
    othersFile(join(data, 'local.sqlite'), OTHER);
    const userHome = othersFolder('second-home', SECOND);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: userHome, TPA_HOME: data, TPA_KEYRING: 'off' };
    const r = spawnSync('setpriv', [`--reuid=${SECOND}`, `--regid=${SECOND}`, '--clear-groups', process.execPath, TPA_BIN, 'local', 'fixtures'], {
      env,
      cwd: userHome,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/belongs to uid 65534.*not to the user tpa runs as \(uid 1\b/);
    expect(r.stderr).not.toMatch(/could not be narrowed/);
    noStack(r.stderr);
    expect(statSync(join(data, 'local.sqlite')).size).toBe(0);
    expect(readdirSync(data).sort()).toEqual(['local.sqlite']);
  });

  it('local serve on a data folder another user owns is refused (exit 2) before its lock is written there', async () => {
    if (!root) return rootsFolderRefused();
    chmodSync(home.dir, 0o755);
    const data = othersFolder('theirs', OTHER);
    othersFile(join(data, 'local.sqlite'), OTHER);
    const r = await runTpa(['local', 'serve', '--port', '0'], { home: data });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the data folder .*theirs belongs to uid 65534/);
    expect(readdirSync(data).sort()).toEqual(['local.sqlite']);
  });

  it("a database file another user planted in one's own folder is refused (exit 2) before SQLite opens it", async () => {
    if (!root) return rootsFolderRefused();
    const data = join(home.dir, 'mine');
    mkdirSync(data, { mode: 0o700 });
    othersFile(join(data, 'local.sqlite'), OTHER);
    const r = await runTpa(['local', 'fixtures'], { home: data });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the database file .*local\.sqlite belongs to uid 65534/);
    noStack(r.stderr);
    expect(statSync(join(data, 'local.sqlite')).size).toBe(0);
    expect(mode(join(data, 'local.sqlite')).toString(8)).toBe('666');
    expect(existsSync(join(data, 'local.sqlite-wal'))).toBe(false);
  });

  it("a journals folder another user owns in one's own data folder is refused (exit 2): no journal written there, by claim submit or tpa jobs", async () => {
    if (!root) return rootsFolderRefused();
    const data = join(home.dir, 'mine');
    mkdirSync(data, { mode: 0o700 });
    const journals = join(data, 'journals');
    mkdirSync(journals);
    chmodSync(journals, 0o777);
    chownSync(journals, OTHER, OTHER);
    const submit = await runTpa(['claim', 'submit', claimFile], { home: data });
    expect(submit.code, submit.stderr).toBe(2);
    expect(submit.stderr).toMatch(/the journals folder .*journals belongs to uid 65534/);
    noStack(submit.stderr);
    expect(readdirSync(journals)).toEqual([]);
    const jobs = await runTpa(['jobs'], { home: data });
    expect(jobs.code, jobs.stderr).toBe(2);
    expect(jobs.stderr).toMatch(/the journals folder .*journals belongs to uid 65534/);
    expect(mode(journals).toString(8)).toBe('777');
  });
});

describe('a data directory another user owns (any user)', () => {
  it('a data folder owned by root is refused (exit 2) naming its owner, nothing written', async () => {
    if (!root) return rootsFolderRefused();
    // As root, the same as another user: tpa run as uid 65534 on a folder root owns.
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, TPA_BIN, 'local', 'fixtures'], {
      env: { PATH: process.env.PATH, TPA_HOME: '/', TPA_KEYRING: 'off', HOME: '/tmp' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the data folder \/ belongs to uid 0/);
    noStack(r.stderr);
  });
});
