// Files written whole or not at all, the one way tpa does it: into a temporary file beside the
// target (private: 0600), then renamed over it or linked to its name. A reader sees the old file or
// the new one, never half of one; a crash leaves at most a `.tmp` file, never a torn target. The
// engine (backups, restores) and the client (journals, --out files) both write through it.
import { chmodSync, closeSync, fsyncSync, linkSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A temporary name beside `path` that no other writer uses: `<path>.<pid>.<random>[.<tag>].tmp`
 * (created with 'wx', so never a file or link already there).
 */
export function tempBeside(path: string, tag?: string): string {
  return `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}${tag === undefined ? '' : `.${tag}`}.tmp`;
}

/** A new private (0600) empty file of tempBeside's name, never one already there. */
export function emptyTempBeside(path: string, tag?: string): string {
  const tmp = tempBeside(path, tag);
  closeSync(openSync(tmp, 'wx', 0o600));
  return tmp;
}

/** Removes the temporary file this call made (never another path); nothing when it is gone (renamed). */
export function removeTemp(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    // already gone
  }
}

/** `file`'s bytes on the disk. */
export function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives the temporary file `tmp` the name `path` by a link, which fails if the name is taken, so the
 * check and the creation are one step: 'exists' when it was (nothing named). Other failures are thrown.
 */
export function linkNew(tmp: string, path: string): 'written' | 'exists' {
  try {
    linkSync(tmp, path);
    return 'written';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw err;
  }
}

/**
 * Removes the temporary files that a writer stopped midway (kill -9, a power cut) left beside the
 * files `paths` (tempBeside's names, with `tag` when given, and the journal, WAL and shared memory
 * SQLite makes beside a temporary database): only names of that pattern, beside one
 * of those files, and only regular files (a symbolic link at such a name is left alone, never
 * followed). How many were removed. The caller makes sure that no such writer runs now (a lock).
 */
export function removeLeftovers(paths: readonly string[], tag?: string): number {
  const pattern = new RegExp(`^(.+)\\.\\d+\\.[0-9a-z]{1,8}${tag === undefined ? '' : `\\.${tag}`}\\.tmp(?:-journal|-wal|-shm)?$`);
  const byFolder = new Map<string, Set<string>>();
  for (const path of paths) {
    const folder = dirname(path);
    if (!byFolder.has(folder)) byFolder.set(folder, new Set());
    byFolder.get(folder)!.add(basename(path));
  }
  let removed = 0;
  for (const [folder, names] of byFolder) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const m = pattern.exec(entry);
      if (!m || !names.has(m[1]!)) continue;
      const path = join(folder, entry);
      try {
        if (!lstatSync(path).isFile()) continue;
        unlinkSync(path);
        removed++;
      } catch {
        // gone meanwhile
      }
    }
  }
  return removed;
}

/**
 * A new temporary file beside `path` holding `text`, on the disk before it is named (a power cut
 * leaves the old file or the new one, never an empty one); removed again if the writing fails.
 */
function writtenTemp(path: string, text: string, mode: number): string {
  const tmp = tempBeside(path);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removeTemp(tmp);
    throw err;
  }
  closeSync(fd);
  return tmp;
}

/** Replaces `path` whole with `text` (created when absent), mode 0600 unless said. */
export function replaceWhole(path: string, text: string, mode = 0o600): void {
  const tmp = writtenTemp(path, text, mode);
  try {
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    removeTemp(tmp);
    throw err;
  }
}

/**
 * Writes `path` whole, never over a file already there unless `force` (then replaced whole):
 * linked to its name from the temporary file (linkNew). 'exists' when the name was taken (nothing
 * written); other failures are thrown. Only the temporary file this call made is ever removed.
 */
export function writeNewWhole(path: string, text: string, force: boolean): 'written' | 'exists' {
  if (force) {
    replaceWhole(path, text);
    return 'written';
  }
  const tmp = writtenTemp(path, text, 0o600);
  try {
    return linkNew(tmp, path);
  } finally {
    removeTemp(tmp);
  }
}
