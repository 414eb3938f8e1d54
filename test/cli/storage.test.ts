// The local database when its storage fails (issue 14): a file that is not a tpa database, one
// written by a newer tpa, a writer holding it past the busy wait. Each gets a clear message and an
// exit code, never a stack trace, and the file is not changed.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());
const file = () => join(home.dir, 'local.sqlite');
const digest = () => createHash('sha256').update(readFileSync(file())).digest('hex');

describe('the local database, when its storage fails', () => {
  it('a file that is not a tpa database: exit 8 saying so, no stack trace, the file untouched', async () => {
    writeFileSync(file(), 'not a database '.repeat(500));
    const before = digest();
    const r = await tpa(['ledger', 'list'], { home: home.dir });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/is not a tpa database \(or it is damaged\): move it away, or run tpa local reset/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(digest()).toBe(before);
  });

  it('a database written by a newer tpa is refused (exit 2, upgrade), and not changed', async () => {
    expect((await tpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const db = new Database(file());
    db.pragma('user_version = 999');
    db.close();
    const before = digest();
    const r = await tpa(['ledger', 'list'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by a newer tpa \(schema version 999; this tpa knows \d+\): upgrade tpa/);
    expect(digest()).toBe(before);
  });

  it('a writer that holds the database past the busy wait: the claim waits, then exit 8 saying what holds it; nothing is half-written', async () => {
    expect((await tpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    const t = await tpa(['claim', 'template'], { home: home.dir });
    writeFileSync(join(home.dir, 'c.json'), t.stdout);
    const holder = new Database(file());
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      const r = await tpa(['claim', 'submit', 'c.json'], { home: home.dir, timeoutMs: 60_000 });
      // The busy wait (5 s), once: the engine has already waited, the client does not wait again.
      expect(Date.now() - started).toBeGreaterThan(4000);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/is busy: another process \(tpa local serve, or another tpa command\) held it/);
      expect(r.stderr).not.toMatch(/internal error/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const list = await tpa(['ledger', 'list', '-o', 'json'], { home: home.dir });
    expect(list.json<{ count: number }>().count).toBe(0);
  }, 90_000);
});
