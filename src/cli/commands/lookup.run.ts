// Handlers of `tpa lookup` (declared in lookup.ts): parse and check options, call the client, shape the output.
import type { FieldError } from '../../domain/errors.js';
import { ADMIT_TYPES, cptProblem, groupIdProblem, isoDateProblem, npiProblem } from '../../domain/validation.js';
import { fieldsInvalid, NotFoundError, TpaError, ValidationFailed } from '../../errors.js';
import type { FullLookupResult } from '../../client/types.js';
import type { TableTools } from '../../render/output.js';
import type { Handler, Options } from '../action.js';
import { listValue } from '../options.js';

/** Local checks before anything is sent: bad input exits 2 naming the option. */
function checkProvider(opts: Options, codes: string[]): void {
  const errors: FieldError[] = [];
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  add('--npi', npiProblem(opts.npi));
  add('--group', groupIdProblem(opts.group));
  if (codes.length === 0) errors.push({ field: '--cpt', message: 'is required: one or more CPT codes' });
  codes.forEach((code) => add('--cpt', cptProblem(code)));
  if (opts.admitType !== undefined && !(ADMIT_TYPES as readonly unknown[]).includes(opts.admitType)) {
    errors.push({ field: '--admit-type', message: `must be one of ${ADMIT_TYPES.join(', ')}` });
  }
  if (opts.date !== undefined) add('--date', isoDateProblem(opts.date));
  if (errors.length > 0) {
    throw fieldsInvalid(errors);
  }
}

function fullTable(t: TableTools, r: FullLookupResult, cpt: string): string {
  return t.keyValues([
    ['Contract', `${r.contract_number} (${r.contract_id})`],
    ['CPT code', cpt],
    ['Effective', `${r.effective_date} → ${r.termination_date ?? 'open-ended'}`],
    ['Network tier', r.network_tier],
    ['Rate type', r.rate_type],
    ['Negotiated rate', r.negotiated_rate === null ? '—' : `$${t.amount(r.negotiated_rate)}${r.rate_type === 'BUNDLE' ? ' (whole bundle)' : ''}`],
    ...(r.service_date
      ? ([['Rate in force', `on ${r.service_date} (${r.rate_effective_from} → ${r.rate_effective_to ?? 'open-ended'})`]] as [string, string][])
      : []),
    ['Multiplier', r.medicare_multiplier === null ? '—' : `${r.medicare_multiplier}× charges`],
    ['Bundle type', r.bundle_type ?? 'unbundled'],
    ['Anesthesia included', r.anesthesia_included ? 'yes' : 'no'],
  ]);
}

export const blind: Handler = async (ctx, _args, opts) => {
  const codes = listValue(opts.cpt);
  checkProvider(opts, codes);
  const client = await ctx.client();
  const { body } = await client.blindLookup({
    npi: opts.npi as string,
    group_id: opts.group as string,
    cpt_codes: codes,
    ...(opts.date ? { service_date: opts.date as string } : {}),
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
};

export const full: Handler = async (ctx, [contractId], opts) => {
  const codes = listValue(opts.cpt);
  checkProvider(opts, codes);
  if (codes.length > 1) throw new ValidationFailed('--cpt: the full lookup takes one code; use `tpa lookup rates` for several');
  const client = await ctx.client();
  const input = {
    contract_id: contractId!,
    npi: opts.npi as string,
    group_id: opts.group as string,
    cpt_code: codes[0]!,
    ...(opts.admitType ? { admit_type: opts.admitType as string } : {}),
    ...(opts.date ? { service_date: opts.date as string } : {}),
  };
  const { body } = await client.fullLookup(input);
  return { data: body, table: (t) => fullTable(t, body, codes[0]!) };
};

export const rates: Handler = async (ctx, _args, opts) => {
  const codes = [...new Set(listValue(opts.cpt))];
  checkProvider(opts, codes);
  const client = await ctx.client();
  const base = { npi: opts.npi as string, group_id: opts.group as string };
  // Both stages on the same date: the blind lookup finds the contract active on it.
  const date = opts.date ? { service_date: opts.date as string } : {};
  const results: Record<string, unknown>[] = [];
  for (const code of codes) {
    try {
      const blind = await client.blindLookup({ ...base, cpt_codes: [code], ...date });
      const input = {
        ...base,
        contract_id: blind.body.contract_id!,
        cpt_code: code,
        ...(opts.admitType ? { admit_type: opts.admitType as string } : {}),
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
    throw new NotFoundError(`no active contract for NPI ${String(opts.npi)} in group ${String(opts.group)} covers ${codes.join(', ')}`, { body: results });
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
};
