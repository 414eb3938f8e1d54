// Which files are X12 (docs/x12.md "837 in": "Which files"), told without loading the X12 reader:
// JSON-only claim commands never load it (x12-source.ts and src/domain/x12-837.ts load where an X12
// file is met).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Files named on the command line that are read as X12 whatever their content (a FIFO of these names is refused). */
export function isX12Path(path: string): boolean {
  return /\.(837|x12|edi)$/i.test(path);
}

/** Whether a file starts as an X12 interchange does (`ISA`): a file of another name is read as X12 then. */
export function looksLikeX12(path: string): boolean {
  return readHead(path, 3) === 'ISA';
}

/** How a folder's X12 files are told, for the notes. */
export const X12_BY_CONTENT = 'any file starting with ISA, or named *.837, *.x12, *.edi';

/** A folder's files read as JSON, by name. */
export function isJsonName(name: string): boolean {
  return /\.(json|ndjson|jsonl)$/i.test(name);
}

/**
 * Whether a folder's entry of another name than JSON's is X12: a regular file (or a link to one)
 * whose first three bytes are `ISA`, whatever its name (`*.837i`, `*.837p`, `*.txt`, `*.dat`). Only a
 * regular file is opened (a FIFO would block); one that cannot be read is not X12 (it is skipped with
 * the folder's other entries).
 */
export function isX12Entry(folder: string, name: string): boolean {
  const file = join(folder, name);
  if (isX12Path(name)) return true;
  try {
    return statSync(file).isFile() && looksLikeX12(file);
  } catch {
    return false;
  }
}

/** The first `bytes` bytes of a file, as Latin-1. */
export function readHead(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}
