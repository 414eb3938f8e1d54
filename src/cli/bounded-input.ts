// Reading what the command line names (a file, a device, a pipe, stdin) without trusting its size:
// a stat size says nothing of /dev/zero, a FIFO or a pipe, so each reader stops at its bound while
// reading, and memory stays within it whatever the input is.
// Text is UTF-8 (docs/api.md "Text"): bytes that are not are refused with their line, never read as U+FFFD.
import { closeSync, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { NOT_UTF8, notUtf8Line } from '../domain/well-formed.js';

/** Thrown by the readers of whole texts when the bytes are not UTF-8: the line of the first that is not. */
export class NotUtf8Text extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is ${NOT_UTF8}`);
    this.name = 'NotUtf8Text';
  }
}

/** The bytes as text, or NotUtf8Text naming the first line that is not UTF-8. */
function utf8Text(bytes: Buffer): string {
  const line = notUtf8Line(bytes);
  if (line !== undefined) throw new NotUtf8Text(line);
  return bytes.toString('utf8');
}

/** The text of `path`, or undefined when it holds more than `maxBytes` (read no further than that); NotUtf8Text when it is not UTF-8. */
export function readFileBounded(path: string, maxBytes: number): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - size));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      size += n;
      if (size > maxBytes) return undefined;
    }
    return utf8Text(Buffer.concat(chunks, size));
  } finally {
    closeSync(fd);
  }
}

/** The text of a stream, or undefined when it holds more than `maxBytes` (read no further than that); NotUtf8Text when it is not UTF-8. */
export async function readStreamBounded(input: AsyncIterable<Buffer | string>, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += b.length;
    if (size > maxBytes) return undefined;
    chunks.push(b);
  }
  return utf8Text(Buffer.concat(chunks, size));
}

/** What `boundedLines` yields for a line longer than its bound: its text was never kept. */
export const LINE_TOO_LONG: unique symbol = Symbol('line too long');

/** What `boundedLines` yields for a line whose bytes are not UTF-8: never decoded with U+FFFD in it. */
export const LINE_NOT_UTF8: unique symbol = Symbol('line not UTF-8');

/**
 * The lines of a stream as readline gives them (split at LF, a CR before it dropped, the last line
 * without an LF kept when not empty), except that a line longer than `maxLineBytes` is not kept:
 * it is read past and yielded as LINE_TOO_LONG. A line that runs on past `giveUpBytes` (a device
 * of zeros never ends one) ends the reading there, after its LINE_TOO_LONG. Each line is decoded
 * whole, so a character split between two chunks stays whole; a line that is not UTF-8 is LINE_NOT_UTF8.
 */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  maxLineBytes: number,
  giveUpBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<string | typeof LINE_TOO_LONG | typeof LINE_NOT_UTF8> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let skipped = 0;
  const line = () => {
    const bytes = Buffer.concat(parts, size);
    if (!isUtf8(bytes)) return LINE_NOT_UTF8;
    const text = bytes.toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of input) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (;;) {
      const lf = b.indexOf(10, start);
      const end = lf === -1 ? b.length : lf;
      if (tooLong) {
        skipped += end - start;
        if (lf === -1 && skipped > giveUpBytes) {
          yield LINE_TOO_LONG;
          return;
        }
      } else {
        if (size + end - start > maxLineBytes) {
          tooLong = true;
          skipped = size + end - start;
          parts = [];
        } else {
          parts.push(b.subarray(start, end));
          size += end - start;
        }
      }
      if (lf === -1) break;
      yield tooLong ? LINE_TOO_LONG : line();
      parts = [];
      size = 0;
      tooLong = false;
      skipped = 0;
      start = lf + 1;
    }
  }
  if (tooLong) yield LINE_TOO_LONG;
  else if (size > 0) yield line();
}
