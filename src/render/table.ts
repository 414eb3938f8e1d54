// Tables for people (cli-table3): amounts right-aligned, no colours unless the caller adds them.
// Given the terminal's width, no line is wider: text columns shrink (their cells wrap inside the
// column at spaces, or are cut with … where a row must stay one line), identifiers, dates, statuses
// and amounts are never cut; columns marked to give way are left out, least important first. A
// list (`list`, and every streamed table) keeps each row on one line, as gh's lists do: its text
// cells are cut with … (a trailing NPI in brackets kept whole), and when the columns still cannot
// fit, columns are left out (the marked ones, then the others but the first: one-word columns,
// then text, amounts last). Only a table that cannot fit even so is printed a record at a time,
// label and value on each line.
import Table from 'cli-table3';
import { commandLines, displayWidth, ownLine, padEnd, wrapWords } from './text.js';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /**
   * Left out when the terminal is too narrow for every column: the column with 1 first, then 2, …;
   * a column without it always stays.
   */
  drop?: number;
  /** A text too long for its column is cut with … rather than wrapped, so that a row stays one line. */
  cut?: boolean;
  /** Never narrower than its cells, though they hold spaces (a status with its flag): never wrapped. */
  whole?: boolean;
  /** The widest its cells can be: a streamed table, sized by its first page, keeps that room for later ones. */
  room?: number;
}

export interface TableOptions {
  /** Widths to use as they are (a streamed table keeps its first page's). */
  colWidths?: number[];
  head?: boolean;
  /** The terminal's width: no line of the table is wider. */
  width?: number;
  /**
   * A list of rows (encounters, approvals): each row one line at any width, its text cells cut with …
   * (never an id, a date, a status or an amount), columns left out before a row would wrap.
   */
  list?: boolean;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence starts with ESC, which is what this finds
const ANSI = /\x1b\[[0-9;]*m/g;
/** The columns a cell takes on screen (render/text.ts): colour codes count nothing, wide characters two. */
export const visibleLength = displayWidth;

/** A text column wraps; a column whose every cell is one word (an id, a date, a status, an amount) is never cut. */
function shrinkable(cells: readonly string[]): boolean {
  return cells.some((c) => /\s/.test(c.replace(ANSI, '').trim()));
}

/** Narrowest a text column gets (padding included): a few words still read. */
const MIN_TEXT = 12;

/**
 * The narrowest each column may get (padding included): a column that cannot shrink, its natural
 * width; a text column that is cut, MIN_TEXT, or its trailing id and a few letters before it; one
 * that wraps, its longest word too, since a wrap is at spaces and never cuts a word (an NPI, an
 * amount, an id in a sentence).
 */
export function minimumWidths(
  cols: readonly Column[],
  rows: readonly (readonly string[])[],
  natural: readonly number[],
  canShrink: readonly boolean[],
): number[] {
  return cols.map((c, i) => {
    if (!canShrink[i]) return natural[i]!;
    // A cut cell keeps its trailing id whole (cut): room for it and a few letters of the name before it.
    if (c.cut) {
      const tail = Math.max(0, ...rows.map((r) => visibleLength(TRAILING_ID.exec(r[i] ?? '')?.[0] ?? '')));
      return Math.min(natural[i]!, Math.max(MIN_TEXT, tail === 0 ? 0 : tail + 7));
    }
    const longestWord = Math.max(0, ...rows.map((r) => Math.max(0, ...(r[i] ?? '').replace(ANSI, '').split(/\s+/).map(visibleLength))));
    return Math.min(natural[i]!, Math.max(MIN_TEXT, longestWord + 2));
  });
}

/**
 * Widths (padding included) that fit `width` with the borders, the widest text column giving way
 * first, none under its minimum (minimumWidths; MIN_TEXT when not given); undefined when even the
 * narrowest leave the table too wide.
 */
export function fitWidths(natural: readonly number[], canShrink: readonly boolean[], width: number, minimum?: readonly number[]): number[] | undefined {
  const widths = [...natural];
  const least = (i: number) => (canShrink[i] ? (minimum?.[i] ?? MIN_TEXT) : widths[i]!);
  const total = () => widths.reduce((s, w) => s + w, 0) + widths.length + 1;
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i]! > least(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) return undefined;
    widths[widest] = Math.max(least(widest), widths[widest]! - (total() - width));
  }
  return widths;
}

/**
 * The columns that fit `width` and their widths: every column if it can, else without the columns
 * marked to give way, the lowest `drop` first, until the rest fits; a list then leaves out the
 * others, never its first: one-word columns, then text, its amounts last. Undefined when
 * even that cannot fit (the caller prints records).
 */
export function fitColumns(
  cols: readonly Column[],
  natural: readonly number[],
  canShrink: readonly boolean[],
  width: number,
  options: { minimum?: readonly number[]; list?: boolean } = {},
): { keep: number[]; widths: number[] } | undefined {
  const marked = cols
    .map((c, i) => [c.drop, i] as const)
    .filter((d): d is readonly [number, number] => d[0] !== undefined)
    .sort((a, b) => a[0] - b[0])
    .map(([, i]) => i);
  // A list's other columns, but its first, each from the right: the one-word ones (codes, flags, dates),
  // then text (already cut as far as it goes), amounts last.
  const unmarked = cols
    .map((_, i) => i)
    .filter((i) => i > 0 && !marked.includes(i))
    .reverse();
  const rank = (i: number) => (cols[i]!.align === 'right' ? 2 : canShrink[i] ? 1 : 0);
  const rest = options.list ? [0, 1, 2].flatMap((r) => unmarked.filter((i) => rank(i) === r)) : [];
  const order = [...marked, ...rest];
  let keep = cols.map((_, i) => i);
  for (let dropped = 0; ; dropped++) {
    const widths = fitWidths(
      keep.map((i) => natural[i]!),
      keep.map((i) => canShrink[i]!),
      width,
      options.minimum && keep.map((i) => options.minimum![i]!),
    );
    if (widths) return { keep, widths };
    if (dropped === order.length) return undefined;
    keep = keep.filter((i) => i !== order[dropped]);
  }
}

/** The columns of a list: every text column cut with … rather than wrapped, so that a row is one line. */
export function listColumns(cols: readonly Column[]): Column[] {
  return cols.map((c) => (c.whole ? c : { ...c, cut: true }));
}

/** An id in brackets at the end of a cell, "Riverside Surgery Center (1234567893)": kept whole when the cell is cut. */
const TRAILING_ID = / \([^\s()]+\)$/;

/**
 * A cell cut to `width` columns with …, on one line: the name before a trailing id in brackets
 * gives way, the id (an NPI) never; a cell with colours, or whose id alone is too long, is cut at
 * its end by cli-table3.
 */
export function cut(cell: string, width: number): string {
  const tail = TRAILING_ID.exec(cell)?.[0];
  if (cell.includes('\u001b') || tail === undefined || visibleLength(tail) + 2 > width) return cell.replace(/\n/g, ' ');
  let head = cell.slice(0, -tail.length);
  while (head !== '' && visibleLength(head) + 1 + visibleLength(tail) > width) head = [...head].slice(0, -1).join('');
  return `${head.trimEnd()}…${tail}`;
}

function render(cols: Column[], rows: readonly (readonly string[])[], head: boolean, colWidths?: number[]): string {
  // With set widths, a text longer than its column wraps inside it at spaces (a word longer than
  // the column, an id in a sentence, is carried over whole, never cut); a one-word cell too long
  // for its column (only a later page of a streamed table can have one) is cut with …
  const cells = colWidths
    ? rows.map((r) =>
        r.map((cell, i) => {
          if (cols[i]!.whole || visibleLength(cell) <= colWidths[i]! - 2) return cell;
          if (cols[i]!.cut) return cut(cell, colWidths[i]! - 2);
          return /\s/.test(cell.trim()) ? wrapWords(cell, colWidths[i]! - 2).join('\n') : cell;
        }),
      )
    : rows;
  const t = new Table({
    head: head ? cols.map((c) => c.header) : [],
    ...(colWidths ? { colWidths } : {}),
    colAligns: cols.map((c) => c.align ?? 'left'),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of cells) t.push([...row]);
  return t.toString();
}

export function table(columns: readonly (Column | string)[], rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  const given = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const cols = options.list ? listColumns(given) : given;
  const head = options.head !== false;
  if (options.colWidths) return render(cols, rows, head, options.colWidths);
  if (options.width === undefined) return render(cols, rows, head);
  const natural = cols.map((c, i) => Math.max(visibleLength(c.header), ...rows.map((r) => Math.max(...(r[i] ?? '').split('\n').map(visibleLength)))) + 2);
  if (natural.reduce((s, w) => s + w, 0) + cols.length + 1 <= options.width) return render(cols, rows, head);
  const canShrink = cols.map((c, i) => !c.whole && shrinkable(rows.map((r) => r[i] ?? '')));
  const fitted = fitColumns(cols, natural, canShrink, options.width, { minimum: minimumWidths(cols, rows, natural, canShrink), list: options.list });
  if (!fitted) return records(cols, rows, options.width);
  return render(
    fitted.keep.map((i) => cols[i]!),
    rows.map((r) => fitted.keep.map((i) => r[i] ?? '')),
    head,
    fitted.widths,
  );
}

/** A table too wide for the terminal, a record at a time: each row's cells under their headers. */
export function records(cols: readonly Column[], rows: readonly (readonly string[])[], width: number): string {
  return rows
    .map((r) =>
      keyValues(
        cols.map((c, i) => [c.header, r[i] ?? ''] as const),
        width,
      ),
    )
    .join('\n\n');
}

/** An amount as tables print it ("1,234.50", "-12.00"), at the start of a value, colours aside. */
const LEADING_AMOUNT = /^-?[\d,]+\.\d{2}(?=$| )/;

/**
 * A two-column layout of labels and values, for a single record. Amounts line up on the right, by
 * the width they take on screen: a bold amount, or one followed by a word ("0.00 (SETTLED)"), sits
 * in the same column as the others.
 */
export function keyValues(pairs: readonly (readonly [string, string])[], width?: number): string {
  const labelWidth = Math.max(...pairs.map(([k]) => displayWidth(k)));
  const amountOf = (v: string) => LEADING_AMOUNT.exec(v.replace(ANSI, ''))?.[0];
  const amountWidth = Math.max(0, ...pairs.map(([, v]) => amountOf(v)?.length ?? 0));
  const room = width === undefined ? Infinity : Math.max(10, width - labelWidth - 2);
  return pairs
    .map(([k, v]) => {
      const amount = amountOf(v);
      const value = amount === undefined ? v : `${' '.repeat(amountWidth - amount.length)}${v}`;
      // A value's own line breaks (a note) stay under its label, never at the start of a line where they could pass for another label.
      // A command is broken as a shell reads it back (commandLines); a token too long for the room
      // beside the labels (a journal's path, an audit hash) goes on a line of its own, nearer the
      // margin, whole (ownLine): never cut by a line break, tpa's or the terminal's.
      const lines = value.split('\n').flatMap((l) => (room === Infinity ? [l] : /^tpa\s/.test(l) ? commandLines(l, '', '', room) : wrapWords(l, room)));
      const gutter = ' '.repeat(labelWidth + 2);
      return lines
        .flatMap((l, i) => {
          const label = i === 0 ? `${padEnd(k, labelWidth)}  ` : gutter;
          if (displayWidth(l) <= room) return [`${label}${l}`];
          const token = l.trimStart();
          return [...(i === 0 ? [k] : []), ownLine(token, gutter + ' '.repeat(displayWidth(l) - displayWidth(token)), width!)];
        })
        .join('\n');
    })
    .join('\n');
}
