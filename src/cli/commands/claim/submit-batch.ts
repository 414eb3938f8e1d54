// `tpa claim submit <path>...` with more than one claim: the readers (submit-sources.ts) feed the
// batch runner (jobs/claim-batch.ts); this file only wires options, the journal's place, the
// output and the progress line (docs/claim-batches.md "Claim batches").
import { createHash } from 'node:crypto';
import { resolve, join } from 'node:path';
import { BatchJournal, runClaimBatch, type BatchProgress, type BatchSummary, type ClaimOutcome } from '../../../jobs/claim-batch.js';
import { DEFAULT_POLL_TIMEOUT_MS } from '../../../client/polling.js';
import { databaseOf, journalsDir } from '../../../jobs/journal.js';
import { formatCentsGrouped } from '../../../domain/money.js';
import { UsageError } from '../../../errors.js';
import { count } from '../../../render/format.js';
import { tableTools, type CommandOutput } from '../../../render/output.js';
import { duration, type ProgressState } from '../../../render/progress-line.js';
import { oneLine } from '../../../render/screen.js';
import { recordWriter } from '../../listing.js';
import type { Context } from '../../context.js';
import { keepHeapFlat } from '../../heap.js';
import { limitNote, pacedState } from '../../status-line.js';
import { terminalWidth } from '../../io.js';
import { suggestCommand, timeoutOption } from '../../options.js';
import { noteText } from './skipped.js';
import type { ClaimText } from './submit-sources.js';

export const DEFAULT_CONCURRENCY = 10;

/**
 * The journal a batch keeps when --journal names none: in the data directory, named after the
 * profile and the paths, so that running the same command again finds it.
 */
export function defaultJournalPath(ctx: Context, paths: readonly string[]): string {
  const profile = ctx.profile();
  const identity = JSON.stringify([profile.name, profile.base_url ?? '', ...paths.map((p) => (p === '-' ? '-' : resolve(p)))]);
  return join(journalsDir(ctx.paths.dataDir), `claims-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}.ndjson`);
}

/** The options of `claim submit` that a batch reads (some only to refuse them). */
export interface BatchOptions {
  wait?: boolean;
  timeout?: string;
  raw?: boolean;
  idempotencyKey?: string;
  journal?: string;
  concurrency?: string;
  /** Each claim's outcome as it comes (the acknowledgments, acks.ts). */
  onOutcome?: (o: ClaimOutcome) => void;
}

function concurrencyOption(concurrency: string | undefined): number {
  if (concurrency === undefined) return DEFAULT_CONCURRENCY;
  const n = Number(concurrency);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--concurrency must be a whole number from 1 to 100 (got "${concurrency}")`);
  return n;
}

/** One error of an outcome: its X12 segment (a claim read from an 837), its field, its message. */
function errorText(e: ClaimOutcome['errors'][number] & { segment?: string }): string {
  return `${e.segment ? `${e.segment}: ` : ''}${e.field ? `${e.field}: ` : ''}${e.message}`;
}

/** A denied claim's code and reason, as the engine gives them (` CARC-96: No contract…`). */
function denialText(o: ClaimOutcome): string {
  const code = o.denial_code ? ` ${oneLine(o.denial_code)}` : '';
  const reason = o.denial_reason ? `${code ? ':' : ''} ${oneLine(o.denial_reason)}` : '';
  return `${code}${reason}`;
}

/** A flat row for csv: the same fields as ndjson, the errors and the amounts as text. */
function csvRow(o: ClaimOutcome): Record<string, unknown> {
  return {
    source: o.source,
    status: o.status,
    submission_id: o.submission_id,
    external_claim_id: o.external_claim_id,
    idempotency_key: o.idempotency_key,
    errors: o.errors.map(errorText).join('; '),
    ...(o.disposition !== undefined
      ? {
          disposition: o.disposition,
          allowed_amount: o.adjudication?.allowed_amount ?? null,
          benefit_amount: o.adjudication?.benefit_amount ?? null,
          denial_code: o.denial_code ?? null,
          denial_reason: o.denial_reason ?? null,
        }
      : {}),
  };
}

/**
 * The batch's progress line: while sending, every paced job's (the count with the skipped, the rate
 * or the limit once it paces the batch, a wait, the time left); while waiting for adjudications, the
 * count and the next check.
 */
export function progressState(p: BatchProgress, nowMs: number): ProgressState {
  const detail = p.skipped > 0 ? `${count(p.skipped)} skipped` : undefined;
  if (p.stage !== 'waiting') return pacedState(p, 'claims', nowMs, detail);
  return {
    done: p.done,
    total: p.total,
    unit: 'claims',
    detail,
    ...(p.waitingMs !== undefined && p.waitingMs > 0
      ? { wait: { untilMs: nowMs + p.waitingMs, text: 'waiting for adjudications, next check in' } }
      : { label: 'waiting for adjudications' }),
  };
}

/** The rows of the batch's final states in this order; dispositions (APPROVED, DENIED…) first, by name. */
const STATE_ORDER = ['STILL PROCESSING', 'NOT POLLED', 'ACKNOWLEDGED', 'INVALID', 'FAILED', 'UNKNOWN'];
const STATE_LABEL: Record<string, string> = { UNKNOWN: 'UNKNOWN (check before resending)' };

/**
 * The summary: the whole batch, each claim once in its final state (finalState), the rows adding up
 * to its total (those never reached, the batch having stopped, are NOT SENT); then what this run did,
 * apart (docs/claim-batches.md "Claim batches").
 */
export function summaryTable(t: Awaited<ReturnType<typeof tableTools>>, s: BatchSummary, waited: boolean): string {
  const money = (c: number) => formatCentsGrouped(c);
  const states = Object.entries(s.states).filter(([, n]) => n > 0);
  const rank = (state: string) => (STATE_ORDER.includes(state) ? STATE_ORDER.indexOf(state) + 1 : 0);
  states.sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const rows: [string, string][] = states.map(([state, n]) => [STATE_LABEL[state] ?? state, count(n)]);
  const settled = states.reduce((sum, [, n]) => sum + n, 0);
  const total = Math.max(s.total ?? settled, settled);
  if (total > settled) rows.push([s.stopped ? 'NOT SENT (stopped)' : 'NOT SENT', count(total - settled)]);
  rows.push([t.c.bold('Total'), t.c.bold(count(total))]);
  const before = s.counts.SKIPPED;
  const run = `This run sent ${s.sentThisRun === 0 ? 'none' : count(s.sentThisRun)}${before > 0 ? `; ${count(before)} ${before === 1 ? 'was' : 'were'} sent before (not sent again)` : ''}`;
  const amounts: [string, string][] = [['Charges', money(s.chargesCents)]];
  if (waited) amounts.push(['Allowed', money(s.allowedCents)], ['Benefit', money(s.benefitCents)]);
  return `${t.table(['Outcome', { header: 'Claims', align: 'right' }], rows)}\n${run}\n${t.keyValues(amounts)}`;
}

/** What each claim's outcome does as it completes: the caller's hook, the record on stdout, and a note for one not accepted. */
function outcomeNoter(
  ctx: Context,
  opts: BatchOptions,
  writer: { write(records: (ClaimOutcome | Record<string, unknown>)[]): void } | undefined,
): (o: ClaimOutcome) => void {
  return (o) => {
    opts.onOutcome?.(o);
    if (writer) writer.write([ctx.format === 'csv' ? csvRow(o) : o]);
    if (o.status === 'INVALID' || o.status === 'FAILED' || o.status === 'UNKNOWN') {
      const errors = o.errors.map(errorText).join('; ');
      ctx.note(`${oneLine(o.source)}: ${o.status === 'INVALID' ? 'invalid, not sent' : o.status === 'FAILED' ? 'failed' : 'UNKNOWN, not sent'}: ${errors}`);
    }
    if (o.note) ctx.note(noteText(`${oneLine(o.source)}: ${o.note} (${o.external_claim_id})`));
    // A denied claim says why: its denial code and reason.
    if (o.disposition === 'DENIED') ctx.note(noteText(`${oneLine(o.source)}: DENIED${denialText(o)}`));
  };
}

/** What the end of a batch says on stderr: why it stopped, the claims left UNKNOWN, or those still being adjudicated. */
function endNotes(ctx: Context, summary: BatchSummary, journalPath: string): void {
  if (summary.stopped) {
    ctx.note(`stopped: ${summary.stopped.message}`);
    ctx.note(`the journal ${journalPath} says what was sent; run the same command again to continue`);
  } else if (summary.counts.UNKNOWN > 0) {
    ctx.note(
      `${summary.counts.UNKNOWN} claim(s) UNKNOWN: sent before without a recorded answer, and the ledger could not say whether the service has them. They were not sent again: look for them (${suggestCommand(ctx, ['ledger', 'list', '--npi', { placeholder: 'npi' }, '--from', { placeholder: 'date' }, '--to', { placeholder: 'date' }])}) before resending`,
    );
  } else if (summary.stillProcessing > 0) {
    ctx.note(
      `${summary.stillProcessing} claim(s) still being adjudicated when --wait timed out: follow them with ${suggestCommand(ctx, ['claim', 'poll', { placeholder: 'submission_id' }, '--wait'])}`,
    );
  }
}

/**
 * Runs the batch: outcomes on stdout as they complete (ndjson, csv rows, one json array), or a
 * summary table on a terminal; progress on stderr when it is a terminal.
 */
export async function submitBatch(
  ctx: Context,
  paths: readonly string[],
  claims: AsyncIterable<ClaimText>,
  opts: BatchOptions,
  total: number | undefined,
): Promise<CommandOutput> {
  const concurrency = concurrencyOption(opts.concurrency);
  const waitTimeoutMs = opts.wait ? (timeoutOption(opts.timeout) ?? DEFAULT_POLL_TIMEOUT_MS) : undefined;
  if (opts.idempotencyKey !== undefined)
    throw new UsageError('--idempotency-key names the key of one claim; a batch gives each claim its own and keeps them in its journal');
  if (opts.raw) throw new UsageError("--raw is for one claim; a batch reports each claim's adjudication summary with --wait");
  const journalPath = opts.journal ?? defaultJournalPath(ctx, paths);
  const profile = ctx.profile();
  const journal = await BatchJournal.open(journalPath, { header: { kind: 'batch', profile: profile.name, base_url: profile.base_url ?? null } });
  if (opts.journal !== undefined) (await import('../../../jobs/job-journals.js')).rememberJournal(journalsDir(ctx.paths.dataDir), journalPath);
  const live = ctx.io.stderr.isTTY;
  if (opts.journal === undefined) ctx.note(`journal: ${journal.path} (run the same command again to continue after an interruption)`);
  const client = await ctx.client();
  // The database the claims go to: a journal sent to another one (a reset) is history (journal.ts otherDatabase).
  const database = await databaseOf(client);
  keepHeapFlat();
  const table = ctx.format === 'table';
  const writer = table
    ? undefined
    : recordWriter<ClaimOutcome | Record<string, unknown>>(ctx, 'the batch went on: each claim is recorded in its journal as the service answered it');
  const line = ctx.status;
  let last: BatchProgress | undefined;
  const started = Date.now();
  // Ctrl-C: what was sent is in the journal; say where, and stop. The line stays: how far it got.
  const onSignal = () => {
    line.keep();
    ctx.note(`interrupted: the journal ${journal.path} says what was sent; run the same command again to continue`);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  let summary: BatchSummary;
  try {
    summary = await runClaimBatch(client, claims, journal, {
      concurrency,
      waitTimeoutMs,
      total,
      database,
      onHistory: (why) => ctx.note(`${why}: its records are history; starting anew, every claim is sent to this database`),
      onOutcome: outcomeNoter(ctx, opts, writer),
      onProgress: live
        ? (p) => {
            last = p;
            line.show(progressState(p, Date.now()), p.waitingMs !== undefined || p.done === p.total);
          }
        : undefined,
      onLimit: live ? (l) => ctx.note(limitNote(l)) : undefined,
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    // The line stays on screen, at its last count, above the summary.
    if (last) {
      const all = last.total === undefined || last.done >= last.total;
      const end = `${all ? 'done' : 'stopped'} after ${duration(Date.now() - started)}`;
      line.keep({ ...progressState({ ...last, waitingMs: undefined, stage: 'submitting' }, Date.now()), end });
    }
    writer?.end();
    journal.close();
  }
  endNotes(ctx, summary, journal.path);
  const t = await tableTools(table ? ctx.color : ctx.colorErr, terminalWidth(table ? ctx.io.stdout : ctx.io.stderr));
  if (table) ctx.io.stdout.write(`${summaryTable(t, summary, opts.wait === true)}\n`);
  else if (live) ctx.io.stderr.write(`${summaryTable(t, summary, opts.wait === true)}\n`);
  return { exitCode: summary.exitCode };
}
