// docs/design.md "Layers": dependencies flow one way, cli → client → (server | engine) → domain, and
// renderers take data and a description of the terminal, never the CLI's context. Read from the
// imports of every source file (static and dynamic), not by eye.
// The length of functions (none over 80 lines in cli/, client/, server/, jobs/): function-length.test.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every `from '…'` and `import('…')` of a file that points into src/, as the layer it lands in. */
function importedLayers(file: string): { layer: string; spec: string }[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => ({ spec, layer: relative(SRC, resolve(dirname(file), spec)).split('/')[0]! }));
}

/** The files a file imports (static, dynamic and type-only), as paths of .ts files that exist. */
function importedFiles(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\(\s*)'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts')).filter((f) => existsSync(f));
}

/**
 * The import circles among the .ts files under `root`: each a sorted list of files (relative to
 * root) that reach one another through imports, type-only ones included (Tarjan's strongly
 * connected components; a file importing itself is a circle too).
 */
function importCircles(root: string): string[][] {
  const all = files(root);
  const edges = new Map(all.map((f) => [f, importedFiles(f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)!.includes(v)) circles.push(component.map((f) => relative(root, f)).sort());
  };
  for (const f of all) if (!index.has(f)) visit(f);
  return circles;
}

const layerOf = (file: string) => relative(SRC, file).split('/')[0]!;

describe('the layers of docs/design.md "Layers"', () => {
  const all = files(SRC);

  it('no file reaches itself through its imports (type-only imports count: a circle is a knot to untie)', () => {
    expect(importCircles(SRC)).toEqual([]);
  });

  it('the circle check finds a circle of three files, one of them a type-only import, and a file importing itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tpa-circles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
      writeFileSync(join(dir, 'b.ts'), "export const b = 1;\nexport const later = () => import('./c.js');\n");
      writeFileSync(join(dir, 'c.ts'), "import type { A } from './a.js';\nexport type C = A;\n");
      writeFileSync(join(dir, 'd.ts'), "import { a } from './a.js';\nexport type { D } from './d.js';\nexport const d = a;\n");
      writeFileSync(join(dir, 'e.ts'), "import { d } from './d.js';\nexport const e = d;\n");
      expect(importCircles(dir)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the domain imports nothing of the others', () => {
    for (const f of all.filter((f) => layerOf(f) === 'domain')) {
      const outside = importedLayers(f).filter((i) => i.layer !== 'domain');
      expect(outside, relative(SRC, f)).toEqual([]);
    }
  });

  it('the renderers import neither the CLI nor the client nor the engine', () => {
    for (const f of all.filter((f) => layerOf(f) === 'render')) {
      const bad = importedLayers(f).filter((i) => ['cli', 'client', 'engine', 'server', 'auth'].includes(i.layer));
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  it('the client and the engine never import the CLI', () => {
    for (const f of all.filter((f) => ['client', 'engine', 'server'].includes(layerOf(f)))) {
      const bad = importedLayers(f).filter((i) => i.layer === 'cli');
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  // The long jobs (claim batch, payment run, journals, their locks and seal, fund history, the 835
  // remit) sit on the typed API client in src/jobs/: the client, the engine, the server and the
  // domain never import them.

  it('the client, the engine, the server and the domain never import the long jobs (src/jobs/)', () => {
    const jobs = all.filter((f) => layerOf(f) === 'jobs');
    expect(jobs.map((f) => relative(SRC, f))).toContain('jobs/payment-run.ts');
    for (const f of all.filter((f) => ['client', 'engine', 'server', 'domain', 'render', 'auth', 'files'].includes(layerOf(f)))) {
      const bad = importedLayers(f).filter((i) => i.layer === 'jobs');
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  it('the typed API client imports neither the server, nor the engine, nor the credentials (auth), nor what wires them (src/local/)', () => {
    const client = all.filter((f) => layerOf(f) === 'client');
    expect(client.length).toBeGreaterThan(0);
    for (const f of client) {
      const bad = importedLayers(f).filter((i) => ['server', 'engine', 'auth', 'local'].includes(i.layer));
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  it('only the CLI imports src/local/ (the in-process transport and the data directory lock, which wire the engine)', () => {
    for (const f of all.filter((f) => !['cli', 'local'].includes(layerOf(f)))) {
      const bad = importedLayers(f).filter((i) => i.layer === 'local');
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  it('the long jobs never import the CLI, the renderers, the server or src/local/; the engine and auth only for the journals beside the database', () => {
    // The journals live in the data directory (its private-folder rule) and an encrypted data
    // directory seals them with the database's key: journal.ts and journal-seal.ts reach for those.
    const BESIDE_THE_DATABASE = ['jobs/journal.ts', 'jobs/journal-seal.ts'];
    for (const f of all.filter((f) => layerOf(f) === 'jobs')) {
      const never = ['cli', 'render', 'server', 'local', ...(BESIDE_THE_DATABASE.includes(relative(SRC, f)) ? [] : ['engine', 'auth'])];
      const bad = importedLayers(f).filter((i) => never.includes(i.layer));
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });

  it('the engine and the server throw their own errors, never the CLI exit codes of src/errors.ts', () => {
    const servers = all.filter((f) => ['engine', 'server'].includes(layerOf(f)));
    expect(servers.length).toBeGreaterThan(0);
    for (const f of servers) {
      const bad = importedLayers(f).filter((i) => i.layer === 'errors.js');
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });
});
