// The engine clock (DESIGN.md section 4): real time, unless TPA_CLOCK freezes it for one process.
// Every time-dependent state (adjudication readiness, contract validity) reads it, never Date.now().
import { UsageError } from '../errors.js';

export interface Clock {
  now(): Date;
}

export function engineClock(env: NodeJS.ProcessEnv): Clock {
  const frozen = env.TPA_CLOCK;
  if (frozen !== undefined && frozen !== '') {
    const at = new Date(frozen);
    if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(frozen)) {
      throw new UsageError(`TPA_CLOCK must be an ISO 8601 timestamp such as 2026-03-01T09:00:00Z (got "${frozen}")`);
    }
    return { now: () => new Date(at.getTime()) };
  }
  return { now: () => new Date() };
}

/** ISO 8601 UTC timestamp to the second, the form of every timestamp the engine writes. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
