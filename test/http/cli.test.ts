// The CLI against a real `tpa local serve`: the same commands give the same output as in-process,
// the key is checked, scopes end in exit 5, and a rate limit is waited out.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa, testEnv, TPA_BIN, type RunResult } from '../helpers/cli.js';
import { createKey, login, serve, type Served } from '../helpers/server.js';
import { cents } from '../helpers/values.js';
import { formatCents } from '../../src/domain/money.js';

const CLOCK = '2026-03-02T10:00:00Z';

/** Ids, keys and times differ between two runs; the rest must be identical. */
function normalize(text: string): string {
  return (
    text
      .replace(/\b(sub|enc|tr|stl|po|led|rs|rsi|crr|key|req|re)_[0-9a-f]{20}\b/g, '$1_<id>')
      .replace(/\b(cr|enc|sub)-[0-9a-f]{20}\b/g, '$1-<id>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g, '<time>')
      // The audit head counts the server's own key record too.
      .replace(/record \d+ [0-9a-f]{64}/g, 'record <head>')
      .replace(/[─┌┐└┘┬┴┼│├┤]+/g, '|')
      // A suggested command names the profile it was given (-p sandbox); the local one has none.
      .replace(/ -p sandbox$/gm, '')
  );
}

interface Side {
  home: ReturnType<typeof tempDir>;
  run(args: string[], input?: string): Promise<RunResult>;
}

let local: Side;
let remote: Side;
let server: Served;

beforeAll(async () => {
  const a = tempDir();
  const b = tempDir();
  // Both engines start from the same stored clock, so dates in the output agree.
  for (const dir of [a.dir, b.dir]) await runTpa(['local', 'clock', 'set', CLOCK], { home: dir });
  // Rate windows on the engine clock, which stays frozen unless a test moves it: a window ends when
  // a test says so, not when a slow machine lets real time run out.
  server = await serve(b.dir, ['--rate-window', '2s', '--rate-clock', 'engine']);
  await login(b.dir, server.url);
  local = { home: a, run: (args, input) => runTpa(args, { home: a.dir, input }) };
  remote = { home: b, run: (args, input) => runTpa(args, { home: b.dir, input, env: { TPA_PROFILE: 'sandbox' } }) };
});
afterAll(async () => {
  await server.stop();
  local.home.remove();
  remote.home.remove();
});

async function both(args: string[], input?: string): Promise<[RunResult, RunResult]> {
  const l = await local.run(args, input);
  const r = await remote.run(args, input);
  return [l, r];
}

async function same(args: string[], input?: string): Promise<RunResult> {
  const [l, r] = await both(args, input);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(l.code);
  expect(normalize(r.stdout), args.join(' ')).toBe(normalize(l.stdout));
  return r;
}

describe('the same commands over HTTP as in-process', () => {
  it('lookups, claims, funding, settlement, ledger and rate schedules print the same', async () => {
    await same(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-o', 'table']);
    await same(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-o', 'table']);
    await same(['lookup', 'rates', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45378', '99213']);
    await same(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '99213']);

    const claim = (await local.run(['claim', 'template', '--type', 'institutional'])).stdout;
    const [la, ra] = await both(['claim', 'submit', '-'], claim);
    expect(normalize(ra.stdout)).toBe(normalize(la.stdout));
    const ids = [la, ra].map((r) => r.json<{ submission_id: string; external_claim_id: string }>());
    await local.run(['local', 'clock', 'advance', '5s']);
    await runTpa(['local', 'clock', 'advance', '5s'], { home: remote.home.dir });
    const polls = await Promise.all([
      local.run(['claim', 'poll', ids[0]!.submission_id, '--raw']),
      remote.run(['claim', 'poll', ids[1]!.submission_id, '--raw']),
    ]);
    expect(polls.map((p) => p.code)).toEqual([0, 0]);
    expect(normalize(polls[1].stdout)).toBe(normalize(polls[0].stdout));

    const fund = (side: Side, id: string) =>
      side.run(['fund', 'approve', id, '--amount', '2460.00', '--auth-code', 'AUTH-20260302-ACME-0001', '--yes', '-o', 'table']);
    const funded = await Promise.all([fund(local, ids[0]!.external_claim_id), fund(remote, ids[1]!.external_claim_id)]);
    expect(funded.map((f) => f.code)).toEqual([0, 0]);
    expect(normalize(funded[1].stdout)).toBe(normalize(funded[0].stdout));
    const again = await Promise.all([fund(local, ids[0]!.external_claim_id), fund(remote, ids[1]!.external_claim_id)]);
    expect(again.map((f) => f.code)).toEqual([4, 4]);

    const show = (side: Side, id: string, ...rest: string[]) => side.run([...rest, id, '-o', 'table']);
    for (const cmd of [
      ['settlement', 'show'],
      ['ledger', 'show'],
    ]) {
      const out = await Promise.all([show(local, ids[0]!.external_claim_id, ...cmd), show(remote, ids[1]!.external_claim_id, ...cmd)]);
      expect(out[1].code, cmd.join(' ')).toBe(0);
      expect(normalize(out[1].stdout)).toBe(normalize(out[0].stdout));
    }
    await same(['ledger', 'list', '--all', '--limit', '1']);
    await same(['ledger', 'list', '--status', 'FUNDED', '-o', 'csv']);

    await same(['ratesheet', 'catalog', '--all', '--page-size', '7', '-o', 'ndjson']);
    await same(['ratesheet', 'init', 'BLD-1001', '-o', 'table']);
    await same(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '-o', 'table']);
    await same(['ratesheet', 'load-catalog', 'BLD-1001', '--version', 'v1.0', '-o', 'table']);
    await same(['ratesheet', 'preview', 'BLD-1001', '-o', 'table']);
    await same(['ratesheet', 'export', 'BLD-1001']);
    await same(['ratesheet', 'finalize', 'BLD-1001', '--yes']);
    await same(['lookup', 'rates', '--npi', '1902847361', '--group', 'GRP-4004', '--cpt', '64721', '66984']);
  });

  it('--debug logs each request and response with the key redacted', async () => {
    const key = (JSON.parse((await import('node:fs')).readFileSync(join(remote.home.dir, 'credentials.json'), 'utf8')) as { secrets: { sandbox: string } })
      .secrets.sandbox;
    const r = await remote.run(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '--debug']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[debug\] POST http:\/\/127\.0\.0\.1:\d+\/tpa-api\/v1\/contract-lookup\/blind\/ \{[^}]*x-api-key: \[redacted\]/);
    expect(r.stderr).toMatch(/\[debug\] ← 200 POST/);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain(key.slice(8));
  });

  it('a key without the scope exits 5 naming the scope', async () => {
    const narrow = await createKey(remote.home.dir, '--scopes', 'contract_lookup');
    const r = await runTpa(['ledger', 'list', '-o', 'table'], { home: remote.home.dir, env: { TPA_PROFILE: 'sandbox', TPA_API_KEY: narrow } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/needs the ledger_access scope/);
  });

  it('health and auth keys show the key by prefix and last four only', async () => {
    const h = await remote.run(['health']);
    expect(h.json()).toMatchObject({
      status: 'ok',
      environment: 'sandbox',
      scopes: ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access', 'contract_build'],
    });
    const keys = await remote.run(['auth', 'keys', '-o', 'table']);
    expect(keys.stdout).toMatch(/sk_sand_…[A-Za-z0-9]{4}/);
  });

  it('auth login refuses a malformed key and one the service does not know, saving nothing', async () => {
    const bad = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '-p', 'other'], {
      home: remote.home.dir,
      input: 'sk_sand_short',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/64 characters/);
    const unknown = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '-p', 'other'], {
      home: remote.home.dir,
      input: `sk_sand_${'a'.repeat(56)}`,
    });
    expect(unknown.code).toBe(5);
    expect((await runTpa(['health', '-p', 'other'], { home: remote.home.dir })).code).toBe(2);
  });

  it('TPA_API_KEY of another environment is refused for a profile (exit 5), as auth login refuses it: no money moves under the wrong name', async () => {
    const staging = await createKey(remote.home.dir, '--env', 'staging');
    const login = await runTpa(['auth', 'login', '--env', 'staging', '--base-url', server.url, '--with-key-stdin', '-p', 'st'], {
      home: remote.home.dir,
      input: staging,
    });
    expect(login.code, login.stderr).toBe(0);
    const sandboxKey = await createKey(remote.home.dir);
    const wrong = await runTpa(['health', '-p', 'st', '-o', 'table'], { home: remote.home.dir, env: { TPA_API_KEY: sandboxKey } });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/TPA_API_KEY is not an API key of profile "st" \(staging\): an API key for staging starts with sk_stage_/);
    expect(wrong.stderr + wrong.stdout).not.toContain(sandboxKey.slice(8));
    const right = await runTpa(['health', '-p', 'st', '-o', 'json'], { home: remote.home.dir, env: { TPA_API_KEY: staging } });
    expect(right.code, right.stderr).toBe(0);
  });

  it('refuses what would leak or break a credential: a malformed TPA_API_KEY, plain http to another host, a fund release by tpa api without --yes', async () => {
    // A well-formed key the service does not know: refused with exit 5, and not echoed back.
    const unknownKey = `sk_sand_${'Z'.repeat(52)}Q7x9`;
    const bad = await runTpa(['health', '-o', 'table'], { home: remote.home.dir, env: { TPA_PROFILE: 'sandbox', TPA_API_KEY: unknownKey } });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toMatch(/invalid or expired/);
    expect(bad.stderr + bad.stdout).not.toContain(unknownKey.slice(8));
    const broken = await runTpa(['health', '-o', 'table'], { home: remote.home.dir, env: { TPA_PROFILE: 'sandbox', TPA_API_KEY: 'mysecret_password_x' } });
    expect(broken.code).toBe(5);
    expect(broken.stderr).toMatch(/TPA_API_KEY is not an API key/);
    expect(broken.stderr).not.toContain('mysecret_password_x');
    const plain = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', 'http://tpa.example', '--with-key-stdin', '-p', 'plain'], {
      home: remote.home.dir,
      input: await createKey(remote.home.dir),
    });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/only over https/);
    const raw = await remote.run([
      'api',
      'POST',
      '/tpa-api/v1/funding/./approve/',
      '-d',
      JSON.stringify({ encounter_id: 'enc_none', amount: 1, authorization_code: 'A' }),
    ]);
    expect(raw.code).toBe(2);
    expect(raw.stderr).toMatch(/--yes/);
    // With a query string it is no fund release tpa sends, --yes or not.
    const query = await remote.run([
      'api',
      'POST',
      '/tpa-api/v1/funding/approve/?x=1',
      '-d',
      JSON.stringify({ encounter_id: 'enc_none', amount: 1, authorization_code: 'A' }),
      '--yes',
    ]);
    expect(query.code).toBe(2);
    expect(query.stderr).toMatch(/carries no query string/);
  });

  it('a config file that is not an object is a clear usage error', async () => {
    const dir = tempDir();
    writeFileSync(join(dir.dir, 'config.json'), 'null');
    const r = await runTpa(['config', 'list', '-o', 'table'], { home: dir.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a JSON object; fix it or remove it/);
    dir.remove();
  });

  it('a connection refused is exit 8 with a hint', async () => {
    const dir = tempDir();
    const key = await createKey(dir.dir);
    const profile = join(dir.dir, 'config.json');
    writeFileSync(profile, JSON.stringify({ profiles: { gone: { env: 'sandbox', base_url: 'http://127.0.0.1:9' } } }));
    const r = await runTpa(['health', '-p', 'gone', '-o', 'table'], { home: dir.dir, env: { TPA_API_KEY: key } });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/connection refused/);
    dir.remove();
  });

  it('waits out a 429 on the 11th approval in the window, saying how long, then succeeds', async () => {
    const claim = (await remote.run(['claim', 'template', '--patient', 'MBR-1003', '--cpt', '43235', '--service-date', '2026-03-02'])).stdout;
    const ack = (await remote.run(['claim', 'submit', '-'], claim)).json<{ submission_id: string; external_claim_id: string }>();
    await runTpa(['local', 'clock', 'advance', '5s'], { home: remote.home.dir });
    const benefit = (await remote.run(['claim', 'poll', ack.submission_id])).json<{ adjudication: { benefit_amount: number } }>().adjudication.benefit_amount;
    expect(benefit).toBeGreaterThan(0);
    // Ten approvals in this window with the profile's key (unknown encounter: refused, but counted).
    const key = (JSON.parse((await import('node:fs')).readFileSync(join(remote.home.dir, 'credentials.json'), 'utf8')) as { secrets: { sandbox: string } })
      .secrets.sandbox;
    for (let i = 0; i < 10; i++) {
      await fetch(`${server.url}/tpa-api/v1/funding/approve/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ encounter_id: 'enc_none', amount: 1, authorization_code: 'A' }),
      });
    }
    // The eleventh, by the CLI, is refused and waits; once it says so, the test ends the window.
    const child = spawn(
      process.execPath,
      [TPA_BIN, 'fund', 'approve', ack.external_claim_id, '--amount', formatCents(cents(benefit)), '--auth-code', 'AUTH-RL-1', '--yes'],
      {
        env: testEnv({ home: remote.home.dir, env: { TPA_PROFILE: 'sandbox' } }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const waiting = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if (/rate limited: waiting \d+\.\ds before trying again/.test(stderr)) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await Promise.race([waiting, exited]);
    expect(stderr).toMatch(/rate limited: waiting \d+\.\ds before trying again/);
    await runTpa(['local', 'clock', 'advance', '1m'], { home: remote.home.dir });
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'APPROVED' });
  });
});
