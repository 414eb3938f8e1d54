// The key and limit checks (docs/api.md "Authentication" and "Limits"), exercised directly: API keys on
// a real SQLite file through the engine (format, hash-only storage, expiry on the engine clock,
// rotation with 24 hours of overlap, listing), and the rate limiter on a clock the test moves.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../src/engine/engine.js';
import { ANONYMOUS_PER_MINUTE, RateLimiter, TIERS } from '../../src/server/limits.js';
import { ROTATION_OVERLAP_MS } from '../../src/engine/services/keys.js';
import { useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
const T0 = '2026-03-02T10:00:00Z';
const req = (method: string, path: string) => ({ method, path, query: new URLSearchParams(), headers: {}, body: method === 'GET' ? undefined : '{}' });

describe('API keys', () => {
  it('are 64 characters of the SPEC format per environment, shown once and stored only as a SHA-256 hash', () => {
    const engine = home.at(T0);
    const sand = engine.createKey('sandbox', ['ledger_access']);
    const stage = engine.createKey('staging', ['claim_pricing', 'fund_release']);
    expect(sand.apiKey).toMatch(/^sk_sand_[A-Za-z0-9]{56}$/);
    expect(stage.apiKey).toMatch(/^sk_stage_[A-Za-z0-9]{55}$/);
    expect(sand.record).toMatchObject({
      environment: 'sandbox',
      prefix: 'sk_sand_',
      last4: sand.apiKey.slice(-4),
      scopes: ['ledger_access'],
      created_at: T0,
      expires_at: null,
    });
    expect(sand.record.lineage).toBe(sand.record.id);
    expect(stage.record).toMatchObject({ environment: 'staging', prefix: 'sk_stage_', scopes: ['claim_pricing', 'fund_release'] });
    // Keys differ, and draw on letters and digits alike.
    const many = Array.from({ length: 30 }, () => engine.createKey('sandbox', []).apiKey.slice(8)).join('');
    expect(many).toMatch(/[A-Z]/);
    expect(many).toMatch(/[a-z]/);
    expect(many).toMatch(/[0-9]/);
    const db = new Database(databaseFile(home.dir), { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
      expect(JSON.stringify(rows)).not.toContain(sand.apiKey);
      expect(rows.find((r) => r.id === sand.record.id)?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
  });

  it('a known key authenticates; an unknown, empty or altered one does not', () => {
    const engine = home.at(T0);
    const { apiKey, record } = engine.createKey('sandbox', ['ledger_access']);
    const ok = engine.authenticate({ apiKey });
    expect('key' in ok && ok.key).toEqual(record);
    // The last character changed (to one it is not: a key may end in x).
    const altered = `${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`;
    for (const bad of [altered, '', undefined]) {
      const r = engine.authenticate({ apiKey: bad });
      expect('response' in r && r.response.status, String(bad)).toBe(401);
      expect('response' in r && (r.response.body as { error: string }).error).toBe('invalid_api_key');
    }
    const none = engine.authenticate({});
    expect('response' in none && (none.response.body as { message: string }).message).toBe('No API key: send it in the X-API-Key header');
  });

  it('rotation issues a key of the same scopes and lineage; the old one works 24 hours on the engine clock, then not', () => {
    const engine = home.at(T0);
    const old = engine.createKey('staging', ['fund_release']);
    expect(ROTATION_OVERLAP_MS).toBe(86_400_000);
    const r = engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: old.record });
    expect(r.status).toBe(200);
    const body = r.body as { api_key: string; key_id: string; previous_key_expires_at: string };
    expect(body.api_key).toMatch(/^sk_stage_/);
    expect(body.previous_key_expires_at).toBe('2026-03-03T10:00:00Z');
    const fresh = engine.authenticate({ apiKey: body.api_key });
    expect('key' in fresh && fresh.key).toMatchObject({ id: body.key_id, lineage: old.record.id, scopes: ['fund_release'], environment: 'staging' });
    const again = engine.authenticate({ apiKey: old.apiKey });
    expect('key' in again && again.key.expires_at).toBe('2026-03-03T10:00:00Z');
    // One second before the end it works; at the end it does not.
    expect('key' in home.at('2026-03-03T09:59:59Z').authenticate({ apiKey: old.apiKey })).toBe(true);
    expect('response' in home.at('2026-03-03T10:00:00Z').authenticate({ apiKey: old.apiKey })).toBe(true);
    expect('key' in home.at('2026-03-03T10:00:00Z').authenticate({ apiKey: body.api_key })).toBe(true);
  });

  it('rotation needs an API key: none in-process, none with an OAuth token', () => {
    const engine = home.at(T0);
    expect(engine.handle(req('POST', '/tpa-api/v1/keys/rotate'))).toMatchObject({ status: 400, body: { error: 'no_api_key' } });
    const { record } = engine.createKey('sandbox', []);
    expect(engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: { ...record, environment: 'production' } })).toMatchObject({
      status: 400,
      body: { error: 'no_api_key' },
    });
  });

  it('the key list shows a key only the active keys of its own lineage, masked; in-process every active key', () => {
    const engine = home.at(T0);
    const a = engine.createKey('sandbox', ['ledger_access']);
    const b = engine.createKey('sandbox', ['claim_pricing']);
    const s = engine.createKey('staging', []);
    const rotated = engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: b.record }).body as { key_id: string; api_key: string };
    const list = (k: typeof a.record, clock = T0) =>
      (home.at(clock).handle(req('GET', '/tpa-api/v1/keys'), { key: k }).body as { keys: Record<string, unknown>[] }).keys;
    // a sees itself, and not b's lineage, nor another environment's key.
    expect(list(a.record)).toEqual([
      { id: a.record.id, prefix: 'sk_sand_', last4: a.apiKey.slice(-4), scopes: ['ledger_access'], created_at: T0, expires_at: null },
    ]);
    expect(list(s.record).map((k) => k.id)).toEqual([s.record.id]);
    // b's lineage: the rotated key in its overlap and the one rotated from it, seen from either.
    const fresh = engine.authenticate({ apiKey: rotated.api_key });
    const lineage = [b.record.id, rotated.key_id];
    expect(list(b.record).map((k) => k.id)).toEqual(lineage);
    expect(list('key' in fresh ? fresh.key : b.record).map((k) => k.id)).toEqual(lineage);
    // After the overlap the rotated key is gone from the list.
    expect(list('key' in fresh ? fresh.key : b.record, '2026-03-04T00:00:00Z').map((k) => k.id)).toEqual([rotated.key_id]);
    // In-process (no key: the operator of the engine): every active key.
    expect((engine.handle(req('GET', '/tpa-api/v1/keys/')).body as { keys: unknown[] }).keys).toHaveLength(4);
  });

  it('health names the caller’s environment, key and scopes; in-process it is local with every scope', () => {
    const engine = home.at(T0);
    const { record } = engine.createKey('staging', ['ledger_access']);
    expect(engine.handle(req('GET', '/tpa-api/v1/health'), { key: record }).body).toEqual({
      status: 'ok',
      environment: 'staging',
      key_id: record.id,
      scopes: ['ledger_access'],
      time: T0,
      database: { id: expect.stringMatching(/^db_[0-9a-f]{20}$/), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
    });
    expect(engine.handle(req('GET', '/tpa-api/v1/health/')).body).toEqual({
      status: 'ok',
      environment: 'local',
      key_id: null,
      scopes: ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access', 'contract_build'],
      time: T0,
      database: (engine.handle(req('GET', '/tpa-api/v1/health'), { key: record }).body as { database: unknown }).database,
    });
  });
});

describe('revoking keys (docs/security-access.md "Who may do what")', () => {
  const authenticates = (engine: ReturnType<typeof home.at>, apiKey: string) => 'key' in engine.authenticate({ apiKey });

  it('revocation takes effect at once, for the whole lineage: the key, what was rotated from it and to it', () => {
    const engine = home.at(T0);
    const root = engine.createKey('sandbox', ['fund_release']);
    const other = engine.createKey('sandbox', ['fund_release']);
    const first = engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: root.record }).body as { api_key: string; key_id: string };
    const fresh = engine.authenticate({ apiKey: first.api_key });
    const second = engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: 'key' in fresh ? fresh.key : undefined }).body as {
      api_key: string;
      key_id: string;
    };
    expect([root.apiKey, first.api_key, second.api_key].map((k) => authenticates(engine, k))).toEqual([true, true, true]);
    // The operator revokes the key in the middle: all three stop at once, with a 401 that says so.
    expect(engine.revokeKey(first.key_id)).toEqual({ lineage: root.record.id, revoked: [root.record.id, first.key_id, second.key_id] });
    for (const k of [root.apiKey, first.api_key, second.api_key]) {
      const r = engine.authenticate({ apiKey: k });
      expect('response' in r && r.response).toMatchObject({
        status: 401,
        body: { error: 'invalid_api_key', message: 'The API key was revoked', documentation: expect.any(String) },
      });
    }
    // Another lineage is untouched; revoking again revokes nothing more; an unknown id is undefined.
    expect(authenticates(engine, other.apiKey)).toBe(true);
    expect(engine.revokeKey(second.key_id)).toEqual({ lineage: root.record.id, revoked: [] });
    expect(engine.revokeKey('key_unknown')).toBeUndefined();
    // Each key records the key it was rotated from, and the listing says which keys are what.
    const listed = engine.listKeys().map((k) => [k.id, k.status, k.rotated_from]);
    expect(listed).toEqual([
      [root.record.id, 'revoked', null],
      [other.record.id, 'active', null],
      [first.key_id, 'revoked', root.record.id],
      [second.key_id, 'revoked', first.key_id],
    ]);
    const audit = engine.db.prepare("SELECT subject, data_json FROM audit_log WHERE type = 'KEY_REVOKED'").all() as { subject: string; data_json: string }[];
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.data_json)).toMatchObject({ lineage: root.record.id, revoked: [root.record.id, first.key_id, second.key_id] });
  });

  it('a thief who rotates first does not keep the lasting key: the owner’s rotation with the old key revokes the whole lineage', () => {
    const engine = home.at(T0);
    const owner = engine.createKey('sandbox', ['fund_release', 'ledger_access']);
    // The thief rotates the stolen key first.
    const stolen = engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: owner.record }).body as { api_key: string; key_id: string };
    expect(authenticates(engine, stolen.api_key)).toBe(true);
    // The owner rotates too, with the key now living out its overlap: refused, and every key of the lineage is revoked.
    const again = engine.authenticate({ apiKey: owner.apiKey });
    const refused = engine.handle(req('POST', '/tpa-api/v1/keys/rotate/'), { key: 'key' in again ? again.key : undefined });
    expect(refused).toMatchObject({
      status: 409,
      body: { error: 'key_already_rotated', message: expect.stringMatching(/every key of it \(2\) is revoked now/) },
    });
    expect(authenticates(engine, stolen.api_key)).toBe(false);
    expect(authenticates(engine, owner.apiKey)).toBe(false);
    expect(engine.listKeys().map((k) => k.status)).toEqual(['revoked', 'revoked']);
    // A key revoked between its authentication and its rotation mints nothing.
    const late = engine.createKey('sandbox', ['ledger_access']);
    engine.revokeKey(late.record.id);
    expect(engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: late.record })).toMatchObject({ status: 401, body: { error: 'invalid_api_key' } });
    expect(engine.listKeys()).toHaveLength(3);
  });

  it('an expired rotated key lists as expired, a key in its overlap as rotated', () => {
    const engine = home.at(T0);
    const k = engine.createKey('staging', ['ledger_access']);
    engine.handle(req('POST', '/tpa-api/v1/keys/rotate'), { key: k.record });
    expect(engine.listKeys().map((x) => x.status)).toEqual(['rotated', 'active']);
    expect(
      home
        .at('2026-03-03T10:00:00Z')
        .listKeys()
        .map((x) => x.status),
    ).toEqual(['expired', 'active']);
  });
});

describe('the rate limiter', () => {
  it('has the tiers of the contract', () => {
    expect(TIERS).toEqual({
      sandbox: { perMinute: 1_000_000, concurrent: 10 },
      staging: { perMinute: 200, concurrent: 20 },
      production: { perMinute: 100, concurrent: 10 },
    });
    expect(ANONYMOUS_PER_MINUTE).toBe(60);
  });

  it('the sandbox tier (unlimited in the contract) reports integers: its nominal 1,000,000 a minute, counted, with the reset of its window', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(60_000, () => now);
    const v = limiter.admit('k', TIERS.sandbox, 'GET /x', null);
    expect(v).toEqual({
      allowed: true,
      headers: { 'x-ratelimit-limit': '1000000', 'x-ratelimit-remaining': '999999', 'x-ratelimit-reset': '1060', 'ratelimit-policy': '1000000;w=60' },
    });
    limiter.release('k');
    expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).headers['x-ratelimit-remaining']).toBe('999998');
    limiter.release('k');
    now += 59_999;
    expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).headers['x-ratelimit-reset']).toBe('1060');
    now += 1;
    expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).headers['x-ratelimit-reset']).toBe('1120');
  });

  it('counts the endpoint per key: the 11th approval in a minute is refused with the wait until the window ends', () => {
    let now = 0;
    const limiter = new RateLimiter(60_000, () => now);
    for (let i = 1; i <= 10; i++) {
      const v = limiter.admit('k', TIERS.production, 'POST /funding', 10);
      expect(v.allowed).toBe(true);
      expect(v.headers).toEqual({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': String(10 - i),
        'x-ratelimit-reset': '60',
        'ratelimit-policy': '10;w=60',
      });
      limiter.release('k');
    }
    now = 45_500;
    const refused = limiter.admit('k', TIERS.production, 'POST /funding', 10);
    expect(refused).toEqual({
      allowed: false,
      headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60', 'ratelimit-policy': '10;w=60' },
      retryAfter: 15,
      reason: '10 requests per minute for POST /funding',
    });
    // Another endpoint, and another key, are not affected.
    expect(limiter.admit('k', TIERS.production, 'GET /ledger', 100).allowed).toBe(true);
    expect(limiter.admit('other', TIERS.production, 'POST /funding', 10).allowed).toBe(true);
    // The wait is never under a second, and a new window starts afresh.
    now = 59_999;
    expect(limiter.admit('k', TIERS.production, 'POST /funding', 10).retryAfter).toBe(1);
    now = 60_000;
    expect(limiter.admit('k', TIERS.production, 'POST /funding', 10).allowed).toBe(true);
  });

  it('the tier counts every endpoint; the window with fewer requests left speaks', () => {
    const limiter = new RateLimiter(60_000, () => 0);
    const staging = TIERS.staging;
    for (let i = 0; i < 150; i++) limiter.release('k'), limiter.admit('k', staging, `GET /e${i % 3}`, 100);
    // Tier: 151 of 200 (49 left); this endpoint: 51 of 100 (49 left): a tie goes to the tier.
    const v = limiter.admit('k', staging, 'GET /e0', 100);
    expect(v.headers).toEqual({ 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '49', 'x-ratelimit-reset': '60', 'ratelimit-policy': '200;w=60' });
    limiter.release('k');
    const fewer = limiter.admit('k', staging, 'GET /e1', 60);
    expect(fewer.headers['x-ratelimit-limit']).toBe('60');
    expect(fewer.allowed).toBe(true);
    for (let i = 0; i < 48; i++) limiter.release('k'), limiter.admit('k', staging, `GET /e2`, null);
    limiter.release('k');
    const over = limiter.admit('k', staging, 'GET /e2', null);
    expect(over).toMatchObject({ allowed: false, reason: '200 requests per minute for the tier' });
  });

  it('counts requests in flight per key: over the tier’s concurrency is refused, a released one frees a place', () => {
    const limiter = new RateLimiter(60_000, () => 0);
    for (let i = 0; i < 10; i++) expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).allowed).toBe(true);
    const eleventh = limiter.admit('k', TIERS.sandbox, 'GET /x', null);
    expect(eleventh).toMatchObject({ allowed: false, retryAfter: 1, reason: '10 concurrent requests' });
    expect(eleventh.headers['x-ratelimit-limit']).toBe('1000000');
    limiter.release('k');
    expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).allowed).toBe(true);
    for (let i = 0; i < 11; i++) limiter.release('k');
    // Released to nothing: ten places again, not eleven.
    for (let i = 0; i < 10; i++) expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).allowed).toBe(true);
    expect(limiter.admit('k', TIERS.sandbox, 'GET /x', null).allowed).toBe(false);
  });

  it('states the window it keeps: RateLimit-Policy and the refusal name a 1-second window as such, not a minute', () => {
    let now = 0;
    const limiter = new RateLimiter(1000, () => now);
    for (let i = 1; i <= 100; i++) {
      expect(limiter.admit('k', TIERS.sandbox, 'POST /claims', 100).headers['ratelimit-policy']).toBe('100;w=1');
      limiter.release('k');
    }
    now = 500;
    expect(limiter.admit('k', TIERS.sandbox, 'POST /claims', 100)).toMatchObject({ allowed: false, reason: '100 requests per second for POST /claims' });
  });

  it('counts callers without a key per address, IPv4 and IPv4-mapped IPv6 alike', () => {
    let now = 0;
    const limiter = new RateLimiter(60_000, () => now);
    for (let i = 1; i <= 30; i++) expect(limiter.admitAnonymous('127.0.0.1').allowed).toBe(true);
    for (let i = 31; i <= 60; i++) expect(limiter.admitAnonymous('::ffff:127.0.0.1').allowed).toBe(true);
    const refused = limiter.admitAnonymous('::FFFF:127.0.0.1');
    expect(refused).toEqual({
      allowed: false,
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60', 'ratelimit-policy': '60;w=60' },
      retryAfter: 60,
      reason: '60 requests per minute for an address without a valid API key',
    });
    expect(limiter.admitAnonymous('::ffff:127.0.0.2').allowed).toBe(true);
    expect(limiter.admitAnonymous('::1').allowed).toBe(true);
    expect(limiter.admitAnonymous('10.0.0.1', 1).allowed).toBe(true);
    expect(limiter.admitAnonymous('10.0.0.1', 1).allowed).toBe(false);
    now = 60_000;
    expect(limiter.admitAnonymous('127.0.0.1').allowed).toBe(true);
  });

  it('forgets ended windows once it holds more than 10,000, so memory stays bounded', () => {
    let now = 0;
    const limiter = new RateLimiter(60_000, () => now);
    for (let i = 0; i <= 10_000; i++) limiter.admitAnonymous(`addr-${i}`);
    const windows = (limiter as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBe(10_001);
    now = 59_999;
    limiter.admitAnonymous('late');
    expect(windows.size).toBe(10_002);
    now = 60_000;
    limiter.admitAnonymous('later');
    expect(windows.size).toBe(2);
  });
});
