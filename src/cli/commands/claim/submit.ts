// tpa claim submit: one claim, sent with an idempotency key (and waited for with --wait); or a batch
// (more than one claim, or a --journal), sent exactly once each and resumable (submit-batch.ts).
import { ValidationFailed } from '../../../errors.js';
import { waitTimeoutSpec } from '../../options.js';
import { argument, option, verb } from '../../verb.js';
import { validateClaim } from './claim-check.js';
import { responseOutput, waitForClaim } from './response.js';

export const submit = verb({
  name: 'submit',
  description: 'submit claims for adjudication: one claim, or a batch (files, Bundles, NDJSON, folders) sent exactly once, resumable',
  args: { paths: argument.variadic('<paths...>', 'Claim JSON files, FHIR Bundles, NDJSON files (one Claim a line), folders of them, or - for stdin') },
  options: {
    wait: option.flag('--wait', 'poll until adjudicated (first check after 2s, then every 10-30s)'),
    timeout: waitTimeoutSpec,
    raw: option.flag('--raw', 'include the FHIR ClaimResponse when waiting (one claim)'),
    idempotencyKey: option.text('--idempotency-key <key>', 'reuse a key to make a retried submission safe (one claim; default: a new one)'),
    journal: option.text(
      '--journal <file>',
      "a batch's journal: what was sent with which key; the same command run again continues from it (default: one in the data directory)",
    ),
    concurrency: option.text('--concurrency <n>', "a batch's requests in flight at most (default 10, the sandbox tier's limit)"),
  },
  examples: [
    'tpa claim submit claim.json',
    'tpa claim submit claim.json --wait -o json',
    'tpa claim template | tpa claim submit - --wait --timeout 2m',
    'tpa claim submit claims/ export.ndjson --journal run1.journal -o ndjson',
    'tpa claim submit bundle.json --wait   # a FHIR Bundle: its Claim entries',
  ],
  async run(ctx, { paths }, opts) {
    const { checkPaths, claimTexts, countClaims } = await import('./submit-sources.js');
    checkPaths(paths, ctx.io.stdinIsTTY);
    const notes: string[] = [];
    const claims = claimTexts(
      paths,
      () => ctx.io.stdinStream(),
      (message) => notes.push(message),
    );
    // One claim behaves as it always has; more than one (or a --journal) is a batch.
    const first = await claims.next();
    const second = first.done || opts.journal !== undefined ? undefined : await claims.next();
    for (const message of notes.splice(0)) ctx.note(message);
    if (first.done) throw new ValidationFailed(`no claim in ${paths.join(', ')}`);
    if (opts.journal !== undefined || (second && !second.done)) {
      const { submitBatch } = await import('./submit-batch.js');
      async function* all() {
        yield first.value!;
        if (second && !second.done) yield second.value;
        for await (const item of claims) {
          for (const message of notes.splice(0)) ctx.note(message);
          yield item;
        }
        for (const message of notes.splice(0)) ctx.note(message);
      }
      return submitBatch(ctx, paths, all(), opts, ctx.io.stderr.isTTY ? await countClaims(paths) : undefined);
    }
    const file = first.value.source;
    const text = first.value.text;
    validateClaim(text, file);
    const client = await ctx.client();
    const { randomUUID } = await import('node:crypto');
    const key = opts.idempotencyKey ?? randomUUID();
    const ack = await client.submitClaim(text, key);
    if (!opts.wait) {
      return {
        data: ack.body,
        table: (t) =>
          t.keyValues([
            ['Submission', ack.body.submission_id],
            ['Encounter', ack.body.external_claim_id],
            ['Status', t.status(ack.body.status)],
            ['Next', `tpa claim poll ${ack.body.submission_id} --wait`],
          ]),
      };
    }
    // Kept above the waiting line: the id to follow with claim poll if the wait is cut short.
    if (ctx.status.live) ctx.note(`submitted ${ack.body.submission_id} (encounter ${ack.body.external_claim_id})`);
    return responseOutput(ctx, await waitForClaim(ctx, ack.body.submission_id, opts, 2000));
  },
});
