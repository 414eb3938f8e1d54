// Canonical JSON (object keys sorted, no insignificant whitespace) and its SHA-256: the identity of
// a document whatever its formatting, so that a batch journal recognises a claim it has already
// sent even when the file was re-indented or its keys reordered.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Written with loops into one string: a batch hashes every claim, and the map/filter/join form
  // was slower (docs/numbers-history.md "The claim path").
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += value[i] === undefined ? 'null' : canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The SHA-256 of a JSON value's canonical form. */
export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
