// One claim is exactly-once too. The same content submitted again (the same file,
// a re-indented copy, the template piped twice) is refused with exit 4 naming the earlier
// submission, unless --again; on a terminal it is asked (default no), at 80×30 and 120×40.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { ENTER, ptyRun, SIZES, screenAtStep } from '../../helpers/pty.js';

const home = useTpaHome(beforeEach, afterEach);
const run = (args: string[], input?: string) => home.run(args, {}, input);

async function template(): Promise<string> {
  const t = await run(['claim', 'template']);
  expect(t.code, t.stderr).toBe(0);
  const file = join(home.dir, 'claim.json');
  writeFileSync(file, t.stdout);
  return file;
}

async function ledgerCount(): Promise<number> {
  const r = await run(['ledger', 'list', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ count: number }>().count;
}

describe('tpa claim submit, one claim twice', () => {
  it('refuses the same claim again with exit 4 naming the earlier submission and its time; --again sends it as a new claim', async () => {
    const file = await template();
    const first = await run(['claim', 'submit', file, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const ack = first.json<{ submission_id: string }>();
    const again = await run(['claim', 'submit', file, '-o', 'json']);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(ack.submission_id);
    expect(again.stderr).toMatch(/submitted before[\s\S]* on \d{4}-\d\d-\d\dT/);
    expect(again.stderr).toContain('--again');
    expect(await ledgerCount()).toBe(1);
    // --yes confirms actions; it does not send a claim twice.
    expect((await run(['claim', 'submit', file, '--yes'])).code).toBe(4);
    const forced = await run(['claim', 'submit', file, '--again', '-o', 'json']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.json<{ submission_id: string }>().submission_id).not.toBe(ack.submission_id);
    expect(await ledgerCount()).toBe(2);
    // Asked again afterwards, the refusal names the latest one.
    const third = await run(['claim', 'submit', file]);
    expect(third.code).toBe(4);
    expect(third.stderr).toContain(forced.json<{ submission_id: string }>().submission_id);
  });

  it('forgets what was sent to a database that local reset deleted: the same claim goes to the new one', async () => {
    const file = await template();
    expect((await run(['claim', 'submit', file])).code).toBe(0);
    expect((await run(['claim', 'submit', file])).code).toBe(4);
    expect((await run(['local', 'reset', '--yes'])).code).toBe(0);
    const after = await run(['claim', 'submit', file, '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(await ledgerCount()).toBe(1);
  });

  it('knows the claim by its content: a re-indented copy and the same text on stdin are the same claim; another claim is not', async () => {
    const file = await template();
    expect((await run(['claim', 'submit', '-'], readFileSync(file, 'utf8'))).code).toBe(0);
    const copy = join(home.dir, 'copy.json');
    writeFileSync(copy, JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))));
    expect((await run(['claim', 'submit', copy])).code).toBe(4);
    const other = JSON.parse(readFileSync(file, 'utf8'));
    other.patient.reference = 'Patient/MBR-1001';
    writeFileSync(copy, JSON.stringify(other));
    const r = await run(['claim', 'submit', copy]);
    expect(r.code, r.stderr).toBe(0);
    expect(await ledgerCount()).toBe(2);
  });

  it('keeps one claim in a journal as a batch keeps its claims: an answer lost is found in the ledger, not sent again', async () => {
    const file = await template();
    const first = await run(['claim', 'submit', file, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    // The answer lost (a process killed after sending): the journal keeps the announcement only.
    const { readdirSync } = await import('node:fs');
    const dir = join(home.dir, 'journals');
    const name = readdirSync(dir).find((n) => n.startsWith('single-'));
    expect(name).toBeDefined();
    const path = join(dir, name!);
    const kept = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && JSON.parse(l).type !== 'acknowledged');
    writeFileSync(path, `${kept.join('\n')}\n`);
    const r = await run(['claim', 'submit', file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/found in the ledger/);
    expect(r.json()).toMatchObject({ submission_id: first.json<{ submission_id: string }>().submission_id });
    expect(await ledgerCount()).toBe(1);
  });
});

describe('tpa claim submit, one claim twice, on a terminal', () => {
  for (const { cols, rows } of SIZES) {
    it(`asks before sending the same claim again (default no) at ${cols}x${rows}`, async () => {
      const file = await template();
      const first = await run(['claim', 'submit', file, '-o', 'json']);
      expect(first.code, first.stderr).toBe(0);
      const ack = first.json<{ submission_id: string }>();
      const question = 'Send it again as a new claim';
      const no = await ptyRun(['claim', 'submit', file], [{ expect: question, send: ENTER }], { home: home.dir, cols, rows });
      expect(no.error, no.output).toBeNull();
      expect(no.exit_code).toBe(4);
      const screen = (await screenAtStep(no, 0, cols, rows)).join('\n');
      expect(screen).toContain(ack.submission_id);
      expect(screen).toMatch(/\(y\/N\)/);
      expect(await ledgerCount()).toBe(1);
      const yes = await ptyRun(['claim', 'submit', file], [{ expect: question, send: `y${ENTER}` }, { expect: 'Submission' }], { home: home.dir, cols, rows });
      expect(yes.error, yes.output).toBeNull();
      expect(yes.exit_code).toBe(0);
      expect(await ledgerCount()).toBe(2);
    });
  }
});
