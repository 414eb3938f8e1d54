// tpa ratesheet remove: take an SSP off the schedule.
import { instanceArgument } from './instance.js';
import { option, verb } from '../../verb.js';
import { changed } from './changed.js';
import { resolveSsp, scheduleOrNull } from './ssp.js';

export const remove = verb({
  name: 'remove',
  description: 'remove an SSP from the schedule',
  args: { instanceId: instanceArgument() },
  options: { ssp: option.required('--ssp <uuid|code>', 'the SSP, by id or by code') },
  examples: ['tpa ratesheet remove BLD-1001 --ssp HD-0401'],
  async run(ctx, { instanceId }, opts) {
    const client = await ctx.client();
    const ssp = await resolveSsp(client, await scheduleOrNull(client, instanceId), opts.ssp);
    return changed((await client.removeSsp(instanceId, ssp.id)).body);
  },
});
