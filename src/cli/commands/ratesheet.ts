// tpa ratesheet — the contract builder's rate schedule (docs/api.md "The contract builder" endpoints).
// Declarations only: the handlers live in ratesheet.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./ratesheet.run.js');

function scheduleOptions(cmd: Command): Command {
  return cmd
    .addOption(valuesOption('--reference-type <type>', 'SSP reference type: INDIVIDUAL', ['INDIVIDUAL']))
    .addOption(valuesOption('--scope <scope>', 'FACILITY_AND_PROFESSIONAL | FACILITY_ONLY', ['FACILITY_AND_PROFESSIONAL', 'FACILITY_ONLY']))
    .addOption(valuesOption('--service-logic <logic>', 'ELECTIVE_ONLY', ['ELECTIVE_ONLY']))
    .option('--elective-hours <n>', 'hours of advance notice that make a service elective')
    .addOption(valuesOption('--fallback <fallback>', 'non-elective fallback: PERCENT_MEDICARE | WRAP_NETWORK', ['PERCENT_MEDICARE', 'WRAP_NETWORK']))
    .option('--fallback-percent <n>', 'fallback multiple of Medicare, e.g. 1.25 for 125%')
    .addOption(valuesOption('--default-rate-type <type>', 'PERCENT_MEDICARE | CASE_RATE (used by load-catalog)', ['PERCENT_MEDICARE', 'CASE_RATE']))
    .option('--default-rate <n>', 'default rate value: a Medicare multiple, or USD for CASE_RATE');
}

/** Adds the subcommands of `tpa ratesheet` to its command. */
export function registerRatesheet(ratesheet: Command, act: Act): void {
  examples(
    ratesheet
      .command('catalog')
      .description('the SSP catalog: active encounter-level standard service packages')
      .option('--search <text>', 'filter by name or code')
      .option('--page <n>', 'page number (default 1)')
      .option('--page-size <n>', 'entries per page, 1 to 200 (default 20)')
      .option('--version <version>', 'catalog version (default: the current one)')
      .option('--all', 'follow the pages to the end'),
    'tpa ratesheet catalog --search knee',
    'tpa ratesheet catalog --all -o csv > catalog.csv',
  ).action(act(run, 'catalog'));

  examples(
    scheduleOptions(
      ratesheet
        .command('init')
        .description('create the rate schedule of a builder instance (a second init returns the existing one)')
        .argument('<instance_id>', 'builder instance, e.g. BLD-1001'),
    ),
    'tpa ratesheet init BLD-1001',
    'tpa ratesheet init BLD-1001 --scope FACILITY_ONLY --default-rate 1.4',
  ).action(act(run, 'init'));

  examples(
    ratesheet.command('show').description('the schedule settings and its items').argument('<instance_id>', 'builder instance'),
    'tpa ratesheet show BLD-1001',
  ).action(act(run, 'show'));

  examples(
    scheduleOptions(ratesheet.command('config').description('change schedule settings (items are untouched)').argument('<instance_id>', 'builder instance')),
    'tpa ratesheet config BLD-1001 --elective-hours 48 --fallback WRAP_NETWORK',
  ).action(act(run, 'config'));

  examples(
    ratesheet
      .command('add')
      .description('add an SSP to the schedule, or change its rate (upsert)')
      .argument('<instance_id>', 'builder instance')
      .requiredOption('--ssp <uuid|code>', 'the SSP, by id or by code (e.g. HD-0401)')
      .addOption(valuesOption('--rate-type <type>', 'CASE_RATE | PERCENT_MEDICARE', ['CASE_RATE', 'PERCENT_MEDICARE']).makeOptionMandatory())
      .requiredOption('--rate <n>', 'USD for CASE_RATE; a multiple of the Medicare rate for PERCENT_MEDICARE')
      .option('--bundle-eligible', 'the SSP may be bundled')
      .addOption(valuesOption('--bundle-type <type>', 'CONVENED | PROVIDER_ONLY', ['CONVENED', 'PROVIDER_ONLY']))
      .option('--notes <text>', 'notes, at most 500 characters'),
    'tpa ratesheet add BLD-1001 --ssp HD-0401 --rate-type CASE_RATE --rate 2100',
    'tpa ratesheet add BLD-1001 --ssp EY-0501 --rate-type PERCENT_MEDICARE --rate 1.35 --bundle-eligible --bundle-type CONVENED',
  ).action(act(run, 'add'));

  examples(
    ratesheet
      .command('remove')
      .description('remove an SSP from the schedule')
      .argument('<instance_id>', 'builder instance')
      .requiredOption('--ssp <uuid|code>', 'the SSP, by id or by code'),
    'tpa ratesheet remove BLD-1001 --ssp HD-0401',
  ).action(act(run, 'remove'));

  examples(
    ratesheet
      .command('load-catalog')
      .description("add every active encounter SSP of a catalog version at the schedule's default rate (items already there are kept)")
      .argument('<instance_id>', 'builder instance')
      .option('--version <version>', 'catalog version, e.g. v1.0 (default: the current one)'),
    'tpa ratesheet load-catalog BLD-1001 --version v1.0',
  ).action(act(run, 'loadCatalog'));

  examples(
    ratesheet.command('preview').description('the allowed amount of every item, without saving anything').argument('<instance_id>', 'builder instance'),
    'tpa ratesheet preview BLD-1001',
  ).action(act(run, 'preview'));

  examples(
    ratesheet
      .command('finalize')
      .description('turn the schedule into live contract rates from an effective date (asks on a terminal; --yes otherwise); the schedule is then locked')
      .argument('<instance_id>', 'builder instance')
      .option('--effective-date <date>', "the rates' first day, YYYY-MM-DD (default: today on the engine clock, or the contract's effective date if later)")
      .option('--retroactive', 'allow an effective date before today: services already rendered are then priced at the new rates')
      .option('--dry-run', 'say what finalizing would do (rates made, rates ended, codes no longer rated) and write nothing'),
    'tpa ratesheet finalize BLD-1001 --dry-run',
    'tpa ratesheet finalize BLD-1001',
    'tpa ratesheet finalize BLD-1001 --effective-date 2027-01-01 --yes -o json',
    'tpa ratesheet finalize BLD-1002 --effective-date 2026-01-01 --retroactive --yes',
  ).action(act(run, 'finalize'));

  examples(
    ratesheet
      .command('import')
      .description(
        'bulk upsert from a CSV of ssp_code,rate_type,rate_value,bundle_type,notes; shows the changes first; a bad row stops it before anything is written',
      )
      .argument('<instance_id>', 'builder instance')
      .argument('<file>', 'CSV file, or - for stdin')
      .option('--dry-run', 'show what would change, write nothing'),
    'tpa ratesheet import BLD-1001 rates.csv --dry-run',
    'tpa ratesheet export BLD-1001 > rates.csv && tpa ratesheet import BLD-1001 rates.csv',
  ).action(act(run, 'import'));

  examples(
    ratesheet
      .command('export')
      .description('the schedule items as CSV (ssp_code,rate_type,rate_value,bundle_type,notes), ready to edit and import')
      .argument('<instance_id>', 'builder instance'),
    'tpa ratesheet export BLD-1001 > rates.csv',
  ).action(act(run, 'export'));
}
