// Idempotency-Key (docs/api.md "Idempotency"): a replay with the same key and body within 24 hours gets
// the first response; the same key with another body is a 409. Used by claim submission and funding.
// A replay belongs to its caller: the same environment and key lineage (a key rotated mid-batch
// still replays what its lineage sent; another key's Idempotency-Key is a new request, and never
// sees the first one's answer). In-process, the caller is the operator of the engine ('local').
import type { EngineContext } from './context.js';
import { isoSeconds } from './clock.js';
import { respond, type EngineRequest, type EngineResponse } from './exchange.js';
import { sha256 } from './ids.js';
import { storeAnswer, storedAnswers } from './store/idempotency-keys.js';

const REPLAY_WINDOW_MS = 24 * 3_600_000;

/**
 * Runs `handler` once per Idempotency-Key. Call inside the route's write transaction so that the
 * check, the work and the record of its response commit together.
 */
export function withIdempotency(ctx: EngineContext, route: string, req: EngineRequest, handler: () => EngineResponse): EngineResponse {
  const key = req.headers['idempotency-key'];
  if (key === undefined || key === '') return handler();
  if (key.length > 255) {
    return respond(400, { errors: [{ field: 'Idempotency-Key', message: 'must be at most 255 characters' }] });
  }
  const hash = sha256(req.body ?? '');
  const now = ctx.clock.now();
  const since = isoSeconds(new Date(now.getTime() - REPLAY_WINDOW_MS));
  const caller = ctx.key ? `${ctx.key.environment}:${ctx.key.lineage}` : 'local';
  // The caller's own answer; else one stored before replays had callers (caller '', the migration
  // that gave them callers), anyone's for its last 24 hours. Another caller's is never theirs.
  const answers = storedAnswers(ctx.db, route, key, since);
  const previous = answers.find((a) => a.caller === caller) ?? answers.find((a) => a.caller === '');
  if (previous) {
    if (previous.request_hash !== hash) {
      return respond(409, {
        error: 'idempotency_key_reused',
        message: 'This Idempotency-Key was already used with a different request body',
      });
    }
    return respond(previous.status, JSON.parse(previous.body_json), { 'idempotent-replayed': 'true' });
  }
  const response = handler();
  // Only answers that changed something are worth replaying; a 4xx can be corrected and resent.
  if (response.status < 300) {
    storeAnswer(ctx.db, caller, key, route, { request_hash: hash, status: response.status, body_json: JSON.stringify(response.body) }, isoSeconds(now));
  }
  return response;
}
