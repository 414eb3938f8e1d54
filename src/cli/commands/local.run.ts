// Handlers of `tpa local` (declared in local.ts): parse and check options, call the client, shape the output.
import type { EngineStorage, LocalTransport } from '../../client/local.js';
import type { RunningServer } from '../../server/server.js';
import type { SettlementRecord } from '../../client/types.js';
import type { Engine } from '../../engine/engine.js';
import type { Scenario } from '../../engine/services/sandbox.js';
import type { Scope } from '../../engine/services/keys.js';
import { ConflictError, UsageError } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { Handler } from '../action.js';
import { readPem, type Context } from '../context.js';
import { confirm } from '../prompt.js';
import type { ChainVerdict } from '../../domain/audit.js';
import type { DeepVerdict } from '../../engine/services/audit.js';

type Row = Record<string, unknown>;

function fixturesTable(t: TableTools, f: Record<string, Row[]>): string {
  const s = (v: unknown) => (v === null || v === undefined ? '—' : String(v));
  const h = (title: string) => t.c.bold(title);
  return [
    h('Providers'),
    t.table(
      ['NPI', 'Name', 'Role', 'Group'],
      f.providers!.map((p) => [s(p.npi), s(p.name), s(p.role), s(p.group_id)]),
    ),
    '',
    h('Contracts'),
    t.table(
      ['Contract id', 'Number', 'NPI', 'Group', 'Rate type', 'Bundle', 'Effective', 'Codes'],
      f.contracts!.map((c) => [
        s(c.contract_id),
        s(c.contract_number),
        s(c.npi),
        s(c.group_id),
        s(c.rate_type),
        s(c.bundle_type),
        `${s(c.effective_date)} → ${c.termination_date === null ? 'open' : s(c.termination_date)}`,
        (c.codes as Row[]).map((r) => `${s(r.cpt_code)}${r.requires_preauthorization ? '*' : ''}`).join(' '),
      ]),
    ),
    '  * needs a preauthorization reference in supportingInfo, else the claim is pended',
    '',
    h('Members'),
    t.table(
      [
        'Member',
        'Name',
        'Plan',
        { header: 'Deductible', align: 'right' },
        { header: 'Met', align: 'right' },
        { header: 'Copay', align: 'right' },
        'Coins.',
        'Coverage',
      ],
      f.members!.map((m) => [
        s(m.member_id),
        s(m.name),
        s(m.plan_id),
        t.amount(m.deductible),
        t.amount(m.deductible_met),
        t.amount(m.copay),
        `${s(m.coinsurance_percent)}%`,
        `${s(m.coverage_start)} → ${m.coverage_end === null ? 'open' : s(m.coverage_end)}`,
      ]),
    ),
  ].join('\n');
}

/**
 * `tpa local` is the embedded engine's whatever the default profile is; only a profile named with
 * -p (or TPA_PROFILE) that is not local is a mistake worth stopping on.
 */
function localOnly(ctx: Context): void {
  if (ctx.profileExplicit && ctx.profile().env !== 'local')
    throw new UsageError(`\`tpa local\` works on the embedded engine; profile "${ctx.profileName}" is ${ctx.profile().env}`);
}

async function openEngine(ctx: Context, storage?: EngineStorage) {
  localOnly(ctx);
  const { LocalTransport } = await import('../../client/local.js');
  return new LocalTransport(ctx.paths.dataDir, ctx.io.env, storage, `local:${ctx.profileName}`);
}

export const fixtures: Handler = async (ctx) => {
  const transport = await openEngine(ctx);
  try {
    const data = (await transport.open()).fixtures() as Record<string, Row[]>;
    return { data, items: data.contracts, table: (t) => fixturesTable(t, data) };
  } finally {
    transport.close();
  }
};

/** Opens the local database once, as `storage` says (creating, upgrading or checking it), and closes it. */
async function openOnce(ctx: Context, storage: EngineStorage = { note: ctx.note }): Promise<void> {
  const transport = await openEngine(ctx, storage);
  await transport.open();
  transport.close();
}

/** A new key for an encrypted database, kept where docs/design.md "The data directory" says (after checking that the cipher package is there). */
async function newDatabaseKeyFor(ctx: Context): Promise<{ key: Buffer; keptIn: string }> {
  const [{ cipherSqlite }, { newDatabaseKey }] = await Promise.all([import('../../engine/store/cipher.js'), import('../../auth/database-key.js')]);
  cipherSqlite(); // missing, said before a key is made
  return newDatabaseKey(ctx.paths.dataDir, ctx.io.env);
}

/** The local database's file and whether it is absent, plain or encrypted. */
async function localDatabase(ctx: Context) {
  const [{ databaseFile }, { databaseFileState }] = await Promise.all([import('../../engine/engine.js'), import('../../engine/store/cipher.js')]);
  const file = databaseFile(ctx.paths.dataDir);
  return { file, state: databaseFileState(file) };
}

export const init: Handler = async (ctx, _args, opts) => {
  localOnly(ctx);
  const { file, state } = await localDatabase(ctx);
  if (state.kind !== 'absent') {
    if (opts.encrypt && state.kind !== 'encrypted') {
      throw new ConflictError(`the local database ${file} exists and is not encrypted; nothing was changed`, { hint: 'try: tpa local encrypt' });
    }
    await openOnce(ctx);
    ctx.note(`init: ${file} exists already${state.kind === 'encrypted' ? ' (encrypted)' : ''}; nothing was changed`);
    return { data: { database: file, created: false, encrypted: state.kind === 'encrypted' } };
  }
  const made = opts.encrypt ? await newDatabaseKeyFor(ctx) : undefined;
  await openOnce(ctx, made ? { note: ctx.note, databaseKey: made.key, createEncrypted: true } : undefined);
  ctx.note(`init: created ${file}${made ? `, encrypted (AES-256); its key is in ${made.keptIn}` : ''}`);
  return { data: { database: file, created: true, encrypted: made !== undefined } };
};

export const encrypt: Handler = async (ctx) => {
  localOnly(ctx);
  const { file, state } = await localDatabase(ctx);
  if (state.kind === 'absent') throw new UsageError(`there is no local database at ${file} yet`, { hint: 'try: tpa local init --encrypt' });
  if (state.kind === 'encrypted') throw new ConflictError(`the local database ${file} is encrypted already; nothing was changed`);
  // Refused while `local serve` holds the data directory, and held while converting so that none starts meanwhile.
  const [{ DataDirLock }, { encryptDatabase }] = await Promise.all([import('../../client/serve-lock.js'), import('../../engine/store/db.js')]);
  const lock = await DataDirLock.take(ctx.paths.dataDir, 'local encrypt');
  let keptIn: string;
  try {
    // Opened first as it is: a database from a newer tpa, or not a database, is refused before any key is made.
    await openOnce(ctx);
    const made = await newDatabaseKeyFor(ctx);
    keptIn = made.keptIn;
    encryptDatabase(file, made.key);
    await openOnce(ctx, { databaseKey: made.key, note: ctx.note });
  } finally {
    lock.release();
  }
  ctx.note(`encrypt: ${file} is encrypted (AES-256); its key is in ${keptIn}`);
  return { data: { database: file, encrypted: true } };
};

export const reset: Handler = async (ctx) => {
  localOnly(ctx);
  const [{ databaseFile }, { removeDatabase }, { DataDirLock }] = await Promise.all([
    import('../../engine/engine.js'),
    import('../../engine/store/db.js'),
    import('../../client/serve-lock.js'),
  ]);
  const file = databaseFile(ctx.paths.dataDir);
  // Refused while `local serve` holds the data directory, and held while deleting so that none starts meanwhile.
  const lock = await DataDirLock.take(ctx.paths.dataDir, 'local reset');
  try {
    await confirm(ctx, `Delete every claim and change in ${file} and start again from the seed?`);
    const existed = removeDatabase(file);
    ctx.note(existed ? `reset: deleted ${file}; it will be re-seeded on next use` : `reset: nothing to delete at ${file}`);
    return { data: { reset: true, database: file, existed } };
  } finally {
    lock.release();
  }
};

type ClockStatus = ReturnType<Engine['clock']>;

function clockOutput(status: ClockStatus) {
  const how: Record<string, string> = {
    TPA_CLOCK: 'frozen by TPA_CLOCK for this process',
    frozen: 'frozen (tpa local clock set)',
    offset: `real time shifted by ${status.stored?.mode === 'offset' ? formatDurationSigned(status.stored.offset_ms) : ''}`,
    real: 'real time',
  };
  return {
    data: status,
    table: (t: TableTools) =>
      t.keyValues([
        ['Engine time', status.now],
        ['Clock', how[status.source] ?? status.source],
        ...(status.held
          ? ([['Held', `the clock says ${status.clock}, earlier than the latest time recorded: the engine's time stays at ${status.now}`]] as [
              string,
              string,
            ][])
          : []),
        ['Recorded until', status.recorded_until ?? 'nothing recorded yet'],
      ]),
  };
}

function formatDurationSigned(ms: number): string {
  const sign = ms < 0 ? '-' : '+';
  const abs = Math.abs(ms);
  const d = Math.floor(abs / 86_400_000);
  const h = Math.floor((abs % 86_400_000) / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = Math.floor((abs % 60_000) / 1000);
  return `${sign}${[d && `${d}d`, h && `${h}h`, m && `${m}m`, s && `${s}s`].filter(Boolean).join(' ') || '0s'}`;
}

async function withEngine<T>(ctx: Context, use: (engine: Engine) => T): Promise<T> {
  const transport = await openEngine(ctx);
  try {
    return use(await transport.open());
  } finally {
    transport.close();
  }
}

export const clockShow: Handler = async (ctx) => clockOutput(await withEngine(ctx, (e) => e.clock()));
export const clockSet: Handler = async (ctx, [timestamp]) => clockOutput(await withEngine(ctx, (e) => e.setClock(timestamp!)));
export const clockReal: Handler = async (ctx) => clockOutput(await withEngine(ctx, (e) => e.realClock()));
export const clockAdvance: Handler = async (ctx, [duration]) => {
  const { parseDuration } = await import('../../domain/duration.js');
  const ms = parseDuration(duration!);
  if (ms === undefined) throw new UsageError(`"${duration}" is not a duration such as 30s, 10m, 2h or 1d`);
  return clockOutput(await withEngine(ctx, (e) => e.advanceClock(ms)));
};

export const simulate: Handler = async (ctx, [scenario, encounterId]) => {
  const { SCENARIOS } = await import('../../engine/services/sandbox.js');
  if (!(SCENARIOS as readonly string[]).includes(scenario!)) throw new UsageError(`unknown scenario "${scenario}": use ${SCENARIOS.join(', ')}`);
  const record = await withEngine(ctx, (e) => e.simulate(scenario as Scenario, encounterId!));
  const { settlementTable } = await import('./settlement.run.js');
  return { data: record, table: (t) => settlementTable(t, record as unknown as SettlementRecord) };
};

/** The scopes of a --scopes option: known names, at least one (an empty variable never means all). */
async function scopesOption(value: unknown): Promise<Scope[] | undefined> {
  const { SCOPES } = await import('../../engine/services/keys.js');
  const scopes = (await import('../options.js')).listValue(value);
  const unknown = scopes.filter((x) => !(SCOPES as readonly string[]).includes(x));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}`);
  if (value !== undefined && scopes.length === 0) throw new UsageError(`--scopes names no scope: use one or more of ${SCOPES.join(', ')}`);
  return value === undefined ? undefined : (scopes as Scope[]);
}

export const keysCreate: Handler = async (ctx, _args, opts) => {
  const { SCOPES } = await import('../../engine/services/keys.js');
  const env = String(opts.env);
  if (env !== 'sandbox' && env !== 'staging') throw new UsageError('--env must be sandbox or staging');
  // Without --scopes: the operator's own key, with every scope (contract_build too: `tpa ratesheet` over HTTP).
  const scopes = (await scopesOption(opts.scopes)) ?? [...SCOPES];
  const created = await withEngine(ctx, (e) => e.createKey(env, scopes));
  ctx.note(`created key ${created.record.id} (${created.record.scopes.join(', ')}); it is shown only this once`);
  // Asked for a format (-o json, ndjson, csv, --json, TPA_OUTPUT): an object, as every command gives. Otherwise, on a
  // terminal or piped, the key alone on stdout, so that `tpa local keys create | tpa auth login
  // --with-key-stdin` and `KEY=$(tpa local keys create)` work.
  if (ctx.formatChosen && ctx.format !== 'table') {
    return { data: { key_id: created.record.id, api_key: created.apiKey, scopes: created.record.scopes, environment: created.record.environment } };
  }
  ctx.io.stdout.write(`${created.apiKey}\n`);
};

export const keysList: Handler = async (ctx) => {
  const keys = await withEngine(ctx, (e) => e.listKeys());
  const status = (t: TableTools, k: (typeof keys)[number]) =>
    k.status === 'active'
      ? t.c.green('active')
      : k.status === 'rotated'
        ? t.c.yellow(`rotated, works until ${k.expires_at}`)
        : k.status === 'revoked'
          ? t.c.red(`revoked ${k.revoked_at}`)
          : `expired ${k.expires_at}`;
  return {
    data: keys,
    items: keys,
    table: (t) =>
      t.table(
        ['Id', 'Env', 'Key', 'Scopes', 'Status', 'Rotated from', 'Created'],
        keys.map((k) => [k.id, k.environment, `${k.prefix}…${k.last4}`, k.scopes.join(', '), status(t, k), k.rotated_from ?? '—', k.created_at]),
      ),
  };
};

export const keysRevoke: Handler = async (ctx, [keyId]) => {
  const { NotFoundError } = await import('../../errors.js');
  const known = await withEngine(ctx, (e) => e.listKeys());
  const key = known.find((k) => k.id === keyId);
  if (!key) throw new NotFoundError(`no key ${keyId} in this engine: tpa local keys list shows them`);
  const lineage = known.filter((k) => k.lineage === key.lineage && k.status !== 'revoked' && k.status !== 'expired');
  if (lineage.length > 0) {
    await confirm(
      ctx,
      `Revoke ${lineage.map((k) => `${k.id} (${k.prefix}…${k.last4})`).join(', ')}? Whoever holds ${lineage.length === 1 ? 'it' : 'them'} gets 401 from the next request on.`,
    );
  }
  const result = (await withEngine(ctx, (e) => e.revokeKey(keyId!)))!;
  ctx.note(
    result.revoked.length === 0
      ? `nothing to revoke: every key of the lineage of ${keyId} was revoked already`
      : `revoked ${result.revoked.join(', ')}: from now on their requests get 401`,
  );
  return { data: { key_id: keyId, lineage: result.lineage, revoked: result.revoked } };
};

export const clientsRegister: Handler = async (ctx, [clientId], opts) => {
  const scopes = (await scopesOption(opts.scopes))!;
  if (!clientId || clientId.trim() !== clientId) throw new UsageError('the client id is the common name of its certificates, without surrounding spaces');
  const registered = await withEngine(ctx, (e) => e.registerClient(clientId, scopes));
  ctx.note(`registered client ${clientId}: its tokens may carry ${scopes.join(', ')}`);
  return { data: registered };
};

export const clientsList: Handler = async (ctx) => {
  const clients = await withEngine(ctx, (e) => e.listClients());
  return {
    data: clients,
    items: clients,
    table: (t) =>
      t.table(
        ['Client', 'Scopes', 'Registered'],
        clients.map((c) => [c.client_id, c.scopes.join(', '), c.registered_at]),
      ),
  };
};
/** `--tls-min` and `--tls-max-version` as Node's names: 1.3 at least unless a legacy client needs 1.2 (docs/api.md). */
function tlsVersions(opts: Record<string, unknown>): { minVersion: TlsVersion; maxVersion?: TlsVersion } {
  const version = (flag: string, v: unknown): TlsVersion | undefined => {
    if (v === undefined) return undefined;
    if (v !== '1.2' && v !== '1.3') throw new UsageError(`${flag} is 1.2 or 1.3 (got "${String(v)}"): TLS before 1.2 is never served`);
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

export const serve: Handler = async (ctx, _args, opts) => {
  const { parseDuration } = await import('../../domain/duration.js');
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535 (got "${String(opts.port)}")`);
  const windowMs = opts.rateWindow === undefined ? 60_000 : parseDuration(String(opts.rateWindow));
  if (windowMs === undefined || windowMs <= 0) throw new UsageError('--rate-window must be a duration such as 60s');
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (opts.clientCa !== undefined && opts.tlsCert === undefined) throw new UsageError('--client-ca needs --tls-cert and --tls-key (mutual TLS is TLS)');
  for (const flag of ['tlsMin', 'tlsMaxVersion'] as const)
    if (opts[flag] !== undefined && opts.tlsCert === undefined)
      throw new UsageError(`${flag === 'tlsMin' ? '--tls-min' : '--tls-max-version'} needs --tls-cert and --tls-key (it is about TLS)`);
  if (opts.insecureHttp === true && opts.tlsCert !== undefined) throw new UsageError('--insecure-http is for plain HTTP: it means nothing with --tls-cert');
  const versions = tlsVersions(opts);
  // Decided before anything is opened or bound (docs/design.md "Over the wire"): plain HTTP beyond loopback only when asked for.
  let host = String(opts.host);
  const { listenVerdict, isLoopbackHost } = await import('../../server/listen.js');
  const verdict = listenVerdict(host, { tls: opts.tlsCert !== undefined, insecureHttp: opts.insecureHttp === true });
  if (!verdict.listen) throw new UsageError(verdict.reason);
  if (verdict.warning) ctx.note(verdict.warning);
  if (opts.tlsCert === undefined && opts.insecureHttp !== true && host.toLowerCase() === 'localhost') {
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
    host = address;
  }
  const tls =
    opts.tlsCert === undefined
      ? undefined
      : {
          cert: readPem('--tls-cert', String(opts.tlsCert)),
          key: readPem('--tls-key', String(opts.tlsKey)),
          ...(opts.clientCa ? { clientCa: readPem('--client-ca', String(opts.clientCa)) } : {}),
          ...versions,
        };
  // One server per data directory, and no reset under it: the lock is held until the server stops.
  const { DataDirLock } = await import('../../client/serve-lock.js');
  const lock = await DataDirLock.take(ctx.paths.dataDir, 'local serve');
  let running: RunningServer;
  let transport: LocalTransport | undefined;
  let releaseHeap = () => {};
  try {
    // A server lives long and reads the whole ledger: the long-lived engine's page cache, the file read
    // through a memory map, and a heap that many connections at once do not inflate (bench/abuse.mjs).
    releaseHeap = (await import('../heap.js')).holdServerHeap(4);
    const { PAGE_CACHE_KB, SERVER_MMAP_BYTES } = await import('../../engine/store/db.js');
    transport = await openEngine(ctx, { pageCacheKb: PAGE_CACHE_KB, mmapBytes: SERVER_MMAP_BYTES });
    const engine = await transport.open();
    const [{ startServer }, { RateLimiter }, { Faults }] = await Promise.all([
      import('../../server/server.js'),
      import('../../engine/limits.js'),
      import('../../engine/faults.js'),
    ]);
    const faults = Faults.parse(ctx.io.env.TPA_FAULT);
    try {
      running = await startServer(engine, {
        host,
        port,
        // Windows run on real time (limits are about traffic); on the engine clock a test decides when one ends.
        limiter: opts.rateLimit === false ? null : new RateLimiter(windowMs, opts.rateClock === 'engine' ? () => Date.parse(engine.clock().now) : Date.now),
        tls,
        faults,
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
      ctx.note(
        `tpa local serve: listening on ${running.url} (data in ${ctx.paths.dataDir}${opts.rateLimit === false ? ', no rate limits' : ''}${tls ? `, ${tlsLabel(tls)}` : ''}${tls?.clientCa ? ', client certificates required, tokens at /oauth2/token' : ''}${faults.empty ? '' : `, faults injected: TPA_FAULT=${ctx.io.env.TPA_FAULT}`}); Ctrl-C stops it`,
      );
      ctx.note(`${await stopped}: shutting down`);
      await running.close();
    } finally {
      process.removeListener('SIGINT', onSigint);
      process.removeListener('SIGTERM', onSigterm);
    }
  } finally {
    transport?.close();
    releaseHeap();
    lock.release();
  }
};

/** `tpa local audit head`: the last record's number and hash, to keep outside the database. */
export const auditHead: Handler = async (ctx) => {
  const head = await withEngine(ctx, (e) => e.auditHead());
  return {
    data: head,
    table: (t: TableTools) =>
      `${t.keyValues([
        ['Record', String(head.seq)],
        ['Head hash', head.hash],
      ])}\nkeep it outside this machine; later: tpa local audit verify --expect-head ${head.hash}`,
  };
};

export const auditVerify: Handler = async (ctx, _args, opts) => {
  const deep = opts.deep === true;
  const expectHead = opts.expectHead as string | undefined;
  const { isAuditHash } = await import('../../domain/audit.js');
  if (expectHead !== undefined && !isAuditHash(expectHead))
    throw new UsageError(`--expect-head: "${expectHead}" is not a head hash (64 lowercase hex digits, as tpa local audit head prints it)`);
  const verdict: ChainVerdict | DeepVerdict = await withEngine(ctx, (e): ChainVerdict | DeepVerdict =>
    deep ? e.auditVerifyDeep(expectHead) : e.auditVerify(expectHead),
  );
  if (!verdict.whole && verdict.seq === null) {
    throw new ConflictError(`the audit chain does not hold the expected head: ${verdict.reason} (${verdict.count} records verify)`, {
      code: 'audit_head_missing',
      body: { whole: false, verified: verdict.count, expected_head: expectHead, reason: verdict.reason },
    });
  }
  if (!verdict.whole) {
    throw new ConflictError(
      `the audit chain breaks at record ${verdict.seq}: ${verdict.reason} (${verdict.count} record${verdict.count === 1 ? '' : 's'} before it verify)`,
      {
        code: 'audit_chain_broken',
        body: { whole: false, verified: verdict.count, broken_at: verdict.seq, reason: verdict.reason },
      },
    );
  }
  if ('disagreement' in verdict && verdict.disagreement) {
    const d = verdict.disagreement;
    const { describeDisagreement } = await import('../../domain/audit-deep.js');
    throw new ConflictError(`the audit chain is whole, but the money tables disagree with it: ${describeDisagreement(d)}`, {
      code: 'audit_tables_disagree',
      body: {
        whole: true,
        tables_agree: false,
        head: verdict.head,
        disagreement: { table: d.table, row: d.row, column: d.column, expected: d.expected, found: d.found, audit_record: d.seq },
      },
    });
  }
  const checked = 'checked' in verdict ? verdict.checked : undefined;
  return {
    data: {
      whole: true,
      count: verdict.count,
      head: verdict.head,
      ...(expectHead !== undefined ? { expected_head: expectHead } : {}),
      ...(checked ? { tables_agree: true, checked } : {}),
    },
    table: (t: TableTools) =>
      `${t.c.green('✓')} the audit chain is whole${checked ? ', and the money tables agree with it' : ''}\n${t.keyValues([
        ['Records', String(verdict.count)],
        ['Head hash', verdict.head],
        ...(expectHead !== undefined ? ([['Expected head', `${expectHead} (held)`]] as [string, string][]) : []),
        ...(checked
          ? ([['Checked', `${checked.encounters} encounters, ${checked.settlements} settlements, ${checked.payouts} payouts`]] as [string, string][])
          : []),
      ])}`,
  };
};

export const auditList: Handler = async (ctx, _args, opts) => {
  const { isoDateProblem } = await import('../../domain/validation.js');
  for (const name of ['from', 'to'] as const) {
    const v = opts[name] as string | undefined;
    if (v !== undefined && isoDateProblem(v.slice(0, 10))) throw new UsageError(`--${name}: "${v}" is not a date (YYYY-MM-DD)`);
  }
  const rows = await withEngine(ctx, (e) =>
    [...e.auditList({ from: opts.from as string | undefined, to: opts.to as string | undefined, type: opts.type as string | undefined })].map((r) => ({
      seq: r.seq,
      at: r.at,
      type: r.type,
      subject: r.subject,
      actor: r.actor,
      data: JSON.parse(r.data_json) as unknown,
      hash: r.hash,
    })),
  );
  return {
    data: rows,
    items: rows,
    table: (t: TableTools) =>
      rows.length === 0
        ? 'No audit records.'
        : t.table(
            ['#', 'At', 'Type', 'Subject', 'Actor', 'Hash'],
            rows.map((r) => [String(r.seq), r.at, r.type, r.subject, r.actor ?? '—', `${r.hash.slice(0, 12)}…`]),
          ),
  };
};
