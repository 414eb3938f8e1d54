// Files written whole or not at all, the one way tpa does it: into a temporary file beside the
// target (private: 0600), then renamed over it or linked to its name. A reader sees the old file or
// the new one, never half of one; a crash leaves at most a `.tmp` file, never a torn target.
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';

/** A temporary name beside `path` that no other writer uses (this process's pid and a random part; created with 'wx', so never a file or link already there). */
function tempBeside(path: string): string {
  return `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
}

/** Removes the temporary file this call made (never another path). */
function removeTemp(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    // already gone
  }
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
 * linked to its name from the temporary file, which fails if the name is taken meanwhile, so the
 * check and the creation are one step. 'exists' when the name was taken (nothing written); other
 * failures are thrown. Only the temporary file this call made is ever removed.
 */
export function writeNewWhole(path: string, text: string, force: boolean): 'written' | 'exists' {
  if (force) {
    replaceWhole(path, text);
    return 'written';
  }
  const tmp = writtenTemp(path, text, 0o600);
  try {
    linkSync(tmp, path);
    return 'written';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw err;
  } finally {
    removeTemp(tmp);
  }
}
