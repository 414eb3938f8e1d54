// tpa claim submit: one claim, sent with an idempotency key (and waited for with --wait); or a batch
// (more than one claim, or a --journal), sent exactly once each and resumable (submit-batch.ts). One
// claim is journaled as a batch's claims are (the journal of single claims): the same content sent
// again is refused unless asked for (--again, or yes at the prompt). --dry-run checks and shows.
import type { ClaimOutcome } from '../../../jobs/claim-batch.js';
import { UsageError, ValidationFailed } from '../../../errors.js';
import { suggestCommand, waitTimeoutSpec } from '../../options.js';
import { argument, option, fieldsOf, verb } from '../../verb.js';
import { validateOneClaim } from './claim-check.js';
import { RESPONSE_FIELDS, responseOutput, waitForClaim } from './response.js';

export const submit = verb({
  name: 'submit',
  description: 'submit claims for adjudication: one claim, or a batch (files, Bundles, NDJSON, folders) sent exactly once, resumable',
  args: {
    paths: argument.variadic(
      '<paths...>',
      'Claim JSON files, FHIR Bundles, NDJSON files (one Claim a line), X12 837 files (*.837, *.x12, *.edi, or any file starting with ISA), folders of them, or - for stdin',
    ),
  },
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
    dryRun: option.flag('--dry-run', 'check every claim and print what would be sent (-o json/ndjson: the claims); send and journal nothing'),
    again: option.flag(
      '--again',
      'send a claim whose same content was submitted before from this machine, as a new claim (else refused, exit 4, or asked on a terminal)',
    ),
    ack: option.text(
      '--ack <dir>',
      "write each 837's acknowledgments into this folder: TA1, 999 and 277CA, X12 and JSON (<file>.999, .999.json, …); - prints them on stdout (one 837)",
    ),
  },
  fields: [
    ...new Set([
      ...RESPONSE_FIELDS,
      'found_in_ledger',
      // A batch: one outcome a claim.
      ...fieldsOf<ClaimOutcome>({
        source: true,
        status: true,
        submission_id: true,
        external_claim_id: true,
        idempotency_key: true,
        errors: true,
        note: true,
        disposition: true,
        adjudication: true,
        denial_code: true,
        denial_reason: true,
      }),
    ]),
  ],
  examples: [
    'tpa claim submit claim.json',
    'tpa claim submit claim.json --wait -o json',
    'tpa claim template | tpa claim submit - --wait --timeout 2m',
    'tpa claim submit claims/ export.ndjson --journal run1.journal -o ndjson',
    'tpa claim submit bundle.json --wait   # a FHIR Bundle: its Claim entries',
    'tpa claim submit claims.837 --wait   # an X12 837P or 837I: each CLM a claim (tpa claim convert shows them)',
    'tpa claim submit claims/ --dry-run -o ndjson   # the claims that would be sent; nothing is',
    'tpa claim submit claim.json --again   # the same claim once more, on purpose: a new claim',
    'tpa claim submit claims.837 --ack .   # and its 999 and 277CA (claims.837.999, claims.837.277ca, and .json forms)',
  ],
  async run(ctx, { paths }, opts) {
    const { checkPaths, countClaims, peekClaims } = await import('./submit-sources.js');
    checkPaths(paths, ctx.io.stdinIsTTY);
    if (opts.dryRun && opts.wait) throw new UsageError('--dry-run sends nothing, so there is nothing to --wait for');
    if (opts.dryRun && opts.ack !== undefined)
      throw new UsageError('--ack acknowledges what was sent: --dry-run sends nothing (tpa claim validate --ack writes what a check finds)');
    // The acknowledgments' code (the X12 reader and writers) is loaded only when asked for.
    const target = opts.ack === undefined ? undefined : (await import('./acks.js')).ackTarget(opts.ack, paths);
    // One claim behaves as it always has; more than one (or a --journal) is a batch.
    const peekSecond = !opts.dryRun && opts.journal === undefined;
    const { first, several, all } = await peekClaims(paths, () => ctx.io.stdinStream(), ctx.note, peekSecond);
    // Test data goes to tpa's embedded engine only (test-data.ts); a dry run says so as the run would.
    const { gated, testDataGate } = await import('./test-data.js');
    const gate = testDataGate(ctx, () => ctx.client());
    if (opts.dryRun) {
      const { checkClaims } = await import('./check-batch.js');
      return checkClaims(ctx, gated(all(), gate), 'dry-run');
    }
    if (!first) throw new ValidationFailed(`no claim in ${paths.join(', ')}`);
    // An 837 goes through the batch path whatever its number of claims: its claims are known in the
    // journal by interchange, transaction and CLM01.
    if (opts.journal !== undefined || several || first.identity !== undefined || first.errors !== undefined || (target && first.x12)) {
      const { submitBatch } = await import('./submit-batch.js');
      const acks = target ? new (await import('./acks.js')).AckRecorder(ctx, target, 'submit') : undefined;
      const items = gated(all(), gate);
      // Counted first (a second read, a line at a time) for the progress line and for the journal: `tpa
      // jobs` says how many of the batch were never sent.
      const total = await countClaims(paths);
      if (!acks) return submitBatch(ctx, paths, items, opts, total);
      const batchCtx = target?.kind === 'stdout' ? (await import('./acks.js')).withoutStdout(ctx) : ctx;
      const out = await submitBatch(batchCtx, paths, acks.pass(items), { ...opts, onOutcome: (o) => acks.outcome(o) }, total);
      const { serviceNow } = await import('../../../client/activity.js');
      await acks.finish(await serviceNow(await ctx.client()));
      return out;
    }
    if (opts.again && (opts.journal !== undefined || several))
      throw new UsageError('--again is for one claim: a batch sends what its journal has not sent, and the same content twice in it is two claims');
    const item = first;
    if (target) ctx.note('--ack: no X12 837 among the claims read, so no acknowledgments were written (they answer 837s)');
    const parsed = validateOneClaim(item);
    const testData = await gate(item);
    if (testData !== undefined) throw new ValidationFailed(`${item.source === '-' ? 'stdin' : item.source}: ${testData}`);
    const client = await ctx.client();
    const { sendOneClaim } = await import('./submit-one.js');
    const result = await sendOneClaim(ctx, client, { source: item.source, text: item.text, value: item.value, parsed }, opts);
    if ('found' in result) {
      const f = result.found;
      ctx.note(`${item.source}: sent before, its answer lost: found in the ledger (${f.external_claim_id}), not sent again`);
      if (opts.wait) return { ...responseOutput(ctx, await waitForClaim(ctx, f.submission_id, opts, 0)), done: submitted(f.submission_id) };
      return {
        data: { submission_id: f.submission_id, external_claim_id: f.external_claim_id, status: 'ACKNOWLEDGED', found_in_ledger: true },
        done: submitted(f.submission_id),
        table: (t) =>
          t.keyValues([
            ['Submission', f.submission_id],
            ['Encounter', f.external_claim_id],
            ['Next', `tpa claim poll ${f.submission_id} --wait`],
          ]),
      };
    }
    const ack = result.sent;
    if (!opts.wait) {
      return {
        data: ack.body,
        done: submitted(ack.body.submission_id),
        table: (t) =>
          t.keyValues([
            ['Submission', ack.body.submission_id],
            ['Encounter', ack.body.external_claim_id],
            ['Status', t.status(ack.body.status)],
            ['Next', suggestCommand(ctx, ['claim', 'poll', ack.body.submission_id, '--wait'])],
          ]),
      };
    }
    // Kept above the waiting line: the id to follow with claim poll if the wait is cut short.
    if (ctx.status.live) ctx.note(`submitted ${ack.body.submission_id} (encounter ${ack.body.external_claim_id})`);
    return { ...responseOutput(ctx, await waitForClaim(ctx, ack.body.submission_id, opts, 2000)), done: submitted(ack.body.submission_id) };
  },
});

/** What a single claim's submission did, for a filter that fails on its answer (output.ts `done`). */
function submitted(submission: string): string {
  return `the claim was submitted (${submission})`;
}
