// tpa ledger list | show — the encounter ledger (docs/api.md "Ledger entry").
// Declarations only: the handlers live in ledger.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./ledger.run.js');
const STATUSES = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED'];

/** Adds the subcommands of `tpa ledger` to its command. */
export function registerLedger(ledger: Command, act: Act): void {
  examples(
    ledger
      .command('list')
      .description('encounters, newest service date first; filters, pages, or --all of them')
      .option('--from <date>', 'service date on or after (YYYY-MM-DD)')
      .option('--to <date>', 'service date on or before (YYYY-MM-DD)')
      .option('--npi <npi>', 'billing or rendering provider NPI')
      .addOption(valuesOption('--status <status>', STATUSES.join(' | '), STATUSES))
      .option('--limit <n>', 'entries per page, 1 to 100 (default 20)')
      .option('--offset <n>', 'entries to skip (default 0)')
      .option('--all', 'follow the pages to the end (json: one array; ndjson and csv: every entry)'),
    'tpa ledger list --status FUNDED',
    'tpa ledger list --from 2026-03-01 --to 2026-03-31 --npi 1234567893 --all -o csv > march.csv',
    'tpa ledger list --all -o ndjson | jq -r \'select(.status == "ADJUDICATED") | .encounter_id\'',
  ).action(act(run, 'list'));

  examples(
    ledger
      .command('show')
      .description('the full history of one encounter: entries, the money breakdown, service lines, reconciliation')
      .argument('<encounter_id>', 'the encounter (external_claim_id of the claim)'),
    'tpa ledger show enc_3b302036a412ed8b301f',
  ).action(act(run, 'show'));
}
