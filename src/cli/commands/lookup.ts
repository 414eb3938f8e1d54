// tpa lookup blind | full | rates — contract discovery in two stages (docs/api.md "Contract lookup").
// Declarations only: the handlers live in lookup.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./lookup.run.js');
const ADMIT_TYPES = 'INPATIENT, OUTPATIENT or EMERGENCY';
const ADMIT_TYPE_VALUES = ['INPATIENT', 'OUTPATIENT', 'EMERGENCY'];

/** Adds the subcommands of `tpa lookup` to its command. */
export function registerLookup(lookup: Command, act: Act): void {
  examples(
    lookup
      .command('blind')
      .description('say whether an active contract covers the codes; returns an opaque contract id, never pricing')
      .requiredOption('--npi <npi>', 'provider NPI (10 digits)')
      .requiredOption('--group <id>', 'TPA network or group id')
      .requiredOption('--cpt <code...>', 'CPT codes (repeat or separate with commas)')
      .option('--date <date>', 'a contract active on this service date, YYYY-MM-DD (default today on the engine clock)'),
    'tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378 43235',
    'tpa lookup blind --npi 1673904821 --group GRP-3003 --cpt 70553 --date 2025-06-01',
    'tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378 -o json | jq -r .contract_id',
  ).action(act(run, 'blind'));

  examples(
    lookup
      .command('full')
      .description('pricing and terms of a contract for one CPT code (contract id from a blind lookup)')
      .argument('<contract_id>', 'contract id from `tpa lookup blind`')
      .requiredOption('--npi <npi>', 'provider NPI, for verification')
      .requiredOption('--group <id>', 'TPA network or group id')
      .requiredOption('--cpt <code>', 'one CPT code')
      .addOption(valuesOption('--admit-type <type>', `${ADMIT_TYPES} (default OUTPATIENT)`, ADMIT_TYPE_VALUES))
      .option('--date <date>', 'the rate in force on this service date, YYYY-MM-DD (default today on the engine clock)'),
    'tpa lookup full ctr_8d21b5e09f4c7a13 --npi 1045782368 --group GRP-1001 --cpt 45378',
    'tpa lookup full ctr_8d21b5e09f4c7a13 --npi 1045782368 --group GRP-1001 --cpt 45378 --date 2026-03-02',
  ).action(act(run, 'full'));

  examples(
    lookup
      .command('rates')
      .description('both stages for each code: blind, then full; one result per code')
      .requiredOption('--npi <npi>', 'provider NPI (10 digits)')
      .requiredOption('--group <id>', 'TPA network or group id')
      .requiredOption('--cpt <code...>', 'CPT codes (repeat or separate with commas)')
      .addOption(valuesOption('--admit-type <type>', ADMIT_TYPES, ADMIT_TYPE_VALUES))
      .option('--date <date>', 'the rates in force on this service date, YYYY-MM-DD (default today on the engine clock)'),
    'tpa lookup rates --npi 1234567893 --group GRP-1001 --cpt 45378 43235 99213',
  ).action(act(run, 'rates'));
}
