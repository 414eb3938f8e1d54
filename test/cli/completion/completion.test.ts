import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_STATUSES } from '../../../src/domain/ledger.js';
import { runTpa, useTpaHome } from '../../helpers/cli.js';

const dir = fileURLToPath(new URL('../../../completions/', import.meta.url));
const home = useTpaHome(beforeAll, afterAll);

/** What bash completes for a command line (the last word being completed), with the script sourced. */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `source ${JSON.stringify(`${dir}tpa.bash`)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tpa; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

describe('shell completions', () => {
  it('the scripts in completions/ are those the command tree generates now (run `npm run completions` after changing commands)', async () => {
    for (const [shell, file] of [
      ['bash', 'tpa.bash'],
      ['zsh', '_tpa'],
      ['fish', 'tpa.fish'],
    ] as const) {
      const r = await runTpa(['completion', shell], { home: home.dir });
      expect(r.code).toBe(0);
      expect(r.stdout, `completions/${file} is stale`).toBe(readFileSync(`${dir}${file}`, 'utf8'));
    }
  });

  it('bash completes commands, subcommands, options and their values', () => {
    expect(complete('tpa led')).toEqual(['ledger']);
    expect(complete('tpa ledger ')).toEqual(['list', 'show', 'eob']);
    expect(complete('tpa ledger eob --f')).toEqual(['--force']);
    expect(complete('tpa ledger list --status ')).toEqual([...LEDGER_STATUSES]);
    expect(complete('tpa ledger list --status FU')).toEqual(['FUNDED']);
    expect(complete('tpa ledger list --st')).toEqual(['--status']);
    expect(complete('tpa -o json ledger list --li')).toEqual(['--limit']);
    expect(complete('tpa ratesheet add BLD-1001 --rate-type ')).toEqual(['CASE_RATE', 'PERCENT_MEDICARE']);
    expect(complete('tpa local simulate ')).toEqual(['settlement-failure', 'refund', 'aeob-variance', 'missing-aeob']);
    expect(complete('tpa -o ')).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(complete('tpa claim submit --timeout ')).toEqual([]);
  });

  it('fish completes from the same tree', () => {
    const fish = readFileSync(`${dir}tpa.fish`, 'utf8');
    expect(fish).toContain("complete -c tpa -n '__fish_use_subcommand' -a ledger");
    expect(fish).toContain(`-l status -x -a '${LEDGER_STATUSES.join(' ')}'`);
  });
});
