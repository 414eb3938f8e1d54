// tpa local clock set: freeze the engine clock at a time.
import { argument, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { clockOutput } from './output.js';

export const set = verb({
  name: 'set',
  description: 'freeze the clock at a time, never before the latest time the engine recorded',
  args: { timestamp: argument.required('<timestamp>', 'ISO 8601, e.g. 2026-03-02T10:00:00Z') },
  examples: ['tpa local clock set 2026-03-02T10:00:00Z'],
  async run(ctx, { timestamp }) {
    return clockOutput(await withEngine(ctx, (e) => e.setClock(timestamp)));
  },
});
