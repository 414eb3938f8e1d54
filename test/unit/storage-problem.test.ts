import { describe, expect, it } from 'vitest';
import { storageProblem } from '../../src/engine/store/db.js';

describe('a storage error of SQLite, said', () => {
  const said = (code: string) => storageProblem(Object.assign(new Error(code), { code }), '/d/tpa.db');

  it('a database replaced by a restore while the command ran is said so, not as a read-only file', () => {
    expect(said('SQLITE_READONLY_DBMOVED')).toBe(
      'the local database /d/tpa.db was replaced while this command ran (tpa local restore); nothing was changed: run the command again',
    );
    expect(said('SQLITE_READONLY')).toContain('cannot be written (a read-only file or folder, or no permission)');
  });

  it('busy, full and damaged are each said, and an error that is not SQLite’s is left to its caller', () => {
    expect(said('SQLITE_BUSY')).toContain('is busy');
    expect(said('SQLITE_FULL')).toContain('the disk is full or failing');
    expect(said('SQLITE_CORRUPT')).toContain('is not a tpa database (or it is damaged)');
    expect(storageProblem(new Error('x'), '/d/tpa.db')).toBeUndefined();
  });
});
