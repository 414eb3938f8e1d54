// The approvals made from this machine (`tpa fund history`), whatever the profile or transport:
// an append-only journal in the data directory. Each approval is written, on the disk, before its
// request is sent, and its outcome after; one whose answer was lost stays UNKNOWN until a later
// `fund approve` or payment run finds out what happened and records it.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { authorizationCodesOf, authorizationPrefix, codeKey, nextAuthorizationCode, resolveLostAnswer } from '../domain/funding.js';
import { closedClaimWords, isClosedStatus } from '../domain/ledger.js';
import { ConflictError, TpaError } from '../errors.js';
import type { TpaClient } from '../client/client.js';
import { Journal, type JournalRecord, journalsDir, otherDatabaseId } from './journal.js';
import type { LedgerDetail, SettlementRecord } from '../client/types.js';

/**
 * APPROVED: the service approved it. REFUSED: the service answered with a refusal (a wrong amount, a
 * claim denied or not adjudicated, an encounter already funded, an authorization code used before…),
 * its `error_code` and `message` say why. FAILED: it did not happen for another reason (tpa refused the
 * answer, or `tpa api` read a credential or a rate limit refused). SKIPPED: not this approval: another
 * funds the encounter, its transfer named. UNKNOWN: the answer was lost (or a rate limit or a refused
 * credential stopped `fund approve` or a run) and the ledger has not said yet. NOT_SENT: never answered, and the ledger proves it never happened (an
 * approval announced when a run was interrupted): no failure happened; when the same code is sent
 * again later, that later outcome replaces it (one line per code).
 */
export type HistoryOutcome = 'APPROVED' | 'REFUSED' | 'SKIPPED' | 'FAILED' | 'NOT_SENT' | 'UNKNOWN';

export interface ApprovalRecord {
  id: string;
  at: string;
  profile: string;
  environment: string;
  encounter_id: string;
  /** The amount as sent (a JSON number of dollars, as the contract's body has it). */
  amount: number;
  authorization_code: string;
  outcome: HistoryOutcome;
  processor_transfer_id: string | null;
  /** Why the service refused it (REFUSED): the service's reason or error code, e.g. amount_mismatch, CLAIM_DENIED. */
  error_code?: string | null;
  message: string | null;
  /**
   * The identity of the database it was sent to (health's `database`, journal.ts databaseOf), null
   * when the service did not name one (or a record of an older tpa): after a reset or a restore,
   * an approval of another database is history (historyOf).
   */
  database?: string | null;
}

export function historyPath(dataDir: string): string {
  return join(journalsDir(dataDir), 'fund-history.ndjson');
}

export class FundHistory {
  private constructor(private readonly journal: Journal) {}

  static open(dataDir: string): FundHistory {
    return new FundHistory(Journal.open(historyPath(dataDir), () => undefined));
  }

  /** Every approval, its latest outcome folded in, in the order they were begun. */
  static read(dataDir: string): ApprovalRecord[] {
    const byId = new Map<string, ApprovalRecord>();
    const journal = Journal.open(historyPath(dataDir), (r: JournalRecord) => {
      if (r.type === 'approval')
        byId.set(String(r.id), { ...(r.record as ApprovalRecord), outcome: 'UNKNOWN', processor_transfer_id: null, error_code: null, message: null });
      if (r.type === 'outcome') {
        const a = byId.get(String(r.id));
        if (a) {
          const transfer = (r.processor_transfer_id as string | null | undefined) ?? null;
          const message = (r.message as string | null | undefined) ?? null;
          Object.assign(a, {
            outcome: asWritten(r.outcome as HistoryOutcome, transfer, message),
            processor_transfer_id: transfer,
            error_code: r.error_code ?? null,
            message,
          });
        }
      }
    });
    journal.close();
    // One line per code: an attempt NOT_SENT gives way to a later attempt of the same code.
    const all = [...byId.values()];
    return all.filter((a, i) => a.outcome !== 'NOT_SENT' || !all.slice(i + 1).some((b) => sameCode(b, a)));
  }

  /**
   * Before the request: on the disk, so that an approval whose answer is lost is still listed.
   * Returns the approval's id, for `end`.
   */
  begin(approval: ApprovalSent): string {
    const record = { id: randomUUID(), at: new Date().toISOString(), ...approval };
    this.journal.append({ type: 'approval', id: record.id, record });
    return record.id;
  }

  end(id: string, outcome: HistoryOutcome, processorTransferId: string | null, message?: string, errorCode?: string): void {
    this.journal.append({
      type: 'outcome',
      id,
      outcome,
      processor_transfer_id: processorTransferId,
      ...(message ? { message } : {}),
      ...(errorCode ? { error_code: errorCode } : {}),
    });
  }

  /**
   * Settles the approvals of `records` (as `read` gave them) of an encounter left UNKNOWN, from the
   * encounter's ledger, by the rule after a lost answer (resolveLostAnswer): an approval the ledger
   * shows with its authorization code happened (APPROVED, with its transfer, even if that transfer
   * has failed or been refunded since: `withTransfers` then shows it OWED or ENDED); one it does not
   * show did not.
   */
  resolve(records: readonly ApprovalRecord[], encounterId: string, detail: LedgerDetail): string[] {
    const notes: string[] = [];
    for (const a of records) {
      if (a.encounter_id !== encounterId || a.outcome !== 'UNKNOWN') continue;
      const found = resolveLostAnswer(detail, a.authorization_code);
      // The code's approval is an earlier one this history already holds APPROVED with that transfer:
      // this attempt was a retry under its code, which the service only refuses.
      const earlier =
        found.approval === 'happened' &&
        records.some(
          (b) =>
            b !== a &&
            b.encounter_id === encounterId &&
            b.outcome === 'APPROVED' &&
            b.processor_transfer_id === found.transfer &&
            codeKey(b.authorization_code) === codeKey(a.authorization_code),
        );
      if (earlier) {
        this.end(a.id, 'NOT_SENT', null, `a retry under the code of the earlier approval (transfer ${found.transfer}): the ledger shows no release since`);
        continue;
      }
      if (found.approval === 'happened') {
        this.end(a.id, 'APPROVED', found.transfer, 'found in the ledger after the answer was lost');
        notes.push(
          `the earlier approval ${a.authorization_code} of ${encounterId}, whose answer was lost, did happen (transfer ${found.transfer ?? 'unknown'})` +
            (found.ended ? `; that transfer has since failed or been refunded: ${endedSince(detail)}` : ''),
        );
        continue;
      }
      const fundedBy = found.approval === 'did-not-happen' ? (found.fundedBy?.reference ?? null) : null;
      // Never answered and not in the ledger: it never happened, which is no failure (NOT_SENT).
      if (fundedBy) this.end(a.id, 'FAILED', null, `not this approval: the ledger shows ${fundedBy}`);
      else this.end(a.id, 'NOT_SENT', null, 'never answered, and the ledger shows no fund release from it: it did not happen');
    }
    return notes;
  }

  close(): void {
    this.journal.close();
  }
}

/** What a transfer that ended leaves of the encounter: owed again, unless a corrected claim closed the claim since. */
function endedSince(detail: LedgerDetail): string {
  const { status, replaced_by } = detail.encounter;
  if (!isClosedStatus(status)) return 'the encounter is owed again';
  return `the claim is closed since, ${closedClaimWords({ status, replacedBy: replaced_by ?? null })}: nothing is owed on it`;
}

/** Two attempts of one approval: the same encounter and authorization code (told apart without regard to case or spaces). */
function sameCode(a: ApprovalRecord, b: ApprovalRecord): boolean {
  return a.encounter_id === b.encounter_id && codeKey(a.authorization_code) === codeKey(b.authorization_code);
}

/**
 * An outcome as an older tpa wrote it: a refusal by the service was SKIPPED (without a transfer from
 * `fund approve` and `tpa api`, "already funded" with the funding transfer from a payment run); it
 * reads as REFUSED. A payment run's SKIPPED for an encounter another approval funds stays SKIPPED.
 */
function asWritten(outcome: HistoryOutcome, transfer: string | null, message: string | null): HistoryOutcome {
  if (outcome === 'SKIPPED' && (transfer === null || message === 'already funded')) return 'REFUSED';
  return outcome;
}

/** Every authorization code this machine's history holds, whatever became of its approval (a code is used once sent). */
export function usedAuthorizationCodes(dataDir: string): string[] {
  return FundHistory.read(dataDir).map((a) => a.authorization_code);
}

/**
 * The service's refusal of an approval, if `err` is one: it answered 4xx (not a credential refused,
 * not a rate limit: those are FAILED, the approval was never judged). The code is the service's
 * `reason` when it gives one (CLAIM_DENIED), else its `error` (amount_mismatch), else tpa's.
 */
export function refusalOf(err: unknown): { code: string; message: string } | undefined {
  if (!(err instanceof TpaError) || err.status === undefined) return undefined;
  if (err.status < 400 || err.status >= 500 || err.status === 401 || err.status === 403 || err.status === 429) return undefined;
  const reason = (err.body as { reason?: unknown } | undefined)?.reason;
  return { code: typeof reason === 'string' ? reason : err.code, message: err.message };
}

/** An approval about to be sent, as its record in the history names it. */
export type ApprovalSent = Omit<ApprovalRecord, 'id' | 'at' | 'outcome' | 'processor_transfer_id' | 'message' | 'error_code'>;

/** What an approval's record ends with; undefined while what became of it is not known (it stays UNKNOWN). */
export type RecordEnd = { outcome: Exclude<HistoryOutcome, 'UNKNOWN'>; transfer: string | null; message?: string; code?: string } | undefined;

/**
 * Sends one approval with its record in this machine's history (`tpa fund approve` and a payment
 * run alike): the record is on the disk before `send` runs, so that an approval whose answer is lost
 * is still listed, and it ends as `ended` says of what `send` answered or threw (thrown on). What
 * the caller calls FAILED and the service refused (refusalOf) is recorded REFUSED with its reason; a
 * run's SKIPPED (funded by another approval) stays SKIPPED. Without a history, only sends.
 */
export async function sendRecorded<T>(
  history: { log: FundHistory; profile: string; environment: string; database?: string | null | undefined } | undefined,
  approval: Omit<ApprovalSent, 'profile' | 'environment' | 'database'>,
  send: () => Promise<T>,
  ended: (result: { answer: T } | { error: unknown }) => RecordEnd,
): Promise<T> {
  if (!history) return send();
  const log = history.log;
  const id = log.begin({ profile: history.profile, environment: history.environment, ...approval, database: history.database ?? null });
  const record = (result: { answer: T } | { error: unknown }) => {
    const end = ended(result);
    if (!end) return;
    // A refusal of the approval itself (4xx) is REFUSED; a run's SKIPPED (funded by another approval) stays what its caller says.
    const refused = 'error' in result && end.outcome === 'FAILED' ? refusalOf(result.error) : undefined;
    if (refused) log.end(id, 'REFUSED', end.transfer, refused.message, refused.code);
    else log.end(id, end.outcome, end.transfer, end.message, end.code);
  };
  let answer: T;
  try {
    answer = await send();
  } catch (error) {
    record({ error });
    throw error;
  }
  record({ answer });
  return answer;
}

/**
 * Why an approval is history for the database answering now (`current`, journal.ts databaseOf), or
 * undefined when it is not: it was sent to another database (before a reset or a restore, or to
 * another data directory or server). What another database approved is not in this one: it is
 * shown apart, never counted with this database's approvals, and its transfer is not read. The
 * rule is journal.ts otherDatabase's (one side unknown: not history).
 */
export function historyOf(a: Pick<ApprovalRecord, 'database'>, current: { id: string } | undefined): string | undefined {
  const other = otherDatabaseId(a.database, current);
  return other === undefined ? undefined : `sent to database ${other} (before a reset or restore); the database answering now is ${current!.id}`;
}

/**
 * The approval of this machine's history that gave `code` to another encounter than `encounterId`
 * (codes told apart without regard to case or surrounding spaces): each approval has its own code,
 * so such a code is refused before anything is sent (`fund approve --auth-code`, `tpa api`).
 */
export function codeOfAnother<T extends Pick<ApprovalRecord, 'authorization_code' | 'encounter_id'>>(
  records: readonly T[],
  encounterId: string,
  code: string,
): T | undefined {
  const key = codeKey(code);
  return records.find((a) => a.encounter_id !== encounterId && codeKey(a.authorization_code) === key);
}

/**
 * Refuses, before it is sent, a release of `code` for the encounter that this machine's history
 * holds as APPROVED by the database answering now (`database`; one side unknown counts as the same,
 * historyOf): the service takes a code once per encounter, so sent again it could only be refused,
 * and the history keeps one line per code. Exit 4, naming the code and its transfer; `tpa fund
 * approve` and `tpa api` alike.
 */
export function refuseApprovedCode(records: readonly ApprovalRecord[], encounterId: string, code: string, database: string | undefined): void {
  const key = codeKey(code);
  const current = database === undefined ? undefined : { id: database };
  const done = records.find(
    (a) => a.encounter_id === encounterId && a.outcome === 'APPROVED' && codeKey(a.authorization_code) === key && historyOf(a, current) === undefined,
  );
  if (done)
    throw new ConflictError(
      `the release ${code.trim()} of ${encounterId} was approved already (transfer ${done.processor_transfer_id ?? 'unknown'}): nothing was sent`,
      { code: 'duplicate_approval' },
    );
}

/**
 * An approval as `tpa fund history` shows it: what became of its transfer since. OWED: approved,
 * then its transfer FAILED or was REFUNDED and nothing funds the encounter now (as a payment run
 * reports it); ENDED: likewise ended, but another approval funds the encounter since; CLOSED:
 * likewise ended, and a corrected claim closed the claim since (SUPERSEDED by its replacement, or
 * VOIDED): nothing is owed on it, whatever became of the replacement.
 */
export interface HistoryRow extends Omit<ApprovalRecord, 'outcome'> {
  outcome: HistoryOutcome | 'OWED' | 'ENDED' | 'CLOSED';
  /** The transfer's status now (INITIATED, COMPLETED, FAILED, REFUNDED), or null when not read. */
  transfer_status: string | null;
  /** CLOSED: what closed the claim (SUPERSEDED or VOIDED); else null. */
  closed_as: 'SUPERSEDED' | 'VOIDED' | null;
  /** CLOSED as SUPERSEDED: the replacement's encounter id (null when not known); else null. */
  replaced_by: string | null;
}

/**
 * Reads, for each APPROVED approval of `profile` among `records`, the settlement of its encounter
 * (one GET per encounter) and says what became of its transfer: a transfer that FAILED or was
 * REFUNDED is never shown as an approval that stands. `connect` is called only when there is one
 * to read. Approvals of other profiles are not read (this
 * client does not reach their service); an approval whose settlement cannot be read keeps its
 * outcome with transfer_status null and the reason in its message, and `onNote` is told.
 */
export async function withTransfers(
  connect: () => Promise<TpaClient>,
  records: readonly ApprovalRecord[],
  profile: string,
  onNote: (text: string) => void,
): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = records.map((a) => ({ ...a, transfer_status: null, closed_as: null, replaced_by: null }));
  const toRead = [...new Set(rows.filter((r) => r.outcome === 'APPROVED' && r.profile === profile && r.processor_transfer_id).map((r) => r.encounter_id))];
  const settlements = new Map<string, SettlementRecord | null | Error>();
  let client: TpaClient | Error | undefined;
  if (toRead.length > 0) {
    try {
      client = await connect();
    } catch (err) {
      client = err as Error;
    }
  }
  if (toRead.length > 0) {
    if (client instanceof Error) for (const id of toRead) settlements.set(id, client);
    else {
      const { readSettlements } = await import('../client/settlement-reads.js');
      for (const [id, s] of await readSettlements(client!, toRead, { keepErrors: true })) settlements.set(id, s);
    }
  }
  // A settlement whose latest transfer ended may belong to a claim a corrected claim closed (its
  // settlement read gives the transfers as history): its ledger says so (one read per such encounter).
  const endedIds = [...settlements].filter(([, s]) => s && !(s instanceof Error) && (s.status === 'FAILED' || s.status === 'REFUNDED')).map(([id]) => id);
  const closedBy = new Map<string, { status: 'SUPERSEDED' | 'VOIDED'; replacedBy: string | null }>();
  if (endedIds.length > 0 && client && !(client instanceof Error)) {
    const { readLedgerDetails } = await import('../client/settlement-reads.js');
    for (const [id, d] of await readLedgerDetails(client, endedIds).catch(() => new Map<string, null>())) {
      if (!d || d instanceof Error) continue;
      const status = d.encounter.status;
      if (isClosedStatus(status)) closedBy.set(id, { status, replacedBy: d.encounter.replaced_by ?? null });
    }
  }
  const unread = new Set<string>();
  for (const row of rows) {
    if (row.outcome !== 'APPROVED') continue;
    if (row.profile !== profile) {
      row.message = `transfer not checked: approved with profile ${row.profile} (tpa fund history -p ${row.profile} checks it)`;
      continue;
    }
    const s = settlements.get(row.encounter_id);
    if (s === undefined) continue;
    if (s instanceof Error) {
      row.message = `transfer not checked: the settlement could not be read (${s.message})`;
      unread.add(row.encounter_id);
      continue;
    }
    if (s === null) {
      row.message = 'transfer not checked: the service has no settlement for the encounter';
      continue;
    }
    const transfer = [s, ...(s.previous_transfers ?? [])].find((t) => t.processor_transfer_id === row.processor_transfer_id);
    if (!transfer) {
      row.message = `transfer not checked: the settlement does not list transfer ${row.processor_transfer_id}`;
      continue;
    }
    row.transfer_status = transfer.status;
    if (transfer.status !== 'FAILED' && transfer.status !== 'REFUNDED') continue;
    const when = transfer.status === 'REFUNDED' ? transfer.refund_details?.refunded_at : transfer.failed_at;
    const ended = `approved, then the transfer ${transfer.processor_transfer_id} ${transfer.status === 'REFUNDED' ? 'was REFUNDED' : 'FAILED'}${when ? ` (${when})` : ''}`;
    const closed = closedBy.get(row.encounter_id);
    if (closed) {
      row.outcome = 'CLOSED';
      row.closed_as = closed.status;
      row.replaced_by = closed.replacedBy;
      row.message = `${ended}; the claim is closed since: ${closedClaimWords(closed)}, nothing is owed on it`;
      continue;
    }
    const standing = s.status !== 'FAILED' && s.status !== 'REFUNDED';
    row.outcome = standing ? 'ENDED' : 'OWED';
    row.message = standing ? `${ended}; funded since by transfer ${s.processor_transfer_id} (${s.status})` : `${ended}: owed again`;
  }
  if (unread.size > 0) onNote(`warning: the settlement of ${unread.size} encounter(s) could not be read: their transfers are not checked`);
  return rows;
}

/**
 * The authorization code to offer for a new approval of the encounter `detail` shows, on `day`: the
 * next free one of AUTH-<day>-<payer> (docs/approval.md "Interactive fund approval"), past every code
 * the encounter's ledger shows and every code of this machine's history, whatever their outcome.
 */
export function nextFreeAuthorizationCode(dataDir: string, detail: LedgerDetail, day: string, taken?: Iterable<string>): string {
  return nextAuthorizationCode(
    authorizationPrefix(detail.encounter.payer.id, day),
    taken ?? [...authorizationCodesOf(detail), ...usedAuthorizationCodes(dataDir)],
  );
}
