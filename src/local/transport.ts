// In-process transport: hands requests to the embedded engine's route table. The engine (and
// SQLite with it) is loaded on the first request, so commands that never call it stay fast.
import type { Engine, EngineOptions } from '../engine/engine.js';
import { Faults, withFault } from '../server/faults.js';
import { EngineError } from '../engine/errors.js';
import { ConflictError, fromEngineError, NetworkError } from '../errors.js';
import type { Transport, TransportRequest, TransportResponse } from '../client/transport.js';

/** How the engine keeps its file (EngineOptions): its page cache and memory map. */
export type EngineStorage = Pick<EngineOptions, 'pageCacheKb' | 'mmapBytes' | 'databaseKey' | 'createEncrypted' | 'note'>;

export class LocalTransport implements Transport {
  readonly name = 'local';
  private engine: Engine | undefined;
  private opening: Promise<Engine> | undefined;
  /** Sandbox triggers (docs/local.md "Sandbox triggers"): TPA_FAULT, counted over this process. */
  private readonly faults: Faults;

  constructor(
    private readonly dataDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /**
     * How the engine keeps its file: a CLI command's page cache and no memory map by default; `local
     * serve` asks for a long-lived engine's cache and maps the file.
     */
    private readonly storage: EngineStorage = {},
    /** Who acts, in the audit records of what this process does (`local:<profile>`). */
    private readonly actor?: string,
  ) {
    try {
      this.faults = Faults.parse(env.TPA_FAULT);
    } catch (err) {
      throw asServiceError(err);
    }
  }

  async open(): Promise<Engine> {
    // One opening for all: requests sent at once (a few reads in flight) before the engine is open
    // would otherwise each open a connection, and close() would close only the last of them.
    this.opening ??= this.opened().catch((err) => {
      this.opening = undefined;
      throw asServiceError(err);
    });
    return this.opening;
  }

  private async opened(): Promise<Engine> {
    if (!this.engine) {
      const [{ Engine, databaseFile }, { CLI_PAGE_CACHE_KB, storageProblem }] = await Promise.all([
        import('../engine/engine.js'),
        import('../engine/store/db.js'),
      ]);
      // An encrypted database is opened with its key: TPA_DB_KEY (read by the engine), else the keychain's.
      let databaseKey = this.storage.databaseKey;
      if (!databaseKey && !this.env.TPA_DB_KEY) {
        const { databaseKeyOf } = await import('../auth/database-key.js');
        databaseKey = (await databaseKeyOf(this.dataDir, databaseFile(this.dataDir), this.env)).key;
      }
      try {
        this.engine = Engine.open({ dataDir: this.dataDir, env: this.env, pageCacheKb: CLI_PAGE_CACHE_KB, ...this.storage, databaseKey, actor: this.actor });
      } catch (err) {
        // The local database cannot be opened or upgraded: the storage's fault, said plainly (exit 8).
        const problem = storageProblem(err, databaseFile(this.dataDir));
        const replacing = problem && /^SQLITE_(BUSY|LOCKED|READONLY_DBMOVED)/.test(String((err as { code?: unknown }).code));
        const holder = replacing ? (await import('./serve-lock.js')).replacingHolder(this.dataDir) : undefined;
        // Held by a restore (or a reset) that replaces it: a wrong state for now, not a failing disk (exit 4).
        if (holder)
          throw new ConflictError(
            `the local database ${databaseFile(this.dataDir)} is being replaced by \`tpa ${holder.command}\` (pid ${holder.pid}): nothing was done; run the command again once it is over`,
            { code: 'database_busy', details: holder },
          );
        if (problem) throw new NetworkError(problem, { code: 'storage_unavailable' });
        throw err;
      }
    }
    return this.engine;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const engine = await this.open();
    // One turn of the event loop before each request. The engine answers synchronously (SQLite in
    // this thread), so a long job that awaits one request after another would otherwise only ever
    // run microtasks: a SIGINT (Ctrl-C) or a timer would wait until the whole job was done. Here,
    // before the engine has touched anything, a Ctrl-C stops the job at once (exit 130) and leaves
    // its journal as an interrupted request over HTTP does.
    // A claim submission waits that turn in the engine's group (Engine.handleGrouped): the claims a
    // batch has in flight together share one commit, each answered once it committed.
    const url = new URL(request.path, 'http://local');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = v;
    const req = { method: request.method.toUpperCase(), path: url.pathname, query: url.searchParams, headers, body: request.body };
    const fault = this.faults.take(url.pathname);
    if (!fault && engine.groupsCommits(req.method, req.path)) {
      const response = await engine.handleGrouped(req, { json: true });
      return { status: response.status, headers: response.headers, body: response.body };
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    const outcome = await withFault(fault, request.body, (body) => engine.handle({ ...req, body }, { json: true, rowsAsText: request.rowsAsText }));
    if ('hangUp' in outcome)
      throw new NetworkError(`the connection was reset before the answer to ${request.method} ${url.pathname} arrived (simulated by TPA_FAULT)`);
    // The body as the JSON an HTTP client would read (Engine.handle `json`), so callers see exactly
    // what the HTTP transport would give them.
    const response = outcome.response;
    return { status: response.status, headers: response.headers, body: response.body };
  }

  async snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return (await this.open()).readSnapshot(fn);
  }

  close(): void {
    this.engine?.close();
    this.engine = undefined;
    this.opening = undefined;
  }
}

/** What the engine refuses (a setting it cannot use, a file it cannot open) reaches the client as a service's error would. */
function asServiceError(err: unknown): unknown {
  return err instanceof EngineError ? fromEngineError(err) : err;
}
