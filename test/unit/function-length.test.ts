// A long job reads as named steps: no function in the CLI, the client, the server or the long jobs
// spans more than 80 lines, nested ones included (a closure inside a long function counts on its
// own, and inside the span of the function around it). Read with a real TypeScript parser (Oxc,
// through vite's parseAst), not by eye.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAst } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 80;
/** The folders checked: the CLI, the typed client, the server, the long jobs and the engine's in-process wiring. */
const FOLDERS = ['src/cli', 'src/client', 'src/server', 'src/jobs', 'src/local'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** A name for a function where it has one: its own, its variable's, its key's (a method, a property). */
function nameOf(node: Node, around: string | undefined): string | undefined {
  const named = (n: unknown) => (n && typeof n === 'object' && 'name' in n && typeof n.name === 'string' ? n.name : undefined);
  if (node.type === 'VariableDeclarator') return named(node.id) ?? around;
  if (['MethodDefinition', 'Property', 'PropertyDefinition'].includes(node.type)) return named(node.key) ?? around;
  return around;
}

/** Every function of a TypeScript source (with a body; nested ones too) longer than `max` lines, from its first line to its last. */
function longFunctions(text: string, max = MAX_LINES): { line: number; lines: number; name: string }[] {
  const program = parseAst(text, { lang: 'ts' }) as unknown as Node;
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: { line: number; lines: number; name: string }[] = [];
  const visit = (value: unknown, around: string | undefined): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v, around);
      return;
    }
    if (!value || typeof value !== 'object' || typeof (value as Node).type !== 'string') return;
    const node = value as Node;
    let name = nameOf(node, around);
    if (FUNCTIONS.has(node.type) && node.body) {
      const first = lineOf(node.start);
      const lines = lineOf(node.end - 1) - first + 1;
      const own = (node.id as { name?: string } | null)?.name ?? name ?? '(anonymous)';
      if (lines > max) found.push({ line: first, lines, name: own });
      name = undefined;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'parent' && child && typeof child === 'object') visit(child, name);
  };
  visit(program, undefined);
  return found;
}

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  total += ${i};`).join('\n');

describe('no orchestration function over 80 lines', () => {
  it('no function in src/cli, src/client, src/server, src/jobs or src/local spans more than 80 lines', () => {
    const folders = FOLDERS.map((f) => join(ROOT, f));
    expect(folders.every((f) => existsSync(f))).toBe(true);
    const offenders = folders
      .flatMap(files)
      .map((f) => relative(ROOT, f))
      .flatMap((f) => longFunctions(readFileSync(join(ROOT, f), 'utf8')).map((o) => `${f}:${o.line} ${o.name} (${o.lines} lines)`));
    expect(offenders).toEqual([]);
  });

  it('an 81-line function is found, an 80-line one is not', () => {
    const fn = (name: string, lines: number) => `export function ${name}(): number {\n  let total = 0;\n${body(lines - 4)}\n  return total;\n}\n`;
    expect(fn('long', 81).split('\n').length - 1).toBe(81);
    expect(longFunctions(`${fn('short', 80)}\n${fn('long', 81)}`)).toEqual([{ line: 82, lines: 81, name: 'long' }]);
  });

  it('finds long arrows, methods and function expressions, nested ones inside a short-looking call too', () => {
    const source = [
      "import { createServer } from 'node:http';",
      'export function start(): void {',
      '  createServer((req, res) => {',
      '    let total = 0;',
      body(78),
      "    res.end('');",
      '  });',
      '}',
      'export class Job {',
      '  private readonly label: string = `é→😀`;',
      '  async step(): Promise<number> {',
      '    let total = 0;',
      body(77),
      '    return total;',
      '  }',
      '}',
      'export const table = { render: function (): number {',
      '  let total = 0;',
      body(78),
      '  return total;',
      '} };',
    ].join('\n');
    expect(longFunctions(source)).toEqual([
      { line: 2, lines: 84, name: 'start' },
      { line: 3, lines: 82, name: '(anonymous)' },
      { line: 88, lines: 81, name: 'step' },
      { line: 170, lines: 82, name: 'render' },
    ]);
  });
});
