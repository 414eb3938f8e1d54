// tpa local restore accepts only the credentials the backup's own audit chain made
// (docs/local-data.md "Backups"): a key or client planted in a backup with sqlite3 is refused, naming
// it, and nothing is replaced; keys created, rotated and revoked by tpa restore.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { databaseContent } from '../../helpers/engine.js';
import { serve } from '../../helpers/server.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };
const ALL = JSON.stringify(['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access', 'contract_build']);

describe('a restore accepts only the credentials its backup audit chain made', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  /** A backup, a copy of it changed by `edit` as sqlite3 would, and the refusal of the copy. */
  async function refused(edit: (db: Database.Database) => void): Promise<string> {
    expect((await home.run(['local', 'keys', 'create', '--scopes', 'ledger_access'])).code).toBe(0);
    expect((await home.run(['local', 'clients', 'register', 'acme-h3', '--scopes', 'ledger_access'])).code).toBe(0);
    const good = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', good])).code).toBe(0);
    const bad = join(out.dir, 'bad.sqlite');
    copyFileSync(good, bad);
    const db = new Database(bad);
    edit(db);
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', bad, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(databaseContent(live)).toBe(before);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(`${bad} holds a credential its own audit chain did not make`);
    expect(message).toContain('nothing was changed');
    return message;
  }

  it('a full-scope API key inserted into a backup: exit 2 naming the key, nothing replaced', async () => {
    const message = await refused((db) =>
      db
        .prepare('INSERT INTO api_keys (id, lineage, key_hash, environment, prefix, last4, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(
          'key_planted',
          'key_planted',
          createHash('sha256').update('tpa_test_planted').digest('hex'),
          'sandbox',
          'tpa_test_',
          'nted',
          ALL,
          '2026-12-05T10:00:00Z',
        ),
    );
    expect(message).toContain('API key key_planted: its audit chain has no KEY_CREATED record of it');
  });

  it("a recorded key's scopes widened: refused naming the key", async () => {
    const message = await refused((db) => db.prepare('UPDATE api_keys SET scopes = ?').run(ALL));
    expect(message).toMatch(/API key key_\w+: scopes are .*its KEY_CREATED record says \["ledger_access"\]/);
  });

  it('an OAuth client inserted into a backup: refused naming it', async () => {
    const planted = await refused((db) =>
      db.prepare('INSERT INTO oauth_clients (client_id, scopes, registered_at) VALUES (?, ?, ?)').run('evil', ALL, '2026-12-05T10:00:00Z'),
    );
    expect(planted).toContain('OAuth client "evil": its audit chain has no CLIENT_REGISTERED record of it');
  });

  it('a backup with keys created, rotated and revoked by tpa restores, and the rotated and revoked ones stay so', async () => {
    const first = (await home.run(['local', 'keys', 'create'])).stdout.trim();
    const revoked = (await home.run(['local', 'keys', 'create'])).stdout.trim();
    expect((await home.run(['local', 'clients', 'register', 'acme-h3', '--scopes', 'ledger_access'])).code).toBe(0);
    const server = await serve(home.dir, [], CLOCK);
    let rotated: { key_id: string; api_key: string };
    try {
      const rotation = await fetch(`${server.url}/tpa-api/v1/keys/rotate`, { method: 'POST', headers: { 'x-api-key': first } });
      expect(rotation.status).toBe(200);
      rotated = (await rotation.json()) as { key_id: string; api_key: string };
    } finally {
      await server.stop();
    }
    const keys = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<{ id: string; last4: string }[]>();
    const revokedId = keys.find((k) => k.last4 === revoked.slice(-4))!.id;
    expect((await home.run(['local', 'keys', 'revoke', revokedId, '--yes'])).code).toBe(0);
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const r = await home.run(['local', 'restore', backup, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const listed = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<{ id: string; status: string }[]>();
    expect(listed.find((k) => k.id === revokedId)?.status).toBe('revoked');
    expect(listed.find((k) => k.id === rotated.key_id)?.status).toBe('active');
    expect(listed.filter((k) => k.status === 'rotated')).toHaveLength(1);
  });

  it('a key rotated out after the backup expires in the restored database when it did in the live one, recorded; the summary counts it', async () => {
    const old = (await home.run(['local', 'keys', 'create'])).stdout.trim();
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    const server = await serve(home.dir, [], CLOCK);
    try {
      expect((await fetch(`${server.url}/tpa-api/v1/keys/rotate`, { method: 'POST', headers: { 'x-api-key': old } })).status).toBe(200);
    } finally {
      await server.stop();
    }
    type Listed = { id: string; status: string; expires_at: string | null };
    const before = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<Listed[]>();
    const rotatedOut = before.find((k) => k.status === 'rotated')!;
    expect(rotatedOut.expires_at).not.toBe(null);

    const r = await home.run(['local', 'restore', backup, '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ kept_expiring: unknown }>().kept_expiring).toEqual({ keys: 1 });
    expect(r.stderr).toContain('1 key rotated out since kept expiring');
    const after = (await home.run(['local', 'keys', 'list', '-o', 'json'])).json<Listed[]>();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: rotatedOut.id, status: 'rotated', expires_at: rotatedOut.expires_at });
    expect((await home.run(['local', 'audit', 'verify', '--deep'])).code).toBe(0);
    const again = join(out.dir, 'again.sqlite');
    expect((await home.run(['local', 'backup', again])).code).toBe(0);
    expect((await home.run(['local', 'restore', again, '--yes'])).code).toBe(0);
  });
});
