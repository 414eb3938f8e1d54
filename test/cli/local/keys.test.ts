// `tpa local keys` and `tpa local clients` (docs/security-access.md "Who may do what"): the operator's
// key has every scope, contract_build included; a narrow key cannot change a rate schedule; the
// listing says which keys are active, rotated or revoked; a revocation asks first and takes effect
// on a running server at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { createKey, serve, type Served } from '../../helpers/server.js';

let home: ReturnType<typeof tempDir>;
let server: Served;

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir);
});
afterAll(async () => {
  await server.stop();
  home.remove();
});

const run = (args: string[], env: Record<string, string> = {}, input?: string) => runTpa(args, { home: home.dir, env, input });
/** A command against the running server with `key`, through a profile of its own. */
const remote = async (key: string, args: string[]) => {
  const profile = `p${Math.random().toString(36).slice(2, 8)}`;
  const login = await run(['auth', 'login', '--env', 'sandbox', '-p', profile, '--base-url', server.url, '--with-key-stdin'], {}, key);
  expect(login.code, login.stderr).toBe(0);
  return run([...args, '-p', profile]);
};
type Listed = { id: string; status: string; scopes: string[]; rotated_from: string | null; lineage: string };
const listed = async () => (await run(['local', 'keys', 'list', '-o', 'json'])).json() as Listed[];

describe('tpa local keys', () => {
  it('create without --scopes gives the operator every scope, contract_build included; with --scopes only those', async () => {
    const all = await run(['local', 'keys', 'create', '-o', 'json']);
    expect(all.json()).toMatchObject({ scopes: ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access', 'contract_build'] });
    const narrow = await run(['local', 'keys', 'create', '--scopes', 'contract_lookup', '-o', 'json']);
    expect(narrow.json()).toMatchObject({ scopes: ['contract_lookup'] });
    const bad = await run(['local', 'keys', 'create', '--scopes', 'contract_admin']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown scope contract_admin: use contract_lookup, claim_pricing, fund_release, ledger_access, contract_build/);
  });

  it('the operator’s key changes a rate schedule over HTTP; a read-only key reads it and is refused the change with exit 5', async () => {
    const operator = await createKey(home.dir);
    const reader = await createKey(home.dir, '--scopes', 'contract_lookup');
    const init = await remote(operator, ['ratesheet', 'init', 'BLD-1002', '-o', 'json']);
    expect(init.code, init.stderr).toBe(0);
    const refused = await remote(reader, ['ratesheet', 'add', 'BLD-1002', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '99999999.99']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/contract_build/);
    const finalize = await remote(reader, ['ratesheet', 'finalize', 'BLD-1002', '--yes']);
    expect(finalize.code).toBe(5);
    const shown = await remote(reader, ['ratesheet', 'show', 'BLD-1002', '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ rate_schedule: { status: expect.not.stringMatching(/FINALIZED/), items: [] } });
  });

  it('revoke asks, or needs --yes; then the whole lineage gets 401 from its next request, and the listing says revoked', async () => {
    const key = await createKey(home.dir, '--scopes', 'ledger_access');
    expect((await remote(key, ['health'])).code).toBe(0);
    // Rotated through the service: the lineage is two keys now.
    const rotation = await fetch(`${server.url}/tpa-api/v1/keys/rotate`, { method: 'POST', headers: { 'x-api-key': key } });
    const rotated = (await rotation.json()) as { key_id: string; api_key: string };
    let keys = await listed();
    const root = keys.find((k) => k.id === keys.find((x) => x.id === rotated.key_id)?.rotated_from)!;
    expect(keys.find((k) => k.id === root.id)).toMatchObject({ status: 'rotated', scopes: ['ledger_access'] });
    expect(keys.find((k) => k.id === rotated.key_id)).toMatchObject({ status: 'active', rotated_from: root.id, lineage: root.id });
    // Not on a terminal and no --yes: nothing is revoked, exit 2.
    const unconfirmed = await run(['local', 'keys', 'revoke', rotated.key_id]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect((await remote(rotated.api_key, ['health'])).code).toBe(0);
    const revoked = await run(['local', 'keys', 'revoke', rotated.key_id, '--yes', '-o', 'json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json()).toEqual({ key_id: rotated.key_id, lineage: root.id, revoked: [root.id, rotated.key_id] });
    // The running server refuses both at once.
    for (const k of [key, rotated.api_key]) {
      const r = await fetch(`${server.url}/tpa-api/v1/health`, { headers: { 'x-api-key': k } });
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ error: 'invalid_api_key', message: 'The API key was revoked' });
    }
    keys = await listed();
    expect(keys.filter((k) => k.lineage === root.id).map((k) => k.status)).toEqual(['revoked', 'revoked']);
    const table = await run(['local', 'keys', 'list']);
    expect(table.stdout).toMatch(/revoked/);
    // Again: nothing more to revoke; an unknown key: exit 3.
    const again = await run(['local', 'keys', 'revoke', root.id, '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/revoked already/);
    expect((await run(['local', 'keys', 'revoke', 'key_00000000000000000000', '--yes'])).code).toBe(3);
  });

  it('GET /v1/keys over HTTP lists only the caller’s own lineage', async () => {
    const mine = await createKey(home.dir, '--scopes', 'ledger_access');
    const r = await remote(mine, ['auth', 'keys', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = (r.json() as { keys: { id: string }[] }).keys.map((k) => k.id);
    expect(ids).toHaveLength(1);
    expect((await listed()).length).toBeGreaterThan(3);
  });
});

describe('tpa local clients', () => {
  it('register needs --scopes naming known scopes; list shows the clients and their scopes', async () => {
    expect((await run(['local', 'clients', 'register', 'acme-tpa'])).code).toBe(2);
    expect((await run(['local', 'clients', 'register', 'acme-tpa', '--scopes', 'root'])).code).toBe(2);
    const ok = await run(['local', 'clients', 'register', 'acme-tpa', '--scopes', 'ledger_access', 'claim_pricing', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ client_id: 'acme-tpa', scopes: ['ledger_access', 'claim_pricing'] });
    const list = await run(['local', 'clients', 'list', '-o', 'json']);
    expect(list.json()).toEqual([
      { client_id: 'acme-tpa', scopes: ['ledger_access', 'claim_pricing'], status: 'active', registered_at: expect.any(String), revoked_at: null },
    ]);
  });
});
