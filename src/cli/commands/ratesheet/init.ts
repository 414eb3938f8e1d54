// tpa ratesheet init: the rate schedule of a builder instance, made with the settings given.
import { instanceArgument } from './instance.js';
import { verb } from '../../verb.js';
import { changed } from './changed.js';
import { scheduleOptions, scheduleSettings } from './schedule-options.js';

export const init = verb({
  name: 'init',
  description: 'create the rate schedule of a builder instance (a second init returns the existing one)',
  args: { instanceId: instanceArgument() },
  options: { ...scheduleOptions },
  examples: ['tpa ratesheet init BLD-1001', 'tpa ratesheet init BLD-1001 --scope FACILITY_ONLY --default-rate 1.4'],
  async run(ctx, { instanceId }, opts) {
    return changed((await (await ctx.client()).initSchedule(instanceId, scheduleSettings(opts))).body);
  },
});
