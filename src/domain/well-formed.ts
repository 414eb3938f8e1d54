// Text that enters tpa must be well-formed Unicode (docs/api.md "Text"): a lone surrogate (a JSON
// "\ud800", an argument of a JavaScript caller) would be kept as it is by the audit chain's JSON but
// stored as U+FFFD by SQLite, so the two would disagree about what was decided; and bytes that are
// not UTF-8 would be read as U+FFFD without a word. One rule, refused wherever text comes in: the
// engine's requests (body, query, path, headers), the command line's arguments and the files it reads.
import { isUtf8 } from 'node:buffer';

declare global {
  interface String {
    /** ES2024 (Node 20+): no lone surrogate. */
    isWellFormed(): boolean;
  }
}

/** The message of a value that is not well-formed, the same at every input. */
export const ILL_FORMED = 'is not well-formed Unicode text (it holds a lone surrogate)';

/** Whether `text` has no lone surrogate. */
export function isWellFormedText(text: string): boolean {
  return text.isWellFormed();
}

/** `text` with each lone surrogate written as its `\uXXXX` escape: safe to quote in a message. */
export function shownText(text: string): string {
  return text.isWellFormed() ? text : text.replace(/[\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** A JSON escape of a surrogate code unit (`\ud83d`), the only way JSON text names one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Where a JSON text holds a string or a key that is not well-formed Unicode, as a field path
 * (`item[0].note`, '' for the text itself); undefined when it holds none, or is not JSON at all
 * (its reader says so). Pairs such as `\ud83d\ude00` (an emoji) are well-formed. Only a text with
 * a surrogate escape is parsed, and its values are walked without recursion: any depth is safe.
 */
export function illFormedJsonField(text: string): string | undefined {
  if (!text.isWellFormed()) return '';
  if (!SURROGATE_ESCAPE.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        const at = path === '' ? shownText(k) : `${path}.${shownText(k)}`;
        if (!k.isWellFormed()) return at;
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}

/**
 * The 1-based line of the first byte sequence of `bytes` that is not UTF-8, or undefined when all
 * of it is UTF-8. An LF is never part of a longer UTF-8 sequence, so lines are checked one by one.
 */
export function notUtf8Line(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  let line = 1;
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(10, start);
    const end = lf === -1 ? bytes.length : lf;
    if (!isUtf8(bytes.subarray(start, end))) return line;
    if (lf === -1) return line;
    line++;
    start = lf + 1;
  }
}

/**
 * The offset of the first byte of `bytes` that is not part of a UTF-8 character (a character cut
 * off at the end included), or -1 when every byte is.
 */
export function notUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    // The sequence's own check refuses overlong forms and the surrogates' code points.
    if (n === 0 || i + n > bytes.length || !isUtf8(bytes.subarray(i, i + n))) return i;
    i += n;
  }
  return -1;
}

/** How many bytes of `bytes` end with a whole character: a character cut off by a chunk's end is left for the next. */
export function wholeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= 4 && back <= bytes.length; back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return n > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** The message of a file, line or body whose bytes are not UTF-8. */
export const NOT_UTF8 = 'not UTF-8 text (a byte sequence that is not UTF-8; tpa reads UTF-8 only and never replaces a byte)';

/**
 * The name of the first parameter of a raw query string (`?a=1&b=%ED%A0%80`) whose percent-escapes
 * are not UTF-8 (URLSearchParams would read them as U+FFFD), or undefined. A `%` that starts no
 * escape is left as the URL standard leaves it.
 */
export function notUtf8QueryParameter(search: string): string | undefined {
  if (!search.includes('%')) return undefined;
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  for (const part of search.replace(/^\?/, '').split('&')) {
    try {
      decode(part);
    } catch {
      const name = part.split('=')[0] ?? '';
      try {
        return decode(name);
      } catch {
        return name;
      }
    }
  }
  return undefined;
}
