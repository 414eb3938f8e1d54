// What the README and docs/ promise and no test checked before, through the CLI as a real process.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, TPA_BIN, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

describe('tpa settlement show of a denied encounter', () => {
  it('exits 3: it has no settlement and never will', async () => {
    const claim = (await run(['claim', 'template'])).stdout;
    const file = join(home.dir, 'claim.json');
    writeFileSync(file, claim);
    // The same claim twice on purpose (--again): the engine denies the second as a duplicate.
    for (let i = 0; i < 2; i++) expect((await run(['claim', 'submit', file, '--wait', '--again'])).code).toBe(0);
    const denied = (await run(['ledger', 'list', '--status', 'DENIED'])).json<{ results: { encounter_id: string }[] }>().results;
    expect(denied).toHaveLength(1);
    const r = await run(['settlement', 'show', denied[0]!.encounter_id, '-o', 'table']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/was denied; it has no settlement and never will/);
  });
});

describe('a reader that goes away', () => {
  it('tpa … | head: output to a closed pipe ends quietly, exit 0, nothing on stderr', async () => {
    // The read end is closed before tpa writes a byte, so every write meets EPIPE.
    const child = spawn(process.execPath, [TPA_BIN, 'ratesheet', 'catalog', '--all', '-o', 'ndjson'], {
      env: testEnv({ home: home.dir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('through a shell pipe into head, the first lines arrive and the pipeline succeeds', async () => {
    const r = spawn('bash', ['-c', `set -o pipefail; "${process.execPath}" "${TPA_BIN}" ratesheet catalog --all -o ndjson | head -n 2`], {
      env: testEnv({ home: home.dir }),
    });
    let out = '';
    let err = '';
    r.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    r.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve) => r.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.trim().split('\n')).toHaveLength(2);
    expect(JSON.parse(out.split('\n')[0]!)).toMatchObject({ code: expect.any(String) });
  });
});
