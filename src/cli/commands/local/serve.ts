// tpa local serve: the embedded engine over HTTP or HTTPS (API keys, scopes, rate limits, and with
// --client-ca the OAuth token endpoint of mutual TLS), holding the data directory while it runs.
import type { LocalTransport } from '../../../local/transport.js';
import { UsageError } from '../../../errors.js';
import type { DataDirLock } from '../../../local/serve-lock.js';
import type { RunningServer, ServeOptions } from '../../../server/server.js';
import { type Context, readPem } from '../../context.js';
import { option, type OptionValues, verb } from '../../verb.js';
import { openEngine } from './engine.js';

const options = {
  host: option.withDefault('--host <host>', 'address to listen on', '127.0.0.1'),
  port: option.withDefault('--port <port>', 'port; 0 picks a free one (printed on stdout)', '4010'),
  rateLimit: option.negatable('--no-rate-limit', 'no rate limits (load tests)'),
  rateWindow: option.text('--rate-window <duration>', 'length of a rate-limit window (default 60s; shorter for tests)'),
  rateClock: option.withDefault(
    '--rate-clock <clock>',
    'the clock rate-limit windows run on: real time, or the engine clock (tests move it with tpa local clock)',
    'real',
    { values: ['real', 'engine'] },
  ),
  tlsCert: option.text('--tls-cert <file>', 'serve HTTPS with this certificate (PEM)'),
  tlsKey: option.text('--tls-key <file>', 'the private key of --tls-cert (PEM)'),
  clientCa: option.text('--client-ca <file>', 'require client certificates signed by this CA, and serve POST /oauth2/token (production flow)'),
  tlsMin: option.text('--tls-min <version>', 'lowest TLS version to accept (default 1.3; 1.2 for a legacy client, with forward-secret AEAD ciphers only)', {
    values: ['1.2', '1.3'],
  }),
  tlsMaxVersion: option.text('--tls-max-version <version>', 'highest TLS version to accept, e.g. 1.2 to act as a legacy service (then 1.2 only)', {
    values: ['1.2', '1.3'],
  }),
  insecureHttp: option.flag(
    '--insecure-http',
    'serve plain HTTP on a --host other than loopback (refused without it: keys and member data would cross the network unencrypted)',
  ),
};

type Options = OptionValues<typeof options>;
type Tls = NonNullable<ServeOptions['tls']> & { minVersion: TlsVersion; maxVersion?: TlsVersion };

export const serve = verb({
  name: 'serve',
  description:
    'serve the embedded engine over HTTP (API keys, scopes, rate limits), for profiles and scripts to talk to; holds the data directory while it runs',
  options,
  examples: [
    'tpa local serve --port 4010',
    'tpa local serve --port 0 --no-rate-limit',
    'tpa local serve --port 8443 --tls-cert server.pem --tls-key server-key.pem --client-ca clients-ca.pem',
    'tpa local serve --host 0.0.0.0 --port 8443 --tls-cert server.pem --tls-key server-key.pem --tls-min 1.2',
  ],
  async run(ctx, _args, opts) {
    const { port, windowMs } = await checkedOptions(opts);
    const host = await listenHost(ctx, opts);
    const tls = tlsOf(opts);
    await refuseNetworkDataDir(ctx.paths.dataDir);
    // One server per data directory, and no reset under it: the lock is held until the server stops.
    const { DataDirLock } = await import('../../../local/serve-lock.js');
    const lock = await DataDirLock.take(ctx.paths.dataDir, 'local serve');
    let transport: LocalTransport | undefined;
    let releaseHeap = () => {};
    try {
      // A server lives long and reads the whole ledger: the long-lived engine's page cache, the file read
      // through a memory map, and a heap that many connections at once do not inflate (bench/abuse.mjs).
      releaseHeap = (await import('../../heap.js')).holdServerHeap(4);
      const { PAGE_CACHE_KB, SERVER_MMAP_BYTES } = await import('../../../engine/store/db.js');
      transport = await openEngine(ctx, { pageCacheKb: PAGE_CACHE_KB, mmapBytes: SERVER_MMAP_BYTES });
      const engine = await transport.open();
      const { Faults } = await import('../../../server/faults.js');
      const faults = Faults.parse(ctx.io.env.TPA_FAULT);
      const running = await listen(engine, opts, { host, port, windowMs, tls, faults }, ctx);
      const extras = `${opts.rateLimit === false ? ', no rate limits' : ''}${tls ? `, ${tlsLabel(tls)}` : ''}${tls?.clientCa ? ', client certificates required, tokens at /oauth2/token' : ''}${faults.empty ? '' : `, faults injected: TPA_FAULT=${ctx.io.env.TPA_FAULT}`}`;
      await serveUntilStopped(ctx, running, lock, extras);
    } finally {
      transport?.close();
      releaseHeap();
      lock.release();
    }
  },
});

/** The options' values checked, and the combinations refused (exit 2). */
async function checkedOptions(opts: Options): Promise<{ port: number; windowMs: number }> {
  const { parseDuration } = await import('../../../domain/duration.js');
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535 (got "${opts.port}")`);
  const windowMs = opts.rateWindow === undefined ? 60_000 : parseDuration(opts.rateWindow);
  if (windowMs === undefined || windowMs <= 0) throw new UsageError('--rate-window must be a duration such as 60s');
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (opts.clientCa !== undefined && opts.tlsCert === undefined) throw new UsageError('--client-ca needs --tls-cert and --tls-key (mutual TLS is TLS)');
  for (const flag of ['tlsMin', 'tlsMaxVersion'] as const)
    if (opts[flag] !== undefined && opts.tlsCert === undefined)
      throw new UsageError(`${flag === 'tlsMin' ? '--tls-min' : '--tls-max-version'} needs --tls-cert and --tls-key (it is about TLS)`);
  if (opts.insecureHttp === true && opts.tlsCert !== undefined) throw new UsageError('--insecure-http is for plain HTTP: it means nothing with --tls-cert');
  tlsVersions(opts);
  return { port, windowMs };
}

/** Where to listen, decided before anything is opened or bound (docs/local.md "Over the wire"): plain HTTP beyond loopback only when asked for. */
async function listenHost(ctx: Context, opts: Options): Promise<string> {
  const host = opts.host;
  const { listenVerdict, isLoopbackHost } = await import('../../../server/listen.js');
  const verdict = listenVerdict(host, { tls: opts.tlsCert !== undefined, insecureHttp: opts.insecureHttp === true });
  if (!verdict.listen) throw new UsageError(verdict.reason);
  if (verdict.warning) ctx.note(verdict.warning);
  if (opts.tlsCert !== undefined || opts.insecureHttp === true || host.toLowerCase() !== 'localhost') return host;
  // `localhost` counts as loopback only as what it resolves to (the hosts file decides): listen on that address.
  const { lookup } = await import('node:dns/promises');
  const address = await lookup(host).then(
    (a) => a.address,
    () => undefined,
  );
  if (address === undefined || !isLoopbackHost(address))
    throw new UsageError(
      `--host localhost resolves to ${address ?? 'nothing'}, not a loopback address: use --host 127.0.0.1, serve HTTPS with --tls-cert and --tls-key, or accept plain HTTP with --insecure-http`,
    );
  return address;
}

/** The certificate, key and client CA read, with the TLS versions; none without --tls-cert (both or neither, as checked). */
function tlsOf(opts: Options): Tls | undefined {
  if (opts.tlsCert === undefined || opts.tlsKey === undefined) return undefined;
  return {
    cert: readPem('--tls-cert', opts.tlsCert),
    key: readPem('--tls-key', opts.tlsKey),
    ...(opts.clientCa ? { clientCa: readPem('--client-ca', opts.clientCa) } : {}),
    ...tlsVersions(opts),
  };
}

/** The server started on the engine; a port in use, or an address it cannot listen on, is a usage error. */
async function listen(
  engine: Awaited<ReturnType<LocalTransport['open']>>,
  opts: Options,
  at: { host: string; port: number; windowMs: number; tls: Tls | undefined; faults: ServeOptions['faults'] },
  ctx: Context,
): Promise<RunningServer> {
  const [{ startServer }, { RateLimiter }] = await Promise.all([import('../../../server/server.js'), import('../../../server/limits.js')]);
  const { host, port, windowMs } = at;
  try {
    return await startServer(engine, {
      host,
      port,
      // Windows run on real time (limits are about traffic); on the engine clock a test decides when one ends.
      limiter: opts.rateLimit === false ? null : new RateLimiter(windowMs, opts.rateClock === 'engine' ? () => Date.parse(engine.clock().now) : Date.now),
      tls: at.tls,
      faults: at.faults,
      log: (line) => ctx.io.stderr.write(`${new Date().toISOString()} ${line}\n`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EADDRINUSE'
        ? `port ${port} is in use: choose another with --port (0 picks a free one)`
        : `cannot listen on ${host}:${port}: ${(err as Error).message}`,
    );
  }
}

/** Says where it listens, then serves until SIGINT or SIGTERM. */
async function serveUntilStopped(ctx: Context, running: RunningServer, lock: DataDirLock, extras: string): Promise<void> {
  // Ready to be stopped before saying it is ready: whoever starts the server may stop it as soon as it prints its address.
  let stopRequested: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => (stopRequested = resolve));
  const onSigint = () => stopRequested('SIGINT');
  const onSigterm = () => stopRequested('SIGTERM');
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  try {
    lock.listening(running.url);
    ctx.io.stdout.write(`${running.url}\n`);
    ctx.note(`tpa local serve: listening on ${running.url} (data in ${ctx.paths.dataDir}${extras}); Ctrl-C stops it`);
    ctx.note(`${await stopped}: shutting down`);
    await running.close();
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigterm);
  }
}

/**
 * A data directory on a network file system is not served (src/domain/network-fs.ts): exit 2,
 * before the lock or the database is opened there. One not made yet is judged by the folder it will be made in.
 */
async function refuseNetworkDataDir(dataDir: string): Promise<void> {
  const [{ statfsSync }, { dirname }, { networkFileSystem, networkDataDirRefusal }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('../../../domain/network-fs.js'),
  ]);
  let dir = dataDir;
  for (;;) {
    try {
      const name = networkFileSystem(statfsSync(dir).type, process.platform);
      if (name === undefined) return;
      const { message, hint } = networkDataDirRefusal(dataDir, name);
      throw new UsageError(message, { code: 'data_dir_on_network_fs', hint });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw err;
      dir = dirname(dir);
    }
  }
}

/** `--tls-min` and `--tls-max-version` as Node's names: 1.3 at least unless a legacy client needs 1.2 (docs/api.md). */
function tlsVersions(opts: { tlsMin?: string; tlsMaxVersion?: string }): { minVersion: TlsVersion; maxVersion?: TlsVersion } {
  const version = (flag: string, v: string | undefined): TlsVersion | undefined => {
    if (v === undefined) return undefined;
    if (v !== '1.2' && v !== '1.3') throw new UsageError(`${flag} is 1.2 or 1.3 (got "${v}"): TLS before 1.2 is never served`);
    return `TLSv${v}`;
  };
  const max = version('--tls-max-version', opts.tlsMaxVersion);
  // Acting as a legacy service (--tls-max-version 1.2) serves TLS 1.2 only: it implies --tls-min 1.2.
  const min = version('--tls-min', opts.tlsMin) ?? (max === 'TLSv1.2' ? 'TLSv1.2' : 'TLSv1.3');
  if (max === 'TLSv1.2' && min === 'TLSv1.3') throw new UsageError('--tls-min 1.3 and --tls-max-version 1.2 leave no TLS version to serve');
  return { minVersion: min, ...(max ? { maxVersion: max } : {}) };
}

type TlsVersion = 'TLSv1.2' | 'TLSv1.3';

const tlsLabel = (v: { minVersion: TlsVersion; maxVersion?: TlsVersion }) =>
  v.minVersion === 'TLSv1.3' ? 'TLS 1.3' : v.maxVersion === 'TLSv1.2' ? 'TLS 1.2 only' : 'TLS 1.3, and 1.2 for legacy clients';
