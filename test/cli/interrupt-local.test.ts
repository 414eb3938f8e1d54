// Ctrl-C and kill -INT stop a long job on the default profile (the embedded engine, whose SQLite
// answers synchronously) at once, with exit 130 and the command that continues it, as over `tpa
// local serve`; the same command then ends with everything done once. Each job is held in the
// middle of its work, without a turn of the event loop (test/helpers/hold-hook.mjs), while the
// signal arrives: whether it then stops, rather than finishing first, is what is tested.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/barrier.js';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa, TPA_BIN, testEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { journalRecords } from '../helpers/kill.js';
import { CTRL_C, ptyRun } from '../helpers/pty.js';
import { ndjson } from '../helpers/values.js';

const HOOK = fileURLToPath(new URL('../helpers/hold-hook.mjs', import.meta.url));
const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const N = 40;

let home: string;
let cleanup: () => void;
let hold: string;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
  hold = join(home, 'hold');
  mkdirSync(hold);
});
afterEach(() => cleanup());

/** The environment of a held process: the hook preloaded, held before its fifth write. */
const held = () => ({ ...env, NODE_OPTIONS: `--import=${HOOK}`, TPA_TEST_HOLD_DIR: hold });

/** `n` distinct claims, one file each, in a folder. */
function claimFolder(n: number): string {
  const dir = join(home, 'claims');
  mkdirSync(dir);
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `c${String(i).padStart(3, '0')}.json`), JSON.stringify(distinctClaim(i)));
  return dir;
}

async function adjudicated(n: number): Promise<{ count: number; total: string }> {
  const r = await runTpa(['claim', 'submit', claimFolder(n), '-o', 'ndjson'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  const review = await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env });
  expect(review.code, review.stderr).toBe(0);
  return review.json();
}

async function ledger(status?: string): Promise<Record<string, any>[]> {
  const r = await runTpa(['ledger', 'list', '--all', ...(status ? ['--status', status] : []), '-o', 'ndjson'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout);
}

function runJournal(): string {
  const name = readdirSync(join(home, 'journals')).find((f) => f.startsWith('fund-run-'));
  expect(name).toBeDefined();
  return join(home, 'journals', name!);
}

/** A stopped run's journal agrees with the ledger: what it records approved is funded, nothing else is. */
async function consistent(journal: string): Promise<number> {
  const records = readFileSync(journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const outcomes = records.filter((r) => r.type === 'outcome');
  // Stopped between approvals: none announced as sending and left unanswered (the signal is acted on
  // before the next approval is announced, not after).
  const answered = new Set(outcomes.map((r) => r.encounter_id));
  expect(records.filter((r) => r.type === 'sending' && !answered.has(r.encounter_id))).toEqual([]);
  expect(outcomes.every((r) => r.outcome.status === 'APPROVED')).toBe(true);
  const funded = (await ledger('FUNDED')).map((e) => e.encounter_id).sort();
  expect(funded).toEqual(outcomes.map((r) => r.encounter_id).sort());
  return outcomes.length;
}

describe.each([
  { cols: 80, rows: 24 },
  { cols: 120, rows: 40 },
])('Ctrl-C on the default profile, at $cols×$rows', ({ cols, rows }) => {
  it('stops tpa fund run at once (exit 130) with the command that continues it; that command funds the rest, each once', async () => {
    const { count, total } = await adjudicated(N);
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-INT', '--expect-total', String(total), '--yes'];
    const go = join(hold, 'go');
    // Held in its fifth write; Ctrl-C, seen echoed (the signal was sent), then let go.
    const r = await ptyRun(
      args,
      [
        { expect: 'tpa-test: held', send: CTRL_C },
        { expect: '^C', touch: go },
      ],
      { home, env: held(), cols, rows },
    );
    expect(r.error, r.output).toBeNull();
    expect(r.exit_code, r.output).toBe(130);
    const journal = runJournal();
    const approved = await consistent(journal);
    // The command may be broken over lines with a shell's " \" at 80 columns: it runs as printed.
    expect(r.output.replace(/ \\\n\s*/g, ' ').replace(/\s+/g, ' ')).toContain(
      `interrupted after ${approved} of ${count} approvals: the journal says what was approved; continue with: tpa fund run --journal ${journal}`,
    );
    // Nothing is drawn after the note: the progress line (and its time left) is gone.
    expect(r.output.trimEnd().endsWith(journal), r.output).toBe(true);
    expect(approved).toBeGreaterThan(0);
    expect(approved).toBeLessThan(count);

    const again = await runTpa(['fund', 'run', '--journal', journal, '--yes', '-o', 'ndjson'], { home, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${count - approved} of ${count} approvals left`);
    expect(ndjson(again.stdout).map((o) => o.status)).toEqual(Array(count).fill('APPROVED'));
    const funded = await ledger('FUNDED');
    expect(funded).toHaveLength(count);
    expect(new Set(funded.map((e) => e.encounter_id)).size).toBe(count);
  });

  it('stops a claim batch (a folder) at once (exit 130); the same command sends the rest, each claim once', async () => {
    const dir = claimFolder(N);
    const go = join(hold, 'go');
    const r = await ptyRun(
      ['claim', 'submit', dir],
      [
        { expect: 'tpa-test: held', send: CTRL_C },
        { expect: '^C', touch: go },
      ],
      {
        home,
        env: held(),
        cols,
        rows,
      },
    );
    expect(r.error, r.output).toBeNull();
    expect(r.exit_code, r.output).toBe(130);
    expect(r.output.replace(/\s+/g, ' ')).toMatch(/interrupted: the journal \S+ says what was sent; run the same command again to continue/);
    const journal = join(home, 'journals', readdirSync(join(home, 'journals')).find((f) => f.startsWith('claims-'))!);
    const sent = (await ledger()).length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(N);
    expect(journalRecords(journal, 'acknowledged')).toBe(sent);

    const again = await runTpa(['claim', 'submit', dir, '-o', 'ndjson'], { home, env });
    expect(again.code, again.stderr).toBe(0);
    const entries = await ledger();
    expect(entries).toHaveLength(N);
    expect(new Set(entries.map((e) => e.encounter_id)).size).toBe(N);
    expect(journalRecords(journal, 'acknowledged')).toBe(N);
  });
});

it('kill -INT stops tpa fund run on the default profile at once (exit 130); the printed command continues it', async () => {
  const { count, total } = await adjudicated(N);
  const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-KIL', '--expect-total', String(total), '--yes', '-o', 'ndjson'];
  const child = spawn(process.execPath, [TPA_BIN, ...args], { env: testEnv({ home, env: held() }), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  await until(() => readdirSync(hold).some((f) => f.startsWith('held-')));
  // The signal is pending from here on; the job goes on only once it is let go.
  child.kill('SIGINT');
  writeFileSync(join(hold, 'go'), '');
  expect(await exited, stderr).toBe(130);
  const resume = /continue with: (tpa fund run --journal \S+)/.exec(stderr.replace(/\s+/g, ' '));
  expect(resume, stderr).not.toBeNull();
  const approved = await consistent(runJournal());
  expect(ndjson(stdout)).toHaveLength(approved);
  expect(approved).toBeLessThan(count);

  const again = await runTpa([...resume![1]!.split(' ').slice(1), '--yes', '-o', 'ndjson'], { home, env });
  expect(again.code, again.stderr).toBe(0);
  expect(await ledger('FUNDED')).toHaveLength(count);
});

it('kill -INT stops a claim batch on the default profile at once (exit 130); the same command sends the rest, each once', async () => {
  const dir = claimFolder(N);
  const args = ['claim', 'submit', dir, '-o', 'ndjson'];
  const child = spawn(process.execPath, [TPA_BIN, ...args], { env: testEnv({ home, env: held() }), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  await until(() => readdirSync(hold).some((f) => f.startsWith('held-')));
  child.kill('SIGINT');
  writeFileSync(join(hold, 'go'), '');
  expect(await exited, stderr).toBe(130);
  expect(stderr).toContain('interrupted: the journal');
  const sent = (await ledger()).length;
  expect(sent).toBeLessThan(N);

  const again = await runTpa(args, { home, env });
  expect(again.code, again.stderr).toBe(0);
  const entries = await ledger();
  expect(entries).toHaveLength(N);
  expect(new Set(entries.map((e) => e.encounter_id)).size).toBe(N);
});
