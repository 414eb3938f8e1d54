// A key given twice in one JSON object. JSON.parse keeps the last; other parsers keep the first or
// refuse: `{"patient": {"reference": "Patient/MBR-1001"}, "patient": {…MBR-1002}}` is one claim to one
// reader and another claim to the next. A claim holding one is refused, naming the key, never read
// as either (docs/claim-batches.md "Claims inside a Bundle").

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

type Level = { object: true; keys: string[] | Set<string>; key: string | undefined; expectKey: boolean } | { object: false; index: number };

/**
 * The path (`patient.reference`, `item[0].net`) of the first key given twice in one object of JSON
 * text, or undefined. The text is valid JSON (JSON.parse read it): only strings, brackets, braces
 * and commas are looked at.
 */
export function duplicateKeyPath(text: string): string | undefined {
  const stack: Level[] = [];
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      // The string's end: the next quote not escaped (after an even number of backslashes).
      for (let from = i + 1; ; ) {
        const q = text.indexOf('"', from);
        if (q < 0) return undefined;
        let b = q - 1;
        while (b > start && text.charCodeAt(b) === BACKSLASH) b--;
        if ((q - 1 - b) % 2 === 0) {
          i = q;
          break;
        }
        from = q + 1;
      }
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        const raw = text.slice(start, i + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const keys = top.keys;
        if (Array.isArray(keys)) {
          if (keys.includes(key)) return pathOf(stack, key);
          keys.push(key);
          // A list is quicker for the few keys of a claim's objects; a set keeps an object of many keys linear.
          if (keys.length > 16) top.keys = new Set(keys);
        } else {
          if (keys.has(key)) return pathOf(stack, key);
          keys.add(key);
        }
        top.key = key;
        top.expectKey = false;
      }
    } else if (c === OPEN_BRACE) stack.push({ object: true, keys: [], key: undefined, expectKey: true });
    else if (c === OPEN_BRACKET) stack.push({ object: false, index: 0 });
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) stack.pop();
    else if (c === COMMA) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

/** The path of `key` in the innermost object of `stack`, as the parser names fields. */
function pathOf(stack: Level[], key: string): string {
  let path = '';
  for (const level of stack.slice(0, -1)) {
    if (level.object) path += path === '' ? (level.key ?? '') : `.${level.key ?? ''}`;
    else path += `[${level.index}]`;
  }
  return path === '' ? key : `${path}.${key}`;
}
