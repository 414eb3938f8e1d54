// What the journals of long jobs hold, read for `tpa jobs` (docs/jobs.md "Reading a journal: tpa
// jobs"): claim batches, the journal of single claims, payment runs. Read only: a journal is never
// opened for writing, never locked, never changed, so reading one while its job runs is safe (a
// last line still being written is left out).
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { FieldError } from '../domain/errors.js';
import { codeKey } from '../domain/funding.js';
import { TpaError } from '../errors.js';
import { isRefusal } from './claim-batch.js';
import { type DatabaseIdentity, type JournalRecord, otherDatabase, readJournal } from './journal.js';
import { currentHolder } from './journal-lock.js';

export type JobKind = 'claim batch' | 'single claims' | 'payment run';

/** A journal's job in one line of `tpa jobs`. */
export interface JobSummary {
  /** The journal's file name without `.ndjson`: what `tpa jobs show` takes. */
  id: string;
  kind: JobKind | 'unknown';
  /**
   * running: its job holds it now; incomplete: work is left that the same command continues;
   * finished; closed: a payment run closed with approvals left, never continued; damaged: not
   * readable to its end.
   */
  state: 'running' | 'incomplete' | 'finished' | 'closed' | 'damaged';
  profile: string | null;
  base_url: string | null;
  started_at: string | null;
  /** When the journal was last written. */
  updated_at: string;
  /**
   * Claims (or approvals) in the job: a batch's as its source counted them when its last run
   * began, a payment run's plan; null when not recorded (a journal of an older tpa, claims from stdin).
   */
  total: number | null;
  /** Of those, the ones whose request went out (done, failed, or sent with no answer recorded). */
  sent: number;
  done: number;
  /** Sent (or, in a journal of version 1, announced) with no answer recorded: settled when the same command runs again. */
  pending: number;
  failed: number;
  invalid: number;
  /**
   * Never sent: the total less every claim sent, refused as invalid or done (a run stopped before
   * reaching them, or after announcing them only); without a total, the claims only announced, or null.
   */
  not_sent: number | null;
  /** Why records before the job's latest start are history (sent to another database), or null. */
  history: string | null;
  /** A payment run's confirmed total, in cents; null for claims. */
  total_cents: number | null;
  /** A payment run's approvals still to settle (not sent, or sent unanswered), in cents; null for claims. */
  amount_left_cents: number | null;
  /** A payment run's approvals made by it (APPROVED), in cents; null for claims. */
  approved_cents: number | null;
  /**
   * A payment run's approvals SKIPPED (their encounter funded by another approval): done, yet none of
   * its money; their count and amount in cents, null for claims.
   */
  skipped: number | null;
  skipped_cents: number | null;
  /** The process writing it, when running. */
  pid: number | null;
  path: string;
  /** Why it could not be read to its end. */
  problem: string | null;
  /** A closed payment run: when, and by whom (tpa jobs close). */
  closed_at: string | null;
  closed_by: string | null;
}

/** CLOSED: an approval a closed payment run never sent. */
export type ItemStatus = 'DONE' | 'PENDING' | 'FAILED' | 'INVALID' | 'CLOSED';

/** One claim (or one approval of a payment run) of a journal. */
export interface JobItem {
  /** Where the claim came from (file, file:line, file#entry[i], stdin…), or the encounter of an approval. */
  source: string;
  status: ItemStatus;
  /** What the status stands for in the job's own words (ACKNOWLEDGED, SENT, REFUSED, APPROVED, OWED…). */
  detail: string;
  submission_id: string | null;
  external_claim_id: string | null;
  idempotency_key: string | null;
  /** A payment run's approval: its amount in cents and its authorization code. */
  amount_cents: number | null;
  authorization_code: string | null;
  /** A payment run's SKIPPED approval: the authorization code of the approval that funded the encounter, when recorded. */
  funded_by?: string | null;
  message: string | null;
  errors: FieldError[];
  at: string | null;
  /** The claim's text, kept for an invalid or refused claim (to be written out, fixed and sent again). */
  text?: string;
}

export interface Job {
  summary: JobSummary;
  items: JobItem[];
  /**
   * The id of the database the job's latest records were sent to: a payment run's plan was confirmed
   * against it, a batch's latest run recorded it (recorded since this version).
   */
  database?: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function blankItem(source: string, status: ItemStatus, detail: string): JobItem {
  return {
    source,
    status,
    detail,
    submission_id: null,
    external_claim_id: null,
    idempotency_key: null,
    amount_cents: null,
    authorization_code: null,
    message: null,
    errors: [],
    at: null,
  };
}

/** Seconds are the finest a person reads a job's times in: an ISO time without its milliseconds. */
function toSecond(iso: string | null): string | null {
  return iso === null ? null : iso.replace(/\.\d+(?=Z$)/, '');
}

/**
 * The records of a claim batch's journal that speak of the batch now: those after its latest `batch`
 * record. A batch whose journal was sent to another database begins anew with one (claim-batch.ts
 * `begin`), and what came before is history.
 */
function currentRecords(records: readonly JournalRecord[]): { records: readonly JournalRecord[]; history: string | null } {
  let start = 0;
  for (let i = records.length - 1; i > 0; i--)
    if (records[i]!.type === 'batch') {
      start = i;
      break;
    }
  return start === 0
    ? { records, history: null }
    : { records: records.slice(start), history: 'its earlier records were sent to another database (a reset, or another data directory or server): history' };
}

/** The claims of a claim batch's journal (or of the journal of single claims), each as its last record left it. */
function claimItems(records: readonly JournalRecord[]): JobItem[] {
  const byClaim = new Map<string, JobItem>();
  const invalid = new Map<string, JobItem>();
  // The claim refused last from each source: a claim sent from that source since (fixed in its file) replaces it.
  const refusedFrom = new Map<string, string>();
  for (const r of records) {
    const id = str(r.claim);
    if (r.type === 'invalid') {
      const source = str(r.source) ?? '(unknown)';
      const item = blankItem(source, 'INVALID', 'INVALID');
      item.errors = Array.isArray(r.errors) ? (r.errors as FieldError[]) : [];
      item.message = item.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ') || null;
      item.at = str(r.at);
      if (typeof r.text === 'string') item.text = r.text;
      invalid.delete(source);
      invalid.set(source, item);
      continue;
    }
    if (!id) continue;
    let item = byClaim.get(id);
    if (r.type === 'sending') {
      const source = str(r.source) ?? id;
      // Sent since it was found invalid or refused (fixed in its file): no longer invalid or failed.
      invalid.delete(source);
      const refused = refusedFrom.get(source);
      if (refused !== undefined && refused !== id && byClaim.get(refused)?.status === 'FAILED') byClaim.delete(refused);
      item ??= blankItem(source, 'PENDING', 'ANNOUNCED');
      if (item.status !== 'DONE') Object.assign(item, { status: 'PENDING', detail: 'ANNOUNCED', message: null, errors: [] });
      item.source = source;
      item.idempotency_key = str(r.idempotency_key);
      item.at = str(r.at) ?? item.at;
      byClaim.set(id, item);
      continue;
    }
    if (!item) continue;
    if (r.type === 'sent' && item.status !== 'DONE') item.detail = 'SENT, NO ANSWER RECORDED';
    if (r.type === 'acknowledged') {
      Object.assign(item, {
        status: 'DONE',
        detail: r.found_in_ledger ? 'FOUND IN LEDGER' : 'ACKNOWLEDGED',
        submission_id: str(r.submission_id),
        external_claim_id: str(r.external_claim_id),
        message: null,
        errors: [],
      });
      item.at = str(r.at) ?? item.at;
      delete item.text;
    }
    if (r.type === 'failed') {
      const refused = isRefusal(r.status);
      Object.assign(item, {
        status: refused ? 'FAILED' : 'PENDING',
        detail: refused ? 'REFUSED' : 'NOT ANSWERED (sent again on the next run)',
        message: str(r.message),
        errors: Array.isArray(r.errors) ? (r.errors as FieldError[]) : [],
      });
      item.at = str(r.at) ?? item.at;
      if (typeof r.text === 'string') item.text = r.text;
      if (refused) refusedFrom.set(item.source, id);
    }
  }
  return [...byClaim.values(), ...invalid.values()];
}

/** The approvals of a payment run's journal: every encounter of its confirmed plan, with its outcome when it has one. */
function approvalItems(records: readonly JournalRecord[]): {
  items: JobItem[];
  totalCents: number | null;
  startedAt: string | null;
  closed: { at: string | null; by: string | null } | null;
  database: string | null;
} {
  const plan = records.find((r) => r.type === 'payment_run')?.plan as
    | {
        database?: { id?: unknown };
        created_at?: string;
        total_cents?: number;
        encounters?: { encounter_id: string; amount_cents: number; authorization_code: string; idempotency_key: string }[];
      }
    | undefined;
  const items = new Map<string, JobItem>();
  for (const e of plan?.encounters ?? []) {
    const item = blankItem(e.encounter_id, 'PENDING', 'NOT SENT');
    Object.assign(item, {
      external_claim_id: e.encounter_id,
      amount_cents: e.amount_cents,
      authorization_code: e.authorization_code,
      idempotency_key: e.idempotency_key,
    });
    items.set(e.encounter_id, item);
  }
  for (const r of records) {
    const item = items.get(str(r.encounter_id) ?? '');
    if (!item) continue;
    if (r.type === 'sending') Object.assign(item, { detail: 'SENT, NO ANSWER RECORDED', at: str(r.at) });
    if (r.type === 'outcome') {
      const o = r.outcome as { status?: string; message?: string; processor_transfer_id?: string | null; funded_by?: string | null };
      const status = o.status ?? 'UNKNOWN';
      Object.assign(item, {
        status: status === 'APPROVED' || status === 'SKIPPED' ? 'DONE' : 'FAILED',
        detail: status,
        message: o.message ?? null,
        submission_id: o.processor_transfer_id ?? null,
        ...(status === 'SKIPPED' ? { funded_by: o.funded_by ?? null } : {}),
      });
    }
  }
  const closing = records.find((r) => r.type === 'closed');
  const closed = closing ? { at: str(closing.at), by: str(closing.by) } : null;
  if (closed)
    for (const item of items.values())
      if (item.status === 'PENDING')
        Object.assign(item, { status: 'CLOSED', detail: 'NOT SENT (run closed)', message: `closed by ${closed.by} at ${closed.at}` });
  return {
    items: [...items.values()],
    totalCents: typeof plan?.total_cents === 'number' ? plan.total_cents : null,
    // When it was confirmed (recorded since this version), else when its plan was drawn up.
    startedAt: str(records.find((r) => r.type === 'payment_run')?.confirmed_at) ?? plan?.created_at ?? null,
    closed,
    database: typeof plan?.database?.id === 'string' ? plan.database.id : null,
  };
}

/** The amount of a payment run's approvals that `which` takes, in cents. */
function centsOf(items: readonly JobItem[], which: (i: JobItem) => boolean): number {
  return items.filter(which).reduce((sum, i) => sum + (i.amount_cents ?? 0), 0);
}

/** A journal's records as read, or why it could not be read (its row says so; the others are still listed). */
function journalRecords(path: string): { records: JournalRecord[]; damagedAt?: number; unreadable?: string; updatedAt: string } {
  const records: JournalRecord[] = [];
  try {
    const { damagedAt } = readJournal(path, (r) => records.push(r));
    const updatedAt = statSync(path).mtime.toISOString();
    return damagedAt === undefined ? { records, updatedAt } : { records, damagedAt, updatedAt };
  } catch (err) {
    // A sealed journal of an encrypted data directory whose key was not found: nothing can be read (exit 5).
    if (err instanceof TpaError) throw err;
    // Removed meanwhile, or not ours to read: said in its row, the others are still listed.
    const code = (err as NodeJS.ErrnoException).code;
    return {
      records,
      updatedAt: '',
      unreadable: `cannot be read: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`,
    };
  }
}

type JobContent = {
  kind: JobSummary['kind'];
  items: JobItem[];
  totalCents: number | null;
  startedAt: string | null;
  closed: { at: string | null; by: string | null } | null;
  database: string | null;
  total: number | null;
  history: string | null;
};

/** What a journal's records hold: a claim batch's claims or a payment run's approvals, with when it began and the database it went to. */
function jobContent(records: JournalRecord[]): JobContent {
  const first = records[0];
  const none: JobContent = { kind: 'unknown', items: [], totalCents: null, startedAt: null, closed: null, database: null, total: null, history: null };
  if (first?.type === 'payment_run') {
    const { items, totalCents, startedAt, closed, database } = approvalItems(records);
    return { ...none, kind: 'payment run', items, totalCents, startedAt, closed, database, total: items.length };
  }
  if (first?.type !== 'batch') return none;
  const current = currentRecords(records);
  const content: JobContent = {
    ...none,
    kind: first.kind === 'single' ? 'single claims' : 'claim batch',
    history: current.history,
    items: claimItems(current.records),
    startedAt: str(current.records[0]!.started_at),
  };
  for (const r of current.records) {
    if (r.type === 'run' && typeof r.total === 'number') content.total = r.total;
    const id = (r.database as { id?: unknown } | null | undefined)?.id;
    if ((r.type === 'batch' || r.type === 'run') && typeof id === 'string') content.database = id;
  }
  return content;
}

/** Reads one journal: its summary and its items. Never changes it. */
export function readJob(path: string): Job {
  const { records, damagedAt, unreadable, updatedAt } = journalRecords(path);
  const first = records[0];
  const id = basename(path).replace(/\.ndjson$/, '');
  const holder = currentHolder(path);
  const { kind, items, totalCents, startedAt, closed, database, total, history } = jobContent(records);
  for (const item of items) item.at = toSecond(item.at);
  const count = (s: ItemStatus) => items.filter((i) => i.status === s).length;
  // An approval of the plan never sent, or a claim only announced (its `sent` mark never written):
  // neither went out, so both are not sent, never pending. A journal of version 1 wrote no `sent`
  // marks: there a claim announced may have gone out, and is pending.
  const marksSent = !(first?.type === 'batch' && first.version === 1);
  const unsent = items.filter((i) => i.status === 'PENDING' && (i.detail === 'NOT SENT' || (i.detail === 'ANNOUNCED' && marksSent))).length;
  const pending = count('PENDING') - unsent;
  const held = count('DONE') + pending + count('FAILED') + count('INVALID');
  const notSent = total === null ? (unsent > 0 ? unsent : null) : Math.max(0, total - held);
  const problem = unreadable
    ? unreadable
    : damagedAt !== undefined
      ? `damaged at line ${damagedAt}: not a JSON record (it was not written by tpa, or was edited)`
      : kind === 'unknown' && records.length > 0
        ? `not the journal of a tpa job (it starts with a "${first!.type}" record)`
        : null;
  return {
    summary: {
      id,
      kind,
      state: holder ? 'running' : problem ? 'damaged' : closed ? 'closed' : pending > 0 || (notSent ?? 0) > 0 ? 'incomplete' : 'finished',
      profile: first ? str(first.profile) : null,
      base_url: first ? str(first.base_url) : null,
      started_at: toSecond(startedAt),
      updated_at: toSecond(updatedAt) ?? '',
      total,
      sent: count('DONE') + count('FAILED') + pending,
      done: count('DONE'),
      pending,
      failed: count('FAILED'),
      invalid: count('INVALID'),
      not_sent: notSent,
      history,
      total_cents: totalCents,
      amount_left_cents: kind === 'payment run' ? centsOf(items, (i) => i.status === 'PENDING') : null,
      approved_cents: kind === 'payment run' ? centsOf(items, (i) => i.detail === 'APPROVED') : null,
      skipped: kind === 'payment run' ? items.filter((i) => i.detail === 'SKIPPED').length : null,
      skipped_cents: kind === 'payment run' ? centsOf(items, (i) => i.detail === 'SKIPPED') : null,
      pid: holder?.pid ?? null,
      path,
      problem,
      closed_at: closed?.at ?? null,
      closed_by: closed?.by ?? null,
    },
    items,
    ...(database !== null ? { database } : {}),
  };
}

/**
 * A job as the database answering now sees it (`current`, journal.ts databaseOf): a journal whose
 * latest records were sent to another database (before a reset or a restore) is history for it, by
 * the one rule of otherDatabase, said in `history` when it is listed, not only once its job runs
 * again. A claim batch then holds nothing of this database: none of its claims sent, done or
 * refused here, every one not sent (run again, it sends them all). A payment run keeps what it
 * sent (to that database), and is never resumed.
 */
export function asOfDatabase(job: Job, current: DatabaseIdentity | undefined): Job {
  const history = otherDatabase(job.summary.path, job.database == null ? undefined : { id: job.database }, current);
  if (history === undefined) return job;
  if (job.summary.kind === 'payment run') return { ...job, summary: { ...job.summary, history } };
  // What this database was sent is nothing; a claim invalid in its file stays invalid whatever the
  // database (it was never to be sent), so it is kept, with its count.
  const s = job.summary;
  const invalid = job.items.filter((i) => i.status === 'INVALID');
  const none = { sent: 0, done: 0, pending: 0, failed: 0, invalid: s.invalid, not_sent: s.total === null ? null : s.total - s.invalid };
  return { ...job, items: invalid, summary: { ...s, ...none, history, state: s.state === 'running' || s.state === 'damaged' ? s.state : 'incomplete' } };
}

/** An open payment run: one `fund run` would continue, with what it has left. */
export interface OpenRun {
  summary: JobSummary;
  prefix: string;
  left: number;
  leftCents: number;
  count: number;
}

/**
 * The open payment runs of a profile in `dir` (the data directory's journals), oldest first: a
 * confirmed plan with approvals left, not closed, not running now, recorded with this profile and
 * base URL (a journal of an earlier version, which records neither, is nobody's), and, when
 * `database` is given, not confirmed against another database (after a reset it is history).
 */
export function openRuns(dir: string, profile: string, baseUrl: string | null, database?: string): OpenRun[] {
  return openRunsWhere(dir, (job) => {
    const s = job.summary;
    if (s.profile !== profile || (s.base_url ?? null) !== baseUrl) return false;
    // Confirmed against another database (a reset): history, never resumed, so never offered (journal.ts otherDatabase).
    return database === undefined || job.database == null || job.database === database;
  });
}

/**
 * The open payment runs of other profiles confirmed against the same database (`database`): the
 * local profile and `tpa local serve` on the same data directory move the same money, so a new run
 * of one would shadow a run left open by the other.
 */
export function openRunsOfOtherProfiles(dir: string, profile: string, baseUrl: string | null, database: string): OpenRun[] {
  return openRunsWhere(dir, (job) => {
    const s = job.summary;
    return job.database === database && s.profile !== null && (s.profile !== profile || (s.base_url ?? null) !== baseUrl);
  });
}

function openRunsWhere(dir: string, keep: (job: Job) => boolean): OpenRun[] {
  const open: OpenRun[] = [];
  for (const path of journalPaths(dir)) {
    if (!basename(path).startsWith('fund-run-')) continue;
    const job = readJob(path);
    const s = job.summary;
    if (s.kind !== 'payment run' || s.state !== 'incomplete' || !keep(job)) continue;
    const left = job.items.filter((i) => i.status === 'PENDING');
    const prefix = job.items[0]?.authorization_code?.replace(/-\d+$/, '') ?? s.id;
    open.push({ summary: s, prefix, left: left.length, leftCents: left.reduce((n, i) => n + (i.amount_cents ?? 0), 0), count: job.items.length });
  }
  return open.sort((a, b) => (a.summary.started_at ?? '').localeCompare(b.summary.started_at ?? ''));
}

/**
 * The authorization codes payment runs in `dir` have confirmed and not sent yet, by code as codes
 * are told apart (case and surrounding spaces aside), each with the run and encounter it is for:
 * reserved, so that no other approval takes one (the run would then send a code already used).
 */
export function pendingRunCodes(dir: string): Map<string, string> {
  const codes = new Map<string, string>();
  for (const path of journalPaths(dir)) {
    // In the data directory a run's journal is named so; one kept elsewhere (--journal) is read to tell.
    if (resolve(path, '..') === resolve(dir) && !basename(path).startsWith('fund-run-')) continue;
    const job = readJob(path);
    if (job.summary.kind !== 'payment run' || job.summary.state === 'closed') continue;
    for (const item of job.items)
      if (item.status === 'PENDING' && item.authorization_code)
        codes.set(codeKey(item.authorization_code), `by the payment run ${basename(path)} for ${item.source}, not sent yet`);
  }
  return codes;
}

/** The file, beside the journals of the data directory, naming journals kept elsewhere (--journal). */
export const ELSEWHERE = 'elsewhere.txt';

/** The journals of jobs on this machine: those in `dir` (the data directory's journals) and those it names as kept elsewhere. */
export function journalPaths(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const paths = names.filter((n) => n.endsWith('.ndjson') && !n.startsWith('.') && n !== 'fund-history.ndjson').map((n) => join(dir, n));
  let elsewhere: string[] = [];
  try {
    elsewhere = readFileSync(join(dir, ELSEWHERE), 'utf8').split('\n').filter(Boolean);
  } catch {
    // none recorded
  }
  const seen = new Set(paths.map((p) => resolve(p)));
  for (const p of elsewhere) {
    if (seen.has(p)) continue;
    try {
      if (!statSync(p).isFile()) continue;
    } catch {
      continue; // removed since
    }
    seen.add(p);
    paths.push(p);
  }
  return paths;
}

/**
 * Notes a journal kept outside `dir` (a batch's --journal) so that `tpa jobs` lists it too. Best
 * effort: a note that cannot be written loses only the listing, never the job.
 */
export function rememberJournal(dir: string, path: string): void {
  const full = resolve(path);
  if (resolve(dir) === resolve(full, '..')) return;
  const file = join(dir, ELSEWHERE);
  try {
    let known = '';
    try {
      known = readFileSync(file, 'utf8');
    } catch {
      // the first
    }
    if (known.split('\n').includes(full)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Never through a symbolic link planted at its name (it would append a path to another file).
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${full}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // only the listing is lost
  }
}
