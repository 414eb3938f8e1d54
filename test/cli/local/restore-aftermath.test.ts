// After `tpa local restore` the database is a new one (docs/local-data.md "Backups"): what this machine
// recorded of the database before it (fund history, the journals of batches) is history for it at
// once, shown apart and never counted as this database's; and a release after the restore never
// repeats a transfer id the database before it gave.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa, useTpaHome } from '../../helpers/cli.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };

interface HistoryRow {
  authorization_code: string;
  outcome: string;
  processor_transfer_id: string | null;
  transfer_status: string | null;
  database: string | null;
  history: string | null;
}

describe("what a restore leaves of this machine's records", () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  /** A claim adjudicated, a backup of the database holding it unfunded, then its release: the restore's starting point. */
  async function releasedAfterBackup(): Promise<{ encounter: string; amount: string; backup: string; first: string }> {
    const claim = join(out.dir, 'claim.json');
    // The template's claim: a benefit to release (the member's deductible does not take it all).
    writeFileSync(claim, (await home.run(['claim', 'template'])).stdout);
    const sub = await home.run(['claim', 'submit', claim, '--wait', '-o', 'json']);
    expect(sub.code, sub.stderr).toBe(0);
    const encounter = sub.json<{ external_claim_id: string }>().external_claim_id;
    const ledger = (await home.run(['ledger', 'show', encounter, '-o', 'json'])).json<{ financial_summary: { payer_responsibility: { total: number } } }>();
    const amount = ledger.financial_summary.payer_responsibility.total.toFixed(2);
    expect(Number(amount)).toBeGreaterThan(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const approve = await home.run(['fund', 'approve', encounter, '--amount', amount, '--auth-code', 'AUTH-20261205-ACME-0001', '--yes', '-o', 'json']);
    expect(approve.code, approve.stderr).toBe(0);
    return { encounter, amount, backup, first: approve.json<{ processor_transfer_id: string }>().processor_transfer_id };
  }

  it('a release after the restore does not repeat the transfer id the database before it gave', async () => {
    const { encounter, amount, backup, first } = await releasedAfterBackup();
    expect((await home.run(['local', 'restore', backup, '--yes'])).code).toBe(0);
    const again = await home.run(['fund', 'approve', encounter, '--amount', amount, '--auth-code', 'AUTH-20261205-ACME-0002', '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    const second = again.json<{ processor_transfer_id: string }>().processor_transfer_id;
    expect(second).toMatch(/^tr_[0-9a-f]{20}$/);
    expect(second).not.toBe(first);
    // The settlement and the ledger name the new transfer, and the audit chain is whole.
    expect((await home.run(['settlement', 'show', encounter, '-o', 'json'])).json<{ processor_transfer_id: string }>().processor_transfer_id).toBe(second);
    expect((await home.run(['local', 'audit', 'verify'])).code).toBe(0);
  });

  it('fund history shows a release sent to the database before the restore apart, as history, its transfer not read', async () => {
    const { encounter, amount, backup } = await releasedAfterBackup();
    expect((await home.run(['local', 'restore', backup, '--yes'])).code).toBe(0);
    expect((await home.run(['fund', 'approve', encounter, '--amount', amount, '--auth-code', 'AUTH-20261205-ACME-0002', '--yes'])).code).toBe(0);
    const health = (await home.run(['health', '-o', 'json'])).json<{ database: { id: string } }>();
    const rows = (await home.run(['fund', 'history', '-o', 'json'])).json<HistoryRow[]>();
    expect(rows).toHaveLength(2);
    const [before, now] = rows as [HistoryRow, HistoryRow];
    expect(now).toMatchObject({ authorization_code: 'AUTH-20261205-ACME-0002', database: health.database.id, history: null, transfer_status: 'INITIATED' });
    expect(before.authorization_code).toBe('AUTH-20261205-ACME-0001');
    expect(before.database).toMatch(/^db_/);
    expect(before.database).not.toBe(health.database.id);
    expect(before.history).toBe(`sent to database ${before.database} (before a reset or restore); the database answering now is ${health.database.id}`);
    expect(before.transfer_status).toBeNull();
    // On a terminal: this database's approvals, then the history apart with why.
    const tty = await runTpa(['fund', 'history'], { home: home.dir, env: CLOCK, tty: true, columns: 200 });
    expect(tty.code).toBe(0);
    const [current, past] = tty.stdout.split(/History/);
    expect(current).toContain('AUTH-20261205-ACME-0002');
    expect(current).not.toContain('AUTH-20261205-ACME-0001');
    expect(past).toContain(`sent to database ${before.database} (before a reset or restore)`);
    expect(past).toContain('AUTH-20261205-ACME-0001');
  });

  it('tpa jobs lists a batch sent after the backup as history at once: nothing of it in this database, every claim not sent', async () => {
    const claim = join(out.dir, 'claim.json');
    writeFileSync(claim, JSON.stringify(distinctClaim(0)));
    expect((await home.run(['claim', 'submit', claim])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const folder = join(out.dir, 'batch');
    mkdirSync(folder);
    for (const i of [1, 2, 3]) writeFileSync(join(folder, `claim-${i}.json`), JSON.stringify(distinctClaim(i)));
    expect((await home.run(['claim', 'submit', folder])).code).toBe(0);
    const listed = async () => (await home.run(['jobs', '-o', 'json'])).json<Record<string, unknown>[]>().find((j) => j.kind === 'claim batch')!;
    expect(await listed()).toMatchObject({ state: 'finished', sent: 3, done: 3, history: null });

    expect((await home.run(['local', 'restore', backup, '--yes'])).code).toBe(0);
    const job = await listed();
    expect(job).toMatchObject({ state: 'incomplete', total: 3, sent: 0, done: 0, not_sent: 3 });
    expect(job.history).toMatch(/was sent to another database \(db_[0-9a-f]+\); the database answering now is db_/);
    const shown = await home.run(['jobs', 'show', String(job.id), '-o', 'json']);
    expect(shown.json()).toMatchObject({ done: 0, not_sent: 3, items: [] });
    const tty = await runTpa(['jobs'], { home: home.dir, env: CLOCK, tty: true, columns: 80 });
    expect(tty.stdout).toContain('History (sent to another database, before a reset or restore):');
    // Run again, it sends all three to this database, and is then this database's.
    expect((await home.run(['claim', 'submit', folder])).code).toBe(0);
    expect(await listed()).toMatchObject({ state: 'finished', sent: 3, done: 3 });
  });
  it('tpa jobs and jobs show say a payment run made before the restore is history', async () => {
    const claims = join(out.dir, 'claims.ndjson');
    writeFileSync(claims, `${[0, 1, 2, 3, 4, 5].map((i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
    expect((await home.run(['claim', 'submit', claims])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const { total } = (await home.run(['fund', 'run', '--dry-run', '-o', 'json'])).json<{ total: number }>();
    const run = await home.run(['fund', 'run', '--auth-code-prefix', 'AUTH-20261205-A', '--expect-total', String(total), '--yes', '-o', 'ndjson']);
    expect(run.code, run.stderr).toBe(0);
    const listed = async () => (await home.run(['jobs', '-o', 'json'])).json<Record<string, unknown>[]>().find((j) => j.kind === 'payment run')!;
    expect((await listed()).history).toBeNull();

    expect((await home.run(['local', 'restore', backup, '--yes'])).code).toBe(0);
    const job = await listed();
    expect(job.history).toMatch(/was sent to another database \(db_[0-9a-f]+\); the database answering now is db_/);
    const shown = await runTpa(['jobs', 'show', String(job.id)], { home: home.dir, env: CLOCK, tty: true, columns: 120 });
    expect(shown.stdout).toContain('History');
  });
});

describe('X12 interchange control numbers across a backup and a restore', () => {
  const home = useTpaHome(beforeEach, afterEach);
  const elsewhere = useTpaHome(beforeEach, afterEach);

  /** The ISA13 of the 835 `tpa settlement remit` prints for the encounter. */
  const isa13 = async (run: typeof home.run, encounter: string) => {
    const r = await run(['settlement', 'remit', encounter]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.split('~')[0]!.split('*')[13];
  };

  it('a backup carries the last ISA13: restored into a fresh data directory, the next remit goes on from it, not from 000000001', async () => {
    expect((await home.run(['local', 'clock', 'set', '2026-03-02T10:00:00Z'])).code).toBe(0);
    const claim = join(home.dir, 'claim.json');
    writeFileSync(claim, (await home.run(['claim', 'template', '--cpt', '45378'])).stdout);
    const sub = await home.run(['claim', 'submit', claim, '--wait', '-o', 'json']);
    expect(sub.code, sub.stderr).toBe(0);
    const encounter = sub.json<{ external_claim_id: string }>().external_claim_id;
    const ledger = (await home.run(['ledger', 'show', encounter, '-o', 'json'])).json<{ financial_summary: { payer_responsibility: { total: number } } }>();
    const amount = ledger.financial_summary.payer_responsibility.total.toFixed(2);
    const approve = await home.run(['fund', 'approve', encounter, '--amount', amount, '--auth-code', 'AUTH-20260302-ACME-0001', '--yes']);
    expect(approve.code, approve.stderr).toBe(0);
    expect((await home.run(['local', 'clock', 'advance', '3d'])).code).toBe(0);
    const written = [await isa13(home.run, encounter), await isa13(home.run, encounter), await isa13(home.run, encounter)];
    expect(written).toEqual(['000000001', '000000002', '000000003']);
    const backup = join(elsewhere.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const restored = await elsewhere.run(['local', 'restore', backup, '--yes']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(await isa13(elsewhere.run, encounter)).toBe('000000004');
    // The data directory it was taken in goes on from its own, unchanged by the backup.
    expect(await isa13(home.run, encounter)).toBe('000000004');
  });
});
