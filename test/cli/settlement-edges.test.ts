// The ledger must say what happened, through the real bin/tpa: failed and refunded transfers, the
// simulated AEOB variance, and ledger entries without an adjudication. Each test failed on the CLI
// before these rules.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../helpers/encounters.js';
import { cents } from '../helpers/values.js';

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

beforeEach(async () => {
  // Monday 2 March 2026: the transfer arrives on Tuesday.
  expect((await run(['local', 'clock', 'set', '2026-03-02T10:00:00Z'])).code).toBe(0);
});

/** Submits a claim and waits for its adjudication; the encounter id and the claim response. */
const adjudicated = (template: string[] = ['--type', 'institutional'], edit?: (claim: Body) => void) => adjudicatedEncounter(run, home.dir, { template, edit });

const fund = (id: string, code: string, amount = '2460.00') => run(['fund', 'approve', id, '--amount', amount, '--auth-code', code, '--yes']);
const ledger = async (id: string) => (await run(['ledger', 'show', id])).json<Body>();
const listed = async (status: string) =>
  (await run(['ledger', 'list', '--status', status])).json<{ results: Body[] }>().results.map((r) => r.encounter_id as string);

describe('a failed transfer', () => {
  it('leaves FUNDED, records the failure, and fund approve pays again under a new authorization code', async () => {
    const { id } = await adjudicated();
    const first = (await fund(id, 'AUTH-1')).json<Body>();
    expect((await run(['local', 'simulate', 'settlement-failure', id])).code).toBe(0);
    expect(await listed('FUNDED')).toEqual([]);
    expect(await listed('ADJUDICATED')).toEqual([id]);
    const d = await ledger(id);
    expect(d.entries.at(-1)).toMatchObject({ type: 'SETTLEMENT_FAILED', reference: first.processor_transfer_id, financial_impact: { failed_amount: 2460 } });
    expect(d.financial_summary.balance).toEqual({ running_balance: 2460, status: 'FAILED' });

    const reused = await fund(id, 'AUTH-1');
    expect(reused.code).toBe(2);
    expect(reused.stderr).toMatch(/authorization_code: .*new authorization code/);
    const again = await fund(id, 'AUTH-2');
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/FAILED; this approval starts a new transfer/);
    const second = again.json<Body>();
    expect(second.processor_transfer_id).not.toBe(first.processor_transfer_id);
    expect((await fund(id, 'AUTH-3')).code).toBe(4);

    const shown = (await run(['settlement', 'show', id])).json<Body>();
    expect(shown).toMatchObject({
      processor_transfer_id: second.processor_transfer_id,
      status: 'INITIATED',
      previous_transfers: [{ processor_transfer_id: first.processor_transfer_id, status: 'FAILED' }],
    });
    const table = await run(['settlement', 'show', id, '-o', 'table']);
    expect(table.stdout).toMatch(/Earlier transfers/);
    expect(table.stdout).toContain(first.processor_transfer_id);
  });

  it('a re-approval with the Idempotency-Key of the failed one is the replay of that answer: exit 4, never reported APPROVED', async () => {
    const { id } = await adjudicated();
    const withKey = (code: string) =>
      run(['fund', 'approve', id, '--amount', '2460.00', '--auth-code', code, '--idempotency-key', `fund-${id}`, '--yes', '-o', 'json']);
    const first = (await withKey('AUTH-1')).json<Body>();
    expect((await run(['local', 'simulate', 'settlement-failure', id])).code).toBe(0);
    // The same request again, key and all: the service keeps the first answer for that key and sends
    // it again, an ended transfer, not a new one.
    const replayed = await withKey('AUTH-1');
    expect(replayed.code, replayed.stderr).toBe(4);
    expect(replayed.stdout).not.toMatch(/APPROVED/);
    expect(replayed.stderr).toContain(`transfer ${first.processor_transfer_id}, which already ended`);
    expect(replayed.stderr).toMatch(/nothing moved\. Encounter .* is still owed/);
    expect(await listed('ADJUDICATED')).toEqual([id]);
    expect((await run(['settlement', 'show', id])).json<Body>()).toMatchObject({ processor_transfer_id: first.processor_transfer_id, status: 'FAILED' });
    const history = (await run(['fund', 'history', '-o', 'json'])).json<Body[]>();
    expect(history).toHaveLength(2);
    expect(history.at(-1)!.outcome).not.toBe('APPROVED');
  });

  it('concurrent re-approvals from several processes fund it again exactly once', async () => {
    const { id } = await adjudicated();
    await fund(id, 'AUTH-1');
    await run(['local', 'simulate', 'settlement-failure', id]);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => fund(id, `AUTH-R${i}`)));
    expect(results.map((r) => r.code).sort()).toEqual([0, 4, 4, 4, 4]);
    const d = await ledger(id);
    expect(d.entries.filter((e: Body) => e.type === 'FUNDING_APPROVED')).toHaveLength(2);
    expect(d.encounter.status).toBe('FUNDED');
  });
});

describe('a refund', () => {
  it('brings back the net, no longer matches, shows the benefit owed, and can be funded again', async () => {
    const { id } = await adjudicated();
    const first = (await fund(id, 'AUTH-1')).json<Body>();
    await run(['local', 'clock', 'advance', '2d']);
    expect(await listed('RECONCILED')).toEqual([id]);
    const refund = await run(['local', 'simulate', 'refund', id]);
    expect(refund.code).toBe(0);
    expect(refund.json()).toMatchObject({
      status: 'REFUNDED',
      reconciliation_status: 'UNMATCHED',
      aeob_match: { settlement_amount: 0, aeob_amount: 2460, variance: -2460, match_status: 'VARIANCE' },
      refund_details: { amount: 2404.68, gross_amount: 2460, fees_not_returned: 55.32 },
    });
    const table = await run(['settlement', 'show', id, '-o', 'table']);
    expect(table.stdout).toMatch(/2,404\.68 came back of 2,460\.00 sent, processor fees of 55\.32 not returned/);
    expect(await listed('RECONCILED')).toEqual([]);
    const d = await ledger(id);
    expect(d.encounter.status).toBe('ADJUDICATED');
    expect(d.entries.at(-1)).toMatchObject({ type: 'SETTLEMENT_REFUNDED', financial_impact: { refunded_amount: 2404.68 } });
    expect(d.financial_summary.balance).toEqual({ running_balance: 2460, status: 'REFUNDED' });

    const again = await fund(id, 'AUTH-2');
    expect(again.code).toBe(0);
    expect(again.json<Body>().processor_transfer_id).not.toBe(first.processor_transfer_id);
  });
});

describe('the simulated AEOB variance', () => {
  it('on a benefit under 12.34 states an AEOB of 0.00, and is refused on a refunded transfer', async () => {
    // A pathology line of 50.00: allowed 35.00, copay 25.00, coinsurance 2.00, benefit 8.00.
    const small = await adjudicated(['--type', 'professional', '--npi', '1329475804', '--cpt', '88312', '--patient', 'MBR-1003'], (c) => {
      c.item[0].unitPrice.value = 50;
      c.item[0].net.value = 50;
      c.total.value = 50;
    });
    const benefit = small.response.adjudication.benefit_amount as number;
    expect(cents(benefit)).toBeLessThan(1234);
    expect((await fund(small.id, 'AUTH-S', small.amount)).code).toBe(0);
    const { id } = await adjudicated();
    await fund(id, 'AUTH-1');
    await run(['local', 'clock', 'advance', '2d']);
    const v = await run(['local', 'simulate', 'aeob-variance', small.id]);
    expect(v.json()).toMatchObject({ aeob_match: { aeob_amount: 0, variance: benefit, match_status: 'VARIANCE' } });

    await run(['local', 'simulate', 'refund', id]);
    const refused = await run(['local', 'simulate', 'aeob-variance', id]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/REFUNDED/);
    const d = await ledger(id);
    expect(d.entries.filter((e: Body) => e.type === 'RECONCILIATION')).toHaveLength(1);
  });
});

describe('an AEOB variance after a missing AEOB', () => {
  it("is the payer's AEOB arriving late: the settlement becomes VARIANCE with one new entry saying so; stated again, exit 4 and nothing added", async () => {
    const { id, response } = await adjudicated();
    expect((await fund(id, 'AUTH-LATE')).code).toBe(0);
    await run(['local', 'clock', 'advance', '2d']);
    expect((await run(['local', 'simulate', 'missing-aeob', id])).code).toBe(0);
    const before = (await ledger(id)).entries as Body[];
    expect(before.at(-1)).toMatchObject({ type: 'RECONCILIATION_UNMATCHED', description: expect.stringMatching(/^Not reconciled: no AEOB/) });

    const late = await run(['local', 'simulate', 'aeob-variance', id]);
    expect(late.code, late.stderr).toBe(0);
    const benefit = cents(response.adjudication.benefit_amount);
    expect(late.json()).toMatchObject({ aeob_match: { match_status: 'VARIANCE', aeob_amount: (benefit - 1234) / 100, variance: 12.34 } });
    const shown = (await run(['settlement', 'show', id])).json<Body>();
    expect(shown.aeob_match).toMatchObject({ match_status: 'VARIANCE', aeob_amount: (benefit - 1234) / 100 });
    const after = (await ledger(id)).entries as Body[];
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ type: 'RECONCILIATION_UNMATCHED', description: expect.stringMatching(/differs from AEOB .* by 12\.34 \(VARIANCE\)/) });
    // No entry repeats the one before it.
    for (const [i, e] of after.entries()) if (i > 0) expect([e.type, e.description]).not.toEqual([after[i - 1]!.type, after[i - 1]!.description]);

    const again = await run(['local', 'simulate', 'aeob-variance', id]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('already states the variance; nothing changed');
    expect((await ledger(id)).entries).toHaveLength(after.length);
  });
});

describe('ledger entries without an adjudication', () => {
  it('a pended entry shows null amounts and no AEOB or trace; a denied one its AEOB only', async () => {
    const pended = await adjudicated(['--type', 'professional', '--npi', '1582736496', '--cpt', '29881']);
    const original = await adjudicated();
    const denied = await adjudicated();
    expect(denied.response.disposition).toBe('DENIED');
    const items = (await run(['ledger', 'list'])).json<{ results: Body[] }>().results;
    for (const id of [pended.id, denied.id]) {
      const { charges, ...amounts } = items.find((r) => r.encounter_id === id)!.financial_summary;
      expect(charges).toBeGreaterThan(0);
      expect(Object.values(amounts).every((v) => v === null)).toBe(true);
    }
    const p = await ledger(pended.id);
    expect(p.financial_summary).toMatchObject({ allowed_amount: null, adjustments: { contractual_adjustment: null } });
    expect(p.reconciliation).toMatchObject({ aeob_reference: null, processor_trace_id: null });
    const table = await run(['ledger', 'show', pended.id, '-o', 'table']);
    expect(table.stdout).toMatch(/Contractual adjustment\s+—\n/);
    expect(table.stdout).toMatch(/AEOB\s+—\n/);
    expect((await ledger(denied.id)).reconciliation).toMatchObject({ aeob_reference: denied.response.aeob_reference, processor_trace_id: null });
    expect((await ledger(original.id)).reconciliation).toMatchObject({
      aeob_reference: original.response.aeob_reference,
      processor_trace_id: original.response.processor_trace_id,
    });
  });

  it('ledger list --status SUBMITTED finds the claims not yet adjudicated, with no AEOB or trace', async () => {
    const file = await claimFile(run, home.dir);
    const waiting = (await run(['claim', 'submit', file], { TPA_ADJUDICATION_DELAY: '1h' })).json<{ external_claim_id: string }>().external_claim_id;
    const { id: done } = await adjudicated(['--type', 'professional', '--cpt', '43235']);
    expect(await listed('SUBMITTED')).toEqual([waiting]);
    expect(await listed('PROCESSING')).toEqual([waiting]);
    expect(await listed('ADJUDICATED')).toEqual([done]);
    expect((await ledger(waiting)).reconciliation).toMatchObject({ aeob_reference: null, processor_trace_id: null });
  });
});
