// `tpa local serve` with TLS: TLS 1.3 unless `--tls-min 1.2` lets a legacy client in, and then only
// forward-secret AEAD cipher suites (docs/api.md). Handshakes made with node:tls on 127.0.0.1 only.
import { readFileSync } from 'node:fs';
import { connect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import { TestCa } from '../helpers/certs.js';
import { serve, type Served } from '../helpers/server.js';

let certs: ReturnType<typeof tempDir>;
const homes: ReturnType<typeof tempDir>[] = [];
let ca: TestCa;
let rsa: { cert: string; key: string };
let client: { cert: string; key: string };
/** Default TLS, --tls-min 1.2, and mutual TLS with the default: each on a data directory of its own. */
let modern: Served;
let legacy: Served;
let mutual: Served;

beforeAll(async () => {
  certs = tempDir();
  ca = new TestCa(certs.dir);
  rsa = ca.server('rsa');
  const ec = ca.server();
  client = ca.client('client');
  const start = (args: string[]) => {
    const home = tempDir();
    homes.push(home);
    return serve(home.dir, args);
  };
  [modern, legacy, mutual] = await Promise.all([
    start(['--tls-cert', rsa.cert, '--tls-key', rsa.key]),
    start(['--tls-cert', rsa.cert, '--tls-key', rsa.key, '--tls-min', '1.2']),
    start(['--tls-cert', ec.cert, '--tls-key', ec.key, '--client-ca', ca.file('ca.pem')]),
  ]);
});
afterAll(async () => {
  await Promise.all([modern, legacy, mutual].filter(Boolean).map((s) => s.stop()));
  for (const home of homes) home.remove();
  certs.remove();
});

/** A TLS handshake with the server at `url`: the protocol and cipher agreed, or the error. */
function handshake(url: string, options: ConnectionOptions = {}): Promise<{ protocol: string | null; cipher: string } | { error: string }> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: readFileSync(ca.file('ca.pem')), ...options }, () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name });
      socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve({ error: `${err.code ?? ''} ${err.message}` }));
  });
}

describe('tpa local serve --tls', () => {
  it('serves TLS 1.3 by default and refuses a TLS 1.2 client', async () => {
    expect(await handshake(modern.url)).toMatchObject({ protocol: 'TLSv1.3' });
    expect(await handshake(modern.url, { maxVersion: 'TLSv1.2' })).toMatchObject({ error: expect.stringMatching(/protocol version/i) });
    // Not even with a suite --tls-min 1.2 would allow.
    expect(await handshake(modern.url, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).toHaveProperty('error');
  });

  it('with --tls-min 1.2 lets a TLS 1.2 client in with a forward-secret AEAD suite only', async () => {
    const tls12 = (ciphers: string) => handshake(legacy.url, { maxVersion: 'TLSv1.2', ciphers });
    expect(await tls12('ECDHE-RSA-AES128-GCM-SHA256')).toEqual({ protocol: 'TLSv1.2', cipher: 'ECDHE-RSA-AES128-GCM-SHA256' });
    expect(await tls12('ECDHE-RSA-CHACHA20-POLY1305')).toEqual({ protocol: 'TLSv1.2', cipher: 'ECDHE-RSA-CHACHA20-POLY1305' });
    // RSA key exchange (no forward secrecy), with CBC and SHA-1 or with GCM; CBC even with ECDHE.
    for (const weak of ['AES128-SHA', 'AES256-SHA', 'AES128-GCM-SHA256', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA384'])
      expect(await tls12(weak), weak).toMatchObject({ error: expect.stringMatching(/handshake failure/i) });
    // A modern client still gets TLS 1.3.
    expect(await handshake(legacy.url)).toMatchObject({ protocol: 'TLSv1.3' });
  });

  it('refuses TLS 1.2 on the mutual-TLS server too, whatever certificate the client shows', async () => {
    const withCertificate = { cert: readFileSync(client.cert), key: readFileSync(client.key) };
    expect(await handshake(mutual.url, withCertificate)).toMatchObject({ protocol: 'TLSv1.3' });
    expect(await handshake(mutual.url, { ...withCertificate, maxVersion: 'TLSv1.2' })).toMatchObject({ error: expect.stringMatching(/protocol version/i) });
  });

  it('refuses any other --tls-min, and TLS versions without TLS, with exit 2 before serving', async () => {
    const home = tempDir();
    homes.push(home);
    const tlsArgs = ['--tls-cert', rsa.cert, '--tls-key', rsa.key];
    for (const version of ['1.1', '1.0', '1', 'TLSv1.3', '']) {
      const r = await runTpa(['local', 'serve', '--port', '0', ...tlsArgs, '--tls-min', version], { home: home.dir });
      expect(r.code, version).toBe(2);
      expect(r.stderr).toMatch(/--tls-min is 1\.2 or 1\.3/);
    }
    const plain = await runTpa(['local', 'serve', '--port', '0', '--tls-min', '1.2'], { home: home.dir });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/--tls-min needs --tls-cert/);
    const none = await runTpa(['local', 'serve', '--port', '0', ...tlsArgs, '--tls-min', '1.3', '--tls-max-version', '1.2'], { home: home.dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no TLS version to serve/);
  });
});
