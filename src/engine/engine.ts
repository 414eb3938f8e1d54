// The embedded engine: opens the SQLite store, owns the clock, and answers requests through the
// route table. Every answer is a status and a JSON body; nothing here throws at a caller except
// a broken setup (unreadable data dir, bad TPA_CLOCK).
import { join } from 'node:path';
import { parseDuration } from '../domain/duration.js';
import { UsageError } from '../errors.js';
import { engineClock } from './clock.js';
import type { EngineContext } from './context.js';
import { HttpError, respond, type EngineRequest, type EngineResponse } from './http.js';
import { newId } from './ids.js';
import { matchRoute } from './routes.js';
import { completeDueClaims } from './services/claims.js';
import { fixtures } from './services/fixtures.js';
import { openDatabase, type Db } from './store/db.js';

export const DEFAULT_ADJUDICATION_DELAY_MS = 3000;

export interface EngineOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

export function databaseFile(dataDir: string): string {
  return join(dataDir, 'local.sqlite');
}

export class Engine {
  private constructor(private readonly ctx: EngineContext) {}

  static open(options: EngineOptions): Engine {
    const env = options.env ?? process.env;
    const clock = engineClock(env);
    const delayText = env.TPA_ADJUDICATION_DELAY;
    const adjudicationDelayMs = delayText === undefined || delayText === '' ? DEFAULT_ADJUDICATION_DELAY_MS : parseDuration(delayText);
    if (adjudicationDelayMs === undefined) {
      throw new UsageError(`TPA_ADJUDICATION_DELAY must be a duration such as 3s or 0 (got "${delayText}")`);
    }
    return new Engine({ db: openDatabase(databaseFile(options.dataDir)), clock, adjudicationDelayMs });
  }

  get db(): Db {
    return this.ctx.db;
  }

  get context(): EngineContext {
    return this.ctx;
  }

  handle(req: EngineRequest): EngineResponse {
    const match = matchRoute(req.method, req.path);
    if (!match) return respond(404, { error: 'not_found', message: `No route ${req.method} ${req.path}`, path: req.path });
    if ('allowed' in match) {
      return respond(405, { error: 'method_not_allowed', message: `${req.path} accepts ${match.allowed.join(', ')}` }, { allow: match.allowed.join(', ') });
    }
    try {
      completeDueClaims(this.ctx);
      return match.route.handler(this.ctx, req, match.params);
    } catch (err) {
      if (err instanceof HttpError) return respond(err.status, err.body);
      // A bug or a store failure: answer 500 with an id to quote, and keep the details out of the body.
      const requestId = newId('req_');
      if (process.env.TPA_DEBUG_ENGINE) process.stderr.write(`[engine ${requestId}] ${(err as Error).stack ?? String(err)}\n`);
      return respond(500, { error: 'internal_error', message: 'The engine failed to process the request', request_id: requestId });
    }
  }

  /** The seeded reference data (`tpa local fixtures`). */
  fixtures(): Record<string, unknown> {
    return fixtures(this.ctx.db);
  }

  close(): void {
    this.ctx.db.close();
  }
}
