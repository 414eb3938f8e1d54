// Which files are X12 (docs/x12.md "837 in": "Which files"), told without loading the X12 reader:
// JSON-only claim commands never load it (x12-source.ts and src/domain/x12-837.ts load where an X12
// file is met).
import { closeSync, openSync, readSync } from 'node:fs';

/** Files read as X12 in a folder, and named on the command line whatever their content. */
export function isX12Path(path: string): boolean {
  return /\.(837|x12|edi)$/i.test(path);
}

/** Whether a file starts as an X12 interchange does (`ISA`): a file of another name is read as X12 then. */
export function looksLikeX12(path: string): boolean {
  return readHead(path, 3) === 'ISA';
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
