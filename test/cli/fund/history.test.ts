// `tpa fund history`: the approvals made from this machine, written before each request is sent and
// completed after, so that one whose answer was lost is listed UNKNOWN until a later approval finds
// out, from the ledger, what became of it.
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TPA_BIN, testEnv, useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

/** An adjudicated institutional encounter of the member; its id and benefit as text. */
async function adjudicated(patient: string): Promise<{ id: string; benefit: string }> {
  const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
  return { id: e.id, benefit: e.amount };
}

describe('tpa fund history', () => {
  it('lists each approval with its outcome; one whose answer was lost and could not be checked is UNKNOWN until the next approval of the encounter finds it in the ledger', async () => {
    const a = await adjudicated('MBR-1003');
    const b = await adjudicated('MBR-1002');
    expect((await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-HIST-0001', '--yes'])).code).toBe(0);
    // The answer is lost, and the ledger cannot be read to find out: exit 8, nothing resent.
    const lost = await run(['fund', 'approve', b.id, '--amount', b.benefit, '--auth-code', 'AUTH-HIST-0002', '--yes'], {
      TPA_FAULT: 'lose-response*1:/funding/approve/,error-503:/ledger/entries/',
    });
    expect(lost.code).toBe(8);
    let history = (await run(['fund', 'history', '-o', 'json'])).json<Record<string, unknown>[]>();
    expect(history).toEqual([
      expect.objectContaining({
        encounter_id: a.id,
        authorization_code: 'AUTH-HIST-0001',
        outcome: 'APPROVED',
        processor_transfer_id: expect.stringMatching(/^tr_/),
        profile: 'local',
        environment: 'local',
        amount: Number(a.benefit),
      }),
      expect.objectContaining({ encounter_id: b.id, authorization_code: 'AUTH-HIST-0002', outcome: 'UNKNOWN', processor_transfer_id: null }),
    ]);
    // Approving it again: the ledger shows the lost approval happened; it is refused (exit 4) and the history says so.
    const again = await run(['fund', 'approve', b.id, '--amount', b.benefit, '--auth-code', 'AUTH-HIST-0003', '--yes']);
    expect(again.code).toBe(4);
    history = (await run(['fund', 'history', '-o', 'json'])).json<Record<string, unknown>[]>();
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({ encounter_id: b.id, outcome: 'APPROVED', processor_transfer_id: expect.stringMatching(/^tr_/) });
    const table = await run(['fund', 'history', '-o', 'table']);
    expect(table.stdout).toMatch(/AUTH-HIST-0001[\s\S]*APPROVED/);
  });

  it('an approval whose transfer FAILED or was REFUNDED since is never shown as one that stands: OWED, or ENDED when funded since, in every form', async () => {
    const a = await adjudicated('MBR-1003');
    const b = await adjudicated('MBR-1002');
    const approve = async (id: string, amount: string, code: string) => {
      const r = await run(['fund', 'approve', id, '--amount', amount, '--auth-code', code, '--yes', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return r.json<{ processor_transfer_id: string }>().processor_transfer_id;
    };
    const ta = await approve(a.id, a.benefit, 'AUTH-HIST-A');
    expect((await run(['local', 'simulate', 'settlement-failure', a.id])).code).toBe(0);
    const tb = await approve(b.id, b.benefit, 'AUTH-HIST-B1');
    expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'refund', b.id])).code).toBe(0);
    const tb2 = await approve(b.id, b.benefit, 'AUTH-HIST-B2');

    const history = await run(['fund', 'history', '-o', 'json']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.json<Record<string, unknown>[]>()).toEqual([
      expect.objectContaining({
        encounter_id: a.id,
        outcome: 'OWED',
        processor_transfer_id: ta,
        transfer_status: 'FAILED',
        message: expect.stringMatching(new RegExp(`transfer ${ta} FAILED .*: owed again$`)),
      }),
      expect.objectContaining({
        encounter_id: b.id,
        outcome: 'ENDED',
        processor_transfer_id: tb,
        transfer_status: 'REFUNDED',
        message: expect.stringContaining(`transfer ${tb} was REFUNDED (2026-`),
      }),
      expect.objectContaining({ encounter_id: b.id, outcome: 'APPROVED', processor_transfer_id: tb2, transfer_status: 'INITIATED' }),
    ]);
    expect(history.json<Record<string, unknown>[]>()[1]!.message).toContain(`funded since by transfer ${tb2} (INITIATED)`);

    const table = (await run(['fund', 'history', '-o', 'table'])).stdout;
    expect(table).toMatch(/Transfer status/);
    expect(table).toMatch(new RegExp(`AUTH-HIST-A\\s.*OWED \\(owed again\\)\\s.*${ta}\\s.*FAILED`));
    expect(table).toMatch(new RegExp(`AUTH-HIST-B1\\s.*ENDED \\(funded since\\)\\s.*${tb}\\s.*REFUNDED`));
    expect(table).not.toMatch(/AUTH-HIST-A\s.*APPROVED/);

    const csv = (await run(['fund', 'history', '-o', 'csv'])).stdout.trim().split('\n');
    // Commas inside a quoted field (a message) do not split it.
    const fields = (line: string) => line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    const header = fields(csv[0]!);
    const cell = (row: number, name: string) => fields(csv[row]!)[header.indexOf(name)];
    expect([cell(1, 'outcome'), cell(1, 'transfer_status')]).toEqual(['OWED', 'FAILED']);
    expect([cell(2, 'outcome'), cell(2, 'transfer_status')]).toEqual(['ENDED', 'REFUNDED']);
    expect([cell(3, 'outcome'), cell(3, 'transfer_status')]).toEqual(['APPROVED', 'INITIATED']);
    // Amounts with two decimals, as a spreadsheet shows money.
    for (const row of [1, 2, 3]) expect(cell(row, 'amount')).toMatch(/^\d+\.\d\d$/);
  });

  it('an approval killed before its answer whose transfer then FAILED: the next approval finds it in the ledger, and it is OWED, not FAILED', async () => {
    const a = await adjudicated('MBR-1003');
    const args = ['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-HIST-KILL', '--yes'];
    // Processed at once, answered a minute later (TPA_FAULT late): killed once the ledger shows it.
    const child = spawn(process.execPath, [TPA_BIN, ...args], {
      env: testEnv({ home: home.dir, env: { TPA_FAULT: 'late-60000:/funding/approve/' } }),
      cwd: home.dir,
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.on('exit', r));
    const approvals = async () =>
      (await run(['ledger', 'show', a.id, '-o', 'json']))
        .json<{ entries: { type: string; reference: string }[] }>()
        .entries.filter((e) => e.type === 'FUNDING_APPROVED');
    while ((await approvals()).length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    expect((await run(['fund', 'history', '-o', 'json'])).json<Record<string, unknown>[]>()).toEqual([
      expect.objectContaining({ authorization_code: 'AUTH-HIST-KILL', outcome: 'UNKNOWN' }),
    ]);
    expect((await run(['local', 'simulate', 'settlement-failure', a.id])).code).toBe(0);
    const again = await run(args);
    expect(again.stderr).toMatch(/AUTH-HIST-KILL .* did happen .*owed again/);
    expect(again.code).not.toBe(0);
    expect((await approvals()).map((e) => e.reference)).toEqual(['AUTH-HIST-KILL']);
    const history = (await run(['fund', 'history', '-o', 'json'])).json<Record<string, unknown>[]>();
    expect(history[0]).toMatchObject({
      authorization_code: 'AUTH-HIST-KILL',
      outcome: 'OWED',
      transfer_status: 'FAILED',
      processor_transfer_id: expect.stringMatching(/^tr_/),
    });
  });
});
