// tpa settlement show — transfer status, payouts and reconciliation of an encounter.
// Declarations only: the handlers live in settlement.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./settlement.run.js');

/** Adds the subcommands of `tpa settlement` to its command. */
export function registerSettlement(settlement: Command, act: Act): void {
  examples(
    settlement
      .command('show')
      .description('the settlement of an encounter: status, payouts with fees and nets, AEOB reconciliation; exit 7 while pending')
      .argument('<encounter_id>', 'the encounter (external_claim_id of the claim)')
      .option('--wait', 'poll until the transfer is final (COMPLETED, FAILED or REFUNDED)')
      .option('--timeout <duration>', 'give up waiting after this long (default 10m); exit 7'),
    'tpa settlement show enc_3b302036a412ed8b301f',
    'tpa settlement show enc_3b302036a412ed8b301f --wait --timeout 2m -o json',
  ).action(act(run, 'show'));
}
