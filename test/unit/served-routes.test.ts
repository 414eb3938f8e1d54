// The reading of a request that decides whether it releases money is the engine
// router's own: the same compiled paths, the same first match, the same resolution of the target.
import { describe, expect, it } from 'vitest';
import { safeToRepeat } from '../../src/client/retry.js';
import { changesRates, lenientPaths, MONEY_ROUTES, prefixProblem, releasesMoney, servedTarget, wrongMethodProblem } from '../../src/domain/served-routes.js';
import { matchRoute, ROUTES } from '../../src/engine/routes.js';

/** Whether the engine, given this request target as a client would send it, runs a money route. */
function engineReleases(method: string, target: string): boolean {
  const served = servedTarget(target);
  const m = served && matchRoute(method, served.path);
  return m !== undefined && 'route' in m && m.route.scope === 'fund_release';
}

const TARGETS = [
  '/tpa-api/v1/funding/approve/',
  '/tpa-api/v1/funding/./approve/',
  '/tpa-api/v1/funding/%2e/approve/',
  '/tpa-api/v1/funding/approve/#x',
  '/tpa-api/v1/funding/approve/?a=1#b',
  '/tpa-api/v1/x/../funding/approve/',
  '/tpa-api/v1/funding/approve/.',
  '\\tpa-api\\v1\\funding\\approve\\',
  '//host.example/tpa-api/v1/funding/approve/',
  '/tpa-api/v1/funding/approve',
  '/tpa-api/v1/funding/approve/x/..',
  '/tpa-api/v1/funding//approve/',
  '/tpa-api/v1/ledger/entries/',
  '/tpa-api/v1/claims/submit/',
];

describe('which requests release money', () => {
  it('the money routes are the engine routes that need fund_release, by method and path', () => {
    const engine = ROUTES.filter((r) => r.scope === 'fund_release').map((r) => [r.method, r.path]);
    expect(MONEY_ROUTES.map((r) => [r.method, r.path])).toEqual(engine);
  });

  it('every target the engine routes to a money route is one for releasesMoney, whatever its spelling', () => {
    for (const t of TARGETS) {
      if (engineReleases('POST', t)) expect(releasesMoney('POST', t), t).toBe(true);
      if (engineReleases('POST', t)) expect(releasesMoney('post', t), t).toBe(true);
    }
    // At least these reach it on the engine (so the loop above checked something).
    for (const t of TARGETS.slice(0, 9)) expect(engineReleases('POST', t), t).toBe(true);
  });

  it('a lenient service might route more spellings there: they count too; other routes and methods do not', () => {
    for (const t of ['/tpa-api/v1/funding/approve', '/tpa-api/v1/FUNDING/Approve/', '/tpa-api/v1/funding//approve/', '/tpa-api/v1/funding/appro%76e/'])
      expect(releasesMoney('POST', t), t).toBe(true);
    for (const [m, t] of [
      ['GET', '/tpa-api/v1/funding/approve/'],
      ['PUT', '/tpa-api/v1/funding/./approve/'],
      ['POST', '/tpa-api/v1/claims/submit/'],
      ['POST', '/tpa-api/v1/funding/approve/x/'],
    ] as const)
      expect(releasesMoney(m, t), `${m} ${t}`).toBe(false);
  });

  it('path parameters, suffixes, escapes and case a Tomcat or Spring service strips or ignores count as the money route they name', () => {
    for (const t of [
      '/tpa-api/v1/funding/approve;x/',
      '/tpa-api/v1/funding;x/approve/',
      '/tpa-api;a/v1;b/funding;c/approve;d/',
      '/tpa-api/v1/funding/approve/;',
      '/tpa-api/v1/funding/approve;',
      '/tpa-api/v1/funding/approve;jsessionid=1/',
      '/tpa-api/v1/funding/approve%3Bx/',
      '/tpa-api/v1/funding%3bx/approve/',
      '/tpa-api/v1/funding/approve%253Bx/',
      '/tpa-api/v1/funding/approve.json',
      '/tpa-api/v1/funding/approve.json/',
      '/tpa-api/v1/funding/approve.JSON',
      '/tpa-api/v1/funding/approve.json;x',
      '/tpa-api/v1/funding/approve;x.json',
      '/tpa-api/v1/funding/approve%2Ejson',
      '/tpa-api/v1/funding.xml/approve/',
      '/tpa-api/v1/x/..;/funding/approve/',
      '/tpa-api/v1/x/%2e%2e;/funding/approve/',
      '/tpa-api/v1/funding%2Fapprove/',
      '/tpa-api/v1/funding%252Fapprove/',
      '/tpa-api/v1/FUNDING;X/APPROVE.Json/',
      '/tpa-api/v1/fund\u0131ng/approve/',
      '/tpa-api/v1/fund%C4%B1ng/approve/',
      '/tpa-api/v1/fund\u0130ng/approve/',
      '/tpa-api/v1/fund%C4%B0ng/approve/',
      '/tpa-api/v1/\uff46unding/approve/',
      '/tpa-api/v1/funding/approve/?x=1;y',
      '/tpa-api/v1/funding/;/approve/',
      // White space and controls at a segment's ends, which Spring's trimTokens trims.
      '/tpa-api/v1/funding/approve%20/',
      '/tpa-api/v1/funding/%20approve/',
      '/tpa-api/v1/funding%20/approve/',
      '/tpa-api/v1/funding/approve%0B/',
      '/tpa-api/v1/funding/approve%0C/',
      '/tpa-api/v1/funding/approve%1F/',
      '/tpa-api/v1/funding/approve%E2%80%83/',
    ])
      expect(releasesMoney('POST', t), t).toBe(true);
    for (const t of [
      '/api/v1/computable-contracts/builder/BLD-1002/finalize;x',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize;',
      '/api/v1/computable-contracts/builder/BLD-1002;x/finalize/',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize.json',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize%3Bx',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize%20/',
      '/api;x/v1/computable-contracts/builder/BLD-1002/FINALIZE.JSON;y',
    ])
      expect(changesRates('POST', t), t).toBe(true);
    // What no reading of these routes: another route, another method, a segment more, a malformed escape.
    for (const [m, t] of [
      ['GET', '/tpa-api/v1/funding/approve;x/'],
      ['PUT', '/tpa-api/v1/funding/approve.json'],
      ['POST', '/tpa-api/v1/claims/submit;x/'],
      ['POST', '/tpa-api/v1/funding/approve/x;y/'],
      ['POST', '/tpa-api/v1/funding/approvex.json'],
      ['POST', '/tpa-api/v1/funding/approve%ZZ/'],
    ] as const)
      expect(releasesMoney(m, t), `${m} ${t}`).toBe(false);
    expect(changesRates('POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize/x;y')).toBe(false);
  });

  it('the lenient readings of a path: escapes decoded, path parameters dropped and dots resolved again, suffixes dropped, case folded', () => {
    expect(lenientPaths('/A/x/..;/B.Json;y')).toEqual(['/a/x/..;/b.json;y', '/a/b.json', '/a/b']);
    expect(lenientPaths('/a%253Bx/b')).toEqual(['/a%3bx/b', '/a;x/b', '/a/b']);
    expect(lenientPaths('/\uff21\u0131')).toEqual(['/\uff41i', '/ai', '/%ef%bc%a1%c4%b1']);
  });

  it('the retry rules never resend one, however it is spelt', () => {
    for (const t of [...TARGETS.slice(0, 9), '/tpa-api/v1/funding/approve;x/', '/tpa-api/v1/funding;x/approve.json', '/tpa-api/v1/x/..;/funding/approve/'])
      expect(safeToRepeat({ method: 'POST', path: t, headers: { 'idempotency-key': 'k' } }), t).toBe(false);
  });

  it("a base URL's path that makes a request a fund release or a finalize its own path is not is a problem; a plain prefix is not", () => {
    const approve = '/tpa-api/v1/funding/approve';
    // Climbing back into the base URL's path once a lenient service decodes twice; a decoded "?" ending the path.
    expect(prefixProblem('POST', approve, '/tpa-api/%252e%252e/')).toMatch(
      /^the base URL's path "\/tpa-api\/v1\/funding\/approve" turns POST \/tpa-api\/%252e%252e\/ into a fund release/,
    );
    expect(prefixProblem('post', approve, '/api/v1/computable-contracts/builder/..%2F..%2F..%2F..%2F%3F/rate-schedule/init/')).toMatch(
      /^the base URL's path "\/tpa-api\/v1\/funding\/approve" turns POST \/api\/v1\/computable-contracts\/builder\/\.\.%2F\.\.%2F\.\.%2F\.\.%2F%3F\/rate-schedule\/init\/ into a fund release \(POST \/tpa-api\/v1\/funding\/approve\/api\/v1\/computable-contracts\/builder\/[^ ]+\)$/,
    );
    expect(prefixProblem('POST', '/api/v1/computable-contracts/builder/BLD-1', '/tpa-api/%252e%252e/finalize%3F')).toMatch(/into finalizing a rate schedule/);
    // Nothing of the kind: no prefix, a prefix that changes no route's kind, a method that releases nothing, a request that already is one.
    expect(prefixProblem('POST', '', '/tpa-api/%252e%252e/')).toBeUndefined();
    expect(prefixProblem('POST', '/gw', '/tpa-api/v1/contract-lookup/blind/')).toBeUndefined();
    expect(prefixProblem('GET', '/gw', '/tpa-api/v1/health/')).toBeUndefined();
    // A prefix that puts the request's path after the fund release's, or makes it the key rotation: a
    // service routing by prefix would take it for the release (or the rotation).
    expect(prefixProblem('GET', approve, '/tpa-api/v1/health/')).toMatch(
      /^the base URL's path "\/tpa-api\/v1\/funding\/approve" turns GET \/tpa-api\/v1\/health\/ into GET \/tpa-api\/v1\/funding\/approve\/tpa-api\/v1\/health\/: .* is not a route of the service; a service that routes by prefix would take it for the fund release/,
    );
    expect(prefixProblem('POST', '/tpa-api/v1/keys', '/rotate/')).toMatch(
      /turns POST \/rotate\/ into POST \/tpa-api\/v1\/keys\/rotate\/: .*use `tpa auth rotate`/,
    );
    // Another method on the fund release's path: a lenient service may take it for the release itself.
    expect(prefixProblem('GET', approve, '/tpa-api/%252e%252e/')).toMatch(
      /^the base URL's path "\/tpa-api\/v1\/funding\/approve" turns GET \/tpa-api\/%252e%252e\/ into GET on the fund release's path \(GET \/tpa-api\/v1\/funding\/approve\/tpa-api\/%252e%252e\/\), which is POST only$/,
    );
    expect(wrongMethodProblem('put', '/tpa-api/v1/funding/approve;x/')).toBe('the fund release is POST only (PUT /tpa-api/v1/funding/approve;x/)');
    expect(wrongMethodProblem('GET', '/api/v1/computable-contracts/builder/B-1/finalize.json')).toMatch(/^finalizing a rate schedule is POST only/);
    expect(wrongMethodProblem('POST', '/tpa-api/v1/funding/approve/')).toBeUndefined();
    expect(wrongMethodProblem('GET', '/tpa-api/v1/funding/')).toBeUndefined();
    expect(prefixProblem('POST', '/gw', '/tpa-api/v1/funding/approve/')).toBeUndefined();
    expect(prefixProblem('POST', '/gw', '/api/v1/computable-contracts/builder/BLD-1/finalize')).toBeUndefined();
  });
});
