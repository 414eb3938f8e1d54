// tpa local restore, hardened (docs/local-data.md "Backups"): nothing written while it runs is confirmed
// and then lost; a credential revoked since the backup stays revoked; a backup whose money disagrees
// with its own audit chain is refused; a backup with a WAL beside it is refused naming it, with
// nothing written beside it or left in the data directory; Ctrl-C removes the restore's copy.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/barrier.js';
import { TPA_BIN, testEnv, useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';
import { databaseContent, tempDir } from '../../helpers/engine.js';
import { serve } from '../../helpers/server.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };
const HOLD = fileURLToPath(new URL('../../helpers/rename-hold.mjs', import.meta.url));

/** The temporary files of a restore (and what SQLite makes beside them) in a folder. */
const temporaries = (dir: string) => readdirSync(dir).filter((f) => f.includes('.tmp'));

/** `tpa local restore <backup> --yes` as a process held at the start of its copy of the backup, until `go`. */
async function heldRestore(home: string, backup: string) {
  const markers = tempDir();
  const env = { ...testEnv({ home, env: CLOCK }), TPA_TEST_RENAME_HOLD_DIR: markers.dir, TPA_TEST_RENAME_HOLD: 'copy' };
  const child = spawn(process.execPath, ['--import', HOLD, TPA_BIN, 'local', 'restore', backup, '--yes'], {
    env,
    cwd: home,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await until(() => readdirSync(markers.dir).some((f) => f.startsWith('held-')) || child.exitCode !== null);
  expect(child.exitCode, stderr).toBe(null);
  return {
    child,
    stderr: () => stderr,
    go: async () => {
      writeFileSync(join(markers.dir, 'go'), '');
      const code = await exited;
      markers.remove();
      return code;
    },
  };
}

describe('tpa local restore holds the database from before it reads the backup until the rename', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('a fund release tried while the restore copies the backup is refused busy (exit 4), never APPROVED and then lost; the restore completes', async () => {
    const e = await adjudicatedEncounter(home.run, out.dir);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const restore = await heldRestore(home.dir, backup);
    const during = await home.run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20261205-R3-0001', '--yes', '-o', 'json']);
    expect(during.code, during.stderr).toBe(4);
    expect(during.stderr).toContain('is being replaced by `tpa local restore`');
    expect(during.stdout).not.toContain('APPROVED');
    expect(await restore.go(), restore.stderr()).toBe(0);
    // Nothing was confirmed: the encounter is still to fund, and funds once now.
    const funded = await home.run(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'json']);
    expect(funded.json<unknown[]>()).toEqual([]);
    const after = await home.run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20261205-R3-0002', '--yes', '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
  });
});

describe('a restore never brings back a credential revoked since the backup', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('a key and a client revoked after the backup stay revoked (the key gets 401 over HTTP); the summary counts them; the chain stays whole', async () => {
    const kept = await home.run(['local', 'keys', 'create']);
    const revokedKey = await home.run(['local', 'keys', 'create']);
    expect(kept.code).toBe(0);
    expect((await home.run(['local', 'clients', 'register', 'acme-r3', '--scopes', 'ledger_access'])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const keys = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<{ id: string; last4: string }[]>();
    const id = keys.find((k) => k.last4 === revokedKey.stdout.trim().slice(-4))!.id;
    expect((await home.run(['local', 'keys', 'revoke', id, '--yes'])).code).toBe(0);
    expect((await home.run(['local', 'clients', 'revoke', 'acme-r3', '--yes'])).code).toBe(0);

    const restored = await home.run(['local', 'restore', backup, '--yes', '-o', 'json']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json<{ kept_revoked: unknown }>().kept_revoked).toEqual({ keys: 1, clients: 1 });
    expect(restored.stderr).toContain('2 credentials revoked since the backup kept revoked');
    const listed = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<{ id: string; status: string }[]>();
    expect(listed.find((k) => k.id === id)?.status).toBe('revoked');
    const clients = (await home.run(['local', 'clients', 'list', '-o', 'json'])).json<{ client_id: string; status: string }[]>();
    expect(clients.find((c) => c.client_id === 'acme-r3')?.status).toBe('revoked');
    expect((await home.run(['local', 'audit', 'verify', '--deep'])).code).toBe(0);

    const server = await serve(home.dir, [], CLOCK);
    try {
      const health = (key: string) => fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': key } });
      expect((await health(revokedKey.stdout.trim())).status).toBe(401);
      expect((await health(kept.stdout.trim())).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('tpa local restore refuses what it must not put in place, leaving nothing behind', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('a backup whose money disagrees with its own audit chain: exit 2 naming the row, nothing replaced', async () => {
    const e = await adjudicatedEncounter(home.run, out.dir);
    const good = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', good])).code).toBe(0);
    const bad = join(out.dir, 'bad.sqlite');
    copyFileSync(good, bad);
    const db = new Database(bad);
    db.prepare('UPDATE encounters SET benefit_cents = 2460000').run();
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', bad, '--yes']);
    expect(r.code).toBe(2);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(`${bad} holds money tables that disagree with its own audit chain`);
    expect(message).toContain(e.id);
    expect(message).toContain('nothing was changed');
    expect(databaseContent(live)).toBe(before);
    expect(temporaries(home.dir)).toEqual([]);
    expect((await home.run(['local', 'restore', good, '--yes'])).code).toBe(0);
  });

  it('a backup with a WAL beside it: refused naming the file given, nothing written beside it, nothing left in the data directory', async () => {
    expect((await home.run(['local', 'init'])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const copy = join(out.dir, 'wal.sqlite');
    // A copy of a database in use: its WAL holds a commit the file alone does not.
    const db = new Database(backup);
    expect(db.pragma('journal_mode = WAL', { simple: true })).toBe('wal');
    db.pragma('wal_autocheckpoint = 0');
    db.prepare(`INSERT INTO settings (key, value) VALUES ('written-since', '1')`).run();
    copyFileSync(backup, copy);
    copyFileSync(`${backup}-wal`, `${copy}-wal`);
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', copy, '--yes']);
    expect(r.code).toBe(2);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(`${copy} has a WAL beside it`);
    expect(message).not.toContain('.tmp');
    expect(existsSync(`${copy}-shm`)).toBe(false);
    expect(temporaries(home.dir)).toEqual([]);
    expect(databaseContent(live)).toBe(before);
  });
});

describe('a restore over a database damaged past reading', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('puts the backup in place (nothing can open the damaged file, so nothing is held): exit 0, the backup whole', async () => {
    await adjudicatedEncounter(home.run, out.dir);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    writeFileSync(join(home.dir, 'local.sqlite'), 'not a database at all, '.repeat(400));
    const r = await home.run(['local', 'restore', backup, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(databaseContent(join(home.dir, 'local.sqlite'))).toContain('encounters');
    expect((await home.run(['local', 'audit', 'verify', '--deep'])).code).toBe(0);
  });
});

describe('an interrupted restore leaves nothing in the data directory', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    it(`${signal} while it copies the backup: its copy removed, the database as it was, exit ${code}`, async () => {
      await adjudicatedEncounter(home.run, out.dir);
      const backup = join(out.dir, 'backup.sqlite');
      expect((await home.run(['local', 'backup', backup])).code).toBe(0);
      await adjudicatedEncounter(home.run, out.dir);
      const live = join(home.dir, 'local.sqlite');
      const before = databaseContent(live);
      const restore = await heldRestore(home.dir, backup);
      restore.child.kill(signal);
      expect(await restore.go()).toBe(code);
      expect(restore.stderr()).toContain('nothing was replaced');
      expect(temporaries(home.dir)).toEqual([]);
      expect(databaseContent(live)).toBe(before);
      // The database is let go: a command writes to it.
      expect((await home.run(['local', 'audit', 'verify'])).code).toBe(0);
    });

  it('the copies a dead restore left are removed by the next restore, even one refused, and by local reset', async () => {
    expect((await home.run(['local', 'init'])).code).toBe(0);
    const leave = () => {
      for (const suffix of ['', '-journal', '-wal', '-shm']) writeFileSync(join(home.dir, `local.sqlite.999999.k3x9a1b2.restore.tmp${suffix}`), 'x');
      expect(temporaries(home.dir)).toHaveLength(4);
    };
    leave();
    const empty = join(out.dir, 'empty.sqlite');
    writeFileSync(empty, '');
    expect((await home.run(['local', 'restore', empty, '--yes'])).code).toBe(2);
    expect(temporaries(home.dir)).toEqual([]);
    leave();
    expect((await home.run(['local', 'reset', '--yes'])).code).toBe(0);
    expect(temporaries(home.dir)).toEqual([]);
  });
});
