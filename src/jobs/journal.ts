// The journal of a long job (docs/jobs.md "Long jobs"): an append-only file of JSON lines
// that says, before each request, what is about to be sent and with which Idempotency-Key, and
// after it, what came back. Every append reaches the disk (fsync) before the request it announces
// goes out, so a job killed at any instant (kill -9, a power cut) is resumed from its journal
// without sending anything twice or losing anything.
import { closeSync, fdatasyncSync, mkdirSync, readSync, fstatSync, ftruncateSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConflictError, TpaError, UsageError } from '../errors.js';
import { privateDataDirProblem, stderrNote } from '../engine/private-dir.js';
import type { TpaClient } from '../client/client.js';
import { type JournalLock, type LockHolder, openJournalFile, openJournalToRead } from './journal-lock.js';
import { type JournalSeal, journalSealing, type JournalSealing, plainLinesRead } from './journal-seal.js';
import { replaceWhole } from '../files/write-whole.js';
import { stopsTheJob } from '../client/retry.js';

export type JournalRecord = Record<string, unknown> & { type: string };

const CHUNK = 1 << 16;

export class Journal {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly lock: JournalLock | undefined,
    /** The data directory's journal key (journal-seal.ts): each line written is sealed with it. */
    private readonly seal: JournalSeal | undefined,
  ) {}

  /**
   * Opens (creating it and its folder) the journal at `path` and hands each record it already holds
   * to `onRecord`, in order, reading it a chunk at a time. A last line cut short (the process died
   * inside a write) is cut off: the record it began was never acted on. A `lock` taken on the path
   * (journal-lock.ts: one journal, one writer) is held until `close`, and let go if opening fails.
   * Never through a symbolic link (one at `path`, dangling or not, is refused: its target is not
   * created or written), and only a regular file. In an encrypted data directory (journal-seal.ts)
   * the records are read and written sealed; without its key nothing is opened.
   */
  static open(path: string, onRecord: (record: JournalRecord) => void, options: { lock?: JournalLock } = {}): Journal {
    const lock = options.lock;
    const sealing = journalSealing();
    if (sealing.kind === 'locked') {
      lock?.release();
      throw sealing.problem();
    }
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    } catch (err) {
      lock?.release();
      throw new UsageError(`cannot open the journal ${path}: ${(err as Error).message}`);
    }
    let fd: number;
    try {
      fd = openJournalFile(path);
    } catch (err) {
      lock?.release();
      throw err;
    }
    try {
      // Replaced since its lock was taken (tpa local encrypt seals a journal whole, as a new file):
      // this lock is the old file's, and another run may hold the new one's.
      if (lock && !lock.isOf(fd))
        throw new ConflictError(`the journal ${path} was replaced while this run waited for it; nothing was sent`, {
          code: 'journal_busy',
          hint: 'run the same command again',
        });
      const size = fstatSync(fd).size;
      const read = readRecords(fd, size, onRecord, sealing);
      plainLinesRead(sealing, path, read.plain);
      if (read.damaged) throw new UsageError(`the journal ${path} is damaged at line ${read.damaged.line}: ${read.damaged.why}`);
      if (read.complete < size) ftruncateSync(fd, read.complete);
    } catch (err) {
      closeSync(fd);
      lock?.release();
      throw err;
    }
    return new Journal(path, fd, lock, sealing.kind === 'sealed' ? sealing.seal : undefined);
  }

  /** Who held this journal before and never let it go (journal-lock.ts), when it was opened with a lock. */
  get crashedHolder(): LockHolder | undefined {
    return this.lock?.crashed;
  }

  /** Appends records and waits until they (and every record written before) are on the disk. */
  append(...records: JournalRecord[]): void {
    this.write(...records);
    fdatasyncSync(this.fd);
  }

  /**
   * Appends records without waiting for the disk: for a record whose loss is harmless (an answer
   * that, lost, only means the request is resent with its key). The next `append` makes it durable.
   */
  write(...records: JournalRecord[]): void {
    if (records.length === 0) return;
    const seal = this.seal;
    writeSync(this.fd, records.map((r) => `${seal ? seal.seal(JSON.stringify(r)) : JSON.stringify(r)}\n`).join(''));
  }

  /** Makes every record written so far durable (those `write` left to the kernel). */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  close(): void {
    try {
      fdatasyncSync(this.fd);
      closeSync(this.fd);
    } finally {
      this.lock?.release();
    }
  }
}

/**
 * Reads a journal without opening it for writing, without its lock and without changing it (`tpa
 * jobs`): safe while a job writes it. A last line not yet whole (being written) is left out; a line
 * that is not a record stops the read, and its number is returned.
 */
export function readJournal(path: string, onRecord: (record: JournalRecord) => void): { damagedAt?: number } {
  const fd = openJournalToRead(path);
  try {
    const sealing = journalSealing();
    const { damaged, plain } = readRecords(fd, fstatSync(fd).size, onRecord, sealing);
    plainLinesRead(sealing, path, plain);
    return damaged ? { damagedAt: damaged.line } : {};
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the journal at `path` to seal it (tpa local encrypt: a journal written before the database
 * was encrypted), and returns what writes it sealed, whole or not at all (its records, read plain or
 * sealed, written sealed to a new file put in its place), or undefined when it holds no plain line.
 * Read first, before anything changes: a journal that is damaged is refused here. The caller holds
 * the journal's lock from before the read until after the write; a run that waited for that lock
 * finds the file replaced and stops (Journal.open).
 */
export function sealingOf(path: string, seal: JournalSeal): (() => void) | undefined {
  const first = plainRecords(path, seal);
  if (!first.plain) return undefined;
  return () => {
    // The fund history takes no lock (an approval appends to it from any process): read again until
    // nothing was appended since, so that no record written meanwhile is lost by the replacement.
    let read = first;
    for (let tries = 0; statSync(path).size !== read.size; tries++) {
      if (tries === 5)
        throw new ConflictError(`the journal ${path} is being written to (an approval in progress?), so it was not sealed: run tpa local encrypt again`);
      read = plainRecords(path, seal);
    }
    replaceWhole(path, read.records.map((r) => `${seal.seal(JSON.stringify(r))}\n`).join(''));
  };
}

/** Every record of a journal, whether any was plain, and the size read. A damaged journal is refused. */
function plainRecords(path: string, seal: JournalSeal): { records: JournalRecord[]; plain: boolean; size: number } {
  const fd = openJournalToRead(path);
  const records: JournalRecord[] = [];
  try {
    const size = fstatSync(fd).size;
    const read = readRecords(fd, size, (r) => records.push(r), { kind: 'sealed', seal });
    const { damaged } = read;
    if (damaged) throw new UsageError(`the journal ${path} is damaged at line ${damaged.line} (${damaged.why}), so it cannot be sealed`);
    return { records, plain: read.plain > 0, size };
  } finally {
    closeSync(fd);
  }
}

const SEALED = '{"sealed":';

/**
 * The records of the first `size` bytes of a journal, a chunk at a time, handed to `onRecord` in
 * order: up to the first line that is not a record (`damaged`), and without a last line not yet
 * whole. `complete` is how many bytes the whole lines take, `plain` how many records were read in
 * plain text. A sealed line (journal-seal.ts) is opened with the data directory's key; one that key
 * does not open is damaged. An encrypted data directory whose key was not found (`locked`) has no
 * line read, sealed or plain: the first one refuses the read.
 */
function readRecords(
  fd: number,
  size: number,
  onRecord: (record: JournalRecord) => void,
  sealing: JournalSealing,
): { complete: number; plain: number; damaged?: { line: number; why: string } } {
  const buffer = Buffer.alloc(CHUNK);
  let carry = '';
  let offset = 0;
  let lineNumber = 0;
  let complete = 0;
  let plain = 0;
  while (offset < size) {
    const n = readSync(fd, buffer, 0, Math.min(CHUNK, size - offset), offset);
    if (n <= 0) break;
    const text = carry + buffer.toString('utf8', 0, n);
    offset += n;
    const lines = text.split('\n');
    carry = lines.pop()!;
    for (const line of lines) {
      lineNumber++;
      complete += Buffer.byteLength(line) + 1;
      if (line.trim() === '') continue;
      if (sealing.kind === 'locked') throw sealing.problem();
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        return { complete, plain, damaged: { line: lineNumber, why: 'not a JSON record. It was not written by tpa, or was edited' } };
      }
      if (line.startsWith(SEALED) && typeof (record as { sealed?: unknown }).sealed === 'string') {
        const json = sealing.kind === 'sealed' ? sealing.seal.open((record as { sealed: string }).sealed) : undefined;
        if (json === undefined)
          return {
            complete,
            plain,
            damaged: {
              line: lineNumber,
              why:
                sealing.kind === 'sealed'
                  ? "a sealed record that the data directory's key does not open (sealed with another key, or changed)"
                  : 'a sealed record (written in an encrypted data directory), and this data directory has no key',
            },
          };
        try {
          record = JSON.parse(json);
        } catch {
          return { complete, plain, damaged: { line: lineNumber, why: 'a sealed record that is not JSON' } };
        }
      } else plain++;
      if (typeof record !== 'object' || record === null || typeof (record as JournalRecord).type !== 'string')
        return { complete, plain, damaged: { line: lineNumber, why: 'a record without a type' } };
      onRecord(record as JournalRecord);
    }
  }
  return { complete, plain };
}

/** The folder of the data directory that holds the journals of long jobs (batches, single claims, payment runs) and the fund history. */
export function journalsDir(dataDir: string): string {
  ownDataDir(dataDir, false);
  return join(dataDir, 'journals');
}

/**
 * The data folder and its journals folder are the user's alone: another user's, or one that cannot
 * be narrowed, is refused (exit 2) before anything there is read or written, as the database's is
 * (private-dir.ts). `create`: make the data folder (0700) when it is not there.
 */
export function ownDataDir(dataDir: string, create: boolean): void {
  const problem = privateDataDirProblem(dataDir, stderrNote, create);
  if (problem !== undefined) throw new UsageError(problem, { code: 'data_dir_not_private' });
}

/** The identity of a database (docs/api-routes.md "GET /v1/health": `database`, tpa's). */
export interface DatabaseIdentity {
  id: string;
  created_at: string;
}

/**
 * The database a client's requests reach, as its health answer names it; undefined from a service
 * that does not say (one other than tpa's), or when health cannot be read for another reason than
 * the limits, the network or the credentials (which fail the job's next request the same way).
 */
export async function databaseOf(client: TpaClient): Promise<DatabaseIdentity | undefined> {
  try {
    const d = (await client.health()).body.database;
    return d && typeof d.id === 'string' ? { id: d.id, created_at: typeof d.created_at === 'string' ? d.created_at : '' } : undefined;
  } catch (err) {
    if (!(err instanceof TpaError) || stopsTheJob(err)) throw err;
    return undefined;
  }
}

/**
 * The one rule for every long job's journal (docs/claim-batches.md "Claim batches"): a journal belongs to
 * the database it was sent to. Why the journal at `path`, which recorded `recorded`, is history for
 * the database `current` (a reset, another data directory, another server), or undefined when it
 * may be continued: the same database, or one side unknown (a journal of an older tpa, a service
 * that does not name its database), where it is continued as before.
 */
export function otherDatabase(path: string, recorded: unknown, current: DatabaseIdentity | undefined): string | undefined {
  const other = otherDatabaseId(recorded, current);
  if (other === undefined || !current) return undefined;
  const made = current.created_at ? ` made on ${current.created_at.replace('T', ' ').replace('Z', ' UTC')}` : '';
  return `the journal ${path} was sent to another database (${other}); the database answering now is ${current.id}${made} (after a reset, or another data directory or server)`;
}

/**
 * The rule of otherDatabase alone: the id of the database `recorded` names (an identity, or its id
 * alone) when it is another than `current`; undefined when it is the same or either is unknown.
 */
export function otherDatabaseId(recorded: unknown, current: { id: string } | undefined): string | undefined {
  const id = typeof recorded === 'string' ? recorded : (recorded as { id?: unknown } | null | undefined)?.id;
  return current && typeof id === 'string' && id !== current.id ? id : undefined;
}
