// Small things a user trips on, each through the real CLI.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);

describe('tpa local keys create', () => {
  it('piped with no format asked for prints the bare key (for auth login --with-key-stdin); -o json an object', async () => {
    const bare = await runTpa(['local', 'keys', 'create'], { home: home.dir });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^sk_sand_[A-Za-z0-9]+\n$/);
    const json = await runTpa(['local', 'keys', 'create', '--scopes', 'ledger_access', '-o', 'json'], { home: home.dir });
    expect(json.code, json.stderr).toBe(0);
    const body = json.json<{ key_id: string; api_key: string; scopes: string[]; environment: string }>();
    expect(body).toEqual({
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^sk_sand_/),
      scopes: ['ledger_access'],
      environment: 'sandbox',
    });
    const viaEnv = await runTpa(['local', 'keys', 'create', '--env', 'staging'], { home: home.dir, env: { TPA_OUTPUT: 'json' } });
    expect(viaEnv.json()).toMatchObject({ environment: 'staging', api_key: expect.stringMatching(/^sk_/) });
    const ndjson = await runTpa(['local', 'keys', 'create', '-o', 'ndjson'], { home: home.dir });
    expect(JSON.parse(ndjson.stdout.trim())).toMatchObject({ key_id: expect.stringMatching(/^key_/) });
  });

  it('an empty --scopes (an empty variable) is refused, never the key of every scope (found by an adversarial probe)', async () => {
    for (const empty of ['', ',', ' ']) {
      const r = await runTpa(['local', 'keys', 'create', '--scopes', empty, '-o', 'json'], { home: home.dir });
      expect(r.code, JSON.stringify(empty)).toBe(2);
      expect(r.stderr).toMatch(/--scopes names no scope/);
      expect(r.stdout).not.toMatch(/sk_sand_/);
    }
  });
});

describe('auth login, status and logout without -p', () => {
  it('a login changes the default only with --set-default, and says which is the default; status shows every profile with a credential; logout takes the only one, or asks for -p among several', async () => {
    const { serve } = await import('../helpers/server.js');
    const server = await serve(home.dir);
    const run = (args: string[], input?: string) => runTpa(args, { home: home.dir, input });
    try {
      const sandboxKey = (await run(['local', 'keys', 'create'])).stdout.trim();
      const unasked = await run(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], sandboxKey);
      expect(unasked.code, unasked.stderr).toBe(0);
      expect(unasked.stderr.replace(/\s+/g, ' ')).toContain(
        'the default profile is still "local": use this one with -p sandbox, or make it the default: tpa config set default_profile sandbox',
      );
      expect((await run(['config', 'get', 'default_profile', '-o', 'json'])).code).not.toBe(0);
      const first = await run(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '--set-default'], sandboxKey);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/"sandbox" is now the default profile/);
      expect((await run(['config', 'get', 'default_profile', '-o', 'json'])).json()).toMatchObject({ value: 'sandbox' });

      const status = await run(['auth', 'status', '-o', 'json']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.json<unknown[]>()).toEqual([
        expect.objectContaining({ profile: 'sandbox', environment: 'sandbox', key_id: expect.stringMatching(/^key_/) }),
      ]);

      const stagingKey = (await run(['local', 'keys', 'create', '--env', 'staging'])).stdout.trim();
      const second = await run(['auth', 'login', '--env', 'staging', '--base-url', server.url, '--with-key-stdin'], stagingKey);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/the default profile is still "sandbox": use this one with -p staging/);
      expect((await run(['config', 'get', 'default_profile', '-o', 'json'])).json()).toMatchObject({ value: 'sandbox' });
      const both = await run(['auth', 'status', '-o', 'json']);
      expect(both.json<{ profile: string }[]>().map((p) => p.profile)).toEqual(['sandbox', 'staging']);
      const table = await run(['auth', 'status', '-o', 'table']);
      expect(table.stdout).toMatch(/Profile\s+sandbox[\s\S]*Profile\s+staging/);

      const ambiguous = await run(['auth', 'logout']);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toMatch(/several profiles have a saved credential \(sandbox, staging\): name one with -p/);
      expect((await run(['auth', 'logout', '-p', 'staging'])).code).toBe(0);
      const only = await run(['auth', 'logout', '-o', 'json']);
      expect(only.code, only.stderr).toBe(0);
      expect(only.json()).toMatchObject({ profile: 'sandbox', removed_from: [expect.any(String)] });
      const none = await run(['auth', 'logout']);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/nothing to log out of/);
    } finally {
      await server.stop();
    }
  });
});

describe('the repository', () => {
  it("ignores scratch claims at its root, never the project's own JSON files", () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const ignored = (path: string) => {
      try {
        execFileSync('git', ['check-ignore', '-q', path], { cwd: root });
        return true;
      } catch {
        return false;
      }
    };
    expect(ignored('c.json')).toBe(true);
    expect(ignored('claims.ndjson')).toBe(true);
    expect(ignored('package.json')).toBe(false);
    expect(ignored('tsconfig.json')).toBe(false);
    expect(ignored('test/unit/fhir-claim.golden.json')).toBe(false);
  });
});
