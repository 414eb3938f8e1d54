// tpa lookup rates: both stages for each code, one result per code.
import { NotFoundError, TpaError } from '../../../errors.js';
import { listValue } from '../../options.js';
import { option, verb } from '../../verb.js';
import { ADMIT_TYPE_HELP, admitTypeOption, checkProvider, codesOption, FULL_LOOKUP_FIELDS, providerOptions } from './provider.js';

export const rates = verb({
  name: 'rates',
  description: 'both stages for each code: blind, then full; one result per code',
  options: {
    ...providerOptions,
    cpt: codesOption,
    admitType: admitTypeOption(ADMIT_TYPE_HELP),
    date: option.text('--date <date>', 'the rates in force on this service date, YYYY-MM-DD (default today on the engine clock)'),
  },
  fields: ['cpt_code', 'match_found', ...FULL_LOOKUP_FIELDS, 'message'],
  examples: ['tpa lookup rates --npi 1234567893 --group GRP-1001 --cpt 45378 43235 99213'],
  async run(ctx, _args, opts) {
    const codes = [...new Set(listValue(opts.cpt))];
    checkProvider(opts, codes);
    const client = await ctx.client();
    const base = { npi: opts.npi, group_id: opts.group };
    // Both stages on the same date: the blind lookup finds the contract active on it.
    const date = opts.date ? { service_date: opts.date } : {};
    const results: Record<string, unknown>[] = [];
    for (const code of codes) {
      try {
        const blind = await client.blindLookup({ ...base, cpt_codes: [code], ...date });
        const input = {
          ...base,
          contract_id: blind.body.contract_id!,
          cpt_code: code,
          ...(opts.admitType ? { admit_type: opts.admitType } : {}),
          ...date,
        };
        const full = await client.fullLookup(input);
        results.push({ cpt_code: code, match_found: true, ...full.body });
      } catch (err) {
        if (!(err instanceof TpaError) || err.exitCode !== 3) throw err;
        const body = err.body as { message?: string } | undefined;
        results.push({ cpt_code: code, match_found: false, message: body?.message ?? err.message });
      }
    }
    const covered = results.filter((r) => r.match_found).length;
    if (covered === 0) {
      throw new NotFoundError(`no active contract for NPI ${opts.npi} in group ${opts.group} covers ${codes.join(', ')}`, { body: results });
    }
    return {
      data: results,
      table: (t) =>
        t.table(
          ['CPT', 'Contract', 'Rate type', { header: 'Negotiated', align: 'right' }, 'Multiplier', 'Bundle', 'Anesthesia'],
          results.map((r) =>
            r.match_found
              ? [
                  String(r.cpt_code),
                  String(r.contract_number),
                  String(r.rate_type),
                  t.amount(r.negotiated_rate),
                  r.medicare_multiplier === null ? '—' : `${String(r.medicare_multiplier)}×`,
                  String(r.bundle_type ?? '—'),
                  r.anesthesia_included ? 'included' : '—',
                ]
              : [String(r.cpt_code), t.c.red('no contract'), '—', '—', '—', '—', '—'],
          ),
        ),
    };
  },
});
