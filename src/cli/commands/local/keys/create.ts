// tpa local keys create: an API key of `tpa local serve`, printed once on stdout.
import { UsageError } from '../../../../errors.js';
import { option, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { SCOPES_HELP, scopesOption } from '../scopes.js';

export const create = verb({
  name: 'create',
  description: 'create an API key (printed once, on stdout); every scope, contract_build included, unless --scopes narrows them',
  options: {
    env: option.withDefault('--env <env>', 'sandbox or staging (key prefix and rate-limit tier)', 'sandbox', { values: ['sandbox', 'staging'] }),
    scopes: option.list('--scopes <scope...>', SCOPES_HELP, { values: SCOPES_HELP.split(' ') }),
  },
  examples: ['tpa local keys create', 'tpa local keys create --scopes contract_lookup ledger_access'],
  async run(ctx, _args, opts) {
    const { SCOPES } = await import('../../../../engine/services/keys.js');
    const env = opts.env;
    if (env !== 'sandbox' && env !== 'staging') throw new UsageError('--env must be sandbox or staging');
    // Without --scopes: the operator's own key, with every scope (contract_build too: `tpa ratesheet` over HTTP).
    const scopes = (await scopesOption(opts.scopes)) ?? [...SCOPES];
    const created = await withEngine(ctx, (e) => e.createKey(env, scopes));
    ctx.note(`created key ${created.record.id} (${created.record.scopes.join(', ')}); it is shown only this once`);
    // Asked for a format (-o json, ndjson, csv, TPA_OUTPUT): an object, as every command gives. Otherwise, on a
    // terminal or piped, the key alone on stdout, so that `tpa local keys create | tpa auth login
    // --with-key-stdin` and `KEY=$(tpa local keys create)` work.
    if (ctx.formatChosen && ctx.format !== 'table') {
      return { data: { key_id: created.record.id, api_key: created.apiKey, scopes: created.record.scopes, environment: created.record.environment } };
    }
    ctx.io.stdout.write(`${created.apiKey}\n`);
  },
});
