// `tpa jobs` lists the journals of claim batches, single claims and payment runs on
// this machine with what each holds; `tpa jobs show` details one and writes its invalid and refused
// claims with --failed-to, ready to fix and send again. Read only: a journal is never changed, and
// reading one while its job holds it is safe.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalLock } from '../../../src/jobs/journal-lock.js';
import { claimOf, distinctClaim } from '../../helpers/claims.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const run = (args: string[], input?: string) => runTpa(args, { home, env, input });

/** A claim the service refuses (400: a care-team NPI the plan does not know). */
const refused = () =>
  claimOf({ npi: '1234567893', careTeam: [{ npi: '1111111112', role: 'anesthesiologist' }], lines: [{ code: '00811', date: '2026-06-29', careTeam: 1 }] });

/** A batch of 4 sent, 1 refused, 2 invalid (one not JSON), journaled in batch.journal. */
async function batch(): Promise<{ journal: string; bad: Row }> {
  const bad = distinctClaim(9) as Row;
  delete bad.patient;
  const lines = [0, 1, 2, 3].map((i) => JSON.stringify(distinctClaim(i)));
  lines.splice(2, 0, JSON.stringify(bad), JSON.stringify(refused()), '{"resourceType": "Claim",');
  writeFileSync(join(home, 'claims.ndjson'), `${lines.join('\n')}\n`);
  const journal = join(home, 'batch.journal');
  const r = await run(['claim', 'submit', 'claims.ndjson', '--journal', journal, '-o', 'ndjson']);
  const status = Object.fromEntries(ndjson(r.stdout).map((o) => [o.source, o.status]));
  expect([1, 2, 3, 4, 5, 6, 7].map((n) => status[`claims.ndjson:${n}`])).toEqual([
    'ACKNOWLEDGED',
    'ACKNOWLEDGED',
    'INVALID',
    'FAILED',
    'INVALID',
    'ACKNOWLEDGED',
    'ACKNOWLEDGED',
  ]);
  return { journal, bad };
}

describe('tpa jobs', () => {
  it('lists every journal with its kind, profile, state and counts, in every format', async () => {
    const empty = await runTpa(['jobs'], { home, env, tty: true });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/no jobs on this machine/);
    await batch();
    // A default journal (in the data directory) and the journal of single claims.
    writeFileSync(join(home, 'two.ndjson'), `${JSON.stringify(distinctClaim(20))}\n${JSON.stringify(distinctClaim(21))}\n`);
    expect((await run(['claim', 'submit', 'two.ndjson'])).code).toBe(0);
    writeFileSync(join(home, 'one.json'), JSON.stringify(distinctClaim(30)));
    expect((await run(['claim', 'submit', 'one.json'])).code).toBe(0);

    const json = await run(['jobs', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const jobs = json.json<Row[]>();
    const byKind = (k: string) => jobs.filter((j) => j.kind === k);
    expect(byKind('claim batch')).toHaveLength(2);
    const named = jobs.find((j) => j.id === 'batch.journal');
    expect(named).toMatchObject({ kind: 'claim batch', state: 'finished', profile: 'local', done: 4, pending: 0, failed: 1, invalid: 2 });
    expect(byKind('claim batch').find((j) => j.id !== 'batch.journal')).toMatchObject({ done: 2, failed: 0, invalid: 0 });
    expect(byKind('single claims')).toEqual([expect.objectContaining({ done: 1, profile: 'local' })]);
    expect(named!.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const csv = await run(['jobs', '-o', 'csv']);
    const [header, ...rows] = csv.stdout.trim().split('\n');
    expect(header!.split(',')).toEqual(expect.arrayContaining(['id', 'kind', 'state', 'profile', 'done', 'pending', 'failed', 'invalid', 'started_at']));
    expect(rows).toHaveLength(3);
    expect(ndjson((await run(['jobs', '-o', 'ndjson'])).stdout)).toHaveLength(3);
    const wide = await runTpa(['jobs', '--no-color'], { home, env, tty: true, columns: 150 });
    expect(wide.stdout).toMatch(/batch\.journal\s.*claim batch.*local.*finished.*\b4\b.*\b0\b.*\b1\b.*\b2\b/);
    expect(wide.stdout).toMatch(/tpa jobs show/);
    // At 80 columns still one line a job, the columns that fit.
    const narrow = await runTpa(['jobs', '--no-color'], { home, env, tty: true, columns: 80 });
    const lines = narrow.stdout.split('\n');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    // Total 7, done 4, pending 0, not sent 0; the failed and invalid ones named below the table.
    expect(lines.filter((l) => /batch\.journal\s.*finished.*\b7\b.*\b4\b.*\b0\b.*\b0\b/.test(l))).toHaveLength(1);
    expect(narrow.stdout).toMatch(/With failed or invalid claims: batch\.journal \(1 failed, 2 invalid\)/);
  });

  it('writes the CSV header when there is no job', async () => {
    const r = await run(['jobs', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'id,kind,state,profile,base_url,started_at,updated_at,total,sent,done,pending,failed,invalid,not_sent,total_amount,pid,path,problem,history\n',
    );
  });

  it('shows one journal by its id, the start of its id or its path; each claim not done says why', async () => {
    const { journal } = await batch();
    const byPath = await run(['jobs', 'show', journal, '-o', 'json']);
    expect(byPath.code, byPath.stderr).toBe(0);
    const job = byPath.json<Row>();
    expect(job).toMatchObject({ id: 'batch.journal', done: 4, failed: 1, invalid: 2 });
    const failed = job.items.find((i: Row) => i.status === 'FAILED');
    expect(failed).toMatchObject({ source: 'claims.ndjson:4', detail: 'REFUSED' });
    expect(failed.message ?? JSON.stringify(failed.errors)).toMatch(/1111111112|care/i);
    expect(job.items.filter((i: Row) => i.status === 'INVALID').map((i: Row) => i.source)).toEqual(['claims.ndjson:3', 'claims.ndjson:5']);
    expect((await run(['jobs', 'show', 'batch.jour', '-o', 'json'])).json()).toEqual(job);
    const lines = ndjson((await run(['jobs', 'show', 'batch.journal', '-o', 'ndjson'])).stdout);
    expect(lines).toHaveLength(7);
    expect(lines.filter((l) => l.status === 'DONE').every((l) => /^sub_/.test(l.submission_id))).toBe(true);
    const table = await runTpa(['jobs', 'show', 'batch.journal'], { home, env, tty: true, columns: 100 });
    expect(table.stdout).toMatch(/claims\.ndjson:3\s.*INVALID.*patient\.reference/);
    expect(table.stdout).toMatch(/--failed-to/);
    const missing = await run(['jobs', 'show', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no journal \\?"nope\\?"/);
  });

  it('--failed-to writes the invalid and refused claims as NDJSON claim submit reads, and never replaces a file without --force', async () => {
    const { bad } = await batch();
    const out = join(home, 'fix.ndjson');
    const r = await run(['jobs', 'show', 'batch.journal', '--failed-to', out, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/wrote 3 claim\(s\).*2 invalid, 1 refused/);
    const written = readFileSync(out, 'utf8').trimEnd().split('\n');
    // Each claim on one line, compact, as it was in its file; a line that is not JSON as it was.
    expect(written).toHaveLength(3);
    expect(written).toEqual(expect.arrayContaining([JSON.stringify(refused()), JSON.stringify(bad), '{"resourceType": "Claim",']));
    // claim validate reads it as claim submit would: one claim a line, still to be fixed.
    const v = await run(['claim', 'validate', out, '-o', 'ndjson']);
    expect(ndjson(v.stdout).map((o) => o.source)).toEqual(['fix.ndjson:1', 'fix.ndjson:2', 'fix.ndjson:3'].map((s) => join(home, s)));
    const again = await run(['jobs', 'show', 'batch.journal', '--failed-to', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists: not replaced/);
    writeFileSync(out, 'kept');
    expect(readFileSync(out, 'utf8')).toBe('kept');
    const forced = await run(['jobs', 'show', 'batch.journal', '--failed-to', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(3);
  });

  it('a refused claim fixed in its file and sent is no longer one to fix: --failed-to leaves it out', async () => {
    const { journal } = await batch();
    const file = join(home, 'claims.ndjson');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[3] = JSON.stringify(distinctClaim(7));
    writeFileSync(file, lines.join('\n'));
    const rerun = await run(['claim', 'submit', 'claims.ndjson', '--journal', journal, '-o', 'ndjson']);
    expect(ndjson(rerun.stdout).find((o) => o.source === 'claims.ndjson:4')?.status).toBe('ACKNOWLEDGED');
    const out = join(home, 'fix.ndjson');
    const r = await run(['jobs', 'show', 'batch.journal', '--failed-to', out, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toContain(JSON.stringify(refused()));
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  it('never changes a journal, and reads one while its job holds it (running, with its pid)', async () => {
    const { journal } = await batch();
    // An interrupted run: a claim sent, its answer never recorded, and a line half-written.
    writeFileSync(
      journal,
      `${readFileSync(journal, 'utf8')}${JSON.stringify({ type: 'sending', claim: 'abc', source: 'late.json', sha256: 'abc', idempotency_key: 'k', at: '2026-06-30T12:00:00Z' })}\n${JSON.stringify({ type: 'sent', claim: 'abc' })}\n{"type":"sen`,
    );
    const before = readFileSync(journal);
    const lock = await JournalLock.take(journal, 'claim batch');
    try {
      const r = await run(['jobs', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<Row[]>().find((j) => j.id === 'batch.journal')).toMatchObject({ state: 'running', pid: process.pid, pending: 1 });
      const show = await run(['jobs', 'show', journal, '-o', 'json']);
      expect(show.code, show.stderr).toBe(0);
      expect(show.json<Row>().items.find((i: Row) => i.source === 'late.json')).toMatchObject({ status: 'PENDING' });
    } finally {
      lock.release();
    }
    // A journal that is not one (edited, or another program's) is listed as damaged; the others still are.
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(home, 'journals'), { recursive: true });
    writeFileSync(join(home, 'journals', 'broken.ndjson'), '{"type":"batch","version":2}\nnot json\n');
    const after = await run(['jobs', '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.json<Row[]>().find((j) => j.id === 'batch.journal')).toMatchObject({ state: 'incomplete', pending: 1 });
    expect(after.json<Row[]>().find((j) => j.id === 'broken')).toMatchObject({ state: 'damaged', problem: expect.stringMatching(/line 2/) });
    expect(readFileSync(journal).equals(before)).toBe(true);
  });

  it('lists a payment run with its approvals', async () => {
    writeFileSync(join(home, 'c.ndjson'), `${[0, 1, 2].map((i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
    expect((await run(['claim', 'submit', 'c.ndjson'])).code).toBe(0);
    const review = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<Row>();
    const r = await run(['fund', 'run', '--auth-code-prefix', 'AUTH-T', '--expect-total', String(review.total), '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const runJob = (await run(['jobs', '-o', 'json'])).json<Row[]>().find((j) => j.kind === 'payment run');
    expect(runJob).toMatchObject({ state: 'finished', done: review.count, pending: 0, failed: 0 });
    const show = await run(['jobs', 'show', runJob!.id, '-o', 'ndjson']);
    expect(ndjson(show.stdout).map((i) => i.authorization_code)).toEqual(
      review.encounters.map((_: Row, i: number) => `AUTH-T-${String(i + 1).padStart(4, '0')}`),
    );
    const refusedFailedTo = await run(['jobs', 'show', runJob!.id, '--failed-to', join(home, 'x.ndjson')]);
    expect(refusedFailedTo.code).toBe(2);
  });
});

describe('tpa jobs at 80 and 120 columns', () => {
  it('is a table whatever jobs there are, payment runs included, named so that tpa jobs show finds them; the profile shown when several', async () => {
    writeFileSync(join(home, 'c.ndjson'), `${[0, 1, 2].map((i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
    expect((await run(['claim', 'submit', 'c.ndjson'])).code).toBe(0);
    const review = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<Row>();
    const prefix = 'AUTH-20260630-ACME';
    const r = await run(['fund', 'run', '--auth-code-prefix', prefix, '--expect-total', String(review.total), '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const header = /│ Job\s+│ State\s+│ Total │ Done │ Pending │ Not sent │/;
    const tableAt = async (columns: number) => {
      const out = await runTpa(['jobs', '--no-color'], { home, env, tty: true, columns });
      expect(out.code, out.stderr).toBe(0);
      for (const line of out.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
      return out.stdout;
    };
    const narrow = await tableAt(80);
    expect(narrow).toMatch(header);
    expect(narrow).toMatch(new RegExp(`│ ${prefix}\\s+│ finished\\s+│\\s+${review.count} │\\s+${review.count} │\\s+0 │\\s+0 │`));
    expect(narrow).not.toMatch(/Profile/);
    // The name shown finds the run.
    const shown = await run(['jobs', 'show', prefix, '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json<Row>()).toMatchObject({ kind: 'payment run', total: review.count });
    const wide = await tableAt(120);
    expect(wide).toMatch(/│ Job\s+│ Kind\s+│ Profile │ State\s+│ Total │ Sent │ Done │ Pending │ Failed │ Invalid │ Not sent │/);
    expect(wide).toMatch(/payment run\s+│ local\s+│ finished/);

    // A job of another profile: at 80 columns each profile's jobs are a table under its name.
    const batchJournal = readdirSync(join(home, 'journals')).find((f) => f.startsWith('claims-'))!;
    const [first, ...rest] = readFileSync(join(home, 'journals', batchJournal), 'utf8').split('\n');
    writeFileSync(join(home, 'journals', 'claims-0123456789abcdef.ndjson'), [JSON.stringify({ ...JSON.parse(first!), profile: 'prod' }), ...rest].join('\n'));
    const two = await tableAt(80);
    expect(two).toMatch(/^Profile (local|prod)$/m);
    expect(two.match(new RegExp(header.source, 'g'))).toHaveLength(2);
    const prodPart = two.slice(two.indexOf('Profile prod'));
    expect(prodPart.split('\n').slice(1).join('\n').split('Profile local')[0]).toMatch(/│ claims-01234567/);
    expect((await tableAt(120)).match(/│ prod\s+│/g)).toHaveLength(1);
  });
});

describe('how far a batch got, and what a resumed run did', () => {
  it('an interrupted batch shows its total, and how many were sent, done, pending and never sent; resumed, the summary speaks of the whole batch and apart of this run', async () => {
    const N = 800;
    const all = Array.from({ length: N }, (_, i) => JSON.stringify(distinctClaim(i)));
    writeFileSync(join(home, 'part.ndjson'), `${all.slice(0, 100).join('\n')}\n`);
    writeFileSync(join(home, 'all.ndjson'), `${all.join('\n')}\n`);
    const journal = join(home, 'batch.journal');
    expect((await run(['claim', 'submit', 'part.ndjson', '--journal', journal, '-o', 'ndjson'])).code).toBe(0);
    // Every submission's connection drops: the batch stops at its first claim (exit 8), having
    // announced one group of 512 and never reached the 188 after it.
    const stopped = await runTpa(['claim', 'submit', 'all.ndjson', '--journal', journal, '--concurrency', '1', '-o', 'ndjson'], {
      home,
      env: { ...env, TPA_FAULT: 'drop:/claims/submit/' },
    });
    expect(stopped.code, stopped.stderr).toBe(8);
    const job = (await run(['jobs', '-o', 'json'])).json<Row[]>().find((j) => j.id === 'batch.journal')!;
    // Of the 512 announced, one went out (its `sent` mark) and was never answered: pending. The 511
    // only announced never went out: not sent, with the 188 never reached.
    expect(job).toMatchObject({ state: 'incomplete', total: N, sent: 101, done: 100, pending: 1, failed: 0, invalid: 0, not_sent: 699 });
    expect(job.done + job.pending + job.failed + job.invalid + job.not_sent).toBe(N);
    expect(job.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const table = await runTpa(['jobs', '--no-color'], { home, env, tty: true, columns: 80 });
    const row = table.stdout.split('\n').find((l) => l.includes('batch.journal'))!;
    expect(row).toMatch(/incomplete.*\b800\b.*\b100\b.*\b1\b.*\b699\b/);
    expect(table.stdout.split('\n').every((l) => l.length <= 80)).toBe(true);
    const shown = await runTpa(['jobs', 'show', 'batch.journal'], { home, env, tty: true, columns: 80 });
    expect(shown.stdout).toMatch(/Not sent\s+699/);
    expect(shown.stdout).toMatch(/Pending\s+1\n/);
    expect(shown.stdout).toMatch(/Updated \(UTC\)\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s/);
    expect(shown.stdout).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}/);

    const resumed = await run(['claim', 'submit', 'all.ndjson', '--journal', journal, '-o', 'table']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/ACKNOWLEDGED\s*│\s*800/);
    expect(resumed.stdout).toMatch(/Total\s*│\s*800/);
    expect(resumed.stdout).toMatch(/This run sent 700; 100 were sent before \(not sent again\)/);
    expect(resumed.stdout).not.toMatch(/SKIPPED/);
    expect((await run(['jobs', '-o', 'json'])).json<Row[]>().find((j) => j.id === 'batch.journal')).toMatchObject({
      state: 'finished',
      total: N,
      done: N,
      not_sent: 0,
    });
  });

  it("the README's line for resending runs as printed: tpa jobs show claims --failed-to fix.ndjson", async () => {
    const line = readFileSync(join(__dirname, '../../../README.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('tpa jobs show') && l.includes('--failed-to'))!;
    const args = line.split('#')[0]!.trim().split(/\s+/).slice(1);
    const bad = distinctClaim(9) as Row;
    delete bad.patient;
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(home, 'claims'));
    writeFileSync(join(home, 'claims', 'good.json'), JSON.stringify(distinctClaim(1)));
    writeFileSync(join(home, 'claims', 'bad.json'), JSON.stringify(bad));
    expect((await runTpa(['claim', 'submit', 'claims/'], { home, env, cwd: home })).code).toBe(2);
    const r = await runTpa(args, { home, env, cwd: home });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(home, 'fix.ndjson'), 'utf8').trim().split('\n')).toHaveLength(1);
  });
});
