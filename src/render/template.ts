// `--template`: a subset of Go's text/template, as gh's --template takes it (docs/scripting.md "Scripts:
// fields, jq and templates"): `{{.field}}`, `{{.a.b}}`, `{{range .}}…{{else}}…{{end}}`,
// `{{if}}…{{else if}}…{{else}}…{{end}}`, `{{with}}`, variables (`$`, `{{$x := …}}`, `{{range $i, $e
// := .}}`), pipes (`{{.n | printf "%05d"}}`), `{{- trimming -}}`, `{{/* comments */}}`, and the
// functions of FUNCTIONS. A template is parsed, its every function checked, before anything is sent;
// a mistake is a usage error naming its line and column.
import { UsageError } from '../errors.js';
import { TEMPLATE_FUNCTIONS } from './template-functions.js';
import { goExponent, goFixed, goGeneral } from './go-float.js';
import { displayWidth, padEnd } from './text.js';

type Value = unknown;

interface Pos {
  line: number;
  column: number;
}

type Arg =
  | { kind: 'field'; path: string[] }
  | { kind: 'var'; name: string; path: string[] }
  | { kind: 'lit'; value: Value }
  | { kind: 'fn'; name: string; pos: Pos }
  | { kind: 'pipe'; pipe: Pipe; path: string[] };

interface Pipe {
  decl: string[];
  cmds: Arg[][];
  pos: Pos;
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'print'; pipe: Pipe }
  | { kind: 'if' | 'with'; branches: { cond: Pipe; body: Node[] }[]; otherwise: Node[] }
  | { kind: 'range'; pipe: Pipe; body: Node[]; otherwise: Node[] };

/** A template parsed: renders one value (the records, or one record) to text. */
export type Template = (data: Value) => string;

export function parseTemplate(source: string): Template {
  const items = split(source);
  const parser = { items, at: 0 };
  const { nodes, end } = parseList(parser);
  if (end) throw templateError(end.pos, `unexpected {{${end.word}}}`);
  return (data) => render(nodes, data);
}

// ---- Splitting text and actions ----

interface Item {
  kind: 'text' | 'action';
  text: string;
  pos: Pos;
}

function positionOf(source: string, offset: number): Pos {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Text and actions, with `{{-` and `-}}` trimming the white space beside them. */
function split(source: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNext = false;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    let text = source.slice(i, open === -1 ? source.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open === -1) {
      if (text) items.push({ kind: 'text', text, pos: positionOf(source, i) });
      break;
    }
    const trimBefore = /^\{\{-\s/.test(source.slice(open, open + 4));
    if (trimBefore) text = text.replace(/\s+$/, '');
    if (text) items.push({ kind: 'text', text, pos: positionOf(source, i) });
    const close = actionEnd(source, open + 2);
    if (close === -1) throw templateError(positionOf(source, open), 'unclosed action: no "}}"');
    const trimAfter = /\s-$/.test(source.slice(close - 2, close));
    const start = open + 2 + (trimBefore ? 2 : 0);
    const inner = source.slice(start, trimAfter ? close - 2 : close);
    items.push({ kind: 'action', text: inner, pos: positionOf(source, open) });
    trimNext = trimAfter;
    i = close + 2;
  }
  return items;
}

/** The offset of the `}}` that closes an action, skipping strings and comments. */
function actionEnd(source: string, from: number): number {
  let i = from;
  while (i < source.length) {
    const ch = source[i]!;
    if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) return -1;
      i = end + 2;
    } else if (ch === '"' || ch === '`') {
      i++;
      while (i < source.length && source[i] !== ch) i += source[i] === '\\' && ch === '"' ? 2 : 1;
      i++;
    } else if (source.startsWith('}}', i)) return i;
    else i++;
  }
  return -1;
}

// ---- Parsing ----

interface Parser {
  items: Item[];
  at: number;
}

interface End {
  word: 'end' | 'else';
  rest: string;
  pos: Pos;
}

function parseList(p: Parser): { nodes: Node[]; end?: End } {
  const nodes: Node[] = [];
  while (p.at < p.items.length) {
    const item = p.items[p.at++]!;
    if (item.kind === 'text') {
      nodes.push({ kind: 'text', text: item.text });
      continue;
    }
    const text = item.text.trim();
    if (text.startsWith('/*')) {
      if (!text.endsWith('*/')) throw templateError(item.pos, 'a comment must be the whole action: {{/* … */}}');
      continue;
    }
    const word = /^(if|else|end|range|with)\b/.exec(text)?.[1];
    if (word === 'end' || word === 'else') return { nodes, end: { word, rest: text.slice(word.length).trim(), pos: item.pos } };
    if (word === 'if' || word === 'with') nodes.push(parseBranches(p, word, text.slice(word.length), item.pos));
    else if (word === 'range') {
      const pipe = parsePipe(text.slice(5), item.pos, true);
      const { body, otherwise } = parseBody(p, 'range', item.pos);
      nodes.push({ kind: 'range', pipe, body, otherwise });
    } else nodes.push({ kind: 'print', pipe: parsePipe(text, item.pos, false) });
  }
  return { nodes };
}

function parseBranches(p: Parser, kind: 'if' | 'with', condition: string, pos: Pos): Node {
  const branches: { cond: Pipe; body: Node[] }[] = [];
  let cond = parsePipe(condition, pos, false);
  for (;;) {
    const { nodes, end } = parseList(p);
    if (!end) throw templateError(pos, `{{${kind}}} has no {{end}}`);
    branches.push({ cond, body: nodes });
    if (end.word === 'end') return { kind, branches, otherwise: [] };
    if (end.rest.startsWith(`${kind} `)) {
      cond = parsePipe(end.rest.slice(kind.length), end.pos, false);
      continue;
    }
    return { kind, branches, otherwise: parseElse(p, kind, end, pos) };
  }
}

function parseBody(p: Parser, kind: string, pos: Pos): { body: Node[]; otherwise: Node[] } {
  const { nodes, end } = parseList(p);
  if (!end) throw templateError(pos, `{{${kind}}} has no {{end}}`);
  if (end.word === 'end') return { body: nodes, otherwise: [] };
  return { body: nodes, otherwise: parseElse(p, kind, end, pos) };
}

/** What follows a plain {{else}} up to the {{end}} of the {{kind}} at `pos`. */
function parseElse(p: Parser, kind: string, end: End, pos: Pos): Node[] {
  if (end.rest !== '') throw templateError(end.pos, `unexpected "${end.rest}" after else`);
  const last = parseList(p);
  if (last.end?.word !== 'end') throw templateError(pos, `{{${kind}}} has no {{end}}`);
  return last.nodes;
}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])|(\$\w*)((?:\.\w+)*)|((?:\.\w+)+|\.)|([A-Za-z_]\w*)|(:=|\||\(|\)|,|=))/y;

interface Token {
  kind: 'lit' | 'var' | 'field' | 'ident' | 'punct';
  text: string;
  value?: Value;
  path?: string[];
  offset: number;
}

function tokens(text: string, pos: Pos): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    if (/^\s*$/.test(text.slice(start))) break;
    const m = TOKEN.exec(text);
    const offset = start + (text.slice(start).length - text.slice(start).trimStart().length);
    if (!m) throw templateError(at(pos, offset), `cannot read "${text.slice(offset).split(/\s/)[0]}"`);
    if (m[1] !== undefined) out.push({ kind: 'lit', text: m[1], value: goString(m[1], at(pos, offset)), offset });
    else if (m[2] !== undefined) out.push({ kind: 'lit', text: m[2], value: m[2].slice(1, -1), offset });
    else if (m[3] !== undefined) out.push({ kind: 'lit', text: m[3], value: Number(m[3]), offset });
    else if (m[4] !== undefined) out.push({ kind: 'var', text: m[4], path: fieldPath(m[5] ?? ''), offset });
    else if (m[6] !== undefined) out.push({ kind: 'field', text: m[6], path: fieldPath(m[6]), offset });
    else if (m[7] !== undefined) out.push({ kind: 'ident', text: m[7], offset });
    else out.push({ kind: 'punct', text: m[8]!, offset });
  }
  return out;
}

function fieldPath(text: string): string[] {
  return text.split('.').filter((s) => s !== '');
}

/** A position inside an action: the action's `{{` plus the offset after it. */
function at(pos: Pos, offset: number): Pos {
  return { line: pos.line, column: pos.column + 2 + offset };
}

function goString(quoted: string, pos: Pos): string {
  try {
    return JSON.parse(quoted.replace(/\\([abfv'])/g, (_, c: string) => ({ a: '\\u0007', b: '\\b', f: '\\f', v: '\\u000b', "'": "'" })[c] ?? c));
  } catch {
    throw templateError(pos, `bad string ${quoted}`);
  }
}

/** A pipeline, `$x := …` first when `declare` allows it (range: `$i, $e :=`). */
function parsePipe(text: string, pos: Pos, declare: boolean): Pipe {
  const toks = tokens(text, pos);
  const decl: string[] = [];
  const assign = toks.findIndex((t) => t.text === ':=' || t.text === '=');
  if (assign !== -1) {
    const names = toks.slice(0, assign).filter((t) => t.text !== ',');
    if (names.length === 0 || names.length > (declare ? 2 : 1) || names.some((t) => t.kind !== 'var' || t.path!.length > 0))
      throw templateError(at(pos, toks[assign]!.offset), `bad declaration before ${toks[assign]!.text}`);
    decl.push(...names.map((t) => t.text));
  }
  const rest = assign === -1 ? toks : toks.slice(assign + 1);
  const state = { toks: rest, at: 0 };
  const pipe = readPipe(state, pos);
  if (state.at < rest.length) throw templateError(at(pos, rest[state.at]!.offset), `unexpected "${rest[state.at]!.text}"`);
  if (pipe.length === 0) throw templateError(pos, 'missing value');
  return { decl, cmds: pipe, pos };
}

function readPipe(s: { toks: Token[]; at: number }, pos: Pos): Arg[][] {
  const cmds: Arg[][] = [];
  let cmd: Arg[] = [];
  while (s.at < s.toks.length) {
    const t = s.toks[s.at]!;
    if (t.text === ')') break;
    s.at++;
    if (t.text === '|') {
      if (cmd.length === 0) throw templateError(at(pos, t.offset), 'a pipe "|" needs a command before it');
      cmds.push(cmd);
      cmd = [];
      continue;
    }
    cmd.push(readArg(s, t, pos));
  }
  if (cmd.length > 0) cmds.push(cmd);
  else if (cmds.length > 0) throw templateError(pos, 'a pipe "|" needs a command after it');
  return cmds;
}

function readArg(s: { toks: Token[]; at: number }, t: Token, pos: Pos): Arg {
  switch (t.kind) {
    case 'lit':
      return { kind: 'lit', value: t.value };
    case 'var':
      return { kind: 'var', name: t.text, path: t.path! };
    case 'field':
      return { kind: 'field', path: t.path! };
    case 'ident':
      if (t.text === 'true' || t.text === 'false') return { kind: 'lit', value: t.text === 'true' };
      if (t.text === 'nil') return { kind: 'lit', value: null };
      if (!(t.text in FUNCTIONS)) throw templateError(at(pos, t.offset), `unknown function "${t.text}" (known: ${TEMPLATE_FUNCTIONS.join(', ')})`);
      return { kind: 'fn', name: t.text, pos: at(pos, t.offset) };
    case 'punct': {
      if (t.text !== '(') throw templateError(at(pos, t.offset), `unexpected "${t.text}"`);
      const cmds = readPipe(s, pos);
      if (s.toks[s.at]?.text !== ')') throw templateError(at(pos, t.offset), 'unclosed "("');
      s.at++;
      const next = s.toks[s.at];
      // `(…).field`: the field path written straight after the parenthesis.
      const path = next?.kind === 'field' && next.offset === s.toks[s.at - 1]!.offset + 1 ? (s.at++, next.path!) : [];
      return { kind: 'pipe', pipe: { decl: [], cmds, pos }, path };
    }
  }
}

// ---- Rendering ----

interface Scope {
  dot: Value;
  vars: Map<string, Value>[];
  out: string[];
  rows: string[][];
}

function render(nodes: Node[], data: Value): string {
  const scope: Scope = { dot: data, vars: [new Map([['$', data]])], out: [], rows: [] };
  walk(nodes, scope);
  flushTable(scope);
  return scope.out.join('');
}

function walk(nodes: Node[], s: Scope): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        s.out.push(node.text);
        break;
      case 'print': {
        const value = runPipe(node.pipe, s);
        if (node.pipe.decl.length === 0) s.out.push(printed(value));
        break;
      }
      case 'if':
      case 'with':
        branch(node, s);
        break;
      case 'range':
        range(node, s);
        break;
    }
  }
}

function branch(node: Extract<Node, { kind: 'if' | 'with' }>, s: Scope): void {
  for (const { cond, body } of node.branches) {
    const value = runPipe(cond, s);
    if (!truthy(value)) continue;
    inScope(s, node.kind === 'with' ? value : s.dot, () => walk(body, s));
    return;
  }
  inScope(s, s.dot, () => walk(node.otherwise, s));
}

function range(node: Extract<Node, { kind: 'range' }>, s: Scope): void {
  const value = runPipe(node.pipe, s);
  let entries: [Value, Value][];
  if (Array.isArray(value)) entries = value.map((v, i) => [i, v]);
  else if (value === null || value === undefined) entries = [];
  else if (typeof value === 'object')
    entries = Object.keys(value)
      .sort()
      .map((k) => [k, (value as Record<string, Value>)[k]]);
  else throw templateError(node.pipe.pos, `range cannot go over ${describe(value)}`);
  if (entries.length === 0) {
    inScope(s, s.dot, () => walk(node.otherwise, s));
    return;
  }
  const [first, second] = node.pipe.decl;
  for (const [key, element] of entries)
    inScope(s, element, () => {
      const vars = s.vars[s.vars.length - 1]!;
      if (second) {
        vars.set(first!, key);
        vars.set(second, element);
      } else if (first) vars.set(first, element);
      walk(node.body, s);
    });
}

function inScope(s: Scope, dot: Value, run: () => void): void {
  const saved = s.dot;
  s.dot = dot;
  s.vars.push(new Map());
  try {
    run();
  } finally {
    s.vars.pop();
    s.dot = saved;
  }
}

function runPipe(pipe: Pipe, s: Scope): Value {
  let value: Value;
  let first = true;
  for (const cmd of pipe.cmds) {
    value = runCommand(cmd, s, first ? [] : [value], pipe.pos);
    first = false;
  }
  if (pipe.decl.length === 1) s.vars[s.vars.length - 1]!.set(pipe.decl[0]!, value);
  return value;
}

function runCommand(cmd: Arg[], s: Scope, piped: Value[], pos: Pos): Value {
  const [head, ...rest] = cmd;
  if (head!.kind === 'fn') {
    const args = [...rest.map((a) => evaluate(a, s, pos)), ...piped];
    try {
      return FUNCTIONS[head!.name]!(s, ...args);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw templateError(head!.pos, `${head!.name}: ${(err as Error).message}`);
    }
  }
  if (rest.length > 0 || piped.length > 0) throw templateError(pos, 'only a function takes arguments');
  return evaluate(head!, s, pos);
}

function evaluate(arg: Arg, s: Scope, pos: Pos): Value {
  switch (arg.kind) {
    case 'lit':
      return arg.value;
    case 'field':
      return walkPath(s.dot, arg.path, pos);
    case 'var': {
      for (let i = s.vars.length - 1; i >= 0; i--) if (s.vars[i]!.has(arg.name)) return walkPath(s.vars[i]!.get(arg.name), arg.path, pos);
      throw templateError(pos, `undefined variable ${arg.name}`);
    }
    case 'fn':
      return runCommand([arg], s, [], pos);
    case 'pipe':
      return walkPath(runPipe(arg.pipe, s), arg.path, pos);
  }
}

/** A field of an object; of a missing field or of null, nothing (printed as empty text). */
function walkPath(value: Value, path: string[], pos: Pos): Value {
  let v = value;
  for (const key of path) {
    if (v === null || v === undefined) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw templateError(pos, `cannot read field ${key} of ${describe(v)}`);
    v = Object.hasOwn(v, key) ? (v as Record<string, Value>)[key] : undefined;
  }
  return v;
}

function describe(value: Value): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Go's truth: false, 0, empty text, an empty list or object and nothing are false. */
function truthy(value: Value): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** How a value prints: text as it is, numbers and booleans as written, nothing as empty text, lists and objects as JSON. */
function printed(value: Value): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// ---- Functions ----

type Fn = (s: Scope, ...args: Value[]) => Value;

function arity(args: Value[], min: number, max = min): void {
  if (args.length < min || args.length > max)
    throw new Error(`takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, not ${args.length}`);
}

function compare(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new Error(`cannot compare ${describe(a)} with ${describe(b)}`);
}

/** The functions a template may call: Go's own, and gh's (join, pluck, tablerow, tablerender, truncate); json is tpa's. */
const FUNCTIONS: Record<(typeof TEMPLATE_FUNCTIONS)[number], Fn> & Record<string, Fn | undefined> = {
  and: (_s, ...args) => args.find((a) => !truthy(a)) ?? args[args.length - 1],
  or: (_s, ...args) => args.find((a) => truthy(a)) ?? args[args.length - 1],
  not: (_s, ...args) => (arity(args, 1), !truthy(args[0])),
  eq: (_s, a, ...others) => {
    if (others.length === 0) throw new Error('takes at least 2 arguments');
    return others.some((b) => a === b || (a == null && b == null));
  },
  ne: (_s, ...args) => (arity(args, 2), args[0] !== args[1]),
  lt: (_s, ...args) => (arity(args, 2), compare(args[0], args[1]) < 0),
  le: (_s, ...args) => (arity(args, 2), compare(args[0], args[1]) <= 0),
  gt: (_s, ...args) => (arity(args, 2), compare(args[0], args[1]) > 0),
  ge: (_s, ...args) => (arity(args, 2), compare(args[0], args[1]) >= 0),
  len: (_s, ...args) => {
    arity(args, 1);
    const [v] = args;
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    if (v !== null && typeof v === 'object') return Object.keys(v).length;
    throw new Error(`cannot take the length of ${describe(v)}`);
  },
  index: (_s, v, ...keys) =>
    keys.reduce((acc: Value, k) => {
      if (acc === null || acc === undefined) return undefined;
      if (Array.isArray(acc) && typeof k === 'number') {
        if (k < 0 || k >= acc.length || !Number.isInteger(k)) throw new Error(`index ${k} out of range`);
        return acc[k];
      }
      if (typeof acc === 'object' && typeof k === 'string') return Object.hasOwn(acc, k) ? (acc as Record<string, Value>)[k] : undefined;
      throw new Error(`cannot index ${describe(acc)} with ${describe(k)}`);
    }, v),
  // Go's Sprint: a space between two operands when neither is a string.
  print: (_s, ...args) => args.map((a, i) => (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + printed(a)).join(''),
  println: (_s, ...args) => `${args.map(printed).join(' ')}\n`,
  printf: (_s, format, ...args) => {
    if (typeof format !== 'string') throw new Error('its first argument is the format, a string');
    return sprintf(format, args);
  },
  join: (_s, ...args) => {
    arity(args, 2);
    const [sep, list] = args;
    if (!Array.isArray(list)) throw new Error(`joins a list, not ${describe(list)}`);
    return list.map(printed).join(printed(sep));
  },
  pluck: (_s, ...args) => {
    arity(args, 2);
    const [field, list] = args;
    if (!Array.isArray(list)) throw new Error(`plucks from a list, not ${describe(list)}`);
    return list.map((item) => (item !== null && typeof item === 'object' ? (item as Record<string, Value>)[String(field)] : undefined));
  },
  truncate: (_s, ...args) => {
    arity(args, 2);
    const [width, text] = args;
    const chars = [...printed(text)];
    const n = Number(width);
    if (chars.length <= n) return chars.join('');
    return n > 3 ? `${chars.slice(0, n - 3).join('')}...` : chars.slice(0, n).join('');
  },
  json: (_s, ...args) => (arity(args, 1), JSON.stringify(args[0] ?? null)),
  tablerow: (s, ...args) => {
    s.rows.push(args.map(printed));
    return undefined;
  },
  tablerender: (s, ...args) => {
    arity(args, 0);
    flushTable(s);
    return undefined;
  },
};

/** The rows of tablerow, written as aligned columns two spaces apart (the last column not padded). */
function flushTable(s: Scope): void {
  if (s.rows.length === 0) return;
  // Columns as wide as their widest cell on screen (a wide character two columns, an accent none).
  const widths: number[] = [];
  for (const row of s.rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell))));
  for (const row of s.rows) s.out.push(`${row.map((cell, i) => (i === row.length - 1 ? cell : padEnd(cell, widths[i]!))).join('  ')}\n`);
  s.rows = [];
}

/** Go's fmt verbs that scripts use: %v %s %d %f %e %g %q %t %x %%, with flags (-, 0, +), width and precision. */
export function sprintf(format: string, args: readonly Value[]): string {
  let next = 0;
  return format.replace(/%([-+0 ]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g, (_whole, flags: string, width?: string, precision?: string, verb?: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    const value = args[next++];
    let text: string;
    switch (verb) {
      case 'v':
      case 's':
        text = printed(value);
        if (precision !== undefined) text = [...text].slice(0, Number(precision)).join('');
        break;
      case 'd':
        // Never a silent truncation (money): a number with a fraction is Go's refusal, %!d(float64=6.55).
        if (typeof value === 'number' && !Number.isInteger(value)) return `%!d(float64=${value})`;
        text = typeof value === 'number' ? value.toString() : `%!d(${printed(value)})`;
        break;
      // Go's own digits: the double's exact value, an exact tie to even (render/go-float.ts).
      case 'f':
        text = typeof value === 'number' ? goFixed(value, precision === undefined ? 6 : Number(precision)) : `%!f(${printed(value)})`;
        break;
      case 'e':
        text = typeof value === 'number' ? goExponent(value, precision === undefined ? 6 : Number(precision)) : `%!e(${printed(value)})`;
        break;
      case 'g':
        text = typeof value === 'number' ? goGeneral(value, precision === undefined ? undefined : Number(precision)) : `%!g(${printed(value)})`;
        break;
      case 'q':
        text = JSON.stringify(printed(value));
        break;
      case 't':
        text = String(truthy(value));
        break;
      case 'x':
        if (typeof value === 'number' && !Number.isInteger(value)) return `%!x(float64=${value})`;
        text = typeof value === 'number' ? value.toString(16) : Buffer.from(printed(value)).toString('hex');
        break;
      default:
        return `%!${verb}(${printed(value)})`;
    }
    if (flags.includes('+') && typeof value === 'number' && !text.startsWith('-') && !text.startsWith('+') && 'dfeg'.includes(verb!)) text = `+${text}`;
    const w = width === undefined ? 0 : Number(width);
    if ([...text].length >= w) return text;
    const pad = w - [...text].length;
    if (flags.includes('-')) return text + ' '.repeat(pad);
    if (flags.includes('0') && typeof value === 'number')
      return text.startsWith('-') || text.startsWith('+') ? text[0] + '0'.repeat(pad) + text.slice(1) : '0'.repeat(pad) + text;
    return ' '.repeat(pad) + text;
  });
}

function templateError(pos: Pos, message: string): UsageError {
  return new UsageError(`--template: line ${pos.line}, column ${pos.column}: ${message}`);
}
