// The one fund release (docs/jobs.md "Payment runs"): `tpa fund approve`, a payment run and `tpa
// api` send an irreversible release through here. The confirmation is the caller's (the screen is
// theirs); here is what follows it: a code this machine has already seen APPROVED for the
// encounter is refused before anything is sent, the release is recorded in this machine's fund
// history before it is sent and with its outcome after, it is sent once with its Idempotency-Key,
// and an answer that is lost (no answer, a timeout, a 5xx) is never resent: the encounter's ledger
// says whether it happened. A 409 naming the transfer that already funds the encounter is read as
// funded by another approval, named from the ledger.
import type { ApiResult, TpaClient } from '../client/client.js';
import { stopsTheJob } from '../client/retry.js';
import type { FundingApproved, LedgerDetail } from '../client/types.js';
import { AUDIT_HEAD_HEADER, type AuditHead, parseAuditHead } from '../domain/audit.js';
import { type Funding, fundingOf, resolveLostAnswer } from '../domain/funding.js';
import { ConflictError, NetworkError, NotFoundError, TpaError } from '../errors.js';
import { type ApprovalRecord, type ApprovalSent, FundHistory, type RecordEnd, refuseApprovedCode, sendRecorded } from './fund-history.js';

/** A fund release as sent: the contract's body. */
export interface Release {
  encounter_id: string;
  /** Dollars, as the contract's body has it (a JSON number of at most two decimals). */
  amount: number;
  authorization_code: string;
  notes?: string;
}

/** This machine's fund history, and where the release goes (named in its record). */
export interface ReleaseHistory {
  log: FundHistory;
  /** The data directory whose history is read for the codes already approved. */
  dataDir: string;
  profile: string;
  environment: string;
  /** The database the release goes to (journal.ts databaseOf); unknown: undefined or null. */
  database?: string | null | undefined;
  /**
   * Whether a code the history holds as APPROVED for the encounter is refused before sending
   * (refuseApprovedCode), read again at the moment of sending: `tpa api`'s, whose confirmation
   * another approver may overtake. `fund approve` and a payment run let the service judge a code
   * given again for the same encounter (fund approve's review refuses a used one on a terminal; a
   * run's codes are its own prefix's, held from other approvals).
   */
  refuseApproved?: boolean;
}

/** What became of a release that was sent. */
export type Released =
  /** The service approved it; or, its answer lost, the ledger shows it with its code (`answer` undefined). */
  | { status: 'APPROVED'; transfer: string | null; answer?: ApiResult<FundingApproved>; head?: AuditHead }
  /**
   * Not this release: another approval funds the encounter. `refusal`: the service's 409 refusing
   * this one as a duplicate (funded meanwhile); absent when the ledger showed it after a lost answer.
   */
  | { status: 'FUNDED_BY_ANOTHER'; funding: Funding; refusal?: ConflictError };

/**
 * A release whose answer was lost and that the ledger does not show: `readError` when the ledger
 * could not be read (nobody can tell whether it happened), `notFound` when the service has no such
 * encounter, else the ledger has no release with its code. Never resent here; its record stays
 * UNKNOWN until a later approval, run or `tpa api` of the encounter reads the ledger again.
 */
export class LostRelease extends NetworkError {
  constructor(
    readonly sent: NetworkError,
    readonly readError: Error | undefined,
    readonly notFound: boolean,
  ) {
    super(sent.message, { code: sent.code });
  }

  /** The ledger could not be read: whether the release happened is not known. */
  get unknown(): boolean {
    return this.readError !== undefined && !this.notFound;
  }
}

export interface ReleaseOptions {
  /** Where it is recorded; without it, it is only sent. */
  history?: ReleaseHistory | undefined;
  /** Transfers of the encounter that already ended: an answer naming one is the replay of an earlier approval under this key, not this one. */
  ended?: ReadonlySet<string>;
  /** Told when the answer was lost, before the ledger is read. */
  onLostAnswer?: (cause: NetworkError) => void;
  /** The headers of the service's answer (a payment run paces itself by them). */
  onAnswer?: (headers: Record<string, string>) => void;
}

/**
 * Sends one release with `key`, recorded (recordedRelease), and settles a lost answer from the
 * ledger. Throws the service's refusal, a LostRelease, or what stops a job; a replayed key (the
 * answer names a transfer in `ended`) is refused, nothing having moved.
 */
export async function releaseFunds(client: TpaClient, release: Release, key: string, options: ReleaseOptions = {}): Promise<Released> {
  const sent = { encounter_id: release.encounter_id, amount: release.amount, authorization_code: release.authorization_code };
  return recordedRelease(options.history, sent, () => sendOnce(client, release, key, options), recordOf);
}

/**
 * The record around any sending of a release (`tpa api` sends its own request through it): with
 * `refuseApproved`, a code this machine's history holds as APPROVED for the encounter, by the
 * database answering now, is refused before anything is sent (exit 4); then the release is recorded before
 * `send` runs and its outcome after, as `ended` says (fund-history.ts sendRecorded).
 */
export async function recordedRelease<T>(
  history: ReleaseHistory | undefined,
  release: Omit<ApprovalSent, 'profile' | 'environment' | 'database'>,
  send: () => Promise<T>,
  ended: (result: { answer: T } | { error: unknown }) => RecordEnd,
): Promise<T> {
  if (!history) return send();
  if (history.refuseApproved)
    refuseApprovedCode(FundHistory.read(history.dataDir), release.encounter_id, release.authorization_code, history.database ?? undefined);
  return sendRecorded(history, release, send, ended);
}

/**
 * An earlier release of the encounter from this machine whose answer was lost (UNKNOWN in `records`)
 * is settled from the ledger before another is sent (FundHistory.resolve); returns what to tell.
 */
export async function settleLostReleases(client: TpaClient, log: FundHistory, records: readonly ApprovalRecord[], id: string): Promise<string[]> {
  if (!records.some((a) => a.encounter_id === id && a.outcome === 'UNKNOWN')) return [];
  return log.resolve(records, id, (await client.ledgerDetail(id)).body);
}

async function sendOnce(client: TpaClient, release: Release, key: string, options: ReleaseOptions): Promise<Released> {
  const { notes, ...sent } = release;
  let answer: ApiResult<FundingApproved>;
  try {
    answer = await client.approveFunding({ ...sent, ...(notes ? { notes } : {}) }, key);
  } catch (err) {
    return notApproved(client, release, err, options);
  }
  const transfer = answer.body.processor_transfer_id;
  // The service answered with a transfer that already ended: the replay of the earlier approval
  // that used this Idempotency-Key (its answer is kept and sent again), not a new release.
  if (options.ended?.has(transfer)) {
    throw new ConflictError(
      `the service answered with transfer ${transfer}, which already ended (failed or refunded): the Idempotency-Key ${key} was used for that earlier approval, so this one was not sent and nothing moved. Encounter ${release.encounter_id} is still owed`,
      { code: 'idempotency_key_replayed', hint: 'approve it with a new --idempotency-key (or none) and a new --auth-code' },
    );
  }
  options.onAnswer?.(answer.headers);
  const head = parseAuditHead(answer.headers[AUDIT_HEAD_HEADER]);
  return { status: 'APPROVED', transfer, answer, ...(head ? { head } : {}) };
}

/** No answer approving it: funded meanwhile by another approval (a 409 naming its transfer), or an answer lost; any other error is thrown. */
async function notApproved(client: TpaClient, release: Release, err: unknown, options: ReleaseOptions): Promise<Released> {
  const previous = previousTransfer(err);
  if (previous !== undefined) {
    const read = await client.ledgerDetail(release.encounter_id).then(
      (r) => r.body,
      () => undefined,
    );
    const found = read ? fundingOf(read) : undefined;
    return { status: 'FUNDED_BY_ANOTHER', funding: found ?? { reference: null, transfer: previous }, refusal: err as ConflictError };
  }
  // A lost answer or a 5xx (a gateway may have passed the request on) leaves it unknown.
  if (!(err instanceof NetworkError)) throw err;
  options.onLostAnswer?.(err);
  let readError: Error | undefined;
  const read: LedgerDetail | 'not-found' | 'unreadable' = await client.ledgerDetail(release.encounter_id).then(
    (r) => r.body,
    (e: Error) => {
      readError = e;
      return e instanceof NotFoundError ? 'not-found' : 'unreadable';
    },
  );
  const found = resolveLostAnswer(read, release.authorization_code);
  // The code's approval whose transfer had ended before this request went out is an earlier one:
  // this request, sent again under its code, could only be refused; nothing moved.
  if (found.approval === 'happened' && found.ended && found.transfer !== null && options.ended?.has(found.transfer))
    throw new ConflictError(
      `the release ${release.authorization_code} of ${release.encounter_id} was not made by this request: that code's approval ended (transfer ${found.transfer} failed or was refunded) before it was sent, and the ledger shows no release since; nothing moved, the encounter is still owed`,
      { code: 'authorization_code_used', hint: 'approve it with a new --auth-code' },
    );
  if (found.approval === 'happened') return { status: 'APPROVED', transfer: found.transfer };
  if (found.approval === 'did-not-happen' && found.fundedBy) return { status: 'FUNDED_BY_ANOTHER', funding: found.fundedBy };
  throw new LostRelease(err, readError, read === 'not-found');
}

/** The transfer that already funds the encounter, when `err` is the service's refusal of a second approval (409 naming it). */
function previousTransfer(err: unknown): string | undefined {
  if (!(err instanceof ConflictError)) return undefined;
  const previous = (err.body as { previous_processor_transfer_id?: unknown } | undefined)?.previous_processor_transfer_id;
  return typeof previous === 'string' ? previous : undefined;
}

/** The words for a release another approval stands for: its authorization code and transfer. */
export function fundedByWords(found: Funding, meanwhile: boolean): string {
  const transfer = found.transfer ? `, transfer ${found.transfer}` : '';
  return `funded ${meanwhile ? 'meanwhile ' : ''}by another approval (authorization ${found.reference ?? 'unknown'}${transfer})`;
}

/**
 * What the fund history records of a release: APPROVED with its transfer; SKIPPED when another
 * approval funds the encounter; a refusal by the service FAILED (REFUSED with its reason, by
 * sendRecorded). What stops a job (an answer lost whatever the ledger said, a rate limit, a
 * credential refused) was never judged: it stays UNKNOWN, for the ledger to settle later.
 */
function recordOf(result: { answer: Released } | { error: unknown }): RecordEnd {
  if ('answer' in result) {
    const r = result.answer;
    if (r.status === 'APPROVED') return { outcome: 'APPROVED', transfer: r.transfer };
    return { outcome: 'SKIPPED', transfer: r.funding.transfer, message: fundedByWords(r.funding, r.refusal !== undefined) };
  }
  const err = result.error;
  if (!(err instanceof TpaError) || stopsTheJob(err)) return undefined;
  return { outcome: 'FAILED', transfer: null, message: err.message };
}
