// Backups of the local database (docs/local-data.md "Backups"): written whole beside their target,
// checked before they are named, and checked again before a restore puts one in place.
import { closeSync, copyFileSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditHead } from '../../domain/audit.js';
import { emptyTempBeside, fsyncFile, linkNew, removeLeftovers, removeTemp } from '../../files/write-whole.js';
import { Conflict, DatabaseKeyError, InvalidInput, UnusableDatabase } from '../errors.js';
import {
  copyCounts,
  copyIntegrity,
  carriedControlNumber,
  copyLiveDatabase,
  copyStructure,
  holdLiveDatabase,
  type LiveHold,
  keepControlNumber,
  makeSingleFile,
  migratedSchema,
  openCopy,
  type SchemaObject,
} from '../store/backup.js';
import { databaseFileState, syncFolder } from '../store/cipher.js';
import { SCHEMA_VERSION, upgradeCopy, type Db } from '../store/db.js';
import {
  allApiKeys,
  allClients,
  clientById,
  expiringKeys,
  keyOutlives,
  revokeClientAndTokens,
  setKeyExpiry,
  revokedClients,
  revokedKeys,
  revokeKeys,
  unrevokedKeysAmong,
} from '../store/keys.js';
import { describeDisagreement } from '../../domain/audit-deep.js';
import { recordedTimes } from '../store/audit.js';
import { deductibleSources } from '../store/members.js';
import { deductibleDisagreement } from '../../domain/deductible-check.js';
import { chainCredentials, foreignCredential } from '../../domain/credential-audit.js';
import { appendAudit, asActor, auditHead, listAudit, verifyAudit, verifyAuditDeep } from './audit.js';

/** What a checked copy holds. */
export interface CopyFacts {
  schemaVersion: number;
  encrypted: boolean;
  encounters: number;
  entries: number;
  audit: AuditHead & { records: number };
  /** The last X12 interchange control number (ISA13) of the data directory it was taken in (0: none carried). */
  controlNumber: number;
}

/** The tables every tpa database has, from its first schema on. */
const TPA_TABLES = ['settings', 'encounters', 'history_entries', 'settlements'];

/**
 * Whether `copy` is a whole tpa database this tpa can use, opened with `key` when it is encrypted:
 * a SQLite file whose schema version this tpa knows, holding exactly the schema tpa's migrations give
 * at that version (no trigger, view, index or table more, none other), SQLite's integrity check ok,
 * and its audit chain whole. The file is data from outside: nothing of its schema runs before it is
 * found to be tpa's. Anything else is refused naming what is wrong (InvalidInput; a newer schema
 * UnusableDatabase, a key that does not open it SQLite's own error for the caller), each message
 * naming `file`: the user's file the copy was made of (a restore checks its own copy, never the
 * user's file, which it does not open).
 */
export function checkCopy(copy: string, key: Buffer | undefined, file = copy): CopyFacts {
  const state = databaseFileState(copy);
  if (state.kind === 'absent') throw new InvalidInput(`${file} is empty: it is not a tpa backup`);
  if (state.kind === 'unknown') throw new InvalidInput(`${file} is not a SQLite database: it is not a tpa backup`);
  const encrypted = state.kind === 'encrypted';
  let db: Db;
  try {
    db = openCopy(copy, encrypted ? key : undefined);
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
    return { schemaVersion: userVersion, encrypted, ...copyCounts(db), audit: { ...head, records: chain.count }, controlNumber: carriedControlNumber(db) };
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
 * copied into a temporary file beside it (0600), the data directory's last ISA13 (`controlNumber`)
 * written into the copy's settings, made one file, checked (checkCopy), on the disk,
 * then named: renamed over `target` when `replace`, else linked to its name, which fails if a file
 * appeared there meanwhile (never overwritten unasked). A failure leaves no temporary file.
 */
export async function writeBackup(
  db: Db,
  source: string,
  target: string,
  key: Buffer | undefined,
  replace: boolean,
  controlNumber: number,
): Promise<CopyFacts> {
  const encrypted = databaseFileState(source).kind === 'encrypted';
  const tmp = emptyTempBeside(target, 'backup');
  try {
    await copyLiveDatabase(db, tmp, encrypted);
    // The data directory's last ISA13 goes with the copy: a restore elsewhere never writes those numbers again.
    const copy = openCopy(tmp, encrypted ? key : undefined, true);
    try {
      keepControlNumber(copy, controlNumber);
    } finally {
      copy.close();
    }
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

/** The temporary copy a restore makes (restoreCopy) removed, with what SQLite may have made beside it. */
export function removeRestoreCopy(tmp: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) removeTemp(`${tmp}${suffix}`);
}

/**
 * The live database `file` held for a restore (store holdLiveDatabase), from before the backup is
 * read until the rename, so that nothing written meanwhile is confirmed and then lost; first the
 * copies a restore killed or interrupted left (the caller holds the data directory's lock: no
 * restore runs now). With no database yet, an empty file (one, to SQLite and to tpa) is made to be
 * held too, and removed again if nothing replaces it. Busy (a command has it open): Conflict.
 * A file that is not a SQLite database at all (damaged past reading) is not held: nothing opens it.
 */
export function holdForRestore(file: string, key: Buffer | undefined): LiveHold {
  removeLeftovers([file], 'restore');
  const live = databaseFileState(file).kind;
  // A file that is not a database: no command can open it, so none writes meanwhile; it is replaced as it is.
  if (live === 'unknown') return { release: () => undefined };
  const made = !existsSync(file);
  if (live === 'absent') closeSync(openSync(file, 'a', 0o600));
  const hold = holdWithKey(file, live === 'encrypted' ? key : undefined, made);
  if (!hold) {
    if (made) rmSync(file, { force: true });
    throw new Conflict(
      `the local database ${file} is in use by another tpa process (a claim batch, a payment run): let it end, then restore; nothing was changed`,
      { code: 'database_busy' },
    );
  }
  return {
    db: hold.db,
    release: (replaced) => {
      hold.release(replaced);
      if (made && !replaced) rmSync(file, { force: true });
    },
  };
}

/**
 * The live database held (holdLiveDatabase); one the key given does not open (a backup's key, the
 * data directory's being another) is refused as such, never SQLite's "file is not a database".
 */
function holdWithKey(file: string, key: Buffer | undefined, made: boolean): ReturnType<typeof holdLiveDatabase> {
  try {
    return holdLiveDatabase(file, key);
  } catch (err) {
    if (made) rmSync(file, { force: true });
    if (key && (err as { code?: unknown }).code === 'SQLITE_NOTADB')
      throw new DatabaseKeyError(
        `the local database ${file} is encrypted under another key than the one given (TPA_DB_KEY or the key store): a backup is restored only into a data directory encrypted with the key it was taken under; restore it into a new data directory (TPA_HOME) with that key, or reset this one first (tpa local reset); nothing was changed`,
        { code: 'database_key_differs' },
      );
    throw err;
  }
}

/**
 * The backup `backup` copied beside the database `file` (0600): the only file a restore opens;
 * the user's file is read once, never opened by SQLite, so nothing is written beside it. A backup
 * with a WAL beside it is the file of a database in use, not one of tpa local backup: refused.
 */
export function restoreCopy(backup: string, file: string): string {
  const wal = `${backup}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0)
    throw new InvalidInput(
      `${backup} has a WAL beside it (${wal}): it is the file of a database in use, not a backup of tpa local backup (one file, whole); take one with tpa local backup; nothing was changed`,
    );
  const tmp = emptyTempBeside(file, 'restore');
  try {
    copyFileSync(backup, tmp);
  } catch (err) {
    removeRestoreCopy(tmp);
    throw err;
  }
  return tmp;
}

/**
 * The copy `tmp` of `backup` checked as a whole tpa database (checkCopy), then brought to this
 * tpa's schema and its money tables checked against its audit chain (the verification of `tpa
 * local audit verify --deep`): a doctored amount the chain does not say is refused, naming the
 * first row that disagrees. Messages name `backup`.
 */
export function checkRestorable(tmp: string, backup: string, key: Buffer | undefined): CopyFacts {
  const facts = checkCopy(tmp, key, backup);
  const db = openCopy(tmp, facts.encrypted ? key : undefined, true);
  try {
    upgradeCopy(db, backup);
    const verdict = verifyAuditDeep(db);
    if (!verdict.whole)
      throw new InvalidInput(`${backup} does not hold a whole audit chain: record ${verdict.seq ?? '?'}: ${verdict.reason}; nothing was changed`);
    if (verdict.disagreementCount > 0) {
      const n = verdict.disagreementCount;
      throw new InvalidInput(
        `${backup} holds money tables that disagree with its own audit chain in ${n} place${n === 1 ? '' : 's'} (tpa local audit verify --deep), the first: ${describeDisagreement(verdict.disagreements[0]!)}; nothing was changed`,
      );
    }
    refuseForeignCredentials(db, backup);
    refuseClockAhead(db, backup);
    refuseDerivedDeductibles(db, backup);
  } finally {
    db.close();
  }
  return facts;
}

/**
 * The latest time a database has recorded (setting recorded_until) holds the engine's clock: it is
 * never earlier (clock.ts engineNow). Kept by triggers from the times its rows record, it is the
 * latest of them, a sandbox clock set forward included (setting the clock records nothing). One later
 * than every row was written outside tpa and would move the restored service's clock forward; one
 * earlier than a row (or none beside rows) would let the clock go back before what is recorded, so
 * new claims would be numbered and dated before older ones: both refused.
 */
function refuseClockAhead(db: Db, backup: string): void {
  const { setting, rows } = recordedTimes(db);
  const missing = setting === undefined || setting === '';
  if (missing && rows === '') return;
  const refuse = (what: string, effect: string) =>
    new InvalidInput(`${backup} holds ${what}: it was written outside tpa and would ${effect}; nothing was changed`);
  const back = "let the service's clock go back before what is recorded";
  if (missing) throw refuse(`no latest recorded time (setting recorded_until) though its records hold times up to ${rows}`, back);
  const stated = `a latest recorded time (setting recorded_until ${JSON.stringify(setting.slice(0, 40))})`;
  const at = Date.parse(setting);
  if (Number.isNaN(at) || rows === '' || at > Date.parse(rows))
    throw refuse(`${stated} later than any time its records hold (${rows === '' ? 'none' : rows})`, "move the service's clock");
  if (at < Date.parse(rows)) throw refuse(`${stated} earlier than a time its records hold (${rows})`, back);
}

/** Each deductible accumulator of the copy is the sum its claims give (a changed one changes what the next claims pay). */
function refuseDerivedDeductibles(db: Db, backup: string): void {
  const { claims, held } = deductibleSources(db);
  const wrong = deductibleDisagreement(claims, held);
  if (wrong)
    throw new InvalidInput(
      `${backup} holds a deductible met that is not the sum of its claims: ${wrong}; it would change what the next claims pay; nothing was changed`,
    );
}

/**
 * A restore puts in place only the credentials the copy's own audit chain made (a key planted in a
 * backup with sqlite3 would otherwise open the service): each API key and OAuth client must answer
 * its KEY_CREATED (CLIENT_REGISTERED) record, and be revoked or rotated out where the chain says so.
 */
function refuseForeignCredentials(db: Db, backup: string): void {
  const foreign = foreignCredential(chainCredentials(listAudit(db, {})), allApiKeys(db), allClients(db));
  if (foreign)
    throw new InvalidInput(
      `${backup} holds a credential its own audit chain did not make: ${foreign}; a restore accepts only the keys and clients the chain records; nothing was changed`,
    );
}

/**
 * Makes the checked copy `tmp` the database to put in place: every key and client the live
 * database (`live`, held) has revoked is revoked in it too, recorded in its audit chain as the
 * engine records a revocation (a restore never brings back a credential revoked since the backup);
 * every key it rotated out expires in it no later (carryExpiries);
 * one file with a new identity (a restored database is a new one for the journals of jobs:
 * docs/local-data.md "Backups"); on the disk. How many credentials it kept revoked.
 */
export function prepareRestoreCopy(tmp: string, key: Buffer | undefined, live: LiveHold): { keys: number; clients: number; expiring: number } {
  const keys = live.db ? revokedKeys(live.db) : [];
  const clients = live.db ? revokedClients(live.db) : [];
  const expiring = live.db ? expiringKeys(live.db) : [];
  const db = openCopy(tmp, key, true);
  let kept: { keys: number; clients: number; expiring: number };
  try {
    kept = asActor(db, RESTORE_ACTOR, () =>
      db.transaction(() => ({ ...carryRevocations(db, keys, clients), expiring: carryExpiries(db, expiring) })).immediate(),
    );
  } finally {
    db.close();
  }
  makeSingleFile(tmp, key, true);
  fsyncFile(tmp);
  return kept;
}

/** The actor of the revocations a restore carries into the database it puts in place. */
const RESTORE_ACTOR = 'local restore';

function carryRevocations(
  db: Db,
  keys: readonly { id: string; lineage: string; revoked_at: string }[],
  clients: readonly { client_id: string; revoked_at: string }[],
): { keys: number; clients: number } {
  const reason = 'revoked in the database a restore replaced';
  const when = new Map(keys.map((k) => [k.id, k.revoked_at]));
  const byLineage = new Map<string, string[]>();
  for (const k of unrevokedKeysAmong(
    db,
    keys.map((k) => k.id),
  ))
    byLineage.set(k.lineage, [...(byLineage.get(k.lineage) ?? []), k.id]);
  for (const [lineage, ids] of byLineage) {
    const at = when.get(ids[0]!)!;
    revokeKeys(db, ids, at);
    appendAudit(db, 'KEY_REVOKED', ids[0]!, at, { lineage, revoked: ids, reason });
  }
  let revokedClients = 0;
  for (const c of clients) {
    const row = clientById(db, c.client_id);
    if (!row || row.revoked_at !== null) continue;
    const tokens = revokeClientAndTokens(db, c.client_id, c.revoked_at);
    appendAudit(db, 'CLIENT_REVOKED', c.client_id, c.revoked_at, { tokens, reason });
    revokedClients++;
  }
  return { keys: [...byLineage.values()].reduce((n, ids) => n + ids.length, 0), clients: revokedClients };
}

/**
 * Every key the live database rotated out (an expiry set) expires in the copy no later: a restore
 * never brings back, active for good, a key replaced since the backup. Recorded as the rotation
 * (KEY_ROTATED, at the instant of the rotation when the live database holds the new key).
 */
function carryExpiries(db: Db, keys: readonly { id: string; expires_at: string; new_key_id: string | null; rotated_at: string | null }[]): number {
  let n = 0;
  for (const k of keys) {
    if (!keyOutlives(db, k.id, k.expires_at)) continue;
    setKeyExpiry(db, k.id, k.expires_at);
    appendAudit(db, 'KEY_ROTATED', k.id, k.rotated_at ?? k.expires_at, {
      new_key_id: k.new_key_id,
      expires_at: k.expires_at,
      reason: 'rotated out in the database a restore replaced',
    });
    n++;
  }
  return n;
}

/**
 * The prepared copy `tmp` renamed over the database `file`, which `live` holds: a kill at any
 * instant leaves the old database or the new one, whole.
 */
export function putInPlace(tmp: string, file: string): void {
  renameSync(tmp, file);
  syncFolder(dirname(file));
}
