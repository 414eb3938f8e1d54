// The typed API client: one method per endpoint of the contract (docs/api.md), over any Transport. It knows paths,
// headers and statuses, not the terminal. Answers of status ≥ 400 become TpaErrors with the
// exit code docs/design.md "Exit codes" assigns; 2xx (including 202) are returned with their status.
import { randomUUID } from 'node:crypto';
import { redactedQuery } from '../domain/secret-headers.js';
import { changesRates, releasesMoney } from '../domain/served-routes.js';
import { errorFromResponse, UsageError } from '../errors.js';
import type { Transport, TransportResponse } from './transport.js';
import type {
  ApiKeyInfo,
  BlindLookupResult,
  CatalogPage,
  CatalogQuery,
  ClaimAcknowledgment,
  ClaimResponseBody,
  FullLookupResult,
  FundingApproval,
  FundingApproved,
  Health,
  LedgerDetail,
  LedgerFilters,
  LedgerPage,
  LedgerRows,
  PreviewItem,
  RateSchedule,
  ScheduleItemInput,
  ScheduleSettings,
  SettlementPending,
  SettlementRecord,
} from './types.js';

export const TPA_PREFIX = '/tpa-api/v1';
export const BUILDER_PREFIX = '/api/v1';

/**
 * A page link (absolute over HTTP, a path in-process) as a path as served: from /tpa-api/ or /api/
 * on, since the transport adds the base URL, which may carry a path of its own.
 */
export function pathOfLink(link: string): string {
  const url = new URL(link, 'http://local');
  const start = url.pathname.search(/\/(tpa-api|api)\/v\d+\//);
  return `${start >= 0 ? url.pathname.slice(start) : url.pathname}${url.search}`;
}

function ledgerPath(filters: LedgerFilters): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined) q.set(k, String(v));
  const query = q.toString();
  return `${TPA_PREFIX}/ledger/entries/${query ? `?${query}` : ''}`;
}

export interface ApiResult<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

export interface RequestOptions {
  body?: string;
  contentType?: string;
  idempotencyKey?: string;
  /** The route this request is made for, when it is a fund release or a finalize (see `call`). */
  route?: 'money' | 'rates';
  /** Further headers (tpa api -H, lower-case names, checked there); tpa's Idempotency-Key comes after them. */
  headers?: Record<string, string>;
  /** A list's rows as their JSON text where the transport has them (Transport rowsAsText). */
  rowsAsText?: boolean;
}

export interface ClientOptions {
  /** Called with each request and response, for --debug (credentials already absent or redacted). */
  debug?: (line: string) => void;
}

export class TpaClient {
  constructor(
    readonly transport: Transport,
    private readonly options: ClientOptions = {},
  ) {}

  /** A raw request; returns whatever the service answered, without judging the status. */
  async raw(method: string, path: string, options: RequestOptions = {}): Promise<TransportResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    Object.assign(headers, options.headers);
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    this.options.debug?.(`→ ${method} ${redactedQuery(path)}${options.idempotencyKey ? ` (Idempotency-Key: ${options.idempotencyKey})` : ''}`);
    // Timed for --debug only: the global performance loads node:perf_hooks on first use.
    const started = this.options.debug ? performance.now() : 0;
    const response = await this.transport.send({ method, path, headers, body: options.body, ...(options.rowsAsText ? { rowsAsText: true } : {}) });
    this.options.debug?.(`← ${response.status} ${method} ${redactedQuery(path)} (${Math.round(performance.now() - started)} ms, ${this.transport.name})`);
    return response;
  }

  private async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
    // A typed request reaches a fund release or a finalize only from the method made for it, which its
    // command confirmed: an id from outside (`..%2F..%2F…`) that a lenient service would read into
    // one of those routes sends nothing (tpa api, which asks for any spelling, uses raw).
    if (method !== 'GET' && method !== 'HEAD') {
      const reached = reachedRoute(method, path);
      if (reached && reached !== options.route)
        throw new UsageError(
          `${method} ${path} would reach ${reached === 'money' ? 'a fund release' : "a rate schedule's finalize"} on a service that reads paths leniently; nothing was sent`,
          { hint: 'check the ids given: one holds a path of its own' },
        );
    }
    const response = await this.raw(method, path, options);
    if (response.status >= 400) throw errorFromResponse(response.status, response.body);
    return { status: response.status, headers: response.headers, body: response.body as T };
  }

  blindLookup(input: { npi: string; group_id: string; cpt_codes: string[]; service_date?: string }): Promise<ApiResult<BlindLookupResult>> {
    return this.call('POST', `${TPA_PREFIX}/contract-lookup/blind/`, { body: JSON.stringify(input) });
  }

  fullLookup(input: {
    contract_id: string;
    npi: string;
    group_id: string;
    cpt_code: string;
    admit_type?: string;
    service_date?: string;
  }): Promise<ApiResult<FullLookupResult>> {
    return this.call('POST', `${TPA_PREFIX}/contract-lookup/full/`, { body: JSON.stringify(input) });
  }

  /** Submits FHIR Claim JSON text as given; always with an Idempotency-Key (docs/api.md "Idempotency"). */
  submitClaim(claimJson: string, idempotencyKey: string = randomUUID()): Promise<ApiResult<ClaimAcknowledgment>> {
    return this.call('POST', `${TPA_PREFIX}/claims/submit/`, { body: claimJson, contentType: 'application/fhir+json', idempotencyKey });
  }

  claimResponse(submissionId: string, includeRaw = false): Promise<ApiResult<ClaimResponseBody>> {
    const query = includeRaw ? '?include_raw_response=true' : '';
    return this.call('GET', `${TPA_PREFIX}/claims/${encodeURIComponent(submissionId)}/response/${query}`);
  }

  /** Approves a fund release. Never retried blindly (docs/client.md "Client behaviour"): the caller decides. */
  approveFunding(input: FundingApproval, idempotencyKey: string = randomUUID()): Promise<ApiResult<FundingApproved>> {
    return this.call('POST', `${TPA_PREFIX}/funding/approve/`, { body: JSON.stringify(input), idempotencyKey, route: 'money' });
  }

  /** 200 with the settlement record, or 202 PENDING before funding. */
  settlement(encounterId: string): Promise<ApiResult<SettlementRecord | SettlementPending>> {
    return this.call('GET', `${TPA_PREFIX}/settlement/${encodeURIComponent(encounterId)}/`);
  }

  ledgerList(filters: LedgerFilters = {}): Promise<ApiResult<LedgerPage>> {
    return this.call('GET', ledgerPath(filters));
  }

  /** The page a ledger `next` or `previous` link names. */
  ledgerPage(link: string): Promise<ApiResult<LedgerPage>> {
    return this.call('GET', pathOfLink(link));
  }

  /**
   * ledgerList and ledgerPage for a listing that prints rows as they are (`--all -o ndjson`): in-process
   * each row comes as its JSON text (a JsonRow), over HTTP as values.
   */
  ledgerRows(filters: LedgerFilters): Promise<ApiResult<LedgerRows>> {
    return this.call('GET', ledgerPath(filters), { rowsAsText: true });
  }

  ledgerRowsPage(link: string): Promise<ApiResult<LedgerRows>> {
    return this.call('GET', pathOfLink(link), { rowsAsText: true });
  }

  ledgerDetail(encounterId: string): Promise<ApiResult<LedgerDetail>> {
    return this.call('GET', `${TPA_PREFIX}/ledger/entries/${encodeURIComponent(encounterId)}/`);
  }

  catalog(query: CatalogQuery = {}): Promise<ApiResult<CatalogPage>> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
    const text = q.toString();
    return this.call('GET', `${BUILDER_PREFIX}/ssp/catalog/${text ? `?${text}` : ''}`);
  }

  /** The page a catalog `next` link names. */
  catalogPage(link: string): Promise<ApiResult<CatalogPage>> {
    return this.call('GET', pathOfLink(link));
  }

  private builder(instanceId: string, rest: string): string {
    return `${BUILDER_PREFIX}/computable-contracts/builder/${encodeURIComponent(instanceId)}/${rest}`;
  }

  initSchedule(instanceId: string, settings: Partial<ScheduleSettings> = {}): Promise<ApiResult<{ rate_schedule_id: string; message: string }>> {
    return this.call('POST', this.builder(instanceId, 'rate-schedule/init/'), { body: JSON.stringify(settings) });
  }

  schedule(instanceId: string): Promise<ApiResult<{ rate_schedule: RateSchedule }>> {
    return this.call('GET', this.builder(instanceId, 'rate-schedule/'));
  }

  configureSchedule(instanceId: string, settings: Partial<ScheduleSettings>): Promise<ApiResult<{ message: string }>> {
    return this.call('PATCH', this.builder(instanceId, 'rate-schedule/config/'), { body: JSON.stringify(settings) });
  }

  addSsp(instanceId: string, item: ScheduleItemInput): Promise<ApiResult<{ rate_schedule_item_id: string; ssp_id: string; message: string }>> {
    return this.call('PUT', this.builder(instanceId, 'rate-schedule/add-ssp/'), { body: JSON.stringify(item) });
  }

  removeSsp(instanceId: string, sspId: string): Promise<ApiResult<{ message: string }>> {
    return this.call('DELETE', this.builder(instanceId, 'rate-schedule/remove-ssp/'), { body: JSON.stringify({ ssp_id: sspId }) });
  }

  loadCatalog(instanceId: string, version?: string): Promise<ApiResult<{ message: string; count: number }>> {
    return this.call('POST', this.builder(instanceId, 'rate-schedule/load-catalog/'), { body: JSON.stringify(version ? { version } : {}) });
  }

  previewSchedule(instanceId: string): Promise<ApiResult<{ items: PreviewItem[] }>> {
    return this.call('GET', this.builder(instanceId, 'rate-schedule/preview/'));
  }

  finalize(
    instanceId: string,
    options: { effective_date?: string; allow_retroactive?: boolean; dry_run?: boolean } = {},
  ): Promise<
    ApiResult<{
      status: string;
      contract_id: string;
      rate_records_created: number;
      effective_date?: string;
      /** Codes the schedule rates from the effective date; codes whose rates in force end the day before; those of them it does not rate again. */
      codes_rated?: string[];
      codes_ended?: string[];
      codes_dropped?: string[];
      message: string;
    }>
  > {
    return this.call('POST', this.builder(instanceId, 'finalize'), { body: JSON.stringify(options), route: 'rates' });
  }

  health(): Promise<ApiResult<Health>> {
    return this.call('GET', `${TPA_PREFIX}/health`);
  }

  keys(): Promise<ApiResult<{ keys: ApiKeyInfo[] }>> {
    return this.call('GET', `${TPA_PREFIX}/keys`);
  }

  /** Issues a new key; the one in use keeps working for 24 hours. */
  rotateKey(): Promise<ApiResult<{ api_key: string; key_id: string; previous_key_expires_at: string }>> {
    return this.call('POST', `${TPA_PREFIX}/keys/rotate`, { body: '{}' });
  }

  /**
   * Runs `fn`'s reads against one consistent state where the transport can (see Transport.snapshot);
   * `fn` is told whether they do.
   */
  snapshot<T>(fn: (consistent: boolean) => Promise<T>): Promise<T> {
    return this.transport.snapshot ? this.transport.snapshot(() => fn(true)) : fn(false);
  }

  close(): void {
    this.transport.close?.();
  }
}

/**
 * What a request's method and path reach (served-routes.ts `releasesMoney`, `changesRates`), kept
 * for the paths asked again: a batch sends every claim to one path, and each reading costs tens of
 * microseconds (its lenient spellings). A pure function of the two, so a kept verdict is the verdict.
 */
function reachedRoute(method: string, path: string): 'money' | 'rates' | undefined {
  const key = `${method} ${path}`;
  const kept = reached.get(key);
  if (kept !== undefined) return kept === 'none' ? undefined : kept;
  const verdict = releasesMoney(method, path) ? 'money' : changesRates(method, path) ? 'rates' : 'none';
  // Paths with ids come once each: the memory stays bounded whatever the job.
  if (reached.size >= 256) reached.clear();
  reached.set(key, verdict);
  return verdict === 'none' ? undefined : verdict;
}
const reached = new Map<string, 'money' | 'rates' | 'none'>();
