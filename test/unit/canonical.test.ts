// Canonical JSON (domain/canonical.ts): the identity of a claim in a batch journal and of an audit
// record, whatever the formatting and the order of keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalHash, canonicalJson, sha256Hex } from '../../src/domain/canonical.js';

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

  it('writes every value as the plain recursive form does (JSON.stringify of each leaf and key, keys sorted)', () => {
    const plain = (value: unknown): string => {
      if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : plain(v))).join(',')}]`;
      const entries = Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined);
      return `{${entries.map((k) => `${JSON.stringify(k)}:${plain((value as Record<string, unknown>)[k])}`).join(',')}}`;
    };
    const leaves = fc.oneof(fc.double(), fc.integer(), fc.boolean(), fc.string({ unit: 'grapheme' }), fc.constant(undefined), fc.constant(null));
    const doc = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaves, fc.array(tie('value')), fc.dictionary(fc.string({ unit: 'binary' }), tie('value'))),
    })).value;
    fc.assert(
      fc.property(doc, (value) => {
        expect(canonicalJson(value)).toBe(plain(value));
      }),
      { numRuns: 300 },
    );
    for (const n of [0, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 1e-7, 0.1 + 0.2, -5e-324]) expect(canonicalJson({ n })).toBe(plain({ n }));
  });

  it('leaves out undefined members, writes undefined array items as null, and hashes the canonical text', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [undefined, 'x'] })).toBe('{"b":1,"c":[null,"x"]}');
    expect(canonicalJson({ z: { y: 2, x: 1 }, a: [] })).toBe('{"a":[],"z":{"x":1,"y":2}}');
    // Keys sort as strings, integer-like ones too.
    expect(canonicalJson({ 9: 'a', 10: 'b', b: null })).toBe('{"10":"b","9":"a","b":null}');
    expect(canonicalHash({ b: 2, a: 1 })).toBe(canonicalHash({ a: 1, b: 2 }));
    expect(canonicalHash({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
    // The SHA-256 of the text's UTF-8 bytes, as a Hash object gives it.
    for (const text of ['', 'é☃ 𝄞', '{"a":"\u0000"}']) expect(sha256Hex(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  });
});
