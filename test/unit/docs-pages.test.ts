// The docs stay readable: no page of docs/ passes 50 KB (a longer one is split by subject),
// docs/design.md opens with the architecture on one screen, and its list of pages names every page.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** 50 KB: the most a docs page may weigh. */
const MAX_PAGE_BYTES = 51_200;

/** One screen: the lines docs/design.md may take before its first section, and their width. */
const SCREEN_LINES = 45;
const SCREEN_COLUMNS = 100;

/** The markdown pages of a folder that weigh more than the limit, each with its size. */
function pagesOver(dir: string, limit: number): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => ({ f, bytes: statSync(join(dir, f)).size }))
    .filter(({ bytes }) => bytes > limit)
    .map(({ f, bytes }) => `${f}: ${bytes} bytes`);
}

/** What a page says before its first `## ` section, outside code fences or in them. */
function opening(text: string): string[] {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => l.startsWith('## '));
  return lines.slice(0, first < 0 ? lines.length : first);
}

describe('the docs pages', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tpa-docs-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the size check finds a page of one byte over 50 KB, and lets one of exactly 50 KB pass', () => {
    writeFileSync(join(scratch, 'big.md'), `# Big\n\n${'x'.repeat(MAX_PAGE_BYTES - 7)}\n`); // 51,201 bytes
    writeFileSync(join(scratch, 'fits.md'), `# Fits\n\n${'x'.repeat(MAX_PAGE_BYTES - 9)}\n`); // 51,200 bytes
    expect(statSync(join(scratch, 'big.md')).size).toBe(MAX_PAGE_BYTES + 1);
    expect(pagesOver(scratch, MAX_PAGE_BYTES)).toEqual([`big.md: ${MAX_PAGE_BYTES + 1} bytes`]);
  });

  it('no page of docs/ passes 50 KB (split a longer one by subject)', () => {
    expect(readdirSync(DOCS).filter((f) => f.endsWith('.md')).length).toBeGreaterThan(10);
    expect(pagesOver(DOCS, MAX_PAGE_BYTES)).toEqual([]);
  });

  it('docs/design.md opens with the architecture on one screen: 45 lines of 100 columns', () => {
    const top = opening(readFileSync(join(DOCS, 'design.md'), 'utf8'));
    expect(top.length).toBeLessThanOrEqual(SCREEN_LINES);
    expect(top.filter((l) => [...l].length > SCREEN_COLUMNS)).toEqual([]);
    // The diagram names the folder of every layer.
    const text = top.join('\n');
    for (const folder of ['src/cli/', 'src/jobs/', 'src/client/', 'src/server/', 'src/engine/', 'src/engine/store/', 'src/domain/', 'src/render/'])
      expect(text, folder).toContain(folder);
  });

  it("docs/design.md's list of pages names every other page of docs/", () => {
    const text = readFileSync(join(DOCS, 'design.md'), 'utf8');
    const start = text.indexOf('## The docs pages\n');
    expect(start).toBeGreaterThan(-1);
    const list = text.slice(start, text.indexOf('\n## ', start + 1));
    const linked = new Set([...list.matchAll(/\]\(([\w.-]+)\)/g)].map((m) => m[1]));
    const missing = readdirSync(DOCS).filter((f) => f !== 'design.md' && (f.endsWith('.md') || f.endsWith('.yaml')) && !linked.has(f));
    expect(missing).toEqual([]);
  });
});
