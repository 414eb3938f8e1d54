// tpa claim template | validate | submit | poll — FHIR R4 claims end to end (docs/api.md "Claim submission").
// Declarations only: the handlers live in claim.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./claim.run.js');

/** Adds the subcommands of `tpa claim` to its command. */
export function registerClaim(claim: Command, act: Act): void {
  examples(
    claim
      .command('template')
      .description('print a valid FHIR R4 Claim for the seeded contracts, ready to edit and submit')
      .addOption(valuesOption('--type <type>', 'professional or institutional', ['professional', 'institutional'], 'professional'))
      .option('--npi <npi>', 'billing provider NPI')
      .option('--cpt <code...>', 'CPT codes, one service line each')
      .option('--patient <member_id>', 'member id (see `tpa local fixtures`)', 'MBR-1003')
      .option('--service-date <date>', 'date of service (default: today)'),
    'tpa claim template > claim.json',
    'tpa claim template --type institutional --cpt 45380 00811 88305 > encounter.json',
  ).action(act(run, 'template'));

  examples(
    claim
      .command('validate')
      .description('check a claim offline with the same rules as the service; exits 2 naming each bad field')
      .argument('<file>', 'claim JSON file, or - for stdin'),
    'tpa claim validate claim.json',
    'cat claim.json | tpa claim validate -',
  ).action(act(run, 'validate'));

  examples(
    claim
      .command('submit')
      .description('submit claims for adjudication: one claim, or a batch (files, Bundles, NDJSON, folders) sent exactly once, resumable')
      .argument('<paths...>', 'Claim JSON files, FHIR Bundles, NDJSON files (one Claim a line), folders of them, or - for stdin')
      .option('--wait', 'poll until adjudicated (first check after 2s, then every 10-30s)')
      .option('--timeout <duration>', 'give up waiting after this long (default 10m); exit 7')
      .option('--raw', 'include the FHIR ClaimResponse when waiting (one claim)')
      .option('--idempotency-key <key>', 'reuse a key to make a retried submission safe (one claim; default: a new one)')
      .option(
        '--journal <file>',
        "a batch's journal: what was sent with which key; the same command run again continues from it (default: one in the data directory)",
      )
      .option('--concurrency <n>', "a batch's requests in flight at most (default 10, the sandbox tier's limit)"),
    'tpa claim submit claim.json',
    'tpa claim submit claim.json --wait -o json',
    'tpa claim template | tpa claim submit - --wait --timeout 2m',
    'tpa claim submit claims/ export.ndjson --journal run1.journal -o ndjson',
    'tpa claim submit bundle.json --wait   # a FHIR Bundle: its Claim entries',
  ).action(act(run, 'submit'));

  examples(
    claim
      .command('poll')
      .description('get the adjudication of a submitted claim; exit 7 while it is still processing')
      .argument('<submission_id>', 'the submission_id that `tpa claim submit` printed')
      .option('--wait', 'poll until adjudicated')
      .option('--timeout <duration>', 'give up waiting after this long (default 10m); exit 7')
      .option('--raw', 'include the FHIR ClaimResponse (include_raw_response=true)'),
    'tpa claim poll sub_4f1c9a0b2e7d6c35a8e1',
    'tpa claim poll sub_4f1c9a0b2e7d6c35a8e1 --wait --raw -o json',
  ).action(act(run, 'poll'));
}
