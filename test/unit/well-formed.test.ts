// The one rule of well-formed text (domain/well-formed.ts): lone surrogates found at any depth of a
// JSON text, bytes that are not UTF-8 found at their line and offset, and a character cut by a
// chunk's end left whole for the next.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { illFormedJsonField, notUtf8Line, notUtf8Offset, notUtf8QueryParameter, shownText, wholeUtf8Length } from '../../src/domain/well-formed.js';

describe('well-formed text', () => {
  it('names where a JSON text holds a lone surrogate, as a field path; pairs and non-JSON are let be', () => {
    expect(illFormedJsonField('{"a":[{"b":"x"},{"c":"\\ud800"}]}')).toBe('a[1].c');
    expect(illFormedJsonField('{"a":{"\\udfff":1}}')).toBe('a.\\udfff');
    expect(illFormedJsonField('"\\uD83D"')).toBe('');
    expect(illFormedJsonField('{"a":"\\ud83d\\ude00","b":"\\\\ud800"}')).toBeUndefined();
    expect(illFormedJsonField('{"a": "lone \ud800 in the text"}')).toBe('');
    expect(illFormedJsonField('{not json \\ud800')).toBeUndefined();
    // A value nested far deeper than any stack would allow a recursive walk.
    expect(illFormedJsonField(`${'['.repeat(100_000)}"\\ud800"${']'.repeat(100_000)}`)).toBe(`${'[0]'.repeat(100_000)}`);
    expect(shownText('a\ud800b😀')).toBe('a\\ud800b😀');
  });

  it('finds the line and the byte that are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('ok\nstill ok €\nbad '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('\n')]);
    expect(notUtf8Line(bytes)).toBe(3);
    expect(notUtf8Offset(bytes)).toBe(Buffer.byteLength('ok\nstill ok €\nbad '));
    expect(notUtf8Offset(Buffer.from([0x41, 0xc0, 0x80]))).toBe(1); // an overlong NUL
    expect(notUtf8Offset(Buffer.from([0x41, 0xe2, 0x82]))).toBe(1); // cut off at the end
    expect(notUtf8Line(Buffer.from('all\nfine 😀\n'))).toBeUndefined();
    expect(notUtf8QueryParameter('?a=1&b=%ED%A0%80')).toBe('b');
    expect(notUtf8QueryParameter('?a=100%&b=%EF%BF%BD&c=%F0%9F%98%80')).toBeUndefined();
  });

  it('a chunk cut anywhere keeps its last character whole for the next chunk', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(), (text, at) => {
        const bytes = Buffer.from(text);
        const cut = bytes.subarray(0, bytes.length === 0 ? 0 : at % (bytes.length + 1));
        const whole = wholeUtf8Length(cut);
        expect(cut.length - whole).toBeLessThan(4);
        expect(notUtf8Offset(cut.subarray(0, whole))).toBe(-1);
        expect(Buffer.concat([cut.subarray(0, whole), bytes.subarray(whole)]).toString()).toBe(text);
      }),
    );
  });
});
