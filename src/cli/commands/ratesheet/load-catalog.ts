// tpa ratesheet load-catalog: every active encounter SSP of a catalog version, at the schedule's default rate.
import { instanceArgument } from './instance.js';
import { option, verb } from '../../verb.js';
import { changed } from './changed.js';

export const loadCatalog = verb({
  name: 'load-catalog',
  description: "add every active encounter SSP of a catalog version at the schedule's default rate (items already there are kept)",
  args: { instanceId: instanceArgument() },
  options: { version: option.text('--version <version>', 'catalog version, e.g. v1.0 (default: the current one)') },
  examples: ['tpa ratesheet load-catalog BLD-1001 --version v1.0'],
  async run(ctx, { instanceId }, opts) {
    return changed((await (await ctx.client()).loadCatalog(instanceId, opts.version)).body);
  },
});
