// `tpa api` and the fund release: whether a raw request moves money is decided by
// the route the engine's router will match, however the path is spelt (dot segments, escapes, a
// fragment, a query, a host prefix, the method's case), and what is checked is what is sent. A fund
// release through `tpa api` then asks for confirmation (--yes without a terminal), carries an
// Idempotency-Key and is recorded in `tpa fund history`, as `tpa fund approve` does.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, tpa, useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { login, serve, type Served } from '../../helpers/server.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);
const run = home.run;

/** Spellings of POST /tpa-api/v1/funding/approve/ that reach the fund release. */
const SPELLINGS = [
  '/tpa-api/v1/funding/./approve/',
  '/tpa-api/v1/funding/approve/#x',
  '/tpa-api/v1/funding/%2e/approve/',
  '/tpa-api/v1/funding/%2E/approve/',
  '/tpa-api/v1/claims/../funding/approve/',
  '/api/../tpa-api/v1/funding/approve/',
  '//elsewhere.example/tpa-api/v1/funding/approve/',
];

/**
 * Spellings a Tomcat or Spring service reads as the fund release (path parameters stripped, suffixes
 * ignored, escapes decoded, case ignored); the engine itself does not route them (404).
 */
const LENIENT = [
  '/tpa-api/v1/funding/approve;x/',
  '/tpa-api/v1/funding;x/approve/',
  '/tpa-api/v1;b/funding;c/approve;d/',
  '/tpa-api/v1/funding/approve/;',
  '/tpa-api/v1/funding/approve%3Bx/',
  '/tpa-api/v1/funding/approve.json',
  '/tpa-api/v1/funding/approve.JSON/',
  '/tpa-api/v1/x/..;/funding/approve/',
  '/tpa-api/v1/FUNDING;X/Approve.json',
];

let encounters: { encounter_id: string; amount: string }[];
let next = 0;
/** A fund release body for an encounter not funded yet. */
const release = () => {
  const e = encounters[next++]!;
  return { id: e.encounter_id, body: JSON.stringify({ encounter_id: e.encounter_id, amount: Number(e.amount), authorization_code: `AUTH-RAW-${next}` }) };
};
const fundingsOf = async (id: string) => {
  const r = await run(['ledger', 'show', id, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ entries: { type: string }[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED').length;
};
const history = async () => ndjson((await run(['fund', 'history', '-o', 'ndjson'])).stdout);

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 70 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const review = await run(['fund', 'run', '--dry-run', '-o', 'json']);
  expect(review.code, review.stderr).toBe(0);
  encounters = review.json<{ encounters: { encounter_id: string; amount: string }[] }>().encounters;
  expect(encounters.length).toBeGreaterThan(2 * SPELLINGS.length + LENIENT.length + 6 + 20);
});

describe('tpa api and the fund release', () => {
  it('every spelling the engine routes to the fund release needs confirmation: without --yes, exit 2 and nothing sent', async () => {
    for (const [method, path] of [...SPELLINGS.map((p) => ['POST', p]), ['post', '/tpa-api/v1/funding/approve/']] as const) {
      const { id, body } = release();
      const r = await run(['api', method, path!, '-d', body]);
      expect(r.code, `${method} ${path}`).toBe(2);
      expect(r.stderr).toMatch(/needs confirmation: pass --yes/);
      expect(await fundingsOf(id), path).toBe(0);
    }
    expect(await history()).toEqual([]);
  });

  it('with --yes each is sent as the service reads it, once, with an Idempotency-Key, and recorded in fund history', async () => {
    const sent: { id: string; transfer: string }[] = [];
    for (const path of SPELLINGS) {
      const { id, body } = release();
      const r = await run(['api', 'POST', path, '-d', body, '--yes', '--debug']);
      expect(r.code, `${path}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(/→ POST \/tpa-api\/v1\/funding\/approve\/ \(Idempotency-Key: [0-9a-f-]{36}\)/);
      const approved = r.json<{ status: string; processor_transfer_id: string }>();
      expect(approved.status).toBe('APPROVED');
      expect(await fundingsOf(id)).toBe(1);
      sent.push({ id, transfer: approved.processor_transfer_id });
    }
    const recorded = await history();
    expect(recorded.map((h) => [h.encounter_id, h.outcome, h.processor_transfer_id])).toEqual(sent.map((s) => [s.id, 'APPROVED', s.transfer]));
  });

  it('a refused raw release is in fund history too (REFUSED with its reason for one already funded); a path a lenient service might take asks as well', async () => {
    const { id, body } = release();
    const first = await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body, '--yes']);
    expect(first.code).toBe(0);
    const transfer = first.json<{ processor_transfer_id: string }>().processor_transfer_id;
    // The same code again: refused here, nothing sent, naming the code and its transfer; one line for the code.
    const code = (JSON.parse(body) as { authorization_code: string }).authorization_code;
    const again = await run(['api', 'POST', '/tpa-api/v1/funding/./approve/', '-d', body, '--yes']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(`the release ${code} of ${id} was approved already (transfer ${transfer}): nothing was sent`);
    expect(await fundingsOf(id)).toBe(1);
    expect((await history()).filter((h) => h.encounter_id === id).map((h) => [h.authorization_code, h.outcome])).toEqual([[code, 'APPROVED']]);
    // Another code for the funded encounter is the service's to judge: refused there, its own line.
    const other = body.replace(code, `${code}-B`);
    expect((await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', other, '--yes'])).code).toBe(4);
    expect((await history()).filter((h) => h.encounter_id === id).map((h) => [h.authorization_code, h.outcome, h.error_code])).toEqual([
      [code, 'APPROVED', null],
      [`${code}-B`, 'REFUSED', 'duplicate_approval'],
    ]);
    for (const path of ['/tpa-api/v1/FUNDING/approve/', '/tpa-api/v1//funding/approve', '/tpa-api/v1/funding/appro%76e/']) {
      const other = release();
      expect((await run(['api', 'POST', path, '-d', other.body])).code, path).toBe(2);
      expect(await fundingsOf(other.id)).toBe(0);
    }
  });

  it('path parameters, suffixes and escapes a lenient service strips: asked (exit 2 and nothing sent without --yes), then sent with an Idempotency-Key and recorded in fund history', async () => {
    for (const path of LENIENT) {
      const { id, body } = release();
      const asked = await run(['api', 'POST', path, '-d', body]);
      expect(asked.code, path).toBe(2);
      expect(asked.stderr, path).toMatch(/needs confirmation: pass --yes/);
      expect(
        (await history()).filter((h) => h.encounter_id === id),
        path,
      ).toEqual([]);
      const sent = await run(['api', 'POST', path, '-d', body, '--yes', '--debug']);
      expect(sent.stderr, path).toMatch(/→ POST \S+ \(Idempotency-Key: [0-9a-f-]{36}\)/);
      // The engine routes none of these spellings: it answers 404 and funds nothing; a remote service might have.
      expect(sent.code, `${path}: ${sent.stderr}`).toBe(3);
      expect(await fundingsOf(id), path).toBe(0);
      expect(
        (await history()).filter((h) => h.encounter_id === id).map((h) => [h.outcome, h.error_code]),
        path,
      ).toEqual([['REFUSED', 'not_found']]);
    }
    // A first segment other than the service's own is refused before anything is asked or sent.
    const { id, body } = release();
    const outside = await run(['api', 'POST', '/tpa-api;a/v1/funding/approve/', '-d', body, '--yes']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/path must be as served/);
    expect((await history()).filter((h) => h.encounter_id === id)).toEqual([]);
  });

  it('a body giving a key twice is refused before anything is asked or sent: what is confirmed and recorded is what the service reads', async () => {
    const { id, body } = release();
    // JSON.parse (the confirmation, the fund history) keeps the last amount; a service may keep the first.
    const twice = body.replace(/^\{/, '{"amount":0.01,');
    const before = (await history()).length;
    const r = await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', twice, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--data gives the key amount twice in one object.*nothing was sent/);
    expect(await fundingsOf(id)).toBe(0);
    expect(await history()).toHaveLength(before);
  });

  it('finalizing a rate schedule asks too, in any spelling: without --yes exit 2 and nothing sent', async () => {
    for (const path of [
      '/api/v1/computable-contracts/builder/BLD-1002/finalize;x',
      '/api/v1/computable-contracts/builder/BLD-1002;x/finalize/',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize.json',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize%3B',
      '/api/v1/computable-contracts/builder/BLD-1002/finalize',
      '/api/v1/computable-contracts/builder/BLD-1002/./finalize/',
      '/api/v1/computable-contracts/builder/BLD-1002//FINALIZE',
    ]) {
      const asked = await run(['api', 'POST', path, '-d', '{}']);
      expect(asked.code, path).toBe(2);
      expect(asked.stderr, path).toMatch(/needs confirmation: pass --yes/);
    }
    // With --yes it is sent: this instance has no schedule, which only the service can say (404).
    const sent = await run(['api', 'POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize', '-d', '{}', '--yes']);
    expect(sent.code, sent.stderr).toBe(3);
    expect(sent.stdout).toMatch(/has no rate schedule yet/);
  });

  it('other requests are not fund releases: a lookup, a path outside the service; another method on its path is refused', async () => {
    const get = await run(['api', 'GET', '/tpa-api/v1/funding/./approve/']);
    expect(get.code).toBe(2);
    expect(get.stderr).toMatch(/the fund release is POST only \(GET \/tpa-api\/v1\/funding\/approve\/\); nothing was sent/);
    const lookup = await run(['api', 'POST', '/tpa-api/v1/./contract-lookup/blind/', '-d', '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}']);
    expect(lookup.code, lookup.stderr).toBe(0);
    const outside = await run(['api', 'POST', '/tpa-api/../elsewhere/funding/approve/', '-d', '{}', '--yes']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/path must be as served/);
  });
});

describe('over HTTP (tpa local serve)', () => {
  let server: Served;
  let key: string;
  beforeAll(async () => {
    server = await serve(home.dir, [], env);
    key = await login(home.dir, server.url);
  });

  /** A profile `edited` written into config.json by hand (whoever edits the file), beside the others. */
  const editProfile = (baseUrl: string) => {
    const file = join(home.dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...config, profiles: { ...config.profiles, edited: { env: 'sandbox', base_url: baseUrl } } }));
  };
  /** What the server was asked, from its access log, between `from` (a length of the log) and now; the test's own reads (fundingsOf, fund history) left out. */
  const askedSince = async (from: number) => {
    await server.settled();
    return server
      .stderr()
      .slice(from)
      .split('\n')
      .map((l) => /\b(GET|HEAD|POST|PUT|PATCH|DELETE) \/\S* \d{3}/.exec(l)?.[0])
      .filter((l): l is string => l !== undefined && !l.startsWith('GET /settled-') && !/^GET \/tpa-api\/v1\/(ledger|settlement)\//.test(l));
  };
  const logLength = async () => {
    await server.settled();
    return server.stderr().length;
  };
  afterAll(async () => {
    await server.stop();
  });

  it('a spelt-out path is confirmed, sent once as the router reads it, and recorded', async () => {
    const { id, body } = release();
    const refused = await runTpa(['api', 'POST', '/tpa-api/v1/funding/./approve/#x', '-d', body, '-p', 'sandbox'], { home: home.dir, env });
    expect(refused.code).toBe(2);
    expect(await fundingsOf(id)).toBe(0);
    const r = await runTpa(['api', 'POST', '/tpa-api/v1/funding/%2e/approve/#x', '-d', body, '-p', 'sandbox', '--yes'], { home: home.dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(await fundingsOf(id)).toBe(1);
    await server.settled();
    expect(server.stderr().match(/POST \/tpa-api\/v1\/funding\/[^ ]* \d+/g)).toEqual([expect.stringMatching(/^POST \/tpa-api\/v1\/funding\/approve\/ 200$/)]);
    expect((await history()).filter((h) => h.encounter_id === id)).toEqual([expect.objectContaining({ outcome: 'APPROVED', profile: 'sandbox' })]);
  });

  it('a path parameter or a suffix a lenient service strips is asked too: nothing reaches the server without --yes; with it, sent once with an Idempotency-Key and recorded', async () => {
    for (const path of ['/tpa-api/v1/funding/approve;x/', '/tpa-api/v1/funding;x/approve.json']) {
      const { id, body } = release();
      const refused = await runTpa(['api', 'POST', path, '-d', body, '-p', 'sandbox'], { home: home.dir, env });
      expect(refused.code, path).toBe(2);
      await server.settled();
      expect(server.stderr(), path).not.toContain(`POST ${path} `);
      const sent = await runTpa(['api', 'POST', path, '-d', body, '-p', 'sandbox', '--yes', '--debug'], { home: home.dir, env });
      expect(sent.stderr, path).toMatch(/Idempotency-Key: [0-9a-f-]{36}/);
      await server.settled();
      expect(server.stderr().split(`POST ${path} 404`).length - 1, path).toBe(1);
      expect(
        (await history()).filter((h) => h.encounter_id === id).map((h) => [h.outcome, h.profile]),
        path,
      ).toEqual([['REFUSED', 'sandbox']]);
    }
  });

  it('a base URL holding a query, a fragment, a user name, a dot segment or an escape is refused when its profile is used: exit 2, nothing reaches the server, --yes or not', async () => {
    const from = await logLength();
    for (const suffix of [
      '/tpa-api/v1/funding/approve/?',
      '/tpa-api/v1/funding/approve/#',
      '/tpa-api/v1/funding/approve/?x=1',
      '/tpa-api/v1/funding/approve/..',
      '/tpa-api/v1/funding/approve/%2e%2e',
      '/tpa-api/v1/funding/approve;x',
    ]) {
      editProfile(`${server.url}${suffix}`);
      for (const yes of [[], ['--yes']]) {
        const { id, body } = release();
        const r = await runTpa(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', body, '-p', 'edited', ...yes], {
          home: home.dir,
          env: { ...env, TPA_API_KEY: key },
        });
        expect(r.code, `${suffix} ${yes}`).toBe(2);
        expect(r.stderr, suffix).toMatch(/is not a base URL tpa accepts: (it holds a (query|fragment)|its path holds the segment)/);
        expect(await fundingsOf(id), suffix).toBe(0);
      }
    }
    editProfile(server.url.replace('http://', `http://user:${key}@`));
    const userinfo = await runTpa(['api', 'GET', '/tpa-api/v1/health/', '-p', 'edited'], { home: home.dir, env: { ...env, TPA_API_KEY: key } });
    expect(userinfo.code).toBe(2);
    expect(userinfo.stderr).toMatch(/it holds a user name or password/);
    expect(userinfo.stderr).not.toContain(key);
    expect(await askedSince(from)).toEqual([]);
    expect(await history()).toEqual(expect.not.arrayContaining([expect.objectContaining({ profile: 'edited' })]));
  });

  it('an id from outside that a lenient service would read into a fund release or a finalize sends nothing, from any command but the one made for it', async () => {
    const from = await logLength();
    const climb = '../../../../tpa-api/v1/funding/approve/?';
    for (const args of [
      ['ratesheet', 'init', climb],
      ['ratesheet', 'finalize', climb, '--yes'],
      ['ratesheet', 'init', '../../../../api/v1/computable-contracts/builder/BLD-1001/finalize/?'],
      // A segment padded with a space, which a router that trims segments (Spring's trimTokens) drops.
      ['ratesheet', 'init', 'x/finalize /?'],
    ]) {
      const r = await runTpa([...args, '-p', 'sandbox'], { home: home.dir, env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /would reach (a fund release|a rate schedule's finalize) on a service that reads paths leniently; nothing was sent/,
      );
    }
    expect(await askedSince(from)).toEqual([]);
  });

  it('the attack as a process: config set of a base URL ending in ? is refused, and a config.json edited to hold one sends nothing', async () => {
    const from = await logLength();
    const { id, body } = release();
    const set = await tpa(['config', 'set', 'profiles.sandbox.base_url', `${server.url}/tpa-api/v1/funding/approve/?`], { home: home.dir, env });
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/it holds a query/);
    editProfile(`${server.url}/tpa-api/v1/funding/approve/?`);
    const r = await tpa(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', body, '-p', 'edited', '--debug'], {
      home: home.dir,
      env: { ...env, TPA_API_KEY: key },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/APPROVED|→ POST/);
    expect(await fundingsOf(id)).toBe(0);
    expect(await askedSince(from)).toEqual([]);
  });

  it("a base URL's path that turns a request into a fund release is refused before anything is asked or sent, on tpa api and on every other command", async () => {
    editProfile(`${server.url}/tpa-api/v1/funding/approve`);
    const from = await logLength();
    const run = (args: string[]) => runTpa([...args, '-p', 'edited'], { home: home.dir, env: { ...env, TPA_API_KEY: key } });
    // A lenient service decodes %252e%252e twice into "..", which climbs back into the base URL's path: the fund release.
    for (const yes of [[], ['--yes']]) {
      const { id, body } = release();
      const r = await run(['api', 'POST', '/tpa-api/%252e%252e/', '-d', body, ...yes]);
      expect(r.code, `${yes}`).toBe(2);
      expect(r.stderr).toMatch(/the base URL's path \\"\/tpa-api\/v1\/funding\/approve\\" turns POST \/tpa-api\/%252e%252e\/ into a fund release/);
      expect(r.stderr).not.toMatch(/needs confirmation/);
      expect(await fundingsOf(id)).toBe(0);
    }
    // Not only tpa api: an instance id that climbs out of the builder's path, after that base path, is the fund release too.
    const init = await run(['ratesheet', 'init', '../../../../?']);
    expect(init.code, init.stderr).toBe(2);
    expect(init.stderr).toMatch(
      /turns POST \/api\/v1\/computable-contracts\/builder\/\.\.%2F\.\.%2F\.\.%2F\.\.%2F%3F\/rate-schedule\/init\/ into a fund release/,
    );
    expect(await askedSince(from)).toEqual([]);
    expect(await history()).toEqual(expect.not.arrayContaining([expect.objectContaining({ profile: 'edited' })]));
    // A plain prefix is only a prefix: the request goes under it (the engine serves nothing there: 404).
    editProfile(`${server.url}/gw/tpa-api-v1.x`);
    const beforeLookup = await logLength();
    const lookup = await run(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378']);
    expect(lookup.code, lookup.stderr).toBe(3);
    expect(await askedSince(beforeLookup)).toEqual([expect.stringMatching(/^POST \/gw\/tpa-api-v1\.x\/tpa-api\/v1\/contract-lookup\/blind\/ 404/)]);
  });
});
