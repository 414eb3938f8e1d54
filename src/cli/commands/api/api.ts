// tpa api: a raw request through the active profile, path as served, as `gh api` makes one (-X,
// -f/-F fields, -H headers, --input, --paginate); the exit code follows the status code. A request
// that moves money or finalizes rates is asked first (docs/scripting.md "tpa api").
import type { TpaClient } from '../../../client/client.js';
import type { TransportResponse } from '../../../client/transport.js';
import { duplicateKeyPath } from '../../../domain/json-keys.js';
import type { RawRelease } from '../../../domain/raw-release.js';
import { changesRates, prefixProblem, refusedPathProblem, releasesMoney, servedTarget, wrongMethodProblem } from '../../../domain/served-routes.js';
import { formatCentsGrouped } from '../../../domain/money.js';
import { rawRelease } from '../../../domain/raw-release.js';
import { redactedQuery } from '../../../domain/secret-headers.js';
import { basePath, ownTarget, shownUrl } from '../../../domain/service-url.js';
import { ConflictError, EXIT, UsageError, errorFromResponse } from '../../../errors.js';
import type { Context } from '../../context.js';
import { readInput } from '../../options.js';
import { confirm } from '../../prompt.js';
import { argument, type OptionValues, option, verb } from '../../verb.js';
import { buildFields, type Fields, queryOf, splitField, typedValue } from './fields.js';
import { extraHeaders, shownHeader } from './headers.js';
import { type ApiOutput, exitOf, paginate } from './paginate.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const options = {
  method: option.text('-X, --method <method>', 'GET, HEAD, POST, PUT, PATCH or DELETE (default GET; POST with fields or a body)', { values: METHODS }),
  rawField: option.repeatable('-f, --raw-field <key=value>', 'a text field, repeatable: the JSON body, or the query of a GET'),
  field: option.repeatable(
    '-F, --field <key=value>',
    'a typed field, repeatable: true, false, null and plain numbers as JSON, @file or @- for its text; key[]=v a list, key[sub]=v an object',
  ),
  header: option.repeatable('-H, --header <name:value>', 'an extra request header, repeatable'),
  input: option.text('--input <file>', 'the request body (JSON) from a file, or - for stdin; fields then go in the query'),
  data: option.text('-d, --data <json>', 'the request body: JSON text, @file, or - for stdin'),
  paginate: option.flag('--paginate', 'GET every page of a list, following next: one JSON array, or one row a line with -o ndjson'),
  include: option.flag('-i, --include', 'print the status line and headers before the body'),
};
type Options = OptionValues<typeof options>;

export const api = verb({
  name: 'api',
  description: 'send a raw request to a path as served and print the response body; exits by the status code',
  args: {
    methodOrPath: argument.required(
      '<method-or-path>',
      "path as served (/tpa-api/v1/... or /api/v1/...) or a full URL on the profile's service, or a method followed by the path",
    ),
    path: argument.optional('[path]', 'the path, after a method: tpa api POST <path>'),
  },
  options,
  // The answer as the service gave it: --jq and --template filter it, --json <fields> is refused.
  undeclaredJson: true,
  examples: [
    'tpa api /tpa-api/v1/claims/sub_4f1c9a0b2e7d6c35a8e1/response/',
    'tpa api /tpa-api/v1/contract-lookup/blind/ -f npi=1045782368 -f group_id=GRP-1001 -f "cpt_codes[]=45378"',
    'tpa api /tpa-api/v1/ledger/entries/ -X GET -f status=ADJUDICATED -F limit=2 --paginate -o ndjson',
    `tpa api /tpa-api/v1/ledger/entries/ --paginate --jq '.[] | [.encounter_number, .status] | @tsv'`,
    `tpa api POST /tpa-api/v1/contract-lookup/blind/ -d '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}'`,
    'tpa api /tpa-api/v1/claims/submit/ --input claim.json -H "Idempotency-Key: claim-0042" --include',
  ],
  async run(ctx, { methodOrPath, path: second }, opts) {
    const method = methodOf(methodOrPath, second, opts);
    const path = ownPath(ctx, second ?? methodOrPath);
    // The path as the service's router reads it, which is also what is sent: what is checked below is
    // what goes out (a fragment is never sent, /./ and /x/../ are resolved, as an HTTP client would).
    const served = path.startsWith('/') ? servedTarget(path) : undefined;
    if (!served || (!served.path.startsWith('/tpa-api/') && !served.path.startsWith('/api/'))) {
      throw new UsageError(`path must be as served, starting with /tpa-api/v1/ or /api/v1/ (got "${path}")`);
    }
    // The fund release and a finalize are served for POST only: any other method there is refused,
    // since a lenient service may take it for the route's own, unconfirmed and unrecorded.
    // A path tpa api never sends (served-routes.ts refusedPathProblem): one extending the fund release
    // or a finalize, the key rotation. Judged on the path alone: any method, with or without fields.
    const refusedPath = refusedPathProblem(served.path);
    if (refusedPath) throw new UsageError(refusedPath);
    const wrongMethod = wrongMethodProblem(method, served.path);
    if (wrongMethod) throw new UsageError(`${wrongMethod}; nothing was sent`);
    if (opts.paginate && method !== 'GET') throw new UsageError(`--paginate follows a list's pages with GET, not ${method}; nothing was sent`);
    if (opts.paginate && opts.include) throw new UsageError('--paginate and --include: the headers of every page would break the JSON; give one');
    const { body, query } = await bodyAndQuery(ctx, method, opts);
    const target = withQuery(`${served.path}${served.search}`, query);
    if (`${served.path}${served.search}` !== path.replace(/#.*$/s, ''))
      ctx.note(`sending ${method} ${redactedQuery(target)} (the path as the service reads it)`);
    const submit = method === 'POST' && /\/claims\/submit\/$/.test(served.path);
    // A raw request may move money too: decided by the route it reaches, not by how its path is spelt;
    // then the same confirmation, Idempotency-Key and fund history as `tpa fund approve`.
    const money = releasesMoney(method, target);
    const release = money ? releaseOf(body, target) : undefined;
    const headers = extraHeaders(opts.header ?? [], { method, money, submit });
    if (typeof headers === 'string') throw new UsageError(`${headers}; nothing was sent`);
    // The profile first (its base URL is checked there: a query, a fragment or a user name is
    // refused, exit 2), then the URL actually sent, its base URL's path followed by the target: a
    // base URL that makes this request a fund release or a finalize is refused before anything is asked.
    const client = await ctx.client();
    const profile = ctx.profile();
    const turned = prefixProblem(method, profile.env === 'local' ? '' : basePath(profile.base_url ?? ''), target);
    if (turned) throw new UsageError(`${turned}; nothing was sent`, { hint: "a base URL's path is only a prefix: check the profile's base_url" });
    if (release) await settleEarlier(ctx, client, release);
    await confirmed(ctx, method, target, release);
    const { randomUUID } = await import('node:crypto');
    // Writes that move claims or money always carry a key (docs/client.md "Client behaviour"); a
    // claim submission may carry the user's own (-H), which the service keeps as it keeps tpa's.
    const idempotencyKey = (submit && headers['idempotency-key'] === undefined) || money ? randomUUID() : undefined;
    if (idempotencyKey && ctx.debug) ctx.note(`[debug] Idempotency-Key: ${idempotencyKey}`);
    if (ctx.debug) for (const [k, v] of Object.entries(headers)) ctx.note(`[debug] -H ${shownHeader(k, v)}`);
    if (opts.paginate) {
      const base = profile.env === 'local' ? undefined : profile.base_url;
      return { exitCode: await paginate(ctx, client, { target, headers, base }, apiOutput(ctx)) };
    }
    const contentType = submit ? 'application/fhir+json' : 'application/json';
    const request = () => client.raw(method, target, { body, contentType, idempotencyKey, headers });
    const response = release ? await withHistory(ctx, client, release, request) : await request();
    if (opts.include) {
      ctx.io.stdout.write(`HTTP/1.1 ${response.status}\n`);
      for (const [k, v] of Object.entries(response.headers)) ctx.io.stdout.write(`${k}: ${v}\n`);
      ctx.io.stdout.write('\n');
    }
    // A HEAD answer (or a 204) has no body to print.
    if (response.body !== undefined) await apiOutput(ctx).body(response.body, response.status);
    const exitCode = exitOf(response);
    if (exitCode !== EXIT.OK) ctx.note(`HTTP ${response.status}`);
    return { exitCode };
  },
});

/**
 * The one place `tpa api` prints what the service answered: a body as pretty JSON (whatever -o
 * says, as ever), and a paged list's rows as they come, one JSON array written as it grows or, with
 * -o ndjson, one row a line (render/stream.ts). --jq and --template (compiled before anything was
 * sent) apply here: to the body, or to each page's rows as the page arrives, as gh's api does.
 */
function apiOutput(ctx: Context): ApiOutput {
  const shape = ctx.shape;
  return {
    body: async (body, status) => {
      if (!shape) {
        ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return;
      }
      const { filteredText } = await import('../../../render/shape.js');
      let text: string | undefined;
      try {
        text = filteredText(shape, body);
      } catch (err) {
        throw await unfiltered(err, body, status, ctx.io.stderr);
      }
      if (text !== undefined) ctx.io.stdout.write(text);
    },
    rows: async () => {
      // The shared writer of shaped lists: a list with no rows is one empty page, which the filter
      // still sees (`--jq length` prints 0), as gh's does.
      const { rowWriter } = await import('../../../render/stream.js');
      const writer = rowWriter<unknown>(ctx.format === 'ndjson' ? 'ndjson' : 'json', ctx.io.stdout, undefined, undefined, shape);
      return {
        write: async (rows) => writer.write(rows),
        end: async () => writer.end(),
      };
    },
  };
}

/**
 * The path given, or the served path of a full URL on the profile's own service (as gh takes one; a
 * page's `next` over HTTP is one); a URL elsewhere is refused before anything is sent.
 */
function ownPath(ctx: Context, given: string): string {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(given)) return given;
  const profile = ctx.profile();
  const own = ownTarget(given, profile.env === 'local' ? undefined : profile.base_url);
  if ('problem' in own) throw new UsageError(`"${shownUrl(given)}" is refused: ${own.problem}; nothing was sent`);
  return own.target;
}

/**
 * A filter that failed on an answer (jq's error while it runs, a template's `range` over a number):
 * the request was sent, perhaps a fund release, so its answer is never lost: it goes to stderr as it
 * came (stdout holds the filter's results only), and the error says the request was sent.
 */
async function unfiltered(err: unknown, body: unknown, status: number, stderr: Context['io']['stderr']): Promise<unknown> {
  if (!(err instanceof UsageError)) return err;
  const { filterFailed, unshapedText } = await import('../../../render/shape.js');
  stderr.write(unshapedText(body));
  return filterFailed(err, `the request was sent (HTTP ${status})`);
}

/**
 * The method: `tpa api <method> <path>` (two arguments, the first a method's name, as tpa api has
 * always read them), else -X, else gh's default: POST when fields or a body are given, GET otherwise
 * (and with --paginate, which only GETs).
 */
function methodOf(first: string, second: string | undefined, opts: Options): string {
  const x = opts.method?.toUpperCase();
  if (x !== undefined && !METHODS.includes(x)) throw new UsageError(`unknown method "${opts.method}": use ${METHODS.join(', ')}`);
  if (second !== undefined) {
    const given = first.toUpperCase();
    if (!METHODS.includes(given))
      throw new UsageError(`unknown method "${first}": use ${METHODS.join(', ')}`, { hint: 'or give the path alone: tpa api <path> [-X <method>]' });
    if (x !== undefined && x !== given) throw new UsageError(`the method is given twice, ${given} and -X ${x}: give it once`);
    return given;
  }
  if (x !== undefined) return x;
  const sends = (opts.field?.length ?? 0) + (opts.rawField?.length ?? 0) > 0 || opts.input !== undefined || opts.data !== undefined;
  return sends && !opts.paginate ? 'POST' : 'GET';
}

/**
 * The body and the query: -d or --input as the body (JSON, a key given twice refused), the fields
 * as the body of a write without one, or as the query of a GET or HEAD, or beside a body given whole.
 */
async function bodyAndQuery(ctx: Context, method: string, opts: Options): Promise<{ body?: string; query: string }> {
  if (opts.data !== undefined && opts.input !== undefined) throw new UsageError('--input and -d both give the body: give one');
  const fields = await fieldsOf(ctx, opts);
  const data = opts.data;
  const source = opts.input ?? (data === '-' ? '-' : data?.startsWith('@') ? data.slice(1) : undefined);
  const body = source !== undefined ? await readInput(ctx, source, 'request body') : data;
  if (body === undefined) {
    if (method === 'GET' || method === 'HEAD') return { query: queryOf(fields) };
    return Object.keys(fields).length === 0 ? { query: '' } : { body: JSON.stringify(fields), query: '' };
  }
  const flag = opts.input !== undefined ? '--input' : '--data';
  // A GET or HEAD carries no body (its fields go in the query, as gh sends them): one given is refused.
  if (method === 'GET' || method === 'HEAD')
    throw new UsageError(`${flag} gives a body, which a ${method} does not carry: nothing was sent`, { hint: 'use -X POST, or -f/-F for the query' });
  try {
    JSON.parse(body);
  } catch {
    throw new UsageError(`${flag} is not valid JSON`);
  }
  // What is confirmed and recorded is what JSON.parse read (the last of two keys); a service may
  // read the first: one body, one reading, as the service itself requires.
  const twice = duplicateKeyPath(body);
  if (twice !== undefined)
    throw new UsageError(`${flag} gives the key ${twice} twice in one object: which one is meant is not for tpa to guess; nothing was sent`);
  return { body, query: queryOf(fields) };
}

/** The -f and -F fields as one object (fields.ts), -F's @file and @- read. */
async function fieldsOf(ctx: Context, opts: Options): Promise<Fields> {
  const given = [...(opts.rawField ?? []).map((t) => ['-f', t] as const), ...(opts.field ?? []).map((t) => ['-F', t] as const)];
  const values: { key: string; value: unknown }[] = [];
  const stdin = [opts.data === '-', opts.input === '-'].filter(Boolean).length;
  let fromStdin = 0;
  for (const [flag, text] of given) {
    const field = splitField(text, flag);
    if (typeof field === 'string') throw new UsageError(`${field}; nothing was sent`);
    const { key, value } = field;
    if (flag === '-f' || value === undefined || !value.startsWith('@')) {
      values.push({ key, value: flag === '-F' && value !== undefined ? typedValue(value) : value });
      continue;
    }
    if (value === '@-' && stdin + ++fromStdin > 1) throw new UsageError('stdin is read once: only one of -d -, --input - and -F key=@- may read it');
    values.push({ key, value: await readInput(ctx, value === '@-' ? '-' : value.slice(1), `value of ${key}`) });
  }
  const fields = buildFields(values);
  if (typeof fields === 'string') throw new UsageError(`${fields}; nothing was sent`);
  return fields;
}

/** A target with a query added: after `?`, or after the query it has with `&`. */
function withQuery(pathAndSearch: string, query: string): string {
  if (query === '') return pathAndSearch;
  return `${pathAndSearch}${pathAndSearch.endsWith('?') ? '' : pathAndSearch.includes('?') ? '&' : '?'}${query}`;
}

/**
 * A fund release through `tpa api` is the release alone: no query string, and a body of exactly
 * encounter_id, amount and authorization_code (domain/raw-release.ts); else refused, nothing sent
 * or recorded.
 */
function releaseOf(body: string | undefined, target: string): RawRelease {
  if (target.includes('?')) throw new UsageError('a fund release carries no query string (fields go in its body): nothing was sent');
  const release = rawRelease(body);
  if (typeof release === 'string') throw new UsageError(`${release}; nothing was sent`);
  return release;
}

/**
 * An earlier release of this encounter from this machine whose answer was lost is settled from the
 * ledger first, as `tpa fund approve` settles it (FundHistory.resolve); then a release of a code this
 * machine's history holds as approved for the encounter is refused before anything is asked or sent
 * (exit 4, refuseApprovedCode, as `tpa fund approve` refuses it): one line for the code in the fund
 * history, never a second one the service would refuse as a duplicate.
 */
async function settleEarlier(ctx: Context, client: TpaClient, release: RawRelease): Promise<void> {
  const [{ codeOfAnother, FundHistory, refuseApprovedCode }, { settleLostReleases }, { databaseOf }] = await Promise.all([
    import('../../../jobs/fund-history.js'),
    import('../../../jobs/fund-release.js'),
    import('../../../jobs/journal.js'),
  ]);
  const id = release.encounter_id;
  const records = FundHistory.read(ctx.paths.dataDir);
  if (records.some((a) => a.encounter_id === id && a.outcome === 'UNKNOWN')) {
    const history = FundHistory.open(ctx.paths.dataDir);
    try {
      for (const note of await settleLostReleases(client, history, records, id)) ctx.note(note);
    } finally {
      history.close();
    }
  }
  const database = (await databaseOf(client).catch(() => undefined))?.id;
  const now = FundHistory.read(ctx.paths.dataDir);
  refuseApprovedCode(now, id, release.authorization_code, database);
  const other = codeOfAnother(now, id, release.authorization_code);
  if (other)
    throw new ConflictError(
      `authorization_code ${release.authorization_code.trim()} is used already (this machine's fund history gave it to ${other.encounter_id} on ${other.at}): each approval has its own code; nothing was sent`,
      { code: 'authorization_code_used' },
    );
}
/**
 * A fund release is asked as `tpa fund approve` asks one (docs/approval.md "Approval screens"): the
 * line naming where the money moves, then the release (encounter, amount, code), confirmed by typing
 * the amount back; a finalize is asked yes or no. Exit 2 without a terminal and without --yes.
 */
async function confirmed(ctx: Context, method: string, target: string, release: RawRelease | undefined): Promise<void> {
  if (release && !ctx.yes && ctx.canPrompt) {
    const [{ moneyTarget, promptTag, writeTargetLine }, { typeToConfirm }, { terminalWidth }] = await Promise.all([
      import('../../where.js'),
      import('../fund/confirm.js'),
      import('../../io.js'),
    ]);
    const where = await moneyTarget(ctx);
    writeTargetLine(ctx, where, terminalWidth(ctx.io.stderr));
    const what = `Release ${formatCentsGrouped(release.cents)} for encounter ${release.encounter_id} under authorization code ${release.authorization_code} (${method} ${target}), which cannot be undone`;
    await typeToConfirm(release.cents, `${promptTag(where)}${what}`, 'amount');
  } else if (release) await confirm(ctx, `${method} ${target} releases money and cannot be undone. Send it?`);
  // Finalizing a rate schedule changes what every later claim is paid: asked, as `tpa ratesheet finalize` asks.
  else if (changesRates(method, target)) await confirm(ctx, `${method} ${target} finalizes a rate schedule into live contract rates. Send it?`);
}

/**
 * A raw fund release, recorded in this machine's fund history (`tpa fund history`) before it is sent
 * and with its outcome after, as `tpa fund approve` records one (fund-release.ts recordedRelease, which
 * refuses first a code this machine has seen APPROVED for the encounter). A lost answer leaves
 * it UNKNOWN, for the next `fund approve` or payment run of that encounter to settle from the ledger.
 */
async function withHistory(ctx: Context, client: TpaClient, release: RawRelease, send: () => Promise<TransportResponse>): Promise<TransportResponse> {
  const [{ FundHistory, refusalOf }, { recordedRelease }] = await Promise.all([
    import('../../../jobs/fund-history.js'),
    import('../../../jobs/fund-release.js'),
  ]);
  // The database it goes to, named in its record (docs/jobs.md "Fund history"); unknown when health says none.
  const { databaseOf } = await import('../../../jobs/journal.js');
  const database = (await databaseOf(client).catch(() => undefined))?.id;
  const history = FundHistory.open(ctx.paths.dataDir);
  // Ctrl-C from here on says that the release may have happened, and how to find out.
  const { whileReleaseIsOut } = await import('../fund/confirm.js');
  const out = whileReleaseIsOut(ctx, release.encounter_id, release.authorization_code);
  try {
    // What was sent, exactly: the amount is the JSON number of the body (checked to be plain cents).
    const approval = { encounter_id: release.encounter_id, amount: release.amount, authorization_code: release.authorization_code.trim() };
    const where = { log: history, dataDir: ctx.paths.dataDir, profile: ctx.profileName, environment: ctx.profile().env, database, refuseApproved: true };
    return await recordedRelease(where, approval, send, (r) => {
      // Thrown (no answer): the record stays UNKNOWN.
      if (!('answer' in r)) return undefined;
      const response = r.answer;
      if (response.status < 300) {
        const transfer = (response.body as { processor_transfer_id?: unknown } | undefined)?.processor_transfer_id;
        return { outcome: 'APPROVED', transfer: typeof transfer === 'string' ? transfer : null };
      }
      const err = errorFromResponse(response.status, response.body);
      const refused = refusalOf(err);
      return refused
        ? { outcome: 'REFUSED', transfer: null, message: refused.message, code: refused.code }
        : { outcome: 'FAILED', transfer: null, message: err.message };
    });
  } finally {
    out.done();
    history.close();
  }
}
