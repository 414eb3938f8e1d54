// Group commit: claim submissions that arrive together, in-process or at `local serve`, share one
// write transaction, each in a savepoint of its own; each is answered only once that transaction
// committed, a refused one keeps nothing, and the same Idempotency-Key twice in a group is still one
// claim.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/local/transport.js';
import { SCOPES } from '../../src/domain/api-keys.js';
import type { Engine } from '../../src/engine/engine.js';
import type { EngineResponse } from '../../src/engine/exchange.js';
import { startServer } from '../../src/server/server.js';
import { distinctClaim } from '../helpers/claims.js';
import { useEngineHome } from '../helpers/engine.js';

const CLOCK = '2026-06-30T12:00:00Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
const home = useEngineHome(beforeEach, afterEach);

/** Encounters on the file, read by a connection of its own: what was committed. */
function committedEncounters(dir: string): number {
  const db = new Database(join(dir, 'local.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM encounters').pluck().get() as number;
  } finally {
    db.close();
  }
}

function submitGrouped(engine: Engine, body: unknown, key: string): Promise<EngineResponse> {
  return engine.handleGrouped({
    method: 'POST',
    path: SUBMIT,
    query: new URLSearchParams(),
    headers: { 'idempotency-key': key },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('claims that arrive together', () => {
  it('through the in-process transport: twenty sent at once are one transaction, each answered with its own encounter once it committed', async () => {
    const transport = new LocalTransport(home.dir, { TPA_KEYRING: 'off', TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          transport.send({
            method: 'POST',
            path: SUBMIT,
            headers: { 'content-type': 'application/fhir+json', 'idempotency-key': `key-${i}` },
            body: JSON.stringify(distinctClaim(i)),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      expect(new Set(answers.map((a) => (a.body as { external_claim_id: string }).external_claim_id)).size).toBe(20);
      // Answered only after the commit: another connection sees every one of them.
      expect(committedEncounters(home.dir)).toBe(20);
      expect((await transport.open()).groupStats).toEqual({ groups: 1, requests: 20, largest: 20 });
    } finally {
      transport.close();
    }
  });

  it('a refused claim keeps nothing and the others of its group are kept; the same Idempotency-Key twice in a group is one claim', async () => {
    const engine = home.at(CLOCK, '0');
    const answers = await Promise.all([
      submitGrouped(engine, distinctClaim(0), 'a'),
      submitGrouped(engine, { resourceType: 'Claim' }, 'b'),
      submitGrouped(engine, '{"resourceType": "Claim", "oops"', 'c'),
      submitGrouped(engine, distinctClaim(2), 'd'),
      submitGrouped(engine, distinctClaim(0), 'a'),
      submitGrouped(engine, distinctClaim(3), 'a'),
    ]);
    expect(engine.groupStats.groups).toBe(1);
    expect(answers.map((a) => a.status)).toEqual([201, 400, 400, 201, 201, 409]);
    expect(answers[4]!.headers['idempotent-replayed']).toBe('true');
    expect(answers[4]!.body).toEqual(answers[0]!.body);
    expect(committedEncounters(home.dir)).toBe(2);
  });

  it('a group whose transaction cannot be had answers every claim 503 and keeps none; sent again, each is kept once', async () => {
    const engine = home.at(CLOCK, '0');
    engine.db.pragma('busy_timeout = 0');
    // Another process holds the write lock for the whole group.
    const other = new Database(join(home.dir, 'local.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    let answers: EngineResponse[];
    try {
      answers = await Promise.all([0, 1, 2].map((i) => submitGrouped(engine, distinctClaim(i), `k${i}`)));
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503]);
    expect(answers.map((a) => (a.body as { error: string }).error)).toEqual(Array(3).fill('storage_unavailable'));
    expect(committedEncounters(home.dir)).toBe(0);
    const again = await Promise.all([0, 1, 2, 0].map((i) => submitGrouped(engine, distinctClaim(i), `k${i}`)));
    expect(again.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(committedEncounters(home.dir)).toBe(3);
  });

  it('at local serve: claims of concurrent requests share transactions, each answered 201 with its own encounter', async () => {
    const engine = home.at(CLOCK, '0');
    const { apiKey } = engine.createKey('sandbox', SCOPES);
    const server = await startServer(engine, { host: '127.0.0.1', port: 0, limiter: null, log: () => {} });
    try {
      // Thirty connections open first (kept alive), so that the thirty claims arrive together.
      const health = await Promise.all(
        Array.from({ length: 30 }, () => fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': apiKey } }).then((r) => r.text())),
      );
      expect(health).toHaveLength(30);
      const answers = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await fetch(`${server.url}${SUBMIT}`, {
            method: 'POST',
            headers: { 'x-api-key': apiKey, 'content-type': 'application/fhir+json', 'idempotency-key': `http-${i}` },
            body: JSON.stringify(distinctClaim(i)),
          });
          return { status: res.status, body: (await res.json()) as { external_claim_id: string } };
        }),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(201));
      expect(new Set(answers.map((a) => a.body.external_claim_id)).size).toBe(30);
      expect(committedEncounters(home.dir)).toBe(30);
      const stats = engine.groupStats;
      expect(stats.requests).toBe(30);
      // Requests whose bodies were read in the same turn of the event loop shared a commit.
      expect(stats.groups).toBeLessThan(30);
    } finally {
      await server.close();
    }
  });
});
