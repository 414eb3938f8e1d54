// One HTTP exchange on node:http or node:https: what the HTTP transport and the OAuth token request
// need (a method, headers, a text body, one deadline for the whole exchange, TLS material), and
// nothing else. No retries (retry.ts decides those), no redirects, no cookies; every status is an
// answer, not an error. Errors keep Node's codes (ECONNREFUSED, ENOTFOUND, ETIMEDOUT, TLS codes) and
// say whether the TLS handshake had finished, which tlsError needs to tell a refused certificate.
// Plain http never goes through a proxy (below: DIRECT), whatever Node's proxy support is told.
import dns, { type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type Agent, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { isLoopbackAddress } from '../domain/loopback.js';

export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The most bytes of an answer read before giving up (ERR_RESPONSE_TOO_LARGE); MAX_ANSWER_BYTES by default. */
  maxBytes?: number;
  /** For https: the agent and the TLS options of the credential set. */
  agent?: Agent;
  tls?: RequestOptions;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * An error of the exchange itself (not of its status), with Node's code; `setup` when the request
 * could not even be built (retrying cannot help).
 */
export type ExchangeError = Error & { code?: string; handshakeDone?: boolean; setup?: boolean };

/**
 * No answer of the service comes near this (a ledger page of the most items is well under 1 MiB):
 * a server that sends more is not read to the end, so that it cannot make tpa hold what it likes.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * The agent of every plain http request: one of tpa's own, so never Node's global agent, which a
 * proxy takes over when Node's proxy support is on (NODE_USE_ENV_PROXY=1, --use-env-proxy, also in
 * NODE_OPTIONS, with HTTP_PROXY or http_proxy): plain http carries a key in clear and goes only to
 * this machine, which no proxy is. An agent made without `proxyEnv` connects directly whatever the
 * environment says. Kept alive as the global agent is, with the same settings.
 */
const DIRECT = new HttpAgent({ keepAlive: true, scheduling: 'lifo', timeout: 5000 });

/** The TLS sockets whose handshake has finished (kept alive by an agent, they carry further requests). */
const secured = new WeakSet<object>();

/**
 * Sends one request. Throws synchronously-built errors (an invalid URL, a header with a stray
 * newline: ERR_INVALID_URL, ERR_INVALID_CHAR, ERR_INVALID_HTTP_TOKEN) as they are, marked
 * `setup: true`, since retrying cannot help them.
 */
export function exchange(url: string, o: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let req: ReturnType<typeof httpRequest>;
    try {
      const target = new URL(url);
      const options: RequestOptions = {
        method: o.method,
        headers: o.body === undefined ? o.headers : { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
      };
      req =
        target.protocol === 'https:'
          ? httpsRequest(target, { ...options, ...o.tls, ...(o.agent ? { agent: o.agent } : {}) })
          : target.protocol === 'http:'
            ? httpRequest(target, { ...options, agent: DIRECT, ...(isIP(target.hostname.replace(/^\[(.*)\]$/, '$1')) ? {} : { lookup: loopbackOnly }) })
            : fail(`unsupported protocol ${target.protocol}`);
      // A request bound for a proxy names its whole URL as its target (absolute form); one bound for
      // the service names its path. Checked before anything is written, so that a proxy taking
      // over plain http some other way than the agent gets nothing, the key least of all.
      if (target.protocol === 'http:' && !req.path.startsWith('/')) {
        req.on('error', () => {});
        req.destroy();
        throw Object.assign(new Error(`plain http to ${target.host} would go through a proxy; it goes only directly to this machine`), {
          code: 'ERR_PROXIED',
        });
      }
    } catch (err) {
      reject(Object.assign(err as Error, { setup: true }));
      return;
    }
    let handshakeDone = false;
    let settled = false;
    const finish = (err: ExchangeError | undefined, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        err.handshakeDone = handshakeDone;
        reject(err);
      } else resolve(answer as Answer);
    };
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${o.timeoutMs} ms`), { code: 'ETIMEDOUT' })), o.timeoutMs);
    req.on('socket', (socket) => {
      // A kept-alive socket serves request after request: one whose handshake is done says so at
      // once, and only a TLS socket still connecting is watched (a listener added on every request
      // piled up on each socket, and Node warned of a leak after ten requests).
      if (secured.has(socket)) handshakeDone = true;
      else if ((socket as Partial<TLSSocket>).encrypted) {
        socket.once('secureConnect', () => {
          secured.add(socket);
          handshakeDone = true;
        });
      }
    });
    req.on('error', (err) => finish(err as ExchangeError));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      const most = o.maxBytes ?? MAX_ANSWER_BYTES;
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes > most) {
          finish(Object.assign(new Error(`the answer is larger than ${most} bytes; it was not read to the end`), { code: 'ERR_RESPONSE_TOO_LARGE' }));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      res.on('error', (err) => finish(err as ExchangeError));
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, headers: flatten(res.headers), text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(o.body);
  });
}

/**
 * Plain http goes to a name (`localhost`) only where it resolves on this machine: the resolver's
 * answers that are loopback addresses, and an error (ERR_NOT_LOOPBACK) when none is, so that an
 * /etc/hosts or a resolver that sends `localhost` elsewhere never receives a key in clear.
 */
const loopbackOnly: LookupFunction = (hostname, options, callback) => {
  // dns.lookup read at the call: the resolver in force, whoever set it.
  dns.lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const here = addresses.filter((a) => isLoopbackAddress(a.address));
    if (here.length === 0) {
      const where = addresses.map((a) => a.address).join(', ') || 'no address';
      const refused = Object.assign(new Error(`${hostname} resolves to ${where}, not to this machine: plain http goes only to a loopback address`), {
        code: 'ERR_NOT_LOOPBACK',
      });
      return callback(refused, '', 0);
    }
    if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, here);
    else callback(null, here[0]!.address, here[0]!.family);
  });
};

function fail(message: string): never {
  throw Object.assign(new TypeError(message), { code: 'ERR_INVALID_URL' });
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}
