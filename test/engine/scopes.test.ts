// The route table's doors (SPEC.md "Authentication" and "Limits"): which scope each operation
// needs, and how many requests a minute each allows. The expected table is written out from
// SPEC.md here, not read from src/engine/routes.ts, so a route whose scope or limit changes fails.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchRoute, ROUTES } from '../../src/engine/routes.js';
import { SCOPES, type Scope } from '../../src/engine/services/keys.js';
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
  // Any valid key: the key's own business, and the contract builder (README "Over the wire: choices").
  { method: 'GET', path: '/tpa-api/v1/health', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/health/', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/keys', scope: null, perMinute: null },
  { method: 'GET', path: '/tpa-api/v1/keys/', scope: null, perMinute: null },
  { method: 'POST', path: '/tpa-api/v1/keys/rotate', scope: null, perMinute: null },
  { method: 'POST', path: '/tpa-api/v1/keys/rotate/', scope: null, perMinute: null },
  { method: 'GET', path: '/api/v1/ssp/catalog/', scope: null, perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/init/', scope: null, perMinute: null },
  { method: 'GET', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/', scope: null, perMinute: null },
  { method: 'PATCH', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/config/', scope: null, perMinute: null },
  { method: 'PUT', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/add-ssp/', scope: null, perMinute: null },
  { method: 'DELETE', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/remove-ssp/', scope: null, perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/load-catalog/', scope: null, perMinute: null },
  { method: 'GET', path: '/api/v1/computable-contracts/builder/b1/rate-schedule/preview/', scope: null, perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/finalize', scope: null, perMinute: null },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/b1/finalize/', scope: null, perMinute: null },
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
  it('serves exactly the operations of SPEC.md, each with its scope and its per-minute limit', () => {
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

describe('scopes (SPEC.md "Authentication")', () => {
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
