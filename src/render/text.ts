// Text as a terminal lays it out (docs/design.md "Output"): the width a string takes on screen, padding
// by that width, and prose wrapped at spaces. One place, so that a bold amount, a name with an
// accent or a wide character line up like any other text, and no sentence breaks mid-word.

// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence starts with ESC, which is what this finds
const SGR = /\x1b\[[0-9;]*m/g;
// Combining marks and zero-width characters take no column; East Asian wide and full-width
// characters (and the emoji blocks) take two. A table of ranges, not the whole Unicode database:
// names and notes are mostly Latin, and a rare miscount costs one column, never a character.
// Made at the first text past ASCII: V8 builds a Unicode property's set when it makes the expression,
// which every command paid at start-up.
let zero: RegExp | undefined;
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

/** The columns `text` takes on a terminal: colour codes count nothing, wide characters two, combining marks none. */
export function displayWidth(text: string): number {
  const plain = text.includes('\u001b') ? text.replace(SGR, '') : text;
  // Plain ASCII (the common case) is its length.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, controls included
  if (/^[\x00-\x7f]*$/.test(plain)) return plain.length;
  let width = 0;
  for (const ch of plain) {
    const code = ch.codePointAt(0)!;
    if ((zero ??= /[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufeff]/u).test(ch)) continue;
    width += WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
  }
  return width;
}

/** `text` with spaces after it to `width` columns on screen. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` with spaces before it to `width` columns on screen. */
export function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}

/**
 * The one way tpa breaks text into lines (prose, help, table cells, values): `units` (words) joined
 * by spaces into lines of at most `width` columns, the first line starting with `first`, the others
 * with `indent`. A unit is never cut: an NPI, an amount, an id, a path or a command longer than the
 * line stands alone on its line. Only a list too long for any line (CSV columns `a,b,c`, values
 * `A | B`) is broken, after a comma or a bar. An empty unit (two spaces in a row) keeps its space
 * inside a line.
 */
export function fill(units: readonly string[], width: number, first = '', indent = ''): string[] {
  const out: string[] = [];
  let current = first;
  let empty = true;
  const room = Math.max(1, width - displayWidth(indent));
  for (const unit of units.flatMap((u) => (displayWidth(u) > room ? listParts(u, room) : [u]))) {
    if (unit === '') {
      if (!empty) current += ' ';
      continue;
    }
    const sep = empty || current.endsWith(' ') ? '' : ' ';
    if (!empty && displayWidth(current + sep + unit) > width) {
      out.push(current.trimEnd());
      current = ownLine(unit, indent, width);
    } else current += sep + unit;
    empty = false;
  }
  out.push(empty ? current : current.trimEnd());
  return out;
}

/**
 * `token` on a line of its own after `indent`, or, when the indent would push it past `width`, after
 * as much of the indent as leaves it whole on the line: a token (a path, an id, a hash) is never cut
 * by a line break, tpa's or the terminal's. One longer than the whole line keeps its indent, whole:
 * the terminal wraps it (a soft wrap, which terminals join again on copy), never a newline inside.
 */
export function ownLine(token: string, indent: string, width: number, after = 0): string {
  const w = displayWidth(token) + after;
  if (displayWidth(indent) + w <= width || w > width) return indent + token;
  return ' '.repeat(width - w) + token;
}

/** A unit longer than `room` that is a list (commas or bars between items, no spaces): its items, each ending at its comma or bar. */
function listParts(unit: string, room: number): string[] {
  if (!/^[^\s/]*[,|][^\s/]*$/.test(unit) || /^-?[\d,]+(\.\d+)?$/.test(unit)) return [unit];
  const parts: string[] = [];
  let rest = unit;
  while (displayWidth(rest) > room) {
    const cut = Math.max(rest.lastIndexOf(',', room - 1), rest.lastIndexOf('|', room - 1));
    if (cut <= 0) break;
    parts.push(rest.slice(0, cut + 1));
    rest = rest.slice(cut + 1);
  }
  return [...parts, rest];
}

/** `text` as lines of at most `width` columns, broken at spaces only (fill); its own line breaks kept, a line's indent kept on its continuations. */
export function wrapWords(text: string, width: number): string[] {
  return text.split('\n').flatMap((line) => {
    if (displayWidth(line) <= width) return [line];
    const lead = /^ */.exec(line)![0];
    return fill(line.slice(lead.length).split(' '), width, lead, lead);
  });
}

/** What a continued line is indented by: the line's own indent, and a list marker after it ("→ ", "✓ ", "$ ", "- ", "1. "). */
const HANGING = /^(\s*)(?:(?:[→✓✗•…$*-]|\d+\.)\s+)?/u;

/**
 * Prose wrapped at spaces to `width` columns, for a person's terminal (the demo's narration, notes,
 * errors and hints): a line that is too long goes on under its own indent and list marker, so that
 * "   ✓ the benefit …" continues under "the". No word is cut: one longer than the line (a path, an
 * id) gets a line of its own. A suggested command (from "tpa " to the end of the line) is kept
 * whole on a line, or continued with " \\" when longer than one, so that it pastes as one command. Without a width (not a terminal), the text is returned as it is.
 */
export function wrapProse(text: string, width: number | undefined): string {
  if (width === undefined || width < 20) return text;
  return text
    .split('\n')
    .map((line) => (displayWidth(line) <= width ? line : wrapLine(line, width)))
    .join('\n');
}

/**
 * The words that follow "tpa" in a command (the root's commands, as program.ts lists them, and an
 * option): "tpa prints it" in a sentence is prose, "tpa fund run …" a command. A unit test holds the
 * list to the command tree.
 */
export const COMMAND_WORDS = [
  'activity',
  'api',
  'auth',
  'claim',
  'completion',
  'config',
  'demo',
  'fund',
  'health',
  'help',
  'jobs',
  'ledger',
  'local',
  'lookup',
  'ratesheet',
  'settlement',
] as const;

/** Where a suggested command starts in a line ("next page: tpa ledger list …", "$ tpa …"): from there to the end it is one command. */
const COMMAND = new RegExp(`(?:^|\\s)(tpa\\s+(?:-|(?:${COMMAND_WORDS.join('|')})(?=\\s|$)).*)$`, 'u');

/** Words of a shell command line, split at spaces outside quotes: a quoted value is one word. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (const c of line) {
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ' ') {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (word !== '') words.push(word);
  return words;
}

/**
 * A command too long for one line, as lines that a shell reads back as the one command: broken at
 * spaces outside quotes (a backslash inside quotes would be read as text), each line but the last
 * ending in " \", the lines after the first indented two more than `indent`. A comment after it
 * (from a word that starts with #) is never continued so, since a shell reads a backslash in a
 * comment as text and would run the next line: it ends the last line when it fits there, else it
 * goes on lines of its own after the command, each a comment. The one way tpa breaks a command:
 * the examples of --help and the commands suggested in messages alike.
 */
export function commandLines(command: string, first: string, indent: string, width: number): string[] {
  const out: string[] = [];
  let current = first;
  let empty = true;
  const words = shellWords(command);
  const hash = words.findIndex((w) => w.startsWith('#'));
  const code = hash < 0 ? words : words.slice(0, hash);
  code.forEach((word, i) => {
    if (!empty && displayWidth(`${current} ${word} \\`) > width) {
      out.push(`${current} \\`);
      // A word too long for the continuation's indent (a journal's path) comes nearer the margin,
      // room kept for the " \\" after it: a shell reads the lines the same, and the word stays whole.
      current = ownLine(word, `${indent}  `, width, i < code.length - 1 ? 2 : 0);
    } else current = empty ? current + word : `${current} ${word}`;
    empty = false;
  });
  if (hash < 0) return [...out, current];
  const comment = words.slice(hash).join(' ');
  if (displayWidth(`${current} ${comment}`) <= width) return [...out, `${current} ${comment}`];
  const under = `${indent}  # `;
  const text = comment.replace(/^#+\s*/, '').split(' ');
  return [...out, current, ...fill(text, width - displayWidth(under)).map((l) => `${under}${l}`)];
}

function wrapLine(line: string, width: number): string {
  const lead = HANGING.exec(line)![0];
  // A marker that would leave too little room is not hung under.
  const indent = ' '.repeat(displayWidth(lead) <= width / 2 ? displayWidth(lead) : 0);
  // A suggested command is never broken as prose: pasted from a terminal, a command cut in two
  // would run its first half. It goes whole onto a line, or, longer than one, on with " \".
  const rest = line.slice(lead.length);
  const command = COMMAND.exec(rest);
  const prose = command ? rest.slice(0, command.index + command[0].length - command[1]!.length) : rest;
  const out = fill(prose.split(' '), width, lead, indent);
  const empty = prose.trim() === '';
  let current = out.pop()!;
  if (command) {
    const text = command[1]!.trimEnd();
    const sep = empty || current.endsWith(' ') ? '' : ' ';
    if (displayWidth(current + sep + text) <= width) current += sep + text;
    else {
      if (!empty) out.push(current.trimEnd());
      const start = empty ? current : indent;
      if (displayWidth(start + text) <= width) current = start + text;
      else {
        // A comment after the command is not continued with " \\" (a shell would not read it so): it
        // goes on lines of its own after the command, each a comment.
        const hash = /\s#\s/.exec(text);
        const code = hash ? text.slice(0, hash.index).trimEnd() : text;
        const lines = commandLines(code, start, indent, width);
        if (hash) {
          const comment = wrapLine(`# ${text.slice(hash.index + hash[0].length)}`, width - indent.length).split('\n');
          lines.push(...comment.map((l) => `${indent}${l.startsWith('# ') ? l : `# ${l.trimStart()}`}`));
        }
        current = lines.pop()!;
        out.push(...lines);
      }
    }
  }
  out.push(current.trimEnd());
  return out.join('\n');
}

/** Rows as columns without borders, those marked `right` right-aligned (a count beside its amount). */
export function aligned(rows: readonly (readonly string[])[], right: readonly boolean[]): string[] {
  const widths = right.map((_, i) => Math.max(0, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  return rows.map((r) =>
    r
      .map((cell, i) => (right[i] ? padStart(cell, widths[i]!) : i === r.length - 1 ? cell : padEnd(cell, widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
