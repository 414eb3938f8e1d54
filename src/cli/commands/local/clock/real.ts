// tpa local clock real (or reset): the engine clock back to real time.
import { verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { clockOutput } from './output.js';

export const real = verb({
  name: 'real',
  aliases: ['reset'],
  description: 'back to real time (held at the latest time recorded while real time is earlier)',
  examples: ['tpa local clock real'],
  async run(ctx) {
    return clockOutput(await withEngine(ctx, (e) => e.realClock()));
  },
});
