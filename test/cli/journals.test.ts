// Resumable jobs, third pass, through real processes and the CLI: one
// journal has one writer (a second run refuses at once naming the first), a batch resumed past the
// 24-hour Idempotency-Key window never makes a second encounter for a claim it sent, and a payment
// run resumed after a transfer FAILED reports that encounter owed again, never approved.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { distinctClaim } from '../helpers/claims.js';
import { until } from '../helpers/barrier.js';
import { lockHolderPath, lockPath } from '../../src/jobs/journal-lock.js';
import { runTpa, TPA_BIN, testEnv, tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { journalRecords, killRepeatedly } from '../helpers/kill.js';
import { createKey, login, serve } from '../helpers/server.js';
import { formatCentsGrouped } from '../../src/domain/money.js';
import { cents, ndjson } from '../helpers/values.js';

const HOOK = fileURLToPath(new URL('../helpers/barrier-hook.mjs', import.meta.url));
const CLOCK = '2026-06-30T12:00:00Z';
/** 25 hours on: past the 24 hours the service keeps an Idempotency-Key's answer. */
const LATER = '2026-07-01T13:00:00Z';
const env = { TPA_CLOCK: CLOCK };

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

type Row = Record<string, any>;

const claim = (i: number): Row => distinctClaim(i) as Row;

/** A claim the engine pends: a code that needs a preauthorization, without one. */
const pended = () => claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1002', serviceDate: '2026-02-20' }) as Row;

const lines = (claims: Row[]) => `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`;

async function ledger(clock = CLOCK): Promise<Row[]> {
  const r = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home, env: { TPA_CLOCK: clock } });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout);
}

/** The journal as it is when the process died after the service took each claim, before its acknowledgment reached the disk. */
function loseAcknowledgments(journal: string): void {
  const kept = readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => !l.includes('"type":"acknowledged"'));
  writeFileSync(journal, kept.join('\n'));
}

describe('one journal, one writer', () => {
  it('a second claim batch on a journal in use refuses at once (exit 4) naming the first run; the first goes on alone', async () => {
    const journal = join(home, 'shared.journal');
    const args = ['claim', 'submit', '-', '--journal', journal, '-o', 'ndjson'];
    // The first run reads its claims from a pipe the test holds open: it keeps the journal until the pipe ends.
    const first = spawn(process.execPath, [TPA_BIN, ...args], { env: testEnv({ home, env }), cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    first.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    first.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((r) => first.on('close', r));
    first.stdin.write(lines([claim(0), claim(1)]));
    await until(() => existsSync(lockHolderPath(journal)));

    const second = await tpa(args, { home, env, input: lines([claim(0), claim(1), claim(2)]) });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toContain(`the journal ${journal} is in use by another claim batch (pid ${first.pid}, running since 20`);
    expect(second.stderr).toContain('Nothing was sent');
    expect(second.stdout).toBe('');

    first.stdin.end(lines([claim(2)]));
    expect(await exited, err).toBe(0);
    expect(ndjson(out).map((o) => o.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect(await ledger()).toHaveLength(3);
    // The lock went with the run: the same command continues now.
    const again = await runTpa(args, { home, env, input: lines([claim(0), claim(1), claim(2)]) });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((o) => o.status)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
  });

  it("the lock is the journal file's: a second batch through a hard link to it refuses (exit 4) naming the first; through a symbolic link, exit 2", async () => {
    const journal = join(home, 'real.ndjson');
    const first = spawn(process.execPath, [TPA_BIN, 'claim', 'submit', '-', '--journal', journal, '-o', 'ndjson'], {
      env: testEnv({ home, env }),
      cwd: home,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    first.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    first.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((r) => first.on('close', r));
    first.stdin.write(lines([claim(0)]));
    await until(() => existsSync(lockHolderPath(journal)));
    symlinkSync(journal, join(home, 'link.ndjson'));
    linkSync(journal, join(home, 'hard.ndjson'));

    const hard = join(home, 'hard.ndjson');
    const second = await tpa(['claim', 'submit', '-', '--journal', hard, '-o', 'ndjson'], { home, env, input: lines([claim(1)]) });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toContain(`the journal ${hard} is in use by another claim batch (pid ${first.pid}, running since 20`);
    expect(second.stdout).toBe('');
    // A journal is never opened through a symbolic link (as remit --out never writes through one).
    const link = join(home, 'link.ndjson');
    const third = await tpa(['claim', 'submit', '-', '--journal', link, '-o', 'ndjson'], { home, env, input: lines([claim(1)]) });
    expect(third.code, third.stderr).toBe(2);
    expect(third.stderr).toContain(`cannot open the journal ${link}: it is a symbolic link, and tpa never writes a journal through one`);
    expect(third.stdout).toBe('');

    first.stdin.end(lines([claim(2)]));
    expect(await exited, err).toBe(0);
    expect(ndjson(out).map((o) => o.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect(await ledger()).toHaveLength(2);
    // Nothing but the first run wrote to the journal: one batch header, two claims.
    expect(journalRecords(journal, 'batch')).toBe(1);
    expect(journalRecords(journal, 'acknowledged')).toBe(2);
  });

  it('fund run --journal through a symbolic link, dangling or not, is refused (exit 2) naming it: its target is not created, nothing is funded', async () => {
    writeFileSync(join(home, 'c.ndjson'), lines([claim(0), claim(1), claim(2)]));
    expect((await runTpa(['claim', 'submit', 'c.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    const review = (await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env })).json<{ total: string; count: number }>();
    expect(review.count).toBeGreaterThan(0);
    const target = join(home, 'elsewhere', 'planted.ndjson');
    mkdirSync(join(home, 'elsewhere'));
    const dangling = join(home, 'run.journal');
    symlinkSync(target, dangling);
    const run = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-LINK', '--expect-total', String(review.total), '--yes', '--journal', dangling], {
      home,
      env,
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`cannot open the journal ${dangling}: it is a symbolic link, and tpa never writes a journal through one`);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(existsSync(target)).toBe(false);
    // A link to a journal that exists: refused the same, the file untouched.
    writeFileSync(target, '');
    const again = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-LINK', '--expect-total', String(review.total), '--yes', '--journal', dangling], {
      home,
      env,
    });
    expect(again.code, again.stderr).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('');
    expect(ndjson((await runTpa(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson'], { home, env })).stdout)).toHaveLength(0);
  });

  it('a symbolic link planted at journals/elsewhere.txt is not written through: its target untouched, the batch done', async () => {
    writeFileSync(join(home, 'a.json'), JSON.stringify(claim(0)));
    mkdirSync(join(home, 'journals'));
    const victim = join(home, 'victim');
    writeFileSync(victim, 'x');
    symlinkSync(victim, join(home, 'journals', 'elsewhere.txt'));
    mkdirSync(join(home, 'kept'));
    const r = await runTpa(['claim', 'submit', 'a.json', '--journal', join(home, 'kept', 'j.ndjson')], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('x');
    // Without the link, the journal kept elsewhere is noted there and listed.
    rmSync(join(home, 'journals', 'elsewhere.txt'));
    writeFileSync(join(home, 'b.json'), JSON.stringify(claim(1)));
    expect((await runTpa(['claim', 'submit', 'b.json', '--journal', join(home, 'kept', 'k.ndjson')], { home, env })).code).toBe(0);
    const jobs = (await runTpa(['jobs', '-o', 'json'], { home, env })).json<Row[]>();
    expect(jobs.map((j) => j.path)).toContain(join(home, 'kept', 'k.ndjson'));
  });

  it("a symbolic link planted at a journal's lock name, or a file tpa did not make there, is refused (exit 2): its target untouched", async () => {
    writeFileSync(join(home, 'a.json'), JSON.stringify(claim(0)));
    const journal = join(home, 'j.ndjson');
    writeFileSync(journal, '');
    const lock = lockPath(journal);
    const victim = join(home, 'victim');
    writeFileSync(victim, 'x', { mode: 0o644 });
    symlinkSync(victim, lock);
    const linked = await runTpa(['claim', 'submit', 'a.json', '--journal', journal], { home, env });
    expect(linked.code, linked.stderr).toBe(2);
    expect(linked.stderr).toMatch(/it is a symbolic link, which tpa's locks never are/);
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(readFileSync(victim, 'utf8')).toBe('x');
    // A file at the lock's name that is not an SQLite lock: said, not an internal error.
    rmSync(lock);
    writeFileSync(lock, 'not a database, not at all: some text long enough to be read as a header');
    const other = await runTpa(['claim', 'submit', 'a.json', '--journal', journal], { home, env });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/it is not a lock tpa made/);
    expect(other.stderr).not.toMatch(/internal error/);
    expect(await ledger()).toHaveLength(0);
  });

  it("a hard link planted at a journal's lock name, or a file of another user there, is refused (exit 2): the file's mode and content left as they were, nothing sent", async () => {
    writeFileSync(join(home, 'a.json'), JSON.stringify(claim(0)));
    const journal = join(home, 'j.ndjson');
    writeFileSync(journal, '');
    const lock = lockPath(journal);
    mkdirSync(join(home, 'v'));
    for (const content of ['data\n', '']) {
      rmSync(lock, { force: true });
      const victim = join(home, 'v', 'app.conf');
      rmSync(victim, { force: true });
      writeFileSync(victim, content, { mode: 0o644 });
      chmodSync(victim, 0o644);
      linkSync(victim, lock);
      const r = await runTpa(['claim', 'submit', 'a.json', '--journal', journal], { home, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('it has 2 names (a hard link to another file); it is not a lock tpa made');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
      expect(readFileSync(victim, 'utf8')).toBe(content);
    }
    rmSync(lock);
    // An empty file of another user (only root can make one here), readable by all: not taken, not narrowed.
    if (process.getuid?.() === 0) {
      writeFileSync(lock, '', { mode: 0o644 });
      chmodSync(lock, 0o644);
      chownSync(lock, 65534, 65534);
      const r = await runTpa(['claim', 'submit', 'a.json', '--journal', journal], { home, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('it belongs to another user (uid 65534)');
      expect(statSync(lock).mode & 0o777).toBe(0o644);
      rmSync(lock);
    }
    expect(await ledger()).toHaveLength(0);
    // The lock tpa makes itself is taken as before.
    expect((await runTpa(['claim', 'submit', 'a.json', '--journal', journal], { home, env })).code).toBe(0);
    expect(statSync(lock).mode & 0o777).toBe(0o600);
  });

  it('a journal that is not a regular file (a FIFO, /dev/zero) is refused at once (exit 2) naming it: nothing waited on, nothing sent', async () => {
    writeFileSync(join(home, 'c.ndjson'), lines([claim(0), claim(1)]));
    expect((await runTpa(['claim', 'submit', 'c.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    const review = (await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env })).json<{ total: string; count: number }>();
    expect(review.count).toBeGreaterThan(0);
    const fifo = join(home, 'run.fifo');
    execFileSync('mkfifo', [fifo]);
    // A FIFO no one writes: opening it to read or write would wait for ever, so each run is a real
    // process (killed, should it hang: then its exit code is not 2).
    const runs = [
      ['fund', 'run', '--auth-code-prefix', 'AUTH-FIFO', '--expect-total', String(review.total), '--yes', '--journal', fifo],
      ['fund', 'run', '--yes', '--journal', fifo],
      ['claim', 'submit', 'c.ndjson', '--journal', fifo],
    ];
    for (const args of runs) {
      const r = await tpa(args, { home, env, timeoutMs: 20_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`cannot open the journal ${fifo}: it is not a regular file`);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    for (const args of [
      ['fund', 'run', '--auth-code-prefix', 'AUTH-ZERO', '--expect-total', String(review.total), '--yes', '--journal', '/dev/zero'],
      ['fund', 'run', '--yes', '--journal', '/dev/zero'],
    ]) {
      const r = await runTpa(args, { home, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('cannot open the journal /dev/zero: it is not a regular file');
    }
    expect(ndjson((await runTpa(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson'], { home, env })).stdout)).toHaveLength(0);
    expect(await ledger()).toHaveLength(2);
  }, 90_000);

  it('a killed batch leaves no lock behind: the next run takes the journal at once', async () => {
    writeFileSync(join(home, 'k.ndjson'), lines(Array.from({ length: 40 }, (_, i) => claim(i))));
    const journal = join(home, 'k.journal');
    const args = ['claim', 'submit', 'k.ndjson', '--journal', journal, '--concurrency', '1', '-o', 'ndjson'];
    const { killed } = await killRepeatedly(args, {
      home,
      env: { ...env, TPA_FAULT: 'slow-50:/claims/submit/' },
      kills: 1,
      minMs: 0,
      spreadMs: 200,
      progress: () => journalRecords(journal, 'acknowledged'),
      onExit: (code) => expect(code).toBe(0),
    });
    expect(killed).toBe(1);
    // The killed run's name is still beside the journal; its lock is not.
    expect(existsSync(lockHolderPath(journal))).toBe(true);
    const r = await runTpa(args, { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toHaveLength(40);
    expect(await ledger()).toHaveLength(40);
  });

  it('a second payment run on a journal in use refuses at once (exit 4) naming the first; each encounter is funded once', async () => {
    writeFileSync(join(home, 'c.ndjson'), lines([claim(0), claim(1), claim(2)]));
    expect((await runTpa(['claim', 'submit', 'c.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    const review = (await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env })).json<{ total: string; count: number }>();
    const journal = join(home, 'run.journal');
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-LOCK', '--expect-total', String(review.total), '--yes', '--journal', journal, '-o', 'ndjson'];
    // The first run's first approval is held inside its funding transaction until the file `go` exists.
    const barrier = join(home, 'barrier');
    mkdirSync(barrier);
    const first = spawn(process.execPath, ['--import', HOOK, TPA_BIN, ...args], {
      env: testEnv({ home, env: { ...env, TPA_TEST_BARRIER_DIR: barrier } }),
      cwd: home,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    first.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    first.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((r) => first.on('close', r));
    await until(() => readdirSync(barrier).some((f) => f.startsWith('inside-')));

    const second = await tpa(args, { home, env });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toContain(`the journal ${journal} is in use by another payment run (pid ${first.pid}, running since 20`);

    writeFileSync(join(barrier, 'go'), '');
    expect(await exited, err).toBe(0);
    expect(ndjson(out).map((o) => o.status)).toEqual(Array(review.count).fill('APPROVED'));
    const funded = ndjson((await runTpa(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson'], { home, env })).stdout);
    expect(funded).toHaveLength(review.count);
  });
});

describe('a batch resumed past the Idempotency-Key window', () => {
  it('answers lost, resumed 25 hours later: each claim is found in the ledger, never sent again (no DENIED duplicate, no second PENDED)', async () => {
    writeFileSync(join(home, 'b.ndjson'), lines([claim(0), pended(), claim(1)]));
    const journal = join(home, 'b.journal');
    const args = ['claim', 'submit', 'b.ndjson', '--journal', journal, '-o', 'ndjson'];
    const first = await runTpa(args, { home, env });
    expect(first.code, first.stderr).toBe(0);
    const sent = ndjson(first.stdout);
    loseAcknowledgments(journal);

    const later = await runTpa([...args, '--wait'], { home, env: { TPA_CLOCK: LATER } });
    expect(later.code, later.stderr).toBe(0);
    const out = ndjson(later.stdout);
    expect(out.map((o) => [o.source, o.status, o.submission_id, o.disposition])).toEqual([
      ['b.ndjson:1', 'SKIPPED', sent[0]!.submission_id, 'APPROVED'],
      ['b.ndjson:2', 'SKIPPED', sent[1]!.submission_id, 'PENDING_REVIEW'],
      ['b.ndjson:3', 'SKIPPED', sent[2]!.submission_id, 'APPROVED'],
    ]);
    expect(later.stderr).toContain('b.ndjson:1: sent before, its answer lost: found in the ledger, not sent again');
    const entries = await ledger(LATER);
    expect(entries).toHaveLength(3);
    expect(entries.map((e) => e.status).sort()).toEqual(['ADJUDICATED', 'ADJUDICATED', 'PENDED']);
    // What was found is in the journal now: the next run skips it without asking the ledger.
    expect(journalRecords(journal, 'acknowledged')).toBe(3);
  });

  it('killed while the service held answers, resumed 25 hours later: every claim in the ledger exactly once, none DENIED', async () => {
    const N = 60;
    writeFileSync(join(home, 'k.ndjson'), lines(Array.from({ length: N }, (_, i) => claim(i))));
    const journal = join(home, 'k.journal');
    const args = ['claim', 'submit', 'k.ndjson', '--journal', journal, '--concurrency', '4', '-o', 'ndjson'];
    // Each claim is recorded by the service at once and answered 300 ms later: a kill after the
    // first answers leaves claims the service has and the journal never heard back about.
    const { killed } = await killRepeatedly(args, {
      home,
      env: { ...env, TPA_FAULT: 'late-300:/claims/submit/' },
      kills: 1,
      minMs: 50,
      spreadMs: 200,
      progress: () => journalRecords(journal, 'acknowledged'),
      onExit: (code) => expect(code).toBe(0),
    });
    expect(killed).toBe(1);
    const inFlight = journalRecords(journal, 'sent') - journalRecords(journal, 'acknowledged');
    expect(inFlight).toBeGreaterThan(0);

    const r = await runTpa(args, { home, env: { TPA_CLOCK: LATER } });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toHaveLength(N);
    const entries = await ledger(LATER);
    expect(entries).toHaveLength(N);
    expect(entries.filter((e) => e.status === 'DENIED')).toEqual([]);
    // The claims the killed run sent without hearing back were found, not sent again.
    expect(journalRecords(journal, 'acknowledged')).toBe(N);
    expect(readFileSync(journal, 'utf8').split('"found_in_ledger":true').length - 1).toBeGreaterThan(0);
  });

  it('when the ledger cannot say (a key without ledger access), a claim sent without a recorded answer is UNKNOWN and not sent (exit 4)', async () => {
    const server = await serve(home, ['--no-rate-limit'], env);
    try {
      await login(home, server.url);
      const narrow = await createKey(home, '--scopes', 'claim_pricing');
      const remote = { TPA_PROFILE: 'sandbox', TPA_API_KEY: narrow };
      writeFileSync(join(home, 'u.ndjson'), lines([claim(0), claim(1)]));
      const journal = join(home, 'u.journal');
      const args = ['claim', 'submit', 'u.ndjson', '--journal', journal, '-o', 'ndjson'];
      const first = await runTpa(args, { home, env: remote });
      expect(first.code, first.stderr).toBe(0);
      loseAcknowledgments(journal);

      const again = await runTpa(args, { home, env: remote });
      expect(again.code, again.stderr).toBe(4);
      const out = ndjson(again.stdout);
      expect(out.map((o) => o.status)).toEqual(['UNKNOWN', 'UNKNOWN']);
      expect(out[0]!.errors[0].message).toMatch(/^unknown: check before resending\. It was sent on 20.* with Idempotency-Key /);
      expect(again.stderr).toContain('2 claim(s) UNKNOWN');
      expect(await ledger()).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });
});

describe('a payment run resumed after a transfer FAILED', () => {
  it('reports the encounter owed again (exit 4), never approved and never sent again; a new run funds it only once confirmed', async () => {
    writeFileSync(join(home, 'some.ndjson'), lines(Array.from({ length: 12 }, (_, i) => claim(i))));
    expect((await runTpa(['claim', 'submit', 'some.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    // A run of one encounter: the first the ledger selects.
    const review = (await runTpa(['fund', 'run', '--dry-run', '--limit', '1', '-o', 'json'], { home, env })).json<{ total: string; encounters: Row[] }>();
    const id = review.encounters[0]!.encounter_id as string;
    const args = ['fund', 'run', '--limit', '1', '--auth-code-prefix', 'AUTH-FAIL', '--expect-total', String(review.total), '--yes', '-o', 'ndjson'];
    const run = await runTpa(args, { home, env });
    expect(run.code, run.stderr).toBe(0);
    const approved = ndjson(run.stdout)[0]!;
    expect(approved.status).toBe('APPROVED');

    const failed = await runTpa(['local', 'simulate', 'settlement-failure', id], { home, env });
    expect(failed.code, failed.stderr).toBe(0);

    const resumed = await runTpa(args, { home, env });
    expect(resumed.code, resumed.stderr).toBe(4);
    const out = ndjson(resumed.stdout);
    expect(out).toEqual([
      expect.objectContaining({
        encounter_id: id,
        status: 'OWED',
        processor_transfer_id: approved.processor_transfer_id,
        message: expect.stringMatching(/FAILED/),
      }),
    ]);
    expect(resumed.stderr).toContain(
      `Payment run AUTH-FAIL: 0.00 approved of ${formatCentsGrouped(cents(review.total))}; ${formatCentsGrouped(cents(review.total))} owed again`,
    );
    expect(resumed.stderr).toMatch(/1 encounter\(s\) owed again: this run never sends an approval twice/);
    // The history of approvals says the same: the approval did not stand.
    const history = (await runTpa(['fund', 'history', '-o', 'json'], { home, env })).json<Row[]>();
    expect(history).toEqual([expect.objectContaining({ encounter_id: id, authorization_code: 'AUTH-FAIL-0001', outcome: 'OWED', transfer_status: 'FAILED' })]);
    const approvals = async () =>
      (await runTpa(['ledger', 'show', id, '-o', 'json'], { home, env })).json<{ entries: Row[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED');
    expect(await approvals()).toHaveLength(1);

    // Funding it anew is a new run, reviewed and confirmed: without the confirmation nothing is sent.
    const unconfirmed = await runTpa(['fund', 'run', '--limit', '1', '--auth-code-prefix', 'AUTH-AGAIN', '-o', 'ndjson'], { home, env });
    expect(unconfirmed.code).toBe(2);
    expect(await approvals()).toHaveLength(1);
    const again = await runTpa(
      ['fund', 'run', '--limit', '1', '--auth-code-prefix', 'AUTH-AGAIN', '--expect-total', String(review.total), '--yes', '-o', 'ndjson'],
      {
        home,
        env,
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((o) => [o.encounter_id, o.status, cents(o.amount)])).toEqual([[id, 'APPROVED', cents(review.total)]]);
    expect(await approvals()).toHaveLength(2);
    // The first run, resumed once more, reports the encounter funded by the new run (SKIPPED), nothing owed.
    const last = await runTpa(args, { home, env });
    expect(ndjson(last.stdout)[0]).toMatchObject({ status: 'SKIPPED', message: expect.stringMatching(/AUTH-AGAIN-0001/) });
    expect(last.code, last.stderr).toBe(0);
  });
});
