// tpa lookup full: pricing and terms of a contract for one CPT code (docs/api-routes.md "POST /v1/contract-lookup/full/").
import type { FullLookupResult } from '../../../client/types.js';
import { CONTRACT_RATE_TYPES, isContractRateType } from '../../../domain/contract-rates.js';
import { ValidationFailed } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import { listValue } from '../../options.js';
import { argument, option, verb } from '../../verb.js';
import { ADMIT_TYPE_HELP, admitTypeOption, checkProvider, FULL_LOOKUP_FIELDS } from './provider.js';

export const full = verb({
  name: 'full',
  description: 'pricing and terms of a contract for one CPT code (contract id from a blind lookup)',
  args: { contractId: argument.required('<contract_id>', 'contract id from `tpa lookup blind`') },
  options: {
    npi: option.required('--npi <npi>', 'provider NPI, for verification'),
    group: option.required('--group <id>', 'TPA network or group id'),
    cpt: option.required('--cpt <code>', 'one CPT code'),
    admitType: admitTypeOption(`${ADMIT_TYPE_HELP} (default OUTPATIENT)`),
    date: option.text('--date <date>', 'the rate in force on this service date, YYYY-MM-DD (default today on the engine clock)'),
  },
  fields: FULL_LOOKUP_FIELDS,
  examples: [
    'tpa lookup full ctr_8d21b5e09f4c7a13 --npi 1045782368 --group GRP-1001 --cpt 45378',
    'tpa lookup full ctr_8d21b5e09f4c7a13 --npi 1045782368 --group GRP-1001 --cpt 45378 --date 2026-03-02',
  ],
  async run(ctx, { contractId }, opts) {
    const codes = listValue(opts.cpt);
    checkProvider(opts, codes);
    if (codes.length > 1) throw new ValidationFailed('--cpt: the full lookup takes one code; use `tpa lookup rates` for several');
    const client = await ctx.client();
    const { body } = await client.fullLookup({
      contract_id: contractId,
      npi: opts.npi,
      group_id: opts.group,
      cpt_code: codes[0]!,
      ...(opts.admitType ? { admit_type: opts.admitType } : {}),
      ...(opts.date ? { service_date: opts.date } : {}),
    });
    return { data: body, table: (t) => fullTable(t, body, codes[0]!) };
  },
});

/** What the negotiated rate is the rate of, beside it: " (whole bundle)"; nothing for a code's rate, or a type this tpa does not know. */
function rateNote(rateType: string): string {
  const note = isContractRateType(rateType) ? CONTRACT_RATE_TYPES[rateType].rateNote : null;
  return note === null ? '' : ` (${note})`;
}

function fullTable(t: TableTools, r: FullLookupResult, cpt: string): string {
  return t.keyValues([
    ['Contract', `${r.contract_number} (${r.contract_id})`],
    ['CPT code', cpt],
    ['Effective', `${r.effective_date} → ${r.termination_date ?? 'open-ended'}`],
    ['Network tier', r.network_tier],
    ['Rate type', r.rate_type],
    ['Negotiated rate', r.negotiated_rate === null ? '—' : `${t.amount(r.negotiated_rate)}${rateNote(r.rate_type)}`],
    ...(r.service_date
      ? ([['Rate in force', `on ${r.service_date} (${r.rate_effective_from} → ${r.rate_effective_to ?? 'open-ended'})`]] as [string, string][])
      : []),
    ['Multiplier', r.medicare_multiplier === null ? '—' : `${r.medicare_multiplier}× charges`],
    ['Bundle type', r.bundle_type ?? 'unbundled'],
    ['Anesthesia included', r.anesthesia_included ? 'yes' : 'no'],
  ]);
}
