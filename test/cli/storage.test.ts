// The local database when its storage fails: a file that is not a tpa database, one
// written by a newer tpa, a writer holding it past the busy wait. Each gets a clear message and an
// exit code, never a stack trace, and the file is not changed.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, testEnv, tpa, TPA_BIN, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);
const file = () => join(home.dir, 'local.sqlite');
const digest = () => createHash('sha256').update(readFileSync(file())).digest('hex');

describe('the local database, when its storage fails', () => {
  it('a file that is not a tpa database: exit 8 saying so, no stack trace, the file untouched', async () => {
    writeFileSync(file(), 'not a database '.repeat(500));
    const before = digest();
    const r = await runTpa(['ledger', 'list'], { home: home.dir });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/is not a tpa database \(or it is damaged\): move it away, or run tpa local reset/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(digest()).toBe(before);
  });

  it('a database written by a newer tpa is refused (exit 2, upgrade), and not changed', async () => {
    expect((await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const db = new Database(file());
    db.pragma('user_version = 999');
    db.close();
    const before = digest();
    const r = await runTpa(['ledger', 'list'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by a newer tpa \(schema version 999; this tpa knows \d+\): upgrade tpa/);
    expect(digest()).toBe(before);
  });

  it('a full disk (a file size limit, ulimit -f): exit 8 saying the change was rolled back; the database stays whole and takes the claim once there is room', async () => {
    expect((await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const t = await runTpa(['claim', 'template'], { home: home.dir });
    writeFileSync(join(home.dir, 'c.json'), t.stdout);
    const env = testEnv({ home: home.dir });
    // The claim's pages (between 10 and 20 KB of WAL in pages of 1 KiB) do not fit in 5 KB (10
    // blocks of 512 bytes; 10 KB where sh counts blocks of 1 KiB). The WAL index (32 KB) would not
    // fit either: a reader keeps it in place meanwhile, so that what fails is the claim's own write.
    const reader = new Database(file());
    reader.prepare('SELECT COUNT(*) FROM encounters').pluck().get();
    const full = spawnSync('sh', ['-c', `ulimit -f 10; exec "${process.execPath}" "${TPA_BIN}" claim submit c.json`], { cwd: home.dir, env, encoding: 'utf8' });
    reader.close();
    expect(full.status, full.stderr).toBe(8);
    expect(full.stderr).toMatch(/could not be written \(the disk is full or failing\); the last change was rolled back/);
    expect(full.stderr).not.toMatch(/\n\s+at /);
    const db = new Database(file(), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare('SELECT COUNT(*) FROM encounters').pluck().get()).toBe(0);
    db.close();
    const room = await runTpa(['claim', 'submit', 'c.json', '-o', 'json'], { home: home.dir });
    expect(room.code, room.stderr).toBe(0);
    expect((await runTpa(['ledger', 'list', '-o', 'json'], { home: home.dir })).json<{ count: number }>().count).toBe(1);
  });

  it('a data dir that cannot be written (read-only): exit 8 saying so, no stack trace, the database unchanged; reading it again once it can be written', async () => {
    expect((await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const t = await runTpa(['claim', 'template'], { home: home.dir });
    writeFileSync(join(home.dir, 'c.json'), t.stdout);
    const before = digest();
    // Root writes whatever the modes say: as root, the command runs without the capabilities that
    // override them (setpriv, util-linux), so the modes bind it. It stays root, so it still reads the
    // project wherever it lies (a clone in a folder of mode 700 is closed to any other user).
    const asRoot = process.getuid?.() === 0;
    const env = testEnv({ home: home.dir, env: { HOME: home.dir } });
    chmodSync(home.dir, 0o555);
    chmodSync(file(), 0o444);
    try {
      const command = [process.execPath, TPA_BIN, 'claim', 'submit', 'c.json'];
      const r = asRoot
        ? spawnSync('setpriv', ['--bounding-set', '-dac_override,-dac_read_search,-fowner', '--', ...command], { cwd: home.dir, env, encoding: 'utf8' })
        : spawnSync(command[0]!, command.slice(1), { cwd: home.dir, env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(8);
      expect(r.stderr).toMatch(/cannot be written \(a read-only file or folder, or no permission\); nothing was changed/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      chmodSync(home.dir, 0o700);
      chmodSync(file(), 0o600);
    }
    expect(digest()).toBe(before);
    const room = await runTpa(['claim', 'submit', 'c.json', '-o', 'json'], { home: home.dir });
    expect(room.code, room.stderr).toBe(0);
  });

  it('a writer that holds the database past the busy wait: the claim waits, then exit 8 saying what holds it; nothing is half-written', async () => {
    expect((await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const t = await runTpa(['claim', 'template'], { home: home.dir });
    writeFileSync(join(home.dir, 'c.json'), t.stdout);
    const holder = new Database(file());
    holder.exec('BEGIN EXCLUSIVE');
    try {
      // Another process than the one holding the lock, as it would be.
      const started = Date.now();
      const r = await tpa(['claim', 'submit', 'c.json'], { home: home.dir });
      // The busy wait (5 s) did happen, however fast the machine.
      expect(Date.now() - started).toBeGreaterThan(4000);
      expect(r.code).toBe(8);
      // And once: the engine has already waited, the client does not wait again.
      expect(r.stderr).not.toMatch(/trying again/);
      expect(r.stderr).toMatch(/is busy: another process \(tpa local serve, or another tpa command\) held it/);
      expect(r.stderr).not.toMatch(/internal error/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const list = await runTpa(['ledger', 'list', '-o', 'json'], { home: home.dir });
    expect(list.json<{ count: number }>().count).toBe(0);
  });
});
