// The funding route's answers, word for word (docs/api-resources.md "Funding approval preconditions"): what it
// refuses in the body, the state refusals, and what an approval writes to the ledger.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { call, useEngineHome } from '../helpers/engine.js';

type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);
const T0 = '2026-03-02T10:00:00Z';
const LATER = '2026-03-02T10:05:00Z';
const APPROVE = '/tpa-api/v1/funding/approve/';

/** Submits a claim at T0 (adjudicated 3 s later) and returns its encounter id. */
function encounter(options: Parameters<typeof claimTemplate>[0] = { type: 'institutional', serviceDate: '2026-03-02' }): string {
  const ack = call(home.at(T0), 'POST', '/tpa-api/v1/claims/submit/', claimTemplate(options));
  expect(ack.status).toBe(201);
  return (ack.body as Body).external_claim_id;
}
const approve = (body: unknown, clock = LATER) => call(home.at(clock), 'POST', APPROVE, body);

describe('the approval body', () => {
  it('an empty body names every required field', () => {
    expect(approve({})).toEqual({
      status: 400,
      headers: expect.any(Object),
      body: {
        errors: [
          { field: 'encounter_id', message: 'is required' },
          { field: 'amount', message: 'is required: the adjudicated benefit amount in USD' },
          { field: 'authorization_code', message: 'is required, e.g. AUTH-20260302-ACME-0001' },
        ],
      },
    });
  });

  it('refuses each bad field on its own, with its message', () => {
    const ok = { encounter_id: 'enc_x', amount: 1, authorization_code: 'A' };
    const errors = (body: Body) => (approve({ ...ok, ...body }).body as { errors?: unknown[] }).errors;
    expect(errors({ encounter_id: '' })).toEqual([{ field: 'encounter_id', message: 'is required' }]);
    expect(errors({ encounter_id: 7 })).toEqual([{ field: 'encounter_id', message: 'is required' }]);
    expect(errors({ amount: 0 })).toEqual([{ field: 'amount', message: 'must be a positive number with at most two decimals' }]);
    expect(errors({ amount: 1.005 })).toEqual([{ field: 'amount', message: 'must be a positive number with at most two decimals' }]);
    expect(errors({ authorization_code: '   ' })).toEqual([{ field: 'authorization_code', message: 'is required, e.g. AUTH-20260302-ACME-0001' }]);
    expect(errors({ authorization_code: 5 })).toEqual([{ field: 'authorization_code', message: 'is required, e.g. AUTH-20260302-ACME-0001' }]);
    expect(errors({ authorization_code: 'A'.repeat(101) })).toEqual([{ field: 'authorization_code', message: 'must be at most 100 characters' }]);
    for (const code of ['AUTH-\u001b[31m-1', 'AUTH-1\nAUTH-2', 'AUTH-\u009b1'])
      expect(errors({ authorization_code: code })).toEqual([{ field: 'authorization_code', message: 'must not hold control characters' }]);
    expect(errors({ notes: 12 })).toEqual([{ field: 'notes', message: 'must be text' }]);
    expect(errors({ notes: 'n'.repeat(501) })).toEqual([{ field: 'notes', message: 'must be at most 500 characters (got 501)' }]);
    // At the limits, and an absent or null note, the body passes: the encounter is what is missing.
    for (const body of [{ authorization_code: 'A'.repeat(100) }, { notes: 'n'.repeat(500) }, { notes: null }, {}]) {
      expect(approve({ ...ok, ...body })).toMatchObject({
        status: 404,
        body: { error: 'encounter_not_found', encounter_id: 'enc_x', message: 'No encounter enc_x' },
      });
    }
  });
});

describe('state refusals', () => {
  it('not adjudicated yet, pended, denied, nothing to fund: each its reason and message', () => {
    const id = encounter();
    expect(approve({ encounter_id: id, amount: 2460, authorization_code: 'A' }, T0).body).toEqual({
      error: 'invalid_state',
      reason: 'CLAIM_NOT_ADJUDICATED',
      encounter_id: id,
      message: 'The claim is not adjudicated yet',
    });
    const pended = encounter({ type: 'professional', npi: '1582736496', cpt: ['29881'], serviceDate: '2026-03-02' });
    expect(approve({ encounter_id: pended, amount: 1, authorization_code: 'A' }).body).toEqual({
      error: 'invalid_state',
      reason: 'CLAIM_NOT_ADJUDICATED',
      encounter_id: pended,
      message: 'The claim is pended waiting for information from the provider',
    });
    const denied = encounter({ type: 'professional', patient: 'MBR-1005', serviceDate: '2026-03-02' });
    const again = encounter({ type: 'professional', patient: 'MBR-1005', serviceDate: '2026-03-02' });
    expect(denied).not.toBe(again);
    expect(approve({ encounter_id: again, amount: 1, authorization_code: 'A' }).body).toEqual({
      error: 'invalid_state',
      reason: 'CLAIM_DENIED',
      encounter_id: again,
      message: 'The claim was denied; there is nothing to fund',
    });
    const nothing = encounter({ type: 'professional', patient: 'MBR-1004', serviceDate: '2026-03-02' });
    expect(approve({ encounter_id: nothing, amount: 1, authorization_code: 'A' }).body).toEqual({
      error: 'invalid_state',
      reason: 'NOTHING_TO_FUND',
      encounter_id: nothing,
      message: 'The adjudicated benefit is 0.00 (the member owes the whole allowed amount): there is nothing to fund',
    });
  });

  it('a wrong amount is 409 with the expected amount; a second approval 400 naming the first transfer', () => {
    const id = encounter();
    expect(approve({ encounter_id: id, amount: 2279.99, authorization_code: 'A' })).toMatchObject({
      status: 409,
      body: {
        error: 'amount_mismatch',
        expected_amount: 2460,
        submitted_amount: 2279.99,
        message: 'The amount must equal the adjudicated benefit amount 2,460.00',
      },
    });
    const first = approve({ encounter_id: id, amount: 2460, authorization_code: 'A-1' }).body as Body;
    expect(approve({ encounter_id: id, amount: 2460, authorization_code: 'A-2' })).toMatchObject({
      status: 400,
      body: {
        error: 'duplicate_approval',
        message: `Encounter ${id} was already funded (transfer ${first.processor_transfer_id}); nothing was sent`,
        previous_processor_transfer_id: first.processor_transfer_id,
        encounter_id: id,
      },
    });
  });
});

describe('an approval', () => {
  it('writes the trimmed authorization code, the notes and the transfer to the ledger, and pays each provider', () => {
    const id = encounter();
    const r = approve({ encounter_id: id, amount: 2460, authorization_code: '  AUTH-77  ', notes: 'batch 12' });
    expect(r.status).toBe(200);
    const ok = r.body as Body;
    expect(ok).toEqual({
      status: 'APPROVED',
      processor_transfer_id: expect.stringMatching(/^tr_/),
      estimated_arrival: '2026-03-03T10:05:00Z',
      settlement_record_id: expect.stringMatching(/^stl_/),
    });
    const detail = call(home.at(LATER), 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body;
    const entries = detail.entries as Body[];
    expect(entries.find((e) => e.type === 'FUNDING_APPROVED')).toMatchObject({
      reference: 'AUTH-77',
      description: 'Fund release of 2,460.00 approved: batch 12',
    });
    expect(entries.find((e) => e.type === 'SETTLEMENT_INITIATED')).toMatchObject({
      reference: ok.processor_transfer_id,
      description: 'Transfer created; expected 2026-03-03T10:05:00Z',
    });
    const settlement = call(home.at(LATER), 'GET', `/tpa-api/v1/settlement/${id}/`).body as Body;
    expect(settlement.payouts.map((p: Body) => p.provider_name ?? p.provider?.name)).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(
      settlement.payouts.every((p: Body) => typeof (p.provider_name ?? p.provider?.name) === 'string' && (p.provider_name ?? p.provider?.name) !== ''),
    ).toBe(true);
  });

  it('without notes the ledger says only what was released', () => {
    const id = encounter();
    approve({ encounter_id: id, amount: 2460, authorization_code: 'AUTH-78' });
    const detail = call(home.at(LATER), 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body;
    expect((detail.entries as Body[]).find((e) => e.type === 'FUNDING_APPROVED')).toMatchObject({
      reference: 'AUTH-78',
      description: 'Fund release of 2,460.00 approved',
    });
  });
});
