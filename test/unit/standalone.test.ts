// The repository stands alone: a user who clones it finds every file it links to or
// cites. Across every tracked text file: no mention of the design notes that lived outside the
// repository, no issue number where the rule itself should be said, no markdown link that leaves
// it or names a missing file or heading, and every citation of a section of docs/ (or of the
// README) names a file and a heading that exist.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folders that are built, installed or written by runs, never part of the repository. */
const NOT_OURS = new Set(['node_modules', 'dist', 'reports', '.git', '.stryker-tmp']);

/** The repository's files: git's list where there is one, else the tree without what is built. */
function repositoryFiles(): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = out.split('\0').filter((f) => f.length > 0 && existsSync(join(ROOT, f)));
    if (files.length > 0) return files;
  } catch {
    // Not a git checkout (an unpacked archive): walk the tree.
  }
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      if (NOT_OURS.has(name)) continue;
      const path = dir === '' ? name : `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk('');
  return files;
}

/** Tracked files that are text a person reads (code, docs, scripts), not lock files or binaries. */
const textFiles = repositoryFiles()
  .filter((f) => !f.endsWith('package-lock.json'))
  .map((f) => ({ path: f, text: readFileSync(join(ROOT, f), 'utf8') }))
  .filter((f) => !f.text.includes('\0'));

/** The headings of a markdown file, as written after the #s, code marks dropped. */
function headingsOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m?.[1]) found.add(m[1].replaceAll('`', ''));
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** What sits outside the repository, spelt in pieces so that this file does not mention it. */
const OUTSIDE = [`${'SPEC'}.md`, `${'DESIGN'}.md`, `${'STYLE'}.md`, `..${'/'}shared`];

describe('the repository stands alone', () => {
  it('reads a good number of tracked text files', () => {
    expect(textFiles.length).toBeGreaterThan(100);
    expect(textFiles.some((f) => f.path === 'README.md')).toBe(true);
  });

  it('no file mentions a document outside the repository', () => {
    const found: string[] = [];
    for (const { path, text } of textFiles) {
      for (const name of OUTSIDE) {
        let i = text.indexOf(name);
        while (i >= 0) {
          found.push(`${path}:${lineOf(text, i)}: ${name}`);
          i = text.indexOf(name, i + 1);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('no file names an issue number: it says the rule, not where it came from', () => {
    const found: string[] = [];
    for (const { path, text } of textFiles) {
      // Third-party files are kept as their authors wrote them.
      if (path.startsWith('test/fixtures/public/')) continue;
      for (const m of text.matchAll(/\bissues? #?\d+\b/gi)) found.push(`${path}:${lineOf(text, m.index ?? 0)}: ${m[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('every markdown link names a file inside the repository, and any heading it names exists', () => {
    const broken: string[] = [];
    for (const { path, text } of textFiles) {
      if (!path.endsWith('.md')) continue;
      const prose = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
      // A link may be followed by the section it cites: [design.md](design.md) "The engine clock".
      for (const m of prose.matchAll(/\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)(?:,?\s"([^"\n]+)")?/g)) {
        const target = m[1] ?? '';
        const section = m[2];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not a file
        const [file = '', fragment] = target.split('#');
        const where = `${path}:${lineOf(text, m.index ?? 0)}: ${target}`;
        const absolute = file === '' ? join(ROOT, path) : resolve(ROOT, dirname(path), decodeURIComponent(file));
        const inside = relative(ROOT, absolute);
        if (inside.startsWith('..') || inside.startsWith(sep) || !existsSync(absolute)) {
          broken.push(`${where} (no such file in the repository)`);
          continue;
        }
        if (!absolute.endsWith('.md')) continue;
        const headings = headingsOf(inside.split(sep).join('/'));
        if (fragment && ![...headings].map(anchorOf).includes(fragment)) broken.push(`${where} (no such heading)`);
        if (section !== undefined && !headings.has(section)) broken.push(`${where} "${section}" (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every citation of a section names a file and a heading that exist', () => {
    const broken: string[] = [];
    for (const { path, text } of textFiles) {
      // docs/<file>.md, with the section it cites when a quoted name follows; the README, likewise.
      for (const m of text.matchAll(/\b(docs\/[\w.-]+\.md)(?:,? "([^"\n]+)")?|\b(README)(?:\.md)? "([^"\n]+)"/g)) {
        const file = m[1] ?? 'README.md';
        const section = m[1] ? m[2] : m[4];
        const where = `${path}:${lineOf(text, m.index ?? 0)}: ${m[0]}`;
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (section !== undefined && !headingsOf(file).has(section)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
