// Text from outside is data (docs/design.md "Text from outside is data"): notes, codes, names, file names,
// claim fields and server messages may hold control characters, and a terminal obeys them (ESC
// sequences that retitle the window or move the cursor, BEL, CSI), a spreadsheet obeys a cell that
// starts like a formula. Two guards, applied where tpa writes, not per command:
// - `screen`: text for a person (tables, stderr) shows every C0/C1 control character, DEL included,
//   and every bidirectional control (which reorders what follows it on the line: a note could make
//   "0.01" read as "10.0", or hide the end of a line) as a visible \uXXXX escape; newline stays,
//   and tab where the layout allows.
// - `csvCell`: a CSV cell that a spreadsheet would read as a formula gets a leading quote.
// tpa's own escapes (colours, clearing the progress line) are written through `own`: a tagged form
// with a number drawn when the process starts, which stored text cannot know; `screen` turns the
// tagged form back into the escape and every other control character into its visible form.

const NONCE = String(100_000_000 + Math.floor(Math.random() * 900_000_000));
const TAG = `\u001b[${NONCE};`;

/**
 * One of tpa's own terminal escapes: `\r`, or a CSI sequence given without its `ESC [` ("31m", "K").
 * The tagged form still reads as an SGR code to width counts (cli-table3, table.ts) for colours.
 */
export function own(sequence: string): string {
  return `${TAG}${sequence}`;
}

/** Clears the progress line on stderr (back to its start, erase to its end). */
export const CLEAR_LINE = `${own('\r')}${own('K')}`;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
// A tag is ours only with this process's number; the control ranges leave \n (and \t in KEEP_TAB).
// BIDI: the Arabic letter mark, LRM and RLM, the embeddings and overrides, and the isolates.
const TAGGED = `\\u001b\\[${NONCE};(\\r|[0-9;]*[A-Za-z])`;
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const KEEP_TAB = new RegExp(`${TAGGED}|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');
const ESCAPE_TAB = new RegExp(`${TAGGED}|[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
const ANY_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Text safe to show on a terminal: control characters other than newline (and tab, unless `tabs`
 * is false), and bidirectional controls, become `\u001b`-style escapes; tpa's own escapes (`own`)
 * are restored. Applied to JSON text, it only rewrites characters inside strings into JSON escapes:
 * the data read back is the same.
 */
export function screen(text: string, tabs = true): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(tabs ? KEEP_TAB : ESCAPE_TAB, (match, ours: string | undefined) =>
    ours === undefined ? escaped(match) : ours === '\r' ? '\r' : `\u001b[${ours}`,
  );
}

/**
 * Outside text that is one value on one line (a file name, a claim's source, a path): as `screen`,
 * and its line breaks too become `\u000a` escapes, so that a name cannot begin a line of its own
 * (a forged "26 claims: 26 valid" under the real diagnostics). Only text that is a multi-line value
 * under a label keeps its newlines (`screen`).
 */
export function oneLine(text: string): string {
  return screen(text, false).replace(/\n/g, escaped);
}

/**
 * A CSV cell a spreadsheet never runs (OWASP "CSV injection"): a leading =, +, -, @, tab or CR gets
 * a quote first; a number stays a number. A text that already starts with quotes before such a
 * character gets one more, so that `csvCellValue` gives back exactly what was written.
 */
export function csvCell(text: string): string {
  const guarded = /^'*[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** A cell read back from a CSV tpa wrote: the quote `csvCell` put before a formula-like text is taken off. */
export function csvCellValue(text: string): string {
  return /^'+[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}
