// Canonical JSON (object keys sorted, no insignificant whitespace) and its SHA-256: the identity of
// a document whatever its formatting, so that a batch journal recognises a claim it has already
// sent even when the file was re-indented or its keys reordered.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The SHA-256 of a JSON value's canonical form. */
export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
