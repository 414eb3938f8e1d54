// A running `tpa local serve` holds its data directory (docs/local.md "Over the wire"): `tpa local reset`
// would otherwise delete the database under a server that goes on answering 201 into it, and a
// second server would count rate limits apart from the first. The lock is the kernel's, as a
// journal's is (journal-lock.ts): an exclusive SQLite transaction on `serve.lock` in the data
// directory, which the kernel lets go when its holder exits however it ends, so a server that was
// killed leaves no lock behind and no pid is ever guessed dead. `serve.lock.json` beside it says
// who holds it (pid, port, since), to name the holder; it is only ever read as information.
// `local reset` takes the same lock while it deletes, and `local restore` while it replaces, so that no server starts meanwhile.
import { hostname } from 'node:os';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError } from '../errors.js';
import { ownDataDir } from '../jobs/journal.js';
import { holdExclusively, letGo, type LockDb, readLockInfo, writeLockInfo } from '../jobs/journal-lock.js';

type Command = 'local serve' | 'local reset' | 'local encrypt' | 'local restore';

/** Who holds a data directory, as its holder wrote it. */
export interface DataDirHolder {
  pid: number;
  host: string;
  since: string;
  command: Command;
  /** Where a server listens, once it does. */
  url?: string;
  port?: number;
}

export class DataDirLock {
  private constructor(
    private readonly db: LockDb,
    private readonly infoPath: string,
    private holder: DataDirHolder,
  ) {}

  /**
   * Takes the lock of `dataDir` for `command`, or refuses at once (exit 4, docs/design.md "Exit codes": a conflict or
   * wrong state) naming the server (pid, port) or the reset that holds it.
   */
  static async take(dataDir: string, command: Command): Promise<DataDirLock> {
    // Another user's data folder is refused before a lock is written in it.
    ownDataDir(dataDir, true);
    const file = join(dataDir, 'serve.lock');
    const infoPath = `${file}.json`;
    const db = await holdExclusively(file, `the lock of the data directory ${dataDir}`);
    if (!db) {
      const holder = readLockInfo<DataDirHolder>(infoPath);
      throw new ConflictError(refusal(dataDir, command, holder), {
        code: 'data_dir_busy',
        details: holder,
        hint:
          command !== 'local serve'
            ? `stop that server first (Ctrl-C in its terminal${holder ? `, or kill ${holder.pid}` : ''}), then run ${command} again`
            : 'use the server that runs, or another data directory (TPA_HOME)',
      });
    }
    const holder: DataDirHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command };
    writeLockInfo(infoPath, holder);
    return new DataDirLock(db, infoPath, holder);
  }

  /** Records where the server listens, for a reset to name it. */
  listening(url: string): void {
    this.holder = { ...this.holder, url, port: Number(new URL(url).port) };
    writeLockInfo(this.infoPath, this.holder);
  }

  /** Lets the data directory go. The lock file stays: removing it would let two processes lock two files of one name. */
  release(): void {
    rmSync(this.infoPath, { force: true });
    letGo(this.db);
  }
}

/**
 * The command that holds `dataDir` to replace its database (a restore, a reset), as its holder
 * wrote it, or undefined: what a command refused a busy database says it waits for.
 */
export function replacingHolder(dataDir: string): DataDirHolder | undefined {
  const holder = readLockInfo<DataDirHolder>(join(dataDir, 'serve.lock.json'));
  return holder && holder.command !== 'local serve' ? holder : undefined;
}

function refusal(dataDir: string, command: Command, holder: DataDirHolder | undefined): string {
  const elsewhere = holder && holder.host !== hostname() ? ` on ${holder.host}` : '';
  const who = !holder
    ? 'another tpa process'
    : holder.command !== 'local serve'
      ? `\`tpa ${holder.command}\` (pid ${holder.pid}${elsewhere})`
      : `a running \`tpa local serve\` (pid ${holder.pid}${elsewhere}, ${holder.port === undefined ? 'starting' : `port ${holder.port}, ${holder.url}`}, since ${holder.since})`;
  if (command === 'local reset') return `the data directory ${dataDir} is held by ${who}: resetting would delete the database under it. Nothing was deleted.`;
  if (command === 'local restore')
    return `the data directory ${dataDir} is held by ${who}: restoring would replace the database under it. Nothing was changed.`;
  if (command === 'local encrypt')
    return `the data directory ${dataDir} is held by ${who}: encrypting would rewrite the database under it. Nothing was changed.`;
  return `the data directory ${dataDir} is held by ${who}: one server per data directory.`;
}
