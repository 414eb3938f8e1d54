// docs/design.md "Layers": dependencies flow one way, cli → client → (server | engine) → domain, and
// renderers take data and a description of the terminal, never the CLI's context. Read from the
// imports of every source file (static and dynamic), not by eye.
import { readdirSync, readFileSync } from 'node:fs';
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

const layerOf = (file: string) => relative(SRC, file).split('/')[0]!;

describe('the layers of docs/design.md "Layers"', () => {
  const all = files(SRC);

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

  it('the engine and the server throw their own errors, never the CLI exit codes of src/errors.ts', () => {
    const servers = all.filter((f) => ['engine', 'server'].includes(layerOf(f)));
    expect(servers.length).toBeGreaterThan(0);
    for (const f of servers) {
      const bad = importedLayers(f).filter((i) => i.layer === 'errors.js');
      expect(bad, relative(SRC, f)).toEqual([]);
    }
  });
});
