// Backups of the local database (docs/design.md "Backups"): written whole beside their target,
// checked before they are named, and checked again before a restore puts one in place.
import { closeSync, copyFileSync, existsSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditHead } from '../../domain/audit.js';
import { emptyTempBeside, fsyncFile, linkNew, removeLeftovers, removeTemp } from '../../files/write-whole.js';
import { Conflict, DatabaseKeyError, InvalidInput, UnusableDatabase } from '../errors.js';
import {
  copyCounts,
  copyIntegrity,
  copyLiveDatabase,
  copyStructure,
  holdLiveDatabase,
  makeSingleFile,
  migratedSchema,
  openCopy,
  type SchemaObject,
} from '../store/backup.js';
import { databaseFileState, syncFolder } from '../store/cipher.js';
import { SCHEMA_VERSION, type Db } from '../store/db.js';
import { auditHead, verifyAudit } from './audit.js';

/** What a checked copy holds. */
export interface CopyFacts {
  schemaVersion: number;
  encrypted: boolean;
  encounters: number;
  entries: number;
  audit: AuditHead & { records: number };
}

/** The tables every tpa database has, from its first schema on. */
const TPA_TABLES = ['settings', 'encounters', 'history_entries', 'settlements'];

/**
 * Whether `file` is a whole tpa database this tpa can use, opened with `key` when it is encrypted:
 * a SQLite file whose schema version this tpa knows, holding exactly the schema tpa's migrations give
 * at that version (no trigger, view, index or table more, none other), SQLite's integrity check ok,
 * and its audit chain whole. The file is data from outside: nothing of its schema runs before it is
 * found to be tpa's. Anything else is refused naming what is wrong (InvalidInput; a newer schema
 * UnusableDatabase, a key that does not open it SQLite's own error for the caller).
 */
export function checkCopy(file: string, key: Buffer | undefined): CopyFacts {
  const state = databaseFileState(file);
  if (state.kind === 'absent') throw new InvalidInput(`${file} is empty: it is not a tpa backup`);
  if (state.kind === 'unknown') throw new InvalidInput(`${file} is not a SQLite database: it is not a tpa backup`);
  const encrypted = state.kind === 'encrypted';
  let db: Db;
  try {
    db = openCopy(file, encrypted ? key : undefined);
  } catch (err) {
    throw notADatabase(file, err, encrypted);
  }
  try {
    const read = <T>(step: () => T): T => {
      try {
        return step();
      } catch (err) {
        throw notADatabase(file, err, encrypted);
      }
    };
    const { userVersion, schema } = read(() => copyStructure(db));
    if (userVersion > SCHEMA_VERSION)
      throw new UnusableDatabase(
        `${file} was written by a newer tpa (schema version ${userVersion}; this tpa knows ${SCHEMA_VERSION}): upgrade tpa to restore it; nothing was changed`,
      );
    const tables = new Set(schema.filter((o) => o.type === 'table').map((o) => o.name));
    const missing = TPA_TABLES.filter((t) => !tables.has(t));
    if (userVersion < 1 || missing.length > 0)
      throw new InvalidInput(
        `${file} is a SQLite database but not a tpa one (${missing.length > 0 ? `no table ${missing.join(', ')}` : 'no tpa schema version'}); nothing was changed`,
      );
    const differs = schemaDifference(schema, migratedSchema(userVersion));
    if (differs)
      throw new InvalidInput(
        `${file} does not hold tpa's schema at its version ${userVersion}: ${differs}; tpa restores only a database its own migrations made; nothing was changed`,
      );
    const integrity = read(() => copyIntegrity(db));
    if (integrity.length !== 1 || integrity[0] !== 'ok')
      throw new InvalidInput(`${file} is damaged: SQLite's integrity check says ${integrity.slice(0, 3).join('; ')}; nothing was changed`);
    const chain = tables.has('audit_log') ? verifyAudit(db) : { whole: true as const, count: 0, head: '' };
    if (!chain.whole) throw new InvalidInput(`${file} does not hold a whole audit chain: record ${chain.seq ?? '?'}: ${chain.reason}; nothing was changed`);
    const head = tables.has('audit_log') ? auditHead(db) : { seq: 0, hash: '' };
    return { schemaVersion: userVersion, encrypted, ...copyCounts(db), audit: { ...head, records: chain.count } };
  } finally {
    db.close();
  }
}

/**
 * The first object (by type, then name) where a copy's schema is not `expected`: one tpa's
 * migrations do not make, one whose definition differs (compared with runs of white space made one
 * space), or one missing. Undefined when they are the same. Names are the file's: quoted as JSON, cut short.
 */
export function schemaDifference(copy: readonly SchemaObject[], expected: readonly SchemaObject[]): string | undefined {
  const id = (o: SchemaObject) => `${o.type}\u0000${o.name}`;
  const sql = (o: SchemaObject) => (o.sql === null ? null : o.sql.replace(/\s+/g, ' ').trim());
  const theirs = new Map(copy.map((o) => [id(o), o]));
  const ours = new Map(expected.map((o) => [id(o), o]));
  const named = (o: SchemaObject) => `${o.type} ${JSON.stringify(o.name.length > 80 ? `${o.name.slice(0, 80)}…` : o.name)}`;
  const all = [...new Map([...theirs, ...ours]).keys()].sort();
  for (const key of all) {
    const c = theirs.get(key);
    const e = ours.get(key);
    if (!e) return `${named(c!)} is not one tpa makes`;
    if (!c) return `${named(e)} is missing`;
    if (c.tbl_name !== e.tbl_name || sql(c) !== sql(e)) return `${named(c)} is not defined as tpa defines it`;
  }
  return undefined;
}

function notADatabase(file: string, err: unknown, encrypted: boolean): Error {
  const code = (err as { code?: unknown }).code;
  if (encrypted && code === 'SQLITE_NOTADB')
    return new DatabaseKeyError(`${file} is encrypted (or it is not a database), and the data directory's key does not open it; nothing was changed`, {
      code: 'database_key_wrong',
      hint: 'set TPA_DB_KEY to the key of the database it was taken from',
    });
  if (code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')))
    return new InvalidInput(`${file} is not a whole SQLite database (cut short or damaged): it is not a usable tpa backup; nothing was changed`);
  return err as Error;
}

/**
 * Writes a backup of the live database `db` (file `source`, `key` when encrypted) to `target`:
 * copied into a temporary file beside it (0600), made one file, checked (checkCopy), on the disk,
 * then named: renamed over `target` when `replace`, else linked to its name, which fails if a file
 * appeared there meanwhile (never overwritten unasked). A failure leaves no temporary file.
 */
export async function writeBackup(db: Db, source: string, target: string, key: Buffer | undefined, replace: boolean): Promise<CopyFacts> {
  const encrypted = databaseFileState(source).kind === 'encrypted';
  const tmp = emptyTempBeside(target, 'backup');
  try {
    await copyLiveDatabase(db, tmp, encrypted);
    makeSingleFile(tmp, encrypted ? key : undefined);
    const facts = checkCopy(tmp, key);
    fsyncFile(tmp);
    if (replace) renameSync(tmp, target);
    else nameWithout(tmp, target);
    syncFolder(dirname(target));
    return facts;
  } finally {
    removeTemp(tmp);
  }
}

/**
 * Gives `tmp` the name `target` unless a file took that name meanwhile (a link fails then). A file
 * system without hard links (FAT, some network shares) is renamed onto after a last look instead.
 */
function nameWithout(tmp: string, target: string): void {
  const exists = () => new InvalidInput(`${target} exists: tpa does not write over it (it appeared while the backup was written)`);
  let named: 'written' | 'exists';
  try {
    named = linkNew(tmp, target);
  } catch {
    if (existsSync(target)) throw exists();
    renameSync(tmp, target);
    return;
  }
  if (named === 'exists') throw exists();
}

/**
 * Puts the checked backup `backup` in place of the database `file`: the backup copied beside it
 * (0600), checked again there, made one file with a new identity (a restored database is a new one
 * for the journals of jobs: docs/design.md "Backups"), the live database made one file (its WAL
 * emptied into it, so that no WAL of it can be applied to the new one) and held exclusively, then
 * one rename. A kill at any instant leaves the old database or the new one, whole; at most a
 * temporary file.
 */
export function replaceDatabase(file: string, backup: string, key: Buffer | undefined): CopyFacts {
  // The temporary copies a restore stopped by kill -9 left: the caller holds the data directory's lock, so no restore runs now.
  removeLeftovers([file], 'restore');
  const tmp = emptyTempBeside(file, 'restore');
  try {
    copyFileSync(backup, tmp);
    const facts = checkCopy(tmp, key);
    makeSingleFile(tmp, key, true);
    fsyncFile(tmp);
    const live = databaseFileState(file).kind;
    // No database yet: an empty file (one, to SQLite and to tpa) is made to be held too, or a command
    // could make one meanwhile and write into the file the rename replaces.
    if (live === 'absent') closeSync(openSync(file, 'a', 0o600));
    const hold = holdLiveDatabase(file, live === 'encrypted' ? key : undefined);
    if (!hold)
      throw new Conflict(
        `the local database ${file} is in use by another tpa process (a claim batch, a payment run): let it end, then restore; nothing was changed`,
        {
          code: 'database_busy',
        },
      );
    try {
      renameSync(tmp, file);
      syncFolder(dirname(file));
    } finally {
      hold?.release();
    }
    return facts;
  } finally {
    removeTemp(tmp);
  }
}
