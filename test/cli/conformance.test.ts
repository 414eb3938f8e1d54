// Contract conformance (docs/api.md) through the CLI: what `tpa` shows of the limit headers,
// the character count of notes, and HEAD, in-process and against `tpa local serve`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa, type RunResult } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { login, serve, type Served } from '../helpers/server.js';

/** An emoji outside the Basic Multilingual Plane: one character, two UTF-16 code units. */
const EMOJI = '\u{1F600}';

let home: ReturnType<typeof tempDir>;
let served: ReturnType<typeof tempDir>;
let server: Served;
const run = (args: string[], env: Record<string, string> = {}) => runTpa(args, { home: home.dir, env });
/** Through the profile logged in to the served engine. */
const remote = (args: string[], env: Record<string, string> = {}) => runTpa(args, { home: served.dir, env: { TPA_PROFILE: 'sandbox', ...env } });

beforeAll(async () => {
  home = tempDir();
  served = tempDir();
  server = await serve(served.dir);
  await login(served.dir, server.url);
});
afterAll(async () => {
  await server.stop();
  home.remove();
  served.remove();
});

/** The status line, headers and body that `tpa api --include` printed. */
function included(r: RunResult): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = r.stdout.split('\n\n');
  const [statusLine, ...lines] = head!.split('\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(statusLine!)?.[1]), headers, body: rest.join('\n\n') };
}

/** An adjudicated encounter, and the benefit to fund. */
const encounter = () => adjudicatedEncounter(run, home.dir);

describe('tpa api shows the limit headers on every answer', () => {
  it('a 404 with the key shows the tier limit, a 401 with an unknown key the limit of the address', async () => {
    const missing = await remote(['api', 'GET', '/tpa-api/v1/nothing/', '--include']);
    expect(missing.code).toBe(3);
    expect(included(missing)).toMatchObject({
      status: 404,
      headers: { 'x-ratelimit-limit': '1000000', 'x-ratelimit-remaining': expect.stringMatching(/^\d+$/), 'x-ratelimit-reset': expect.stringMatching(/^\d+$/) },
    });
    const unknownKey = await remote(['api', 'GET', '/tpa-api/v1/health', '--include'], { TPA_API_KEY: `sk_sand_${'q'.repeat(56)}` });
    expect(unknownKey.code).toBe(5);
    const answer = included(unknownKey);
    expect(answer).toMatchObject({ status: 401, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': expect.stringMatching(/^\d+$/) } });
    expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });
});

describe('notes are limited to 500 characters, counted as characters', () => {
  it('tpa fund approve takes notes of 500 emoji, and refuses 501 before sending, saying 501 characters', async () => {
    const { id, amount } = await encounter();
    const fund = (notes: string) => run(['fund', 'approve', id, '--amount', amount, '--auth-code', 'AUTH-20260302-ACME-0001', '--notes', notes, '--yes']);
    const refused = await fund(EMOJI.repeat(501));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--notes: at most 500 characters \(got 501\)/);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
    const approved = await fund(EMOJI.repeat(500));
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.json()).toMatchObject({ status: 'APPROVED' });
  });

  it('the engine counts characters too: a raw approval with 501 emoji is a 400 saying 501', async () => {
    // The request is checked before the encounter is looked up.
    const body = JSON.stringify({
      encounter_id: 'enc_00000000000000000000',
      amount: 10,
      authorization_code: 'AUTH-20260302-ACME-0002',
      notes: EMOJI.repeat(501),
    });
    const r = await run(['api', 'POST', '/tpa-api/v1/funding/approve/', '--data', body, '--yes']);
    expect(r.code).toBe(2);
    expect(r.json()).toEqual({ errors: [{ field: 'notes', message: 'must be at most 500 characters (got 501)' }] });
  });

  it('rate schedule notes: 500 emoji are taken by ratesheet add and import, 501 refused naming the count', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    const add = (notes: string) => run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '--notes', notes]);
    expect((await add(EMOJI.repeat(500))).code).toBe(0);
    const tooLong = await add(EMOJI.repeat(501));
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toMatch(/notes: must be text of at most 500 characters \(got 501\)/);
    const csv = (notes: string) => {
      const path = join(home.dir, `s-${notes.length}.csv`);
      writeFileSync(path, `ssp_code,rate_type,rate_value,bundle_type,notes\nGI-0101,CASE_RATE,900,,${notes}\n`);
      return path;
    };
    const refused = await run(['ratesheet', 'import', 'BLD-1001', csv(EMOJI.repeat(501))]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 2: notes are longer than 500 characters \(got 501\)/);
    const imported = await run(['ratesheet', 'import', 'BLD-1001', csv(EMOJI.repeat(500))]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json()).toMatchObject({ written: 1, add: 1 });
  });
});

describe('tpa api HEAD', () => {
  it('in-process: the GET status and headers with the GET body length, and no body', async () => {
    const get = included(await run(['api', 'GET', '/tpa-api/v1/health', '--include']));
    const head = await run(['api', 'HEAD', '/tpa-api/v1/health', '--include']);
    expect(head.code).toBe(0);
    const answer = included(head);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(get.headers['content-type']);
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(JSON.parse(get.body)))));
    expect(answer.body).toBe('');
    const lookup = await run(['api', 'HEAD', '/tpa-api/v1/contract-lookup/blind/', '--include']);
    expect(included(lookup)).toMatchObject({ status: 405, headers: { allow: 'POST' }, body: '' });
    // A method the path does not take is the caller's mistake: exit 2, not an internal error.
    expect(lookup.code).toBe(2);
  });

  it('over HTTP: the same, with the limit headers', async () => {
    const get = included(await remote(['api', 'GET', '/tpa-api/v1/health', '--include']));
    const head = await remote(['api', 'HEAD', '/tpa-api/v1/health', '--include']);
    expect(head.code).toBe(0);
    const answer = included(head);
    expect(answer).toMatchObject({ status: 200, body: '', headers: { 'content-length': get.headers['content-length'], 'x-ratelimit-limit': '1000000' } });
    const post = included(await remote(['api', 'POST', '/tpa-api/v1/health', '--include', '--data', '{}']));
    expect(post).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });
});
