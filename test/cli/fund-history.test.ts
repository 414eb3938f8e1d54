// `tpa fund history`: the approvals made from this machine, written before each request is sent and
// completed after, so that one whose answer was lost is listed UNKNOWN until a later approval finds
// out, from the ledger, what became of it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());
const run = (args: string[], env: Record<string, string> = {}) => tpa(args, { home: home.dir, env });

async function adjudicated(patient: string): Promise<{ id: string; benefit: string }> {
  const t = await run(['claim', 'template', '--type', 'institutional', '--patient', patient]);
  writeFileSync(join(home.dir, `${patient}.json`), t.stdout);
  const s = await run(['claim', 'submit', join(home.dir, `${patient}.json`), '--wait', '-o', 'json']);
  expect(s.code, s.stderr).toBe(0);
  const body = s.json<{ external_claim_id: string; adjudication: { benefit_amount: number } }>();
  return { id: body.external_claim_id, benefit: body.adjudication.benefit_amount.toFixed(2) };
}

describe('tpa fund history', () => {
  it('lists each approval with its outcome; one whose answer was lost and could not be checked is UNKNOWN until the next approval of the encounter finds it in the ledger', async () => {
    const a = await adjudicated('MBR-1003');
    const b = await adjudicated('MBR-1002');
    expect((await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-HIST-0001', '--yes'])).code).toBe(0);
    // The answer is lost, and the ledger cannot be read to find out: exit 8, nothing resent.
    const lost = await run(['fund', 'approve', b.id, '--amount', b.benefit, '--auth-code', 'AUTH-HIST-0002', '--yes'], { TPA_FAULT: 'lose-response*1:/funding/approve/,error-503:/ledger/entries/' });
    expect(lost.code).toBe(8);
    let history = (await run(['fund', 'history', '-o', 'json'])).json<Record<string, unknown>[]>();
    expect(history).toEqual([
      expect.objectContaining({ encounter_id: a.id, authorization_code: 'AUTH-HIST-0001', outcome: 'APPROVED', processor_transfer_id: expect.stringMatching(/^tr_/), profile: 'local', environment: 'local', amount: Number(a.benefit) }),
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
