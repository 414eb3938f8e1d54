// Where something is in JSON text, as a person finds it in an editor: a line and a column (1-based),
// never a character offset. Used to say where a syntax error is and where a claim's bad field is
// (docs/design.md "Checking claims before sending them"). Only ever run on text already known to be
// JSON nested no deeper than the depth rule allows, or to rewrite a parser's message.

export interface Position {
  line: number;
  column: number;
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

/** Where JSON.parse said the text of `message` is wrong (its offset, or the end of the text), with the line counted from `firstLine`. */
export function syntaxErrorPosition(message: string, text: string, firstLine = 1): Position | undefined {
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : /end of JSON input/i.test(message) ? text.length : undefined;
  if (offset === undefined) return undefined;
  const p = lineColumn(text, offset);
  return { line: p.line + firstLine - 1, column: p.column };
}

/**
 * A JSON.parse message with its place said as a line and a column: "at position 12 (line 3 column
 * 2)" becomes "at line 3, column 2"; "Unexpected end of JSON input" gets the place where the text
 * ends. `text` is what was parsed (without a byte-order mark); `firstLine` is the line of the file
 * it starts on (an NDJSON file's line).
 */
export function jsonSyntaxMessage(message: string, text: string, firstLine = 1): string {
  const p = syntaxErrorPosition(message, text, firstLine);
  if (!p) return message;
  const at = `at line ${p.line}, column ${p.column}`;
  const position = /\s*(?:in JSON )?at position \d+(?:\s*\(line \d+ column \d+\))?/.exec(message);
  if (position) return `${message.slice(0, position.index)} ${at}${message.slice(position.index + position[0].length)}`;
  return `${message} ${at}`;
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
