import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
// Each test its own home: none relies on what another left in the config file.

describe('tpa config', () => {
  it('sets, gets and lists settings in a 0600 config file', async () => {
    expect((await run(['config', 'set', 'profiles.stg.base_url', 'https://stg.tpa.example/'])).code).toBe(0);
    expect((await run(['config', 'set', 'profiles.stg.env', 'staging'])).code).toBe(0);
    expect((await run(['config', 'set', 'profiles.stg.legacy_tls', 'true'])).code).toBe(0);
    expect((await run(['config', 'get', 'profiles.stg.base_url', '-o', 'table'])).stdout.trim()).toBe('https://stg.tpa.example');
    const list = await run(['config', 'list', '-o', 'table']);
    expect(list.stdout).toContain('profiles.stg.env=staging');
    expect(list.stdout).toContain('profiles.stg.legacy_tls=true');
    expect(statSync(join(home.dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('stores a certificate, key or CA path given relative as the absolute path from the folder it was set in', async () => {
    for (const field of ['ca', 'cert', 'key']) {
      const set = await run(['config', 'set', `profiles.stg.${field}`, `tls/${field}.pem`, '-o', 'json']);
      expect(set.code, set.stderr).toBe(0);
      expect(set.json<{ value: string }>().value).toBe(join(home.dir, `tls/${field}.pem`));
      expect((await run(['config', 'get', `profiles.stg.${field}`, '-o', 'table'])).stdout.trim()).toBe(join(home.dir, `tls/${field}.pem`));
    }
  });

  it('refuses unknown settings, bad values, and any attempt to keep a key in the config', async () => {
    expect((await run(['config', 'set', 'colour', 'blue'])).code).toBe(2);
    expect((await run(['config', 'set', 'profiles.stg.env', 'prod'])).code).toBe(2);
    expect((await run(['config', 'set', 'profiles.stg.base_url', 'ftp://x'])).code).toBe(2);
    expect((await run(['config', 'set', 'profiles.stg.api_key', 'sk_sand_x'])).code).toBe(2);
    expect((await run(['config', 'get', 'profiles.nope.env'])).code).toBe(3);
  });

  it('refuses a plain-http URL to another host in a profile, as a request would: exit 2, nothing saved', async () => {
    for (const [setting, value] of [
      ['profiles.t2.base_url', 'http://127.evil.example:59999'],
      ['profiles.t2.auth_url', 'http://localhost.evil/oauth2'],
    ] as const) {
      const refused = await run(['config', 'set', setting, value]);
      expect(refused.code, value).toBe(2);
      expect(refused.stderr).toMatch(/credentials are sent only over https:\/\/ \(plain http only to this machine/);
      expect((await run(['config', 'get', setting])).code).toBe(3);
    }
    expect((await run(['config', 'set', 'profiles.t2.base_url', 'http://127.0.0.1:4010'])).code).toBe(0);
  });

  it('a base URL is scheme://host[:port][/path]: a query, a fragment, a user name, a dot segment, an escape or a path parameter is refused at config set and at auth login, exit 2, nothing saved', async () => {
    const REFUSED: [string, RegExp][] = [
      ['http://127.0.0.1:4311/tpa-api/v1/funding/approve/?', /it holds a query \(\\"\?\\"\)/],
      ['http://127.0.0.1:4311?x=1', /it holds a query/],
      ['http://127.0.0.1:4311/tpa-api/v1/funding/approve/#', /it holds a fragment/],
      ['https://tpa.example/#top', /it holds a fragment/],
      ['https://user:secret@tpa.example', /it holds a user name or password/],
      ['http://x@127.0.0.1:4311', /it holds a user name or password/],
      ['http://127.0.0.1:4311/tpa-api/v1/funding/approve/..', /its path holds the segment \\"\.\.\\"/],
      ['http://127.0.0.1:4311/a/./b', /its path holds the segment \\"\.\\"/],
      ['http://127.0.0.1:4311/a/%2e%2e', /its path holds the segment \\"%2e%2e\\"/],
      ['http://127.0.0.1:4311/funding;x', /its path holds the segment/],
      ['http://127.0.0.1:4311/a//b', /its path holds the segment \\"\\"/],
      ['http://127.0.0.1:4311\\tpa', /a backslash/],
      ['http://127.0.0.1:4311/appr\tove', /a control character/],
      ['http:///127.0.0.1:4311', /it names no host/],
      ['ftp://x', /does not start with http:\/\/ or https:\/\//],
    ];
    for (const [url, reason] of REFUSED) {
      for (const setting of ['profiles.t3.base_url', 'profiles.t3.auth_url']) {
        const r = await run(['config', 'set', setting, url]);
        expect(r.code, `${setting} ${url}`).toBe(2);
        expect(r.stderr, url).toMatch(/is not a base URL tpa accepts/);
        expect(r.stderr, url).toMatch(reason);
        expect(r.stderr, url).not.toContain('secret');
      }
      // auth login refuses it before asking for a key: nothing is read, sent or saved.
      const login = await run(['auth', 'login', '--env', 'sandbox', '-p', 't3', '--base-url', url, '--with-key-stdin'], {}, 'sk_sand_x');
      expect(login.code, url).toBe(2);
      expect(login.stderr, url).toMatch(reason);
    }
    const prod = await run([
      'auth',
      'login',
      '--env',
      'production',
      '-p',
      't3',
      '--base-url',
      'https://tpa.example/?',
      '--client-id',
      'c',
      '--cert',
      'c.pem',
      '--key',
      'k.pem',
    ]);
    expect(prod.code).toBe(2);
    expect(prod.stderr).toMatch(/it holds a query/);
    const prodAuth = await run([
      'auth',
      'login',
      '--env',
      'production',
      '-p',
      't3',
      '--base-url',
      'https://tpa.example',
      '--auth-url',
      'https://tpa.example/oauth#',
      '--client-id',
      'c',
      '--cert',
      'c.pem',
      '--key',
      'k.pem',
    ]);
    expect(prodAuth.code).toBe(2);
    expect(prodAuth.stderr).toMatch(/it holds a fragment/);
    expect(existsSync(join(home.dir, 'config.json'))).toBe(false);
    // A plain path is a prefix, with trailing slashes dropped.
    for (const [url, saved] of [
      ['https://gw.example/tpa/v2/', 'https://gw.example/tpa/v2'],
      ['http://[::1]:4010/a-b.c_d~e', 'http://[::1]:4010/a-b.c_d~e'],
      ['https://tpa.example:8443', 'https://tpa.example:8443'],
    ]) {
      expect((await run(['config', 'set', 'profiles.t4.base_url', url!])).code, url).toBe(0);
      expect((await run(['config', 'get', 'profiles.t4.base_url', '-o', 'table'])).stdout.trim()).toBe(saved);
    }
  });

  it('default_profile picks the profile when neither --profile nor TPA_PROFILE does', async () => {
    expect((await run(['config', 'set', 'profiles.stg.base_url', 'https://stg.tpa.example/'])).code).toBe(0);
    expect((await run(['config', 'set', 'profiles.stg.env', 'staging'])).code).toBe(0);
    await run(['config', 'set', 'default_profile', 'stg']);
    const status = await run(['auth', 'status']);
    expect(status.code).toBe(5);
    expect(status.stderr).toMatch(/not logged in to profile \\"stg\\"|not logged in to profile "stg"/);
    expect((await run(['auth', 'status', '-p', 'local'])).code).toBe(0);
    expect((await run(['auth', 'status'], { TPA_PROFILE: 'local' })).code).toBe(0);
    await run(['config', 'set', 'default_profile', 'local']);
    expect((await run(['auth', 'status'])).code).toBe(0);
  });
});

describe('names every object has', () => {
  const RESERVED = /"(__proto__|constructor)\\?" cannot be (a profile name|part of a setting name): the name is reserved/;

  it('config set with __proto__ or constructor in the setting name exits 2 with the reason and saves nothing', async () => {
    for (const [key, value] of [
      ['__proto__', 'x'],
      ['constructor.y', 'x'],
      ['profiles.__proto__.env', 'sandbox'],
      ['profiles.constructor.base_url', 'https://x.example'],
      ['profiles.stg.constructor', 'x'],
      ['profiles.stg.__proto__', 'x'],
      ['default_profile', '__proto__'],
      ['default_profile', 'constructor'],
    ]) {
      const r = await run(['config', 'set', key!, value!]);
      expect(r.code, `${key} ${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(RESERVED);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(existsSync(join(home.dir, 'config.json'))).toBe(false);
    }
  });

  it('config get of a reserved name finds no setting', async () => {
    expect((await run(['config', 'set', 'profiles.stg.env', 'staging'])).code).toBe(0);
    for (const key of ['__proto__', 'constructor', 'toString', 'profiles.stg.constructor']) {
      const r = await run(['config', 'get', key]);
      expect(r.code, key).toBe(3);
      expect(r.stderr).toContain(`no setting ${key}`);
    }
  });

  it('-p __proto__ and -p constructor exit 2 with the reason, whatever the command', async () => {
    for (const name of ['__proto__', 'constructor']) {
      for (const args of [
        ['ledger', 'list'],
        ['auth', 'status'],
        ['auth', 'login', '--env', 'sandbox', '--base-url', 'http://127.0.0.1:9', '--with-key-stdin'],
      ]) {
        const r = await run(['-p', name, ...args]);
        expect(r.code, `${name} ${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`--profile: "${name}" cannot be a profile name: the name is reserved`);
      }
    }
    expect(existsSync(join(home.dir, 'config.json'))).toBe(false);
  });
});
