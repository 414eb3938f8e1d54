// docs/security.md says, for each boundary, which test shows that it holds. This keeps it honest:
// every boundary bullet names a test file that exists, and every test name it quotes is in that file.
// The boundaries sit on the security pages security.md links to (docs/security-*.md), in that order;
// security.md itself holds the table of every claim.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = `${ROOT}docs/security.md`;
const doc = readFileSync(DOC, 'utf8');

/** The security pages security.md links to, in the order it names them. */
const PAGES = [...new Set([...doc.matchAll(/\]\((security-[\w-]+\.md)\)/g)].map((m) => m[1] ?? ''))];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A page's sections, each with its top-level bullets (a bullet runs until the next). */
function sectionsOf(page: string, text: string): { section: string; page: string; bullets: string[] }[] {
  return text
    .split(/^## /m)
    .slice(1)
    .map((s) => {
      const [title = '', ...rest] = s.split('\n');
      const body = rest.join('\n');
      // Joined into one line: a quoted test name may be wrapped.
      const bullets = body
        .split(/^- /m)
        .slice(1)
        .map((b) => b.replace(/\s*\n\s*/g, ' '));
      return { section: title.trim(), page, bullets };
    });
}

/** The boundaries: security.md's sections after "From whom", then every section of each page it links to. */
function boundaries(): { section: string; page: string; bullets: string[] }[] {
  const own = sectionsOf('security.md', doc);
  const start = own.findIndex((s) => s.section.startsWith('From whom'));
  return [...own.slice(start + 1), ...PAGES.flatMap((p) => sectionsOf(p, readFileSync(`${ROOT}docs/${p}`, 'utf8')))];
}

/** A boundary's claim: the bold words its bullet opens with. */
function claimOf(bullet: string): string | undefined {
  return /^\*\*(.+?)\*\*/.exec(bullet)?.[1];
}

/** The table of every claim: one line per boundary bullet, with the test files that back it, derived from the bullets. */
function claimTable(): string {
  const rows = boundaries().flatMap(({ section, page, bullets }) =>
    bullets.map((b) => {
      const files = [...new Set([...b.matchAll(/test\/[\w./-]+\.test\.ts/g)].map((m) => `\`${m[0]}\``))];
      const where = page === 'security.md' ? section : `[${section}](${page}#${anchorOf(section)})`;
      return `| ${claimOf(b) ?? ''} | ${where} | ${files.join(', ')} |`;
    }),
  );
  return ['| Claim | Section | Backed by |', '| --- | --- | --- |', ...rows].join('\n');
}

/** A table as its cells: the formatter pads cells and separators to the widest. */
function cells(text: string): string {
  return text
    .split('\n')
    .map((l) =>
      l.startsWith('|')
        ? l
            .split('|')
            .map((c) => c.trim().replace(/^-+$/, '---'))
            .join('|')
        : l,
    )
    .join('\n');
}

const TABLE_START = '<!-- claims: derived from the bullets below by test/unit/security-doc.test.ts -->';
const TABLE_END = '<!-- end of claims -->';

describe('docs/security.md', () => {
  it('links every security page, and each exists', () => {
    const onDisk = readdirSync(`${ROOT}docs`).filter((f) => /^security-[\w-]+\.md$/.test(f));
    expect([...PAGES].sort()).toEqual(onDisk.sort());
    expect(PAGES.length).toBeGreaterThan(0);
  });

  it('every boundary opens with its claim in bold, and no claim is made twice', () => {
    const claims = boundaries().flatMap(({ section, bullets }) =>
      bullets.map((b) => {
        const claim = claimOf(b);
        expect(claim, `${section}: ${b.slice(0, 80)}`).toBeTruthy();
        return claim;
      }),
    );
    expect(new Set(claims).size).toBe(claims.length);
  });

  it('the table at the top has one line per claim, with the tests that back it', () => {
    const start = doc.indexOf(TABLE_START);
    const end = doc.indexOf(TABLE_END);
    expect(start, 'the table markers').toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const expected = `${TABLE_START}\n\n${claimTable()}\n\n${TABLE_END}`;
    // After adding or changing a boundary: TPA_WRITE_SECURITY_TABLE=1 rewrites the table (then `npm run
    // format` pads it), to be reviewed in the diff.
    if (process.env.TPA_WRITE_SECURITY_TABLE === '1') writeFileSync(DOC, `${doc.slice(0, start)}${expected}${doc.slice(end + TABLE_END.length)}`);
    else
      expect(cells(doc.slice(start, end + TABLE_END.length)), 'run TPA_WRITE_SECURITY_TABLE=1 npx vitest run test/unit/security-doc.test.ts').toBe(
        cells(expected),
      );
  });

  it('every section names at least one boundary', () => {
    for (const { section, bullets } of boundaries()) expect(bullets.length, section).toBeGreaterThan(0);
  });

  it('every boundary names a test file that exists', () => {
    for (const { section, bullets } of boundaries()) {
      for (const b of bullets) {
        const files = [...b.matchAll(/test\/[\w./-]+\.test\.ts/g)].map((m) => m[0]);
        expect(files.length, `${section}: ${b.slice(0, 80)}`).toBeGreaterThan(0);
        for (const f of files) expect(existsSync(`${ROOT}${f}`), f).toBe(true);
      }
    }
  });

  it('every test name it quotes is in the file it names', () => {
    for (const { bullets } of boundaries()) {
      for (const b of bullets) {
        // "file.test.ts" then one or more quoted names: each name is in the last file named before it.
        const pieces = [...b.matchAll(/(test\/[\w./-]+\.test\.ts)|[“"]([^”"]{8,})[”"]/g)];
        let file: string | undefined;
        for (const p of pieces) {
          if (p[1]) file = p[1];
          else if (file && p[2]) {
            // A name quoted in part ("… a 409") is each of its parts; the file's own apostrophes may
            // be typographic, and the doc may set a word of the name as code.
            const text = readFileSync(`${ROOT}${file}`, 'utf8').replaceAll('’', "'");
            for (const part of p[2]
              .replaceAll('’', "'")
              .replaceAll('`', '')
              .split('…')
              .map((x) => x.trim())
              .filter((x) => x.length > 0))
              expect(text, `${file}: ${p[2]}`).toContain(part);
          }
        }
      }
    }
  });
});
