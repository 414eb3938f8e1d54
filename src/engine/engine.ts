// The embedded engine: opens the SQLite store, owns the clock, and answers requests through the
// route table. Every answer is a status and a JSON body; nothing here throws at a caller except
// a broken setup (unreadable data dir, bad TPA_CLOCK).
import { parseDuration } from '../domain/duration.js';
import { InvalidInput } from './errors.js';
import {
  clockTime,
  engineNow,
  envClock,
  heldClock,
  isoSeconds,
  parseTimestamp,
  readStoredClock,
  recordedUntil,
  writeStoredClock,
  type ClockSource,
} from './clock.js';
import type { EngineContext } from './context.js';
import { bodyText, HttpError, illFormedText, respond, type EngineRequest, type EngineResponse } from './exchange.js';
import { newId } from './ids.js';
import { PageBody } from './page-body.js';
import { GroupCommit, type GroupStats } from './group-commit.js';
import { ReadCache } from './read-cache.js';
import { matchRoute, type Route } from './routes.js';
import {
  AUTH_DOCS,
  authenticate,
  createKey,
  listAllKeys,
  revokeLineage,
  type KeyEnvironment,
  type KeyListing,
  type KeyRecord,
  type Scope,
} from './services/keys.js';
import { authenticateToken, issueToken, listClients, registerClient, revokeClient, type ClientCertificate, type ClientRegistration } from './services/oauth.js';
import { advanceEncounters, anythingDue } from './services/progress.js';
import { type CopyFacts, writeBackup } from './services/backup.js';
import { asActor, auditHead, listAudit, verifyAudit, verifyAuditDeep, type AuditFilter, type DeepVerdict } from './services/audit.js';
import { AUDIT_HEAD_HEADER, formatAuditHead, type AuditActor, type AuditHead, type ChainVerdict, type StoredAudit } from '../domain/audit.js';
import { fixtures } from './services/fixtures.js';
import { checkClaim } from './services/claims.js';
import { simulate, type Scenario } from './services/sandbox.js';
import { databaseFile, parseDatabaseKey } from './store/cipher.js';
import { openDatabase, PAGE_CACHE_KB, storageProblem, type Db } from './store/db.js';

export const DEFAULT_ADJUDICATION_DELAY_MS = 3000;

/** A body as the transports send it: a page written as its JSON text. */
function sendable(body: unknown): unknown {
  return body instanceof PageBody ? body.sendable() : body;
}

/**
 * A body as the JSON values an HTTP client reads from it: a page built as values straight from its
 * rows; anything else through JSON text and back, so that an in-process caller sees exactly what
 * the HTTP transport would give it.
 */
function jsonValues(body: unknown): unknown {
  if (body === undefined) return undefined;
  if (body instanceof PageBody) return body.values();
  return JSON.parse(bodyText(body));
}

export interface Credentials {
  apiKey?: string;
  /** An OAuth access token (Authorization: Bearer). */
  bearer?: string;
  /** The client certificate, when the request came over mutual TLS. */
  certificate?: ClientCertificate;
  /**
   * The server is the production one (mutual TLS): it takes OAuth tokens only, never an API key
   * (docs/api.md "Authentication": production does not support API keys).
   */
  oauthOnly?: boolean;
}

export interface EngineOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** SQLite's page cache in KiB (default PAGE_CACHE_KB, for a long-lived engine). */
  pageCacheKb?: number;
  /** How much of the database file to read through a memory map (SERVER_MMAP_BYTES for local serve). */
  mmapBytes?: number;
  /** The key of an encrypted database (from the keychain); TPA_DB_KEY in `env` when not given. */
  databaseKey?: Buffer;
  /** Create the database encrypted when there is none yet (tpa local init --encrypt). */
  createEncrypted?: boolean;
  /** Where a note for the user goes (a data folder that was narrowed); stderr by default. */
  note?: (text: string) => void;
  /**
   * Who acts in a request that comes with no key (the CLI in-process: `local:<profile>`), and in
   * the local operations (`tpa local keys create`, `simulate`); default `local`.
   */
  actor?: AuditActor;
}

/** The actor of a request over HTTP: its API key's id, or its OAuth client; never the key itself. */
export function actorOf(key: KeyRecord): AuditActor {
  return key.lineage.startsWith('oauth:') ? key.lineage : `api_key:${key.id}`;
}

export { databaseFile };

export interface ClockStatus {
  /** The engine's time: the clock's, or the latest time recorded when the clock is earlier. */
  now: string;
  source: ClockSource;
  stored: ReturnType<typeof readStoredClock>;
  /** The clock's own time (differs from `now` only when held). */
  clock: string;
  /** Whether `now` is held at the latest time recorded, the clock being earlier. */
  held: boolean;
  /** The latest time the engine has recorded, or null when nothing is. */
  recorded_until: string | null;
}

export class Engine {
  private readonly cache: ReadCache;
  /** Runs a function in one deferred (read) transaction; made once, as better-sqlite3 builds one per call. */
  private readonly readTransaction: <T>(fn: () => T) => T;
  /** Inside readSnapshot: requests read one stored state and change nothing. */
  private snapshot = false;
  /** Claim submissions arriving together, answered in one write transaction (group-commit.ts). */
  private groups: GroupCommit<{ req: EngineRequest; options: { key?: KeyRecord; text?: boolean; json?: boolean } }> | undefined;
  /** What the requests of one read snapshot share (EngineContext snapshotMemo). */
  private snapshotMemo: Map<string, unknown> | undefined;

  private constructor(
    readonly db: Db,
    private readonly override: Date | undefined,
    private readonly adjudicationDelayMs: number,
    private readonly pageCacheKb: number,
    private readonly actor: AuditActor,
  ) {
    this.cache = new ReadCache(db);
    const read = db.transaction((fn: () => unknown) => fn());
    this.readTransaction = <T>(fn: () => T) => read(fn) as T;
  }

  static open(options: EngineOptions): Engine {
    const env = options.env ?? process.env;
    const override = envClock(env);
    const delayText = env.TPA_ADJUDICATION_DELAY;
    const adjudicationDelayMs = delayText === undefined || delayText === '' ? DEFAULT_ADJUDICATION_DELAY_MS : parseDuration(delayText);
    if (adjudicationDelayMs === undefined) {
      throw new InvalidInput(`TPA_ADJUDICATION_DELAY must be a duration such as 3s or 0 (got "${delayText}")`);
    }
    const pageCacheKb = options.pageCacheKb ?? PAGE_CACHE_KB;
    const key = options.databaseKey ?? (env.TPA_DB_KEY ? parseDatabaseKey(env.TPA_DB_KEY, 'TPA_DB_KEY') : undefined);
    return new Engine(
      openDatabase(databaseFile(options.dataDir), {
        clockOverride: override,
        cacheKb: pageCacheKb,
        mmapBytes: options.mmapBytes,
        key,
        createEncrypted: options.createEncrypted,
        note: options.note,
      }),
      override,
      adjudicationDelayMs,
      pageCacheKb,
      options.actor ?? 'local',
    );
  }

  /**
   * A context for one request or operation: the clock is read once, so every step sees one time,
   * never earlier than the latest time recorded (clock.ts heldClock).
   */
  context(): EngineContext {
    return {
      db: this.db,
      clock: heldClock(this.db, clockTime(this.db, this.override).now),
      adjudicationDelayMs: this.adjudicationDelayMs,
      ...(this.snapshotMemo ? { snapshotMemo: this.snapshotMemo } : {}),
    };
  }

  /**
   * Over HTTP, before the body is read: the route must exist and the X-API-Key be valid on the
   * engine clock (docs/api.md "Authentication"). The server applies its rate limits in between, as
   * `route` and `authenticate` let it (docs/client.md "Over the wire: choices").
   */
  authorize(method: string, path: string, credentials: Credentials): { route: Route; key: KeyRecord } | { response: EngineResponse } {
    const match = this.route(method, path);
    if ('response' in match) return match;
    const caller = this.authenticate(credentials);
    return 'response' in caller ? caller : { route: match.route, key: caller.key };
  }

  /** The caller's key or token, valid on the engine clock, or the 401 it gets. */
  authenticate(credentials: Credentials): { key: KeyRecord } | { response: EngineResponse } {
    const now = engineNow(this.db, this.override).now;
    const refuse = (error: string, message: string) => ({ response: respond(401, { error, message, documentation: AUTH_DOCS }) });
    if (credentials.bearer) {
      const key = authenticateToken(this.db, credentials.bearer, now, credentials.certificate);
      if (key === 'revoked') return refuse('invalid_token', 'The access token was revoked: its client was revoked');
      return key ? { key } : refuse('invalid_token', 'The access token is invalid or expired, or was issued to another client certificate');
    }
    if (credentials.oauthOnly) {
      return refuse(
        credentials.apiKey ? 'invalid_api_key' : 'invalid_token',
        credentials.apiKey
          ? 'This is the production service: API keys are not accepted here; send an OAuth access token (Authorization: Bearer, from POST /oauth2/token with the client certificate)'
          : 'No access token: send Authorization: Bearer <token> (from POST /oauth2/token with the client certificate)',
      );
    }
    const key = authenticate(this.db, credentials.apiKey ?? '', now);
    if (key === 'revoked') return refuse('invalid_api_key', 'The API key was revoked');
    if (key) return { key };
    return refuse('invalid_api_key', credentials.apiKey ? 'The API key is invalid or expired' : 'No API key: send it in the X-API-Key header');
  }

  /** POST {auth_url}/oauth2/token over mutual TLS (the HTTPS server passes the client certificate). */
  issueToken(req: EngineRequest, certificate: ClientCertificate | undefined): EngineResponse {
    const illFormed = illFormedText(req);
    if (illFormed) return illFormed;
    try {
      return this.db.transaction(() => issueToken(this.context(), req, certificate)).immediate();
    } catch (err) {
      if (err instanceof HttpError) return respond(err.status, err.body);
      throw err;
    }
  }

  /** The route of a method and path (HEAD takes the GET route), or the 404 or 405 they get. */
  route(method: string, path: string): { route: Route; params: Record<string, string> } | { response: EngineResponse } {
    const match = matchRoute(method, path);
    if (!match) return { response: respond(404, { error: 'not_found', message: `No route ${method} ${path}`, path }) };
    if ('allowed' in match) {
      return {
        response: respond(405, { error: 'method_not_allowed', message: `${path} accepts ${match.allowed.join(', ')}` }, { allow: match.allowed.join(', ') }),
      };
    }
    return match;
  }

  /**
   * Answers a request. In-process (the local transport) there is no key and no check; over HTTP the
   * server passes the caller's key, which must carry the route's scope. HEAD is answered as GET
   * without the body: same status and headers, and the GET body's content-length.
   * The body comes as the transports send it with `text` (JSON text where the engine wrote it so);
   * with `json`, as the JSON values an HTTP client would read from it, for an in-process caller; else
   * as the handler's objects. With `json` and `rowsAsText`, a page's list rows come as their JSON
   * text (domain/json-row.ts) where the page has that form.
   */
  handle(req: EngineRequest, options: { key?: KeyRecord; text?: boolean; json?: boolean; rowsAsText?: boolean } = {}): EngineResponse {
    const response = this.answer(req, options);
    const body = response.body;
    if (req.method === 'HEAD')
      return {
        status: response.status,
        headers: { ...response.headers, 'content-length': String(Buffer.byteLength(bodyText(sendable(body)))) },
        body: undefined,
      };
    if (options.json) return { ...response, body: options.rowsAsText && body instanceof PageBody ? body.textRows() : jsonValues(body) };
    if (!(body instanceof PageBody)) return response;
    return { ...response, body: options.text ? sendable(body) : body.values() };
  }

  /**
   * Answers a request as `handle` does; a request of a grouping route (claim submissions) is queued
   * with the others that arrive in the same turn and answered once their one transaction committed
   * (group-commit.ts). The in-process transport and `local serve` both send claims through here.
   */
  handleGrouped(req: EngineRequest, options: { key?: KeyRecord; text?: boolean; json?: boolean } = {}): Promise<EngineResponse> {
    if (!this.groupsCommits(req.method, req.path)) return Promise.resolve(this.handle(req, options));
    this.groups ??= new GroupCommit(this.db, (queued) => this.handle(queued.req, queued.options));
    return this.groups.submit({ req, options });
  }

  /** Whether `handleGrouped` groups requests of this method and path (never inside a read snapshot). */
  groupsCommits(method: string, path: string): boolean {
    const match = matchRoute(method, path);
    return !this.snapshot && match !== undefined && 'route' in match && match.route.groupCommit;
  }

  /** How many groups `handleGrouped` committed, and how many requests they held. */
  get groupStats(): GroupStats {
    return { ...(this.groups?.stats ?? { groups: 0, requests: 0, largest: 0 }) };
  }

  private answer(req: EngineRequest, options: { key?: KeyRecord }): EngineResponse {
    // Text that is not well-formed Unicode reaches no route (docs/api.md "Text"), in-process as over HTTP.
    const illFormed = illFormedText(req);
    if (illFormed) return illFormed;
    const match = this.route(req.method, req.path);
    if ('response' in match) return match.response;
    // Every audit record the request appends names who sent it (what the clock made due: the engine's).
    return asActor(this.db, options.key ? actorOf(options.key) : this.actor, () => this.answerAs(req, match, options));
  }

  private answerAs(req: EngineRequest, match: { route: Route; params: Record<string, string> }, options: { key?: KeyRecord }): EngineResponse {
    try {
      const ctx = this.context();
      const key = options.key;
      if (key) {
        if (match.route.scope && !key.scopes.includes(match.route.scope)) {
          return respond(403, {
            error: 'insufficient_scope',
            message: `This operation needs the ${match.route.scope} scope`,
            required_scope: match.route.scope,
            current_scopes: key.scopes,
          });
        }
        ctx.key = key;
      }
      const reads = req.method === 'GET' || req.method === 'HEAD';
      if (this.snapshot) {
        if (!reads)
          return respond(409, {
            error: 'read_only_snapshot',
            message: 'This engine is reading one snapshot (a listing in progress); it changes nothing until the listing ends',
          });
        // A snapshot's pages are read once each (a listing): caching them would only hold memory.
        return match.route.handler(ctx, req, match.params);
      }
      const answer = () =>
        match.route.cacheable
          ? this.cache.answer(`${req.path}?${req.query.toString()}|${req.headers.host ?? ''}`, () => match.route.handler(ctx, req, match.params))
          : match.route.handler(ctx, req, match.params);
      if (!reads) {
        // One read of what is pending (nearly always nothing) instead of the two queries that would
        // move it, each in a read transaction of its own before the request's write transaction. A
        // claim makes that read inside its own write transaction (advanceDue), sparing this one.
        if (!match.route.advancesItself && anythingDue(ctx)) advanceEncounters(ctx);
        const response = answer();
        // A fund release answers with the audit head after it, for the operator to keep elsewhere
        // (docs/local.md "The audit chain"): one lookup by the primary key, on this route only.
        if (match.route.scope !== 'fund_release' || response.status !== 200) return response;
        return { ...response, headers: { ...response.headers, [AUDIT_HEAD_HEADER]: formatAuditHead(auditHead(this.db)) } };
      }
      // A read (GET routes change nothing) runs its dozen queries in one read transaction: one
      // snapshot for all of them, where each alone would take and release its own locks. What the
      // clock has made due is written first, in its own transaction, and the read taken again.
      const read = this.readTransaction(() => (anythingDue(ctx) ? undefined : answer()));
      if (read) return read;
      advanceEncounters(ctx);
      return this.readTransaction(answer);
    } catch (err) {
      if (err instanceof HttpError) return respond(err.status, err.body);
      // The storage failing (a full disk, a writer holding the database): 503, saying what to do.
      const storage = storageProblem(err, this.db.name);
      if (storage) return respond(503, { error: 'storage_unavailable', message: storage });
      // A bug: answer 500 with an id to quote, and keep the details out of the body.
      const requestId = newId('req_');
      if (process.env.TPA_DEBUG_ENGINE) process.stderr.write(`[engine ${requestId}] ${(err as Error).stack ?? String(err)}\n`);
      return respond(500, { error: 'internal_error', message: 'The engine failed to process the request', request_id: requestId });
    }
  }

  /**
   * Runs `fn` (which sends GET requests) against one stored state: other processes may write
   * meanwhile (WAL), and every page `fn` reads comes from the state as it stood when the snapshot
   * began, so a listing of many pages neither repeats nor skips a row. Due adjudications and
   * arrivals are brought up to date first; inside, a write is refused (409).
   */
  async readSnapshot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.snapshot) return fn();
    advanceEncounters(this.context());
    // A listing reads each row once: a small page cache keeps its memory flat whatever the ledger's size.
    this.db.pragma('cache_size = -4096');
    this.db.exec('BEGIN');
    try {
      // A deferred transaction takes its snapshot at its first read.
      this.db.prepare('SELECT COUNT(*) FROM settings').pluck().get();
      this.snapshot = true;
      this.snapshotMemo = new Map();
      return await fn();
    } finally {
      this.snapshot = false;
      this.snapshotMemo = undefined;
      this.db.exec('COMMIT');
      this.db.pragma(`cache_size = ${-this.pageCacheKb}`);
    }
  }

  /** The seeded reference data (`tpa local fixtures`). */
  /** What submitting this claim would do, nothing kept (claims.ts checkClaim): `claim validate` on the embedded engine. */
  checkClaim(text: string): EngineResponse {
    return illFormedText({ method: 'POST', path: '', query: new URLSearchParams(), headers: {}, body: text }) ?? checkClaim(this.context(), text);
  }

  fixtures(): Record<string, unknown> {
    return fixtures(this.db, isoSeconds(engineNow(this.db, this.override).now).slice(0, 10));
  }

  clock(): ClockStatus {
    const realNow = Date.now();
    const { now, source, held } = engineNow(this.db, this.override, realNow);
    const recorded = recordedUntil(this.db);
    return {
      now: isoSeconds(now),
      source,
      stored: readStoredClock(this.db),
      clock: isoSeconds(clockTime(this.db, this.override, realNow).now),
      held,
      recorded_until: recorded === 0 ? null : isoSeconds(new Date(recorded)),
    };
  }

  /**
   * A clock moved to before the latest time recorded is refused (docs/local.md "The engine clock"): events
   * would then be recorded before earlier ones. The check and the move are one write transaction.
   */
  private moveClock(target: (realNow: number) => { at: number; stored: Parameters<typeof writeStoredClock>[1] }): ClockStatus {
    this.db
      .transaction(() => {
        const { at, stored } = target(Date.now());
        const recorded = recordedUntil(this.db);
        if (at < recorded) {
          throw new InvalidInput(
            `the engine has recorded events up to ${isoSeconds(new Date(recorded))}; the clock cannot go back before it (tpa local clock real to use real time)`,
          );
        }
        writeStoredClock(this.db, stored);
        // What the new time makes due is recorded now, at its own time: moving the clock forward
        // and back again before anything was read cannot undo an arrival the clock had reached.
        advanceEncounters(this.context());
      })
      .immediate();
    return this.clock();
  }

  /** Freezes the stored clock at a time (`tpa local clock set`), never before what is recorded. */
  setClock(text: string): ClockStatus {
    const at = parseTimestamp(text, 'the time');
    return this.moveClock(() => ({ at: at.getTime(), stored: { mode: 'frozen', at: at.toISOString() } }));
  }

  /** Moves the stored clock forward (`tpa local clock advance`); refused while TPA_CLOCK rules. */
  advanceClock(ms: number): ClockStatus {
    if (this.override) throw new InvalidInput('TPA_CLOCK is set, so the stored clock is not in use: unset TPA_CLOCK to advance it');
    return this.moveClock((realNow) => {
      const stored = readStoredClock(this.db);
      if (stored?.mode === 'frozen') {
        const at = Date.parse(stored.at) + ms;
        return { at, stored: { mode: 'frozen', at: new Date(at).toISOString() } };
      }
      const offset = (stored?.offset_ms ?? 0) + ms;
      return { at: realNow + offset, stored: { mode: 'offset', offset_ms: offset } };
    });
  }

  /** Back to real time (`tpa local clock real`). */
  realClock(): ClockStatus {
    writeStoredClock(this.db, null);
    return this.clock();
  }

  /** The audit chain walked from its first record (`tpa local audit verify [--expect-head]`). */
  auditVerify(expectHead?: string): ChainVerdict {
    return verifyAudit(this.db, expectHead);
  }

  /** The chain, then the money tables against it (`tpa local audit verify --deep`). */
  auditVerifyDeep(expectHead?: string): DeepVerdict {
    return verifyAuditDeep(this.db, expectHead);
  }

  /**
   * A backup of this database written whole to `target` (`tpa local backup`; services/backup.ts
   * writeBackup): one snapshot of it, checked, encrypted under `key` when the database is, carrying
   * the data directory's last ISA13 (`controlNumber`).
   */
  backup(target: string, key: Buffer | undefined, replace: boolean, controlNumber = 0): Promise<CopyFacts> {
    return writeBackup(this.db, this.db.name, target, key, replace, controlNumber);
  }

  /** The last record's number and hash (`tpa local audit head`), to be kept outside the database. */
  auditHead(): AuditHead {
    return auditHead(this.db);
  }

  /** The audit records in order, filtered (`tpa local audit list`). */
  auditList(filter: AuditFilter): Iterable<StoredAudit> {
    return listAudit(this.db, filter);
  }

  /** Sandbox triggers for the unhappy paths (`tpa local simulate`). */
  simulate(scenario: Scenario, encounterId: string): Record<string, unknown> {
    const ctx = this.context();
    advanceEncounters(ctx);
    return asActor(this.db, this.actor, () => simulate(ctx, scenario, encounterId));
  }

  /** A new API key for `tpa local serve` (`tpa local keys create`); the key is shown once. */
  createKey(env: KeyEnvironment, scopes: readonly Scope[]): { apiKey: string; record: KeyRecord } {
    return asActor(this.db, this.actor, () => createKey(this.db, this.context().clock.now(), env, scopes));
  }

  /** Every key with its status (`tpa local keys list`). */
  listKeys(): KeyListing[] {
    return listAllKeys(this.db, this.context().clock.now());
  }

  /** Revokes a key's whole lineage at once (`tpa local keys revoke`); undefined for an unknown key. */
  revokeKey(keyId: string): { lineage: string; revoked: string[] } | undefined {
    return asActor(this.db, this.actor, () =>
      this.db.transaction(() => revokeLineage(this.db, this.context().clock.now(), keyId, 'revoked by the operator')).immediate(),
    );
  }

  /** Registers (or changes) an OAuth client of the mutual-TLS server and the scopes it may have (`tpa local clients register`). */
  registerClient(clientId: string, scopes: readonly Scope[]): ClientRegistration {
    return asActor(this.db, this.actor, () => this.db.transaction(() => registerClient(this.db, this.context().clock.now(), clientId, scopes)).immediate());
  }

  /** Revokes an OAuth client and its live tokens at once (`tpa local clients revoke`); undefined for an unknown client. */
  revokeClient(clientId: string): { client_id: string; revoked: boolean; revoked_at: string; tokens: number } | undefined {
    return asActor(this.db, this.actor, () =>
      this.db.transaction(() => revokeClient(this.db, this.context().clock.now(), clientId, 'revoked by the operator')).immediate(),
    );
  }

  /** The registered OAuth clients, with their status (`tpa local clients list`). */
  listClients(): ClientRegistration[] {
    return listClients(this.db);
  }

  close(): void {
    this.db.close();
  }
}
