// docs/local.md "Sharing a sandbox", walked as written on 127.0.0.1: one host serves the sandbox
// over TLS with a private CA, its operator makes a key for each user, a second user (another home)
// logs a profile in with the CA kept in it and reaches the server on every later command; the
// operator backs up while it serves and revokes one user's key.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestCa } from '../helpers/certs.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { type Served, serve } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
let operator: ReturnType<typeof tempDir>;
let user: ReturnType<typeof tempDir>;
let server: Served;
let ca: string;

beforeAll(async () => {
  certs = tempDir();
  operator = tempDir();
  user = tempDir();
  const made = new TestCa(certs.dir);
  const { cert, key } = made.server();
  ca = made.file('ca.pem');
  // The section's --host 0.0.0.0 is 127.0.0.1 here (tests listen on loopback only).
  server = await serve(operator.dir, ['--tls-cert', cert, '--tls-key', key]);
});
afterAll(async () => {
  await server.stop();
  for (const d of [certs, operator, user]) d.remove();
});

/** The operator's key for one user, as `tpa local keys create --scopes …` prints it. */
async function keyFor(): Promise<{ key: string; id: string }> {
  const made = await runTpa(['local', 'keys', 'create', '--scopes', 'contract_lookup', 'claim_pricing', 'ledger_access', '-o', 'json'], { home: operator.dir });
  expect(made.code, made.stderr).toBe(0);
  const { api_key, key_id } = made.json<{ api_key: string; key_id: string }>();
  return { key: api_key, id: key_id };
}

it('a user logs in with --ca as the section says, and every later command reaches the server with no CA option', async () => {
  expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const { key, id } = await keyFor();
  const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '--ca', ca], { home: user.dir, input: key });
  expect(login.code, login.stderr).toBe(0);
  const health = await runTpa(['health', '-p', 'sandbox', '-o', 'json'], { home: user.dir });
  expect(health.code, health.stderr).toBe(0);
  expect(health.json<{ key_id: string }>().key_id).toBe(id);
  expect(
    (await runTpa(['lookup', 'blind', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45380', '-p', 'sandbox', '-o', 'json'], { home: user.dir })).code,
  ).toBe(0);

  // The operator backs it up while it serves; then revokes this user's key: the user is refused (exit 5).
  const backup = await runTpa(['local', 'backup', join(certs.dir, 'sandbox-backup.sqlite')], { home: operator.dir });
  expect(backup.code, backup.stderr).toBe(0);
  expect((await runTpa(['local', 'keys', 'revoke', id, '--yes'], { home: operator.dir })).code).toBe(0);
  expect((await runTpa(['health', '-p', 'sandbox'], { home: user.dir })).code).toBe(5);
});

it('--ca-file at login reaches the server once and says it is not kept: the next command needs the CA (exit 8), which --ca keeps', async () => {
  const { key } = await keyFor();
  const once = await runTpa(['auth', 'login', '-p', 'once', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin', '--ca-file', ca], {
    home: user.dir,
    input: key,
  });
  expect(once.code, once.stderr).toBe(0);
  expect(once.stderr).toContain(`--ca-file (or TPA_CA_FILE) is not kept in the profile`);
  expect(once.stderr).toContain(`--ca ${ca}`);
  const later = await runTpa(['health', '-p', 'once'], { home: user.dir });
  expect(later.code).toBe(8);
  expect(later.stderr).toContain('tls_untrusted');
});
