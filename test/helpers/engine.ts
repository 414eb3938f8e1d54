import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import type { EngineResponse } from '../../src/engine/http.js';

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
