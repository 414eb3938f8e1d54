// A payment run (docs/jobs.md "Long jobs"): fund releases for a confirmed selection of
// encounters, each exactly once, across interruptions, through any Transport.
//
// The selection, with each approval's amount, authorization code and Idempotency-Key, is journaled
// (on the disk) once confirmed and before anything is sent; each approval is announced in the
// journal before it is sent, and its outcome recorded after. An approval whose answer was lost is
// never resent blind: the ledger says whether it happened (a FUNDING_APPROVED entry with its
// authorization code). Resumed from its journal, a run approves only what the confirmed selection
// has left; it never widens it. An approval the journal holds is checked against the ledger: one
// whose transfer has since FAILED or been REFUNDED is not an approval that happened; it is OWED
// again, and never sent again by the same run (funding it anew needs a new confirmation).
//
// The confirmed plan is sealed in the journal with a keyed MAC (HMAC-SHA256 of its canonical JSON)
// whose key is the approver's, kept outside the journal (cli/commands/fund/run.ts says where): a journal
// whose plan was changed since (an encounter added, an amount or a code changed) is refused before
// anything is sent, since funding it would fund what nobody reviewed.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type { AuditHead } from '../domain/audit.js';
import { canonicalJson } from '../domain/canonical.js';
import { fundingOf, resolveLostAnswer, type Funding } from '../domain/funding.js';
import { isClosedStatus } from '../domain/ledger.js';
import { centsToAmount, jsonNumberToCents } from '../domain/money.js';
import { ConflictError, EXIT, NetworkError, NotFoundError, TpaError } from '../errors.js';
import type { TpaClient } from '../client/client.js';
import { type ApprovalRecord, FundHistory } from './fund-history.js';
import { fundedByWords, LostRelease, type Released, releaseFunds } from './fund-release.js';
import { databaseOf, type DatabaseIdentity, Journal, journalsDir, type JournalRecord, otherDatabase } from './journal.js';

export { databaseOf, journalsDir };
import { JournalLock } from './journal-lock.js';
import { stopsTheJob } from '../client/retry.js';
import { type Pace, PaceGauge, type PaceLimit, Pacer, Throughput } from './throughput.js';
import type { LedgerDetail, LedgerFilters, LedgerItem } from '../client/types.js';

export interface RunEncounter {
  encounter_id: string;
  encounter_number: string;
  service_date: string;
  provider_npi: string;
  provider_name: string;
  amount_cents: number;
  authorization_code: string;
  idempotency_key: string;
}

export interface RunPlan {
  created_at: string;
  filters: LedgerFilters;
  prefix: string;
  total_cents: number;
  encounters: RunEncounter[];
  /** The database the run approves in (sealed with the plan): a journal of another one is not resumed. */
  database?: DatabaseIdentity;
}

/** OWED: approved by this run (or found funded), then its transfer FAILED or was REFUNDED: owed again. */
export type ApprovalStatus = 'APPROVED' | 'SKIPPED' | 'FAILED' | 'OWED';

/** One encounter's outcome: a line of `-o ndjson`. */
export interface ApprovalOutcome {
  encounter_id: string;
  amount: number;
  authorization_code: string;
  status: ApprovalStatus;
  processor_transfer_id: string | null;
  message?: string;
  /** The engine's audit head right after this approval, when the service sends it (docs/local.md "The audit chain"). */
  audit_head?: AuditHead;
  /** SKIPPED: the authorization code of the approval that funds the encounter, when the ledger names it. */
  funded_by?: string | null;
}

/** The encounters a run may fund: adjudicated, not funded, a benefit above 0.00, in ledger order. */
export async function selectEncounters(
  client: TpaClient,
  filters: LedgerFilters,
  limit: number | undefined,
  onPage?: (seen: number, total: number) => void,
): Promise<LedgerItem[]> {
  const chosen: LedgerItem[] = [];
  const { pages } = await import('../client/pages.js');
  await client.snapshot(async () => {
    const first = await client.ledgerList({ ...filters, status: 'ADJUDICATED', limit: 100 });
    let seen = 0;
    for await (const rows of pages(first, (link) => client.ledgerPage(link), { idOf: (i: LedgerItem) => i.encounter_id })) {
      seen += rows.length;
      onPage?.(seen, first.body.count);
      for (const item of rows) {
        if ((jsonNumberToCents(item.financial_summary.benefit_amount) ?? 0) <= 0) continue;
        chosen.push(item);
        if (limit !== undefined && chosen.length >= limit) return;
      }
    }
  });
  return chosen;
}

/** `<prefix>-0001`, `-0002`, … in review order. */
export function authorizationCode(prefix: string, index: number): string {
  return `${prefix}-${String(index + 1).padStart(4, '0')}`;
}

export function planRun(items: readonly LedgerItem[], filters: LedgerFilters, prefix: string): RunPlan {
  const encounters = items.map((item, i) => ({
    encounter_id: item.encounter_id,
    encounter_number: item.encounter_number,
    service_date: item.service_date,
    provider_npi: item.provider.npi,
    provider_name: item.provider.name,
    amount_cents: jsonNumberToCents(item.financial_summary.benefit_amount)!,
    authorization_code: authorizationCode(prefix, i),
    idempotency_key: randomUUID(),
  }));
  return { created_at: new Date().toISOString(), filters, prefix, total_cents: encounters.reduce((sum, e) => sum + e.amount_cents, 0), encounters };
}

/** The plan under the approver's prefix: each approval's code is <prefix>-0001, -0002, … in review order. */
export function withPrefix(plan: RunPlan, prefix: string): RunPlan {
  return { ...plan, prefix, encounters: plan.encounters.map((e, i) => ({ ...e, authorization_code: authorizationCode(prefix, i) })) };
}

export function runJournalName(prefix: string, id: string): string {
  return `fund-run-${prefix.replace(/[^A-Za-z0-9-]/g, '_')}-${id}.ndjson`;
}

/**
 * Why `prefix` cannot begin a new run, or undefined when it can: a run under it has a journal in
 * the data directory (of any profile), or an approval made from this machine (`tpa fund history`)
 * has one of its codes, <prefix>-NNNN. A new run under it would give codes already given.
 */
export function prefixTaken(dataDir: string, prefix: string): string | undefined {
  const stem = runJournalName(prefix, '').replace(/\.ndjson$/, '');
  let files: string[] = [];
  try {
    files = readdirSync(journalsDir(dataDir));
  } catch {
    // No journals directory yet: no run has been confirmed on this machine.
  }
  const journal = files.find((f) => f.startsWith(stem) && /^[0-9a-f]{12}\.ndjson$/.test(f.slice(stem.length)));
  if (journal) return `a payment run under ${prefix} has a journal (${join(journalsDir(dataDir), journal)})`;
  return prefixInHistory(dataDir, prefix);
}

/** Where this machine's fund history gave a code of `prefix` (<prefix>-NNNN) to an approval, whatever its outcome. */
export function prefixInHistory(dataDir: string, prefix: string): string | undefined {
  const code = new RegExp(`^${prefix.replace(/[^A-Za-z0-9]/g, (c) => `\\${c}`)}-\\d{4,}$`, 'i');
  const used = FundHistory.read(dataDir).find((a) => code.test(a.authorization_code));
  return used ? `${used.authorization_code} was given to an approval of ${used.encounter_id} (tpa fund history)` : undefined;
}

/** The prefix to offer a run: `base` when no code of it was given, else the first free of base2, base3, … */
export function freePrefix(dataDir: string, base: string): string {
  for (let n = 1; ; n++) {
    const prefix = n === 1 ? base : `${base}${n}`;
    if (prefixTaken(dataDir, prefix) === undefined) return prefix;
  }
}

/** The seal of a confirmed plan: HMAC-SHA256 of its canonical JSON under the approver's key. */
export function sealOf(plan: RunPlan, key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key).update(canonicalJson(plan), 'utf8').digest('hex')}`;
}

/**
 * The MAC of a journal line written after the plan: HMAC-SHA256, under the same key, of the MAC
 * before it (the seal, for the first) and the line's canonical JSON. Each line is chained to the
 * sealed plan, so a line added, changed, moved or dropped in the middle is found on resume.
 */
function lineMac(previous: string, line: JournalRecord, key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key)
    .update(`${previous}\n${canonicalJson(line)}`, 'utf8')
    .digest('hex')}`;
}

function sameMac(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A payment run journal that cannot be resumed as it is: its plan is not the one confirmed and sealed. */
export class UnsealedPlanError extends TpaError {
  constructor(path: string, why: string) {
    super(
      EXIT.USAGE,
      'journal_not_sealed',
      `the payment run in ${path} cannot be resumed: ${why}. Nothing was sent; review a new run (tpa fund run --dry-run) and confirm it with a new --auth-code-prefix`,
    );
  }
}

/** The journal of a payment run: its confirmed plan, and the outcome of each approval so far. */
export class RunJournal {
  readonly outcomes = new Map<string, ApprovalOutcome>();
  /** Approvals announced whose outcome the journal does not have: their answer may have been lost. */
  readonly unanswered = new Set<string>();
  plan: RunPlan | undefined;
  /** Closed (tpa jobs close): when, by whom; a closed run is never continued. */
  closed: { at: string; by: string } | undefined;
  /** Opened to be closed without its seal checked (open `toClose`): why it could not be. */
  unsealed: string | undefined;
  private seal: unknown;
  private plans = 0;
  /** The lines after the plan, as read, each with its MAC (checked on open). */
  private readonly after: JournalRecord[] = [];
  /** The MAC the next line is chained to: the seal, then each line's. */
  private lastMac = '';

  private constructor(
    private readonly journal: Journal,
    private readonly sealKey: Buffer | undefined,
    private readonly database: DatabaseIdentity | undefined,
  ) {}

  /**
   * Opens (and locks: one journal, one writer) the journal of a payment run. A journal holding a
   * plan is resumed only when the plan still matches the seal made, with `sealKey`, when it was
   * confirmed; a plan is confirmed (and sealed) only with a key. `database`, the database the
   * approvals go to (journal.ts databaseOf): recorded with a plan confirmed, and a plan confirmed
   * against another database (a reset) is not resumed (journal.ts otherDatabase). `toClose`: opened
   * only to be closed (closeRun), which sends nothing, so a plan that cannot be checked against its
   * seal (its key is gone, or it was changed) or was confirmed against another database is opened
   * all the same, `unsealed` saying why, and what closing writes is not chained (the run could
   * never be resumed anyway).
   */
  static async open(
    path: string,
    sealKey: Buffer | undefined,
    options: { toClose?: boolean; database?: DatabaseIdentity | undefined } = {},
  ): Promise<RunJournal> {
    const { database } = options;
    const records: JournalRecord[] = [];
    const run = new RunJournal(
      Journal.open(path, (r) => records.push(r), { lock: await JournalLock.take(path, 'payment run') }),
      sealKey,
      database,
    );
    if (records.length > 0 && records[0]!.type !== 'payment_run') {
      run.close();
      throw new TpaError(EXIT.USAGE, 'wrong_journal', `${path} is not the journal of a payment run (it starts with a "${records[0]!.type}" record)`);
    }
    for (const r of records) run.replay(r);
    const problem = run.plan ? (run.sealProblem() ?? otherDatabase(path, run.plan.database, database)) : undefined;
    if (problem && options.toClose) run.unsealed = problem;
    else if (problem) {
      run.close();
      throw new UnsealedPlanError(path, problem);
    }
    return run;
  }

  get path(): string {
    return this.journal.path;
  }

  /** Why the plan read is not the one confirmed, or undefined when it matches its seal. */
  private sealProblem(): string | undefined {
    if (this.plans > 1) return 'it holds more than one plan (one was added after the run was confirmed)';
    if (typeof this.seal !== 'string') return 'its plan carries no seal (it was not confirmed by this version of tpa, or the seal was removed)';
    if (!this.sealKey)
      return "the key that sealed its plan is not in this user's credential store (a run is resumed by the user who confirmed it, with the same store)";
    if (!sameMac(sealOf(this.plan!, this.sealKey), this.seal))
      return 'its plan no longer matches the one confirmed (encounters, amounts, authorization codes or total were changed since)';
    let previous = this.seal as string;
    for (const [i, r] of this.after.entries()) {
      const { mac, ...line } = r;
      const expected = lineMac(previous, line, this.sealKey);
      if (!sameMac(expected, mac)) return `its line ${i + 2} (after the plan) is not one this run wrote, or lines before it were changed or removed`;
      previous = expected;
    }
    this.lastMac = previous;
    return undefined;
  }

  private replay(r: JournalRecord): void {
    if (r.type === 'payment_run') {
      this.plans++;
      this.plan = r.plan as RunPlan;
      this.seal = r.seal;
    } else this.after.push(r);
    if (r.type === 'closed') this.closed = { at: String(r.at), by: String(r.by) };
    const id = typeof r.encounter_id === 'string' ? r.encounter_id : undefined;
    if (!id) return;
    if (r.type === 'sending') this.unanswered.add(id);
    if (r.type === 'outcome') {
      this.unanswered.delete(id);
      this.outcomes.set(id, r.outcome as ApprovalOutcome);
    }
  }

  /**
   * Records the confirmed plan, sealed, on the disk, before any approval is sent; with the profile
   * (and base URL) it goes to and when, so that a new run of that profile finds it while it is open.
   */
  confirm(plan: RunPlan, where: RunProfile = { profile: null, base_url: null }): void {
    if (!this.sealKey) throw new Error('a payment run is confirmed only with a key to seal its plan');
    if (this.plan) throw new Error('this journal already holds a confirmed plan');
    if (this.database && plan.database === undefined) plan = { ...plan, database: this.database };
    const seal = sealOf(plan, this.sealKey);
    this.journal.append({
      type: 'payment_run',
      version: 2,
      plan,
      seal,
      profile: where.profile,
      base_url: where.base_url,
      confirmed_at: new Date().toISOString(),
    });
    this.plan = plan;
    this.seal = seal;
    this.lastMac = seal;
    this.plans = 1;
  }

  /** Appends a line after the plan, chained to it by its MAC. */
  private appendChained(line: JournalRecord): void {
    if (this.unsealed !== undefined) {
      this.journal.append({ ...line, unsealed: this.unsealed });
      return;
    }
    const mac = lineMac(this.lastMac, line, this.sealKey!);
    this.journal.append({ ...line, mac });
    this.lastMac = mac;
  }

  sending(encounterId: string): void {
    this.appendChained({ type: 'sending', encounter_id: encounterId, at: new Date().toISOString() });
    this.unanswered.add(encounterId);
  }

  outcome(o: ApprovalOutcome): void {
    this.appendChained({ type: 'outcome', encounter_id: o.encounter_id, outcome: o });
    this.unanswered.delete(o.encounter_id);
    this.outcomes.set(o.encounter_id, o);
  }

  /** Records the run closed: the approvals it has left are never sent by it. */
  markClosed(by: string, notSent: readonly RunEncounter[]): void {
    const at = new Date().toISOString();
    this.appendChained({
      type: 'closed',
      at,
      by,
      not_sent: notSent.map((e) => ({ encounter_id: e.encounter_id, authorization_code: e.authorization_code, amount_cents: e.amount_cents })),
    });
    this.closed = { at, by };
  }

  close(): void {
    this.journal.close();
  }
}

/** The profile a run's approvals go to, as its journal records it (null in journals of earlier versions). */
export interface RunProfile {
  profile: string | null;
  base_url: string | null;
}

/** A closed run is never continued, nor closed again (exit 4, nothing sent). */
export function refuseClosed(journal: RunJournal): void {
  if (!journal.closed) return;
  throw new ConflictError(
    `the payment run ${journal.plan!.prefix} in ${journal.path} was closed (${journal.closed.at}, by ${journal.closed.by}): its approvals left are never sent. Nothing was sent; a new run selects what is still unfunded`,
    { code: 'payment_run_closed' },
  );
}

/**
 * Closes an open run (docs/jobs.md "Payment runs"): nothing is sent. An approval announced and
 * never answered is settled from the ledger first, by the rule after a lost answer (one that
 * happened is recorded APPROVED, one another approval made is SKIPPED); one the ledger cannot speak
 * for leaves the run open. Then the approvals left are recorded as not sent, with when and by whom.
 */
export async function closeRun(
  client: TpaClient,
  journal: RunJournal,
  profile: string,
  history?: { log: FundHistory; dataDir: string },
): Promise<{ notSent: RunEncounter[] }> {
  const plan = journal.plan!;
  refuseClosed(journal);
  const pending = history ? FundHistory.read(history.dataDir) : [];
  for (const e of plan.encounters) {
    if (!journal.unanswered.has(e.encounter_id) || journal.outcomes.has(e.encounter_id)) continue;
    const read = await client.ledgerDetail(e.encounter_id).then(
      (r) => r.body,
      (err) => (err instanceof NotFoundError ? ('not-found' as const) : ('unreadable' as const)),
    );
    if (history && read !== 'not-found' && read !== 'unreadable') history.log.resolve(pending, e.encounter_id, read);
    const found = resolveLostAnswer(read, e.authorization_code);
    const base = { encounter_id: e.encounter_id, amount: centsToAmount(e.amount_cents), authorization_code: e.authorization_code };
    if (found.approval === 'unknown')
      throw new NetworkError(
        `the ledger of ${e.encounter_id} cannot be read, so whether its approval ${e.authorization_code} (sent when the run stopped) happened is not known: the run was not closed. Nothing was sent`,
      );
    if (found.approval === 'happened') journal.outcome({ ...base, status: 'APPROVED', processor_transfer_id: found.transfer });
    else if (found.fundedBy) journal.outcome(fundedByAnother(base, found.fundedBy));
  }
  const notSent = plan.encounters.filter((e) => !journal.outcomes.has(e.encounter_id));
  journal.markClosed(closedBy(profile), notSent);
  return { notSent };
}

/** Who closes a run: the user and host of this process, and the profile. */
function closedBy(profile: string): string {
  let user = 'unknown user';
  try {
    user = userInfo().username;
  } catch {
    // no user name for this uid: said as unknown
  }
  return `${user}@${hostname()} (profile ${profile})`;
}

/** How far a run is, for its progress line. */
export interface RunProgress extends Pace {
  /** Outcomes of the whole run so far, the ones before a resume included. */
  done: number;
  total: number;
  /** Of `done`, the outcomes an earlier command recorded (they took this one no time). */
  before: number;
}

export interface RunResult {
  outcomes: ApprovalOutcome[];
  approvedCents: number;
  /** Approvals whose transfer has since FAILED or been REFUNDED: owed again. */
  owedCents: number;
  /** The audit head after the last approval this run sent, when the service sends it. */
  auditHead?: AuditHead;
  stopped?: TpaError;
  exitCode: number;
}

/** How a run is executed: where its outcomes, notes and progress go, and its clock. */
export interface RunOptions {
  onOutcome: (o: ApprovalOutcome) => void;
  onNote?: (text: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** This machine's record of approvals (`tpa fund history`), with the profile they go to. */
  history?: { log: FundHistory; dataDir: string; profile: string; environment: string };
  /**
   * How far the run is (docs/jobs.md "Long jobs"), on each outcome and when a wait for the rate
   * limit's window begins: `done` counts the whole run (the approvals before a resume included,
   * `before` of them), the rate only the approvals this command sends.
   */
  onProgress?: (p: RunProgress) => void;
  /** Once, when the service's limit makes the approvals left take more than one window. */
  onLimit?: (l: PaceLimit) => void;
  now?: () => number;
}

/**
 * Approves what the plan has left, one at a time, paced by the rate-limit headers. Each outcome is
 * handed to `onOutcome` as it happens, after the ones the journal already held.
 */
export async function executeRun(client: TpaClient, journal: RunJournal, options: RunOptions): Promise<RunResult> {
  refuseClosed(journal);
  return new PaymentRunner(client, journal, options).run();
}

type Base = Omit<ApprovalOutcome, 'status' | 'processor_transfer_id'>;

/** One execution of a run's plan: its outcomes so far, its pace, and the steps of each approval. */
class PaymentRunner {
  private readonly result: RunResult = { outcomes: [], approvedCents: 0, owedCents: 0, exitCode: EXIT.OK };
  private firstFailure: TpaError | undefined;
  private readonly plan: RunPlan;
  private readonly pace: Throughput;
  private readonly pacer: Pacer;
  private readonly gauge: PaceGauge;
  /** The approvals an earlier command recorded count from the start (a resume goes on from them); read again, they are not counted twice. */
  private readonly before: number;
  private replayed = 0;
  private limitSaid = false;
  /** This machine's fund history, read once: the approvals of earlier commands left UNKNOWN, and the codes approved. */
  private readonly pending: ApprovalRecord[];

  constructor(
    private readonly client: TpaClient,
    private readonly journal: RunJournal,
    private readonly options: RunOptions,
  ) {
    this.plan = journal.plan!;
    const now = options.now ?? Date.now;
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    // Paced by the rate-limit headers of the approvals' answers, one approval at a time (throughput.ts).
    this.pace = new Throughput(now);
    this.before = this.plan.encounters.filter((e) => journal.outcomes.has(e.encounter_id)).length;
    const onPause = (ms: number) => {
      this.pace.pause();
      this.report(ms);
    };
    this.pacer = new Pacer({ concurrency: 1, now, sleep, onPause, onResume: () => this.pace.resume() });
    this.gauge = new PaceGauge(this.pace, this.pacer.window, now);
    this.pending = options.history ? FundHistory.read(options.history.dataDir) : [];
  }

  async run(): Promise<RunResult> {
    // The line from the start: a wait for the first answer (a window a stopped run spent) is drawn in it.
    this.report();
    for (const e of this.plan.encounters) {
      const stopped = await this.step(e);
      if (stopped) {
        this.result.stopped = stopped;
        break;
      }
    }
    const r = this.result;
    // Owed again: the run did not do what it was confirmed for (docs/design.md "Exit codes": a wrong state, exit 4).
    r.exitCode = r.stopped ? r.stopped.exitCode : this.firstFailure ? this.firstFailure.exitCode : r.owedCents > 0 ? EXIT.CONFLICT : EXIT.OK;
    return r;
  }

  /** One encounter of the plan: its journaled outcome as the ledger has it now, or its approval. Returns what stops the run. */
  private async step(e: RunEncounter): Promise<TpaError | undefined> {
    const done = this.journal.outcomes.get(e.encounter_id);
    if (done) return this.replay(done);
    const base = { encounter_id: e.encounter_id, amount: centsToAmount(e.amount_cents), authorization_code: e.authorization_code };
    try {
      if (this.journal.unanswered.has(e.encounter_id) && (await this.settledUnanswered(e, base))) return undefined;
      await this.send(e, base);
    } catch (thrown) {
      // Not found in the ledger after a lost answer, or not known: the run stops; resumed, it asks the ledger again before sending.
      const err = thrown instanceof LostRelease ? thrown.sent : thrown;
      if (!(err instanceof TpaError)) throw err;
      if (stopsTheJob(err)) return err;
      const o = outcomeOfError(base, err)!;
      if (o.status === 'FAILED') this.firstFailure ??= err;
      this.pace.add();
      this.record(o, true);
    }
    return undefined;
  }

  /** An outcome an earlier command recorded, as the ledger has it now. */
  private async replay(done: ApprovalOutcome): Promise<TpaError | undefined> {
    try {
      const asNow = await asTheLedgerHasIt(this.client, done);
      this.replayed++;
      this.record(asNow, false);
    } catch (err) {
      if (err instanceof TpaError && stopsTheJob(err)) return err;
      throw err;
    }
    return undefined;
  }

  /**
   * An approval announced before and never answered: the ledger says whether it happened. True when
   * that settles it (it is not sent); false when the ledger has none, and it is sent again.
   */
  private async settledUnanswered(e: RunEncounter, base: Base): Promise<boolean> {
    const detail = (await this.client.ledgerDetail(e.encounter_id)).body;
    this.options.history?.log.resolve(this.pending, e.encounter_id, detail);
    const found = resolveLostAnswer(detail, e.authorization_code);
    // This run's approval, found even when its transfer has failed or been refunded since: it
    // happened, so it is never sent again (owed again if it ended).
    if (found.approval === 'happened') {
      const approved: ApprovalOutcome = { ...base, status: 'APPROVED', processor_transfer_id: found.transfer };
      this.journal.outcome(approved);
      this.record(await asTheLedgerHasIt(this.client, approved, detail), false);
      return true;
    }
    if (found.approval === 'did-not-happen' && found.fundedBy) {
      this.record(fundedByAnother(base, found.fundedBy), true);
      return true;
    }
    this.options.onNote?.(
      `${e.encounter_id}: the ledger has no fund release from the interrupted attempt; sending it again with its key and authorization code`,
    );
    return false;
  }

  /** The approval announced in the journal, then sent through the one fund release (fund-release.ts), paced. */
  private async send(e: RunEncounter, base: Base): Promise<void> {
    await this.pacer.slot();
    // A turn of the event loop before the approval is announced: a Ctrl-C pressed while the
    // embedded engine answered the one before (it answers synchronously) stops the run here,
    // with nothing announced that was never sent.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.pace.started();
    this.journal.sending(e.encounter_id);
    const history = this.options.history && { ...this.options.history, database: this.plan.database?.id ?? null };
    const released = await releaseFunds(this.client, base, e.idempotency_key, { history, onAnswer: (headers) => this.observe(headers) });
    const sent = outcomeOf(base, released);
    if (sent.audit_head) this.result.auditHead = sent.audit_head;
    this.pace.add();
    this.record(sent, true);
  }

  private record(o: ApprovalOutcome, fresh: boolean): void {
    if (fresh) this.journal.outcome(o);
    this.result.outcomes.push(o);
    if (o.status === 'APPROVED') this.result.approvedCents += jsonNumberToCents(o.amount)!;
    if (o.status === 'OWED') this.result.owedCents += jsonNumberToCents(o.amount)!;
    this.options.onOutcome(o);
    this.report();
  }

  private doneCount(): number {
    return this.before + this.result.outcomes.length - this.replayed;
  }

  private left(): number {
    return this.plan.encounters.length - this.doneCount();
  }

  private report(waitingMs?: number): void {
    const total = this.plan.encounters.length;
    this.options.onProgress?.({ done: this.doneCount(), total, before: this.before, ...this.gauge.pace(this.left(), waitingMs), waitingMs });
  }

  private observe(headers: Record<string, string>): void {
    this.pacer.observe(headers);
    if (this.limitSaid || !this.options.onLimit) return;
    this.limitSaid = this.pacer.window.limit !== undefined;
    // The approval just answered is not yet counted among the outcomes.
    const limit = this.gauge.limitFor(this.left() - 1);
    if (limit) this.options.onLimit(limit);
  }
}

/**
 * A journaled outcome as the ledger has it now. An approval (this run's, or another that funded the
 * encounter) whose transfer has since FAILED or been REFUNDED no longer funds it: OWED, with what
 * became of the transfer; funded anew since by another approval, SKIPPED naming it.
 */
async function asTheLedgerHasIt(client: TpaClient, done: ApprovalOutcome, read?: LedgerDetail): Promise<ApprovalOutcome> {
  if (done.status !== 'APPROVED' && done.status !== 'SKIPPED') return done;
  // The ledger detail just read for this encounter, when the caller has it.
  const detail = read ?? (await client.ledgerDetail(done.encounter_id)).body;
  const found = fundingOf(detail);
  if (found && (found.transfer === done.processor_transfer_id || found.transfer === null)) return done;
  if (found) {
    return {
      ...done,
      status: 'SKIPPED',
      processor_transfer_id: found.transfer,
      funded_by: found.reference ?? null,
      message: `transfer ${done.processor_transfer_id ?? ''} ended; funded since by another approval (authorization ${found.reference ?? 'unknown'})`,
    };
  }
  const ended = [...detail.entries].reverse().find((x) => x.type === 'SETTLEMENT_FAILED' || x.type === 'SETTLEMENT_REFUNDED');
  const how = ended?.type === 'SETTLEMENT_REFUNDED' ? 'was REFUNDED' : 'FAILED';
  // A claim a correction closed since (docs/money-funding.md "Corrected and void claims") owes nothing:
  // skipped, saying what closed it, never counted as owed again.
  const closed = detail.encounter.status;
  if (isClosedStatus(closed)) {
    const by = closed === 'SUPERSEDED' && detail.encounter.replaced_by ? ` by ${detail.encounter.replaced_by}` : '';
    return {
      ...done,
      status: 'SKIPPED',
      message: `${done.status === 'APPROVED' ? 'approved' : 'funded'}, then the transfer ${done.processor_transfer_id ?? ''} ${how}${ended ? ` (${ended.timestamp})` : ''}; the claim is ${closed}${by} since: nothing is owed on it`,
    };
  }
  return {
    ...done,
    status: 'OWED',
    message: `${done.status === 'APPROVED' ? 'approved' : 'funded'}, then the transfer ${done.processor_transfer_id ?? ''} ${how}${ended ? ` (${ended.timestamp})` : ''}: owed again, not sent again by this run`,
  };
}

/**
 * An encounter that another approval funds: skipped, naming that approval (its authorization code)
 * and the transfer that funds it; `meanwhile`, when it was funded after this run was confirmed (the
 * service refused this run's approval as a duplicate).
 */
function fundedByAnother(base: Omit<ApprovalOutcome, 'status' | 'processor_transfer_id'>, found: Funding, when?: 'meanwhile'): ApprovalOutcome {
  return {
    ...base,
    status: 'SKIPPED',
    processor_transfer_id: found.transfer,
    funded_by: found.reference ?? null,
    message: fundedByWords(found, when === 'meanwhile'),
  };
}

/** A run's outcome of a release sent (fund-release.ts): APPROVED with its audit head, or SKIPPED naming the approval that funds the encounter. */
function outcomeOf(base: Base, released: Released): ApprovalOutcome {
  if (released.status === 'FUNDED_BY_ANOTHER') return fundedByAnother(base, released.funding, released.refusal ? 'meanwhile' : undefined);
  return { ...base, status: 'APPROVED', processor_transfer_id: released.transfer, ...(released.head ? { audit_head: released.head } : {}) };
}

/**
 * The outcome of an approval that failed with `err`: SKIPPED when the encounter was funded meanwhile
 * by someone else (the service names the transfer that funds it), FAILED otherwise; undefined for an
 * error that stops the run (or is not the service's), whose approval is left to the next attempt.
 */
function outcomeOfError(base: Omit<ApprovalOutcome, 'status' | 'processor_transfer_id'>, err: unknown): ApprovalOutcome | undefined {
  if (!(err instanceof TpaError) || stopsTheJob(err)) return undefined;
  const previous = (err.body as { previous_processor_transfer_id?: string } | undefined)?.previous_processor_transfer_id;
  if (err instanceof ConflictError && previous) return { ...base, status: 'SKIPPED', processor_transfer_id: previous, message: 'already funded' };
  return { ...base, status: 'FAILED', processor_transfer_id: null, message: err.message };
}
