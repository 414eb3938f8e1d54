// tpa lookup blind: does an active contract cover the codes? An opaque contract id, never pricing
// (docs/api-routes.md "POST /v1/contract-lookup/blind/").
import type { BlindLookupResult } from '../../../client/types.js';
import { listValue } from '../../options.js';
import { option, fieldsOf, verb } from '../../verb.js';
import { checkProvider, codesOption, providerOptions } from './provider.js';

export const blind = verb({
  name: 'blind',
  description: 'say whether an active contract covers the codes; returns an opaque contract id, never pricing',
  options: {
    ...providerOptions,
    cpt: codesOption,
    date: option.text('--date <date>', 'a contract active on this service date, YYYY-MM-DD (default today on the engine clock)'),
  },
  fields: fieldsOf<BlindLookupResult>({ match_found: true, contract_id: true, message: true }),
  examples: [
    'tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378 43235',
    'tpa lookup blind --npi 1673904821 --group GRP-3003 --cpt 70553 --date 2025-06-01',
    'tpa lookup blind --npi 1045782368 --group GRP-1001 --cpt 45378 -o json | jq -r .contract_id',
  ],
  async run(ctx, _args, opts) {
    const codes = listValue(opts.cpt);
    checkProvider(opts, codes);
    const client = await ctx.client();
    const { body } = await client.blindLookup({
      npi: opts.npi,
      group_id: opts.group,
      cpt_codes: codes,
      ...(opts.date ? { service_date: opts.date } : {}),
    });
    return {
      data: body,
      table: (t) =>
        t.keyValues([
          ['Match', body.match_found ? t.c.green('yes') : t.c.red('no')],
          ['Contract id', body.contract_id ?? '—'],
          ['Message', body.message],
        ]),
    };
  },
});
