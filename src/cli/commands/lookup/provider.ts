// What the three lookups share: the provider, group and codes options, and their checks before
// anything is sent (bad input exits 2 naming the option).
import type { FieldError } from '../../../domain/errors.js';
import { ADMIT_TYPES, cptProblem, groupIdProblem, isoDateProblem, npiProblem } from '../../../domain/validation.js';
import { fieldsInvalid } from '../../../errors.js';
import { option } from '../../verb.js';

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
