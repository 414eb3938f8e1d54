// tpa local clock show (also plain `tpa local clock`): the engine time now.
import { verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { clockOutput } from './output.js';

export const show = verb({
  name: 'show',
  description: 'the engine time now, and whether it is real, frozen or shifted',
  isDefault: true,
  fields: ['now', 'source', 'stored', 'clock', 'held', 'recorded_until'],
  examples: ['tpa local clock'],
  async run(ctx) {
    return clockOutput(await withEngine(ctx, (e) => e.clock()));
  },
});
