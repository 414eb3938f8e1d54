// Where something is in JSON text, as a person finds it in an editor: a line and a column (1-based),
// never a character offset. Used to say where a syntax error is and where a claim's bad field is
// (docs/claim-batches.md "Checking claims before sending them"). Only ever run on text already known to be
// JSON nested no deeper than the depth rule allows, or to rewrite a parser's message.
import type { FieldError } from './errors.js';

export interface Position {
  line: number;
  column: number;
}

/** A field error with its place in the text it came from, when the reader could find it. */
export interface PlacedError extends FieldError {
  line?: number;
  column?: number;
  /** For a claim read from an X12 837: the segment the field came from, in its claim (`SV1 #2`, `NM1*IL`). */
  segment?: string;
}

/**
 * The errors with their places, as `locate` (the reader's) finds them; for a claim converted from
 * X12, `segmentOf` names the segment each field came from (an error that has one already keeps it).
 */
export function placeErrors(
  errors: readonly (FieldError & { segment?: string })[],
  locate: ((field: string) => Position | undefined) | undefined,
  segmentOf?: (field: string) => string | undefined,
): PlacedError[] {
  return errors.map((e) => {
    const at = locate?.(e.field);
    const segment = e.segment ?? segmentOf?.(e.field);
    return { ...e, ...(at ? { line: at.line, column: at.column } : {}), ...(segment ? { segment } : {}) };
  });
}

const BOM = 0xfeff;

/** The line and column of `offset` in `text`; a byte-order mark at the start takes no column. */
export function lineColumn(text: string, offset: number): Position {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  const bom = line === 1 && text.charCodeAt(0) === BOM && offset > 0 ? 1 : 0;
  return { line, column: end - start + 1 - bom };
}

/** The first syntax error of JSON text: where it is (an offset) and why, said without quoting the text. */
export interface JsonSyntaxError {
  offset: number;
  reason: string;
}

/**
 * One character of the text, named so that it can be shown anywhere: a visible ASCII character in
 * quotes, anything else by its code point (the text is data from outside, never echoed raw).
 */
function describe(text: string, i: number): string {
  if (i >= text.length) return 'the end of the text';
  const code = text.codePointAt(i)!;
  if (code === 0x22) return 'a double quote';
  if (code > 0x20 && code < 0x7f) return `"${text[i]}"`;
  if (code === 0x20) return 'a space';
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

class Stop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/**
 * Scans `text` as strict JSON (RFC 8259: one value, with whitespace around it) and says where the
 * first error is and why, or undefined when there is none. The offsets agree with V8's "at position
 * N" where V8 gives one; V8 does not always, and its other messages quote the text.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const n = text.length;
  let i = 0;
  const fail = (reason: string, at = i): never => {
    throw new Stop(at, reason);
  };
  const unexpected = (expected: string, after?: string): never =>
    i >= n
      ? fail(`the text ends too early; expected ${expected}`)
      : fail(`unexpected ${describe(text, i)}${after ? ` after ${after}` : ''}; expected ${expected}`);
  const space = () => {
    while (i < n) {
      const c = text[i];
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') i++;
      else break;
    }
  };
  const digits = (what: string) => {
    if (!(text[i]! >= '0' && text[i]! <= '9'))
      fail(i >= n ? `the text ends too early; expected a digit ${what}` : `unexpected ${describe(text, i)}; expected a digit ${what}`);
    while (text[i]! >= '0' && text[i]! <= '9') i++;
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) fail('a string is not closed (no closing double quote)');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail(`${describe(text, i)} (a control character) inside a string; write it as an escape`);
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) fail('a string is not closed (no closing double quote)', n);
        if (e === 'u') {
          for (let k = 2; k < 6; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) fail('a \\u escape needs four hex digits', i + k);
          i += 6;
        } else if ('"\\/bfnrt'.includes(e!)) i += 2;
        else fail(`bad escape: a backslash before ${describe(text, i + 1)}`, i + 1);
        continue;
      }
      i++;
    }
  };
  // What came before the next character, for "unexpected X after ','": the last one that is not space.
  const previous = (): string | undefined => {
    let k = i - 1;
    while (k >= 0 && ' \n\r\t'.includes(text[k]!)) k--;
    return k >= 0 && '[{,:'.includes(text[k]!) ? `"${text[k]}"` : undefined;
  };
  const value = (after?: string): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') unexpected('a key in double quotes', previous());
        string();
        space();
        if (text[i] !== ':') unexpected('":" after a key');
        i++;
        value('":"');
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        unexpected('"," or "}" after a member');
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(previous());
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        unexpected('"," or "]" after an element');
      }
    }
    if (c === '"') {
      string();
      return;
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else digits(c === '-' ? 'after the minus sign' : '');
      if (text[i] === '.') {
        i++;
        digits('after the decimal point');
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        digits('in the exponent');
      }
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (c === literal[0]) {
        for (let k = 1; k < literal.length; k++) if (text[i + k] !== literal[k]) fail(`not a value: did you mean ${literal}?`, Math.min(i + k, n));
        i += literal.length;
        return;
      }
    }
    unexpected('a value', after);
  };
  try {
    value();
    space();
    if (i < n) fail(`unexpected ${describe(text, i)} after the JSON value; one value only (NDJSON has one a line)`);
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}

/** Where JSON.parse's error in `text` is, with the line counted from `firstLine`: found by scanning the text, or from the message. */
export function syntaxErrorPosition(message: string, text: string, firstLine = 1): Position | undefined {
  const found = findJsonSyntaxError(text);
  const position = /at position (\d+)/.exec(message);
  const offset = found ? found.offset : position ? Number(position[1]) : /end of JSON input/i.test(message) ? text.length : undefined;
  if (offset === undefined) return undefined;
  const p = lineColumn(text, offset);
  return { line: p.line + firstLine - 1, column: p.column };
}

/**
 * Why JSON text that JSON.parse refused is not JSON, and where, as a line and a column: "unexpected
 * "}" after ","; expected a value (line 3, column 1)". Never quotes the text (V8's messages can).
 * `text` is what was parsed (without a byte-order mark); `firstLine` is the line of the file it
 * starts on (an NDJSON file's line).
 */
export function jsonSyntaxMessage(message: string, text: string, firstLine = 1): string {
  const found = findJsonSyntaxError(text);
  const p = syntaxErrorPosition(message, text, firstLine);
  // Only if the scan finds nothing JSON.parse did: its message, without any quoted text.
  const reason =
    found?.reason ??
    (/is not valid JSON|"/.test(message) ? 'not a JSON value' : message.replace(/\s*(?:in JSON )?at position \d+(?:\s*\(line \d+ column \d+\))?/, ''));
  return p ? `${reason} (line ${p.line}, column ${p.column})` : reason;
}

/** `item[0].productOrService.coding[0].code` as its keys and indexes. */
function fieldPath(field: string): (string | number)[] {
  const path: (string | number)[] = [];
  for (const part of field.match(/[^.[\]]+|\[\d+\]/g) ?? []) path.push(part.startsWith('[') ? Number(part.slice(1, -1)) : part);
  return path;
}

/**
 * Walks one JSON value of `text` from `start`, calling `visit` with the path of each member or
 * element, the offset of its key (of the element, in an array) and of its value, before the value; a value whose visit says
 * false is skipped without visiting inside it.
 */
function walk(text: string, start: number, visit: (path: readonly (string | number)[], at: number, valueAt: number) => boolean): void {
  let i = start;
  const n = text.length;
  const space = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === BOM) i++;
      else break;
    }
  };
  const string = (): string => {
    const from = i;
    i++;
    while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(from, i)) as string;
    } catch {
      return '';
    }
  };
  const value = (path: (string | number)[], inside: boolean): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const object = c === '{';
      i++;
      for (let index = 0; i < n; index++) {
        space();
        if (text[i] === (object ? '}' : ']')) {
          i++;
          return;
        }
        const at = i;
        let key: string | number = index;
        if (object) {
          key = string();
          space();
          i++; // the colon
          space();
        }
        const child = [...path, key];
        value(child, inside && visit(child, at, i));
        space();
        if (text[i] === ',') i++;
      }
      return;
    }
    if (c === '"') {
      string();
      return;
    }
    while (i < n && !',]} \t\r\n'.includes(text[i]!)) i++;
  };
  value([], true);
}

/**
 * Where a field of the JSON value at `start` is: its key (an object's member) or itself (an array's
 * element); for a field that is not there, its nearest parent that is; for none, the value itself.
 */
export function fieldOffset(text: string, field: string, start = 0): number {
  const target = fieldPath(field);
  let best = start;
  let depth = 0;
  walk(text, start, (path, at) => {
    const i = path.length - 1;
    if (i >= target.length || path[i] !== target[i]) return false;
    if (path.length > depth) {
      depth = path.length;
      best = at;
    }
    return true;
  });
  while (best < text.length && /\s|\uFEFF/.test(text[best]!)) best++;
  return best;
}

/** The line and column of a field of the JSON value at `start` of `text` (see fieldOffset). */
export function locateField(text: string, field: string, start = 0): Position {
  return lineColumn(text, fieldOffset(text, field, start));
}

/** Where the `resource` of each entry of a FHIR Bundle's text begins (its offset), by entry index. */
export function bundleResourceOffsets(text: string): Map<number, number> {
  const offsets = new Map<number, number>();
  walk(text, 0, (path, _at, valueAt) => {
    if (path.length === 1) return path[0] === 'entry';
    if (path.length === 2) return true;
    if (path[2] === 'resource') offsets.set(path[1] as number, valueAt);
    return false;
  });
  return offsets;
}
