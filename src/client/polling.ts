// Claim polling as the contract (docs/api.md) advises: first poll 2–5 s after submission, then about every 10 s,
// backing off to 30 s, within an overall timeout (10 minutes by default, docs/client.md "Client behaviour").
// When the service gives an estimated completion sooner than the next scheduled poll, poll then.
import { PendingError } from '../errors.js';
import type { ApiResult, TpaClient } from './client.js';
import type { ClaimResponseBody } from './types.js';

export const DEFAULT_POLL_TIMEOUT_MS = 10 * 60_000;
const SCHEDULE_MS = [10_000, 15_000, 20_000, 30_000];
const MIN_WAIT_MS = 1000;

export interface PollOptions {
  timeoutMs: number;
  includeRaw?: boolean;
  /** Wait before the first poll: 2 s right after a submission, 0 for an earlier one. */
  firstDelayMs: number;
  onWait?: (info: { attempt: number; waitMs: number; elapsedMs: number }) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function nextPollDelay(attempt: number, estimatedCompletion: string | undefined, now: number): number {
  const scheduled = SCHEDULE_MS[Math.min(attempt, SCHEDULE_MS.length - 1)]!;
  const estimate = estimatedCompletion ? Date.parse(estimatedCompletion) - now : NaN;
  // An estimate already past (on this machine's clock) says nothing useful, e.g. a service clock
  // that is frozen or shifted: follow the schedule, never a tighter loop.
  if (Number.isNaN(estimate) || estimate < 0) return scheduled;
  return Math.min(scheduled, Math.max(MIN_WAIT_MS, estimate + 250));
}

/** Polls until the claim is adjudicated (200) or the timeout passes (PendingError, exit 7). */
export async function pollClaim(client: TpaClient, submissionId: string, options: PollOptions): Promise<ApiResult<ClaimResponseBody>> {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const started = now();
  const deadline = started + options.timeoutMs;
  let wait = options.firstDelayMs;
  for (let attempt = 0; ; attempt++) {
    if (wait > 0) {
      const remaining = deadline - now();
      if (remaining <= 0) break;
      const ms = Math.min(wait, remaining);
      options.onWait?.({ attempt, waitMs: ms, elapsedMs: now() - started });
      await sleep(ms);
    }
    const result = await client.claimResponse(submissionId, options.includeRaw);
    if (result.status !== 202) return result;
    if (now() >= deadline) {
      throw new PendingError(`claim ${submissionId} is still being adjudicated after ${Math.round((now() - started) / 1000)}s`, {
        status: 202,
        body: result.body,
        hint: `try: tpa claim poll ${submissionId} --wait (on the local engine, a frozen clock never reaches the ready time: tpa local clock advance 10s)`,
      });
    }
    wait = nextPollDelay(attempt, result.body.estimated_completion, now());
  }
  throw new PendingError(`claim ${submissionId} was not adjudicated within the timeout`, { hint: `try: tpa claim poll ${submissionId} --wait` });
}
