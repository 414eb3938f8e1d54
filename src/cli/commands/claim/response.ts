// The adjudication of a submitted claim, as `claim submit --wait` and `claim poll` show it: the
// wait, its --timeout, and the output (exit 7 while the claim is still processing).
import type { ApiResult } from '../../../client/client.js';
import type { ClaimResponseBody } from '../../../client/types.js';
import { EXIT, PendingError } from '../../../errors.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { suggestCommand, timeoutOption } from '../../options.js';
import { fieldsOf } from '../../verb.js';

/** The fields of an adjudication (the service's ClaimResponse body), as `claim submit` and `claim poll` print it. */
export const RESPONSE_FIELDS = fieldsOf<ClaimResponseBody>({
  submission_id: true,
  external_claim_id: true,
  status: true,
  disposition: true,
  adjudication: true,
  claim_response: true,
  aeob_reference: true,
  processor_trace_id: true,
  completed_at: true,
  denial_reason: true,
  denial_code: true,
  pend_reason: true,
  estimated_completion: true,
  message: true,
});

/** The options of the wait, as `claim submit` and `claim poll` declare them. */
export interface WaitOptions {
  timeout?: string;
  raw?: boolean;
}

/** Polls until the claim is adjudicated or --timeout passes. */
export async function waitForClaim(ctx: Context, submissionId: string, opts: WaitOptions, firstDelayMs: number): Promise<ApiResult<ClaimResponseBody>> {
  const { pollClaim, DEFAULT_POLL_TIMEOUT_MS } = await import('../../../client/polling.js');
  const client = await ctx.client();
  const started = Date.now();
  // One line, redrawn: the countdown to the next check and the time waited so far.
  const label = `waiting for adjudication of ${submissionId}`;
  try {
    return await pollClaim(client, submissionId, {
      timeoutMs: timeoutOption(opts.timeout) ?? DEFAULT_POLL_TIMEOUT_MS,
      includeRaw: opts.raw === true,
      firstDelayMs,
      onWait: ({ waitMs }) => ctx.status.show({ label, wait: { untilMs: Date.now() + waitMs, text: 'next check in' }, sinceMs: started }, true),
    });
  } catch (err) {
    // The poll to try next, with the user's --timeout, --raw and profile (the client's hint knows none of them).
    const plain = `tpa claim poll ${submissionId} --wait`;
    if (!(err instanceof PendingError) || !err.hint?.includes(plain)) throw err;
    const again = suggestCommand(ctx, [
      'claim',
      'poll',
      submissionId,
      '--wait',
      ...(opts.timeout !== undefined ? ['--timeout', opts.timeout] : []),
      opts.raw === true && '--raw',
    ]);
    throw new PendingError(err.message, { status: err.status, body: err.body, details: err.details, hint: err.hint.replace(plain, again) });
  } finally {
    ctx.status.clear();
  }
}

export function claimResponseTable(t: TableTools, b: ClaimResponseBody): string {
  const pairs: [string, string][] = [
    ['Submission', b.submission_id],
    ['Encounter', b.external_claim_id ?? '—'],
    ['Status', t.status(b.status)],
  ];
  if (b.status === 'PROCESSING') {
    pairs.push(['Estimated completion', b.estimated_completion ?? '—'], ['Message', b.message ?? '']);
    return t.keyValues(pairs);
  }
  pairs.push(['Disposition', t.status(b.disposition)]);
  if (b.disposition === 'DENIED') pairs.push(['Denial', `${b.denial_code ?? ''} ${b.denial_reason ?? ''}`.trim()]);
  if (b.disposition === 'PENDING_REVIEW') pairs.push(['Pend reason', b.pend_reason ?? '—'], ['Message', b.message ?? '']);
  const a = b.adjudication;
  if (a) {
    pairs.push(
      ['Service date', a.service_date],
      ['Charges', t.amount(a.total_charges)],
      ['Allowed', t.amount(a.allowed_amount)],
      ['  Copay', t.amount(a.copay_applied)],
      ['  Deductible', t.amount(a.deductible_applied)],
      ['  Coinsurance', t.amount(a.coinsurance_applied)],
      ['Patient responsibility', t.amount(a.patient_responsibility)],
      ['Benefit (plan pays)', t.c.bold(t.amount(a.benefit_amount))],
    );
  }
  if (b.aeob_reference) pairs.push(['AEOB', b.aeob_reference]);
  // The processor's id for settlement tracking (docs/api-resources.md "Claim response"): the id the transfer
  // takes when the benefit is funded, not a transfer that exists at adjudication.
  if (b.processor_trace_id) pairs.push(['Trace', `${b.processor_trace_id} (the transfer's id once funded)`]);
  if (b.completed_at) pairs.push(['Completed', b.completed_at]);
  return t.keyValues(pairs);
}

/** The claim response as output: exit 7 (with a note) while it is still processing. */
export function responseOutput(ctx: Context, result: ApiResult<ClaimResponseBody>): CommandOutput {
  const pending = result.status === 202;
  if (pending) {
    ctx.note(
      `not finished: claim ${result.body.submission_id} is still being adjudicated (estimated ${result.body.estimated_completion ?? 'soon'}); use --wait to wait for it`,
    );
  }
  return { data: result.body, table: (t) => claimResponseTable(t, result.body), exitCode: pending ? EXIT.PENDING : EXIT.OK };
}
