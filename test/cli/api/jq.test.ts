// `tpa api --jq` and `--template`, as gh's api takes them: the expression applies to the answer's
// body, or with --paginate to each page's rows as the page arrives; strings print raw, several
// results a line each; the exit code still follows the status. The expression is compiled before
// anything is asked or sent, so that a mistake on a fund release route sends nothing; and a filter
// that fails on an answer never loses it. In-process and over `tpa local serve`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { CTRL_C, ptyRun } from '../../helpers/pty.js';
import { login, serve, type Served } from '../../helpers/server.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);
const LIST = '/tpa-api/v1/ledger/entries/';
const RELEASE = '/tpa-api/v1/funding/approve/';

let server: Served;
let encounters: { encounter_id: string; encounter_number: string; amount: string }[];
let next = 0;
/** The ENC numbers of the ledger's 12 entries, sorted. */
let numbers: string[];
/** A fund release body for an encounter not funded yet. */
const release = () => {
  const e = encounters[next++]!;
  return { id: e.encounter_id, body: JSON.stringify({ encounter_id: e.encounter_id, amount: Number(e.amount), authorization_code: `AUTH-JQ-${next}` }) };
};
const fundings = async (id: string) => {
  const r = await home.run(['ledger', 'show', id, '-o', 'json', '-p', 'local']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ entries: { type: string }[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED').length;
};
const history = async () => ndjson((await home.run(['fund', 'history', '-o', 'ndjson'])).stdout);
/** The lines of the server's access log written since `from` (a length of it), once it holds every answer. */
const served = async (from: number) => {
  await server.settled();
  return server
    .stderr()
    .slice(from)
    .split('\n')
    .filter((l) => /\b(GET|POST|HEAD) \//.test(l));
};

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 12 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const submitted = await home.run(['claim', 'submit', file, '-o', 'ndjson']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const review = await home.run(['fund', 'run', '--dry-run', '-o', 'json']);
  expect(review.code, review.stderr).toBe(0);
  encounters = review.json<{ encounters: typeof encounters }>().encounters;
  // Two releases a profile in the tests below, and one on a terminal.
  expect(encounters.length).toBeGreaterThanOrEqual(5);
  const all = await home.run(['ledger', 'list', '--all', '--jq', '.[] | .encounter_number', '-p', 'local']);
  numbers = all.stdout.trim().split('\n').sort();
  expect(numbers).toHaveLength(12);
  server = await serve(home.dir, [], env);
  // `sandbox`, the served engine, is the default profile from here on; `-p local` is in-process.
  await login(home.dir, server.url);
});

afterAll(async () => {
  await server?.stop();
});

describe.each([
  ['in-process', 'local'],
  ['over tpa local serve', 'sandbox'],
])('tpa api --jq, %s', (_, profile) => {
  const run = (args: string[]) => home.run(['api', ...args, '-p', profile]);

  it('on a GET: the body filtered, strings raw, several results a line each, anything else compact JSON when piped', async () => {
    const r = await run([`${LIST}?limit=100`, '--jq', '.results[] | .encounter_number']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(numbers);
    const objects = await run([`${LIST}?limit=2`, '--jq', '.results[] | {n: .encounter_number}']);
    expect(objects.stdout).toMatch(/^\{"n":"ENC-2026-\d{6}"\}\n\{"n":"ENC-2026-\d{6}"\}\n$/);
    const count = await run([LIST, '--jq', '.count']);
    expect(count.stdout).toBe('12\n');
  });

  it('on a 404: the error body filtered, and the exit code still the status’s', async () => {
    const r = await run([`${LIST}ENC-2026-999999/`, '--jq', '.error']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('encounter_not_found\n');
    expect(r.stderr).toContain('HTTP 404');
  });

  it('--template formats the body as gh’s api does', async () => {
    const r = await run([`${LIST}?limit=100`, '--template', '{{.count}} entries:{{range .results}} {{.encounter_number}}{{end}}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^12 entries: ENC-/);
    expect(r.stdout.split(': ')[1]!.split(' ').sort()).toEqual(numbers);
  });

  it('with --paginate, each page’s rows as the page arrives: an aggregate is per page, a list with no rows one empty page', async () => {
    const lengths = await run([LIST, '-F', 'limit=5', '--paginate', '--jq', 'length']);
    expect(lengths.code, lengths.stderr).toBe(0);
    expect(lengths.stdout).toBe('5\n5\n2\n');
    const each = await run([LIST, '-F', 'limit=5', '--paginate', '--jq', '.[] | .encounter_number']);
    expect(each.stdout.trim().split('\n').sort()).toEqual(numbers);
    const template = await run([LIST, '-F', 'limit=5', '--paginate', '--template', '[{{len .}}]']);
    expect(template.stdout).toBe('[5][5][2]');
    const none = await run([LIST, '-f', 'status=VOIDED', '-F', 'limit=5', '--paginate', '--jq', 'length']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('0\n');
  });

  it('--json <fields> is refused, as gh’s api has no --json, before anything is sent', async () => {
    for (const json of [['--json', 'id'], ['--json']]) {
      const r = await home.run(['api', LIST, ...json, '-p', 'nowhere']);
      expect(r.code, json.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      const { message, hint } = JSON.parse(r.stderr).error;
      expect(message).toBe('tpa api prints the answer as the service gave it, whose fields tpa does not declare: --json cannot select them');
      expect(hint).toContain('--jq');
      expect(message).not.toContain('nowhere');
    }
  });

  it('a bad expression on the fund release route: exit 2, no confirmation asked, nothing sent, nothing in fund history', async () => {
    const from = server.stderr().length;
    const before = (await history()).length;
    for (const yes of [[], ['--yes']]) {
      const { id, body } = release();
      const r = await run(['POST', RELEASE, '-d', body, '--jq', '.[', ...yes]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('syntax error');
      expect(r.stderr).not.toMatch(/confirmation|releases money/);
      expect(await fundings(id)).toBe(0);
    }
    expect(await history()).toHaveLength(before);
    expect((await served(from)).filter((l) => l.includes('/funding/'))).toEqual([]);
  });

  it('a filter that fails on a release’s answer loses no answer: the release sent once, its answer on stderr, exit 2 saying it was sent', async () => {
    const { id, body } = release();
    const r = await run(['POST', RELEASE, '-d', body, '--yes', '--jq', '.[0]']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Cannot index object with number');
    expect(r.stderr).toMatch(/the request was sent \(HTTP 200\): what the filter could not shape is above on stderr, unfiltered/);
    expect(await fundings(id)).toBe(1);
    const recorded = (await history()).filter((h) => h.encounter_id === id);
    expect(recorded.map((h) => h.outcome)).toEqual(['APPROVED']);
    expect(r.stderr).toContain(`"processor_transfer_id": "${recorded[0]!.processor_transfer_id}"`);
    // A duplicate release (under another code: the same one is refused before sending) is the
    // service's 409: the error body filtered, the exit code the status's.
    const other = JSON.stringify({ ...JSON.parse(body), authorization_code: `${JSON.parse(body).authorization_code}-B` });
    const again = await run(['POST', RELEASE, '-d', other, '--yes', '--jq', '.error']);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('duplicate_approval\n');
    expect(await fundings(id)).toBe(1);
  });
});

describe('tpa api --jq over HTTP', () => {
  it('--paginate sends one request a page, whatever the filter', async () => {
    const from = server.stderr().length;
    const r = await home.run(['api', LIST, '-F', 'limit=2', '--paginate', '--jq', '.[0].encounter_number']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(6);
    expect((await served(from)).filter((l) => /GET \/tpa-api\/v1\/ledger\/entries\/ 200/.test(l))).toHaveLength(6);
  });

  it('on a terminal, a valid filter on a fund release asks first; a bad one is refused before the question', async () => {
    const { id, body } = release();
    const question = 'type the amount to release';
    // The key auth login stored, in the file store the in-process runs use.
    const onTerminal = { home: home.dir, env: { ...env, TPA_KEYRING: 'off' } };
    const asked = await ptyRun(['api', 'POST', RELEASE, '-d', body, '--jq', '.status'], [{ expect: question, send: CTRL_C }], onTerminal);
    expect(asked.error, asked.output).toBeNull();
    expect(asked.exit_code).not.toBe(0);
    const bad = await ptyRun(['api', 'POST', RELEASE, '-d', body, '--jq', '.status |'], [], onTerminal);
    expect(bad.error, bad.output).toBeNull();
    expect(bad.exit_code).toBe(2);
    expect(bad.output).toContain('syntax error');
    expect(bad.output).not.toContain(question);
    expect(await fundings(id)).toBe(0);
  });
});
