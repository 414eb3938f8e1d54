// The engine clock (DESIGN.md section 4): real time by default; `tpa local clock` stores a frozen
// time or an offset in the database, shared by every command on that data dir; TPA_CLOCK freezes
// it for one process and overrides the stored one. Every time-dependent state reads it.
import { UsageError } from '../errors.js';
import type { Db } from './store/db.js';

export interface Clock {
  now(): Date;
}

export type StoredClock = { mode: 'frozen'; at: string } | { mode: 'offset'; offset_ms: number };
export type ClockSource = 'TPA_CLOCK' | 'frozen' | 'offset' | 'real';

/**
 * An ISO 8601 date (midnight UTC) or date-time with its zone (Z or ±hh:mm). A date-time without a
 * zone is refused: it would mean another instant on every machine.
 */
export function parseTimestamp(text: string, what: string): Date {
  const form = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
  const at = new Date(text);
  if (!form.test(text) || Number.isNaN(at.getTime())) {
    throw new UsageError(`${what} must be an ISO 8601 date or a date-time with its zone, such as 2026-03-01T09:00:00Z (got "${text}")`);
  }
  return at;
}

/** The TPA_CLOCK override, checked once when the engine opens. */
export function envClock(env: NodeJS.ProcessEnv): Date | undefined {
  const frozen = env.TPA_CLOCK;
  return frozen === undefined || frozen === '' ? undefined : parseTimestamp(frozen, 'TPA_CLOCK');
}

export function readStoredClock(db: Db): StoredClock | null {
  const row = db.prepare(`SELECT value FROM settings WHERE key = 'clock'`).get() as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as StoredClock) : null;
}

export function writeStoredClock(db: Db, clock: StoredClock | null): void {
  if (clock === null) db.prepare(`DELETE FROM settings WHERE key = 'clock'`).run();
  else db.prepare(`INSERT INTO settings (key, value) VALUES ('clock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(JSON.stringify(clock));
}

/** The engine's time now, and where it comes from. */
export function engineNow(db: Db, override: Date | undefined, realNow: number = Date.now()): { now: Date; source: ClockSource } {
  if (override) return { now: new Date(override.getTime()), source: 'TPA_CLOCK' };
  const stored = readStoredClock(db);
  if (stored?.mode === 'frozen') return { now: new Date(stored.at), source: 'frozen' };
  if (stored?.mode === 'offset') return { now: new Date(realNow + stored.offset_ms), source: 'offset' };
  return { now: new Date(realNow), source: 'real' };
}

export function fixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}

/** ISO 8601 UTC timestamp to the second, the form of every timestamp the engine writes. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
