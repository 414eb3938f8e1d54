// tpa config list | get | set — profiles and settings in config.json (mode 0600, written atomically).
// Declarations only: the handlers live in config.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./config.run.js');

/** Adds the subcommands of `tpa config` to its command. */
export function registerConfig(config: Command, act: Act): void {
  examples(config.command('list').description('every setting, one key=value a line'), 'tpa config list').action(act(run, 'list'));
  examples(
    config.command('get').description('one setting').argument('<key>', 'e.g. profiles.sandbox.base_url, default_profile'),
    'tpa config get profiles.sandbox.base_url',
  ).action(act(run, 'get'));
  examples(
    config
      .command('set')
      .description('change a setting: default_profile, or profiles.<name>.<env|base_url|auth_url|client_id|scopes|cert|key|ca|legacy_tls>')
      .argument('<key>', 'the setting')
      .argument('<value>', 'its new value'),
    'tpa config set default_profile sandbox',
    'tpa config set profiles.staging.base_url https://staging.tpa.example',
  ).action(act(run, 'set'));
}
