// An Idempotency-Key replay belongs to its caller (docs/security-access.md "Who may do what"): the same
// environment and key lineage, or the operator in-process. Another caller's request with the same
// Idempotency-Key is a new request: it neither gets the first answer nor a 409 for its body.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import type { Engine } from '../../src/engine/engine.js';
import type { KeyRecord } from '../../src/engine/services/keys.js';
import { useEngineHome } from '../helpers/engine.js';

const T0 = '2026-03-02T10:00:00Z';
const LATER = '2026-03-02T10:00:05Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
const APPROVE = '/tpa-api/v1/funding/approve/';

const home = useEngineHome(beforeEach, afterEach);

function send(engine: Engine, key: KeyRecord | undefined, method: string, path: string, body: unknown, idempotencyKey: string) {
  return engine.handle(
    { method, path, query: new URLSearchParams(), headers: { 'idempotency-key': idempotencyKey }, body: JSON.stringify(body) },
    key ? { key } : {},
  );
}

const encounters = (engine: Engine) => engine.db.prepare('SELECT COUNT(*) FROM encounters').pluck().get();

describe('Idempotency-Key replays by caller', () => {
  it('another key lineage, another environment or the engine in-process sending the same Idempotency-Key makes a new request', () => {
    const engine = home.at(T0);
    const all = ['claim_pricing', 'fund_release', 'ledger_access'] as const;
    const a = engine.createKey('sandbox', all).record;
    const b = engine.createKey('sandbox', all).record;
    const staging = engine.createKey('staging', all).record;
    const claim = claimTemplate({ type: 'professional', serviceDate: '2026-03-02' });
    const first = send(engine, a, 'POST', SUBMIT, claim, 'batch-1');
    expect(first.status).toBe(201);
    // Each other caller: a claim of its own (the same claim again is denied later as a duplicate, which is not a replay).
    const ids = new Set([(first.body as { submission_id: string }).submission_id]);
    for (const caller of [b, staging, undefined]) {
      const r = send(engine, caller, 'POST', SUBMIT, claim, 'batch-1');
      expect(r.status, caller?.environment ?? 'in-process').toBe(201);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
      ids.add((r.body as { submission_id: string }).submission_id);
    }
    expect(ids.size).toBe(4);
    expect(encounters(engine)).toBe(4);
    // Another body from another lineage with the same Idempotency-Key is not a 409: nothing of a's is seen.
    const c = engine.createKey('sandbox', all).record;
    const other = send(engine, c, 'POST', SUBMIT, claimTemplate({ type: 'professional', serviceDate: '2026-03-02', cpt: ['43235'] }), 'batch-1');
    expect(other.status).toBe(201);
    // a itself still replays its own.
    const replay = send(engine, a, 'POST', SUBMIT, claim, 'batch-1');
    expect(replay).toMatchObject({ status: 201, body: first.body, headers: { 'idempotent-replayed': 'true' } });
    expect(encounters(engine)).toBe(5);
  });

  it('a key rotated mid-batch replays what its lineage sent before', () => {
    const engine = home.at(T0);
    const old = engine.createKey('sandbox', ['claim_pricing']);
    const claim = claimTemplate({ type: 'professional', serviceDate: '2026-03-02' });
    const first = send(engine, old.record, 'POST', SUBMIT, claim, 'claim-7');
    const rotated = engine.handle(
      { method: 'POST', path: '/tpa-api/v1/keys/rotate', query: new URLSearchParams(), headers: {}, body: undefined },
      { key: old.record },
    ).body as { api_key: string };
    const fresh = engine.authenticate({ apiKey: rotated.api_key });
    const replay = send(engine, 'key' in fresh ? fresh.key : undefined, 'POST', SUBMIT, claim, 'claim-7');
    expect(replay).toMatchObject({ status: 201, body: first.body, headers: { 'idempotent-replayed': 'true' } });
    expect(encounters(engine)).toBe(1);
  });

  it('a funding approval replayed by another lineage is a new request: the engine answers duplicate, not the first 200', () => {
    const submitted = send(home.at(T0), undefined, 'POST', SUBMIT, claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }), 'c-1');
    const encounterId = (submitted.body as { external_claim_id: string }).external_claim_id;
    const engine = home.at(LATER);
    const a = engine.createKey('sandbox', ['fund_release']).record;
    const b = engine.createKey('sandbox', ['fund_release']).record;
    const submissionId = (submitted.body as { submission_id: string }).submission_id;
    const benefit = (
      engine.handle({ method: 'GET', path: `/tpa-api/v1/claims/${submissionId}/response/`, query: new URLSearchParams(), headers: {}, body: undefined })
        .body as { adjudication: { benefit_amount: number } }
    ).adjudication.benefit_amount;
    const approval = { encounter_id: encounterId, amount: benefit, authorization_code: 'AUTH-20260302-ACME-0001' };
    const first = send(engine, a, 'POST', APPROVE, approval, 'fund-1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const fromB = send(engine, b, 'POST', APPROVE, approval, 'fund-1');
    expect(fromB.status).toBe(400);
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body).toMatchObject({ encounter_id: encounterId });
    expect(send(engine, a, 'POST', APPROVE, approval, 'fund-1')).toMatchObject({ status: 200, body: first.body, headers: { 'idempotent-replayed': 'true' } });
  });

  it('a replay stored before replays had callers is still replayed, to anyone, for the rest of its 24 hours', () => {
    const engine = home.at(T0);
    const body = claimTemplate({ type: 'professional', serviceDate: '2026-03-02' });
    const first = send(engine, undefined, 'POST', SUBMIT, body, 'old-1');
    // As the upgrade leaves a row written before: no caller.
    engine.db.prepare("UPDATE idempotency_keys SET caller = '' WHERE key = 'old-1'").run();
    const key = engine.createKey('sandbox', ['claim_pricing']).record;
    expect(send(engine, key, 'POST', SUBMIT, body, 'old-1')).toMatchObject({ status: 201, body: first.body, headers: { 'idempotent-replayed': 'true' } });
  });

  it("a caller's own answer is replayed, not a replay stored before replays had callers under the same key", () => {
    const engine = home.at(T0);
    const body = claimTemplate({ type: 'professional', serviceDate: '2026-03-02' });
    const old = send(engine, undefined, 'POST', SUBMIT, body, 'both-1');
    engine.db.prepare("UPDATE idempotency_keys SET caller = '' WHERE key = 'both-1'").run();
    const key = engine.createKey('sandbox', ['claim_pricing']).record;
    // Beside the old row, the key's own answer to the same body (as if it had sent it first).
    engine.db
      .prepare(`INSERT INTO idempotency_keys (caller, key, route, request_hash, status, body_json, created_at)
        SELECT ?, key, route, request_hash, 201, '{"own":true}', created_at FROM idempotency_keys WHERE key = 'both-1'`)
      .run(`${key.environment}:${key.lineage}`);
    expect(send(engine, key, 'POST', SUBMIT, body, 'both-1')).toMatchObject({ status: 201, body: { own: true }, headers: { 'idempotent-replayed': 'true' } });
    expect(send(engine, undefined, 'POST', SUBMIT, body, 'both-1')).toMatchObject({ status: 201, body: old.body, headers: { 'idempotent-replayed': 'true' } });
  });
});
