// What the verbs of `tpa jobs` share: where the journals are, finding one by the id `tpa jobs`
// prints (or a path), and the summary's rows.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { journalsDir as journalsOf } from '../../../jobs/journal.js';
import type { Job, JobSummary } from '../../../jobs/job-journals.js';
import { centsToAmount } from '../../../domain/money.js';
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';

/** The folder of the journals that jobs keep when --journal names none. */
export function journalsDir(ctx: Context): string {
  return journalsOf(ctx.paths.dataDir);
}

/**
 * The journal that `name` names: a path to a file, or the id `tpa jobs` prints (the file name
 * without .ndjson), or the start of one id.
 */
export async function findJournal(ctx: Context, name: string): Promise<string> {
  if (/[\\/]/.test(name) || name.endsWith('.ndjson')) {
    if (existsSync(name)) return resolve(name);
    if (/[\\/]/.test(name)) throw new UsageError(`no journal at ${name}`);
  }
  const { journalPaths } = await import('../../../jobs/job-journals.js');
  const paths = journalPaths(journalsDir(ctx));
  const id = (p: string) => p.replace(/^.*[\\/]/, '').replace(/\.ndjson$/, '');
  const wanted = name.replace(/\.ndjson$/, '');
  const exact = paths.filter((p) => id(p) === wanted);
  if (exact.length === 1) return exact[0]!;
  // A payment run by its authorization prefix, as a narrow `tpa jobs` names it (one prefix, one run).
  const run = paths.filter((p) => runPrefixOf(id(p)) === wanted.replace(/[^A-Za-z0-9-]/g, '_'));
  if (run.length === 1) return run[0]!;
  const starts = paths.filter((p) => id(p).startsWith(wanted));
  if (starts.length === 1) return starts[0]!;
  if (starts.length > 1)
    throw new UsageError(
      `"${name}" is the start of ${starts.length} journals (${starts.map(id).slice(0, 5).join(', ')}${starts.length > 5 ? ', …' : ''}): give more of it`,
    );
  throw new UsageError(`no journal "${name}" on this machine`, { hint: 'tpa jobs lists them; a path to a journal file works too' });
}

/**
 * The jobs as the database the active profile answers with now sees them (job-journals.ts
 * asOfDatabase): a journal of this profile (its name and base URL) sent to another database, before
 * a reset or a restore, is history. The database is read (health) only when such a journal records
 * one; unread (no answer), every job is listed as its journal says. Other profiles' jobs are not
 * judged: their service is not this one.
 */
export async function asOfNow(ctx: Context, jobs: Job[]): Promise<Job[]> {
  const baseUrl = ctx.profile().base_url ?? null;
  const mine = (j: Job) => j.summary.profile === ctx.profileName && (j.summary.base_url ?? null) === baseUrl && typeof j.database === 'string';
  if (!jobs.some(mine)) return jobs;
  const [{ databaseOf }, { asOfDatabase }] = await Promise.all([import('../../../jobs/journal.js'), import('../../../jobs/job-journals.js')]);
  let current: Awaited<ReturnType<typeof databaseOf>>;
  try {
    current = await databaseOf(await ctx.client());
  } catch {
    return jobs;
  }
  return jobs.map((j) => (mine(j) ? asOfDatabase(j, current) : j));
}

/** A summary as one flat record (json, ndjson, csv): the same fields in every format. */
/** The fields of summaryRecord: `--json` selects from them, and they are the CSV header, written even when there is no job. */
export const SUMMARY_COLUMNS = [
  'id',
  'kind',
  'state',
  'profile',
  'base_url',
  'started_at',
  'updated_at',
  'total',
  'sent',
  'done',
  'pending',
  'failed',
  'invalid',
  'not_sent',
  'total_amount',
  'pid',
  'path',
  'problem',
  'history',
] as const;

/** A summary as one flat record (json, ndjson, csv): the same fields in every format. */
export function summaryRecord(s: JobSummary): Record<(typeof SUMMARY_COLUMNS)[number], unknown> {
  return {
    id: s.id,
    kind: s.kind,
    state: s.state,
    profile: s.profile,
    base_url: s.base_url,
    started_at: s.started_at,
    updated_at: s.updated_at,
    total: s.total,
    sent: s.sent,
    done: s.done,
    pending: s.pending,
    failed: s.failed,
    invalid: s.invalid,
    not_sent: s.not_sent,
    total_amount: s.total_cents === null ? null : centsToAmount(s.total_cents),
    ...(s.kind === 'payment run'
      ? {
          approved_amount: centsToAmount(s.approved_cents ?? 0),
          skipped: s.skipped ?? 0,
          skipped_amount: centsToAmount(s.skipped_cents ?? 0),
        }
      : {}),
    pid: s.pid,
    path: s.path,
    problem: s.problem,
    history: s.history,
  };
}

export { count } from '../../../render/format.js';

/** A job's time for a person: to the second, in UTC ("2026-12-07 07:35:05"). */
export function jobTime(iso: string): string {
  return iso
    .replace(/\.\d+(?=Z$)/, '')
    .replace('T', ' ')
    .replace(/Z$/, '');
}

/** The state in words for a person: what it means and what to do. */
export function stateText(s: JobSummary): string {
  if (s.state === 'running') return `running (pid ${s.pid})`;
  if (s.state === 'closed') return `closed by ${s.closed_by ?? '(not recorded)'} at ${s.closed_at ?? '(not recorded)'}: the approvals left were not sent`;
  return s.state;
}

/** The authorization prefix in a payment run's journal id (fund-run-<prefix>-<12 hex>), or undefined. */
function runPrefixOf(id: string): string | undefined {
  return /^fund-run-(.+)-[0-9a-f]{12}$/.exec(id)?.[1];
}

/**
 * The shortest name of each job that `tpa jobs show` and `tpa jobs close` still find (findJournal),
 * for a narrow terminal: a payment run's authorization prefix, a default batch journal's id cut to
 * the shortest start no other id has (claims-3f2a9c01 at least); any other id whole.
 */
export function shortIds(ids: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const prefixes = ids.map(runPrefixOf);
  for (const [i, id] of ids.entries()) {
    const prefix = prefixes[i];
    if (prefix !== undefined && prefixes.filter((p) => p === prefix).length === 1 && !ids.some((other) => other.startsWith(prefix))) {
      names.set(id, prefix);
      continue;
    }
    const hashed = /^(claims|single)-[0-9a-f]{16}$/.exec(id);
    let n = hashed ? hashed[1]!.length + 9 : id.length;
    while (n < id.length && ids.some((other) => other !== id && other.startsWith(id.slice(0, n)))) n++;
    names.set(id, id.slice(0, n));
  }
  return names;
}
