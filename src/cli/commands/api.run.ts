// Handlers of `tpa api` (declared in api.ts): parse and check options, call the client, shape the output.
import { EXIT, UsageError, errorFromResponse } from '../../errors.js';
import type { Handler } from '../action.js';
import { readInput } from '../options.js';
import { confirm } from '../prompt.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const api: Handler = async (ctx, [methodArg, path], opts) => {
  const method = methodArg!.toUpperCase();
  if (!METHODS.includes(method)) throw new UsageError(`unknown method "${methodArg}": use ${METHODS.join(', ')}`);
  if (!path!.startsWith('/tpa-api/') && !path!.startsWith('/api/')) {
    throw new UsageError(`path must be as served, starting with /tpa-api/v1/ or /api/v1/ (got "${path}")`);
  }
  const data = opts.data as string | undefined;
  const body = data === '-' || data?.startsWith('@') ? await readInput(ctx, data === '-' ? '-' : data.slice(1), 'request body') : data;
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch {
      throw new UsageError('--data is not valid JSON');
    }
  }
  const pathOnly = path!.split('?')[0]!.replace(/\/+$/, '/');
  const submit = /\/claims\/submit\/$/.test(pathOnly);
  const funding = method === 'POST' && /\/funding\/approve\/?$/.test(pathOnly);
  // A raw request may move money too: the same confirmation as `tpa fund approve`.
  if (funding) await confirm(ctx, 'Send this fund release approval? Money moves and it cannot be undone');
  const client = await ctx.client();
  const { randomUUID } = await import('node:crypto');
  const response = await client.raw(method, path!, {
    body,
    contentType: submit ? 'application/fhir+json' : 'application/json',
    // Writes that move claims or money always carry a key (DESIGN.md section 3).
    idempotencyKey: (method === 'POST' && submit) || funding ? randomUUID() : undefined,
  });
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
};
