// A batch of claims submitted exactly once across interruptions (docs/jobs.md "Long jobs").
// It works through any Transport: in-process and over HTTP alike.
//
// Each claim is validated locally first; an invalid one is reported and not sent. Before a claim is
// sent, the journal records its content hash and the Idempotency-Key it goes with, on the disk;
// after the answer, the acknowledgment. Run again with the same journal, the batch skips what was
// acknowledged, and sends the rest. A claim sent whose answer was never recorded is not resent
// blind: an Idempotency-Key is only kept 24 hours by the service, so after that a resend would be a
// second encounter (a DENIED duplicate, a second PENDED claim). The ledger says whether the service
// has it (by billing provider, service date, member and every line; a void by the claim it names
// being VOIDED); only a claim it does
// not have is sent again, and one it cannot tell about is reported UNKNOWN and not sent.
import { randomUUID } from 'node:crypto';
import { canonicalHash } from '../domain/canonical.js';
import type { FieldError } from '../domain/errors.js';
import { claimServiceDate } from '../domain/adjudication.js';
import { everyProblem } from '../domain/claim-problems.js';
import { isTheDependent } from '../domain/dependent.js';
import type { ParsedClaim } from '../domain/fhir-claim.js';
import { placeErrors } from '../domain/json-position.js';
import { sameIdentityMessage, X12_CORRECTION } from '../domain/x12-identity.js';
import { jsonNumberToCents } from '../domain/money.js';
import { EXIT, NotFoundError, RateLimitedError, TpaError } from '../errors.js';
import type { TpaClient } from '../client/client.js';
import { type DatabaseIdentity, Journal, type JournalRecord, otherDatabase } from './journal.js';
import { FirstSeen } from './first-seen.js';
import { JournalLock } from './journal-lock.js';
import { pages } from '../client/pages.js';
import { rateLimitWaitOf, stopsTheJob } from '../client/retry.js';
import { nextPollDelay } from '../client/polling.js';
import { type Pace, PaceGauge, type PaceLimit, Pacer, Throughput } from './throughput.js';
import { hostname, uptime } from 'node:os';
import type { AdjudicationSummary, ClaimResponseBody, LedgerItem, LedgerServiceLine } from '../client/types.js';
import { resolveEncounter } from '../client/encounter-ref.js';

/**
 * UNKNOWN: sent by an earlier run whose answer was never recorded, and the ledger could not say
 * whether the service has it; not sent again (docs/claim-batches.md "Claim batches").
 */
export type ClaimStatus = 'ACKNOWLEDGED' | 'SKIPPED' | 'INVALID' | 'FAILED' | 'UNKNOWN';

/** One claim of the batch as it comes from the readers. */
export interface BatchClaim {
  source: string;
  text: string;
  value?: unknown;
  problem?: string;
  /** Where a field of the claim is in its file, for the errors of an INVALID claim. */
  locate?: (field: string) => { line: number; column: number } | undefined;
  /**
   * A claim read from X12: its identity in the journal (`x12:<ISA06>:<ISA13>:<GS06>:<ST02>:<CLM01>`, in
   * place of its content's hash: the same CLM01 in another interchange is another claim) and its CLM01.
   */
  identity?: { claim: string; clm01: string };
  /** What its reader found that the service cannot take (each with its X12 segment): INVALID, not sent. */
  errors?: (FieldError & { segment?: string })[];
  /** For a claim converted from X12: the segment a field of the claim came from. */
  segmentOf?: (field: string) => string | undefined;
}

/** What became of one claim: one line of `-o ndjson`. */
export interface ClaimOutcome {
  source: string;
  status: ClaimStatus;
  submission_id: string | null;
  external_claim_id: string | null;
  idempotency_key: string | null;
  errors: FieldError[];
  /** How a SKIPPED claim was known: the journal's acknowledgment, or found in the ledger. */
  note?: string;
  /** With --wait: the adjudication's disposition (null while still processing at the timeout). */
  disposition?: string | null;
  adjudication?: AdjudicationSummary | null;
  /** With --wait, a DENIED claim: the engine's denial code (`CARC-96`) and reason. */
  denial_code?: string | null;
  denial_reason?: string | null;
}

/** A batch's progress: its pace (claims a second, time left, the rate limit once it paces it) and how far it got. */
export interface BatchProgress extends Pace {
  done: number;
  /** Claims in the batch, when the readers could count them first. */
  total?: number;
  /** Of `done`, those a resume skipped (the journal or the ledger had them): they took no time. */
  skipped: number;
  stage: 'submitting' | 'waiting';
}

/** The service's rate limit, as its first answer's headers say, when the batch needs more than one window. */
export type BatchLimit = PaceLimit;

/**
 * Where a claim of the batch stands at the end, one for each claim (docs/claim-batches.md "Claim batches"):
 * its disposition once adjudicated, STILL PROCESSING when --wait ended before it was, ACKNOWLEDGED
 * without --wait (or when the batch stopped before polling), NOT POLLED when its poll failed, or
 * INVALID, FAILED, UNKNOWN. Claims never reached, the batch having stopped, are its total less these.
 */
export function finalState(o: ClaimOutcome): string {
  if (o.status === 'INVALID' || o.status === 'FAILED' || o.status === 'UNKNOWN') return o.status;
  if (o.disposition === undefined) return 'ACKNOWLEDGED';
  if (o.disposition !== null) return o.disposition;
  return o.errors.length > 0 ? 'NOT POLLED' : 'STILL PROCESSING';
}

export interface BatchSummary {
  /** This run's outcomes (SKIPPED: acknowledged by an earlier run). */
  counts: Record<ClaimStatus, number>;
  /** The batch's claims by their final state (finalState), each counted once. */
  states: Record<string, number>;
  /** Claims in the batch, when the readers could count them first. */
  total?: number;
  /** Claims this run sent (each once, whatever came back). */
  sentThisRun: number;
  dispositions: Record<string, number>;
  /** Sums in cents: charges of every claim sent or skipped; allowed and benefit of those adjudicated. */
  chargesCents: number;
  allowedCents: number;
  benefitCents: number;
  /** The error that stopped the batch (limits, network, credentials), when one did. */
  stopped?: TpaError;
  /** Why the journal's earlier records were left as history (another database), when they were. */
  history?: string;
  /** Claims still being adjudicated when --wait timed out. */
  stillProcessing: number;
  /** The exit code docs/design.md "Exit codes" gives this end (docs/claim-batches.md "Claim batches"). */
  exitCode: number;
}

export interface BatchOptions {
  concurrency: number;
  /** With --wait: how long to wait for adjudications, in all. */
  waitTimeoutMs?: number;
  onOutcome: (outcome: ClaimOutcome) => void;
  onProgress?: (progress: BatchProgress) => void;
  /** Once, when the service's limit makes the batch wait for more than one window. */
  onLimit?: (limit: BatchLimit) => void;
  total?: number;
  /** The database the claims go to (journal.ts databaseOf), when the service names it. */
  database?: DatabaseIdentity;
  /** At once, when the journal was sent to another database and is left as history: why. */
  onHistory?: (why: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Why a claim read from X12 (`identity`, content `sha256`) is not sent, or undefined: the journal
 * holds its identity with other content (sent, or perhaps sent, before: a correction needs a new
 * interchange or CLM01; one the service refused may be corrected in place), or another claim of
 * this batch has the same identity (`firstOf`: the sender's duplicate). The journal's own content under it is SKIPPED as usual, first or not.
 */
function x12IdentityProblem(identity: string, sha256: string, known: Known | undefined, firstOf: string | undefined, mayHaveGone: boolean): string | undefined {
  // Refused by the service before (or never sent), a corrected claim under the same identity goes.
  if (known?.sha256 !== undefined && known.sha256 !== sha256 && known.ack)
    return `sent before with other content under the same interchange, group, transaction set and CLM01 (${identity}; encounter ${known.ack.external_claim_id}): not sent. ${X12_CORRECTION}`;
  // The earlier content may have reached the service: a correction sent now could be paid beside it.
  if (known?.sha256 !== undefined && known.sha256 !== sha256 && mayHaveGone)
    return `perhaps sent before with other content under the same interchange, group, transaction set and CLM01 (${identity}): its answer was never recorded, so this is not sent. Find out first whether the earlier one reached the service (tpa ledger list --npi <billing NPI>, or tpa jobs show on this batch's journal); only if it did not, send the correction in a new interchange (another ISA13) or under a new CLM01`;
  if (known?.ack) return undefined;
  if (firstOf !== undefined) return sameIdentityMessage(identity, firstOf);
  return undefined;
}

/** The claims a journal already holds: by content hash and occurrence, the key sent and the acknowledgment. */
interface Known {
  key: string;
  ack?: { submission_id: string; external_claim_id: string };
  /** When the acknowledgment was recorded (journals written before it was kept have none). */
  ackAt?: string;
  /** The request went out (a `sent` record) and no answer says the service refused it. */
  sent?: boolean;
  /** When it was last announced (the `sending` record's time), for the UNKNOWN report. */
  at?: string;
  /** The content hash of its last announcement (the `sending` record's `sha256`). */
  sha256?: string;
}

/** The journal of a claim batch and what it says has already happened. */
export class BatchJournal {
  private readonly known = new Map<string, Known>();
  /** Encounters the journal's acknowledgments name: a ledger entry that is one of these is not another claim's. */
  readonly acknowledged = new Set<string>();
  /**
   * Whether the `sent` records can be trusted to be complete: false for a journal of version 1 (it
   * wrote none) and after the machine itself went down during a run (writes not yet flushed lost).
   * Then every claim announced and not answered may have gone out.
   */
  private sentMarksComplete = true;
  private lastSync = Date.now();
  /** The database the journal's latest records were sent to (its latest `batch` or `run` record). */
  private database: unknown;
  private constructor(
    private readonly journal: Journal,
    private readonly header: Record<string, unknown> | undefined,
  ) {}

  /**
   * Opens (and locks: one journal, one writer) the journal of a claim batch. A new journal's first
   * record says what it is for (`header`: the profile and base URL, whether it is the journal of
   * single claims), for `tpa jobs`. `lockWaitMs`: how long to wait for another run to let the
   * journal go before refusing (the single claims' journal is shared by every `claim submit` of one
   * claim, each holding it for one request).
   */
  static async open(path: string, options: { header?: Record<string, unknown>; lockWaitMs?: number } = {}): Promise<BatchJournal> {
    const records: JournalRecord[] = [];
    const what = options.header?.kind === 'single' ? 'claim submission' : 'claim batch';
    const journal = Journal.open(path, (r) => records.push(r), { lock: await JournalLock.take(path, what, { waitMs: options.lockWaitMs }) });
    const batch = new BatchJournal(journal, options.header);
    for (const r of records) batch.replay(r);
    if (records.length === 0) journal.append({ type: 'batch', version: 2, started_at: new Date().toISOString(), ...options.header });
    else if (records[0]!.type !== 'batch') {
      journal.close();
      throw new TpaError(EXIT.USAGE, 'wrong_journal', `${path} is not the journal of a claim batch (it starts with a "${records[0]!.type}" record)`);
    } else {
      const crashed = journal.crashedHolder;
      // A run that held the journal when the machine went down (it started before this boot, or on
      // another host sharing the disk): what it wrote without waiting for the disk may be gone.
      const bootedAt = Date.now() - uptime() * 1000;
      const machineDown = crashed !== undefined && (crashed.host !== hostname() || Date.parse(crashed.since) < bootedAt);
      batch.sentMarksComplete = records[0]!.version !== 1 && !machineDown;
    }
    return batch;
  }

  get path(): string {
    return this.journal.path;
  }

  private replay(r: JournalRecord): void {
    // A later `batch` record begins anew (the records before it went to another database: history).
    if (r.type === 'batch') {
      this.known.clear();
      this.acknowledged.clear();
    }
    if ((r.type === 'batch' || r.type === 'run') && r.database !== undefined) this.database = r.database;
    const id = typeof r.claim === 'string' ? r.claim : undefined;
    if (!id) return;
    const k = this.known.get(id);
    if (r.type === 'sending' && typeof r.idempotency_key === 'string')
      this.known.set(id, {
        key: r.idempotency_key,
        sent: k?.sent,
        at: typeof r.at === 'string' ? r.at : k?.at,
        ...(typeof r.sha256 === 'string' ? { sha256: r.sha256 } : {}),
      });
    if (!k) return;
    if (r.type === 'sent') k.sent = true;
    // Refused (a 4xx other than a limit): the service recorded nothing.
    if (r.type === 'failed' && isRefusal(r.status)) k.sent = false;
    if (r.type === 'acknowledged' && typeof r.submission_id === 'string') {
      k.ack = { submission_id: r.submission_id, external_claim_id: String(r.external_claim_id ?? '') };
      k.ackAt = typeof r.at === 'string' ? r.at : k.at;
      this.acknowledged.add(k.ack.external_claim_id);
    }
  }

  /**
   * A run of the batch begins, sending to `database` (when the service names it) the batch's `total`
   * claims (when counted): recorded, for `tpa jobs`. A journal sent to another database is history
   * (journal.ts otherDatabase): its records stay, and the batch begins anew after them (a new `batch`
   * record), so that every claim is sent to this database. Returns why, when it did.
   */
  begin(run: { database: DatabaseIdentity | undefined; total: number | undefined }): string | undefined {
    const history = otherDatabase(this.journal.path, this.database, run.database);
    const at = new Date().toISOString();
    const database = run.database ?? null;
    if (history) {
      this.known.clear();
      this.acknowledged.clear();
      this.sentMarksComplete = true;
      this.journal.append({ type: 'batch', version: 2, started_at: at, ...this.header, database, history_before: 'another database' });
    }
    this.journal.append({ type: 'run', at, total: run.total ?? null, database, pid: process.pid });
    this.database = database;
    return history;
  }

  lookup(claimId: string): Known | undefined {
    return this.known.get(claimId);
  }

  /**
   * Records a claim found invalid and not sent, with its text (unless longer than a claim may be):
   * `tpa jobs show --failed-to` writes it back out to be fixed. Not waited
   * onto the disk: losing it loses only that report, and the next run finds the claim invalid again.
   */
  invalid(source: string, text: string, errors: readonly FieldError[]): void {
    this.journal.write({ type: 'invalid', source, errors, ...(text.length <= MAX_KEPT_TEXT ? { text } : {}), at: new Date().toISOString() });
  }

  /** Whether an earlier run may have sent this claim without its answer being recorded. */
  mayHaveBeenSent(known: Known | undefined): boolean {
    return known !== undefined && !known.ack && (known.sent === true || !this.sentMarksComplete);
  }

  /** Records claims about to be sent, on the disk, before any of them goes out. */
  sending(claims: { claim: string; source: string; sha256: string; key: string; clm01?: string }[]): void {
    const at = new Date().toISOString();
    this.journal.append(
      ...claims.map((c) => ({
        type: 'sending',
        claim: c.claim,
        source: c.source,
        sha256: c.sha256,
        idempotency_key: c.key,
        ...(c.clm01 !== undefined ? { clm01: c.clm01 } : {}),
        at,
      })),
    );
    for (const c of claims) this.known.set(c.claim, { ...this.known.get(c.claim), key: c.key, at, sha256: c.sha256 });
  }

  /**
   * Records that a claim's request is going out now. Written, not waited onto the disk: the kernel
   * keeps it whatever becomes of the process; a machine that goes down is caught on the next run
   * (`sentMarksComplete`), and then every unanswered claim is looked up in the ledger.
   */
  sent(claim: string): void {
    this.journal.write({ type: 'sent', claim });
  }

  /**
   * Records an answer, at once (the kernel keeps it if the process dies); the disk is waited for at
   * most once a second, and at close: an acknowledgment lost with the machine only means a look in
   * the ledger on the next run.
   */
  answered(record: JournalRecord): void {
    this.journal.write(record);
    if (record.type === 'acknowledged') this.acknowledged.add(String(record.external_claim_id));
    if (Date.now() - this.lastSync >= 1000) {
      this.journal.sync();
      this.lastSync = Date.now();
    }
  }

  close(): void {
    this.journal.close();
  }
}

/** An outcome with its fields always in one order (ndjson lines and csv columns line up). */
function outcome(
  source: string,
  status: ClaimStatus,
  f: { submission_id?: string; external_claim_id?: string; idempotency_key?: string; errors?: FieldError[]; note?: string } = {},
): ClaimOutcome {
  return {
    source,
    status,
    submission_id: f.submission_id ?? null,
    external_claim_id: f.external_claim_id ?? null,
    idempotency_key: f.idempotency_key ?? null,
    errors: f.errors ?? [],
    ...(f.note !== undefined ? { note: f.note } : {}),
  };
}

/**
 * The encounter the service made of a claim, found in the ledger: an entry of its billing provider
 * and service date whose member and every line (code, units, charge) are the claim's, that no other
 * claim of the journal names (`taken`, claimed here at once so that two claims of the same content
 * never both take it), that is not the claim a correction of it names, nor closed by a correction. A void makes no
 * encounter: it was received when the claim it names is VOIDED (its answer is that claim's).
 */
export async function findInLedger(
  client: TpaClient,
  claim: ParsedClaim,
  taken: Set<string>,
): Promise<{ submission_id: string; external_claim_id: string } | undefined> {
  if (claim.correction?.kind === 'void') return voidedPrior(client, claim.correction.priorClaim);
  const date = claimServiceDate(claim);
  const prior = claim.correction?.priorClaim.trim().toUpperCase();
  // A replacement made an encounter that replaces its prior; an original, one that replaces nothing.
  const replaces = claim.correction ? await priorId(client, claim.correction.priorClaim) : undefined;
  if (claim.correction && replaces === undefined) return undefined;
  const first = await client.ledgerList({ provider_npi: claim.providerNpi, start_date: date, end_date: date, limit: 100 });
  for await (const rows of pages(first, (link) => client.ledgerPage(link), { idOf: (i: LedgerItem) => i.encounter_id })) {
    for (const item of rows) {
      if (taken.has(item.encounter_id) || item.provider.npi !== claim.providerNpi || item.service_date !== date) continue;
      if (item.ssp_code !== claim.lines[0]!.cptCode || jsonNumberToCents(item.financial_summary.charges) !== claim.totalChargeCents) continue;
      if (prior !== undefined && (item.encounter_id.toUpperCase() === prior || item.encounter_number.toUpperCase() === prior)) continue;
      // A claim closed by a correction is not one a claim sent now could have made.
      if (item.status === 'VOIDED' || item.status === 'SUPERSEDED') continue;
      const detail = (await client.ledgerDetail(item.encounter_id)).body;
      if (!samePatient(detail.encounter.patient, claim) || !sameLines(detail.service_lines, claim) || taken.has(item.encounter_id)) continue;
      if ((detail.encounter.replaces ?? undefined) !== replaces) continue;
      const submission = detail.entries.find((e) => e.type === 'SUBMISSION')?.reference;
      if (!submission) continue;
      taken.add(item.encounter_id);
      return { submission_id: submission, external_claim_id: item.encounter_id };
    }
  }
  return undefined;
}

/**
 * Every line of the ledger's entry is the claim's, in its order: its code, revenue code, modifiers,
 * units and their measure, charge, and its own date of service where the ledger gives it.
 */
function sameLines(lines: readonly LedgerServiceLine[], claim: ParsedClaim): boolean {
  if (lines.length !== claim.lines.length) return false;
  return claim.lines.every((c, i) => {
    const l = lines[i]!;
    const code = l.cpt_code ?? l.revenue_code ?? '';
    return (
      (code === c.cptCode || code === c.revenueCode) &&
      (l.revenue_code ?? null) === (c.revenueCode ?? null) &&
      (l.modifiers ?? []).join(':') === (c.modifiers ?? []).join(':') &&
      (l.unit_of_measure === 'MJ') === (c.unitOfMeasure === 'MJ') &&
      (l.service_date === undefined || l.service_date === c.serviceDate) &&
      l.quantity === c.quantity &&
      jsonNumberToCents(l.submitted_charge) === c.chargeCents
    );
  });
}

/** The encounter id of the claim a correction names (an id or an ENC number); undefined when the service has none. */
async function priorId(client: TpaClient, priorClaim: string): Promise<string | undefined> {
  try {
    return await resolveEncounter(client, priorClaim.trim());
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** A void received: the claim it names is VOIDED (the void's answer is that claim's submission). */
async function voidedPrior(client: TpaClient, priorClaim: string): Promise<{ submission_id: string; external_claim_id: string } | undefined> {
  const id = await priorId(client, priorClaim);
  if (id === undefined) return undefined;
  const detail = (await client.ledgerDetail(id)).body;
  if (detail.encounter.status !== 'VOIDED') return undefined;
  const submission = detail.entries.find((e) => e.type === 'SUBMISSION')?.reference;
  return submission ? { submission_id: submission, external_claim_id: id } : undefined;
}

/**
 * Whether a ledger entry's patient is the claim's: its member id, or for a dependent named by name
 * and birth date, a dependent of that subscriber with that name and date of birth (and the member
 * id the claim names as well, if any).
 */
function samePatient(patient: { member_id: string; name: string | null; dob: string | null; subscriber_id?: string }, claim: ParsedClaim): boolean {
  const d = claim.dependent;
  if (!d) return patient.member_id === claim.memberId;
  if (claim.memberId !== '' && patient.member_id !== claim.memberId) return false;
  return patient.subscriber_id === d.subscriberId && patient.name !== null && isTheDependent(d, { name: patient.name, dob: patient.dob });
}

/** The longest claim text (in characters) a journal keeps for an invalid or refused claim: a claim's own bound. */
const MAX_KEPT_TEXT = 1024 * 1024;

function amountCents(v: unknown): number {
  return jsonNumberToCents(v) ?? 0;
}

interface Ready {
  claim: string;
  /** The CLM01 of a claim read from X12, recorded with its announcement. */
  clm01?: string;
  source: string;
  sha256: string;
  text: string;
  key: string;
  parsed: ParsedClaim;
  /** A claim read from X12: the segment a field came from, to place the service's refusals. */
  segmentOf?: (field: string) => string | undefined;
  /** An earlier run may have sent it: the ledger is asked first. */
  lookFirst: boolean;
  /** When it was announced before (for the UNKNOWN report). */
  announcedAt?: string;
}

/** The journal's record of a claim the service refused or that could not be sent; a refused claim keeps its text, for `tpa jobs show --failed-to`. */
function failedRecord(claim: string, text: string, err: TpaError): JournalRecord {
  const refused = isRefusal(err.status);
  return {
    type: 'failed',
    claim,
    code: err.code,
    status: err.status ?? null,
    message: err.message,
    ...(Array.isArray(err.details) ? { errors: err.details } : {}),
    ...(refused && text.length <= MAX_KEPT_TEXT ? { text } : {}),
    at: new Date().toISOString(),
  };
}

/** The FAILED outcomes the service refused (a 4xx, isRefusal), told from those the transport lost (no answer, a 5xx). */
const refusals = new WeakSet<ClaimOutcome>();

/** A FAILED outcome the service refused (it answered, and recorded nothing), not one whose send failed. */
export function refusedByService(o: ClaimOutcome): boolean {
  return refusals.has(o);
}

/** A 4xx other than a timeout or a limit: the service refused the claim and recorded nothing. */
export function isRefusal(status: unknown): boolean {
  // 401 and 403 say who may send, not what was sent: the same claim goes once the key is right, so
  // it is not one to fix and send anew (a rerun of the batch sends it, with its key).
  return typeof status === 'number' && status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

/**
 * Submits the claims, `concurrency` at a time, paced by the rate-limit headers; with
 * `waitTimeoutMs`, then waits for every acknowledged claim's adjudication. The journal's run is
 * begun first (`begin`: the database it goes to, the batch's total), so a journal of another
 * database is history and every claim goes to this one.
 */
export async function runClaimBatch(client: TpaClient, claims: AsyncIterable<BatchClaim>, journal: BatchJournal, options: BatchOptions): Promise<BatchSummary> {
  return new ClaimBatchRun(client, journal, options).run(claims);
}

/** One run of a claim batch, its steps named: prepare each claim, announce a group, send, settle, and the exit code. */
class ClaimBatchRun {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly waiting: boolean;
  private readonly summary: BatchSummary;
  private done = 0;
  private skipped = 0;
  /** Only the claims sent count in the rate: those a resume skips cost no time (docs/jobs.md "Long jobs"). */
  private readonly pace: Throughput;
  private readonly pacer: Pacer;
  /** The rate, the time left and the limit once it paces the batch (docs/jobs.md "Long jobs"), as every long job has them. */
  private readonly gauge: PaceGauge;
  /** Acknowledged (or skipped) claims whose adjudication --wait still has to report. */
  private readonly toWait: ClaimOutcome[] = [];
  private firstFailure: TpaError | undefined;
  private readonly occurrences = new Map<string, number>();
  /** The X12 identities met in this batch, each with the source of its first claim. */
  private readonly identitiesSeen = new FirstSeen();

  constructor(
    private readonly client: TpaClient,
    private readonly journal: BatchJournal,
    private readonly options: BatchOptions,
  ) {
    this.sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.now = options.now ?? Date.now;
    this.waiting = options.waitTimeoutMs !== undefined;
    this.summary = {
      counts: { ACKNOWLEDGED: 0, SKIPPED: 0, INVALID: 0, FAILED: 0, UNKNOWN: 0 },
      states: {},
      total: options.total,
      sentThisRun: 0,
      dispositions: {},
      chargesCents: 0,
      allowedCents: 0,
      benefitCents: 0,
      stillProcessing: 0,
      exitCode: EXIT.OK,
    };
    this.pace = new Throughput(this.now);
    this.pacer = new Pacer({
      concurrency: options.concurrency,
      now: this.now,
      sleep: this.sleep,
      onPause: (ms) => {
        this.pace.pause();
        this.progress('submitting', ms);
      },
      onResume: () => this.pace.resume(),
    });
    this.gauge = new PaceGauge(this.pace, this.pacer.window, this.now);
  }

  async run(claims: AsyncIterable<BatchClaim>): Promise<BatchSummary> {
    const history = this.journal.begin({ database: this.options.database, total: this.options.total });
    if (history) {
      this.summary.history = history;
      this.options.onHistory?.(history);
    }
    await this.submitAll(claims);
    const settle = (o: ClaimOutcome) => this.settle(o);
    if (this.waiting && !this.summary.stopped)
      await waitForAll(this.client, this.toWait, this.options, this.summary, {
        sleep: this.sleep,
        now: this.now,
        progress: (stage, waitingMs) => this.progress(stage, waitingMs),
        settle,
      });
    else for (const o of this.toWait) settle(o);
    this.summary.exitCode = this.exitCode();
    return this.summary;
  }

  /** Claims go out in groups: one write to the disk announces a group before any of it is sent. */
  private async submitAll(claims: AsyncIterable<BatchClaim>): Promise<void> {
    const groupSize = Math.max(this.options.concurrency, 512);
    let group: Ready[] = [];
    for await (const item of claims) {
      if (this.summary.stopped) break;
      const ready = this.prepare(item);
      if (!ready) continue;
      group.push(ready);
      if (group.length >= groupSize) {
        await this.dispatch(group);
        group = [];
      }
    }
    if (!this.summary.stopped) await this.dispatch(group);
    await this.pacer.drain();
  }

  private progress(stage: BatchProgress['stage'], waitingMs?: number): void {
    if (!this.options.onProgress) return;
    const total = this.options.total;
    const p = this.gauge.pace(total !== undefined ? this.toSend(total) : undefined, stage === 'submitting' ? waitingMs : undefined);
    this.options.onProgress({ done: this.done, total, skipped: this.skipped, stage, ...p, waitingMs });
  }

  /** Claims still to send: the service has counted those in flight against its window already. */
  private toSend(total: number): number {
    return Math.max(0, total - this.done - this.pacer.inFlightCount);
  }

  /** The limit headers of an answer: the window's budget, and the first time, the batch's length under it. */
  private observe(headers: Record<string, string>): void {
    const { onLimit, total } = this.options;
    if (!this.pacer.observe(headers) || !onLimit || total === undefined) return;
    const limit = this.gauge.limitFor(this.toSend(total));
    if (limit) onLimit({ ...limit, toSend: total - this.done });
  }

  /** A claim's last word: counted once, in its final state, and handed on. The one place the summary counts a claim. */
  private settle(o: ClaimOutcome): void {
    const summary = this.summary;
    const state = finalState(o);
    summary.states[state] = (summary.states[state] ?? 0) + 1;
    if (state === 'STILL PROCESSING') summary.stillProcessing++;
    if (o.disposition !== undefined) summary.dispositions[o.disposition ?? 'UNKNOWN'] = (summary.dispositions[o.disposition ?? 'UNKNOWN'] ?? 0) + 1;
    if (o.adjudication) {
      summary.allowedCents += amountCents(o.adjudication.allowed_amount);
      summary.benefitCents += amountCents(o.adjudication.benefit_amount);
    }
    this.options.onOutcome(o);
  }

  private finish(outcome: ClaimOutcome): void {
    this.summary.counts[outcome.status]++;
    this.done++;
    if (outcome.status === 'SKIPPED') this.skipped++;
    if (this.waiting && (outcome.status === 'ACKNOWLEDGED' || outcome.status === 'SKIPPED')) this.toWait.push(outcome);
    else this.settle(outcome);
    this.progress('submitting');
  }

  /** A claim found invalid: journaled, reported, not sent. */
  private refuse(item: BatchClaim, errors: FieldError[]): undefined {
    const placed = placeErrors(errors, item.locate, item.segmentOf);
    this.journal.invalid(item.source, item.text, item.segmentOf || item.errors ? placed : errors);
    this.finish(outcome(item.source, 'INVALID', { errors: placed }));
    return undefined;
  }

  /** Validation and the journal's verdict, before anything is sent. */
  private prepare(item: BatchClaim): Ready | undefined {
    // A claim from X12 is known by its interchange, group, transaction and CLM01, and one identity is
    // one claim: a second item of it in the batch (valid or not) is the sender's duplicate, never
    // numbered into a claim of its own (a file added or fixed would shift the numbers).
    const firstOf = item.identity ? this.identitiesSeen.firstOf(item.identity.claim, item.source) : undefined;
    if (item.problem !== undefined || item.value === undefined) return this.refuse(item, [{ field: '', message: item.problem ?? 'not a claim' }]);
    // Every problem at once: the X12 reader's and the field rules' (domain/claim-problems.ts).
    const checked = everyProblem(item.text, item.value, item.errors, item.segmentOf);
    if (checked.errors) return this.refuse(item, checked.errors);
    const parsed: ParsedClaim = checked.parsed;
    const sha256 = canonicalHash(item.value);
    const claim = item.identity?.claim ?? this.occurrence(sha256);
    const known = this.journal.lookup(claim);
    if (item.identity) {
      const problem = x12IdentityProblem(item.identity.claim, sha256, known, firstOf, this.journal.mayHaveBeenSent(known));
      if (problem) return this.refuse(item, [{ field: '', message: problem }]);
    }
    this.summary.chargesCents += parsed.totalChargeCents;
    if (known?.ack) {
      this.finish(outcome(item.source, 'SKIPPED', { ...known.ack, idempotency_key: known.key }));
      return undefined;
    }
    return {
      claim,
      ...(item.identity ? { clm01: item.identity.clm01 } : {}),
      source: item.source,
      sha256,
      text: item.text,
      key: known?.key ?? randomUUID(),
      parsed,
      ...(item.segmentOf ? { segmentOf: item.segmentOf } : {}),
      lookFirst: this.journal.mayHaveBeenSent(known),
      announcedAt: known?.at,
    };
  }

  /** The same content twice in a batch is two claims: the nth occurrence has its own journal entry. */
  private occurrence(sha256: string): string {
    const n = (this.occurrences.get(sha256) ?? 0) + 1;
    this.occurrences.set(sha256, n);
    return n === 1 ? sha256 : `${sha256}#${n}`;
  }

  /**
   * A claim an earlier run may have sent: found in the ledger, it is acknowledged from there (and
   * not sent); not found, it is sent. True when it is settled without sending.
   */
  private async settledFromLedger(r: Ready): Promise<boolean> {
    let found: { submission_id: string; external_claim_id: string } | undefined;
    try {
      found = await findInLedger(this.client, r.parsed, this.journal.acknowledged);
    } catch (err) {
      if (!(err instanceof TpaError)) throw err;
      // A key that may submit claims but not read the ledger (403) cannot tell: this claim is
      // UNKNOWN, the others go on. Limits, the network or the credentials stop the batch.
      if (stopsTheJob(err) && err.status !== 403) {
        this.summary.stopped ??= err;
        return true;
      }
      const when = r.announcedAt ? ` on ${r.announcedAt}` : '';
      this.finish(
        outcome(r.source, 'UNKNOWN', {
          idempotency_key: r.key,
          errors: [
            {
              field: '',
              message: `unknown: check before resending. It was sent${when} with Idempotency-Key ${r.key} and its answer was never recorded; the ledger could not be read to find it (${err.message})`,
            },
          ],
        }),
      );
      return true;
    }
    if (!found) return false;
    this.journal.answered({ type: 'acknowledged', claim: r.claim, ...found, found_in_ledger: true });
    this.finish(outcome(r.source, 'SKIPPED', { ...found, idempotency_key: r.key, note: 'sent before, its answer lost: found in the ledger, not sent again' }));
    return true;
  }

  private async send(r: Ready): Promise<void> {
    if (r.lookFirst && (await this.settledFromLedger(r))) return;
    try {
      this.journal.sent(r.claim);
      this.summary.sentThisRun++;
      this.pace.started();
      const ack = await this.client.submitClaim(r.text, r.key);
      this.pace.add(1);
      this.observe(ack.headers);
      const { submission_id, external_claim_id } = ack.body;
      this.journal.answered({ type: 'acknowledged', claim: r.claim, submission_id, external_claim_id, at: new Date().toISOString() });
      this.finish(outcome(r.source, 'ACKNOWLEDGED', { submission_id, external_claim_id, idempotency_key: r.key }));
    } catch (err) {
      if (!(err instanceof TpaError)) throw err;
      this.failed(r, err);
    }
  }

  private failed(r: Ready, err: TpaError): void {
    this.pace.add(1);
    // Limits, the network or the credentials stop the batch: what was not answered is resent, with
    // its key, when the same command runs again.
    if (stopsTheJob(err)) this.summary.stopped ??= err;
    else this.firstFailure ??= err;
    this.journal.answered(failedRecord(r.claim, r.text, err));
    const errors = Array.isArray(err.details) ? (err.details as FieldError[]) : [{ field: '', message: err.message }];
    // A claim from X12: each refusal names the segment its field came from (NM1*71, not only careTeam[0].provider).
    const failed = outcome(r.source, 'FAILED', { idempotency_key: r.key, errors: r.segmentOf ? placeErrors(errors, undefined, r.segmentOf) : errors });
    if (isRefusal(err.status)) refusals.add(failed);
    this.finish(failed);
  }

  private async dispatch(group: Ready[]): Promise<void> {
    if (group.length === 0) return;
    this.journal.sending(group.map((r) => ({ claim: r.claim, source: r.source, sha256: r.sha256, key: r.key, clm01: r.clm01 })));
    for (const r of group) {
      // Fewer requests in flight than the rate-limit window has left: none is refused (a refusal counts too).
      await this.pacer.slot();
      if (this.summary.stopped) return;
      this.pacer.start(() => this.send(r));
    }
  }

  /** The exit code docs/claim-batches.md "Claim batches" gives the batch's end. */
  private exitCode(): number {
    const summary = this.summary;
    if (summary.stopped) return summary.stopped.exitCode;
    if (summary.counts.UNKNOWN > 0) return EXIT.CONFLICT;
    if (summary.stillProcessing > 0) return EXIT.PENDING;
    if (summary.counts.INVALID > 0) return EXIT.USAGE;
    return this.firstFailure ? this.firstFailure.exitCode : EXIT.OK;
  }
}

/**
 * Polls every acknowledged claim until adjudicated, a round at a time over those still processing,
 * waiting between rounds as the contract (docs/api.md) advises (the nearest estimated completion, 1 s
 * at least). The polls are paced as the submissions were (throughput.ts Pacer: the poll route's own
 * window, read from its answers), and a 429 that comes anyway is waited out, the claim polled again
 * in the next round, within the timeout: a limit never stops the wait. Each claim is settled once.
 */
async function waitForAll(
  client: TpaClient,
  pending: ClaimOutcome[],
  options: BatchOptions,
  summary: BatchSummary,
  tools: {
    sleep: (ms: number) => Promise<void>;
    now: () => number;
    progress: (stage: BatchProgress['stage'], waitingMs?: number) => void;
    settle: (o: ClaimOutcome) => void;
  },
): Promise<void> {
  const deadline = tools.now() + options.waitTimeoutMs!;
  const pacer = new Pacer({ concurrency: options.concurrency, now: tools.now, sleep: tools.sleep, onPause: (ms) => tools.progress('waiting', ms) });
  let left = pending;
  for (let round = 0; left.length > 0; round++) {
    const still: ClaimOutcome[] = [];
    let soonest: string | undefined;
    for (const o of left) {
      if (summary.stopped || tools.now() >= deadline) {
        still.push(o);
        continue;
      }
      await pacer.slot();
      pacer.start(async () => {
        let result: { status: number; headers: Record<string, string>; body: ClaimResponseBody };
        try {
          result = await client.claimResponse(o.submission_id!);
        } catch (err) {
          if (!(err instanceof TpaError)) throw err;
          if (err instanceof RateLimitedError) {
            pacer.pauseFor(rateLimitWaitOf(err));
            still.push(o);
          } else if (stopsTheJob(err)) {
            summary.stopped ??= err;
            still.push(o);
          } else tools.settle({ ...o, errors: [{ field: '', message: err.message }], disposition: null, adjudication: null });
          return;
        }
        pacer.observe(result.headers);
        if (result.status === 202) {
          still.push(o);
          const eta = result.body.estimated_completion;
          if (eta && (!soonest || eta < soonest)) soonest = eta;
          return;
        }
        tools.settle({
          ...o,
          disposition: result.body.disposition ?? null,
          adjudication: result.body.adjudication ?? null,
          // A denied claim says why (its code and reason), in the outcome and on stderr.
          ...(result.body.disposition === 'DENIED' ? { denial_code: result.body.denial_code ?? null, denial_reason: result.body.denial_reason ?? null } : {}),
        });
      });
    }
    await pacer.drain();
    left = still;
    if (summary.stopped || left.length === 0) break;
    const remaining = deadline - tools.now();
    if (remaining <= 0) break;
    const ms = Math.min(remaining, nextPollDelay(round, soonest, tools.now()));
    tools.progress('waiting', ms);
    await tools.sleep(ms);
  }
  // Still processing at the timeout (or when the batch stopped): each once, without a disposition.
  for (const o of left) tools.settle({ ...o, disposition: null, adjudication: null });
}

/** An earlier submission of a claim's content, as its journal recorded it. */
export interface EarlierSubmission {
  submission_id: string;
  external_claim_id: string;
  idempotency_key: string;
  /** When it was acknowledged (or announced, in a journal that kept no time for the answer). */
  at: string | undefined;
  /** How many times this content was acknowledged before. */
  times: number;
}

/** One claim sent under the journal's rules: the service's acknowledgment, or the earlier one found in the ledger. */
export type SingleResult =
  | { sent: Awaited<ReturnType<TpaClient['submitClaim']>> }
  | { found: { submission_id: string; external_claim_id: string; idempotency_key: string } };

/**
 * What the journal says of a claim's content before it is sent (docs/claim-batches.md "Claim batches":
 * the same rules for one claim as for many). `resume`: an earlier attempt of it whose answer was
 * never recorded or that was refused, to settle with its key; `earlier`: its last acknowledged
 * submission, when every attempt was acknowledged (sending it again is a new claim, only on
 * purpose); neither: never sent from this journal.
 */
export function journalVerdict(journal: BatchJournal, sha256: string): { id: string; resume?: Known; earlier?: EarlierSubmission } {
  let earlier: EarlierSubmission | undefined;
  for (let n = 1; ; n++) {
    const id = n === 1 ? sha256 : `${sha256}#${n}`;
    const known = journal.lookup(id);
    if (!known) return { id, earlier };
    if (!known.ack) return { id, resume: known, earlier };
    earlier = { ...known.ack, idempotency_key: known.key, at: known.ackAt ?? known.at, times: n };
  }
}

/**
 * Sends one claim under the journal's rules, as a batch sends each of its claims: announced on the
 * disk with its key before it goes out, its answer recorded after. An earlier attempt never
 * answered is settled first as a batch settles it (looked for in the ledger when it may have gone
 * out, else sent with the same key). A claim already acknowledged is sent again, as a new
 * claim with a new key, only when `again` says so (the caller has asked, or was told --again);
 * otherwise the refusal names the earlier submission.
 */
export async function submitSingleClaim(
  client: TpaClient,
  journal: BatchJournal,
  claim: { source: string; text: string; value: unknown; parsed: ParsedClaim },
  options: { key?: string; again: (earlier: EarlierSubmission) => boolean },
): Promise<SingleResult> {
  const sha256 = canonicalHash(claim.value);
  const verdict = journalVerdict(journal, sha256);
  let key: string;
  if (verdict.resume) {
    const known = verdict.resume;
    if (journal.mayHaveBeenSent(known)) {
      let found: { submission_id: string; external_claim_id: string } | undefined;
      try {
        found = await findInLedger(client, claim.parsed, journal.acknowledged);
      } catch (err) {
        if (!(err instanceof TpaError) || (stopsTheJob(err) && err.status !== 403)) throw err;
        throw new TpaError(
          EXIT.CONFLICT,
          'claim_unknown',
          `${claim.source}: unknown: check before resending. It was sent${known.at ? ` on ${known.at}` : ''} with Idempotency-Key ${known.key} and its answer was never recorded; the ledger could not be read to find it (${err.message}). Nothing was sent`,
        );
      }
      if (found) {
        journal.answered({ type: 'acknowledged', claim: verdict.id, ...found, found_in_ledger: true, at: new Date().toISOString() });
        return { found: { ...found, idempotency_key: known.key } };
      }
    }
    key = options.key ?? known.key;
  } else if (verdict.earlier && !(options.key !== undefined && options.key === verdict.earlier.idempotency_key)) {
    if (!options.again(verdict.earlier)) {
      const e = verdict.earlier;
      throw new TpaError(
        EXIT.CONFLICT,
        'already_submitted',
        `${claim.source}: the same claim (SHA-256 ${sha256.slice(0, 12)}… of its content) was submitted before from this machine: submission ${e.submission_id} (encounter ${e.external_claim_id})${e.at ? ` on ${e.at}` : ''}${e.times > 1 ? `, ${e.times} times in all` : ''}. Not sent again`,
        { details: e, hint: 'to send it again on purpose, as a new claim: the same command with --again' },
      );
    }
    key = options.key ?? randomUUID();
  } else key = options.key ?? verdict.earlier?.idempotency_key ?? randomUUID();
  // Sent again with the key of its last acknowledgment (--idempotency-key): the service replays the answer.
  const id =
    verdict.earlier && !verdict.resume && key === verdict.earlier.idempotency_key
      ? verdict.earlier.times === 1
        ? sha256
        : `${sha256}#${verdict.earlier.times}`
      : verdict.id;
  journal.sending([{ claim: id, source: claim.source, sha256, key }]);
  journal.sent(id);
  let ack: Awaited<ReturnType<TpaClient['submitClaim']>>;
  try {
    ack = await client.submitClaim(claim.text, key);
  } catch (err) {
    if (err instanceof TpaError) journal.answered(failedRecord(id, claim.text, err));
    throw err;
  }
  journal.answered({
    type: 'acknowledged',
    claim: id,
    submission_id: ack.body.submission_id,
    external_claim_id: ack.body.external_claim_id,
    at: new Date().toISOString(),
  });
  return { sent: ack };
}
