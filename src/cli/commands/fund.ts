// tpa fund approve | run — the irreversible fund release (docs/api.md "POST /v1/funding/approve/"), one or a payment run.
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

  examples(
    fund
      .command('run')
      .description('a payment run: fund every adjudicated, unfunded encounter the filters select, once each, after one review and one confirmation; resumable')
      .option('--from <date>', 'service date on or after (YYYY-MM-DD)')
      .option('--to <date>', 'service date on or before (YYYY-MM-DD)')
      .option('--npi <npi>', "only the encounters this provider is on (each released whole, the other providers' payouts with it)")
      .option('--limit <n>', 'at most this many encounters (the newest first, in ledger order)')
      .option('--auth-code-prefix <prefix>', 'each approval gets <prefix>-0001, -0002, … (asked for on a terminal)')
      .option('--expect-total <usd>', 'without a terminal: the total the run must come to, or nothing is sent (exit 4)')
      .option('--journal <file>', "the run's journal; an existing one resumes its run (default: one in the data directory, named after the prefix)")
      .option('--dry-run', 'show the review (every encounter in json/csv) and send nothing'),
    'tpa fund run --from 2026-11-01 --to 2026-11-30',
    'tpa fund run --dry-run -o csv > run.csv',
    'tpa fund run --auth-code-prefix AUTH-20261123-ACME --expect-total 12345.67 --yes -o ndjson',
    'tpa fund run --journal ~/.local/share/tpa/journals/fund-run-AUTH-20261123-ACME-….ndjson --yes',
  ).action(act(run, 'run'));

  examples(
    fund
      .command('history')
      .description(
        'the approvals made from this machine (any profile): when, where, encounter, amount, authorization code, outcome, transfer and its status now (read from the settlement: OWED or ENDED once it failed or was refunded); UNKNOWN while an answer lost is not yet found out',
      )
      .option('--from <date>', 'made on or after (YYYY-MM-DD)')
      .option('--to <date>', 'made on or before (YYYY-MM-DD)'),
    'tpa fund history',
    'tpa fund history --from 2026-11-23 -o csv',
  ).action(act(run, 'history'));
}
