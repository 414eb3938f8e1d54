// `tpa local serve`: node:http in front of the one route table (docs/design.md "Architecture"). This file only
// adapts HTTP: authentication, limits and answers come from the engine; the server reads bodies
// within a size limit, applies the rate limiter, logs one line per request and never a key.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Engine } from '../engine/engine.js';
import { bodyText, type EngineResponse } from '../engine/exchange.js';
import { newId } from '../engine/ids.js';
import { OPENAPI_PATH, OPENAPI_TYPE, openapiDocument } from './document.js';
import { withFault, type Faults } from './faults.js';
import { type RateLimiter, TIERS, type LimitVerdict, unlimitedHeaders } from './limits.js';
import { JsonDepthGauge } from '../domain/json-depth.js';
import { NOT_UTF8, notUtf8Line, notUtf8QueryParameter } from '../domain/well-formed.js';

/** Claims may be up to 5 MiB (fhir-claim.ts); a little room for whitespace around them. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

export interface TlsOptions {
  cert: string;
  key: string;
  /** With a client CA, client certificates are required and /oauth2/token is served. */
  clientCa?: string;
  /** The lowest TLS version served: TLSv1.3 unless a legacy client needs TLSv1.2 (docs/api.md). */
  minVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** The highest TLS version served (TLSv1.2 to act as a legacy service). */
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
}

/**
 * The cipher suites served. TLS 1.3's own suites are all AEAD with forward secrecy; for TLS 1.2
 * (served only with `minVersion: 'TLSv1.2'`) only ephemeral ECDH key exchange with AES-GCM or
 * ChaCha20-Poly1305: no static RSA key exchange (no forward secrecy), no CBC, no SHA-1 MAC.
 */
export const TLS_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
].join(':');

export interface ServeOptions {
  host: string;
  port: number;
  tls?: TlsOptions;
  /** null: no rate limits (load tests). */
  limiter: RateLimiter | null;
  log: (line: string) => void;
  maxBodyBytes?: number;
  /** Sandbox triggers (TPA_FAULT): faults injected into requests whose path matches. */
  faults?: Faults;
  /**
   * Called with every request answered and its answer (the tests check both against docs/openapi.yaml:
   * docs/development.md "The contract checked"). Absent, nothing is kept or copied.
   */
  observe?: (exchange: Exchange) => void;
}

/** One request and the answer sent to it, as the server saw them. */
export interface Exchange {
  method: string;
  /** The path and query as received. */
  target: string;
  /** The route's path template that answered ('/tpa-api/v1/settlement/{encounter_id}/'), when one did. */
  route: string | undefined;
  requestHeaders: IncomingHttpHeaders;
  /** The body as read, when it was read whole. */
  requestBody: string | undefined;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends an answer; to a HEAD request, its headers only (the engine gives the GET body's length).
 * Returns what was sent, for an observer.
 */
function send(res: ServerResponse, response: EngineResponse, extra: Record<string, string> = {}, head = false, type = JSON_TYPE) {
  const body = typeof response.body === 'string' ? response.body : bodyText(response.body);
  const length = response.headers['content-length'] ?? String(Buffer.byteLength(body));
  const headers = { ...response.headers, ...extra, 'content-type': type, 'content-length': length };
  res.writeHead(response.status, headers);
  res.end(head ? undefined : body);
  return { headers, body: head ? '' : body };
}

/** The OpenAPI document, to GET or HEAD /openapi.yaml (docs/api.md "The OpenAPI document"); undefined for any other request. */
function documentAnswer(method: string, url: URL | undefined): { response: EngineResponse; type: string } | undefined {
  const document = url?.pathname === OPENAPI_PATH ? openapiDocument() : null;
  if (document === null) return undefined;
  if (method === 'GET' || method === 'HEAD') return { response: { status: 200, headers: {}, body: document }, type: OPENAPI_TYPE };
  const refused = error(405, { error: 'method_not_allowed', message: `${OPENAPI_PATH} accepts GET, HEAD` });
  return { response: { ...refused, headers: { allow: 'GET, HEAD' } }, type: JSON_TYPE };
}

const error = (status: number, body: Record<string, unknown>): EngineResponse => ({ status, headers: {}, body });

type Body = { text: string } | { tooLarge: true } | { tooDeep: string } | { tooMany: true } | { notUtf8: number };

/** The 400 of a body whose bytes are not UTF-8 (docs/api.md "Text"): never read as U+FFFD. */
const notUtf8Body = (line: number): EngineResponse => error(400, { errors: [{ field: '', message: `the request body is ${NOT_UTF8}, at line ${line}` }] });

/**
 * A body larger than this is "large": parsing and checking one takes the event loop for a while (a
 * 5 MiB claim, a good part of a second), so one key has at most LARGE_BODIES_PER_KEY of them in
 * flight, and ten at once from one key cannot make every other caller wait.
 */
const LARGE_BODY_BYTES = 1024 * 1024;
const LARGE_BODIES_PER_KEY = 2;

interface BodyChecks {
  /** Counts the nesting of a JSON body as it arrives. */
  gauge?: JsonDepthGauge;
  /** Called once, when the body turns out to be large: false refuses it. */
  admitLarge?: () => boolean;
}

/**
 * The body as text; refused as soon as it shows: past the size limit, nested deeper than any
 * resource (the nesting is counted on each piece as it arrives, so a body nested millions deep is
 * refused after its first piece and never parsed), or large beyond what its key may have in flight.
 * The rest of a refused body is read and dropped, so that the answer is not lost to a reset connection.
 */
function readBody(req: IncomingMessage, limit: number, checks: BodyChecks = {}): Promise<Body> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    let large = false;
    const refuse = (body: Body) => {
      refused = true;
      chunks.length = 0;
      resolve(body);
    };
    const tooMany = () => {
      if (large || !checks.admitLarge) return false;
      large = true;
      return !checks.admitLarge();
    };
    // A declared length says at once whether the body is large; a chunked one shows it on the way.
    if (Number(req.headers['content-length'] ?? 0) > LARGE_BODY_BYTES && tooMany()) refuse({ tooMany: true });
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) return refuse({ tooLarge: true });
      if (size > LARGE_BODY_BYTES && tooMany()) return refuse({ tooMany: true });
      if (checks.gauge && !checks.gauge.feed(chunk)) return refuse({ tooDeep: checks.gauge.problem()! });
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const bytes = Buffer.concat(chunks);
      const line = notUtf8Line(bytes);
      resolve(line === undefined ? { text: bytes.toString('utf8') } : { notUtf8: line });
    });
    req.on('error', reject);
  });
}

const JSON_TYPES = /^application\/(fhir\+)?json\s*(;|$)/i;

/**
 * Where a process may install an observer of every server it starts, before it starts them: the
 * tests' preload does (docs/development.md "The contract checked"); tpa itself never does.
 */
export const PROCESS_OBSERVER = Symbol.for('tpa.server.observe');

export function startServer(engine: Engine, options: ServeOptions): Promise<RunningServer> {
  const requests = new Requests(engine, options);
  const server = createHttpServer(options.tls, requests.listener);
  server.on('clientError', (err: ParserError, socket: Duplex) => answerUnparsed(engine, options, err, socket, requests.observe));
  // CONNECT (a proxy's tunnel) is handed to a listener of its own, never to the request handler:
  // answered as a method the service does not serve, with the body and headers of every answer.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const err: ParserError = Object.assign(new Error('CONNECT is not served'), {
      code: 'CONNECT_METHOD',
      rawPacket: Buffer.from(`CONNECT ${req.url ?? ''} HTTP/1.1\r\n`, 'latin1'),
    });
    answerUnparsed(engine, options, err, socket, requests.observe);
  });
  // Slow or abandoned clients must not hold connections forever.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  return listenOn(server, options);
}

/** The HTTP server, or the HTTPS one (with client certificates required when there is a client CA). */
function createHttpServer(tls: TlsOptions | undefined, listener: RequestListener): Server {
  if (!tls) return createServer(listener);
  return createTlsServer(
    {
      cert: tls.cert,
      key: tls.key,
      ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
      // The contract (docs/api.md): TLS 1.3; 1.2 only for a legacy system, and then only forward-secret AEAD suites.
      minVersion: tls.minVersion ?? 'TLSv1.3',
      ...(tls.maxVersion ? { maxVersion: tls.maxVersion } : {}),
      ciphers: TLS_CIPHERS,
      honorCipherOrder: true,
    },
    listener,
  );
}

/** Listens on the host and port of the options; resolves once it does, with the URL served. */
function listenOn(server: Server, options: ServeOptions): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}

/** How the server answers a request, in named steps: who calls and how often, what is answered at once, the body, the engine. */
class Requests {
  private readonly limit: number;
  readonly observe: ServeOptions['observe'];
  /** Large bodies in flight per key lineage (LARGE_BODIES_PER_KEY). */
  private readonly largeBodies = new Map<string, number>();

  constructor(
    private readonly engine: Engine,
    private readonly options: ServeOptions,
  ) {
    this.limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.observe = options.observe ?? (globalThis as { [PROCESS_OBSERVER]?: ServeOptions['observe'] })[PROCESS_OBSERVER];
  }

  // Nothing a client sends may stop the server: whatever escapes the handling is a 400 or a 500.
  readonly listener: RequestListener = (req, res) => {
    try {
      this.handle(req, res);
    } catch {
      req.resume();
      if (!res.headersSent) send(res, error(500, { error: 'internal_error', message: 'The server failed to process the request', request_id: newId('req_') }));
    }
  };

  /** One request: its id, what an observer is told of it, and how it is answered (limit headers on every answer). */
  private callOf(req: IncomingMessage, res: ServerResponse): Call {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '/', 'http://server');
    } catch {
      url = undefined;
    }
    let status = 500;
    const observe = this.observe;
    const call: Call = {
      req,
      res,
      method,
      url,
      requestId: newId('req_'),
      seen: {},
      // docs/api.md "Limits": the X-RateLimit-* headers go on every answer, whatever it is.
      limitHeaders: {},
      reply: (response, extra = {}, type = JSON_TYPE) => {
        status = response.status;
        const sent = send(res, response, { 'x-request-id': call.requestId, ...call.limitHeaders, ...extra }, method === 'HEAD', type);
        observe?.(
          exchangeOf(
            { method, target: req.url ?? '', route: call.seen.route, requestHeaders: req.headers, requestBody: call.seen.body },
            response.status,
            sent,
          ),
        );
      },
      // 429 (docs/api.md "Errors"), with the limit headers and Retry-After.
      refuse: (verdict) => {
        req.resume();
        call.reply(error(429, { error: 'rate_limit_exceeded', message: `Rate limit exceeded: ${verdict.reason}`, retry_after: verdict.retryAfter }), {
          ...verdict.headers,
          'retry-after': String(verdict.retryAfter),
        });
      },
    };
    res.on('finish', () => this.options.log(`${method} ${url?.pathname ?? '(not a path)'} ${status} ${(performance.now() - started).toFixed(1)}ms`));
    return call;
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const call = this.callOf(req, res);
    const { method, url } = call;
    const certificate = clientCertificate(req);
    if (url && method === 'POST' && url.pathname.replace(/\/+$/, '') === '/oauth2/token' && this.options.tls?.clientCa)
      return this.tokenRequest(call, url, certificate);
    // The order (docs/client.md "Over the wire: choices"): who is calling, then count (429), then the route
    // (404, 405), the key (401), the body (413, 415) and the scope (403). A caller with a valid key
    // counts against its tier (and the endpoint's limit, for a route that exists), one without
    // against its address, so that unknown routes and key guessing are limited too.
    const authorization = header(req, 'authorization');
    const bearer = authorization && /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    // With a client CA this is the production server: OAuth tokens only (docs/api.md "Authentication").
    const oauthOnly = Boolean(this.options.tls?.clientCa);
    const caller = this.engine.authenticate(bearer ? { bearer, certificate } : { apiKey: header(req, 'x-api-key'), certificate, oauthOnly });
    const match = url && this.engine.route(method, url.pathname);
    const route = match && 'route' in match ? match.route : undefined;
    call.seen.route = route?.path;
    const key = 'key' in caller ? caller.key : undefined;
    if (!this.admitted(call, key, route)) return;
    if (this.answeredAtOnce(call, match, caller) || !url || !key) return;
    this.routedRequest(call, url, key);
  }

  /**
   * The rate limits: false when the call was refused (429). Limits follow the credential's lineage:
   * a rotated key, or another token of the same client, does not start with fresh windows.
   */
  private admitted(call: Call, key: KeyOf | undefined, route: { method: string; path: string; perMinute?: number | null } | undefined): boolean {
    const { req, res } = call;
    const limiter = this.options.limiter;
    const verdict = key
      ? limiter?.admit(key.lineage, TIERS[key.environment], route ? `${route.method} ${route.path}` : '(no route)', route?.perMinute ?? null)
      : limiter?.admitAnonymous(req.socket.remoteAddress ?? 'unknown');
    if (verdict && !verdict.allowed) {
      call.refuse(verdict);
      return false;
    }
    if (verdict && key) res.on('close', () => limiter?.release(key.lineage));
    // Without limits (--no-rate-limit) the headers still go out, with the nominal unlimited figure.
    call.limitHeaders = verdict?.headers ?? unlimitedHeaders(Date.now());
    return true;
  }

  /** POST /oauth2/token on the production server: limited per client certificate, like any other endpoint per key. */
  private tokenRequest(call: Call, url: URL, certificate: ReturnType<typeof clientCertificate>) {
    call.seen.route = '/oauth2/token';
    const verdict = this.options.limiter?.admit(`oauth:${certificate?.fingerprint ?? 'none'}`, TIERS.production, 'POST /oauth2/token', 60);
    if (verdict && !verdict.allowed) return call.refuse(verdict);
    if (verdict) this.options.limiter?.release(`oauth:${certificate?.fingerprint ?? 'none'}`);
    call.limitHeaders = verdict?.headers ?? unlimitedHeaders(Date.now());
    const { pathname: path, searchParams: query } = url;
    readBody(call.req, 64 * 1024)
      .then((body) => {
        call.seen.body = 'text' in body ? body.text : undefined;
        return call.reply(
          'notUtf8' in body
            ? notUtf8Body(body.notUtf8)
            : this.engine.issueToken({ method: call.method, path, query, headers: {}, body: 'text' in body ? body.text : undefined }, certificate),
        );
      })
      .catch(() => call.reply(error(500, { error: 'internal_error', message: 'The server failed to issue a token', request_id: call.requestId })));
  }

  /**
   * What is answered before any body is read: a target that is not a path, the OpenAPI document, a
   * route the table refuses (404, 405), a key refused (401), a query parameter that is not UTF-8.
   * True when it answered.
   */
  private answeredAtOnce(call: Call, match: ReturnType<Engine['route']> | undefined, caller: ReturnType<Engine['authenticate']>): boolean {
    const { req, url } = call;
    const answer = (response: EngineResponse, type?: string) => {
      req.resume();
      call.reply(response, {}, type);
      return true;
    };
    if (!url) return answer(error(400, { error: 'bad_request', message: 'The request target is not a valid path' }));
    const document = documentAnswer(call.method, url);
    if (document) {
      call.seen.route = OPENAPI_PATH;
      return answer(document.response, document.type);
    }
    if (match && 'response' in match) return answer(match.response);
    if ('response' in caller) return answer(caller.response);
    // Percent-escapes that are not UTF-8 would reach the engine as U+FFFD (docs/api.md "Text").
    const notUtf8Parameter = notUtf8QueryParameter(url.search);
    if (notUtf8Parameter !== undefined) return answer(error(400, { errors: [{ field: notUtf8Parameter, message: `is ${NOT_UTF8}` }] }));
    return false;
  }

  /** At most LARGE_BODIES_PER_KEY large bodies in flight per key lineage; none counted without limits (--no-rate-limit, load tests). */
  private admitLarge(res: ServerResponse, key: KeyOf | undefined): () => boolean {
    return () => {
      if (!key || !this.options.limiter) return true;
      const lineage = key.lineage;
      const running = this.largeBodies.get(lineage) ?? 0;
      if (running >= LARGE_BODIES_PER_KEY) return false;
      this.largeBodies.set(lineage, running + 1);
      res.on('close', () => {
        const left = (this.largeBodies.get(lineage) ?? 1) - 1;
        if (left > 0) this.largeBodies.set(lineage, left);
        else this.largeBodies.delete(lineage);
      });
      return true;
    };
  }

  /** A routed request of a caller with a key: its body read (413, 415, 429, not UTF-8), then the engine's answer (or a fault's). */
  private routedRequest(call: Call, url: URL, key: KeyOf) {
    const { req, res, method } = call;
    const { pathname: path, searchParams: query } = url;
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 section 6.3):
    // it is answered at once, without waiting for its end (most are GETs).
    const bodyless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    if (bodyless) req.resume();
    const type = header(req, 'content-type');
    const json = type === undefined || JSON_TYPES.test(type);
    (bodyless
      ? Promise.resolve<Body>({ text: '' })
      : readBody(req, this.limit, { gauge: json ? new JsonDepthGauge() : undefined, admitLarge: this.admitLarge(res, key) })
    )
      .then((read) => {
        if ('tooMany' in read) {
          return call.reply(
            error(429, {
              error: 'rate_limit_exceeded',
              message: `Rate limit exceeded: ${LARGE_BODIES_PER_KEY} request bodies over ${LARGE_BODY_BYTES / 1024 / 1024} MiB in flight`,
              retry_after: 1,
            }),
            { 'retry-after': '1' },
          );
        }
        if ('tooLarge' in read) {
          res.setHeader('connection', 'close');
          return call.reply(error(413, { error: 'payload_too_large', message: `The request body is larger than ${this.limit / 1024 / 1024} MiB` }));
        }
        if ('tooDeep' in read) return call.reply(error(400, { errors: [{ field: '', message: read.tooDeep }] }));
        if ('notUtf8' in read) return call.reply(notUtf8Body(read.notUtf8));
        const body = read.text;
        call.seen.body = body === '' ? undefined : body;
        if (body !== '' && !json) {
          return call.reply(
            error(415, { error: 'unsupported_media_type', message: `Send JSON (application/json, or application/fhir+json for claims), not ${type}` }),
          );
        }
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        // Links in answers use the scheme this server really serves, never one a client claims.
        headers['x-forwarded-proto'] = this.options.tls ? 'https' : 'http';
        // Every body that reaches here was counted for nesting as it arrived (a body that is not JSON was refused above).
        const work = (text: string | undefined) =>
          this.engine.handle({ method, path, query, headers, body: text === '' ? undefined : text, depthChecked: true }, { key, text: true });
        const fault = this.options.faults?.take(path);
        // Without a fault (every request but in a sandbox test), answered at once; a claim with the
        // others that arrived in the same turn, once their one transaction committed (Engine.handleGrouped).
        if (!fault && this.engine.groupsCommits(method, path))
          return this.engine
            .handleGrouped({ method, path, query, headers, body: body === '' ? undefined : body, depthChecked: true }, { key, text: true })
            .then((response) => call.reply(response));
        if (!fault) return call.reply(work(body));
        return withFault(fault, body, work).then((outcome) => {
          if ('response' in outcome) return call.reply(outcome.response);
          // A dropped connection: the client sees a reset, before (drop) or after (lose-response) the work.
          this.options.log(`${method} ${path} connection dropped (TPA_FAULT ${fault.kind})`);
          res.socket?.destroy();
        });
      })
      .catch(() => {
        if (!res.headersSent)
          call.reply(error(500, { error: 'internal_error', message: 'The server failed to process the request', request_id: call.requestId }));
      });
  }
}

/** What an observer is given of one exchange: the request as read (no route when none answered), and the answer as sent. */
function exchangeOf(
  request: Pick<Exchange, 'method' | 'target' | 'route' | 'requestHeaders' | 'requestBody'>,
  status: number,
  sent: { headers: Record<string, string>; body: string },
): Exchange {
  return { ...request, status, responseHeaders: sent.headers, responseBody: sent.body };
}

type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The key a request was made with. */
type KeyOf = Extract<ReturnType<Engine['authenticate']>, { key: unknown }>['key'];

/** One request being answered (Requests.callOf). */
interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: URL | undefined;
  requestId: string;
  /** For an observer: the route that answered, and the body as read. */
  seen: { route?: string; body?: string };
  limitHeaders: Record<string, string>;
  reply(response: EngineResponse, extra?: Record<string, string>, type?: string): void;
  refuse(verdict: LimitVerdict): void;
}

/** What Node's parser refused, as the service answers it: status, body and extra headers. */
function unparsedAnswer(engine: Engine, err: ParserError): { response: EngineResponse; line: string } {
  // A method Node does not know, on a request line otherwise whole: the route table answers as for
  // any method it does not serve (405 with Allow on a known path, 404 elsewhere).
  const requestLine = err.rawPacket?.toString('latin1').split('\r\n', 1)[0] ?? '';
  const parts = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (\/[!-~]*) HTTP\/1\.[01]$/.exec(requestLine);
  if ((err.code === 'HPE_INVALID_METHOD' || err.code === 'CONNECT_METHOD') && parts) {
    const path = parts[2]!.split('?', 1)[0]!;
    const match = engine.route(parts[1]!, path);
    if ('response' in match) return { response: match.response, line: `${parts[1]} ${path}` };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return { response: error(431, { error: 'request_header_fields_too_large', message: 'The request headers are too large' }), line: '(headers too large)' };
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { response: error(408, { error: 'request_timeout', message: 'The request took too long to arrive' }), line: '(request timeout)' };
  return {
    response: error(400, { error: 'bad_request', message: 'The request is not valid HTTP/1.1 (its request line, a header or the body framing)' }),
    line: '(not HTTP)',
  };
}

/**
 * A request Node's HTTP parser refused before any handler saw it (an unknown method, a malformed
 * request line or header): answered as every other request is, with the JSON error body, a request
 * id and the X-RateLimit-* headers of its address (docs/api.md "Limits": on every answer), then closed.
 */
function answerUnparsed(engine: Engine, options: ServeOptions, err: ParserError, socket: Duplex, observe: ServeOptions['observe']): void {
  const net = socket as Socket;
  // Nothing can be written to a connection that is gone, or in the middle of another answer.
  if (err.code === 'ECONNRESET' || !net.writable || net.bytesWritten > 0) {
    net.destroy();
    return;
  }
  const verdict = options.limiter?.admitAnonymous(net.remoteAddress ?? 'unknown');
  const { response, line } =
    verdict && !verdict.allowed
      ? {
          response: error(429, { error: 'rate_limit_exceeded', message: `Rate limit exceeded: ${verdict.reason}`, retry_after: verdict.retryAfter }),
          line: '(rate limited)',
        }
      : unparsedAnswer(engine, err);
  const body = bodyText(response.body);
  const headers: Record<string, string> = {
    ...response.headers,
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': newId('req_'),
    ...(verdict?.headers ?? unlimitedHeaders(Date.now())),
    ...(verdict && !verdict.allowed ? { 'retry-after': String(verdict.retryAfter) } : {}),
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  net.end(`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}\r\n${head}\r\n\r\n${body}`);
  options.log(`${line} ${response.status} (refused by the HTTP parser: ${err.code ?? err.message})`);
  // No request was read: the answer alone, with no route.
  const [method = '', target = line] = line.startsWith('(') ? [] : line.split(' ');
  observe?.(exchangeOf({ method, target, route: undefined, requestHeaders: {}, requestBody: undefined }, response.status, { headers, body }));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The verified client certificate of a mutual-TLS request. */
function clientCertificate(req: IncomingMessage): { fingerprint: string; commonName: string } | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (!socket.authorized || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert?.fingerprint256) return undefined;
  const cn = cert.subject?.CN;
  return { fingerprint: cert.fingerprint256, commonName: Array.isArray(cn) ? cn[0]! : (cn ?? '') };
}
