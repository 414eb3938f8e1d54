// tpa api: a raw request through the active profile, path as served (like `gh api`); the exit code
// follows the status code. A request that moves money or finalizes rates is asked first.
import type { TransportResponse } from '../../../client/transport.js';
import { duplicateKeyPath } from '../../../domain/json-keys.js';
import { changesRates, prefixProblem, releasesMoney, servedTarget } from '../../../domain/served-routes.js';
import { basePath } from '../../../domain/service-url.js';
import { EXIT, UsageError, errorFromResponse } from '../../../errors.js';
import type { Context } from '../../context.js';
import { readInput } from '../../options.js';
import { confirm } from '../../prompt.js';
import { argument, option, verb } from '../../verb.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const api = verb({
  name: 'api',
  description: 'send a raw request to a path as served and print the response body; exits by the status code',
  args: {
    methodArg: argument.required('<method>', METHODS.join(' | ')),
    path: argument.required('<path>', 'path as served: /tpa-api/v1/... or /api/v1/...'),
  },
  options: {
    data: option.text('-d, --data <json>', 'request body: JSON text, @file, or - for stdin'),
    include: option.flag('-i, --include', 'print the status line and headers before the body'),
  },
  examples: [
    'tpa api GET /tpa-api/v1/claims/sub_4f1c9a0b2e7d6c35a8e1/response/',
    `tpa api POST /tpa-api/v1/contract-lookup/blind/ -d '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}'`,
    'tpa api POST /tpa-api/v1/claims/submit/ -d @claim.json --include',
  ],
  async run(ctx, { methodArg, path }, opts) {
    const method = methodArg.toUpperCase();
    if (!METHODS.includes(method)) throw new UsageError(`unknown method "${methodArg}": use ${METHODS.join(', ')}`);
    // The path as the service's router reads it, which is also what is sent: what is checked below is
    // what goes out (a fragment is never sent, /./ and /x/../ are resolved, as an HTTP client would).
    const served = path.startsWith('/') ? servedTarget(path) : undefined;
    if (!served || (!served.path.startsWith('/tpa-api/') && !served.path.startsWith('/api/'))) {
      throw new UsageError(`path must be as served, starting with /tpa-api/v1/ or /api/v1/ (got "${path}")`);
    }
    const target = `${served.path}${served.search}`;
    if (target !== path.replace(/#.*$/s, '')) ctx.note(`sending ${method} ${target} (the path as the service reads it)`);
    const data = opts.data;
    const body = data === '-' || data?.startsWith('@') ? await readInput(ctx, data === '-' ? '-' : data.slice(1), 'request body') : data;
    let parsed: unknown;
    if (body !== undefined) {
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new UsageError('--data is not valid JSON');
      }
      // What is confirmed and recorded is what JSON.parse read (the last of two keys); a service may
      // read the first: one body, one reading, as the service itself requires.
      const twice = duplicateKeyPath(body);
      if (twice !== undefined)
        throw new UsageError(`--data gives the key ${twice} twice in one object: which one is meant is not for tpa to guess; nothing was sent`);
    }
    // The profile first (its base URL is checked there: a query, a fragment or a user name is
    // refused, exit 2), then the URL actually sent, its base URL's path followed by the target: a
    // base URL that makes this request a fund release or a finalize is refused before anything is asked.
    const client = await ctx.client();
    const profile = ctx.profile();
    const turned = prefixProblem(method, profile.env === 'local' ? '' : basePath(profile.base_url ?? ''), target);
    if (turned) throw new UsageError(`${turned}; nothing was sent`, { hint: "a base URL's path is only a prefix: check the profile's base_url" });
    const submit = method === 'POST' && /\/claims\/submit\/$/.test(served.path);
    // A raw request may move money too: decided by the route it reaches, not by how its path is spelt;
    // then the same confirmation, Idempotency-Key and fund history as `tpa fund approve`.
    const money = releasesMoney(method, target);
    if (money && !ctx.yes && ctx.canPrompt) {
      // The first line names where the money moves, and the question its environment (docs/design.md "Approval screens").
      const { moneyTarget, promptTag, targetLine } = await import('../../where.js');
      const where = await moneyTarget(ctx);
      ctx.io.stderr.write(`${targetLine(where, ctx.colorErr)}\n`);
      await confirm(ctx, `${promptTag(where)}${method} ${target} releases money and cannot be undone. Send it?`);
    } else if (money) await confirm(ctx, `${method} ${target} releases money and cannot be undone. Send it?`);
    // Finalizing a rate schedule changes what every later claim is paid: asked, as `tpa ratesheet finalize` asks.
    else if (changesRates(method, target)) await confirm(ctx, `${method} ${target} finalizes a rate schedule into live contract rates. Send it?`);
    const { randomUUID } = await import('node:crypto');
    // Writes that move claims or money always carry a key (docs/design.md "Client behaviour").
    const idempotencyKey = submit || money ? randomUUID() : undefined;
    if (idempotencyKey && ctx.debug) ctx.note(`[debug] Idempotency-Key: ${idempotencyKey}`);
    const request = () => client.raw(method, target, { body, contentType: submit ? 'application/fhir+json' : 'application/json', idempotencyKey });
    const response = money ? await withHistory(ctx, parsed, request) : await request();
    if (opts.include) {
      ctx.io.stdout.write(`HTTP/1.1 ${response.status}\n`);
      for (const [k, v] of Object.entries(response.headers)) ctx.io.stdout.write(`${k}: ${v}\n`);
      ctx.io.stdout.write('\n');
    }
    // A HEAD answer (or a 204) has no body to print.
    if (response.body !== undefined) ctx.io.stdout.write(`${JSON.stringify(response.body, null, 2)}\n`);
    const exitCode = response.status >= 400 ? errorFromResponse(response.status, response.body).exitCode : response.status === 202 ? EXIT.PENDING : EXIT.OK;
    if (exitCode !== EXIT.OK) ctx.note(`HTTP ${response.status}`);
    return { exitCode };
  },
});

/**
 * A raw fund release, recorded in this machine's fund history (`tpa fund history`) before it is sent
 * and with its outcome after, as `tpa fund approve` records one (sendRecorded). A lost answer leaves
 * it UNKNOWN, for the next `fund approve` or payment run of that encounter to settle from the ledger.
 */
async function withHistory(ctx: Context, body: unknown, send: () => Promise<TransportResponse>): Promise<TransportResponse> {
  const { FundHistory, refusalOf, sendRecorded } = await import('../../../client/fund-history.js');
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const history = FundHistory.open(ctx.paths.dataDir);
  try {
    const approval = {
      encounter_id: typeof b.encounter_id === 'string' ? b.encounter_id : String(b.encounter_id ?? ''),
      amount: typeof b.amount === 'number' ? b.amount : Number(b.amount ?? 0) || 0,
      authorization_code: typeof b.authorization_code === 'string' ? b.authorization_code.trim() : String(b.authorization_code ?? ''),
    };
    return await sendRecorded({ log: history, profile: ctx.profileName, environment: ctx.profile().env }, approval, send, (r) => {
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
    history.close();
  }
}
