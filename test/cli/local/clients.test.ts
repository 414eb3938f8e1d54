// `tpa local clients revoke` (docs/security-access.md "Who may do what"): as `tpa local keys revoke` does
// for a key, it asks on a terminal and needs --yes without one (exit 2, nothing changed); an
// unknown client is exit 3; the listing says which clients are active or revoked; a revoked client
// is never registered again (exit 4). That a running mutual-TLS server refuses it at once is shown
// over real TLS (test/tls/oauth-revoke.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { ENTER, ptyRun } from '../../helpers/pty.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
type Listed = { client_id: string; scopes: string[]; status: string; registered_at: string; revoked_at: string | null };
const listed = async () => (await run(['local', 'clients', 'list', '-o', 'json'])).json() as Listed[];
const statusOf = async (id: string) => (await listed()).find((c) => c.client_id === id)?.status;

describe('tpa local clients revoke', () => {
  it('needs --yes without a terminal (exit 2, nothing changed); then the client is revoked, listed so, recorded, and never registered again', async () => {
    for (const id of ['acme-tpa', 'reports-only']) {
      const r = await run(['local', 'clients', 'register', id, '--scopes', 'ledger_access']);
      expect(r.code, r.stderr).toBe(0);
    }
    const unconfirmed = await run(['local', 'clients', 'revoke', 'acme-tpa']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect(await statusOf('acme-tpa')).toBe('active');

    const revoked = await run(['local', 'clients', 'revoke', 'acme-tpa', '--yes', '-o', 'json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json()).toEqual({ client_id: 'acme-tpa', revoked: true, revoked_at: expect.any(String), tokens: 0 });
    expect(revoked.stderr).toMatch(/revoked client acme-tpa \(no live token\): from now on it gets no token, and its tokens get 401/);
    expect(await listed()).toEqual([
      { client_id: 'acme-tpa', scopes: ['ledger_access'], status: 'revoked', registered_at: expect.any(String), revoked_at: expect.any(String) },
      { client_id: 'reports-only', scopes: ['ledger_access'], status: 'active', registered_at: expect.any(String), revoked_at: null },
    ]);
    const table = await run(['local', 'clients', 'list', '-o', 'table']);
    expect(table.stdout).toMatch(/acme-tpa .*revoked 20/);
    expect(table.stdout).toMatch(/reports-only .*active/);
    // The audit chain records it, with the profile that did it.
    const audit = await run(['local', 'audit', 'list', '--type', 'CLIENT_REVOKED', '-o', 'json']);
    expect(audit.json()).toEqual([
      expect.objectContaining({ type: 'CLIENT_REVOKED', subject: 'acme-tpa', actor: 'local:local', data: { tokens: 0, reason: 'revoked by the operator' } }),
    ]);

    // Registered again: refused, exit 4, and it stays revoked.
    const again = await run(['local', 'clients', 'register', 'acme-tpa', '--scopes', 'ledger_access']);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/acme-tpa was revoked at .* and is not registered again/);
    expect(again.stderr).toMatch(/new common name/);
    expect(await statusOf('acme-tpa')).toBe('revoked');
    // Revoked again: nothing more, said so; an unknown client: exit 3.
    const twice = await run(['local', 'clients', 'revoke', 'acme-tpa']);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toMatch(/nothing to revoke: client acme-tpa was revoked already/);
    const unknown = await run(['local', 'clients', 'revoke', 'nobody-tpa', '--yes']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no client nobody-tpa in this engine: tpa local clients list shows them/);
    expect((await run(['local', 'audit', 'list', '--type', 'CLIENT_REVOKED', '-o', 'json'])).json()).toHaveLength(1);
  });

  it('on a terminal it asks: no leaves the client active, yes revokes it', async () => {
    expect((await run(['local', 'clients', 'register', 'acme-tpa', '--scopes', 'ledger_access', 'fund_release'])).code).toBe(0);
    const question = 'Revoke client acme-tpa (ledger_access, fund_release)?';
    const declined = await ptyRun(['local', 'clients', 'revoke', 'acme-tpa'], [{ expect: question, send: `n${ENTER}` }], { home: home.dir });
    expect(declined.error, declined.output).toBeNull();
    expect(declined.exit_code).toBe(2);
    expect(declined.output).toMatch(/not confirmed: nothing was done/);
    expect(await statusOf('acme-tpa')).toBe('active');
    const confirmed = await ptyRun(['local', 'clients', 'revoke', 'acme-tpa'], [{ expect: question, send: `y${ENTER}` }], { home: home.dir });
    expect(confirmed.error, confirmed.output).toBeNull();
    expect(confirmed.exit_code).toBe(0);
    expect(confirmed.output).toMatch(/revoked client acme-tpa/);
    expect(await statusOf('acme-tpa')).toBe('revoked');
  });
});
