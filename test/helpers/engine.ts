import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import type { EngineResponse } from '../../src/engine/exchange.js';

export function tempDir(prefix = 'tpa-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An engine on a real SQLite file in `dir`, its clock frozen at `clock`. */
export function engineAt(dir: string, clock: string, delay = '3s'): Engine {
  return Engine.open({ dataDir: dir, env: { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: delay } });
}

export function call(engine: Engine, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): EngineResponse {
  const url = new URL(path, 'http://local');
  return engine.handle({
    method,
    path: url.pathname,
    query: url.searchParams,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * A fresh data dir per test, with engines opened on it at any clock: `at(clock)` opens one (closed
 * with the dir after the test). Call `useEngineHome()` at the top of a test file.
 */
export function useEngineHome(beforeEach: (fn: () => void) => void, afterEach: (fn: () => void) => void) {
  let home: ReturnType<typeof tempDir>;
  let engines: Engine[] = [];
  beforeEach(() => {
    home = tempDir();
    engines = [];
  });
  afterEach(() => {
    for (const e of engines) e.close();
    home.remove();
  });
  return {
    get dir() {
      return home.dir;
    },
    at(clock: string, delay?: string): Engine {
      const e = engineAt(home.dir, clock, delay);
      engines.push(e);
      return e;
    },
    /** Keeps an engine opened another way, to close it with the others. */
    track(e: Engine): Engine {
      engines.push(e);
      return e;
    },
  };
}

/** A claim submitted through the route table: its ack's status, the claim response (raw included) and ledger detail. */
export interface Adjudicated {
  status: number;
  /** The claim response, or the refusal's body when the submission is not accepted (201). */
  response: Record<string, any>;
  /** The ledger entry (empty when refused). */
  detail: Record<string, any>;
  encounterId: string;
}

/** Submits `claim` on `engine` and reads its response and ledger detail (an engine with no adjudication delay answers at once). */
export function adjudicateOn(engine: Engine, claim: unknown): Adjudicated {
  const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim);
  if (ack.status !== 201) return { status: ack.status, response: ack.body as Record<string, any>, detail: {}, encounterId: '' };
  const { submission_id: submissionId, external_claim_id: encounterId } = ack.body as Record<string, any>;
  const response = call(engine, 'GET', `/tpa-api/v1/claims/${submissionId}/response/?include_raw_response=true`).body as Record<string, any>;
  const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${encounterId}/`).body as Record<string, any>;
  return { status: ack.status, response, detail, encounterId };
}

/**
 * Every row of every table of a database file, read without tpa: what it holds, the same whatever
 * its journal mode (a restore refused after it held the database made it one file: same rows, other bytes).
 */
export function databaseContent(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
    return JSON.stringify(tables.map((t) => [t, (db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[]).map((r) => JSON.stringify(r)).sort()]));
  } finally {
    db.close();
  }
}
