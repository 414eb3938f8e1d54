// The schema check of a backup (src/engine/services/backup.ts checkCopy): a copy is tpa's when its
// schema is exactly what tpa's migrations give at the copy's own version, an older one included, and
// the connection that checks it trusts nothing of its schema and cannot write it.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/engine/errors.js';
import { checkCopy, schemaDifference } from '../../src/engine/services/backup.js';
import { migratedSchema, openCopy } from '../../src/engine/store/backup.js';
import { SCHEMA_VERSION } from '../../src/engine/store/db.js';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';
import { tempDir } from '../helpers/engine.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

/** A database file as a tpa of schema version `version` made it. */
function databaseAt(version: number, extra = ''): string {
  const file = join(dir.dir, `v${version}.sqlite`);
  const db = new Database(file);
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
  if (extra) db.exec(extra);
  db.pragma(`user_version = ${version}`);
  db.close();
  return file;
}

describe('the schema of a backup', () => {
  it('of an older tpa is checked against the schema of its own version, and accepted', () => {
    const older = SCHEMA_VERSION - 3;
    expect(checkCopy(databaseAt(older), undefined).schemaVersion).toBe(older);
    expect(schemaDifference(migratedSchema(older), migratedSchema(SCHEMA_VERSION))).toMatch(/ is missing$/);
  });

  it('of an older tpa with an index of its own is refused, naming the index', () => {
    const file = databaseAt(SCHEMA_VERSION - 3, 'CREATE INDEX aa_by_benefit ON encounters (benefit_cents)');
    expect(() => checkCopy(file, undefined)).toThrow(InvalidInput);
    expect(() => checkCopy(file, undefined)).toThrow(/index "aa_by_benefit" is not one tpa makes/);
  });

  it('is compared object by object, white space aside, and a name from the file is quoted, never raw', () => {
    const ours = [{ type: 'table', name: 't', tbl_name: 't', sql: 'CREATE TABLE t (\n  x TEXT\n)' }];
    expect(schemaDifference([{ ...ours[0]!, sql: 'CREATE TABLE t ( x TEXT )' }], ours)).toBeUndefined();
    expect(schemaDifference([{ ...ours[0]!, sql: 'CREATE TABLE t ( x TEXT, y TEXT )' }], ours)).toBe('table "t" is not defined as tpa defines it');
    expect(schemaDifference([], ours)).toBe('table "t" is missing');
    const odd = { type: 'trigger', name: 'x\u001b[2Jy', tbl_name: 't', sql: 'CREATE TRIGGER …' };
    expect(schemaDifference([...ours, odd], ours)).toBe('trigger "x\\u001b[2Jy" is not one tpa makes');
  });

  it('is read by a connection that trusts nothing of it and cannot write it', () => {
    const file = databaseAt(SCHEMA_VERSION);
    const db = openCopy(file, undefined, true);
    try {
      expect(db.pragma('trusted_schema', { simple: true })).toBe(0);
      db.pragma('writable_schema = ON');
      expect(() => db.exec(`UPDATE sqlite_master SET sql = sql WHERE name = 'encounters'`)).toThrow(/may not be modified/);
    } finally {
      db.close();
    }
  });
});
