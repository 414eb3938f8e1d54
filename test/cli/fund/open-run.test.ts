// An interrupted payment run is never silently shadowed by a new one: `tpa fund run` finds the open
// run of its profile and offers it (continue, close, quit) on a terminal, or refuses without one
// (exit 4, nothing sent) naming the command that continues it and the one that closes it; `tpa
// jobs close` closes it for good, sending nothing. Runs are interrupted for real: a process held
// in the middle of its approvals (test/helpers/hold-hook.mjs) gets SIGINT.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatCentsGrouped } from '../../../src/domain/money.js';
import { until } from '../../helpers/barrier.js';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa, TPA_BIN, testEnv } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { serve } from '../../helpers/server.js';
import { CTRL_C, ENTER, ptyRun, screenAtStep } from '../../helpers/pty.js';
import { cents, ndjson } from '../../helpers/values.js';

const HOOK = fileURLToPath(new URL('../../helpers/hold-hook.mjs', import.meta.url));
const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const N = 30;
const DOWN = '\x1b[B';

let home: string;
let cleanup: () => void;
beforeEach(async () => {
  ({ dir: home, remove: cleanup } = tempDir());
  const file = join(home, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: N }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const r = await runTpa(['claim', 'submit', file, '-o', 'ndjson'], { home, env });
  expect(r.code, r.stderr).toBe(0);
});
afterEach(() => cleanup());

async function review(): Promise<{ count: number; total: string }> {
  const r = await runTpa(['fund', 'run', '--dry-run', '-o', 'json', '-p', 'local'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

async function funded(): Promise<string[]> {
  const r = await runTpa(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson', '-p', 'local'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout).map((e) => e.encounter_id as string);
}

interface Started {
  pid: number;
  exited: Promise<number | null>;
  hold: string;
  stderr: () => string;
}

/** `tpa fund run` under `prefix` as a process, held in the middle of its approvals. */
async function startHeld(prefix: string): Promise<Started> {
  const { total } = await review();
  const hold = join(home, `hold-${prefix}`);
  mkdirSync(hold);
  const args = ['fund', 'run', '--auth-code-prefix', prefix, '--expect-total', String(total), '--yes', '-o', 'ndjson'];
  const child = spawn(process.execPath, [TPA_BIN, ...args], {
    env: testEnv({ home, env: { ...env, NODE_OPTIONS: `--import=${HOOK}`, TPA_TEST_HOLD_DIR: hold } }),
    cwd: home,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  await until(() => readdirSync(hold).some((f) => f.startsWith('held-')));
  return { pid: child.pid!, exited, hold, stderr: () => stderr };
}

/** Ctrl-C (SIGINT) to a held run, then let go: it stops with exit 130. */
async function interrupt(run: Started): Promise<void> {
  process.kill(run.pid, 'SIGINT');
  writeFileSync(join(run.hold, 'go'), '');
  expect(await run.exited, run.stderr()).toBe(130);
}

/**
 * A run under `prefix` interrupted after some of its approvals: its journal, id, and how many are
 * left. `kill`: killed (SIGKILL) while the engine writes an approval, so that one is left announced
 * and never answered, as a crash or a lost connection leaves it (Ctrl-C stops between approvals).
 */
async function interruptedRun(
  prefix: string,
  how: 'ctrl-c' | 'kill' = 'ctrl-c',
): Promise<{ journal: string; id: string; left: number; count: number; leftCents: number }> {
  const run = await startHeld(prefix);
  if (how === 'kill') {
    process.kill(run.pid, 'SIGKILL');
    await run.exited;
  } else await interrupt(run);
  const name = readdirSync(join(home, 'journals')).find((f) => f.startsWith(`fund-run-${prefix}-`))!;
  const journal = join(home, 'journals', name);
  const records = readFileSync(journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const plan = records[0].plan as { encounters: { encounter_id: string; amount_cents: number }[] };
  const done = new Set(records.filter((r) => r.type === 'outcome').map((r) => r.encounter_id));
  const left = plan.encounters.filter((e) => !done.has(e.encounter_id));
  expect(left.length).toBeGreaterThan(0);
  expect(left.length).toBeLessThan(plan.encounters.length);
  return {
    journal,
    id: name.replace(/\.ndjson$/, ''),
    left: left.length,
    count: plan.encounters.length,
    leftCents: left.reduce((n, e) => n + e.amount_cents, 0),
  };
}

describe('an open payment run, without a terminal', () => {
  it('a new run is refused (exit 4, nothing sent), naming the command that continues the open run and the one that closes it; the first runs as printed', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const before = await funded();
    // What a new run would select now: a script's --expect-total of it would otherwise be met.
    const { total } = await review();
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-B', '--expect-total', String(total), '--yes', '-o', 'table'], { home, env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('a payment run of this profile is open, and a new run would leave it open: nothing was sent.');
    expect(r.stderr).toContain(
      `AUTH-20260630-A: ${open.left} of ${open.count} approvals left (${formatCentsGrouped(open.leftCents)} of ${formatCentsGrouped(
        cents((await runTpa(['jobs', 'show', open.id, '-o', 'json'], { home, env })).json<{ total_amount: number }>().total_amount),
      )}), confirmed 20`,
    );
    expect(r.stderr).toContain(`continue it: tpa fund run --journal ${open.journal} --yes`);
    expect(r.stderr).toContain(`tpa jobs close ${open.id}`);
    expect(await funded()).toEqual(before);
    expect(readdirSync(join(home, 'journals')).some((f) => f.startsWith('fund-run-AUTH-20260630-B'))).toBe(false);

    const again = await runTpa(['fund', 'run', '--journal', open.journal, '--yes', '-o', 'ndjson'], { home, env });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout)).toHaveLength(open.count);
    expect(new Set(await funded()).size).toBe(open.count);
  });

  it('tpa jobs close records the run closed (when, by whom, the approvals not sent) and sends nothing; it is listed closed, never continued; a new run then goes ahead', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const before = await funded();
    const shownOpen = await runTpa(['jobs', 'show', open.id], { home, env, tty: true, columns: 120 });
    expect(shownOpen.stdout).toContain(`or close the run for good, sending nothing: tpa jobs close ${open.id}`);
    const closed = await runTpa(['jobs', 'close', open.id, '-o', 'json'], { home, env });
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stderr).toContain(`closed the payment run AUTH-20260630-A: ${open.left} of ${open.count} approvals (${formatCentsGrouped(open.leftCents)}`);
    expect(closed.json<{ not_sent: string[] }>().not_sent).toHaveLength(open.left);
    // Nothing sent: the approval the interruption left unanswered was settled from the ledger, not sent.
    expect(await funded()).toEqual(before);
    const record = readFileSync(open.journal, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'closed');
    expect(record.by).toMatch(/@.+ \(profile local\)$/);
    expect(record.not_sent).toHaveLength(open.left);

    const jobs = (await runTpa(['jobs', '-o', 'json'], { home, env })).json<Record<string, any>[]>();
    const job = jobs.find((j) => j.id === open.id)!;
    expect(job).toMatchObject({ state: 'closed', pending: 0, done: open.count - open.left });
    const shown = (await runTpa(['jobs', 'show', open.id, '-o', 'json'], { home, env })).json<Record<string, any>>();
    expect(shown).toMatchObject({ state: 'closed', closed_at: record.at, closed_by: record.by });
    expect(shown.items.filter((i: { status: string }) => i.status === 'CLOSED')).toHaveLength(open.left);
    const text = await runTpa(['jobs', 'show', open.id], { home, env, tty: true, columns: 120 });
    expect(text.stdout).toContain(`closed by ${record.by} at ${record.at}: the approvals left were not sent`);
    expect(text.stdout).not.toContain('run the same command again');

    const resumed = await runTpa(['fund', 'run', '--journal', open.journal, '--yes'], { home, env });
    expect(resumed.code).toBe(4);
    expect(resumed.stderr).toContain('was closed');
    expect(resumed.stderr).toContain('Nothing was sent');
    const twice = await runTpa(['jobs', 'close', open.id], { home, env });
    expect(twice.code).toBe(4);
    expect(twice.stderr).toContain(`the payment run AUTH-20260630-A in ${open.journal} was closed (${record.at}, by ${record.by})`);
    expect(await funded()).toEqual(before);

    const { total, count } = await review();
    expect(count).toBe(open.left);
    const fresh = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-B', '--expect-total', String(total), '--yes', '-o', 'ndjson'], {
      home,
      env,
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(new Set(await funded()).size).toBe(open.count);
  });

  it('closing settles the approval that was in flight from the ledger: one that happened is recorded APPROVED, never listed as not sent', async () => {
    const { count, total } = await review();
    // The first approval is processed at once and answered a minute later (TPA_FAULT late): the
    // run is killed once the ledger shows it funded, before its answer reached the journal.
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-LATE', '--expect-total', String(total), '--yes', '-o', 'ndjson'];
    const child = spawn(process.execPath, [TPA_BIN, ...args], {
      env: testEnv({ home, env: { ...env, TPA_FAULT: 'late-60000:/funding/approve/' } }),
      cwd: home,
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.on('exit', r));
    while ((await funded()).length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    const [first] = await funded();
    const id = readdirSync(join(home, 'journals'))
      .find((f) => f.startsWith('fund-run-AUTH-20260630-LATE-'))!
      .replace(/\.ndjson$/, '');

    const closed = await runTpa(['jobs', 'close', id, '-o', 'json'], { home, env });
    expect(closed.code, closed.stderr).toBe(0);
    const notSent = closed.json<{ not_sent: string[] }>().not_sent;
    expect(notSent).toHaveLength(count - 1);
    expect(notSent).not.toContain(first);
    const items = (await runTpa(['jobs', 'show', id, '-o', 'json'], { home, env })).json<{ items: Record<string, any>[] }>().items;
    expect(items.find((i) => i.source === first)).toMatchObject({ status: 'DONE', detail: 'APPROVED' });
    expect(await funded()).toEqual([first]);
    // This machine's history no longer holds it UNKNOWN: the ledger said it happened.
    const history = ndjson((await runTpa(['fund', 'history', '-o', 'ndjson', '-p', 'local'], { home, env })).stdout);
    expect(history.find((h) => h.authorization_code === 'AUTH-20260630-LATE-0001')).toMatchObject({ outcome: 'APPROVED' });
  });

  it('a run whose plan no longer matches its seal cannot be continued, but is closed all the same (closing sends nothing), and no longer holds up a new run', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const lines = readFileSync(open.journal, 'utf8').split('\n');
    const first = JSON.parse(lines[0]!);
    first.plan.encounters.at(-1).amount_cents += 100;
    lines[0] = JSON.stringify(first);
    writeFileSync(open.journal, lines.join('\n'));
    const before = await funded();

    const resumed = await runTpa(['fund', 'run', '--journal', open.journal, '--yes'], { home, env });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('its plan no longer matches the one confirmed');
    const closed = await runTpa(['jobs', 'close', open.id], { home, env });
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stderr).toContain('cannot be checked against its seal (its plan no longer matches the one confirmed');
    expect(closed.stderr).toContain(`closed the payment run AUTH-20260630-A: ${open.left} of ${open.count} approvals`);
    expect((await runTpa(['jobs', '-o', 'json'], { home, env })).json<Record<string, any>[]>().find((j) => j.id === open.id)!.state).toBe('closed');
    expect(await funded()).toEqual(before);

    const { total } = await review();
    const fresh = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-B', '--expect-total', String(total), '--yes', '-o', 'ndjson'], {
      home,
      env,
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(new Set(await funded()).size).toBe(open.count);
  });

  it('two open runs are both listed, each with its two commands', async () => {
    // Two runs at once (the first still running when the second begins), both interrupted.
    const a = await startHeld('AUTH-20260630-A');
    const b = await startHeld('AUTH-20260630-B');
    await interrupt(a);
    await interrupt(b);
    const before = await funded();
    const { total } = await review();
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-C', '--expect-total', String(total), '--yes'], { home, env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('2 payment runs of this profile are open');
    for (const prefix of ['AUTH-20260630-A', 'AUTH-20260630-B']) {
      const id = readdirSync(join(home, 'journals'))
        .find((f) => f.startsWith(`fund-run-${prefix}-`))!
        .replace(/\.ndjson$/, '');
      expect(r.stderr).toContain(`${prefix}: `);
      expect(r.stderr).toContain(`tpa fund run --journal ${join(home, 'journals', `${id}.ndjson`)} --yes`);
      expect(r.stderr).toContain(`tpa jobs close ${id}`);
    }
    expect(await funded()).toEqual(before);
  });

  it('--dry-run is unaffected (it never sends) and mentions the open run', async () => {
    await interruptedRun('AUTH-20260630-A');
    const r = await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('a payment run of this profile is open (AUTH-20260630-A)');
  });

  it('a run records the profile (and base URL) its approvals go to and when it was confirmed, beside its sealed plan: what finds it open', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const record = JSON.parse(readFileSync(open.journal, 'utf8').split('\n')[0]!);
    expect(record).toMatchObject({ type: 'payment_run', profile: 'local', base_url: null });
    expect(Date.parse(record.confirmed_at)).toBeGreaterThanOrEqual(Date.parse(record.plan.created_at));
  });
});

describe('an open payment run continued after another approver funded one of its encounters', () => {
  it('the encounter is SKIPPED: the summary says how much and names the approval that funded it; fund history records it SKIPPED with the reason', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const plan = JSON.parse(readFileSync(open.journal, 'utf8').split('\n')[0]!).plan as {
      total_cents: number;
      encounters: { encounter_id: string; amount_cents: number; authorization_code: string }[];
    };
    const last = plan.encounters.at(-1)!;
    const amount = formatCentsGrouped(last.amount_cents);
    const desk = await runTpa(['fund', 'approve', last.encounter_id, '--amount', amount, '--auth-code', 'AUTH-20260630-DESK-0001', '--yes', '-o', 'json'], {
      home,
      env,
    });
    expect(desk.code, desk.stderr).toBe(0);
    const transfer = desk.json<{ processor_transfer_id: string }>().processor_transfer_id;
    const r = await runTpa(['fund', 'run', '--journal', open.journal, '--yes', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.replace(/\s+/g, ' ');
    expect(said).toMatch(
      new RegExp(
        `Payment run AUTH-20260630-A: [\\d,.]+ approved of ${formatCentsGrouped(plan.total_cents)}; ${amount} skipped: funded meanwhile by another approval \\(AUTH-20260630-DESK-0001, transfer ${transfer}\\)`,
      ),
    );
    const history = (await runTpa(['fund', 'history', '-o', 'json'], { home, env })).json<Record<string, any>[]>();
    expect(history.filter((h) => h.authorization_code === last.authorization_code)).toEqual([
      expect.objectContaining({
        outcome: 'SKIPPED',
        processor_transfer_id: transfer,
        message: `funded meanwhile by another approval (authorization AUTH-20260630-DESK-0001, transfer ${transfer})`,
      }),
    ]);
    // tpa jobs show: the plan's amount beside what the run approved and what it skipped, and the
    // skipped approval listed with who funded it (done, yet none of this run's money).
    const shown = await runTpa(['--no-pager', 'jobs', 'show', open.journal], { home, env, tty: true, columns: 120 });
    expect(shown.code, shown.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what this takes off
    const screen = shown.stdout.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');
    const approved = formatCentsGrouped(plan.total_cents - last.amount_cents);
    expect(screen).toContain(`Amount ${formatCentsGrouped(plan.total_cents)} planned; ${approved} approved; 1 skipped (${amount}, funded by other approvals)`);
    expect(screen, screen).toMatch(new RegExp(`${last.encounter_id}[│ ]+DONE[│ ]+SKIPPED[│ ]+funded by AUTH-20260630-DESK-0001, transfer ${transfer}`));
    const json = (await runTpa(['jobs', 'show', open.journal, '-o', 'json'], { home, env })).json<Record<string, unknown>>();
    expect(json).toMatchObject({ skipped: 1, done: open.count });
  });
});

describe('fund history of an interrupted run', () => {
  const historyOf = async () => (await runTpa(['fund', 'history', '-o', 'json'], { home, env })).json<Record<string, any>[]>();

  it('continued: one line per code, its final outcome; the attempt cut off is never shown FAILED', async () => {
    const open = await interruptedRun('AUTH-20260630-A', 'kill');
    expect((await historyOf()).map((h) => h.outcome)).toContain('UNKNOWN');
    const r = await runTpa(['fund', 'run', '--journal', open.journal, '--yes', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    const history = await historyOf();
    const codes = history.map((h) => h.authorization_code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toHaveLength(open.count);
    expect(history.every((h) => h.outcome === 'APPROVED')).toBe(true);
  });

  it('closed: the attempt cut off is NOT_SENT, never FAILED', async () => {
    const open = await interruptedRun('AUTH-20260630-A', 'kill');
    const closed = await runTpa(['jobs', 'close', open.id], { home, env });
    expect(closed.code, closed.stderr).toBe(0);
    const history = await historyOf();
    expect(history.map((h) => h.outcome)).not.toContain('FAILED');
    expect(history.filter((h) => h.outcome === 'NOT_SENT')).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/never answered, and the ledger shows no fund release from it/) }),
    ]);
  });
});

describe('an open payment run over local serve', () => {
  it('is its profile’s: a new run on that profile, or on another profile of the same database, is refused naming both commands with -p; closed with that profile only', async () => {
    const { total } = await review();
    // Every approval's connection drops before the server sees it: the run stops at its first (exit 8), open.
    const server = await serve(home, ['--no-rate-limit'], { ...env, TPA_FAULT: 'drop:/funding/approve/' });
    try {
      const key = (await runTpa(['local', 'keys', 'create'], { home, env })).stdout.trim();
      expect((await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home, input: key })).code).toBe(0);
      const sandbox = (args: string[]) => runTpa([...args, '-p', 'sandbox'], { home, env });
      const stopped = await sandbox(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-H', '--expect-total', String(total), '--yes', '-o', 'ndjson']);
      expect(stopped.code, stopped.stderr).toBe(8);
      const id = readdirSync(join(home, 'journals'))
        .find((f) => f.startsWith('fund-run-AUTH-20260630-H-'))!
        .replace(/\.ndjson$/, '');

      const again = await sandbox(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-H2', '--expect-total', String(total), '--yes']);
      expect(again.code, again.stderr).toBe(4);
      expect(again.stderr).toContain(`tpa fund run --journal ${join(home, 'journals', `${id}.ndjson`)} --yes -p sandbox`);
      expect(again.stderr).toContain(`tpa jobs close ${id} -p sandbox`);
      // Continued on another profile (the local one), it is refused first naming the profile it
      // was confirmed on and the command with it: never "another database", never "a new run".
      const journal = join(home, 'journals', `${id}.ndjson`);
      const elsewhere = await runTpa(['fund', 'run', '--journal', journal, '--yes', '-p', 'local'], { home, env });
      expect(elsewhere.code, elsewhere.stderr).toBe(2);
      expect(elsewhere.stderr).toContain(`was confirmed on the profile sandbox (${server.url}), not on local`);
      expect(elsewhere.stderr).toContain(`tpa fund run --journal ${journal} -p sandbox`);
      expect(elsewhere.stderr).toContain('Nothing was sent');
      expect(elsewhere.stderr).not.toMatch(/another database|--auth-code-prefix/);
      // On a terminal the offer names the environment first, and its question carries the tag.
      const offered = await ptyRun(['fund', 'run', '-p', 'sandbox'], [{ expect: 'Quit: send nothing', send: CTRL_C }], {
        home,
        env,
        cols: 80,
        rows: 24,
      });
      expect(offered.error, offered.output).toBeNull();
      const offer = await screenAtStep(offered, 0, 80, 24);
      expect(offer.find((l) => l.trim() !== '')).toBe(`Profile sandbox · sandbox · ${server.url}`);
      expect(offer.join('\n')).toContain('[sandbox] A new run would leave it open');
      expect(offered.exit_code, offered.output).not.toBe(0);
      // Another profile's run on the same database (local serve serves this data directory): not
      // this profile's to continue or close, but never shadowed by a new run of it either, which
      // would skip, as funded meanwhile, what the open run still owes. A dry run mentions it.
      const local = await runTpa(['fund', 'run', '--dry-run', '-o', 'json', '-p', 'local'], { home, env });
      expect(local.code, local.stderr).toBe(0);
      expect(local.stderr).toContain(`a payment run of the profile sandbox (${server.url}) is open on this same database`);
      const shadow = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-L', '--expect-total', String(total), '--yes', '-p', 'local'], {
        home,
        env,
      });
      expect(shadow.code, shadow.stderr).toBe(4);
      expect(shadow.stderr).toContain('a payment run of another profile is open on this same database');
      expect(shadow.stderr).toContain(`tpa fund run --journal ${journal} --yes -p sandbox`);
      expect(shadow.stderr).toContain(`tpa jobs close ${id} -p sandbox`);
      const wrong = await runTpa(['jobs', 'close', id, '-p', 'local'], { home, env });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('was confirmed on the profile sandbox: close it with -p sandbox');

      const closed = await sandbox(['jobs', 'close', id]);
      expect(closed.code, closed.stderr).toBe(0);
      expect(closed.stderr).toContain('recorded as not sent');
    } finally {
      await server.stop();
    }
    expect(await funded()).toEqual([]);
  });
});

describe('an open payment run, on a terminal', () => {
  it('at 80×24, is said (prefix, approvals left of all, amount left, when confirmed) and offered: continue is the default', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const question = 'Continue it, close it, or quit?';
    const r = await ptyRun(
      ['fund', 'run'],
      [
        // The whole offer drawn (its last choice), then Enter.
        { expect: 'Quit: send nothing', send: ENTER },
        { expect: 'Resume AUTH-20260630-A', send: CTRL_C },
      ],
      {
        home,
        env,
        cols: 80,
        rows: 24,
      },
    );
    expect(r.error, r.output).toBeNull();
    const lines = await screenAtStep(r, 0, 80, 24);
    const screen = lines.join('\n');
    // A money screen: where the money moves is its first line.
    expect(lines.find((l) => l.trim() !== '')).toMatch(/^Profile local · local engine \(no real money\) · /);
    expect(screen.replace(/\s+/g, ' ')).toContain(
      `open payment run AUTH-20260630-A: ${open.left} of ${open.count} approvals left (${formatCentsGrouped(open.leftCents)}`,
    );
    expect(screen).toContain(`❯ Continue AUTH-20260630-A: ${open.left} approvals left`);
    expect(screen).toContain(question);
    expect(screen).toContain('Close AUTH-20260630-A');
    expect(screen).toContain('Quit: send nothing');
    // Ctrl-C at the confirmation that follows: nothing sent, the run still open.
    expect(r.exit_code, r.output).toBe(2);
    expect(r.output).toContain(`${open.left} of ${open.count} approvals left`);
    // The line naming where the money moves is drawn once: the resume that follows the offer does not repeat it.
    expect(r.output.split('Profile local · local engine').length - 1, r.output).toBe(1);
    expect(r.output).toContain('resuming the payment run AUTH-20260630-A');
  });

  it('at 120×40, close: the run is recorded closed, nothing sent, and the new run is reviewed', async () => {
    const open = await interruptedRun('AUTH-20260630-A');
    const before = await funded();
    const r = await ptyRun(
      ['fund', 'run'],
      [
        { expect: 'Continue it, close it, or quit?', send: [DOWN, ENTER] },
        { expect: 'closed the payment run AUTH-20260630-A' },
        { expect: 'Payment run', send: CTRL_C },
      ],
      { home, env, cols: 120, rows: 40 },
    );
    expect(r.error, r.output).toBeNull();
    expect(r.exit_code, r.output).toBe(2);
    expect(await funded()).toEqual(before);
    const job = (await runTpa(['jobs', '-o', 'json'], { home, env })).json<Record<string, any>[]>().find((j) => j.id === open.id)!;
    expect(job.state).toBe('closed');
    expect(existsSync(open.journal)).toBe(true);
  });
});
