import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

/** An adjudicated institutional encounter (benefit 2,460.00 to four providers); more template arguments change it. */
const encounter = async (...template: string[]) => (await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', ...template] })).id;

const fund = (id: string, ...extra: string[]) =>
  run(['fund', 'approve', id, '--amount', '2460.00', '--auth-code', 'AUTH-20260302-ACME-0001', '--yes', ...extra]);

describe('tpa fund approve (scripts)', () => {
  it('without a terminal it needs every value and --yes, and sends nothing otherwise', async () => {
    const id = await encounter();
    for (const args of [[], ['--amount', '2460'], ['--amount', '2460', '--auth-code', 'A-1']]) {
      const r = await run(['fund', 'approve', id, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/Nothing was sent/);
    }
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('approves with --yes, then refuses a second approval with exit 4 naming the first transfer', async () => {
    const id = await encounter();
    const first = await fund(id);
    expect(first.code).toBe(0);
    const approved = first.json<{ status: string; processor_transfer_id: string }>();
    expect(approved.status).toBe('APPROVED');
    const second = await fund(id);
    expect(second.code).toBe(4);
    expect(second.json()).toMatchObject({ previous_processor_transfer_id: approved.processor_transfer_id, encounter_id: id });
  });

  it('a wrong amount exits 4 with the expected amount, a malformed one exits 2 before sending', async () => {
    const id = await encounter();
    const wrong = await run(['fund', 'approve', id, '--amount', '2000', '--auth-code', 'A-1', '--yes']);
    expect(wrong.code).toBe(4);
    expect(wrong.json()).toMatchObject({ expected_amount: 2460, submitted_amount: 2000 });
    const malformed = await run(['fund', 'approve', id, '--amount', '2460.001', '--auth-code', 'A-1', '--yes', '-o', 'table']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--amount: "2460.001" has more than two decimals/);
    const notes = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'A-1', '--yes', '--notes', 'x'.repeat(501)]);
    expect(notes.code).toBe(2);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('refuses an unknown encounter (3) and one not yet adjudicated (4)', async () => {
    expect((await fund('enc_nope')).code).toBe(3);
    const t = await run(['claim', 'template']);
    const file = join(home.dir, 'slow.json');
    writeFileSync(file, t.stdout);
    const ack = (await run(['claim', 'submit', file], { TPA_ADJUDICATION_DELAY: '1h' })).json<{ external_claim_id: string }>();
    const r = await run(['fund', 'approve', ack.external_claim_id, '--amount', '320', '--auth-code', 'A-1', '--yes']);
    expect(r.code).toBe(4);
    expect(r.json()).toMatchObject({ reason: 'CLAIM_NOT_ADJUDICATED' });
  });

  it('concurrent approvals of one encounter from several processes fund it exactly once', async () => {
    const id = await encounter();
    // Real processes: the overlap between them is the point.
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        tpa(['fund', 'approve', id, '--amount', '2460.00', '--auth-code', 'AUTH-20260302-ACME-0001', '--yes'], { home: home.dir }),
      ),
    );
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 4, 4, 4, 4, 4]);
    const transfers = new Set(
      results.map((r) =>
        r.code === 0
          ? r.json<{ processor_transfer_id: string }>().processor_transfer_id
          : r.json<{ previous_processor_transfer_id: string }>().previous_processor_transfer_id,
      ),
    );
    expect(transfers.size).toBe(1);
    const ledger = (await run(['ledger', 'show', id])).json<{ entries: { type: string }[] }>();
    expect(ledger.entries.filter((e) => e.type === 'FUNDING_APPROVED')).toHaveLength(1);
  });

  it('after a lost answer it does not resend, and reports from the settlement that the approval happened', async () => {
    const id = await encounter();
    const r = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'A-2', '--yes', '--debug'], {
      TPA_FAULT: 'lose-response:/funding/approve/',
    });
    expect(r.code).toBe(0);
    // One approval request went out; after the lost answer only the settlement was read.
    expect(r.stderr.match(/→ POST \/tpa-api\/v1\/funding\/approve\//g)).toHaveLength(1);
    expect(r.stderr).toMatch(/→ GET \/tpa-api\/v1\/settlement\//);
    expect(r.stderr).toMatch(/not resent/);
    expect(r.stderr).toMatch(/the approval did happen/);
    expect(r.json()).toMatchObject({ status: 'APPROVED', processor_transfer_id: expect.stringMatching(/^tr_/) });
  });

  it('an encounter already funded is refused before anything is sent, even when answers get lost', async () => {
    const id = await encounter();
    await fund(id);
    const r = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'AUTH-SECOND', '--yes', '--debug'], {
      TPA_FAULT: 'lose-response:/funding/approve/',
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/already funded/);
    expect(r.stderr).not.toMatch(/→ POST/);
    expect(r.json()).toMatchObject({ error: 'duplicate_approval', encounter_id: id });
  });

  it('tpa api will not send a fund release without confirmation', async () => {
    const id = await encounter();
    const body = JSON.stringify({ encounter_id: id, amount: 2460, authorization_code: 'A-1' });
    const refused = await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body]);
    expect(refused.code).toBe(2);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
    const sent = await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body, '--yes']);
    expect(sent.code).toBe(0);
    expect(sent.json()).toMatchObject({ status: 'APPROVED' });
  });

  it('after a lost answer to a request the engine refused, it says the approval did not happen and retrying is safe', async () => {
    const id = await encounter();
    const r = await run(['fund', 'approve', id, '--amount', '2000', '--auth-code', 'A-2', '--yes', '-o', 'table'], {
      TPA_FAULT: 'lose-response:/funding/approve/',
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/the approval of enc_\w+ did not happen: the ledger has no fund release/);
    expect(r.stderr).toMatch(/safe to run the same command again/);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('an unknown encounter is refused before anything is sent', async () => {
    const r = await run(['fund', 'approve', 'enc_nope', '--amount', '2460', '--auth-code', 'A-2', '--yes', '--debug'], {
      TPA_FAULT: 'lose-response:/funding/approve/',
    });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/→ POST/);
  });
});

describe('tpa settlement and tpa ledger', () => {
  it('settlement show exits 7 before funding and shows payouts after, as a table and as JSON', async () => {
    const id = await encounter();
    const before = await run(['settlement', 'show', id]);
    expect(before.code).toBe(7);
    expect(before.json()).toMatchObject({ status: 'PENDING', adjudication_complete: true, funding_approved: false });
    await fund(id);
    const table = await run(['settlement', 'show', id, '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Status\s+INITIATED/);
    expect(table.stdout).toMatch(/FACILITY\s+│\s+1,300\.00 │\s+28\.90 │\s+1,271\.10/);
    const csv = await run(['settlement', 'show', id, '-o', 'csv']);
    expect(csv.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('the settlement completes a business day later on the stored clock, and refunds and failures can be simulated', async () => {
    const id = await encounter();
    const other = await encounter('--cpt', '45378');
    await fund(id);
    // The same visit as the first: its copay was taken there (1,875.00 × 80%).
    await run(['fund', 'approve', other, '--amount', '1500', '--auth-code', 'A-2', '--yes']);
    const failed = await run(['local', 'simulate', 'settlement-failure', other]);
    expect(failed.code).toBe(0);
    expect(failed.json()).toMatchObject({ status: 'FAILED' });
    expect((await run(['local', 'simulate', 'refund', id])).code).toBe(4);
    const clock = await run(['local', 'clock', 'advance', '3d']);
    expect(clock.json()).toMatchObject({ source: 'offset' });
    const done = await run(['settlement', 'show', id, '--wait', '--timeout', '5s']);
    expect(done.code).toBe(0);
    expect(done.json()).toMatchObject({ status: 'COMPLETED', reconciliation_status: 'MATCHED', aeob_match: { match_status: 'EXACT' } });
    const variance = await run(['local', 'simulate', 'aeob-variance', id]);
    expect(variance.json()).toMatchObject({ reconciliation_status: 'UNMATCHED', aeob_match: { match_status: 'VARIANCE' } });
    const refund = await run(['local', 'simulate', 'refund', id]);
    // What comes back is what the providers received, net of the processor fees.
    expect(refund.json()).toMatchObject({ status: 'REFUNDED', refund_details: { amount: 2404.68, gross_amount: 2460, fees_not_returned: 55.32 } });
    expect((await run(['local', 'simulate', 'meteor-strike', id])).code).toBe(2);
  });

  it('local clock set, show, advance and real; advance under TPA_CLOCK is a usage error', async () => {
    expect((await run(['local', 'clock', 'set', '2026-03-06T15:00:00Z'])).json()).toMatchObject({ now: '2026-03-06T15:00:00Z', source: 'frozen' });
    expect((await run(['local', 'clock', 'advance', '2h'])).json()).toMatchObject({ now: '2026-03-06T17:00:00Z' });
    expect((await run(['local', 'clock'])).json()).toMatchObject({ now: '2026-03-06T17:00:00Z', source: 'frozen' });
    const table = await run(['local', 'clock', 'show', '-o', 'table']);
    expect(table.stdout).toMatch(/Engine time\s+2026-03-06T17:00:00Z/);
    const overridden = await run(['local', 'clock', 'advance', '1d'], { TPA_CLOCK: '2026-01-01T00:00:00Z' });
    expect(overridden.code).toBe(2);
    expect(overridden.stderr).toMatch(/TPA_CLOCK/);
    expect((await run(['local', 'clock', 'real'])).json()).toMatchObject({ source: 'real' });
    expect((await run(['local', 'clock', 'advance', 'soon'])).code).toBe(2);
  });

  it('ledger list filters, pages with a note on stderr, follows every page with --all, and writes ndjson and csv', async () => {
    const ids = [await encounter(), await encounter('--cpt', '45378'), await encounter('--cpt', '43235')];
    await fund(ids[0]!);
    const page = await run(['ledger', 'list', '--limit', '2', '-o', 'table']);
    expect(page.code).toBe(0);
    expect(page.stderr.replace(/\s+/g, ' ')).toContain(
      'showing 1–2 of 3 next page: tpa ledger list --limit 2 --offset 2 all of them: tpa ledger list --limit 2 --all',
    );
    const all = await run(['ledger', 'list', '--limit', '1', '--all']);
    expect(
      all
        .json<{ encounter_id: string }[]>()
        .map((e) => e.encounter_id)
        .sort(),
    ).toEqual([...ids].sort());
    const funded = await run(['ledger', 'list', '--status', 'FUNDED', '-o', 'ndjson']);
    expect(
      funded.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).encounter_id),
    ).toEqual([ids[0]]);
    const csv = await run(['ledger', 'list', '-o', 'csv']);
    const [header, ...rows] = csv.stdout.trim().split('\n');
    expect(header).toContain('financial_summary.benefit_amount');
    expect(rows).toHaveLength(3);
    const byNpi = await run(['ledger', 'list', '--npi', '1329475804']);
    expect(byNpi.json<{ count: number }>().count).toBe(1); // the pathology lab is on the first encounter only
    expect((await run(['ledger', 'list', '--limit', '101'])).code).toBe(2);
    expect((await run(['ledger', 'list', '--status', 'PAID'])).code).toBe(2);
  });

  it('ledger show lays out the history, the money and the service lines', async () => {
    const id = await encounter();
    await fund(id);
    const r = await run(['ledger', 'show', id, '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/History[\s\S]*SUBMISSION[\s\S]*VALIDATION[\s\S]*ADJUDICATION[\s\S]*FUNDING_APPROVED[\s\S]*SETTLEMENT_INITIATED/);
    expect(r.stdout).toMatch(/Allowed\s+3,100\.00/);
    expect(r.stdout).toMatch(/Payer responsibility\s+2,460\.00/);
    expect(r.stdout).toMatch(/Service lines[\s\S]*00811/);
    expect((await run(['ledger', 'show', 'enc_nope'])).code).toBe(3);
  });
});
