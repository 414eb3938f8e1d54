// The one route table (docs/design.md "Architecture"): method and path as served → handler. Both the
// in-process transport and the HTTP server go through it, so a command behaves the same either way.
import { compilePath, matchPath, type CompiledPath, type PathMatch } from '../domain/served-routes.js';
import type { EngineContext } from './context.js';
import type { EngineRequest, EngineResponse } from './exchange.js';
import {
  addSsp,
  configureSchedule,
  finalizeSchedule,
  getSchedule,
  initSchedule,
  listCatalog,
  loadCatalog,
  previewSchedule,
  removeSsp,
} from './services/builder.js';
import { claimResponse, submitClaim } from './services/claims.js';
import { approveFunding } from './services/funding.js';
import { health, listKeys, rotateKey, type Scope } from './services/keys.js';
import { ledgerDetail, listLedger } from './services/ledger.js';
import { blindLookup, fullLookup } from './services/lookup.js';
import { getSettlement } from './services/settlement.js';

export type Handler = (ctx: EngineContext, req: EngineRequest, params: Record<string, string>) => EngineResponse;

/** A route: its method and path template compiled (domain/served-routes.ts), and how it is served. */
export interface Route extends CompiledPath {
  handler: Handler;
  /** Over HTTP: the scope the key needs (docs/api.md "Authentication"); null: any valid key. */
  scope: Scope | null;
  /** Over HTTP: requests per minute per key for this endpoint (docs/api.md "Limits"); null: the tier's. */
  perMinute: number | null;
  /** The answer depends only on the stored data and the request: it may be served from the read cache. */
  cacheable: boolean;
  /**
   * A write whose handler brings what the engine clock made due up to date itself, first thing in
   * its own write transaction, instead of the engine doing it in a read transaction before.
   */
  advancesItself: boolean;
  /**
   * Requests of this route that arrive together may share one write transaction, each in its own
   * savepoint (group-commit.ts): claim submissions, whose batches send many at once.
   */
  groupCommit: boolean;
}

function route(
  method: string,
  path: string,
  handler: Handler,
  scope: Scope | null = null,
  perMinute: number | null = null,
  cacheable = false,
  advancesItself = false,
  groupCommit = false,
): Route {
  // Compiled as the router reads paths (domain/served-routes.ts), the reading `tpa api` relies on.
  return compilePath({ method, path, handler, scope, perMinute, cacheable, advancesItself, groupCommit });
}

const TPA = '/tpa-api/v1';
const BUILDER = '/api/v1/computable-contracts/builder/{instance_id}';

// mutation: no survivors (the scope table)
export const ROUTES: readonly Route[] = [
  route('POST', `${TPA}/contract-lookup/blind/`, blindLookup, 'contract_lookup', 1000),
  route('POST', `${TPA}/contract-lookup/full/`, fullLookup, 'contract_lookup', 500),
  route('POST', `${TPA}/claims/submit/`, submitClaim, 'claim_pricing', 100, false, true, true),
  route('GET', `${TPA}/claims/{submission_id}/response/`, claimResponse, 'claim_pricing', 100),
  route('POST', `${TPA}/funding/approve/`, approveFunding, 'fund_release', 10),
  route('GET', `${TPA}/settlement/{encounter_id}/`, getSettlement, 'ledger_access', 200),
  route('GET', `${TPA}/ledger/entries/`, listLedger, 'ledger_access', 100, true),
  route('GET', `${TPA}/ledger/entries/{encounter_id}/`, ledgerDetail, 'ledger_access', 200),
  // The contract (docs/api.md) writes these three without a trailing slash; both forms are served.
  route('GET', `${TPA}/health`, health),
  route('GET', `${TPA}/health/`, health),
  route('GET', `${TPA}/keys`, listKeys),
  route('GET', `${TPA}/keys/`, listKeys),
  route('POST', `${TPA}/keys/rotate`, rotateKey),
  route('POST', `${TPA}/keys/rotate/`, rotateKey),
  // The contract builder (the contract leaves its credentials open; docs/security-access.md "Who may do what"):
  // reading the catalog, a schedule and its preview takes the read scope contract_lookup; changing
  // or finalizing a schedule changes what is paid, and takes contract_build, which no read scope gives.
  route('GET', '/api/v1/ssp/catalog/', listCatalog, 'contract_lookup', null, true),
  route('POST', `${BUILDER}/rate-schedule/init/`, initSchedule, 'contract_build'),
  route('GET', `${BUILDER}/rate-schedule/`, getSchedule, 'contract_lookup'),
  route('PATCH', `${BUILDER}/rate-schedule/config/`, configureSchedule, 'contract_build'),
  route('PUT', `${BUILDER}/rate-schedule/add-ssp/`, addSsp, 'contract_build'),
  route('DELETE', `${BUILDER}/rate-schedule/remove-ssp/`, removeSsp, 'contract_build'),
  route('POST', `${BUILDER}/rate-schedule/load-catalog/`, loadCatalog, 'contract_build'),
  route('GET', `${BUILDER}/rate-schedule/preview/`, previewSchedule, 'contract_lookup'),
  // The contract (docs/api.md) writes this one without the trailing slash; both forms are served.
  route('POST', `${BUILDER}/finalize`, finalizeSchedule, 'contract_build'),
  route('POST', `${BUILDER}/finalize/`, finalizeSchedule, 'contract_build'),
];
// mutation: end

export type Match = PathMatch<Route>;

/**
 * The route for a method and path; `{ allowed }` when the path exists for other methods only (HEAD
 * takes the GET route): the first match of the table, read as domain/served-routes.ts says.
 */
export function matchRoute(method: string, path: string): Match {
  return matchPath(ROUTES, method, path);
}
