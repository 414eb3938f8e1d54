// tpa claim poll: the adjudication of a submitted claim; exit 7 while it is still processing.
import { argument, option, verb } from '../../verb.js';
import { timeoutOption, waitTimeoutSpec } from '../../options.js';
import { RESPONSE_FIELDS, responseOutput, waitForClaim } from './response.js';

export const poll = verb({
  name: 'poll',
  description: 'get the adjudication of a submitted claim; exit 7 while it is still processing',
  args: { submissionId: argument.required('<submission_id>', 'the submission_id that `tpa claim submit` printed') },
  options: {
    wait: option.flag('--wait', 'poll until adjudicated'),
    timeout: waitTimeoutSpec,
    raw: option.flag('--raw', 'include the FHIR ClaimResponse (include_raw_response=true)'),
  },
  fields: RESPONSE_FIELDS,
  examples: ['tpa claim poll sub_4f1c9a0b2e7d6c35a8e1', 'tpa claim poll sub_4f1c9a0b2e7d6c35a8e1 --wait --raw -o json'],
  async run(ctx, { submissionId }, opts) {
    if (opts.wait) return responseOutput(ctx, await waitForClaim(ctx, submissionId, opts, 0));
    timeoutOption(opts.timeout);
    const client = await ctx.client();
    return responseOutput(ctx, await client.claimResponse(submissionId, opts.raw === true));
  },
});
