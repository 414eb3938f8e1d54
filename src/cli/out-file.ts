// A command's --out file: its folder checked before anything is read, then the file written whole
// or not at all (files/write-whole.ts), 0600, an existing one kept unless --force; every problem
// said in words of the file named, never of the temporary file it is written through.
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

/** The file written whole or not at all (files/write-whole.ts); an existing one kept unless --force. */
export async function writeWhole(path: string, text: string, force: boolean): Promise<void> {
  const { writeNewWhole } = await import('../files/write-whole.js');
  let done: 'written' | 'exists';
  try {
    done = writeNewWhole(path, text, force);
  } catch (err) {
    // Said in words of the file named, never of the temporary file it is written through.
    throw new UsageError(`cannot write ${path}: ${writeProblem(path, err as NodeJS.ErrnoException)}; nothing was written`);
  }
  if (done === 'exists') throw existsRefusal(path);
}

/** The refusal to write over the file `path` already there, unasked. */
export function existsRefusal(path: string, hint = 'add --force to replace it'): UsageError {
  return new UsageError(`${path} exists: tpa does not write over it`, { hint });
}

/** Why `path` cannot be written into its folder, or undefined when the folder is there. */
export function folderProblem(path: string): string | undefined {
  const folder = dirname(path);
  if (!existsSync(folder)) return `the folder ${folder} does not exist`;
  if (!statSync(folder).isDirectory()) return `${folder} is not a folder`;
  return undefined;
}

/** An error of writing `path` in words of that path (its code), not of the temporary file's name. */
function writeProblem(path: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return folderProblem(path) ?? 'its folder went away while it was written';
    case 'EACCES':
    case 'EPERM':
      return `permission denied in the folder ${dirname(path)}`;
    case 'ENOSPC':
      return 'the disk is full';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
      return `${dirname(path)} is not a folder`;
    default:
      return err.code ?? 'it could not be written';
  }
}
