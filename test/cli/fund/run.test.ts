// `tpa fund run` through real processes on the embedded engine: the review, the confirmation by
// exact total, exactly-once approvals across kill -9 at random points, a lost answer settled from
// the ledger, and a resumed run that never widens its selection.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOf, distinctClaim } from '../../helpers/claims.js';
import { RELATED_CLAIM_RELATIONSHIP_SYSTEM } from '../../../src/domain/fhir-claim.js';
import { formatCents, formatCentsGrouped } from '../../../src/domain/money.js';
import { runTpa, TPA_BIN, testEnv } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { journalRecords, killRepeatedly } from '../../helpers/kill.js';
import { serve } from '../../helpers/server.js';
import { cents, ndjson } from '../../helpers/values.js';

const CLOCK = '2026-06-30T12:00:00Z';
const env = { TPA_CLOCK: CLOCK };

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

/** `n` distinct adjudicated claims (from `offset` on), submitted as one NDJSON batch. */
async function ledgerOf(n: number, offset = 0): Promise<void> {
  const lines: string[] = [];
  for (let i = offset; i < offset + n; i++) {
    lines.push(JSON.stringify(distinctClaim(i)));
  }
  const file = join(home, `claims-${offset}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = await runTpa(['claim', 'submit', file, '-o', 'ndjson'], { home, env });
  expect(r.code, r.stderr).toBe(0);
}

type Row = Record<string, any>;

async function review(): Promise<{ count: number; total: string; encounters: Row[] }> {
  const r = await runTpa(['fund', 'run', '--dry-run', '-o', 'json', '-p', 'local'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

async function funded(): Promise<Row[]> {
  const r = await runTpa(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson', '-p', 'local'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout);
}

describe('tpa fund run', () => {
  it('--dry-run reviews every selected encounter (json and csv) with totals per provider, and sends nothing', async () => {
    await ledgerOf(24);
    const r = await review();
    expect(r.count).toBeGreaterThan(5);
    expect(r.encounters).toHaveLength(r.count);
    const sum = r.encounters.reduce((s, e) => s + cents(e.amount), 0);
    expect(sum).toBe(cents(r.total));
    const csv = await runTpa(['fund', 'run', '--dry-run', '-o', 'csv'], { home, env });
    expect(csv.stdout.trim().split('\n')).toHaveLength(r.count + 1);
    expect(await funded()).toHaveLength(0);
  });

  it('without a terminal it needs --auth-code-prefix, --expect-total and --yes; a total off by one cent sends nothing (exit 4)', async () => {
    await ledgerOf(12);
    const { total } = await review();
    const missing = await runTpa(['fund', 'run', '--yes'], { home, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--auth-code-prefix, --expect-total/);
    const off = formatCents(cents(total) - 1);
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-T', '--expect-total', String(off), '--yes', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`not the expected ${formatCentsGrouped(cents(off))}`);
    expect(await funded()).toHaveLength(0);
  });

  it('approves each selected encounter once with <prefix>-NNNN codes; the same command again reports the run and sends nothing', async () => {
    await ledgerOf(24);
    const { count, total, encounters } = await review();
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-ACME', '--expect-total', String(total), '--yes', '-o', 'ndjson'];
    const r = await runTpa(args, { home, env });
    expect(r.code, r.stderr).toBe(0);
    const out = ndjson(r.stdout);
    expect(out.map((o) => o.status)).toEqual(Array(count).fill('APPROVED'));
    expect(out.map((o) => o.encounter_id)).toEqual(encounters.map((e) => e.encounter_id));
    expect(out.map((o) => o.authorization_code)).toEqual(out.map((_, i) => `AUTH-20260630-ACME-${String(i + 1).padStart(4, '0')}`));
    expect(out.reduce((s, o) => s + cents(o.amount), 0)).toBe(cents(total));
    expect(await funded()).toHaveLength(count);

    const again = await runTpa(args, { home, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming the payment run AUTH-20260630-ACME .*: 0 of \d+ approvals left/);
    expect(ndjson(again.stdout)).toEqual(out);
    expect(await funded()).toHaveLength(count);
    // Each approval is in this machine's fund history, with its transfer.
    const history = ndjson((await runTpa(['fund', 'history', '-o', 'ndjson'], { home, env })).stdout);
    expect(history.map((h) => [h.authorization_code, h.outcome, h.processor_transfer_id])).toEqual(
      out.map((o) => [o.authorization_code, 'APPROVED', o.processor_transfer_id]),
    );
    // A dry run with the same prefix only reviews: it never resumes (and sends) the run.
    const dry = await runTpa(['fund', 'run', '--dry-run', '--auth-code-prefix', 'AUTH-20260630-ACME', '-o', 'json'], { home, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toMatchObject({ count: 0, total: 0 });
    expect(dry.stderr).not.toMatch(/resuming/);
    // A new run under the same prefix (its journal gone) would repeat those codes: refused, nothing sent.
    await ledgerOf(2, 24);
    const more = await review();
    const journals = join(home, 'journals');
    for (const f of readdirSync(journals)) if (f.startsWith('fund-run-AUTH-20260630-ACME')) rmSync(join(journals, f));
    const reused = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-ACME', '--expect-total', String(more.total), '--yes'], { home, env });
    expect(reused.code, reused.stderr).toBe(4);
    expect(reused.stderr).toMatch(/--auth-code-prefix AUTH-20260630-ACME was used already: AUTH-20260630-ACME-\d{4} was given to an approval/);
    expect(reused.stderr).toMatch(/--auth-code-prefix AUTH-20260630-ACME2/);
    expect(await funded()).toHaveLength(count);
  });

  it('a lost answer is settled from the ledger, never resent; an encounter funded by someone else meanwhile is SKIPPED', async () => {
    await ledgerOf(12);
    const { count, total } = await review();
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-LOST', '--expect-total', String(total), '--yes', '-o', 'ndjson'], {
      home,
      env: { ...env, TPA_FAULT: 'lose-response*1:/funding/approve/,approved-elsewhere*1:/funding/approve/' },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = ndjson(r.stdout);
    expect(out).toHaveLength(count);
    expect(out[0]!.status).toBe('APPROVED');
    expect(out[0]!.processor_transfer_id).toMatch(/^tr_/);
    expect(out.filter((o) => o.status === 'SKIPPED')).toHaveLength(1);
    expect(out.filter((o) => o.status === 'SKIPPED')[0]!.message).toMatch(/funded by another approval/);
    // The fund history says the same: SKIPPED, not a refusal of the code.
    const skipped = out.find((o) => o.status === 'SKIPPED')!;
    const history = ndjson((await runTpa(['fund', 'history', '-o', 'ndjson'], { home, env })).stdout);
    expect(history.filter((h) => h.authorization_code === skipped.authorization_code).map((h) => h.outcome)).toEqual(['SKIPPED']);
    expect(await funded()).toHaveLength(count);
  });

  it('against local serve: a lost answer in the middle of the run is settled from the ledger; each encounter funded once', async () => {
    await ledgerOf(12);
    const { count, total } = await review();
    const server = await serve(home, ['--no-rate-limit'], { ...env, TPA_FAULT: 'lose-response*1:/funding/approve/' });
    try {
      const key = (await runTpa(['local', 'keys', 'create'], { home, env })).stdout.trim();
      expect((await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home, input: key })).code).toBe(0);
      const r = await runTpa(
        ['fund', 'run', '--profile', 'sandbox', '--auth-code-prefix', 'AUTH-20260630-HTTP', '--expect-total', String(total), '--yes', '-o', 'ndjson'],
        { home, env },
      );
      expect(r.code, r.stderr).toBe(0);
      const out = ndjson(r.stdout);
      expect(out.map((o) => o.status)).toEqual(Array(count).fill('APPROVED'));
      expect(out.reduce((s, o) => s + cents(o.amount), 0)).toBe(cents(total));
      await server.settled();
      expect(server.stderr()).toMatch(/connection dropped \(TPA_FAULT lose-response\)/);
    } finally {
      await server.stop();
    }
    expect(await funded()).toHaveLength(count);
  });

  it('killed (kill -9) at random points 20 times, then resumed: every selected encounter funded exactly once, the transfers summing to the confirmed total, nothing selected later', async () => {
    await ledgerOf(300);
    const { count, total } = await review();
    const journal = join(home, 'run.journal');
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-KILL', '--expect-total', String(total), '--yes', '--journal', journal, '-o', 'ndjson'];
    // Each approval takes 40 ms more (TPA_FAULT slow): a run lasts seconds. Each kill comes once the
    // run has recorded an outcome (however long it took to start): the plan is in the journal by then.
    const { killed, finished } = await killRepeatedly(args, {
      home,
      env: { ...env, TPA_FAULT: 'slow-40:/funding/approve/' },
      kills: 20,
      minMs: 0,
      spreadMs: 600,
      progress: () => journalRecords(journal, 'outcome'),
      onExit: (code) => expect(code).toBe(0),
      // Claims adjudicated after the run began: a resumed run must not take them.
      afterKill: async (n) => (n === 5 ? ledgerOf(6, 1000) : undefined),
    });
    // Twenty kills, unless the run was done first (then it ended by itself, exit 0).
    expect(killed === 20 || (finished && killed > 0), `${killed} killed`).toBe(true);
    const last = await runTpa(args, { home, env });
    expect(last.code, last.stderr).toBe(0);
    const out = ndjson(last.stdout);
    const plan = ndjson(readFileSync(journal, 'utf8')).find((r) => r.type === 'payment_run')!.plan;
    expect(plan.encounters).toHaveLength(count);
    expect(out).toHaveLength(count);
    expect(out.every((o) => o.status === 'APPROVED')).toBe(true);
    const funds = await funded();
    expect(funds).toHaveLength(count);
    const planned = new Set(plan.encounters.map((e: Row) => e.encounter_id));
    expect(funds.every((f) => planned.has(f.encounter_id))).toBe(true);
    expect(funds.reduce((s, f) => s + cents(f.financial_summary.benefit_amount), 0)).toBe(cents(total));
    // Each funded once: one FUNDING_APPROVED entry, with the run's code for that encounter.
    const codes = new Map(plan.encounters.map((e: Row) => [e.encounter_id, e.authorization_code]));
    for (const id of [...planned].slice(0, 40)) {
      const detail = await runTpa(['ledger', 'show', id as string, '-o', 'json'], { home, env });
      const approvals = (detail.json() as Row).entries.filter((e: Row) => e.type === 'FUNDING_APPROVED');
      expect(approvals.map((e: Row) => e.reference)).toEqual([codes.get(id)]);
    }
  });

  it('killed while an approval waits for its answer, then its transfer FAILED: resumed, it is OWED (exit 4) and never sent again', async () => {
    await ledgerOf(3);
    const { count, total, encounters } = await review();
    const journal = join(home, 'run.journal');
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-OWED', '--expect-total', String(total), '--yes', '--journal', journal, '-o', 'ndjson'];
    // The first approval is processed at once and answered a minute later (TPA_FAULT late): the run
    // is killed once the ledger shows it funded, before its answer.
    const child = spawn(process.execPath, [TPA_BIN, ...args], {
      env: testEnv({ home, env: { ...env, TPA_FAULT: 'late-60000:/funding/approve/' } }),
      cwd: home,
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.on('exit', r));
    while ((await funded()).length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    const first = encounters[0]!.encounter_id as string;
    expect((await runTpa(['local', 'simulate', 'settlement-failure', first], { home, env })).code).toBe(0);
    const resumed = await runTpa(args, { home, env });
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(resumed.stderr).not.toMatch(/sending it again/);
    const out = ndjson(resumed.stdout);
    expect(out).toHaveLength(count);
    expect(out[0]).toMatchObject({ encounter_id: first, status: 'OWED', processor_transfer_id: expect.stringMatching(/^tr_/) });
    expect(out[0]!.message).toMatch(/FAILED/);
    expect(out.slice(1).every((o) => o.status === 'APPROVED')).toBe(true);
    const detail = (await runTpa(['ledger', 'show', first, '-o', 'json'], { home, env })).json() as Row;
    expect(detail.entries.filter((e: Row) => e.type === 'FUNDING_APPROVED').map((e: Row) => e.reference)).toEqual(['AUTH-20260630-OWED-0001']);
    // The same command again says the same: the approval happened, then its transfer failed.
    const again = await runTpa(args, { home, env });
    expect(again.code, again.stderr).toBe(4);
    expect(ndjson(again.stdout)[0]).toMatchObject({ status: 'OWED' });
    const history = ndjson((await runTpa(['fund', 'history', '-o', 'ndjson'], { home, env })).stdout);
    expect(history.find((h) => h.authorization_code === 'AUTH-20260630-OWED-0001')).toMatchObject({ outcome: 'OWED' });
    // The claim voided since (a correction before funding anew): nothing is owed on it, and the same
    // command says so instead of counting it owed again (exit 0: every other encounter is approved).
    const line = detail.service_lines[0] as Row;
    const voiding = {
      ...claimOf({
        npi: detail.encounter.provider.npi,
        patient: detail.encounter.patient.member_id,
        lines: [{ code: line.cpt_code, date: line.service_date }],
      }),
      status: 'cancelled',
      related: [{ claim: { identifier: { value: first } }, relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code: 'prior' }] } }],
    };
    writeFileSync(join(home, 'void.json'), JSON.stringify(voiding));
    const voided = await runTpa(['claim', 'submit', join(home, 'void.json'), '-o', 'ndjson'], { home, env });
    expect(voided.code, voided.stderr + voided.stdout).toBe(0);
    const closed = await runTpa(args, { home, env });
    expect(closed.code, closed.stderr).toBe(0);
    expect(ndjson(closed.stdout)[0]).toMatchObject({ encounter_id: first, status: 'SKIPPED' });
    expect(ndjson(closed.stdout)[0]!.message).toMatch(/VOIDED since: nothing is owed on it/);
  });
});
