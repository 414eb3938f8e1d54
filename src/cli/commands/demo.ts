// tpa demo — the lifecycle so far, narrated, on a scratch copy of the embedded engine.
// Declarations only: the handlers live in demo.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./demo.run.js');

export function registerDemo(program: Command, act: Act): void {
  examples(
    program.command('demo').description('the whole lifecycle on a scratch embedded engine, narrated step by step'),
    'tpa demo',
    'tpa demo -o json | jq .adjudication',
  ).action(act(run, 'demo'));
}
