// The answers kept for Idempotency-Key replays (engine/idempotency.ts has the rule: who may replay
// what, for how long). Named queries; statements are prepared once per connection (db.ts).
import type { Db } from './db.js';

export interface StoredAnswer {
  request_hash: string;
  status: number;
  body_json: string;
}

/**
 * The answer kept for `key` on `route` for `caller`, stored at or after `since`. A row with caller
 * '' (stored before replays had callers) is anyone's; the caller's own row wins over it.
 */
export function storedAnswer(db: Db, route: string, key: string, caller: string, since: string): StoredAnswer | undefined {
  return db
    .prepare(
      "SELECT request_hash, status, body_json FROM idempotency_keys WHERE route = ? AND key = ? AND caller IN (?, '') AND created_at >= ? ORDER BY caller DESC LIMIT 1",
    )
    .get(route, key, caller, since) as StoredAnswer | undefined;
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
