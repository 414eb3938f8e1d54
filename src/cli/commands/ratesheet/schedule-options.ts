// The schedule settings options, shared by `tpa ratesheet init` and `tpa ratesheet config`, and
// how they become the service's fields.
import type { ScheduleSettings } from '../../../client/types.js';
import { checkRateRatio } from '../../../domain/money.js';
import { rateOfNoTypeProblem, SCHEDULE_SETTING_CHOICES, scheduleRateProblem } from '../../../domain/schedule-rates.js';
import { ValidationFailed } from '../../../errors.js';
import { wholeNumberOption } from '../../options.js';
import { option, type OptionValues } from '../../verb.js';
import { RATE_VALUE_HELP } from './rates.js';

const CHOICES = SCHEDULE_SETTING_CHOICES;
const either = (choices: readonly string[]) => choices.join(' | ');

export const scheduleOptions = {
  referenceType: option.text('--reference-type <type>', `SSP reference type: ${either(CHOICES.ssp_reference_type)}`, { values: CHOICES.ssp_reference_type }),
  scope: option.text('--scope <scope>', either(CHOICES.scope_of_care), { values: CHOICES.scope_of_care }),
  serviceLogic: option.text('--service-logic <logic>', either(CHOICES.service_logic), { values: CHOICES.service_logic }),
  electiveHours: option.text('--elective-hours <n>', 'hours of advance notice that make a service elective'),
  fallback: option.text('--fallback <fallback>', `non-elective fallback: ${either(CHOICES.non_elective_fallback)}`, { values: CHOICES.non_elective_fallback }),
  fallbackPercent: option.text('--fallback-percent <n>', 'fallback multiple of Medicare, e.g. 1.25 for 125%'),
  defaultRateType: option.text('--default-rate-type <type>', `${either(CHOICES.default_rate_type)} (used by load-catalog)`, {
    values: CHOICES.default_rate_type,
  }),
  defaultRate: option.text('--default-rate <n>', `default rate value: ${RATE_VALUE_HELP}`),
};

export type ScheduleOptionValues = OptionValues<typeof scheduleOptions>;

/** A ratio option (--fallback-percent), by the service's rule: at most four decimals, never rounded. */
function ratio(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const checked = checkRateRatio(value);
  if ('problem' in checked) throw new ValidationFailed(`${name}: ${checked.problem}`);
  return Number(checked.text);
}

/**
 * --default-rate, by the rule of --default-rate-type; with no --default-rate-type, the service
 * judges by the schedule's type, so a value any type takes is let through.
 */
function defaultRate(value: string | undefined, rateType: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const problem = rateType === undefined ? rateOfNoTypeProblem(value) : scheduleRateProblem(rateType.toUpperCase(), value);
  if (problem) throw new ValidationFailed(`--default-rate: ${problem}`);
  return Number(value);
}

/** Schedule options as the service's field names; the service checks the enumerated values. */
export function scheduleSettings(opts: ScheduleOptionValues): Partial<ScheduleSettings> {
  const s: Partial<ScheduleSettings> = {};
  const set = <K extends keyof ScheduleSettings>(key: K, value: ScheduleSettings[K] | undefined) => value !== undefined && (s[key] = value);
  set('ssp_reference_type', opts.referenceType);
  set('scope_of_care', opts.scope);
  set('service_logic', opts.serviceLogic);
  set('elective_advance_hours', wholeNumberOption('--elective-hours', opts.electiveHours, 0, 8760));
  set('non_elective_fallback', opts.fallback);
  set('non_elective_fallback_percent', ratio('--fallback-percent', opts.fallbackPercent));
  set('default_rate_type', opts.defaultRateType);
  set('default_rate_value', defaultRate(opts.defaultRate, opts.defaultRateType));
  return s;
}
