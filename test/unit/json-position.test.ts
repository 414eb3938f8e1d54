// Syntax errors in claim files are said as a line, a column and a short reason of our own, found by
// scanning the text: V8's JSON.parse messages give an offset only sometimes, and otherwise quote the
// text, which is data from outside and must not reach a terminal raw.
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError, jsonSyntaxMessage, syntaxErrorPosition } from '../../src/domain/json-position.js';

/** JSON.parse's message for text it refuses. */
function parseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`parsed: ${text}`);
}

const said = (text: string, firstLine = 1) => jsonSyntaxMessage(parseMessage(text), text, firstLine);
const at = (text: string, firstLine = 1) => syntaxErrorPosition(parseMessage(text), text, firstLine);

describe('JSON syntax errors as a line, a column and a reason', () => {
  const cases: [name: string, text: string, line: number, column: number, reason: RegExp][] = [
    ['a trailing comma in an array', '{"resourceType":"Claim",\n "y": [1,2,\n}\n', 3, 1, /^unexpected "}" after ","; expected a value/],
    ['a trailing comma in an object', '{\n  "a": 1,\n  "b": 2,\n}', 4, 1, /^unexpected "}" after ","; expected a key in double quotes/],
    ['a missing comma between members', '{\n  "status": "active"\n  "use": "claim"\n}', 3, 3, /^unexpected a double quote; expected "," or "}" after a member/],
    ['a missing comma between elements', '[1\n 2]', 2, 2, /^unexpected "2"; expected "," or "]" after an element/],
    ['a line break inside a string', '{"note": "abc\n', 1, 14, /^U\+000A \(a control character\) inside a string/],
    ['an unterminated string at the end', '{"note": "abc', 1, 14, /^a string is not closed/],
    ['an unexpected end', '{"a": [1, 2', 1, 12, /^the text ends too early; expected "," or "]"/],
    ['garbage after the value', '{"a": 1}\nxyz', 2, 1, /^unexpected "x" after the JSON value/],
    ['a bad escape', '{"a": "b\\qc"}', 1, 10, /^bad escape: a backslash before "q"/],
    ['a bad literal', '{"a": tru}', 1, 10, /^not a value: did you mean true\?/],
    ['a number with no digit after its point', '[1.]', 1, 4, /^unexpected "]"; expected a digit after the decimal point/],
    ['an empty text', '  ', 1, 3, /^the text ends too early; expected a value/],
  ];

  for (const [name, text, line, column, reason] of cases) {
    it(`${name}: line ${line}, column ${column}`, () => {
      expect(at(text)).toEqual({ line, column });
      const message = said(text);
      expect(message).toMatch(reason);
      expect(message).toContain(`(line ${line}, column ${column})`);
      // Never the text itself: no line break, no quoted run of it, no offset.
      expect(message).not.toMatch(/[\n\r]/);
      expect(message).not.toContain('is not valid JSON');
      expect(message).not.toMatch(/position \d+/);
    });
  }

  it('agrees with JSON.parse where its message gives an offset', () => {
    const texts = ['[1 2]', '{"a" 1}', '{"a":1,}', '[1,]', '"abc', '{"a":"\\x"}', '[01]', '[-]', '[1e]', '{"a":1} x', '{"a":"\u0001"}', '[tru]', '{1:2}'];
    for (const text of texts) {
      const position = /at position (\d+)/.exec(parseMessage(text));
      const found = findJsonSyntaxError(text);
      expect(found, text).toBeDefined();
      if (position) expect(found!.offset, text).toBe(Number(position[1]));
    }
  });

  it('finds nothing wrong in valid JSON', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e+3, "\\u00e9\\n", true, false, null, {}]} ', '0', '"x"'])
      expect(findJsonSyntaxError(text), text).toBeUndefined();
  });

  it("counts an NDJSON line's place from the line it starts on", () => {
    expect(at('{"a": [1,]}', 7)).toEqual({ line: 7, column: 10 });
    expect(said('{"a": [1,]}', 7)).toMatch(/^unexpected "]" after ","; expected a value \(line 7, column 10\)$/);
  });

  it('names a character that cannot be shown by its code point, not raw', () => {
    const message = said('{"a": 1}\u001b[31m');
    expect(message).toMatch(/^unexpected U\+001B after the JSON value/);
    expect(message).not.toContain('\u001b');
  });
});
