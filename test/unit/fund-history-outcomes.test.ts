// What the history of approvals records when an approval is answered with an error: a refusal of
// the approval itself is REFUSED with its reason; a payment run's SKIPPED (the encounter funded by
// another approval: 409 naming its transfer) stays SKIPPED.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FundHistory, sendRecorded } from '../../src/jobs/fund-history.js';
import { ConflictError } from '../../src/errors.js';
import { tempDir } from '../helpers/engine.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const approval = { encounter_id: 'enc_1', amount: 320, authorization_code: 'AUTH-T-0001' };
const alreadyFunded = () => new ConflictError('already funded', { status: 409, body: { error: 'already_funded', previous_processor_transfer_id: 'tr_prev' } });

async function recorded(outcome: 'SKIPPED' | 'FAILED'): Promise<string[]> {
  const log = FundHistory.open(dir);
  await expect(
    sendRecorded(
      { log, profile: 'local', environment: 'sandbox' },
      approval,
      () => Promise.reject(alreadyFunded()),
      () => ({ outcome, transfer: outcome === 'SKIPPED' ? 'tr_prev' : null }),
    ),
  ).rejects.toThrow('already funded');
  return FundHistory.read(dir).map((r) => r.outcome);
}

describe('sendRecorded', () => {
  it("keeps a run's SKIPPED as SKIPPED, not a refusal of the code", async () => {
    expect(await recorded('SKIPPED')).toEqual(['SKIPPED']);
  });

  it('records a refusal of the approval itself as REFUSED', async () => {
    expect(await recorded('FAILED')).toEqual(['REFUSED']);
  });
});
