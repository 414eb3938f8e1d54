// The claims of an X12 837 file (docs/x12.md "837 in"), for the readers of `claim submit`,
// `claim validate` and `claim convert` (submit-sources.ts). x12-parser tokenizes the file as it
// streams; the mapping is src/domain/x12-837.ts. A file is read twice: first its envelopes are
// checked (control numbers and counts, to the last IEA), then its claims are converted and given one
// at a time, each with the envelope problems of its transaction set, so that no claim of a broken
// transaction is sent and memory stays flat whatever the size.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FieldError } from '../../../domain/errors.js';
import { oneLine, screen } from '../../../render/screen.js';
import { readHead } from './x12-files.js';
import { keepCompilerSmall, keepHeapFlat } from '../../heap.js';
import { NOT_UTF8, notUtf8Offset, wholeUtf8Length } from '../../../domain/well-formed.js';
import { type EnvelopeReport, EnvelopeScanner, ISA_LENGTH, isaProblem, type X12Event, X12ClaimReader, type X12Segment } from '../../../domain/x12-837.js';

/** One claim of an 837 (or a problem of the file), in the shape the readers give (ClaimText). */
export interface X12ClaimText {
  source: string;
  text: string;
  value?: unknown;
  problem?: string;
  identity?: { claim: string; clm01: string };
  errors?: (FieldError & { segment?: string })[];
  segmentOf?: (field: string) => string | undefined;
  /** The 837 it came from, and its place among the file's claims (1, 2, …; none for a problem of the file), for the acknowledgments. */
  x12?: { path: string; claim?: number };
}

/** The segments of a file, as x12-parser gives them (delimiters from its ISA). */
export const fileSegments = (path: string): AsyncGenerator<X12Segment> => segments(path);

async function* segments(path: string): AsyncGenerator<X12Segment> {
  const { X12parser } = await import('x12-parser');
  // Small chunks: the tokenizer makes every segment of a chunk at once, and they all wait to be read.
  const stream = createReadStream(path, { highWaterMark: 16 * 1024 }).pipe(new X12parser('utf8'));
  for await (const segment of stream) yield segment as X12Segment;
}

/**
 * The first readings of files, by path, with the size and modification time of the file each read:
 * the count for a progress bar and the claims' reading share one (the claims' reading lets it go).
 */
const reports = new Map<string, { version: string; report: Promise<EnvelopeReport> }>();

/** The first reading: what is wrong with the envelopes, and how many claims the file holds (read once while the file stays as it is). */
export function envelopeReport(path: string): Promise<EnvelopeReport> {
  const key = resolve(path);
  const stat = statSync(path, { bigint: true });
  const version = `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  const known = reports.get(key);
  if (known?.version === version) return known.report;
  const report = scan(path);
  reports.set(key, { version, report });
  report.catch(() => reports.delete(key));
  return report;
}

/**
 * The first reading, which also holds the file to UTF-8 (docs/api.md "Text"): bytes that are not
 * stop it, as a problem of the whole file naming the segment and byte, so that no claim of it is
 * read with U+FFFD in place of a byte.
 */
async function scan(path: string): Promise<EnvelopeReport> {
  // The first reading of a large file is the first long job of claim submit, validate and convert:
  // left to grow here, the young generation stays at 16 MB for the rest of the run (heap.ts).
  keepHeapFlat();
  keepCompilerSmall();
  const head = readHead(path, ISA_LENGTH);
  const scanner = new EnvelopeScanner(head);
  const notUtf8 = (at: number): EnvelopeReport => ({
    ...scanner.end(),
    fatal: { place: `segment ${countByte(path, head.charCodeAt(105), at) + 1}`, message: `byte ${at} is ${NOT_UTF8}: nothing of the file is read` },
  });
  // One buffer read into again and again (the bytes of a character cut at its end carried to its
  // start), under V8's large-object size (128 KiB): the reading allocates only each chunk's text,
  // which is collected young. A new buffer a chunk, freed by the collector, cost more resident memory
  // than the heap it took.
  const buffer = Buffer.allocUnsafeSlow(64 * 1024);
  const file = await open(path, 'r');
  try {
    let carried = 0;
    let offset = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, carried, buffer.length - carried, null);
      if (bytesRead === 0) {
        if (carried > 0) return notUtf8(offset);
        return scanner.end();
      }
      const filled = carried + bytesRead;
      const whole = buffer.subarray(0, wholeUtf8Length(buffer.subarray(0, filled)));
      const bad = notUtf8Offset(whole);
      if (bad !== -1) return notUtf8(offset + bad);
      scanner.push(whole.toString('utf8'));
      offset += whole.length;
      buffer.copyWithin(0, whole.length, filled);
      carried = filled - whole.length;
    }
  } finally {
    await file.close();
  }
}

/** How many times `byte` occurs in the first `upTo` bytes of a file (the segments before a place, on the rare path). */
function countByte(path: string, byte: number, upTo: number): number {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let count = 0;
    for (let read = 0; read < upTo; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, upTo - read), read);
      if (n === 0) break;
      for (let i = buffer.indexOf(byte); i !== -1 && i < n; i = buffer.indexOf(byte, i + 1)) count++;
      read += n;
    }
    return count;
  } finally {
    closeSync(fd);
  }
}

/** The problem of a file that is not X12 at all (its head is no ISA), or undefined. */
export function fileProblem(path: string): string | undefined {
  return isaProblem(readHead(path, ISA_LENGTH));
}

/**
 * The claims of an 837 file, each a FHIR Claim with its identity, CLM01 and what the service cannot
 * take; the envelopes' problems that fall on no claim come first, each as an item not sent.
 */
export async function* x12Claims(path: string, note: (message: string) => void): AsyncGenerator<X12ClaimText> {
  const problem = fileProblem(path);
  if (problem) {
    yield { source: path, text: '', problem, x12: { path } };
    return;
  }
  const report = await envelopeReport(path);
  // Its claims are read once: the report is not kept past them.
  reports.delete(resolve(path));
  if (report.fatal) {
    yield { source: `${path}: ${report.fatal.place}`, text: '', problem: report.fatal.message, x12: { path } };
    return;
  }
  for (const p of report.loose) yield { source: `${path}: ${p.place}`, text: '', problem: p.message, x12: { path } };
  let claims = 0;
  const reader = new X12ClaimReader({ report });
  const item = (e: X12Event): X12ClaimText | undefined => {
    if (e.kind !== 'claim') return undefined;
    const c = e.claim;
    for (const n of c.notes) note(screen(`${oneLine(path)}: ${c.place}, ${n.segment}: ${n.message}`));
    return {
      source: `${path}: ${c.place}`,
      text: JSON.stringify(c.claim),
      value: c.claim,
      identity: { claim: c.identity, clm01: c.clm01 },
      ...(c.problems.length > 0 ? { errors: c.problems.map((p) => ({ field: '', message: p.message, ...(p.segment ? { segment: p.segment } : {}) })) } : {}),
      segmentOf: c.segmentOf,
      x12: { path, claim: ++claims },
    };
  };
  for await (const s of segments(path)) {
    for (const e of reader.push(s)) {
      const claim = item(e);
      if (claim) yield claim;
    }
  }
  for (const e of reader.end()) {
    const claim = item(e);
    if (claim) yield claim;
  }
}

/** How many items x12Claims gives for a file (its claims and loose problems), from the first reading only. */
export async function countX12(path: string): Promise<number> {
  if (fileProblem(path)) return 1;
  const report = await envelopeReport(path);
  return report.fatal ? 1 : report.claims + report.loose.length;
}
