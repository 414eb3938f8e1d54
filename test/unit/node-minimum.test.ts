// tpa refuses, with a message, a Node older than package.json's "engines": SQLite's prebuilt binding
// crashes the process on Node 22.13 and older (seen with better-sqlite3 13.2.0), which no user
// should meet as a segmentation fault.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../src/cli/command-word.js';

const engines = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node as string;

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
