// `tpa api` as gh's: the path alone (GET, or POST with fields or a body), -X, -f/-F fields as a
// JSON body or a GET's query, --input, -H headers and the ones tpa keeps, --paginate; and a fund
// release built from fields is confirmed, keyed and recorded as one from -d is. In-process, on the
// embedded engine (the same over HTTP: http.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFields, queryOf, splitField, typedValue } from '../../../src/cli/commands/api/fields.js';
import { useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);
const run = home.run;

let encounters: { encounter_id: string; amount: string }[];
let next = 0;
const fundingsOf = async (id: string) => {
  const r = await run(['ledger', 'show', id, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ entries: { type: string }[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED').length;
};
const history = async () => ndjson((await run(['fund', 'history', '-o', 'ndjson'])).stdout);
const LEDGER = '/tpa-api/v1/ledger/entries/';
const LOOKUP = '/tpa-api/v1/contract-lookup/blind/';

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 11 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const review = await run(['fund', 'run', '--dry-run', '-o', 'json']);
  expect(review.code, review.stderr).toBe(0);
  encounters = review.json<{ encounters: { encounter_id: string; amount: string }[] }>().encounters;
  expect(encounters.length).toBeGreaterThan(6);
});

describe('fields, as gh reads them', () => {
  it('-F types true, false, null and plain numbers; a number only when it is exactly the decimal typed, never rounded', () => {
    expect(['true', 'false', 'null', '2040', '-3', '1245.67', '1245.50', '0'].map(typedValue)).toEqual([true, false, null, 2040, -3, 1245.67, 1245.5, 0]);
    // Text stays text: too long for a double (rounding it would change the amount), leading zeros, other forms.
    for (const text of ['12345678901234567890', '0.1000000000000000055511', '007', '1e3', '+5', '.5', '5.', '-0', 'NaN', '12,00', ''])
      expect(typedValue(text), text).toBe(text);
  });

  it('key[] makes a list, key[sub] an object, key[][sub] a list of objects; a key given twice is refused', () => {
    const split = (t: string) => splitField(t, '-f') as { key: string; value: string | undefined };
    const fields = ['a[]=1', 'a[]=2', 'o[x]=3', 'o[y][]=4', 'l[][n]=5', 'l[][m]=6', 'l[][n]=7', 'e[]', 'eq=x=y'].map(split);
    expect(buildFields(fields)).toEqual({ a: ['1', '2'], o: { x: '3', y: ['4'] }, l: [{ n: '5', m: '6' }, { n: '7' }], e: [], eq: 'x=y' });
    expect(buildFields([split('a=1'), split('a=2')])).toMatch(/the field a is given twice/);
    expect(buildFields([split('a=1'), split('a[x]=2')])).toMatch(/a is already a value, not an object/);
    expect(splitField('novalue', '-F')).toMatch(/a field is key=value/);
    expect(splitField('=x', '-F')).toMatch(/the key is empty/);
    expect(queryOf({ status: 'FUNDED', limit: 2, n: null, codes: ['1', '2'], o: { a: 'b c' } })).toBe(
      'status=FUNDED&limit=2&n=&codes%5B%5D=1&codes%5B%5D=2&o%5Ba%5D=b+c',
    );
  });
});

describe('tpa api <path>', () => {
  it('a path alone is a GET; fields make it a POST with a JSON body (typed by -F, text by -f); <method> <path> still works', async () => {
    const health = await run(['api', '/tpa-api/v1/health', '--debug']);
    expect(health.code, health.stderr).toBe(0);
    expect(health.stderr).toMatch(/→ GET \/tpa-api\/v1\/health/);
    const fields = await run(['api', LOOKUP, '-f', 'npi=1045782368', '-f', 'group_id=GRP-1001', '-f', 'cpt_codes[]=45378', '--debug']);
    expect(fields.code, fields.stderr).toBe(0);
    expect(fields.stderr).toMatch(/→ POST \/tpa-api\/v1\/contract-lookup\/blind\//);
    expect(fields.json()).toMatchObject({ match_found: true });
    const spelled = await run(['api', 'POST', LOOKUP, '-d', '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}']);
    expect(spelled.json()).toEqual(fields.json());
    // -F makes the NPI a number, which the service refuses (400, exit 2): the field was sent typed.
    const typed = await run(['api', LOOKUP, '-F', 'npi=1045782368', '-f', 'group_id=GRP-1001', '-f', 'cpt_codes[]=45378']);
    expect(typed.code).toBe(2);
    expect(typed.stdout).toMatch(/npi/);
  });

  it('-F key=@file and key=@- take the text of a file or of stdin, as text; -f takes @ as it is', async () => {
    const file = join(home.dir, 'group.txt');
    writeFileSync(file, 'GRP-1001');
    const fromFile = await run(['api', LOOKUP, '-f', 'npi=1045782368', '-F', `group_id=@${file}`, '-f', 'cpt_codes[]=45378']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.json()).toMatchObject({ match_found: true });
    const fromStdin = await run(['api', LOOKUP, '-f', 'npi=1045782368', '-F', 'group_id=@-', '-f', 'cpt_codes[]=45378'], {}, 'GRP-1001');
    expect(fromStdin.json()).toEqual(fromFile.json());
    const literal = await run(['api', LOOKUP, '-f', 'npi=1045782368', '-f', `group_id=@${file}`, '-f', 'cpt_codes[]=45378']);
    // "@/…/group.txt" sent as the group id, which the service refuses.
    expect(literal.code).toBe(2);
    expect(literal.stdout).toMatch(/group_id/);
  });

  it('with -X GET (or HEAD) the fields are the query, added to one the path has; without -X a field makes a POST', async () => {
    const get = await run(['api', `${LEDGER}?offset=1`, '-X', 'GET', '-F', 'limit=2', '-f', 'status=ADJUDICATED', '--debug']);
    expect(get.code, get.stderr).toBe(0);
    // -f fields first, then -F (as gh orders them).
    expect(get.stderr).toMatch(/→ GET \/tpa-api\/v1\/ledger\/entries\/\?offset=1&status=ADJUDICATED&limit=2$/m);
    const page = get.json<{ results: { status: string }[]; next: string }>();
    expect(page.results).toHaveLength(2);
    expect(page.results.every((r) => r.status === 'ADJUDICATED')).toBe(true);
    expect(page.next).toMatch(/limit=2/);
    const post = await run(['api', LEDGER, '-F', 'limit=2', '--debug']);
    expect(post.stderr).toMatch(/→ POST \/tpa-api\/v1\/ledger\/entries\/$/m);
    expect(post.code).not.toBe(0);
  });

  it('--input reads the body from a file or stdin (a key given twice refused); fields beside it go in the query', async () => {
    const file = join(home.dir, 'lookup.json');
    writeFileSync(file, '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}');
    const fromFile = await run(['api', LOOKUP, '--input', file, '--debug', '-f', 'trace=1']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stderr).toMatch(/→ POST \/tpa-api\/v1\/contract-lookup\/blind\/\?trace=1$/m);
    const fromStdin = await run(['api', LOOKUP, '--input', '-'], {}, '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}');
    expect(fromStdin.json()).toEqual(fromFile.json());
    writeFileSync(file, '{"npi":"1045782368","npi":"1999999999","group_id":"GRP-1001","cpt_codes":["45378"]}');
    const twice = await run(['api', LOOKUP, '--input', file]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--input gives the key npi twice in one object/);
    const both = await run(['api', LOOKUP, '--input', file, '-d', '{}']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--input and -d both give the body/);
    const stdinTwice = await run(['api', LOOKUP, '--input', '-', '-F', 'x=@-'], {}, '{}');
    expect(stdinTwice.code).toBe(2);
    expect(stdinTwice.stderr).toMatch(/stdin is read once/);
  });

  it('the method is given once: a first argument that is no method, or -X against it, is refused', async () => {
    const other = await run(['api', 'GET', LEDGER, '-X', 'POST']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/the method is given twice, GET and -X POST/);
    const unknown = await run(['api', 'FETCH', LEDGER]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown method \\"FETCH\\"/);
    const badX = await run(['api', LEDGER, '-X', 'TRACE']);
    expect(badX.code).toBe(2);
    expect(badX.stderr).toMatch(/unknown method \\"TRACE\\"/);
  });
});

describe('-H', () => {
  it('refuses the headers tpa keeps (credentials, framing, another method or path), malformed ones and one given twice, echoing no value', async () => {
    for (const [header, why] of [
      ['Authorization: Bearer sk_sand_secret', /credentials come from the profile/],
      ['X-API-Key: sk_sand_secret', /credentials come from the profile/],
      ['Host: elsewhere.example', /the host is the profile's base URL/],
      ['Content-Length: 0', /framing/],
      ['Transfer-Encoding: chunked', /framing/],
      ['X-HTTP-Method-Override: POST', /the method is the one -X or the command line gives/],
      ['X-Original-URL: /tpa-api/v1/funding/approve/', /the path is the one the command line gives/],
      ['sk_sand_secret', /-H takes Name: value/],
      ['X-Trace: a\u0000b', /control character/],
    ] as const) {
      const r = await run(['api', '/tpa-api/v1/health', '-H', header]);
      expect(r.code, header).toBe(2);
      expect(r.stderr, header).toMatch(why);
      expect(r.stderr, header).not.toContain('secret');
      expect(r.stdout, header).toBe('');
    }
    const twice = await run(['api', '/tpa-api/v1/health', '-H', 'X-Trace: 1', '-H', 'x-trace: 2']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/-H x-trace is given twice/);
    const fine = await run(['api', '/tpa-api/v1/health', '-H', 'X-Trace: 1', '-H', 'X-Session-Token: hush', '--debug']);
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stderr).toMatch(/-H x-trace: 1/);
    expect(fine.stderr).toMatch(/-H x-session-token: \[redacted\]/);
    expect(fine.stderr).not.toContain('hush');
  });

  it('refuses by their shape the names that carry another path or method (URI, URL, path, method, verb overrides); a look-alike that is none passes', async () => {
    const paths = [
      'X-Original-URI',
      'X-Forwarded-Uri',
      'X-Forwarded-Url',
      'X-Rewrite-Uri',
      'X-Request-Uri',
      'X-Original-Path',
      'X-Envoy-Original-Path',
      'X-Override-Url',
    ];
    const methods = ['X-Method', 'X-Http-Verb', 'X-Forwarded-Method', 'X-Envoy-Original-Method', 'X-Verb-Override', 'Method'];
    for (const [names, why] of [
      [paths, /the path is the one the command line gives, which tpa checks/],
      [methods, /the method is the one -X or the command line gives, which tpa checks/],
    ] as const) {
      for (const name of names) {
        const r = await run(['api', '/tpa-api/v1/health', '-H', `${name}: /tpa-api/v1/funding/approve/`]);
        expect(r.code, name).toBe(2);
        expect(r.stderr, name).toMatch(new RegExp(`-H ${name.toLowerCase()} is not accepted: ${why.source}`));
        expect(r.stdout, name).toBe('');
      }
    }
    const fine = await run(['api', '/tpa-api/v1/health', '-H', 'X-Methodology: a', '-H', 'X-Forwarded-For: 127.0.0.1', '-H', 'X-Request-Id: r-1']);
    expect(fine.code, fine.stderr).toBe(0);
  });

  it("an Idempotency-Key of the user's passes on a read and a claim submission (replayed by the service), and is refused on any other write", async () => {
    const read = await run(['api', '/tpa-api/v1/health', '-H', 'Idempotency-Key: k-1']);
    expect(read.code, read.stderr).toBe(0);
    const config = await run(['api', 'PATCH', '/api/v1/computable-contracts/builder/BLD-1001/rate-schedule/config/', '-d', '{}', '-H', 'Idempotency-Key: k-2']);
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/-H idempotency-key is not accepted: the service keeps keys only for a claim submission and a fund release/);
    const claim = join(home.dir, 'claim.json');
    writeFileSync(claim, JSON.stringify(distinctClaim(40)));
    const first = await run(['api', '/tpa-api/v1/claims/submit/', '--input', claim, '-H', 'Idempotency-Key: claim-0042', '--include', '--debug']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/\[debug\] Idempotency-Key: [0-9a-f-]{36}/);
    const again = await run(['api', '/tpa-api/v1/claims/submit/', '--input', claim, '-H', 'Idempotency-Key: claim-0042', '--include']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/idempotent-replayed: true/);
    const body = (text: string) => JSON.parse(text.slice(text.indexOf('\n{') + 1)) as { submission_id: string };
    expect(body(again.stdout).submission_id).toBe(body(first.stdout).submission_id);
  });
});

describe('a fund release built from fields', () => {
  const fields = (e: { encounter_id: string; amount: string }, code: string) => [
    '-f',
    `encounter_id=${e.encounter_id}`,
    '-F',
    `amount=${e.amount}`,
    '-f',
    `authorization_code=${code}`,
  ];

  it('asks as one from -d does: without --yes exit 2, nothing sent, nothing recorded; with it, keyed, sent once and recorded with its amount', async () => {
    const e = encounters[next++]!;
    const asked = await run(['api', '/tpa-api/v1/funding/./approve/', ...fields(e, 'AUTH-F-1')]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/needs confirmation: pass --yes/);
    expect(await fundingsOf(e.encounter_id)).toBe(0);
    expect((await history()).filter((h) => h.encounter_id === e.encounter_id)).toEqual([]);
    const sent = await run(['api', '/tpa-api/v1/funding/approve/', ...fields(e, 'AUTH-F-1'), '--yes', '--debug']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toMatch(/→ POST \/tpa-api\/v1\/funding\/approve\/ \(Idempotency-Key: [0-9a-f-]{36}\)/);
    expect(sent.json()).toMatchObject({ status: 'APPROVED' });
    expect(await fundingsOf(e.encounter_id)).toBe(1);
    const recorded = (await history()).filter((h) => h.encounter_id === e.encounter_id);
    expect(recorded.map((h) => [h.outcome, h.authorization_code])).toEqual([['APPROVED', 'AUTH-F-1']]);
    expect(Number(recorded[0]!.amount)).toBe(Number(e.amount));
  });

  it('-H Idempotency-Key (or Content-Type) cannot take the place of the key tpa makes, however the route is spelt: exit 2, nothing sent or recorded', async () => {
    const e = encounters[next++]!;
    for (const path of ['/tpa-api/v1/funding/approve/', '/tpa-api/v1/funding/%2e/approve/', '/tpa-api/v1/FUNDING;x/approve.json'])
      for (const header of ['Idempotency-Key: mine-1', 'idempotency-key:mine-2', 'Content-Type: application/x-www-form-urlencoded']) {
        const r = await run(['api', path, ...fields(e, 'AUTH-F-2'), '-H', header, '--yes']);
        expect(r.code, `${path} ${header}`).toBe(2);
        expect(r.stderr, header).toMatch(
          /-H (idempotency-key|content-type) is not accepted: a fund release (carries the key tpa makes|is sent as the JSON that was confirmed)/,
        );
        expect(r.stderr).not.toMatch(/needs confirmation/);
      }
    expect(await fundingsOf(e.encounter_id)).toBe(0);
    expect((await history()).filter((h) => h.encounter_id === e.encounter_id)).toEqual([]);
  });

  it('an amount -F cannot hold exactly goes as text, never rounded, and is refused before sending', async () => {
    const e = encounters[next++]!;
    const r = await run(['api', '/tpa-api/v1/funding/approve/', ...fields(e, 'AUTH-F-3'), '-F', 'amount=100.0000000000000000001', '--yes']);
    // amount given twice (the fields' own amount, then this one): refused before anything is sent.
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the field amount is given twice/);
    const inexact = await run([
      'api',
      '/tpa-api/v1/funding/approve/',
      '-f',
      `encounter_id=${e.encounter_id}`,
      '-F',
      'amount=100.0000000000000000001',
      '-f',
      'authorization_code=AUTH-F-3',
      '--yes',
    ]);
    // Refused by tpa before sending, as the service would refuse it: nothing sent, nothing recorded.
    expect(inexact.code).toBe(2);
    expect(inexact.stderr).toMatch(/amount must be a plain JSON number of dollars with at most two decimals.*nothing was sent/);
    expect(await fundingsOf(e.encounter_id)).toBe(0);
  });
});

describe('--paginate', () => {
  it('follows next to the end: one JSON array of every row, or one row a line with -o ndjson, the same rows as a single page of them all', async () => {
    const all = await run(['api', `${LEDGER}?limit=100`]);
    const rows = all.json<{ count: number; results: { encounter_id: string }[] }>();
    expect(rows.count).toBeGreaterThan(7);
    const array = await run(['api', LEDGER, '-F', 'limit=3', '--paginate', '--debug']);
    expect(array.code, array.stderr).toBe(0);
    expect(array.stderr.match(/→ GET \/tpa-api\/v1\/ledger\/entries\/\?limit=3$/gm)?.length).toBe(1);
    expect((array.stderr.match(/→ GET /g) ?? []).length).toBe(Math.ceil(rows.count / 3));
    expect(array.json<{ encounter_id: string }[]>().map((r) => r.encounter_id)).toEqual(rows.results.map((r) => r.encounter_id));
    const lines = await run(['api', 'GET', `${LEDGER}?limit=4`, '--paginate', '-o', 'ndjson']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(ndjson<{ encounter_id: string }>(lines.stdout).map((r) => r.encounter_id)).toEqual(rows.results.map((r) => r.encounter_id));
  });

  it('only GETs: refused with another method or with --include, before anything is sent; an answer that is no page is printed as it came', async () => {
    for (const args of [
      ['POST', LEDGER, '--paginate'],
      [LEDGER, '-X', 'HEAD', '--paginate'],
      [LEDGER, '--paginate', '--include'],
    ]) {
      const r = await run(['api', ...args, '--debug']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).not.toMatch(/→/);
    }
    const health = await run(['api', '/tpa-api/v1/health', '--paginate']);
    expect(health.code, health.stderr).toBe(0);
    expect(health.json()).toMatchObject({ status: 'ok' });
    expect(health.stderr).toMatch(/not a page of a list/);
  });
});
