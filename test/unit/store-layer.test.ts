// The engine's services read as the rules they apply; every query is a named function of
// src/engine/store/, one module per table family, and the store knows nothing of the services.
// Read from the source of every file, not by eye.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const SERVICES = join(SRC, 'engine/services');
const STORE = join(SRC, 'engine/store');

const tsFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

/** The lines of a file without its comments (a comment may well name a table). */
function codeLines(file: string): { line: number; text: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, i) => ({ line: i + 1, text: text.replace(/^\s*(\/\/|\*|\/\*\*).*$/, '').replace(/\s\/\/\s.*$/, '') }))
    .filter((l) => l.text.trim() !== '');
}

/** Statements of better-sqlite3, and SQL written in a string or template. */
const DRIVER_CALL = /\.(prepare|exec|pragma|iterate)\(/;
const SQL_TEXT = /['"`]\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE|PRAGMA)\b|\b(SELECT .+ FROM|INSERT INTO|INSERT OR \w+ INTO|UPDATE \w+ SET|DELETE FROM)\b/;

describe('the engine store', () => {
  it('holds every query: no service prepares a statement or writes SQL', () => {
    const found: string[] = [];
    // The Idempotency-Key rule too: a rule that services call, its answers kept by the store.
    for (const file of [...tsFiles(SERVICES), join(SRC, 'engine/idempotency.ts')]) {
      for (const { line, text } of codeLines(file)) {
        if (DRIVER_CALL.test(text) || SQL_TEXT.test(text)) found.push(`${relative(SRC, file)}:${line}: ${text.trim()}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('imports none of the services (they call the store, never the other way round)', () => {
    const found: string[] = [];
    for (const file of tsFiles(STORE)) {
      const specs = [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
      for (const spec of specs) {
        if (relative(SRC, resolve(dirname(file), spec)).startsWith('engine/services/')) found.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(found).toEqual([]);
  });
});
