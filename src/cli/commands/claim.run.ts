// Handlers of `tpa claim` (declared in claim.ts): parse and check options, call the client, shape the output.
import type { ApiResult } from '../../client/client.js';
import type { ClaimResponseBody } from '../../client/types.js';
import { parseDuration } from '../../domain/duration.js';
import { ValidationError } from '../../domain/errors.js';
import { MAX_CLAIM_BYTES, parseClaimText, type ParsedClaim } from '../../domain/fhir-claim.js';
import { centsToAmount } from '../../domain/money.js';
import { cptProblem, npiProblem } from '../../domain/validation.js';
import { EXIT, UsageError, ValidationFailed } from '../../errors.js';
import type { CommandOutput, TableTools } from '../../render/output.js';
import type { Handler, Options } from '../action.js';
import { listValue, readInput } from '../options.js';
import { claimTemplate } from '../../domain/claim-template.js';
import type { Context } from '../context.js';

/** The claim text from a file or stdin (`-`); unreadable or oversized input is a usage error. */
export function readClaimInput(ctx: Context, source: string): Promise<string> {
  return readInput(ctx, source, 'claim', MAX_CLAIM_BYTES);
}

/** Local validation with the engine's own rules; exits 2 naming every bad field, nothing sent. */
export function validateClaim(text: string, source: string): ParsedClaim {
  try {
    return parseClaimText(text);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const where = source === '-' ? 'stdin' : source;
    const lines = err.errors.map((e) => `  ${e.field || '(file)'}: ${e.message}`).join('\n');
    throw new ValidationFailed(`${where} is not a valid claim:\n${lines}`, { details: err.errors });
  }
}

function timeoutOption(opts: Options): number | undefined {
  if (opts.timeout === undefined) return undefined;
  const ms = parseDuration(String(opts.timeout));
  if (ms === undefined) throw new UsageError(`--timeout: "${String(opts.timeout)}" is not a duration such as 30s, 10m or 1h`);
  return ms;
}

async function waitForClaim(ctx: Context, submissionId: string, opts: Options, firstDelayMs: number): Promise<ApiResult<ClaimResponseBody>> {
  const [{ pollClaim, DEFAULT_POLL_TIMEOUT_MS }, { formatDuration }] = await Promise.all([
    import('../../client/polling.js'),
    import('../../domain/duration.js'),
  ]);
  const client = await ctx.client();
  return pollClaim(client, submissionId, {
    timeoutMs: timeoutOption(opts) ?? DEFAULT_POLL_TIMEOUT_MS,
    includeRaw: opts.raw === true,
    firstDelayMs,
    onWait: ({ waitMs, elapsedMs }) =>
      ctx.progress(`waiting for adjudication of ${submissionId}: next check in ${formatDuration(waitMs)} (${formatDuration(elapsedMs)} elapsed)`),
  });
}

export function claimResponseTable(t: TableTools, b: ClaimResponseBody): string {
  const pairs: [string, string][] = [
    ['Submission', b.submission_id],
    ['Encounter', b.external_claim_id ?? '—'],
    ['Status', t.status(b.status)],
  ];
  if (b.status === 'PROCESSING') {
    pairs.push(['Estimated completion', b.estimated_completion ?? '—'], ['Message', b.message ?? '']);
    return t.keyValues(pairs);
  }
  pairs.push(['Disposition', t.status(b.disposition)]);
  if (b.disposition === 'DENIED') pairs.push(['Denial', `${b.denial_code ?? ''} ${b.denial_reason ?? ''}`.trim()]);
  if (b.disposition === 'PENDING_REVIEW') pairs.push(['Pend reason', b.pend_reason ?? '—'], ['Message', b.message ?? '']);
  const a = b.adjudication;
  if (a) {
    pairs.push(
      ['Service date', a.service_date],
      ['Charges', t.amount(a.total_charges)],
      ['Allowed', t.amount(a.allowed_amount)],
      ['  Copay', t.amount(a.copay_applied)],
      ['  Deductible', t.amount(a.deductible_applied)],
      ['  Coinsurance', t.amount(a.coinsurance_applied)],
      ['Patient responsibility', t.amount(a.patient_responsibility)],
      ['Benefit (plan pays)', t.c.bold(t.amount(a.benefit_amount))],
    );
  }
  if (b.aeob_reference) pairs.push(['AEOB', b.aeob_reference]);
  if (b.processor_trace_id) pairs.push(['Processor trace', b.processor_trace_id]);
  if (b.completed_at) pairs.push(['Completed', b.completed_at]);
  return t.keyValues(pairs);
}

function responseOutput(ctx: Context, result: ApiResult<ClaimResponseBody>): CommandOutput {
  const pending = result.status === 202;
  if (pending) {
    ctx.note(
      `not finished: claim ${result.body.submission_id} is still being adjudicated (estimated ${result.body.estimated_completion ?? 'soon'}); use --wait to wait for it`,
    );
  }
  return { data: result.body, table: (t) => claimResponseTable(t, result.body), exitCode: pending ? EXIT.PENDING : EXIT.OK };
}

/** Today: on the embedded engine, its clock's date (it may be frozen or shifted); else this machine's. */
async function today(ctx: Context): Promise<string> {
  if (ctx.profile().env !== 'local') return new Date().toISOString().slice(0, 10);
  const { LocalTransport } = await import('../../client/local.js');
  const transport = new LocalTransport(ctx.paths.dataDir, ctx.io.env);
  try {
    return (await transport.open()).clock().now.slice(0, 10);
  } finally {
    transport.close();
  }
}

export const template: Handler = async (ctx, _args, opts) => {
  if (opts.type !== 'professional' && opts.type !== 'institutional') throw new UsageError('--type must be professional or institutional');
  const npi = opts.npi as string | undefined;
  const problem = npi === undefined ? undefined : npiProblem(npi);
  if (problem) throw new ValidationFailed(`--npi: ${problem}`);
  const codes = listValue(opts.cpt);
  const bad = codes.map(cptProblem).find(Boolean);
  if (bad) throw new ValidationFailed(`--cpt: ${bad}`);
  const serviceDate = (opts.serviceDate as string | undefined) ?? (await today(ctx));
  const { isoDateProblem } = await import('../../domain/validation.js');
  const dateProblem = isoDateProblem(serviceDate);
  if (dateProblem) throw new ValidationFailed(`--service-date: ${dateProblem}`);
  const template = claimTemplate({ type: opts.type, npi, cpt: codes, patient: opts.patient as string, serviceDate });
  // A template is a file's content: JSON whatever the output format.
  ctx.io.stdout.write(`${JSON.stringify(template, null, 2)}\n`);
};

export const validate: Handler = async (ctx, [file]) => {
  const parsed = validateClaim(await readClaimInput(ctx, file!), file!);
  const summary = {
    valid: true,
    type: parsed.type,
    provider_npi: parsed.providerNpi,
    member_id: parsed.memberId,
    lines: parsed.lines.length,
    cpt_codes: parsed.lines.map((l) => l.cptCode),
    total_charges: centsToAmount(parsed.totalChargeCents),
    preauthorizations: parsed.preauthorizations,
  };
  return {
    data: summary,
    table: (t) =>
      `${t.c.green('✓')} ${file === '-' ? 'stdin' : file} is a valid ${parsed.type} claim\n` +
      t.keyValues([
        ['Provider NPI', parsed.providerNpi],
        ['Member', parsed.memberId],
        ['Lines', `${parsed.lines.length} (${summary.cpt_codes.join(', ')})`],
        ['Charges', t.amount(summary.total_charges)],
      ]),
  };
};

export const submit: Handler = async (ctx, _args, opts, cmd) => {
  const paths = cmd.args.map(String);
  const { checkPaths, claimTexts, countClaims } = await import('../claim-sources.js');
  checkPaths(paths, ctx.io.stdinIsTTY);
  const notes: string[] = [];
  const claims = claimTexts(
    paths,
    () => ctx.io.stdinStream(),
    (message) => notes.push(message),
  );
  // One claim behaves as it always has; more than one (or a --journal) is a batch.
  const first = await claims.next();
  const second = first.done || opts.journal !== undefined ? undefined : await claims.next();
  for (const message of notes.splice(0)) ctx.note(message);
  if (first.done) throw new ValidationFailed(`no claim in ${paths.join(', ')}`);
  if (opts.journal !== undefined || (second && !second.done)) {
    const { submitBatch } = await import('../claim-batch.js');
    async function* all() {
      yield first.value!;
      if (second && !second.done) yield second.value;
      for await (const item of claims) {
        for (const message of notes.splice(0)) ctx.note(message);
        yield item;
      }
      for (const message of notes.splice(0)) ctx.note(message);
    }
    return submitBatch(ctx, paths, all(), opts, ctx.io.stderr.isTTY ? await countClaims(paths) : undefined);
  }
  const file = first.value.source;
  const text = first.value.text;
  validateClaim(text, file);
  const client = await ctx.client();
  const { randomUUID } = await import('node:crypto');
  const key = (opts.idempotencyKey as string | undefined) ?? randomUUID();
  const ack = await client.submitClaim(text, key);
  if (!opts.wait) {
    return {
      data: ack.body,
      table: (t) =>
        t.keyValues([
          ['Submission', ack.body.submission_id],
          ['Encounter', ack.body.external_claim_id],
          ['Status', t.status(ack.body.status)],
          ['Next', `tpa claim poll ${ack.body.submission_id} --wait`],
        ]),
    };
  }
  ctx.progress(`submitted ${ack.body.submission_id} (encounter ${ack.body.external_claim_id})`);
  return responseOutput(ctx, await waitForClaim(ctx, ack.body.submission_id, opts, 2000));
};

export const poll: Handler = async (ctx, [submissionId], opts) => {
  if (opts.wait) return responseOutput(ctx, await waitForClaim(ctx, submissionId!, opts, 0));
  timeoutOption(opts);
  const client = await ctx.client();
  return responseOutput(ctx, await client.claimResponse(submissionId!, opts.raw === true));
};
