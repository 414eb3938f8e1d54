// Where no keychain answers: the fallback file, TPA_KEYRING=required, and the 3-second limit.
import { statSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { tpa } from '../helpers/cli.js';
import { createKey, serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served;
let silent: Server;
let silentPath: string;
let connections = 0;
// No D-Bus session at all: the Secret Service cannot be reached.
const NO_DBUS = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/tpa-test-bus' };

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir);
  // A "D-Bus" that accepts connections and never answers: a hung keyring.
  silentPath = join(home.dir, 'silent-bus');
  silent = createServer(() => {
    connections++;
  });
  await new Promise<void>((r) => silent.listen(silentPath, r));
});
afterAll(async () => {
  silent.close();
  await server.stop();
  home.remove();
});

const login = async (dir: string, env: Record<string, string>, name = 'sandbox') =>
  tpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '-p', name], { home: dir, env, input: await createKey(home.dir) });

describe('credentials without a keychain', () => {
  it('auto falls back to a 0600 file and says so once, with the path', async () => {
    const dir = tempDir();
    const first = await login(dir.dir, { TPA_KEYRING: 'auto', ...NO_DBUS });
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir.dir, 'credentials.json');
    expect(first.stderr).toContain(`credentials are kept in ${file} (mode 0600)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.dir, 'config.json')).mode & 0o777).toBe(0o600);
    const again = await tpa(['health', '-p', 'sandbox'], { home: dir.dir, env: { TPA_KEYRING: 'auto', ...NO_DBUS } });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('credentials are kept in');
    const status = await tpa(['auth', 'status', '-p', 'sandbox'], { home: dir.dir, env: { TPA_KEYRING: 'auto', ...NO_DBUS } });
    expect(status.json()).toMatchObject({ credential: { stored_in: file } });
    dir.remove();
  });

  it('required fails with exit 5 and a hint, and saves nothing', async () => {
    const dir = tempDir();
    const r = await login(dir.dir, { TPA_KEYRING: 'required', ...NO_DBUS });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/TPA_KEYRING=required, but no keychain answered/);
    expect(() => readFileSync(join(dir.dir, 'credentials.json'))).toThrow();
    dir.remove();
  });

  it('a keychain that does not answer within 3 seconds counts as unavailable', async () => {
    const dir = tempDir();
    const hung = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${silentPath}` };
    const asked = connections;
    const started = Date.now();
    const r = await login(dir.dir, { TPA_KEYRING: 'required', ...hung });
    const elapsed = Date.now() - started;
    // It gave up by itself (a hang would be killed by the helper, with no exit code), after asking
    // the hung keychain and waiting its 3 s for it: a lower bound only, which no slowness can break.
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/did not answer a read within 3 s/);
    expect(connections).toBeGreaterThan(asked);
    expect(elapsed).toBeGreaterThanOrEqual(2900);
    const auto = await login(dir.dir, { TPA_KEYRING: 'auto', ...hung });
    expect(auto.code).toBe(0);
    expect(auto.stderr).toMatch(/credentials are kept in/);
    dir.remove();
  });

  it('off uses the file; TPA_API_KEY overrides every store, and auth login refuses while it is set', async () => {
    const dir = tempDir();
    expect((await login(dir.dir, { TPA_KEYRING: 'off' })).code).toBe(0);
    const refused = await login(dir.dir, { TPA_KEYRING: 'off', TPA_API_KEY: await createKey(home.dir) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/TPA_API_KEY is set/);
    const narrow = await createKey(home.dir, '--scopes', 'contract_lookup');
    const overridden = await tpa(['auth', 'status', '-p', 'sandbox'], { home: dir.dir, env: { TPA_API_KEY: narrow } });
    expect(overridden.json()).toMatchObject({ credential: { stored_in: 'TPA_API_KEY (environment)' }, scopes: ['contract_lookup'] });
    expect((await tpa(['auth', 'logout', '-p', 'sandbox'], { home: dir.dir })).code).toBe(0);
    expect((await tpa(['auth', 'status', '-p', 'sandbox'], { home: dir.dir })).code).toBe(5);
    expect((await tpa(['auth', 'status', '-p', 'sandbox'], { home: dir.dir, env: { TPA_KEYRING: 'sometimes' } })).code).toBe(2);
    dir.remove();
  });
});
