import type { Clock } from './clock.js';
import type { KeyRecord } from '../domain/api-keys.js';
import type { Db } from './store/db.js';

/** What every route handler gets: the store, the clock and the engine's settings. */
export interface EngineContext {
  db: Db;
  clock: Clock;
  /** Time from submission to adjudication (TPA_ADJUDICATION_DELAY, default 3 s). */
  adjudicationDelayMs: number;
  /** The caller's API key, when the request came through the HTTP server; absent in-process. */
  key?: KeyRecord;
  /**
   * Inside a read snapshot (Engine.readSnapshot, a listing's pages), what a request worked out that
   * the next ones would work out again: the state cannot change until the snapshot ends.
   */
  snapshotMemo?: Map<string, unknown>;
}

/** `make()` once per read snapshot for `key` (every call outside one). */
export function onceInSnapshot<T>(ctx: EngineContext, key: string, make: () => T): T {
  const memo = ctx.snapshotMemo;
  if (!memo) return make();
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key) as T;
}
