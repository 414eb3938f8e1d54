// Certificates for the TLS tests, made with openssl in a directory of the test's own: a CA, a
// server certificate for 127.0.0.1 signed by it, and client certificates (common name = client id).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export class TestCa {
  constructor(readonly dir: string) {
    this.openssl('req', '-x509', ...EC, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=tpa test CA');
  }

  /** The path of a file made here. */
  file(name: string): string {
    return join(this.dir, name);
  }

  private openssl(...args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: 'ignore' });
  }

  private signed(name: string, subject: string, ext?: string, key: string[] = EC): void {
    this.openssl('req', ...key, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', subject);
    this.openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      ...(ext ? ['-extfile', ext] : []),
    );
  }

  /** server.pem and server-key.pem, for 127.0.0.1; an RSA key (rsa-server.pem) for RSA cipher suites. */
  server(key: 'ec' | 'rsa' = 'ec'): { cert: string; key: string } {
    const name = key === 'rsa' ? 'rsa-server' : 'server';
    writeFileSync(this.file('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    this.signed(name, '/CN=127.0.0.1', 'san.ext', key === 'rsa' ? ['-newkey', 'rsa:2048', '-nodes'] : EC);
    return { cert: this.file(`${name}.pem`), key: this.file(`${name}-key.pem`) };
  }

  /** <name>.pem and <name>-key.pem for a client whose certificate names `clientId`. */
  client(name: string, clientId = 'acme-tpa'): { cert: string; key: string } {
    this.signed(name, `/CN=${clientId}`);
    return { cert: this.file(`${name}.pem`), key: this.file(`${name}-key.pem`) };
  }
}

/**
 * `tpa auth login` for production over mutual TLS, as the tests run it: client acme-tpa, the
 * certificate and key of `dir` (client.pem and client-key.pem unless named), the CA of `dir`
 * unless `ca` is false, and a profile when given.
 */
export function mtlsLoginArgs(o: { url: string; dir: string; profile?: string; cert?: string; key?: string; ca?: boolean }): string[] {
  const at = (name: string) => join(o.dir, name);
  return [
    'auth',
    'login',
    '--env',
    'production',
    // Without a profile named, the login is made the default, as the tests that use it expect.
    ...(o.profile === undefined ? ['--set-default'] : ['-p', o.profile]),
    '--base-url',
    o.url,
    '--client-id',
    'acme-tpa',
    '--cert',
    at(o.cert ?? 'client.pem'),
    '--key',
    at(o.key ?? 'client-key.pem'),
    ...(o.ca === false ? [] : ['--ca', at('ca.pem')]),
  ];
}
