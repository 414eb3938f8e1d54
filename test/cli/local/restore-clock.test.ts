// tpa local restore and the engine clock (docs/local-data.md "Backups"): a backup whose latest recorded
// time (the setting that holds the service's clock) passes every time its records hold was written
// outside tpa: refused; so is one earlier than a time its records hold, or none beside records (the
// clock could then go back before what is recorded, and new claims be numbered and dated before
// older ones). A sandbox whose clock was set forward records its own later times: restored.
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { databaseContent } from '../../helpers/engine.js';

describe("a restore refuses a backup whose latest recorded time is not its records'", () => {
  const home = useTpaHome(beforeEach, afterEach);
  const out = useTpaHome(beforeEach, afterEach);

  it('a sandbox with its clock set forward (and a key made then) restores; its recorded_until moved to 2031 is refused, nothing replaced', async () => {
    expect((await home.run(['local', 'clock', 'set', '2030-06-01T10:00:00Z'])).code).toBe(0);
    expect((await home.run(['local', 'keys', 'create'])).code).toBe(0);
    const good = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', good])).code).toBe(0);
    const read = new Database(good, { readonly: true });
    expect(read.prepare(`SELECT value FROM settings WHERE key = 'recorded_until'`).pluck().get()).toBe('2030-06-01T10:00:00Z');
    read.close();
    const honest = await home.run(['local', 'restore', good, '--yes']);
    expect(honest.code, honest.stderr).toBe(0);

    const bad = join(out.dir, 'bad.sqlite');
    copyFileSync(good, bad);
    const db = new Database(bad);
    db.prepare(`UPDATE settings SET value = '2031-01-01T00:00:00Z' WHERE key = 'recorded_until'`).run();
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', bad, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(
      `${bad} holds a latest recorded time (setting recorded_until "2031-01-01T00:00:00Z") later than any time its records hold (2030-06-01T10:00:00Z)`,
    );
    expect(message).toContain('nothing was changed');
    expect(databaseContent(live)).toBe(before);
    const clock = await home.run(['local', 'clock', 'show', '-o', 'json']);
    expect(clock.stdout).not.toContain('2031');
  });
  it.each([
    [
      'moved back to 2020',
      `UPDATE settings SET value = '2020-01-01T00:00:00Z' WHERE key = 'recorded_until'`,
      'a latest recorded time (setting recorded_until "2020-01-01T00:00:00Z") earlier than a time its records hold (2026-03-01T09:00:00Z)',
    ],
    [
      'removed',
      `DELETE FROM settings WHERE key = 'recorded_until'`,
      'no latest recorded time (setting recorded_until) though its records hold times up to 2026-03-01T09:00:00Z',
    ],
  ])('a backup whose recorded_until is %s is refused, nothing replaced, the clock not let back', async (_what, edit, said) => {
    expect((await home.run(['local', 'clock', 'set', '2026-03-01T09:00:00Z'])).code).toBe(0);
    expect((await home.run(['local', 'keys', 'create'])).code).toBe(0);
    const good = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', good])).code).toBe(0);
    const bad = join(out.dir, 'bad.sqlite');
    copyFileSync(good, bad);
    const db = new Database(bad);
    db.prepare(edit).run();
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', bad, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(`${bad} holds ${said}: it was written outside tpa and would let the service's clock go back before what is recorded`);
    expect(message).toContain('nothing was changed');
    expect(databaseContent(live)).toBe(before);
    const back = await home.run(['local', 'clock', 'set', '2025-06-01T00:00:00Z']);
    expect(back.code).not.toBe(0);
  });
});
