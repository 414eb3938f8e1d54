// tpa api — a raw request through the active profile, path as served (like `gh api`).
// Declarations only: the handlers live in api.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./api.run.js');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function registerApi(program: Command, act: Act): void {
  examples(
    program
      .command('api')
      .description('send a raw request to a path as served and print the response body; exits by the status code')
      .argument('<method>', METHODS.join(' | '))
      .argument('<path>', 'path as served: /tpa-api/v1/... or /api/v1/...')
      .option('-d, --data <json>', 'request body: JSON text, @file, or - for stdin')
      .option('-i, --include', 'print the status line and headers before the body'),
    'tpa api GET /tpa-api/v1/claims/sub_4f1c9a0b2e7d6c35a8e1/response/',
    `tpa api POST /tpa-api/v1/contract-lookup/blind/ -d '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}'`,
    'tpa api POST /tpa-api/v1/claims/submit/ -d @claim.json --include',
  ).action(act(run, 'api'));
}
