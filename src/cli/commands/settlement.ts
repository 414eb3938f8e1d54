// tpa settlement show | report — an encounter's transfer, payouts and reconciliation; a period's report.
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

  examples(
    settlement
      .command('report')
      .description(
        "the period's money for the finance desk: encounters by status, funded, in transit, settled, failed and refunded, fees and nets per provider, AEOB reconciliation, exceptions to act on, settled per day",
      )
      .option('--from <date>', 'service dates on or after (YYYY-MM-DD), required')
      .option('--to <date>', 'service dates on or before (YYYY-MM-DD), required')
      .option('--npi <npi>', 'only the encounters this provider is on, and only its payouts in the money')
      .option('--section <name>', 'the rows -o csv prints: providers (default), status, money, reconciliation, exceptions, days'),
    'tpa settlement report --from 2026-11-01 --to 2026-11-30',
    'tpa settlement report --from 2026-11-01 --to 2026-11-30 -o csv --section exceptions',
    'tpa settlement report --from 2026-11-01 --to 2026-11-30 -o ndjson   # one line per encounter',
  ).action(act(run, 'report'));
}
