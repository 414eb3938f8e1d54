// `tpa api` against requests made to slip past its checks: another method on the fund release's
// path, a body on a GET, header names spelt with `_`, a release body that is not the release alone,
// an amount that is not plain cents, credentials in --debug, a retry after a lost answer. Each is
// refused before anything is sent (exit 2, nothing funded, nothing recorded) or shown redacted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretHeader, redactedQuery, shownHeaderValue } from '../../../src/domain/secret-headers.js';
import { runTpa, useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { login, serve, type Served } from '../../helpers/server.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);
const run = home.run;
const RELEASE = '/tpa-api/v1/funding/approve/';

let encounters: { encounter_id: string; amount: string }[];
let next = 0;
/** An encounter not funded yet, its benefit as the JSON number text, and a fresh code. */
const fresh = () => {
  const e = encounters[next++]!;
  return { id: e.encounter_id, amount: String(Number(e.amount)), text: Number(e.amount).toFixed(2), code: `AUTH-REF-${next}` };
};
const bodyOf = (r: { id: string; amount: string; code: string }) => `{"encounter_id":"${r.id}","amount":${r.amount},"authorization_code":"${r.code}"}`;
const fundingsOf = async (id: string) => {
  const r = await run(['ledger', 'show', id, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ entries: { type: string }[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED').length;
};
const history = async () => ndjson((await run(['fund', 'history', '-o', 'ndjson'])).stdout);

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 40 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const review = await run(['fund', 'run', '--dry-run', '-o', 'json']);
  expect(review.code, review.stderr).toBe(0);
  encounters = review.json<{ encounters: { encounter_id: string; amount: string }[] }>().encounters;
  expect(encounters.length).toBeGreaterThan(30);
});

/** Runs `args` with --yes (so that only a refusal stops it) and checks it was refused before anything was sent or recorded. */
async function refused(args: string[], id: string, message: RegExp): Promise<void> {
  const before = (await history()).length;
  const r = await run([...args, '--yes']);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
  expect(r.stderr, args.join(' ')).toMatch(message);
  expect(r.stderr, args.join(' ')).toMatch(/nothing was sent/);
  expect(await fundingsOf(id), args.join(' ')).toBe(0);
  expect(await history(), args.join(' ')).toHaveLength(before);
}

describe('tpa api: the fund release is POST only, and the release alone', () => {
  it('PUT, PATCH, GET, DELETE and HEAD on the fund release path are refused before sending, with a body, fields or none', async () => {
    for (const method of ['PUT', 'PATCH', 'GET', 'DELETE', 'HEAD', 'put']) {
      const r = fresh();
      await refused(['api', method, RELEASE, '-d', bodyOf(r)], r.id, /the fund release is POST only/);
      await refused(
        ['api', RELEASE, '-X', method, '-f', `encounter_id=${r.id}`, '-F', `amount=${r.amount}`, '-f', `authorization_code=${r.code}`],
        r.id,
        /POST only/,
      );
      await refused(['api', method, '/tpa-api/v1/funding/./approve;x/'], r.id, /the fund release is POST only/);
    }
    // A finalize likewise.
    const fin = await run(['api', 'PUT', '/api/v1/computable-contracts/builder/BLD-1002/finalize', '-d', '{}', '--yes']);
    expect(fin.code).toBe(2);
    expect(fin.stderr).toMatch(/finalizing a rate schedule is POST only.*nothing was sent/);
  });

  it('a path extending the fund release or a finalize, and the key rotation, are refused whatever the method: exit 2, nothing funded, nothing recorded, no key rotated', async () => {
    for (const method of ['PUT', 'POST', 'GET']) {
      const r = fresh();
      const fields = ['-f', `encounter_id=${r.id}`, '-F', `amount=${r.amount}`, '-f', `authorization_code=${r.code}`];
      for (const path of [`${RELEASE}x`, `${RELEASE}x/`, '/tpa-api/v1/funding/approve%2Fx', '/tpa-api/v1/FUNDING/approve.json/x']) {
        const before = (await history()).length;
        const sent = await run(['api', '-X', method, path, ...fields, '--yes', '--debug']);
        expect(sent.code, `${method} ${path}: ${sent.stderr}`).toBe(2);
        expect(sent.stderr).toMatch(/is not a route of the service; a service that routes by prefix would take it for the fund release: refused, nothing sent/);
        expect(sent.stderr).not.toMatch(/→ /);
        expect(await fundingsOf(r.id)).toBe(0);
        expect(await history()).toHaveLength(before);
      }
    }
    const fin = await run(['api', 'POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize/x', '--yes', '--debug']);
    expect(fin.code).toBe(2);
    expect(fin.stderr).toMatch(/finalize\/x is not a route of the service; .* finalizing a rate schedule: refused, nothing sent/);
    expect(fin.stderr).not.toMatch(/→ /);
    for (const path of ['/tpa-api/v1/keys/rotate/', '/tpa-api/v1/keys/rotate', '/tpa-api/v1/keys/./ROTATE;x']) {
      const rotate = await run(['api', 'POST', path, '--yes', '--debug']);
      expect(rotate.code, path).toBe(2);
      expect(rotate.stderr).toMatch(/use `tpa auth rotate`, which asks, saves the new key and never prints it; nothing was sent/);
      expect(rotate.stderr).not.toMatch(/→ /);
      expect(rotate.stdout).toBe('');
    }
  });

  it('a body on a GET or HEAD is refused anywhere; fields on a GET still go in its query', async () => {
    for (const method of ['GET', 'HEAD']) {
      const r = await run(['api', method, '/tpa-api/v1/ledger/entries/', '-d', '{"status":"ADJUDICATED"}', '--debug']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`--data gives a body, which a ${method} does not carry: nothing was sent`));
      expect(r.stderr).not.toMatch(/→ /);
    }
    const query = await run(['api', 'GET', '/tpa-api/v1/ledger/entries/', '-f', 'status=ADJUDICATED', '-F', 'limit=1', '--debug']);
    expect(query.code, query.stderr).toBe(0);
    expect(query.stderr).toMatch(/→ GET \/tpa-api\/v1\/ledger\/entries\/\?status=ADJUDICATED&limit=1/);
  });

  it('a release that is not one object of encounter_id, amount and authorization_code, or that has a query string, is refused: nothing sent, nothing recorded', async () => {
    const r = fresh();
    const f = [`encounter_id=${r.id}`, `authorization_code=${r.code}`];
    const cases: [string[], RegExp][] = [
      [['POST', `${RELEASE}?dry_run=true`, '-d', bodyOf(r)], /carries no query string/],
      [['POST', RELEASE, '-d', '{}', '-f', f[0]!, '-F', `amount=${r.amount}`, '-f', f[1]!], /carries no query string/],
      [['POST', RELEASE, '-d', `[${bodyOf(r)}]`], /one JSON object/],
      [['POST', RELEASE, '-d', bodyOf(r).replace(/}$/, ',"dry_run":true}')], /nothing else \(it holds/],
      [['POST', RELEASE, '-d', bodyOf(r).replace(/}$/, ',"notes":["x"]}')], /plain/],
      [['POST', RELEASE, '-d', bodyOf(r).replace(/}$/, ',"notes":1}')], /notes must be text/],
      [['POST', RELEASE, '-f', `encounter_id[]=${r.id}`, '-F', `amount=${r.amount}`, '-f', f[1]!], /plain/],
      [['POST', RELEASE, '-f', f[0]!, '-F', `amount[value]=${r.amount}`, '-f', f[1]!], /plain/],
      [['POST', RELEASE, '-f', f[0]!, '-F', `amount=${r.amount}`], /authorization_code missing/],
      [['POST', RELEASE, '-F', `encounter_id=1`, '-F', `amount=${r.amount}`, '-f', f[1]!], /encounter_id must be non-empty text/],
    ];
    for (const [args, message] of cases) await refused(['api', ...args], r.id, message);
  });

  it('an amount that is not a plain JSON number of at most two decimals within safe cents is refused before sending', async () => {
    const r = fresh();
    const withAmount = (amount: string) => bodyOf({ ...r, amount });
    for (const amount of ['9007199254740993', '"0x11C"', '" 284"', '"284.00"', '1e2', '284.0000000000000001', '-5', '1E+3', 'true', 'null', '100000000.00']) {
      await refused(['api', 'POST', RELEASE, '-d', withAmount(amount)], r.id, /amount must be a plain JSON number/);
    }
    // -F keeps what is not a plain number as text, which is refused too.
    await refused(['api', 'POST', RELEASE, '-f', `encounter_id=${r.id}`, '-F', 'amount=0x11C', '-f', `authorization_code=${r.code}`], r.id, /amount must be/);
    // The amount sent is the amount recorded: 2 decimals written out are the same cents.
    expect(r.text).toMatch(/^\d+\.\d\d$/);
    // The contract's optional notes (text) go along.
    const ok = await run(['api', 'POST', RELEASE, '-d', withAmount(r.text).replace(/}$/, ',"notes":"raw release"}'), '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await history()).filter((h) => h.encounter_id === r.id).map((h) => [h.amount, h.outcome])).toEqual([[Number(r.amount), 'APPROVED']]);
  });

  it('no field spec crashes tpa api on the fund release, --yes or not: refused before sending, or sent, never an internal error', async () => {
    const r = fresh();
    const key = fc.tuple(
      fc.constantFrom('encounter_id', 'amount', 'authorization_code', 'x'),
      fc.constantFrom('', '[]', '[value]', '[][a]', '[a][b]', '[a][]'),
    );
    const value = fc.oneof(fc.constantFrom(r.id, r.amount, r.code, 'true', 'null', '1e2', '-0', ''), fc.string({ maxLength: 6 }));
    const spec = fc.record({ flag: fc.constantFrom('-f', '-F'), key, value });
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 4 }), async (specs) => {
        const args = specs.flatMap((s) => [s.flag, `${s.key[0]}${s.key[1]}=${s.value.replace(/^@/, '')}`]);
        for (const yes of [[], ['--yes']]) {
          const out = await run(['api', 'POST', RELEASE, ...args, ...yes]);
          // 2: refused (or not confirmed); 0 or 4 only for the rare spec that is the release itself.
          expect([0, 2, 4], `${args.join(' ')} ${yes}: ${out.stderr}`).toContain(out.code);
          expect(out.stderr).not.toMatch(/internal error|Cannot convert/i);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('header names with _ are refused, whatever they spell, and no header value is ever echoed in a refusal', async () => {
    for (const header of [
      'X_Original_URL: /tpa-api/v1/funding/approve/',
      'X_HTTP_METHOD_OVERRIDE: POST',
      'Idempotency_Key: k-1',
      'Content_Type: text/plain',
      'x_api_key: s3cr3t-v4lue',
    ]) {
      const r = await run(['api', 'GET', '/tpa-api/v1/health/', '-H', header]);
      expect(r.code, header).toBe(2);
      expect(r.stderr, header).toMatch(/-H takes Name: value, the name letters, digits and '-' only/);
      expect(r.stderr, header).not.toContain(header.split(': ')[1]);
    }
    // A value that is no header's (a non-UTF-8 byte read as U+FFFD, a character beyond Latin-1): refused by name only.
    for (const [args, message] of [
      [['-H', 'X-Custom: s3cr3t\uFFFDv4lue'], /^error: argument 5 \(after -H\): holds U\+FFFD/],
      [['--header', 'X-Custom:s3cr3t\uFFFDv4lue'], /^error: argument 5 \(after --header\): holds U\+FFFD/],
      [['-HX-Custom: s3cr3t\uFFFDv4lue'], /^error: argument 4 \(-H\): holds U\+FFFD/],
      [['--header=X-Custom: s3cr3t\uFFFDv4lue'], /^error: argument 4 \(--header\): holds U\+FFFD/],
      [['-H', 'X-Custom: s3cr3t\u20ACv4lue'], /-H x-custom: the value holds a character a header cannot carry/],
    ] as const) {
      const r = await run(['api', 'GET', '/tpa-api/v1/health/', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).not.toContain('s3cr3t');
    }
  });
  it('an argument holding U+FFFD (bytes that are not UTF-8) is named by its place and option, never echoed: a path, a query, a field', async () => {
    for (const [args, where] of [
      [['/tpa-api/v1/health/?token=s3cr3t\uFFFD'], 'argument 2'],
      [['/tpa-api/v1/health/', '-f', 'token=s3cr3t\uFFFD'], 'argument 4 (after -f)'],
      [['/tpa-api/v1/health/', '--raw-field=token=s3cr3t\uFFFD'], 'argument 3 (--raw-field)'],
      [['/tpa-api/v1/health/', '-ftoken=s3cr3t\uFFFD'], 'argument 3 (-f)'],
      [['/tpa-api/v1/health/', '-F', 'token=s3cr3t\ud800'], 'argument 4 (after -F)'],
    ] as const) {
      const r = await run(['api', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`error: ${where}: `);
      expect(r.stderr, args.join(' ')).not.toContain('s3cr3t');
      expect(r.stderr, args.join(' ')).not.toContain('token');
      expect(r.stdout).toBe('');
    }
  });

  it('--debug shows the value of no query parameter named like a credential, and prints no body', async () => {
    const secrets = ['q-4pi-k3y', 'q-t0k3n', 'q-p4ssw0rd', 'b-p4ssw0rd'];
    const query = await run([
      'api',
      'GET',
      '/tpa-api/v1/ledger/entries/',
      '-f',
      `api_key=${secrets[0]}`,
      '-f',
      `access_token=${secrets[1]}`,
      '-f',
      `password=${secrets[2]}`,
      '-F',
      'limit=1',
      '--debug',
    ]);
    expect(query.stderr).toMatch(/→ GET \/tpa-api\/v1\/ledger\/entries\/\?api_key=\[redacted\]&access_token=\[redacted\]&password=\[redacted\]&limit=1/);
    const post = await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-f', `password=${secrets[3]}`, '--debug']);
    expect(post.stderr).toMatch(/→ POST \/tpa-api\/v1\/contract-lookup\/blind\//);
    for (const s of secrets) {
      expect(query.stderr, s).not.toContain(s);
      expect(post.stderr, s).not.toContain(s);
    }
    // The rule itself, as the wire line of the HTTP transport applies it to the whole URL.
    expect(redactedQuery('https://h.example/tpa-api/v1/x/?API_KEY=a&limit=2&x%2Dauth%2Dtoken=b&sig=c&Pass_Word=d')).toBe(
      'https://h.example/tpa-api/v1/x/?API_KEY=[redacted]&limit=2&x%2Dauth%2Dtoken=[redacted]&sig=[redacted]&Pass_Word=[redacted]',
    );
    expect(['X_Session_Id', 'x-csrf-token', 'Ocp-Apim-Subscription-Key', 'X-Signature', 'Idempotency-Key', 'Accept'].map(isSecretHeader)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('--debug redacts by value too: a scheme credential, a tpa key, a JWT, the known key anywhere; and by more names and query parameters', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln';
    for (const value of ['Bearer abc.def', 'basic dXNlcjpwdw==', 'Digest username="u"', 'sk_sand_0123456789abcdef', `x ${jwt}`, 'v=sk_live_1']) {
      expect(shownHeaderValue('X-Trace', value), value).toBe('[redacted]');
    }
    expect(shownHeaderValue('X-Trace', 'pre-K3Y-post', ['K3Y'])).toBe('[redacted]');
    expect(shownHeaderValue('X-Trace', 't-1', ['K3Y'])).toBe('t-1');
    expect(shownHeaderValue('X-Trace', 'task_1 desk_2 eyJ')).toBe('task_1 desk_2 eyJ');
    const names = ['X-Bearer', 'DPoP', 'X-Sig', 'X-Api-Sig', 'sig', 'X-HMAC', 'X-OTP', 'X-CSRF', 'X-XSRF-TOKEN', 'X-Tkn', 'X-Client-Cert', 'X_Sig_V2'];
    expect(names.filter((n) => !isSecretHeader(n))).toEqual([]);
    expect(['X-Signal', 'X-Design', 'X-Footprint', 'Accept', 'X-Trace'].filter(isSecretHeader)).toEqual([]);
    expect(redactedQuery(`/tpa-api/v1/x/?sig=a&code=b&signature=c&OTP=d&limit=2&q=${jwt}&k=sk_sand_1&p=K3Y`, ['K3Y'])).toBe(
      '/tpa-api/v1/x/?sig=[redacted]&code=[redacted]&signature=[redacted]&OTP=[redacted]&limit=2&q=[redacted]&k=[redacted]&p=[redacted]',
    );
    expect(redactedQuery('/tpa-api/v1/K3Y/x/', ['K3Y'])).toBe('/tpa-api/v1/[redacted]/x/');
    // Over the CLI: a header holding a key or a JWT, a query's sig and code, never shown by --debug.
    const r = await run(['api', 'GET', '/tpa-api/v1/health/?sig=s3cr3t-sig&code=s3cr3t-code', '-H', `X-Trace: ${jwt}`, '-H', 'X-Sig: s3cr3t-h', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/-H x-trace: \[redacted\]/);
    for (const secret of ['s3cr3t', jwt]) expect(r.stderr).not.toContain(secret);
  });

  it('a retry after a lost answer is settled from the ledger first: refused (exit 4), one line for the code, APPROVED', async () => {
    const r = fresh();
    const lost = await run(['api', 'POST', RELEASE, '-d', bodyOf(r), '--yes'], { TPA_FAULT: 'lose-response*1:/funding/approve/' });
    expect(lost.code, `${lost.stderr}\n${lost.stdout}`).not.toBe(0);
    expect((await history()).filter((h) => h.encounter_id === r.id).map((h) => h.outcome)).toEqual(['UNKNOWN']);
    const again = await run(['api', 'POST', RELEASE, '-d', bodyOf(r), '--yes']);
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toMatch(/whose answer was lost, did happen/);
    expect(again.stderr).toMatch(new RegExp(`the release ${r.code} of ${r.id} was approved already \\(transfer tr_\\w+\\): nothing was sent`));
    expect(await fundingsOf(r.id)).toBe(1);
    expect((await history()).filter((h) => h.encounter_id === r.id).map((h) => [h.authorization_code, h.outcome])).toEqual([[r.code, 'APPROVED']]);
  });
});

describe('tpa api over HTTP (tpa local serve)', () => {
  let server: Served;
  beforeAll(async () => {
    server = await serve(home.dir, [], env);
    await login(home.dir, server.url);
  });
  afterAll(async () => {
    await server.stop();
  });
  const onServer = (args: string[], more: Record<string, string> = {}) => runTpa([...args, '-p', 'sandbox'], { home: home.dir, env: { ...env, ...more } });

  it('--debug redacts every header named like a credential on the wire line', async () => {
    const secrets = ['h-0cp-4pim', 'h-4ccess', 'h-jwt-v4l', 'h-k3y', 'h-p4ss', 'h-pwd-v4l', 'h-phr4se'];
    const headers = ['Ocp-Apim-Subscription-Key', 'X-Access-Key', 'X-JWT', 'X-Key', 'X-Pass', 'X-Pwd', 'X-Passphrase'].flatMap((h, i) => [
      '-H',
      `${h}: ${secrets[i]}`,
    ]);
    const get = await onServer(['api', 'GET', '/tpa-api/v1/ledger/entries/?limit=1', ...headers, '--debug']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/tpa-api\/v1\/ledger\/entries\/\?limit=1 \{/);
    expect(get.stderr).toMatch(/ocp-apim-subscription-key: \[redacted\]/);
    for (const s of secrets) expect(get.stderr, s).not.toContain(s);
  });
});
