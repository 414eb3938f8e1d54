// Canonical JSON (domain/canonical.ts): the identity of a claim in a batch journal and of an audit
// record, whatever the formatting and the order of keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson } from '../../src/domain/canonical.js';

/** The same value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    );
  return value;
}

describe('canonical JSON', () => {
  it('is the same JSON value, one text whatever the order of keys, and written again unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        // Already canonical: written again, it is the same text (JSON.parse keeps no order of its own to check).
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(canonicalJson(reordered(value))).toBe(text);
        expect(text).not.toMatch(/\n/);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves out undefined members, writes undefined array items as null, and hashes the canonical text', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [undefined, 'x'] })).toBe('{"b":1,"c":[null,"x"]}');
    expect(canonicalJson({ z: { y: 2, x: 1 }, a: [] })).toBe('{"a":[],"z":{"x":1,"y":2}}');
    // Keys sort as strings, integer-like ones too.
    expect(canonicalJson({ 9: 'a', 10: 'b', b: null })).toBe('{"10":"b","9":"a","b":null}');
    expect(canonicalHash({ b: 2, a: 1 })).toBe(canonicalHash({ a: 1, b: 2 }));
    expect(canonicalHash({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });
});
