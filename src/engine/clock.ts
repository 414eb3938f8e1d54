// The engine clock (docs/local.md "The engine clock"): real time by default; `tpa local clock` stores a frozen
// time or an offset in the database, shared by every command on that data dir; TPA_CLOCK freezes
// it for one process and overrides the stored one. Every time-dependent state reads it. The
// engine's "now" is never earlier than the latest time it has recorded (docs/local.md "The engine clock":
// clock moves), so no event is ever recorded before an earlier one.
import { InvalidInput } from './errors.js';
import { type Db, writeTransactionSerial } from './store/transactions.js';

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
    throw new InvalidInput(`${what} must be an ISO 8601 date or a date-time with its zone, such as 2026-03-01T09:00:00Z (got "${text}")`);
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

/** The clock's own time (TPA_CLOCK, the stored clock or real time), before any hold. */
export function clockTime(db: Db, override: Date | undefined, realNow: number = Date.now()): { now: Date; source: ClockSource } {
  if (override) return { now: new Date(override.getTime()), source: 'TPA_CLOCK' };
  const stored = readStoredClock(db);
  if (stored?.mode === 'frozen') return { now: new Date(stored.at), source: 'frozen' };
  if (stored?.mode === 'offset') return { now: new Date(realNow + stored.offset_ms), source: 'offset' };
  return { now: new Date(realNow), source: 'real' };
}

/**
 * The latest time the engine has recorded (an encounter's history entry, an audit record), in ms;
 * 0 when nothing is. Kept in settings by triggers that write only when it grows (migrations.ts
 * MONEY_IN_TIME), so that reading it is one lookup by key, not a scan.
 */
export function recordedUntil(db: Db): number {
  const value = db.prepare(`SELECT value FROM settings WHERE key = 'recorded_until'`).pluck().get() as string | undefined;
  return value ? Date.parse(value) : 0;
}

/**
 * The engine's time now, and where it comes from: the clock's, held at the latest time recorded
 * when the clock is earlier (a real clock stepping back, a TPA_CLOCK earlier than what is recorded).
 */
export function engineNow(db: Db, override: Date | undefined, realNow: number = Date.now()): { now: Date; source: ClockSource; held: boolean } {
  const { now, source } = clockTime(db, override, realNow);
  const recorded = recordedUntil(db);
  return recorded > now.getTime() ? { now: new Date(recorded), source, held: true } : { now, source, held: false };
}

/**
 * The clock of one request: its time, read once, held at the latest time recorded. That is read
 * again at each reading (one lookup by key), so inside a write transaction, which no other process
 * can write beside, it is what the database holds: another process that recorded a later time just
 * before cannot be overtaken by this one's earlier clock.
 */
export function heldClock(db: Db, at: Date): Clock {
  const base = at.getTime();
  // Read once per write transaction: inside it no other process writes, and this one's own writes
  // are dated by this clock, so the latest time recorded cannot pass what was read at its start.
  let read: { serial: number; recorded: number } | undefined;
  return {
    now: () => {
      const serial = writeTransactionSerial(db);
      if (serial === null || read?.serial !== serial) read = { serial: serial ?? -1, recorded: recordedUntil(db) };
      return new Date(Math.max(base, read.recorded));
    },
  };
}

/** ISO 8601 UTC timestamp to the second, the form of every timestamp the engine writes. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
