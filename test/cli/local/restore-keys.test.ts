// tpa local restore across database keys (docs/local-data.md "Backups"): a backup taken under one key,
// restored into a data directory encrypted under another with the backup's key given, is refused
// as such (exit 5, nothing changed), never SQLite's "file is not a database" as an internal error.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('a restore into a data directory encrypted under another key', () => {
  const first = useTpaHome(beforeEach, afterEach);
  const second = useTpaHome(beforeEach, afterEach);
  const out = useTpaHome(beforeEach, afterEach);

  it("with the backup's key given: exit 5 saying the keys differ and what to do, nothing changed; with the directory's key: the backup's key is asked for", async () => {
    const k1 = { TPA_DB_KEY: randomBytes(32).toString('hex') };
    const k2 = { TPA_DB_KEY: randomBytes(32).toString('hex') };
    expect((await first.run(['local', 'init', '--encrypt'], k1)).code).toBe(0);
    const backup = join(out.dir, 'b.sqlite');
    expect((await first.run(['local', 'backup', backup], k1)).code).toBe(0);
    expect((await second.run(['local', 'init', '--encrypt'], k2)).code).toBe(0);
    const live = join(second.dir, 'local.sqlite');
    const asked = await second.run(['local', 'restore', backup, '--yes'], k2);
    expect(asked.code).toBe(5);
    expect(asked.stderr).toContain('set TPA_DB_KEY to the key of the database it was taken from');
    const before = digest(live);
    const r = await second.run(['local', 'restore', backup, '--yes'], k1);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).toContain(`the local database ${live} is encrypted under another key than the one given`);
    expect(r.stderr).toContain('reset this one first (tpa local reset); nothing was changed');
    expect(digest(live)).toBe(before);
    expect((await second.run(['local', 'audit', 'verify'], k2)).code).toBe(0);
  });
});
