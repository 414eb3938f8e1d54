import { createHash, randomInt } from 'node:crypto';

// Record ids are not secrets (keys and tokens draw their own random bytes): they only need to be
// unique. Ids that grow with time land at the right end of every index keyed by them, so a claim
// dirties a few pages of each index instead of a random page, and the ledger's ties sort by time.
// The counter's start is drawn at the first id, not at load: a read makes no id, and loads no
// node:crypto (docs/numbers-history.md "Start-up pieces").
let counter: number | undefined;

/**
 * An opaque identifier such as sub_0196a1c2e3f47b2c09d1 (prefix + 20 hex): 12 hex of the
 * millisecond, then 8 of a counter that starts at a random value in each process, so two processes
 * writing in the same millisecond do not collide.
 */
export function newId(prefix: string): string {
  counter = ((counter ?? randomInt(2 ** 32)) + 1) % 2 ** 32;
  return `${prefix}${Date.now().toString(16).padStart(12, '0')}${counter.toString(16).padStart(8, '0')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** FHIR ids allow only [A-Za-z0-9-.] (docs/local.md "The engine's decisions"): engine ids are mapped, not reused. */
export function fhirId(id: string): string {
  return id.replace(/[^A-Za-z0-9\-.]/g, '-');
}
