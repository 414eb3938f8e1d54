// One journal, one writer (docs/claim-batches.md "Claim batches", "Payment runs"): a long job holds its journal's
// lock from the moment it opens the journal until it ends. The lock is the kernel's: an exclusive
// SQLite transaction on a lock file, a POSIX lock the kernel releases when the holder exits,
// however it ends (kill -9, a power cut), so a crashed run never leaves a lock behind and no pid
// is ever guessed dead. The lock belongs to the journal file, not to the name it was given: its
// file is named after the journal's device and inode and lies in the journal's real folder
// (symlinks resolved), so a path through a symlinked folder or a hard link in the same folder
// reaches the same lock; a symbolic link at the journal's own name is refused (openJournalFile:
// a journal is never written through one). Beside it, `<lock>.json` says who holds it (pid, host,
// since) so that a second run can name the first; it is only ever read as information.
import { hostname } from 'node:os';
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConflictError, UsageError } from '../errors.js';
import { journalSealing } from './journal-seal.js';
import { replaceWhole } from '../files/write-whole.js';

/** Who holds a journal's lock, as its holder wrote it. */
export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export interface LockDb {
  exec(sql: string): unknown;
  close(): void;
}

export class JournalLock {
  private constructor(
    private readonly db: LockDb,
    private readonly infoPath: string,
    /** The holder an earlier run left behind: it held the journal and never let it go (it was killed, or the machine went down). */
    readonly crashed: LockHolder | undefined,
  ) {}

  /**
   * Takes the lock of the journal at `journalPath`, or refuses at once (exit 4, docs/design.md "Exit codes": a
   * conflict or wrong state) naming the run that holds it. `what` names the job for the message.
   * `waitMs`: wait that long for the holder to let it go first (for a journal each run holds for one
   * request), trying again every 50 ms. In an encrypted data directory whose key was not found
   * (journal-seal.ts), refused before anything is made: neither the journal nor its folder nor its lock.
   */
  static async take(journalPath: string, what: string, options: { waitMs?: number } = {}): Promise<JournalLock> {
    const sealing = journalSealing();
    if (sealing.kind === 'locked') throw sealing.problem();
    let file: string;
    try {
      file = lockPath(journalPath);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot open the lock of the journal ${journalPath}: ${(err as Error).message}`);
    }
    const infoPath = `${file}.json`;
    let db = await holdExclusively(file, `the lock of the journal ${journalPath}`);
    const deadline = Date.now() + (options.waitMs ?? 0);
    while (!db && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      db = await holdExclusively(file, `the lock of the journal ${journalPath}`);
    }
    if (!db) {
      const holder = readLockInfo<LockHolder>(infoPath);
      const who = holder ? `pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}, running since ${holder.since}` : 'another tpa process';
      throw new ConflictError(`the journal ${journalPath} is in use by another ${what} (${who}): one journal, one writer. Nothing was sent.`, {
        code: 'journal_busy',
        details: holder,
        hint: 'wait for that run to end (or stop it), then run the same command again: it continues from the journal',
      });
    }
    const crashed = readLockInfo<LockHolder>(infoPath);
    const holder: LockHolder = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
    };
    writeLockInfo(infoPath, holder);
    return new JournalLock(db, infoPath, crashed);
  }

  /** Whether this is the lock of the open journal file `fd` (not of a file since put in its place: tpa local encrypt seals a journal whole). */
  isOf(fd: number): boolean {
    const { dev, ino } = fstatSync(fd, { bigint: true });
    return this.infoPath.endsWith(`/.tpa-journal-${dev}-${ino}.lock.json`);
  }

  /** Lets the lock go. The lock file stays: removing it would let two runs lock two files of one name. */
  release(): void {
    rmSync(this.infoPath, { force: true });
    letGo(this.db);
  }
}

/**
 * The lock file of the journal at `journalPath` (created empty, with its folder, when absent): in
 * the journal's real folder, named after its device and inode, so that every name of the file
 * (a symlink, a path through a symlinked folder, a hard link beside it) has the same lock.
 */
export function lockPath(journalPath: string): string {
  mkdirSync(dirname(journalPath), { recursive: true, mode: 0o700 });
  closeSync(openJournalFile(journalPath));
  const real = realpathSync(journalPath);
  const { dev, ino } = statSync(real, { bigint: true });
  return join(dirname(real), `.tpa-journal-${dev}-${ino}.lock`);
}

/**
 * Opens a journal to append and read (created 0600 when absent): never through a symbolic link
 * at its name, which is refused (exit 2) naming it, its target neither created nor written (as
 * remit --out is written), and only a regular file.
 */
export function openJournalFile(path: string): number {
  let fd: number;
  try {
    // Non-blocking: a FIFO or a device at the name is refused below, never waited on.
    fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (err) {
    throw journalOpenProblem(path, err as NodeJS.ErrnoException);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notRegular(path);
  }
  return fd;
}

/**
 * Opens a journal only to read it (tpa jobs, a run's profile, sealing): a FIFO or a device at its
 * name is refused without waiting on it or reading it.
 */
export function openJournalToRead(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    // As an error of the file system (ENOENT, EACCES): tpa jobs lists it as one it cannot read.
    throw Object.assign(new Error(`cannot open the journal ${path}: it is not a regular file`), { code: 'ENOTREG' });
  }
  return fd;
}

const notRegular = (path: string) =>
  new UsageError(`cannot open the journal ${path}: it is not a regular file (a device, a pipe or a folder); nothing was sent`, {
    hint: 'name a file with --journal',
  });

/** Why a journal could not be opened, in words of its name. */
export function journalOpenProblem(path: string, err: NodeJS.ErrnoException): UsageError {
  if (err.code === 'ELOOP')
    return new UsageError(`cannot open the journal ${path}: it is a symbolic link, and tpa never writes a journal through one; nothing was written`, {
      hint: 'name the journal file itself (or a new name) with --journal',
    });
  return new UsageError(`cannot open the journal ${path}: ${err.message}`);
}

/**
 * Who holds the lock of the journal at `journalPath` now, as far as can be told without touching
 * it (no lock taken, nothing created): its holder's note, when that holder is alive (on this host,
 * its pid still runs; on another, its word is taken). A note left by a run that was killed says
 * nothing: undefined.
 */
export function currentHolder(journalPath: string): LockHolder | undefined {
  let info: string;
  try {
    const real = realpathSync(journalPath);
    const { dev, ino } = statSync(real, { bigint: true });
    info = join(dirname(real), `.tpa-journal-${dev}-${ino}.lock.json`);
  } catch {
    return undefined;
  }
  const holder = readLockInfo<LockHolder>(info);
  if (!holder || holder.host !== hostname()) return holder;
  try {
    process.kill(holder.pid, 0);
    return holder;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? holder : undefined;
  }
}

/** Where the holder of the journal's lock writes who it is (pid, host, since). */
export function lockHolderPath(journalPath: string): string {
  return `${lockPath(journalPath)}.json`;
}

/**
 * Holds `file` (an SQLite file, created when absent) in an exclusive transaction: the kernel's lock,
 * which it releases when the holder exits however it ends. undefined when another process holds it.
 * `what` names the lock in an error opening it.
 */
export async function holdExclusively(file: string, what: string): Promise<LockDb | undefined> {
  // better-sqlite3 is loaded when a lock is first taken: a command that takes none never loads it.
  const { default: Database } = await import('better-sqlite3');
  let db: LockDb;
  try {
    // Made 0600 before SQLite opens it (SQLite would make it by the umask): every file in the data
    // folder is private. Never through a symbolic link: one planted at a lock's name would have tpa
    // change the mode of, and open as its lock, whatever file it points at.
    // Nor through a hard link (another name of a file, maybe not this user's): every check is made
    // before anything changes, so a file refused keeps its mode. Non-blocking: a FIFO is refused, never waited on.
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    try {
      const st = fstatSync(fd);
      const problem = lockFileProblem(st);
      if (problem) throw new LockRefused(problem);
      if ((st.mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
      db = new Database(file, { timeout: 0 });
      // SQLite opened the lock by its name: still the file checked (nothing was put in its place meanwhile).
      const now = lstatSync(file);
      if (now.dev !== st.dev || now.ino !== st.ino) {
        db.close();
        throw new LockRefused('it was replaced while tpa opened it');
      }
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof LockRefused) throw new UsageError(`cannot open ${what} (${file}): ${err.message}; it is not a lock tpa made (remove it)`);
    const why = (err as NodeJS.ErrnoException).code === 'ELOOP' ? "it is a symbolic link, which tpa's locks never are (remove it)" : (err as Error).message;
    throw new UsageError(`cannot open ${what} (${file}): ${why}`);
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return undefined;
    // Something else stands at the lock's name (a file tpa did not make): said, not a crash.
    throw new UsageError(`cannot use ${what} (${file}): ${(err as Error).message}; it is not a lock tpa made (remove it)`);
  }
}

class LockRefused extends Error {}

/**
 * What makes the file at a lock's name one tpa will not use as its lock: anything but a regular file
 * of this user with one name. A hard link planted there is the name of another file (one whose mode
 * tpa would narrow, whose lock tpa would take), and a file of another user is not one tpa made.
 */
export function lockFileProblem(st: { isFile(): boolean; nlink: number; uid: number }): string | undefined {
  if (!st.isFile()) return 'it is not a regular file';
  if (st.nlink !== 1) return `it has ${st.nlink} names (a hard link to another file)`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`;
  return undefined;
}

/** Lets a lock of holdExclusively go. */
export function letGo(db: LockDb): void {
  try {
    db.exec('ROLLBACK');
  } finally {
    db.close();
  }
}

/** Writes who holds a lock, whole then renamed: a reader never sees half of it. */
export function writeLockInfo(path: string, info: object): void {
  replaceWhole(path, `${JSON.stringify(info)}\n`);
}

/** Who holds a lock, as its holder wrote it; only ever information, never proof. */
export function readLockInfo<T extends { pid: number }>(path: string): T | undefined {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as T;
    return typeof h.pid === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}
