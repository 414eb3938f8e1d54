// The route table's doors (docs/api.md "Authentication" and "Limits"): which scope each operation
// needs, and how many requests a minute each allows. The expected table is written out from
// The contract (docs/api.md) here, not read from src/engine/routes.ts, so a route whose scope or limit changes fails.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchRoute, ROUTES } from '../../src/engine/routes.js';
import { SCOPES, SPEC_SCOPES, type Scope } from '../../src/engine/services/keys.js';
import { sspUuid } from '../../src/engine/store/catalog-seed.js';
import { useEngineHome } from '../helpers/engine.js';

const CLOCK = '2026-03-15T12:00:00Z';

const SPEC: { method: string; path: string; scope: Scope | null; perMinute: number | null }[] = [
  { method: 'POST', path: '/tpa-api/v1/contract-lookup/blind/', scope: 'contract_lookup', perMinute: 1000 },
  { method: 'POST', path: '/tpa-api/v1/contract-lookup/full/', scope: 'contract_lookup', perMinute: 500 },
  { method: 'POST', path: '/tpa-api/v1/claims/submit/', scope: 'claim_pricing', perMinute: 100 },
  { method: 'GET', path: '/tpa-api/v1/claims/sub_x/response/', scope: 'claim_pricing', perMinute: 100 },
  { method: 'POST', path: '/tpa-api/v1/funding/approve/', scope: 'fund_release', perMinute: 10 },
  { method: 'GET', path: '/tpa-api/v1/settlement/enc_x/', scope: 'ledger_access', perMinute: 200 },
  { method: 'GET', path: '/tpa-api/v1/ledger/entries/', scope: 'ledger_access', perMinute: 100 },
  { method: 'GET', path: '/tpa-api/v1/ledger/entries/enc_x/', scope: 'ledger_access', perMinute: 200 },
  // Any valid key: the key's own business (docs/client.md "Over the wire: choices").
  { method: 'GET', path: '/tpa-api/v1/health', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/health/', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/keys', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/keys/', scope: null, perMinute: null },
  { method: 'POST', path: '/tpa-api/v1/keys/rotate', scope: null, perMinute: null },
  { method: 'POST', path: '/tpa-api/v1/keys/rotate/', scope: null, perMinute: null },
  // The contract builder (the contract leaves its credentials open; docs/security-access.md "Who may do what"):
  // reads take contract_lookup, changes and finalizing take contract_build.
  { method: 'GET', path: '/api/v1/ssp/catalog/', scope: 'contract_lookup', perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/init/', scope: 'contract_build', perMinute: null },
  { method: 'GET', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/', scope: 'contract_lookup', perMinute: null },
  { method: 'PATCH', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/config/', scope: 'contract_build', perMinute: null },
  { method: 'PUT', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/add-ssp/', scope: 'contract_build', perMinute: null },
  { method: 'DELETE', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/remove-ssp/', scope: 'contract_build', perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/load-catalog/', scope: 'contract_build', perMinute: null },
  { method: 'GET', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/preview/', scope: 'contract_lookup', perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/finalize', scope: 'contract_build', perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/finalize/', scope: 'contract_build', perMinute: null },
];

const home = useEngineHome(beforeEach, afterEach);

function send(engine: ReturnType<typeof home.at>, r: (typeof SPEC)[number], scopes: readonly Scope[]) {
  const { record } = engine.createKey('sandbox', scopes);
  return engine.handle(
    { method: r.method, path: r.path, query: new URLSearchParams(), headers: {}, body: r.method === 'GET' ? undefined : '{}' },
    { key: record },
  );
}

describe('the route table', () => {
  it('serves exactly the operations of the contract, each with its scope and its per-minute limit', () => {
    expect(ROUTES).toHaveLength(SPEC.length);
    for (const r of SPEC) {
      const match = matchRoute(r.method, r.path);
      expect(match && 'route' in match, `${r.method} ${r.path}`).toBe(true);
      if (!match || !('route' in match)) continue;
      expect({ route: `${r.method} ${r.path}`, scope: match.route.scope, perMinute: match.route.perMinute }).toEqual({
        route: `${r.method} ${r.path}`,
        scope: r.scope,
        perMinute: r.perMinute,
      });
    }
  });

  it('caches only the two list reads', () => {
    expect(ROUTES.filter((r) => r.cacheable).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /tpa-api/v1/ledger/entries/', 'GET /api/v1/ssp/catalog/']);
  });

  it('takes path parameters, decoded, and refuses a malformed escape', () => {
    const m = matchRoute('GET', '/tpa-api/v1/ledger/entries/enc%5F1/');
    expect(m && 'route' in m ? m.params : undefined).toEqual({ encounter_id: 'enc_1' });
    expect(matchRoute('GET', '/tpa-api/v1/ledger/entries/%E0%A4%A/')).toBeUndefined();
    expect(matchRoute('GET', '/tpa-api/v1/ledger/entries/a/b/')).toBeUndefined();
    expect(matchRoute('GET', '/tpa-api/v1/ledger/entries')).toBeUndefined();
    expect(matchRoute('GET', 'x/tpa-api/v1/health')).toBeUndefined();
  });

  it('lists the methods a path does accept, HEAD beside GET', () => {
    expect(matchRoute('DELETE', '/tpa-api/v1/ledger/entries/')).toEqual({ allowed: ['GET', 'HEAD'] });
    expect(matchRoute('GET', '/tpa-api/v1/funding/approve/')).toEqual({ allowed: ['POST'] });
    const head = matchRoute('HEAD', '/tpa-api/v1/settlement/enc_1/');
    expect(head && 'route' in head ? [head.route.method, head.params] : undefined).toEqual(['GET', { encounter_id: 'enc_1' }]);
    expect(matchRoute('HEAD', '/tpa-api/v1/funding/approve/')).toEqual({ allowed: ['POST'] });
  });
});

describe('scopes (docs/api.md "Authentication")', () => {
  for (const r of SPEC.filter((x) => x.scope !== null)) {
    it(`${r.method} ${r.path} needs ${r.scope}: every other scope is refused 403, that one alone passes`, () => {
      const engine = home.at(CLOCK, '0');
      const others = SCOPES.filter((s) => s !== r.scope);
      const refused = send(engine, r, others);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: 'insufficient_scope',
        message: `This operation needs the ${r.scope} scope`,
        required_scope: r.scope,
        current_scopes: others,
      });
      const passed = send(engine, r, [r.scope!]);
      expect(passed.status).not.toBe(403);
      expect((passed.body as { error?: string } | undefined)?.error).not.toBe('insufficient_scope');
    });
  }

  it('operations without a scope take a key with none', () => {
    const engine = home.at(CLOCK, '0');
    for (const r of SPEC.filter((x) => x.scope === null)) {
      expect(send(engine, r, []).status, `${r.method} ${r.path}`).not.toBe(403);
    }
  });

  it('the funding route is not opened by a key for claims, look-ups and the ledger', () => {
    const engine = home.at(CLOCK, '0');
    const fund = SPEC.find((r) => r.path.endsWith('/funding/approve/'))!;
    const r = send(engine, fund, ['claim_pricing', 'contract_lookup', 'ledger_access']);
    expect(r.status).toBe(403);
    expect((r.body as { required_scope: string }).required_scope).toBe('fund_release');
  });
});

describe('the contract builder (docs/security-access.md "Who may do what")', () => {
  const B = '/api/v1/computable-contracts/builder/BLD-1001';
  const as = (
    engine: ReturnType<typeof home.at>,
    key: ReturnType<ReturnType<typeof home.at>['createKey']>['record'],
    method: string,
    path: string,
    body?: unknown,
  ) => engine.handle({ method, path, query: new URLSearchParams(), headers: {}, body: body === undefined ? undefined : JSON.stringify(body) }, { key });

  it('a key with the four service scopes but not contract_build cannot initialize, rate, load or finalize a schedule: 403, nothing changes', () => {
    const engine = home.at(CLOCK, '0');
    const reader = engine.createKey('sandbox', SPEC_SCOPES).record;
    const builder = engine.createKey('sandbox', ['contract_build', 'contract_lookup']).record;
    // The schedule exists (made by a key that may), with one rate.
    expect(as(engine, builder, 'POST', `${B}/rate-schedule/init/`, {}).status).toBe(200);
    const carpal = sspUuid('v1.1', 'HD-0401');
    expect(as(engine, builder, 'PUT', `${B}/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 }).status).toBe(200);
    const before = as(engine, reader, 'GET', `${B}/rate-schedule/`).body;
    const audit = engine.db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get();
    const attempts: [string, string, unknown][] = [
      ['POST', `${B}/rate-schedule/init/`, {}],
      ['PATCH', `${B}/rate-schedule/config/`, { elective_advance_hours: 1 }],
      ['PUT', `${B}/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 99_999_999.99 }],
      ['DELETE', `${B}/rate-schedule/remove-ssp/`, { ssp_id: carpal }],
      ['POST', `${B}/rate-schedule/load-catalog/`, { version: 'v1.0' }],
      ['POST', `${B}/finalize`, undefined],
      ['POST', `${B}/finalize/`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      expect(as(engine, reader, method, path, body), `${method} ${path}`).toMatchObject({
        status: 403,
        body: {
          error: 'insufficient_scope',
          message: 'This operation needs the contract_build scope',
          required_scope: 'contract_build',
          current_scopes: [...SPEC_SCOPES],
        },
      });
    }
    // Reading and previewing stay open to the read scope.
    expect(as(engine, reader, 'GET', `${B}/rate-schedule/`).body).toEqual(before);
    expect(as(engine, reader, 'GET', `${B}/rate-schedule/preview/`).status).toBe(200);
    expect(as(engine, reader, 'GET', '/api/v1/ssp/catalog/').status).toBe(200);
    expect(engine.db.prepare('SELECT COUNT(*) FROM contract_rate_records').pluck().get()).toBe(0);
    expect(engine.db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get()).toBe(audit);
    // The builder's key finalizes.
    expect(as(engine, builder, 'POST', `${B}/finalize`).body).toMatchObject({ status: 'FINALIZED', rate_records_created: 1 });
  });
});
