// tpa local clock advance: move the engine clock forward by a duration.
import { UsageError } from '../../../../errors.js';
import { argument, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { clockOutput } from './output.js';

export const advance = verb({
  name: 'advance',
  description: 'move the clock forward, e.g. to the next business day (never to before the latest time recorded)',
  args: { duration: argument.required('<duration>', '30s, 10m, 2h, 1d ...') },
  examples: ['tpa local clock advance 1d'],
  async run(ctx, { duration }) {
    const { parseDuration } = await import('../../../../domain/duration.js');
    const ms = parseDuration(duration);
    if (ms === undefined) throw new UsageError(`"${duration}" is not a duration such as 30s, 10m, 2h or 1d`);
    return clockOutput(await withEngine(ctx, (e) => e.advanceClock(ms)));
  },
});
