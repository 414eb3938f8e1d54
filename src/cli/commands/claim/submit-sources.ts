// The claims named on `tpa claim submit <path>...`, one at a time and in order (
// docs/jobs.md "Long jobs": the readers that touch files live here). A path is a Claim JSON file, a FHIR Bundle
// (its Claim entries, each made self-contained: docs/claim-batches.md "Claims inside a Bundle"), an NDJSON file (one Claim a line, FHIR Bulk Data), a directory (its *.json
// and *.ndjson files by name, its X12 files by content, not recursive) or `-` for stdin (JSON or NDJSON). NDJSON is read a
// line at a time, so a file of any size streams; a JSON document is read whole, up to a bound.
import { createReadStream, lstatSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BundleIndex, duplicateFullUrlProblem, ownMarkProblem, selfContainedClaim } from '../../../domain/fhir-bundle.js';
import { MAX_CLAIM_BYTES } from '../../../domain/fhir-claim.js';
import { jsonDepthProblem } from '../../../domain/json-depth.js';
import { duplicateKeyPath } from '../../../domain/json-keys.js';
import { bundleResourceOffsets, jsonSyntaxMessage, locateField, type Position, syntaxErrorPosition } from '../../../domain/json-position.js';
import { UsageError } from '../../../errors.js';
import { boundedLines, LINE_NOT_UTF8, LINE_TOO_LONG, NotUtf8Text, readFileBounded } from '../../bounded-input.js';
import { NOT_UTF8 } from '../../../domain/well-formed.js';
import type { FieldError } from '../../../domain/errors.js';
import { clip } from '../../../domain/validation.js';
import { oneLine, screen } from '../../../render/screen.js';
import { noteText, skippedNote } from './skipped.js';
import { isJsonName, isX12Entry, isX12Path, looksLikeX12, X12_BY_CONTENT } from './x12-files.js';

export interface ClaimText {
  /** Where the claim is: `file`, `file:line` (NDJSON), `file#entry[i]` (Bundle), `stdin`… */
  source: string;
  /** The claim's JSON text, as it will be sent. */
  text: string;
  /** The parsed JSON, when the text is JSON. */
  value?: unknown;
  /** Why the text is not a claim at all (not JSON, too large), when it is not. */
  problem?: string;
  /** Where a field of the claim is in its file (line and column), for the messages naming it. */
  locate?: (field: string) => Position | undefined;
  /** A claim converted from X12: its journal identity (interchange, transaction, CLM01) and CLM01. */
  identity?: { claim: string; clm01: string };
  /** A claim converted from X12: what the service cannot take, each with its segment (not sent). */
  errors?: (FieldError & { segment?: string })[];
  /** A claim converted from X12: the segment a field of the claim came from. */
  segmentOf?: (field: string) => string | undefined;
  /** A claim (or a problem) of an 837: its file and its place among the file's claims, for the acknowledgments (acks.ts). */
  x12?: { path: string; claim?: number };
}

/** A JSON document (a Claim or a Bundle of them) larger than this is refused: NDJSON streams instead. */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON value of a text, or why it is none: not JSON (saying the line and column, counted from
 * `firstLine`, the line of its file the text starts on), or nested deeper than any claim (refused
 * before parsing).
 */
function parseJson(text: string, firstLine = 1): { value?: unknown; problem?: string; at?: Position } {
  const deep = jsonDepthProblem(text);
  if (deep) return { problem: deep, at: { line: firstLine, column: 1 } };
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { value: JSON.parse(json) };
  } catch (err) {
    const message = (err as Error).message;
    return { problem: `not valid JSON: ${jsonSyntaxMessage(message, json, firstLine)}`, at: syntaxErrorPosition(message, json, firstLine) };
  }
}

/** The claims of one JSON document: itself, or the Claim entries of a Bundle (others are said, not sent). */
/** X12 read as JSON: it came through a pipe or a device (a regular file starting with ISA is read as X12). */
const X12_NOT_A_FILE =
  'is X12 (it starts with ISA), not JSON: an 837 is read twice, its envelopes first, so it must be a regular file, not a pipe or a device; save it to a file and name the file';

/**
 * Why X12 is read as JSON: text starting with ISA at its first byte came through a pipe or a device
 * (a regular file starting so is read as X12); text with something before ISA (a blank line, a
 * byte order mark) is X12 that does not start at its first byte, in a file or not.
 */
function x12AsJson(text: string): string {
  if (text.startsWith('ISA')) return X12_NOT_A_FILE;
  const before = JSON.stringify(clip(text.slice(0, text.indexOf('ISA')))).replace(/\uFEFF/g, '\\uFEFF');
  return `is X12 that does not start at its first byte (${before} comes before ISA), not JSON: an X12 file must start with ISA; remove what comes before it`;
}

function* documentClaims(name: string, text: string, note: (message: string) => void): Generator<ClaimText> {
  const parsed = parseJson(text);
  const { value, at } = parsed;
  const problem = parsed.problem && /^\uFEFF?\s*ISA/.test(text) ? x12AsJson(text) : parsed.problem;
  if (problem || !isObject(value) || value.resourceType !== 'Bundle') {
    yield { source: name, text, value, problem, locate: (field) => (problem ? at : locateField(text, field)) };
    return;
  }
  yield* bundleClaims(name, text, value, note);
}

/**
 * The Claim entries of a Bundle, each made self-contained (domain/fhir-bundle.ts): what its patient,
 * provider and care team reference in the Bundle is copied into its `contained`, so the claim checked
 * and sent is one the service can read alone. `firstLine` is the line of its file the text starts on.
 */
function* bundleClaims(name: string, text: string, value: Record<string, unknown>, note: (message: string) => void, firstLine = 1): Generator<ClaimText> {
  // Where each entry's resource begins, found once, when a first field is to be located.
  let offsets: Map<number, number> | undefined;
  // Its entries by fullUrl, type and id, identifier: indexed once for all its Claims.
  let index: BundleIndex | undefined;
  const entries = Array.isArray(value.entry) ? value.entry : [];
  const ignored = new Map<string, number>();
  const twice = duplicateKeyPath(text);
  // A key given twice in one object of the Bundle (two `patient`s): JSON.parse kept the last; no Claim of it is read as either.
  const duplicated =
    duplicateFullUrlProblem(value) ??
    (twice === undefined
      ? undefined
      : `${twice} is given twice in one object of the Bundle: one reader takes the first, another the last, so no Claim of it is read`);
  for (const [i, entry] of entries.entries()) {
    const resource = isObject(entry) ? entry.resource : undefined;
    const type = isObject(resource) && typeof resource.resourceType === 'string' ? resource.resourceType : '(no resource)';
    if (type !== 'Claim') {
      ignored.set(type, (ignored.get(type) ?? 0) + 1);
      continue;
    }
    index ??= new BundleIndex(value);
    // A field of a contained copy of another entry is placed in that entry, where the file holds it.
    const origins = new Map<number, number>();
    const claim = selfContainedClaim(value, i, index, origins);
    const locate = (field: string) => {
      offsets ??= bundleResourceOffsets(text);
      const copy = /^contained\[(\d+)\]\.?(.*)$/s.exec(field);
      const from = copy ? origins.get(Number(copy[1])) : undefined;
      const start = offsets.get(from ?? i);
      if (start === undefined) return undefined;
      const at = locateField(text, from === undefined ? field : copy![2]!, start);
      return { line: at.line + firstLine - 1, column: at.column };
    };
    const problem = duplicated ?? ownMarkProblem(value, i, origins);
    yield { source: `${name}#entry[${i}]`, text: JSON.stringify(claim), value: claim, locate, ...(problem ? { problem } : {}) };
  }
  if (ignored.size > 0) {
    const what = [...ignored].map(([type, n]) => `${n} ${type}`).join(', ');
    note(`${name}: ${what} not submitted (only the Bundle's Claim entries are; the others are read for what the Claims reference)`);
  }
  if (entries.length === 0) note(`${name}: the Bundle has no entries`);
}

/** The lines of an NDJSON input as claims, `head` being lines already read from it. */
async function* ndjsonClaims(
  name: string,
  lines: AsyncIterable<string | typeof LINE_TOO_LONG | typeof LINE_NOT_UTF8>,
  note: (message: string) => void,
  head: readonly string[] = [],
): AsyncGenerator<ClaimText> {
  let n = 0;
  const one = (line: string | typeof LINE_TOO_LONG | typeof LINE_NOT_UTF8): ClaimText | ClaimText[] | undefined => {
    n++;
    // Never kept: a line over the bound of one claim is read past, and is one INVALID claim.
    if (line === LINE_TOO_LONG)
      return { source: `${name}:${n}`, text: '', problem: `larger than ${MAX_CLAIM_BYTES / 1024 / 1024} MiB, the most one claim may be` };
    // Never read with U+FFFD in place of its bytes (docs/api.md "Text"): one INVALID claim.
    if (line === LINE_NOT_UTF8) return { source: `${name}:${n}`, text: '', problem: NOT_UTF8 };
    if (line.trim() === '') return undefined;
    const at = n;
    const parsed = parseJson(line, at);
    // A Bundle on a line (`jq -c` of one): its Claim entries, as a Bundle file's.
    if (isObject(parsed.value) && parsed.value.resourceType === 'Bundle') return [...bundleClaims(`${name}:${at}`, line, parsed.value, note, at)];
    const locate = (field: string) => (parsed.problem ? (parsed.at ?? { line: at, column: 1 }) : { line: at, column: locateField(line, field).column });
    return { source: `${name}:${at}`, text: line, value: parsed.value, problem: parsed.problem, locate };
  };
  for (const line of head) {
    const item = one(line);
    if (Array.isArray(item)) yield* item;
    else if (item) yield item;
  }
  for await (const line of lines) {
    const item = one(line);
    if (Array.isArray(item)) yield* item;
    else if (item) yield item;
  }
}

/** An NDJSON file's lines; one longer than a claim may be is read past, not kept (a device or a pipe has no size to trust). */
function fileLines(path: string): AsyncIterable<string | typeof LINE_TOO_LONG | typeof LINE_NOT_UTF8> {
  return boundedLines(createReadStream(path), MAX_CLAIM_BYTES, MAX_DOCUMENT_BYTES);
}

/**
 * The claims of a JSON document file, read no further than its bound (a device or a pipe has no size
 * to trust): a larger one is one claim that is not sent, and the batch goes on.
 */
function* fileDocumentClaims(path: string, size: number, note: (message: string) => void): Generator<ClaimText> {
  let text: string | undefined;
  try {
    text = size > MAX_DOCUMENT_BYTES ? undefined : readFileBounded(path, MAX_DOCUMENT_BYTES);
  } catch (err) {
    if (!(err instanceof NotUtf8Text)) throw err;
    yield { source: `${path}:${err.line}`, text: '', problem: NOT_UTF8 };
    return;
  }
  if (text === undefined) {
    yield {
      source: path,
      text: '',
      problem: `larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB: give its claims as NDJSON (one Claim a line), which streams`,
    };
    return;
  }
  if (text.trim() === '') {
    yield { source: path, text, problem: 'claim file is empty' };
    return;
  }
  yield* documentClaims(path, text, note);
}

/**
 * Stdin holds NDJSON when its first non-blank line is a whole JSON value; otherwise it is one JSON
 * document (a pretty-printed Claim or Bundle), read whole.
 */
async function* stdinClaims(stdin: Readable, note: (message: string) => void): AsyncGenerator<ClaimText> {
  // Lines up to the bound of a whole document: a longer one (a stream of zeros, say) stops the read.
  const bounded = boundedLines(stdin, MAX_DOCUMENT_BYTES);
  const tooLarge = () =>
    new UsageError(`stdin holds more than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB of JSON: give the claims as NDJSON (one Claim a line), which streams`);
  const lines: AsyncIterator<string | typeof LINE_NOT_UTF8> = {
    next: async () => {
      const next = await bounded.next();
      if (next.value === LINE_TOO_LONG) throw tooLarge();
      return next as IteratorResult<string | typeof LINE_NOT_UTF8>;
    },
  };
  const head: (string | typeof LINE_NOT_UTF8)[] = [];
  for (;;) {
    const next = await lines.next();
    if (next.done) break;
    head.push(next.value);
    if (next.value === LINE_NOT_UTF8 || next.value.trim() !== '') break;
  }
  const first = head.at(-1) ?? '';
  // A first line that is not UTF-8 is one INVALID claim, whatever follows.
  if (first === LINE_NOT_UTF8) {
    yield { source: `stdin:${head.length}`, text: '', problem: NOT_UTF8 };
    return;
  }
  const texts = head as string[];
  // An 837 is read twice (its envelopes are checked before any of its claims is sent): a file, not a pipe.
  if (first.startsWith('ISA'))
    throw new UsageError('stdin holds X12 (it starts with ISA): save it to a file and name the file (an 837 is read twice: its envelopes first)');
  // A line nested too deep is a claim line too (refused as one), not the start of a document.
  if (first.trim() !== '' && (parseJson(first).value !== undefined || jsonDepthProblem(first) !== undefined)) {
    yield* ndjsonClaims('stdin', { [Symbol.asyncIterator]: () => lines }, note, texts);
    return;
  }
  let size = 0;
  const parts = texts;
  for (const line of texts) size += line.length + 1;
  for (;;) {
    const next = await lines.next();
    if (next.done) break;
    // A document with a line that is not UTF-8 is one INVALID claim, named by that line.
    if (next.value === LINE_NOT_UTF8) {
      yield { source: `stdin:${parts.length + 1}`, text: '', problem: NOT_UTF8 };
      return;
    }
    size += next.value.length + 1;
    if (size > MAX_DOCUMENT_BYTES) throw tooLarge();
    parts.push(next.value);
  }
  const text = parts.join('\n');
  if (text.trim() === '') {
    yield { source: 'stdin', text, problem: 'empty: no claim on stdin' };
    return;
  }
  yield* documentClaims('stdin', text, note);
}

function isNdjson(path: string): boolean {
  return /\.(ndjson|jsonl)$/i.test(path);
}

function statOf(path: string) {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`,
    );
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The names of a folder's entries, read as bytes: an entry whose name is not UTF-8 is skipped with a
 * note naming its bytes escaped (\xff), and the batch goes on. Read as text, Node would decode such
 * a name to U+FFFD, and opening that name reads another file (one whose name is U+FFFD itself, sent
 * twice) or none: the entry is never opened under a name that is not its own.
 */
export function folderNames(folder: string, note: (message: string) => void): string[] {
  const names: string[] = [];
  for (const raw of readdirSync(folder, { encoding: 'buffer' })) {
    try {
      names.push(strictUtf8.decode(raw));
    } catch {
      note(screen(`${oneLine(join(folder, escapedBytes(raw)))}: a file name that is not UTF-8, skipped (rename it to read it)`));
    }
  }
  return names;
}

/** A name's bytes as text: printable ASCII as is, every other byte (and the backslash) as \xHH. */
function escapedBytes(raw: Buffer): string {
  return [...raw].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/**
 * What a folder's entry is, or undefined (with a note) for a symbolic link that leads nowhere: one
 * dangling or looping is skipped, as a device or a FIFO is, and the batch goes on. Anything else
 * that cannot be read (no permission) stops the command, as a named file does.
 */
export function folderEntry(file: string, note: (message: string) => void): Stats | undefined {
  try {
    return statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOENT' || code === 'ELOOP') && isSymbolicLink(file)) {
      note(`${file}: a symbolic link that leads nowhere (${code === 'ELOOP' ? 'a loop of links' : 'its target does not exist'}), skipped`);
      return undefined;
    }
    return statOf(file);
  }
}

function isSymbolicLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Checks every path before anything is read or sent: a typo fails the command at once. */
export function checkPaths(paths: readonly string[], stdinIsTTY: boolean): void {
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('stdin (-) can be named only once');
  for (const path of paths) {
    if (path === '-') {
      if (stdinIsTTY) throw new UsageError('reading claims from stdin, but stdin is a terminal: pipe a file in or name it');
      continue;
    }
    x12RegularFile(path, statOf(path));
  }
}

/** An 837 is read twice (its envelopes first): one named that is a FIFO, a pipe or a device cannot be. */
function x12RegularFile(path: string, info: { isFile(): boolean; isDirectory(): boolean }): void {
  if (isX12Path(path) && !info.isFile() && !info.isDirectory())
    throw new UsageError(
      `${path} is not a regular file (a FIFO, a pipe or a device): an 837 is read twice, its envelopes first; save it to a file and name the file`,
    );
}

/** The claims of an X12 file (x12-source.ts); only counted, with `count` (its envelopes read once). */
async function* x12Items(path: string, note: (message: string) => void, options: { count?: boolean }): AsyncGenerator<ClaimText> {
  // Loaded where an X12 file is met: a command of JSON claims never loads the X12 reader.
  const { countX12, x12Claims } = await import('./x12-source.js');
  if (!options.count) {
    yield* x12Claims(path, note);
    return;
  }
  const n = await countX12(path);
  for (let i = 0; i < n; i++) yield { source: path, text: '' };
}

/**
 * The claims of the paths with the first one (and, with `peekSecond`, the second) already read, so
 * that a command tells one claim from many before it goes on; `all()` then gives every claim from the
 * first. The readers' notes are said as the claims come (after the peek, before each claim, at the end).
 */
export async function peekClaims(
  paths: readonly string[],
  stdin: () => Readable,
  note: (message: string) => void,
  peekSecond = true,
): Promise<{ first: ClaimText | undefined; several: boolean; all: () => AsyncGenerator<ClaimText> }> {
  const notes: string[] = [];
  const say = () => {
    for (const message of notes.splice(0)) note(message);
  };
  const claims = claimTexts(paths, stdin, (message) => notes.push(message));
  const first = await claims.next();
  const second = first.done || !peekSecond ? undefined : await claims.next();
  say();
  async function* all(): AsyncGenerator<ClaimText> {
    if (first.done) return;
    yield first.value;
    if (second && !second.done) yield second.value;
    for await (const item of claims) {
      say();
      yield item;
    }
    say();
  }
  return { first: first.done ? undefined : first.value, several: second !== undefined && !second.done, all };
}

/** Every claim of the paths, in order (`count`: only as many items as there are, for a total). */
export async function* claimTexts(
  paths: readonly string[],
  stdin: () => Readable,
  sayNote: (message: string) => void,
  options: { count?: boolean } = {},
): AsyncGenerator<ClaimText> {
  // What the readers say is a note (`note: …`), told from the refusals of claims.
  const note = (message: string) => sayNote(noteText(message));
  for (const path of paths) {
    if (path === '-') {
      yield* stdinClaims(stdin(), note);
      continue;
    }
    const info = statOf(path);
    if (info.isDirectory()) {
      const all = folderNames(path, note);
      // X12 by its content (a regular file starting with ISA), whatever its name (a *.json too); JSON by its name.
      const x12 = new Set(all.filter((n) => isX12Entry(path, n)));
      const names = all.filter((n) => isJsonName(n) || x12.has(n)).sort();
      if (names.length === 0) note(`${path}: no *.json, *.ndjson or X12 files (a file starting with ISA, or named *.837, *.x12, *.edi)`);
      const skipped = skippedNote(
        path,
        all.filter((n) => !isJsonName(n) && !x12.has(n)),
        `claims are read from *.json, *.ndjson, *.jsonl files and X12 files (${X12_BY_CONTENT})`,
      );
      if (skipped) note(skipped);
      for (const name of names) {
        const file = join(path, name);
        const stat = folderEntry(file, note);
        if (stat === undefined) continue;
        if (!stat.isFile()) {
          note(`${file}: not a regular file (a device, a FIFO or a folder), skipped`);
          continue;
        }
        if (x12.has(name)) yield* x12Items(file, note, options);
        else if (isNdjson(file)) yield* ndjsonClaims(file, fileLines(file), note);
        else yield* fileDocumentClaims(file, stat.size, note);
      }
      continue;
    }
    if (isX12Path(path) || (info.isFile() && looksLikeX12(path))) yield* x12Items(path, note, options);
    else if (isNdjson(path)) yield* ndjsonClaims(path, fileLines(path), note);
    else yield* fileDocumentClaims(path, info.size, note);
  }
}

/**
 * How many claims the paths hold, for a progress bar's total (read once more, a line at a time);
 * undefined when stdin is among them (it can be read only once).
 */
export async function countClaims(paths: readonly string[]): Promise<number | undefined> {
  if (paths.includes('-')) return undefined;
  let n = 0;
  for await (const _ of claimTexts(
    paths,
    () => {
      throw new Error('unreachable');
    },
    () => undefined,
    { count: true },
  ))
    n++;
  return n;
}
