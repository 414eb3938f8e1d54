// tpa fund approve — the irreversible fund release (SPEC.md "POST /v1/funding/approve/").
// Declarations only: the handlers live in fund.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./fund.run.js');

/** Adds the subcommands of `tpa fund` to its command. */
export function registerFund(fund: Command, act: Act): void {
  examples(
    fund
      .command('approve')
      .description('release the adjudicated benefit to the providers: a review and a confirmation on a terminal; --yes and every value otherwise')
      .argument('<encounter_id>', 'the encounter (external_claim_id of the claim)')
      .option('--amount <usd>', 'the amount: must equal the adjudicated benefit (pre-filled on a terminal)')
      .option('--auth-code <code>', 'authorization code for the audit trail, e.g. AUTH-20260302-ACME-0001')
      .option('--notes <text>', 'internal audit notes, at most 500 characters')
      .option('--idempotency-key <key>', 'reuse a key so that a retried approval is recognised (default: a new one)'),
    'tpa fund approve enc_3b302036a412ed8b301f',
    'tpa fund approve enc_3b302036a412ed8b301f --amount 2280.00 --auth-code AUTH-20260302-ACME-0001 --yes -o json',
  ).action(act(run, 'approve'));
}
