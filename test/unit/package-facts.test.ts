// What tpa takes from package.json, its one home: the version, and the oldest Node it runs on. tpa
// refuses, with a message, a Node older than "engines": SQLite's prebuilt binding crashes the
// process on Node 22.13 and older (seen with better-sqlite3 13.2.0), which no user should meet as
// a segmentation fault.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unsupportedNode, VERSION } from '../../src/cli/command-word.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; engines: { node: string } };
const engines = pkg.engines.node;

describe('the version', () => {
  it("is package.json's", () => {
    expect(VERSION).toBe(pkg.version);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('the oldest Node tpa runs on', () => {
  it('is the one package.json names', () => {
    const minimum = engines.replace(/^>=\s*/, '');
    expect(unsupportedNode(minimum)).toBeUndefined();
    expect(unsupportedNode(`${minimum}.0`)).toBeUndefined();
  });

  it('accepts newer lines and patches, refuses older ones with a way out', () => {
    for (const ok of ['22.14.0', '22.14.1', '22.23.3', '23.0.0', '24.0.0', '26.10.0', '100.0.0']) expect(unsupportedNode(ok), ok).toBeUndefined();
    for (const old of ['20.20.2', '22.12.0', '22.13.1', '21.99.99', '18.0.0']) {
      const why = unsupportedNode(old);
      expect(why, old).toContain(`this is Node.js ${old}`);
      expect(why).toContain('npx tpa');
    }
  });

  it('is the current Node for the suite itself', () => {
    expect(unsupportedNode()).toBeUndefined();
  });
});
