// `tpa api` and the fund release: whether a raw request moves money is decided by
// the route the engine's router will match, however the path is spelt (dot segments, escapes, a
// fragment, a query, a host prefix, the method's case), and what is checked is what is sent. A fund
// release through `tpa api` then asks for confirmation (--yes without a terminal), carries an
// Idempotency-Key and is recorded in `tpa fund history`, as `tpa fund approve` does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';
import { distinctClaim } from '../helpers/claims.js';
import { login, serve, type Served } from '../helpers/server.js';
import { ndjson } from '../helpers/values.js';

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
  '/tpa-api/v1/funding/approve/?dry_run=true',
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
  writeFileSync(file, `${Array.from({ length: 50 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const review = await run(['fund', 'run', '--dry-run', '-o', 'json']);
  expect(review.code, review.stderr).toBe(0);
  encounters = review.json<{ encounters: { encounter_id: string; amount: string }[] }>().encounters;
  expect(encounters.length).toBeGreaterThan(2 * SPELLINGS.length + LENIENT.length + 6);
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
      expect(r.stderr).toMatch(/→ POST \/tpa-api\/v1\/funding\/approve\/(\?dry_run=true)? \(Idempotency-Key: [0-9a-f-]{36}\)/);
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
    expect((await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body, '--yes'])).code).toBe(0);
    const again = await run(['api', 'POST', '/tpa-api/v1/funding/./approve/', '-d', body, '--yes']);
    expect(again.code).toBe(4);
    expect((await history()).filter((h) => h.encounter_id === id).map((h) => [h.outcome, h.error_code])).toEqual([
      ['APPROVED', null],
      ['REFUSED', 'duplicate_approval'],
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

  it('other requests are not fund releases: a GET of the same path, a lookup, a path outside the service', async () => {
    const get = await run(['api', 'GET', '/tpa-api/v1/funding/./approve/']);
    expect(get.stderr).not.toMatch(/confirmation/);
    const lookup = await run(['api', 'POST', '/tpa-api/v1/./contract-lookup/blind/', '-d', '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}']);
    expect(lookup.code, lookup.stderr).toBe(0);
    const outside = await run(['api', 'POST', '/tpa-api/../elsewhere/funding/approve/', '-d', '{}', '--yes']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/path must be as served/);
  });
});

describe('over HTTP (tpa local serve)', () => {
  let server: Served;
  beforeAll(async () => {
    server = await serve(home.dir, [], env);
    await login(home.dir, server.url);
  });
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
});
