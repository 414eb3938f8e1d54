// How deeply JSON text nests objects and arrays, counted on the text before it is parsed: JSON.parse
// of a body nested millions deep takes seconds, and code that walks a parsed value recursively
// (validation, canonical hashing) runs out of stack long before that. One rule for the server, the
// engine and the CLI's claim files (docs/security-input.md "Input that hurts").

/**
 * The deepest nesting accepted. The deepest resource the service takes is a FHIR Claim with
 * contained resources and extensions, about 10 levels; in a Bundle, 13. Four times that is ample
 * for any real document, and far from what exhausts a stack or a parser's patience.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Counts the nesting of JSON text as it arrives, piece by piece: `[` and `{` outside strings (a
 * backslash escapes the next character inside one). Works on UTF-8 bytes as on text: every byte of
 * a multi-byte character is 0x80 or above, so none is taken for a bracket or a quote.
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The deepest nesting seen so far. */
  deepest = 0;

  constructor(readonly max = MAX_JSON_DEPTH) {}

  /** Counts the next piece; false once the nesting has gone deeper than `max` (counting stops there). */
  feed(piece: string | Uint8Array): boolean {
    if (this.deepest > this.max) return false;
    const text = typeof piece === 'string';
    const length = piece.length;
    for (let i = 0; i < length; i++) {
      const c = text ? piece.charCodeAt(i) : piece[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (++this.depth > this.deepest) {
          this.deepest = this.depth;
          if (this.depth > this.max) return false;
        }
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) this.depth--;
    }
    return true;
  }

  /** What is wrong with the nesting, once it has gone too deep. */
  problem(): string | undefined {
    return this.deepest > this.max ? tooDeep(this.max) : undefined;
  }
}

const tooDeep = (max: number) => `JSON nested more than ${max} levels deep (objects and arrays): no resource needs more than ${max}`;

/** Why JSON text nests too deeply to be parsed, if it does. */
export function jsonDepthProblem(text: string, max = MAX_JSON_DEPTH): string | undefined {
  const gauge = new JsonDepthGauge(max);
  gauge.feed(text);
  return gauge.problem();
}
