// tpa ratesheet add: add an SSP to the schedule, or change its rate (an upsert).
import { instanceArgument } from './instance.js';
import { isScheduleBundleType, SCHEDULE_BUNDLE_TYPES, SCHEDULE_RATE_TYPE_NAMES, scheduleRateProblem } from '../../../domain/schedule-rates.js';
import { ValidationFailed } from '../../../errors.js';
import { option, verb } from '../../verb.js';
import { changed } from './changed.js';
import { RATE_VALUE_HELP } from './rates.js';
import { resolveSsp, scheduleOrNull } from './ssp.js';

export const add = verb({
  name: 'add',
  description: 'add an SSP to the schedule, or change its rate (upsert)',
  args: { instanceId: instanceArgument() },
  options: {
    ssp: option.required('--ssp <uuid|code>', 'the SSP, by id or by code (e.g. HD-0401)'),
    rateType: option.required('--rate-type <type>', SCHEDULE_RATE_TYPE_NAMES.join(' | '), { values: SCHEDULE_RATE_TYPE_NAMES }),
    rate: option.required('--rate <n>', RATE_VALUE_HELP),
    bundleEligible: option.flag('--bundle-eligible', 'the SSP may be bundled'),
    bundleType: option.text('--bundle-type <type>', SCHEDULE_BUNDLE_TYPES.join(' | '), { values: SCHEDULE_BUNDLE_TYPES }),
    notes: option.text('--notes <text>', 'notes, at most 500 characters'),
  },
  examples: [
    'tpa ratesheet add BLD-1001 --ssp HD-0401 --rate-type CASE_RATE --rate 2100',
    'tpa ratesheet add BLD-1001 --ssp EY-0501 --rate-type PERCENT_MEDICARE --rate 1.35 --bundle-eligible --bundle-type CONVENED',
  ],
  async run(ctx, { instanceId }, opts) {
    const rateType = opts.rateType.toUpperCase();
    const problem = scheduleRateProblem(rateType, opts.rate);
    if (problem) throw new ValidationFailed(`--rate: ${problem}`);
    const bundleType = opts.bundleType === undefined ? null : opts.bundleType.toUpperCase();
    if (bundleType !== null && !isScheduleBundleType(bundleType)) throw new ValidationFailed(`--bundle-type: must be ${SCHEDULE_BUNDLE_TYPES.join(' or ')}`);
    if (opts.bundleEligible && bundleType === null)
      throw new ValidationFailed(`--bundle-type is required with --bundle-eligible: ${SCHEDULE_BUNDLE_TYPES.join(' or ')}`);
    const client = await ctx.client();
    const ssp = await resolveSsp(client, await scheduleOrNull(client, instanceId), opts.ssp);
    const body = (
      await client.addSsp(instanceId, {
        ssp_id: ssp.id,
        rate_type: rateType,
        rate_value: Number(opts.rate),
        is_bundle_eligible: opts.bundleEligible === true,
        bundle_type: opts.bundleEligible ? bundleType : null,
        notes: opts.notes ?? '',
      })
    ).body;
    return changed(body);
  },
});
