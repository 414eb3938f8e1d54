// tpa ratesheet config: change the schedule settings; its items are untouched.
import { instanceArgument } from './instance.js';
import { UsageError } from '../../../errors.js';
import { verb } from '../../verb.js';
import { changed } from './changed.js';
import { scheduleOptions, scheduleSettings } from './schedule-options.js';

export const config = verb({
  name: 'config',
  description: 'change schedule settings (items are untouched)',
  args: { instanceId: instanceArgument() },
  options: { ...scheduleOptions },
  examples: ['tpa ratesheet config BLD-1001 --elective-hours 48 --fallback WRAP_NETWORK'],
  async run(ctx, { instanceId }, opts) {
    const settings = scheduleSettings(opts);
    if (Object.keys(settings).length === 0) throw new UsageError('nothing to change: give one or more schedule options (see tpa ratesheet config --help)');
    return changed((await (await ctx.client()).configureSchedule(instanceId, settings)).body);
  },
});
