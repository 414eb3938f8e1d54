// `tpa fund history`: the approvals made from this machine, written before each request is sent and
// completed after, so that one whose answer was lost is listed UNKNOWN until a later approval finds
// out, from the ledger, what became of it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

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
});
