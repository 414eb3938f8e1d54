// The commands tpa suggests are pasted into a POSIX shell: each word must come back as it was.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { givenArgs, suggestCommand } from '../../src/cli/options.js';
import { shellQuote } from '../../src/render/shell.js';

describe('shellQuote', () => {
  it('leaves plain words alone and quotes the rest so that sh reads them back unchanged', () => {
    expect(['tpa', 'ledger', 'list', '--from', '2026-01-01', '--npi', '1234567893'].map(shellQuote).join(' ')).toBe(
      'tpa ledger list --from 2026-01-01 --npi 1234567893',
    );
    const words = ['', 'a b', "Bob's runs/run 1.ndjson", '$HOME', '`id`', '~/x', '*', 'a\nb', '"q"', 'semi;colon', '!bang'];
    for (const w of words) expect(shellQuote(w)).not.toBe(w);
    // sh prints each argument on its own line, NUL-separated: the words as given.
    const out = execFileSync('sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(words);
  });
});

describe('suggestCommand and givenArgs', () => {
  it('adds -p only for a named profile, shows placeholders as they are, and reproduces the options given on the line', () => {
    expect(suggestCommand({ profileName: 'local', profileExplicit: false }, ['fund', 'run', undefined, false, '--npi', '1'])).toBe('tpa fund run --npi 1');
    expect(suggestCommand({ profileName: 'sandbox', profileExplicit: true }, ['fund', 'approve', { placeholder: 'encounter_id' }])).toBe(
      'tpa fund approve <encounter_id> -p sandbox',
    );
    const options = [
      { attributeName: () => 'from', long: '--from' },
      { attributeName: () => 'status', long: '--status' },
      { attributeName: () => 'all', long: '--all' },
      { attributeName: () => 'cpt', long: '--cpt' },
      { attributeName: () => 'offset', long: '--offset' },
    ];
    const values: Record<string, unknown> = { from: '2026-01-01', status: 'FUNDED', all: true, cpt: ['1', '2'], offset: '20' };
    const sources: Record<string, string> = { from: 'cli', status: 'default', all: 'cli', cpt: 'cli', offset: 'cli' };
    const cmd = { options, getOptionValue: (k: string) => values[k], getOptionValueSource: (k: string) => sources[k] } as unknown as Parameters<
      typeof givenArgs
    >[0];
    expect(givenArgs(cmd, ['offset'])).toEqual(['--from', '2026-01-01', '--all', '--cpt', '1', '--cpt', '2']);
  });
});
