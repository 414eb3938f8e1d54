// Runs inside a D-Bus session with an unlocked Secret Service (scripts/test.mjs): the key goes to
// the real keyring, and to no file under the test's home.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { tpa } from '../helpers/cli.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served;
// Each test logs in to a profile of its own, so that none needs another to have run first.
const profiles: string[] = [];
const newProfile = () => {
  const name = `kc-${process.pid}-${profiles.length}`;
  profiles.push(name);
  return name;
};
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  tpa(args, { home: home.dir, input, env: { TPA_KEYRING: 'required', ...env } });
const lookup = (account: string) => spawnSync('secret-tool', ['lookup', 'service', 'tpa', 'username', account], { encoding: 'utf8' });

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir);
});
afterAll(async () => {
  for (const p of profiles) await run(['auth', 'logout', '-p', p]);
  await server.stop();
  home.remove();
});

/** A profile logged in with a new key kept in the keyring; returns its name and the key. */
async function loggedIn(): Promise<{ profile: string; key: string }> {
  const profile = newProfile();
  const key = await createKey(home.dir);
  const login = await run(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '-p', profile], {}, key);
  expect(login.code, login.stderr).toBe(0);
  expect(login.stderr).toMatch(/Secret Service/);
  return { profile, key };
}

describe('API keys in the Secret Service', () => {
  it('runs in a D-Bus session with a Secret Service', () => {
    expect(process.env.DBUS_SESSION_BUS_ADDRESS).toBeTruthy();
    // secret-tool answers a search (no match: exit 1, not an error about the service).
    const search = spawnSync('secret-tool', ['search', 'service', 'tpa-none'], { encoding: 'utf8' });
    expect(search.stderr).not.toMatch(/Cannot autolaunch|not provided by any .service files|Error/);
  });

  it('auth login saves the key in the keyring and in no file; status says where; commands use it', async () => {
    const { profile, key } = await loggedIn();
    expect(lookup(profile).stdout).toBe(key);
    for (const file of filesUnder(home.dir)) expect(readFileSync(file).includes(key), file).toBe(false);
    const status = await run(['auth', 'status', '-p', profile]);
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      credential: { stored_in: expect.stringMatching(/Secret Service/), key: `sk_sand_…${key.slice(-4)}` },
      scopes: expect.arrayContaining(['ledger_access']),
    });
    expect(status.stdout).not.toContain(key);
    const health = await run(['health', '-p', profile]);
    expect(health.code).toBe(0);
  });

  it('auth rotate replaces the key in the keyring', async () => {
    const { profile, key } = await loggedIn();
    const before = lookup(profile).stdout;
    expect(before).toBe(key);
    const r = await run(['auth', 'rotate', '-p', profile]);
    expect(r.code, r.stderr).toBe(0);
    const after = lookup(profile).stdout;
    expect(after).toMatch(/^sk_sand_/);
    expect(after).not.toBe(before);
    expect(r.stdout).not.toContain(after);
    expect((await run(['health', '-p', profile])).code).toBe(0);
  });

  it('auth logout removes the key from the keyring; status then exits 5', async () => {
    const { profile } = await loggedIn();
    expect(lookup(profile).status).toBe(0);
    const r = await run(['auth', 'logout', '-p', profile]);
    expect(r.code).toBe(0);
    expect(lookup(profile).status).not.toBe(0);
    expect((await run(['auth', 'status', '-p', profile])).code).toBe(5);
  });
});

describe('the local database key in the Secret Service', () => {
  it('local init --encrypt keeps a new key in the keyring and in no file; later commands, local serve and the journals (sealed) open with it', async () => {
    const data = tempDir();
    const account = `database-key:${data.dir}`;
    const env = { TPA_KEYRING: 'required' };
    try {
      const init = await tpa(['local', 'init', '--encrypt'], { home: data.dir, env });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toMatch(/encrypted \(AES-256\); its key is in Secret Service/);
      const stored = lookup(account).stdout;
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      for (const file of filesUnder(data.dir)) {
        const bytes = readFileSync(file);
        expect(bytes.includes(stored) || bytes.includes(Buffer.from(stored, 'hex')), file).toBe(false);
      }
      const fixtures = await tpa(['local', 'fixtures', '-o', 'json'], { home: data.dir, env });
      expect(fixtures.code, fixtures.stderr).toBe(0);
      expect(fixtures.stdout).toContain('Jane Doe');
      expect(readFileSync(join(data.dir, 'local.sqlite')).includes(Buffer.from('Jane Doe'))).toBe(false);
      const apiKey = (await tpa(['local', 'keys', 'create'], { home: data.dir, env })).stdout.trim();
      const server = await serve(data.dir, [], env);
      try {
        const res = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'X-API-Key': apiKey } });
        expect(res.status).toBe(200);
      } finally {
        await server.stop();
      }
      // The journals are sealed with a key derived from the keyring's: a claim kept for --failed-to
      // (invalid) is in no file in plain text, and tpa reads it back with the keyring's key.
      writeFileSync(
        join(data.dir, 'bad.ndjson'),
        `${JSON.stringify({ resourceType: 'Claim', patient: { reference: 'Patient/MBR-1001', display: 'Jane Doe' } })}\n`,
      );
      const batch = await tpa(['claim', 'submit', join(data.dir, 'bad.ndjson'), '--journal', join(data.dir, 'journals', 'bad.ndjson'), '-o', 'ndjson'], {
        home: data.dir,
        env,
      });
      expect(batch.stdout).toContain('"status":"INVALID"');
      expect(readFileSync(join(data.dir, 'journals', 'bad.ndjson')).includes(Buffer.from('Jane Doe'))).toBe(false);
      const shown = await tpa(['jobs', 'show', 'bad', '-o', 'json'], { home: data.dir, env });
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ invalid: 1, problem: null });
    } finally {
      spawnSync('secret-tool', ['clear', 'service', 'tpa', 'username', account]);
      data.remove();
    }
  });
});
