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
}
