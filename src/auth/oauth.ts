// Production credentials (docs/api.md "OAuth 2.0 with mutual TLS"): the client certificate is
// presented to POST {auth_url}/oauth2/token for an access token, which is cached in the credential
// store with its expiry and renewed five minutes before it ends, or at once when the service says
// it no longer accepts it.
import { AuthError, NetworkError, RateLimitedError } from '../errors.js';
import { exchange, type ExchangeError } from '../client/request.js';
import { tlsAgent, tlsError, tlsOptions, type TlsMaterial } from '../client/tls.js';
import type { SecretStore } from './credentials.js';

export const RENEW_BEFORE_MS = 5 * 60_000;

interface CachedToken {
  access_token: string;
  expires_at: number;
}

export interface TokenOptions {
  authUrl: string;
  clientId: string;
  scopes?: string[];
  tls: TlsMaterial;
  store: SecretStore;
  /** Store account of the cached token, e.g. token:production. */
  account: string;
  debug?: (line: string) => void;
  now?: () => number;
}

export class TokenSource {
  private cached: CachedToken | undefined;

  constructor(private readonly o: TokenOptions) {}

  async token(renew = false): Promise<string> {
    const now = (this.o.now ?? Date.now)();
    if (!renew) {
      if (!this.cached) {
        const stored = await this.o.store.get(this.o.account);
        this.cached = stored ? (JSON.parse(stored) as CachedToken) : undefined;
      }
      if (this.cached && this.cached.expires_at - now > RENEW_BEFORE_MS) return this.cached.access_token;
    }
    this.cached = await this.request(now);
    await this.o.store.set(this.o.account, JSON.stringify(this.cached));
    return this.cached.access_token;
  }

  private async request(now: number): Promise<CachedToken> {
    const url = `${this.o.authUrl.replace(/\/+$/, '')}/oauth2/token`;
    this.o.debug?.(`POST ${url} (client certificate, client_id ${this.o.clientId})`);
    let response;
    try {
      const json = JSON.stringify({ grant_type: 'client_credentials', client_id: this.o.clientId, ...(this.o.scopes ? { scopes: this.o.scopes } : {}) });
      response = await exchange(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'tpa-cli' },
        body: json,
        timeoutMs: 30_000,
        agent: tlsAgent(this.o.tls, url),
        tls: tlsOptions(this.o.tls),
      });
    } catch (err) {
      const tls = tlsError(err as ExchangeError, url, true, Boolean(this.o.tls.passphrase));
      if (tls) throw tls;
      throw new NetworkError(`cannot reach ${url}: ${(err as Error).message}`);
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(response.text) as Record<string, unknown>;
    } catch {
      // reported below
    }
    this.o.debug?.(`← ${response.status} POST ${url}`);
    // A 429 is a limit, not a refused credential: exit 6 like any other (docs/design.md "Exit codes").
    if (response.status === 429) {
      throw new RateLimitedError(`the token endpoint is rate limited: ${String(body.message ?? body.error ?? 'HTTP 429')}`, {
        status: 429,
        code: typeof body.error === 'string' ? body.error : 'rate_limit_exceeded',
        ...(typeof body.retry_after === 'number' ? { hint: `try again in ${body.retry_after} s` } : {}),
      });
    }
    if (response.status !== 200 || typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new AuthError(`the token endpoint refused: ${String(body.error_description ?? body.error ?? `HTTP ${response.status}`)}`, {
        status: response.status,
        code: typeof body.error === 'string' ? body.error : 'token_refused',
      });
    }
    return { access_token: body.access_token, expires_at: now + body.expires_in * 1000 };
  }
}
