// The copy `tpa local backup` makes of a database another connection keeps committing to
// (src/engine/store/backup.ts): SQLite's online backup starts again from the first page whenever
// another connection commits between two of its steps, so it copies every page in one step. Here
// another connection commits between every two turns of the event loop, which is where the
// backup's steps are taken: a backup of a few pages a step would start again until the writes stop.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyLiveDatabase } from '../../src/engine/store/backup.js';
import { tempDir } from '../helpers/engine.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

describe('the copy of a live database', () => {
  it('finishes while another connection commits between every two steps, and holds one committed state', async () => {
    const file = join(dir.dir, 'live.sqlite');
    const source = new Database(file);
    source.pragma('page_size = 1024');
    source.pragma('journal_mode = WAL');
    source.exec('CREATE TABLE rows (n INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
    const fill = source.prepare('INSERT INTO rows (payload) VALUES (?)');
    source.transaction(() => {
      for (let i = 0; i < 600; i++) fill.run(randomBytes(900));
    })();
    const writer = new Database(file);
    const insert = writer.prepare('INSERT INTO rows (payload) VALUES (?)');
    const LIMIT = 2000;
    let commits = 0;
    let copied = false;
    const tick = () => {
      if (copied || commits >= LIMIT) return;
      insert.run(randomBytes(900));
      commits++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const target = join(dir.dir, 'copy.sqlite');
    try {
      await copyLiveDatabase(source, target, false);
      copied = true;
      // Done while the writes went on, not once they stopped.
      expect(commits).toBeLessThan(LIMIT);
      const copy = new Database(target, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = copy.prepare('SELECT count(*) FROM rows').pluck().get() as number;
        expect(rows).toBeGreaterThanOrEqual(600);
        expect(rows).toBeLessThanOrEqual(600 + commits);
      } finally {
        copy.close();
      }
    } finally {
      copied = true;
      writer.close();
      source.close();
    }
  });
});
