// tpa local fixtures | reset — the embedded engine's own housekeeping.
// Declarations only: the handlers live in local.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./local.run.js');

/** Adds the subcommands of `tpa local` to its command. */
export function registerLocal(local: Command, act: Act): void {

  examples(
    local.command('fixtures').description('the seeded reference data: providers, contracts, members, so you know what to try'),
    'tpa local fixtures',
    "tpa local fixtures -o json | jq '.contracts[] | {contract_id, npi, group_id}'",
  ).action(
    act(run, 'fixtures'),
  );

  examples(
    local.command('reset').description('delete the local engine database; it is re-created and re-seeded on next use (asks; --yes to skip)'),
    'tpa local reset',
    'tpa local reset --yes',
  ).action(
    act(run, 'reset'),
  );
}
