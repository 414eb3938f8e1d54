// Where `tpa local serve` may listen in plain HTTP: loopback only, unless --insecure-http says
// otherwise. Nothing here binds or connects to an address other than 127.0.0.1: the refusals come
// before anything is opened or bound, and the runs that ask for another host stop before binding
// (a data directory whose database cannot be opened, or that a server holds) on a port already
// held on 127.0.0.1, so that even a server that tried to listen there could not.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost, listenVerdict } from '../../src/server/listen.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { serve, type Served } from '../helpers/server.js';

const LOOPBACK = ['127.0.0.1', '127.8.9.10', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST'];
const ELSEWHERE = [
  '0.0.0.0',
  '::',
  '',
  '192.168.1.20',
  '10.0.0.5',
  '203.0.113.7',
  'fe80::1',
  '::ffff:10.0.0.1',
  '128.0.0.1',
  '127.1',
  '127.attacker.example',
  'example.com',
];

describe('the hosts local serve serves plain HTTP on', () => {
  it('loopback is 127.0.0.0/8, ::1 or localhost, and nothing else', () => {
    for (const host of LOOPBACK) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ELSEWHERE) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('plain HTTP beyond loopback is refused, naming --tls-cert and --insecure-http; TLS is served anywhere', () => {
    for (const host of LOOPBACK) expect(listenVerdict(host, { tls: false, insecureHttp: false }), host).toEqual({ listen: true });
    for (const host of ELSEWHERE) {
      const verdict = listenVerdict(host, { tls: false, insecureHttp: false });
      expect(verdict.listen, host).toBe(false);
      expect(verdict.listen === false && verdict.reason).toMatch(/not a loopback address: plain HTTP there would send API keys.*--tls-cert.*--insecure-http/);
      expect(listenVerdict(host, { tls: true, insecureHttp: false }), host).toEqual({ listen: true });
    }
  });

  it('--insecure-http serves beyond loopback with a warning, and on loopback without one', () => {
    for (const host of ELSEWHERE) {
      const verdict = listenVerdict(host, { tls: false, insecureHttp: true });
      expect(verdict.listen, host).toBe(true);
      expect(verdict.listen && verdict.warning).toMatch(/^warning: serving plain HTTP on .*unencrypted/);
    }
    expect(listenVerdict('127.0.0.1', { tls: false, insecureHttp: true })).toEqual({ listen: true });
  });
});

describe('tpa local serve --host', () => {
  let held: Server;
  let port: string;
  let home: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    home = tempDir();
    held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    port = String((held.address() as { port: number }).port);
  });
  afterAll(async () => {
    await new Promise((resolve) => held.close(resolve));
    home.remove();
  });

  it('refuses plain HTTP on an address beyond loopback with exit 2, before opening the database or binding anything', async () => {
    // A file that is no database: a server that got as far as opening it would stop there (exit 8),
    // before listening; refused first, it is left as it is.
    const database = join(home.dir, 'local.sqlite');
    writeFileSync(database, 'not a database\n');
    // 192.0.2.10 is a documentation address: no machine has it.
    for (const host of ['0.0.0.0', '192.0.2.10']) {
      const r = await runTpa(['local', 'serve', '--host', host, '--port', port], { home: home.dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--host ${host} is not a loopback address`);
      expect(r.stderr).toMatch(/--tls-cert and --tls-key, or accept plain HTTP with --insecure-http/);
      expect(r.stderr).not.toMatch(/in use|cannot listen/);
    }
    expect(readFileSync(database, 'utf8')).toBe('not a database\n');
    expect(existsSync(join(home.dir, 'serve.lock'))).toBe(false);
  });

  it('--insecure-http says on stderr that keys and member data cross the network unencrypted, before anything binds', async () => {
    // A server on 127.0.0.1 holds the data directory: the run with --insecure-http warns, then is
    // refused the data directory (exit 4), never reaching the point of listening.
    const other = tempDir();
    let running: Served | undefined;
    try {
      running = await serve(other.dir);
      const r = await runTpa(['local', 'serve', '--host', '0.0.0.0', '--port', new URL(running.url).port, '--insecure-http'], { home: other.dir });
      expect(r.stderr).toMatch(
        /warning: serving plain HTTP on 0\.0\.0\.0, which other machines may reach \(--insecure-http\): API keys, tokens and member data cross the network unencrypted/,
      );
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe('');
    } finally {
      await running?.stop();
      other.remove();
    }
  });

  it('--host localhost listens on the loopback address localhost resolves to', async () => {
    const other = tempDir();
    const running = await serve(other.dir, ['--host', 'localhost']);
    try {
      expect(running.url).toMatch(/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/);
      expect((await fetch(`${running.url}/tpa-api/v1/health`)).status).toBe(401);
    } finally {
      await running.stop();
      other.remove();
    }
  });

  it('refuses --insecure-http with --tls-cert: it means nothing there', async () => {
    const r = await runTpa(['local', 'serve', '--port', port, '--insecure-http', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--insecure-http is for plain HTTP/);
  });
});
