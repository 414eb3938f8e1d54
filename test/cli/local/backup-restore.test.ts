// tpa local restore takes a backup as data from outside and makes it a new database (docs/local-data.md
// "Backups"): a file whose schema is not exactly tpa's is refused with nothing replaced; the
// journals of jobs sent before the restore are history for the restored database, so a claim batch
// run again sends what the restored database no longer holds; and a command that opens the database
// while a restore replaces it writes nothing into the database replaced.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/barrier.js';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa, TPA_BIN, testEnv, useTpaHome } from '../../helpers/cli.js';
import { databaseContent, tempDir } from '../../helpers/engine.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };
const RENAME_HOLD = fileURLToPath(new URL('../../helpers/rename-hold.mjs', import.meta.url));
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** What a database file holds, read without tpa: its encounters (by number), SUBMISSION records and identity. */
function holds(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      encounters: db.prepare('SELECT encounter_number FROM encounters ORDER BY encounter_number').pluck().all() as string[],
      claims: db.prepare(`SELECT claim_json FROM encounters`).pluck().all() as string[],
      submissions: db.prepare(`SELECT count(*) FROM audit_log WHERE type = 'SUBMISSION'`).pluck().get() as number,
      identity: JSON.parse(db.prepare(`SELECT value FROM settings WHERE key = 'database'`).pluck().get() as string) as { id: string },
    };
  } finally {
    db.close();
  }
}

describe('tpa local restore accepts only the schema tpa makes', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  const cases: [name: string, sql: string, names: RegExp][] = [
    [
      'a trigger that rewrites every benefit written',
      `CREATE TRIGGER zz_skim AFTER INSERT ON encounters BEGIN UPDATE encounters SET benefit_cents = 0 WHERE id = NEW.id; END`,
      /trigger "zz_skim" is not one tpa makes/,
    ],
    ['a view', `CREATE VIEW aa_members AS SELECT * FROM encounters`, /view "aa_members" is not one tpa makes/],
    ['a table with a column more', `ALTER TABLE encounters ADD COLUMN note TEXT`, /table "encounters" is not defined as tpa defines it/],
    ['a table more', `CREATE TABLE aa_extra (x TEXT)`, /table "aa_extra" is not one tpa makes/],
  ];

  for (const [name, sql, names] of cases)
    it(`${name}: exit 2 naming it, nothing replaced`, async () => {
      const claim = join(out.dir, 'claim.json');
      writeFileSync(claim, JSON.stringify(distinctClaim(0)));
      expect((await home.run(['claim', 'submit', claim, '--wait'])).code).toBe(0);
      const good = join(out.dir, 'good.sqlite');
      expect((await home.run(['local', 'backup', good])).code).toBe(0);
      const bad = join(out.dir, 'bad.sqlite');
      copyFileSync(good, bad);
      const db = new Database(bad);
      db.exec(sql);
      db.close();
      const live = join(home.dir, 'local.sqlite');
      const before = databaseContent(live);
      const r = await home.run(['local', 'restore', bad, '--yes']);
      expect(r.code).toBe(2);
      // Not at a terminal, the error is JSON on stderr.
      const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
      expect(message).toContain(`${bad} does not hold tpa's schema at its version`);
      expect(message).toMatch(names);
      expect(message).toContain('nothing was changed');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(databaseContent(live)).toBe(before);
      expect(readdirSync(home.dir).filter((f) => f.includes('.tmp'))).toEqual([]);
      // The good one, of the same database, is restored.
      const restored = await home.run(['local', 'restore', good, '--yes']);
      expect(restored.code, restored.stderr).toBe(0);
    });
});

describe('a restored database is a new one for the journals of jobs', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  function folder(name: string, claims: number[]): string {
    const dir = join(out.dir, name);
    mkdirSync(dir);
    for (const i of claims) writeFileSync(join(dir, `claim-${i}.json`), JSON.stringify(distinctClaim(i)));
    return dir;
  }

  it('a claim batch sent after the backup is sent again after the restore: every claim of it in the database, none twice', async () => {
    const a = folder('a', [0, 1]);
    const b = folder('b', [2, 3, 4]);
    expect((await home.run(['claim', 'submit', a])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const taken = digest(backup);
    const live = join(home.dir, 'local.sqlite');
    const before = holds(live).identity.id;
    const first = await home.run(['claim', 'submit', b]);
    expect(first.code, first.stderr).toBe(0);
    expect(holds(live).encounters).toHaveLength(5);

    const restored = await home.run(['local', 'restore', backup, '--yes']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(holds(live).encounters).toHaveLength(2);
    // The same command again: its journal was sent to the database before the restore, so it is history.
    const again = await home.run(['claim', 'submit', b]);
    expect(again.code, again.stderr).toBe(0);
    const after = holds(live);
    expect(after.encounters).toHaveLength(5);
    expect(after.submissions).toBe(5);
    expect(new Set(after.claims).size).toBe(5);
    expect(again.stderr).toContain('was sent to another database');
    // Because the restored database has a new identity; the backup itself was not written; the audit chain is whole.
    expect(after.identity.id).not.toBe(before);
    expect(holds(backup).identity.id).toBe(before);
    expect(digest(backup)).toBe(taken);
    expect((await home.run(['local', 'audit', 'verify'])).code).toBe(0);
  });
  it('a payment run confirmed before the restore is not resumed as if its releases were there: nothing sent; a new run funds each encounter once', async () => {
    const claims = join(out.dir, 'claims.ndjson');
    writeFileSync(claims, `${[0, 1, 2, 3, 4, 5].map((i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
    expect((await home.run(['claim', 'submit', claims])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const funded = async () => {
      const r = await home.run(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return r.json<unknown[]>().length;
    };
    const review = await home.run(['fund', 'run', '--dry-run', '-o', 'json']);
    const { count, total } = review.json<{ count: number; total: number }>();
    expect(count).toBeGreaterThan(0);
    const run = (prefix: string) => ['fund', 'run', '--auth-code-prefix', prefix, '--expect-total', String(total), '--yes', '-o', 'ndjson'];
    const first = await home.run(run('AUTH-20261205-A'));
    expect(first.code, first.stderr).toBe(0);
    expect(await funded()).toBe(count);

    expect((await home.run(['local', 'restore', backup, '--yes'])).code).toBe(0);
    expect(await funded()).toBe(0);
    // The same command again: its journal says every release was made, but not in this database.
    const again = await home.run(run('AUTH-20261205-A'));
    expect(await funded()).toBe(0);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('was sent to another database');
    const fresh = await home.run(run('AUTH-20261205-B'));
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(await funded()).toBe(count);
  });
});

describe('a command that opens the database while a restore replaces it', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  for (const live of ['a database', 'no database yet'] as const)
    it(`writes nothing into the file replaced (${live}): it waits for the restore, is refused as busy, and runs again after it`, async () => {
      const claim = (i: number) => {
        const path = join(out.dir, `claim-${i}.json`);
        writeFileSync(path, JSON.stringify(distinctClaim(i)));
        return path;
      };
      const backup = join(out.dir, 'backup.sqlite');
      const source = tempDir();
      try {
        // The backup holds no claim; the database it replaces, one.
        const from = live === 'a database' ? home.dir : source.dir;
        expect((await runTpa(['local', 'init'], { home: from, env: CLOCK })).code).toBe(0);
        expect((await runTpa(['local', 'backup', backup], { home: from, env: CLOCK })).code).toBe(0);
      } finally {
        source.remove();
      }
      if (live === 'a database') expect((await home.run(['claim', 'submit', claim(0), '--wait'])).code).toBe(0);
      const db = join(home.dir, 'local.sqlite');
      expect(existsSync(db)).toBe(live === 'a database');
      const markers = tempDir();
      try {
        // The restore held just before its rename, every check done.
        const env = { ...testEnv({ home: home.dir, env: CLOCK }), TPA_TEST_RENAME_HOLD_DIR: markers.dir, TPA_TEST_RENAME_HOLD: 'before' };
        const child = spawn(process.execPath, ['--import', RENAME_HOLD, TPA_BIN, 'local', 'restore', backup, '--yes'], { env, cwd: home.dir, stdio: 'ignore' });
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        await until(() => readdirSync(markers.dir).some((f) => f.startsWith('held-')) || child.exitCode !== null);
        expect(child.exitCode).toBe(null);
        // A claim submitted now would be acknowledged and then lost with the file replaced.
        const during = await home.run(['claim', 'submit', claim(1)]);
        expect(during.code).toBe(4);
        expect(during.stderr).toContain('is being replaced by `tpa local restore`');
        writeFileSync(join(markers.dir, 'go'), '');
        expect(await exited).toBe(0);
      } finally {
        markers.remove();
      }
      expect(holds(db).encounters).toEqual([]);
      const after = await home.run(['claim', 'submit', claim(1), '--wait']);
      expect(after.code, after.stderr).toBe(0);
      expect(holds(db).encounters).toHaveLength(1);
      expect((await home.run(['local', 'audit', 'verify'])).code).toBe(0);
    });
});
