// The answers kept for Idempotency-Key replays (engine/idempotency.ts has the rule: who may replay
// what, for how long). Named queries; statements are prepared once per connection (db.ts).
import type { Db } from './db.js';

export interface StoredAnswer {
  request_hash: string;
  status: number;
  body_json: string;
}

/**
 * The answers kept for `key` on `route` stored at or after `since`, whoever the caller (one seek on
 * the primary key's first two columns; engine/idempotency.ts picks the one its caller may replay).
 * Asking for the caller in SQL (`caller IN (?, '') ORDER BY caller DESC`) took twice the time.
 */
export function storedAnswers(db: Db, route: string, key: string, since: string): (StoredAnswer & { caller: string })[] {
  return db
    .prepare('SELECT caller, request_hash, status, body_json FROM idempotency_keys WHERE route = ? AND key = ? AND created_at >= ?')
    .all(route, key, since) as (StoredAnswer & { caller: string })[];
}

export function storeAnswer(db: Db, caller: string, key: string, route: string, answer: StoredAnswer, createdAt: string): void {
  db.prepare('INSERT OR REPLACE INTO idempotency_keys (caller, key, route, request_hash, status, body_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    caller,
    key,
    route,
    answer.request_hash,
    answer.status,
    answer.body_json,
    createdAt,
  );
}
