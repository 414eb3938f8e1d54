// HTTP transport on node:http and node:https (docs/design.md "Modes"): `{base_url}/tpa-api/v1/...` and `{base_url}/api/v1/...`,
// the API key header, timeouts. It moves requests and reports what came back; retries live in
// retry.ts. The key never reaches a log: --debug shows it redacted.
import type { Agent } from 'node:https';
import { prefixProblem } from '../domain/served-routes.js';
import { basePath, baseUrlProblem, serviceUrl, shownUrl } from '../domain/service-url.js';
import { jsonDepthProblem } from '../domain/json-depth.js';
import { redactedQuery, shownHeaderValue } from '../domain/secret-headers.js';
import { answered } from './answers.js';
import { NetworkError, UsageError } from '../errors.js';
import { exchange, MAX_ANSWER_BYTES, type ExchangeError } from './request.js';
import { tlsAgent, tlsError, tlsOptions, type TlsMaterial } from './tls.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  /** Production: OAuth access tokens (Authorization: Bearer), renewed once on a 401. */
  bearer?: { token(renew?: boolean): Promise<string> };
  tls?: TlsMaterial;
  timeoutMs?: number;
  debug?: (line: string) => void;
}

export class HttpTransport implements Transport {
  readonly name = 'http';
  private readonly base: string;
  private readonly agent: Agent | undefined;

  /** The base URL's own path, put before every request's path ("" for none). */
  private readonly prefix: string;

  constructor(private readonly options: HttpOptions) {
    // A base URL and nothing more (domain/service-url.ts): a query or a fragment would swallow the
    // request's path, so that what is sent is not the route the request names.
    const problem = baseUrlProblem(options.baseUrl);
    if (problem)
      throw new UsageError(`"${shownUrl(options.baseUrl)}" is not a base URL tpa accepts: ${problem}; nothing was sent`, {
        hint: "check the profile's base_url",
      });
    this.base = serviceUrl(options.baseUrl).replace(/\/+$/, '');
    this.prefix = basePath(this.base);
    this.agent = this.base.startsWith('https:') ? tlsAgent(options.tls ?? {}, this.base) : undefined;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const response = await this.sendOnce(request, false);
    // An access token the service no longer accepts (expired on its clock): renew it once.
    if (response.status === 401 && this.options.bearer) return this.sendOnce(request, true);
    return response;
  }

  private async sendOnce(request: TransportRequest, renewToken: boolean): Promise<TransportResponse> {
    // What is sent is the base URL's path followed by the request's: judged whole, before a credential
    // is attached, so that no base URL makes a lookup or a read a fund release or a finalize.
    const turned = prefixProblem(request.method, this.prefix, request.path);
    if (turned) throw new UsageError(`${turned}; nothing was sent`, { hint: "a base URL's path is only a prefix: check the profile's base_url" });
    const headers: Record<string, string> = { 'user-agent': 'tpa-cli', ...request.headers };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (this.options.bearer) headers.authorization = `Bearer ${await this.options.bearer.token(renewToken)}`;
    const url = `${this.base}${request.path}`;
    if (this.options.debug) {
      // Redacted by name and by value, and the profile's key (or token) wherever it appears.
      const known = [this.options.apiKey ?? '', headers.authorization?.replace(/^Bearer /, '') ?? ''];
      const shown = Object.entries(headers).map(([k, v]) => `${k}: ${shownHeaderValue(k, v, known)}`);
      this.options.debug(`${request.method} ${redactedQuery(url, known)} {${shown.join(', ')}}`);
    }
    try {
      const response = await exchange(url, {
        method: request.method,
        headers,
        body: request.body,
        timeoutMs: this.options.timeoutMs ?? 30_000,
        ...(this.agent ? { agent: this.agent, tls: tlsOptions(this.options.tls ?? {}) } : {}),
      });
      // The service answers no request with a redirect, and tpa follows none (the key would go along):
      // a 3xx is a server or a proxy that is not the service, never an empty success.
      if (response.status >= 300 && response.status < 400) {
        throw new NetworkError(
          `${this.base} answered ${response.status} (a redirect${response.headers.location ? ` to ${response.headers.location}` : ''}), which tpa does not follow`,
          {
            status: response.status,
            code: 'answer_redirect',
            hint: "check the profile's base_url",
          },
        );
      }
      // Nested deeper than any answer of the service (the one depth rule, domain/json-depth.ts):
      // never parsed, so nothing that reads or renders it can run out of stack.
      const tooDeep = jsonDepthProblem(response.text);
      if (tooDeep)
        throw new NetworkError(`${this.base} answered ${response.status} with ${tooDeep}: an answer tpa cannot use`, {
          status: response.status,
          code: 'answer_too_deep',
        });
      let body: unknown;
      try {
        body = response.text === '' ? undefined : JSON.parse(response.text);
      } catch {
        // A success that is not JSON carries nothing tpa can use; an error status is reported as its status.
        if (response.status < 300)
          throw new NetworkError(`${this.base} answered ${response.status} with a body that is not JSON`, { status: response.status, code: 'answer_not_json' });
        body = { error: 'invalid_response', message: `the server answered ${response.status} with a body that is not JSON` };
      }
      answered({ base: this.base, method: request.method, path: request.path.split('?')[0]! });
      return { status: response.status, headers: response.headers, body };
    } catch (err) {
      if (err instanceof NetworkError) throw err; // an answer that came but cannot be used (above)
      const e = err as ExchangeError;
      const tls = tlsError(e, this.base, Boolean(this.options.tls?.cert), Boolean(this.options.tls?.passphrase));
      if (tls) throw tls;
      // Only a failed request is a network failure; anything else (a base URL that is not one, a
      // header a key with a stray newline made invalid) is the setup's, and retrying cannot help.
      if (e.setup) throw new UsageError(`cannot send to ${this.base}: ${e.message}`);
      // A name that resolves off this machine: credentials never go there in clear (request.ts).
      if (e.code === 'ERR_NOT_LOOPBACK')
        throw new UsageError(`${this.base}: ${e.message}; nothing was sent`, { hint: 'use https://, or a loopback address such as http://127.0.0.1:4010' });
      if (e.code === 'ERR_RESPONSE_TOO_LARGE')
        throw new NetworkError(`${this.base} sent an answer of more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; tpa stopped reading it`, {
          code: 'answer_too_large',
        });
      const code = e.code;
      const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ETIMEDOUT' ? 'timed out' : code === 'ENOTFOUND' ? 'host not found' : e.message;
      throw new NetworkError(`cannot reach ${this.base}: ${what}`, {
        code: code ?? 'network_error',
        hint: code === 'ECONNREFUSED' ? 'is the server running? (tpa local serve)' : undefined,
      });
    }
  }
}
