// Canonical JSON (object keys sorted, no insignificant whitespace) and its SHA-256: the identity of
// a document whatever its formatting, so that a batch journal recognises a claim it has already
// sent even when the file was re-indented or its keys reordered.
import { hash } from 'node:crypto';

/** Object keys as JSON strings, kept for the few keys documents repeat (a claim's, an audit record's). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_KEPT = 1024;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_KEPT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

export function canonicalJson(value: unknown): string {
  // A number or a boolean is written without JSON.stringify (as it writes them: a number that is not
  // finite as null); the audit chain hashes three documents a claim, a batch every claim.
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? `${value}` : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    default:
      return JSON.stringify(value) ?? 'null';
  }
  // Written with loops into one string: a batch hashes every claim, and the map/filter/join form
  // was slower (docs/numbers-history.md "The claim path").
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += item === undefined ? 'null' : canonicalJson(item);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${quotedKey(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

export function sha256Hex(text: string): string {
  // One call, no Hash object (crypto.hash, Node 21.7 and later): the audit chain hashes three texts a claim.
  return hash('sha256', text, 'hex');
}

/** The SHA-256 of a JSON value's canonical form. */
export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
