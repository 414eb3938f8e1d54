// TLS for the HTTP transport: the CAs trusted (a profile's `ca`, and --ca-file added to the store),
// the client certificate and key of mutual TLS, TLS 1.3 minimum unless the profile says legacy_tls.
// One agent per credential set, without keep-alive: a reused connection must not hide a wrong key
// passphrase. A proxy (Node's own proxy support, when it is on) carries https to another host through
// a CONNECT tunnel, TLS from end to end; https to this machine goes directly.
import { Agent, type AgentOptions, type RequestOptions } from 'node:https';
import tlsModule from 'node:tls';
import { isLoopbackHost } from '../domain/loopback.js';
import { AuthError, NetworkError, UsageError } from '../errors.js';

export interface TlsMaterial {
  /** PEM of the service's own CA (a profile's `ca`): trusted in place of the system's store. */
  ca?: string;
  /**
   * PEM of CAs added to what is trusted (--ca-file: an enterprise CA, a proxy's), so that a user
   * behind a corporate proxy keeps the system's store and trusts the proxy too.
   */
  extraCa?: string;
  cert?: string;
  key?: string;
  passphrase?: string;
  legacyTls?: boolean;
}

/**
 * The agent for https to `url`. Where Node's proxy support is on (NODE_USE_ENV_PROXY=1 or
 * --use-env-proxy, also in NODE_OPTIONS), a host other than this machine is reached through
 * HTTPS_PROXY (or https_proxy) unless NO_PROXY (or no_proxy) names it, as Node does for its own
 * agents: the proxy sees the host and port asked for in CONNECT, and nothing else, since TLS runs
 * from tpa to the service through the tunnel and the service's certificate is checked against its
 * name. A loopback host goes directly: a proxy's loopback is not this machine's.
 */
export function tlsAgent(tls: TlsMaterial, url: string, env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): Agent {
  const options: AgentOptions & { proxyEnv?: NodeJS.ProcessEnv } = { keepAlive: false, minVersion: tls.legacyTls ? 'TLSv1.2' : 'TLSv1.3' };
  if (envProxyOn(env, execArgv) && !isLoopbackHost(hostOf(url))) options.proxyEnv = env;
  return new Agent(options);
}

/** Whether Node's proxy support is on for this process, as Node itself decides it at start-up. */
export function envProxyOn(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  // NODE_OPTIONS first: the command line's own flags come after it, and the last one holds.
  const flags = [...(env.NODE_OPTIONS ?? '').split(/\s+/), ...execArgv];
  const last = flags.filter((f) => f === '--use-env-proxy' || f === '--no-use-env-proxy').at(-1);
  if (last) return last === '--use-env-proxy';
  return env.NODE_USE_ENV_PROXY === '1';
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * The CAs trusted by default: the store Node uses (its bundle, and the system's or
 * NODE_EXTRA_CA_CERTS where Node is told to), or the bundle alone on a Node without the call.
 */
function defaultCertificates(): string[] {
  return tlsModule.getCACertificates?.('default') ?? [...tlsModule.rootCertificates];
}

/** The CAs to trust for the material, or undefined for Node's default store. */
function trusted(tls: TlsMaterial): string | string[] | undefined {
  if (!tls.extraCa) return tls.ca;
  return [...(tls.ca ? [tls.ca] : defaultCertificates()), tls.extraCa];
}

/**
 * node:https's options for the material. A profile's CA is the one trusted, in place of the
 * system's; --ca-file adds to whichever is in force.
 */
export function tlsOptions(tls: TlsMaterial): RequestOptions {
  const ca = trusted(tls);
  return {
    ...(ca ? { ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
    minVersion: tls.legacyTls ? 'TLSv1.2' : 'TLSv1.3',
  };
}

/** A clear error for a TLS failure, or undefined when it was not one. */
export function tlsError(
  err: Error & { code?: string; handshakeDone?: boolean },
  where: string,
  presentedCertificate = false,
  passphraseGiven = false,
): Error | undefined {
  const code = err.code ?? '';
  const text = `${code} ${err.message}`;
  // A wrong passphrase usually fails the decryption's padding check (bad decrypt); about one time in
  // 300 the padding happens to pass and what fails is the decoding of the garbage decrypted.
  const wrongPassphrase = /BAD_DECRYPT|bad decrypt|wrong passphrase|bad password/i.test(text) || (passphraseGiven && /DECODER routines/i.test(text));
  if (!wrongPassphrase && /DECODER routines|no start line|PEM routines|KEY_VALUES_MISMATCH|key values mismatch|unsupported key/i.test(text)) {
    return new UsageError(`the client certificate or key cannot be used (${err.message})`, {
      hint: "check the profile's cert and key: PEM files of one key pair",
    });
  }
  if (wrongPassphrase) {
    return new AuthError(`the passphrase of the client key is wrong (${where})`, {
      code: 'bad_key_passphrase',
      hint: 'log in again: tpa auth login --env production ... --passphrase-stdin',
    });
  }
  if (/CERT_|SELF_SIGNED|UNABLE_TO_VERIFY|unable to verify|self.signed|certificate has expired|Hostname\/IP does not match/i.test(text)) {
    return new NetworkError(`the service's TLS certificate is not trusted (${err.message})`, {
      code: 'tls_untrusted',
      hint: "pass the service's CA with --ca-file, or set the profile's ca",
    });
  }
  // A TLS alert, or a hang-up during the handshake, is the service refusing this connection. With
  // TLS 1.3 a refused client certificate shows only as a hang-up just after the handshake; without a
  // client certificate, a hang-up after the handshake is a network failure like any other.
  const duringHandshake = err.handshakeDone !== true;
  const refused = /certificate required|alert|handshake failure|wrong version number|unsupported protocol|EPROTO|TLSV1/i.test(text);
  if (where.startsWith('https') && (refused || ((duringHandshake || presentedCertificate) && /ECONNRESET|socket hang up/i.test(text)))) {
    return new NetworkError(`the TLS handshake with ${where} failed: the service did not accept this connection or its client certificate (${err.message})`, {
      code: 'tls_handshake_failed',
      hint: "check the profile's cert and key (a certificate signed by a CA the service trusts), or legacy_tls for a TLS 1.2 service",
    });
  }
  return undefined;
}
