// What the three lookups share: the provider, group and codes options, and their checks before
// anything is sent (bad input exits 2 naming the option).
import type { FullLookupResult } from '../../../client/types.js';
import type { FieldError } from '../../../domain/errors.js';
import { ADMIT_TYPES, cptProblem, groupIdProblem, isoDateProblem, npiProblem } from '../../../domain/validation.js';
import { fieldsInvalid } from '../../../errors.js';
import { fieldsOf, option } from '../../verb.js';

/** The fields of a full lookup's result, as `lookup full` and `lookup rates` print it. */
export const FULL_LOOKUP_FIELDS = fieldsOf<FullLookupResult>({
  contract_id: true,
  contract_number: true,
  effective_date: true,
  termination_date: true,
  network_tier: true,
  rate_type: true,
  negotiated_rate: true,
  medicare_multiplier: true,
  bundle_type: true,
  anesthesia_included: true,
  service_date: true,
  rate_effective_from: true,
  rate_effective_to: true,
});

export const ADMIT_TYPE_HELP = 'INPATIENT, OUTPATIENT or EMERGENCY';

export const providerOptions = {
  npi: option.required('--npi <npi>', 'provider NPI (10 digits)'),
  group: option.required('--group <id>', 'TPA network or group id'),
};

/** The codes of `lookup blind` and `lookup rates` (`lookup full` takes one). */
export const codesOption = option.requiredList('--cpt <code...>', 'CPT codes (repeat or separate with commas)');

export const admitTypeOption = (help: string) => option.text('--admit-type <type>', help, { values: ADMIT_TYPES });

export function checkProvider(opts: { npi: string; group: string; admitType?: string; date?: string }, codes: string[]): void {
  const errors: FieldError[] = [];
  const add = (field: string, problem: string | undefined) => problem && errors.push({ field, message: problem });
  add('--npi', npiProblem(opts.npi));
  add('--group', groupIdProblem(opts.group));
  if (codes.length === 0) errors.push({ field: '--cpt', message: 'is required: one or more CPT codes' });
  codes.forEach((code) => add('--cpt', cptProblem(code)));
  if (opts.admitType !== undefined && !(ADMIT_TYPES as readonly string[]).includes(opts.admitType)) {
    errors.push({ field: '--admit-type', message: `must be one of ${ADMIT_TYPES.join(', ')}` });
  }
  if (opts.date !== undefined) add('--date', isoDateProblem(opts.date));
  if (errors.length > 0) throw fieldsInvalid(errors);
}
