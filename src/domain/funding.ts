// What an encounter's ledger says of its fund releases, and the rule after a lost answer: an
// approval sent whose answer never came (or came as a 5xx a gateway may have passed on) is never
// resent blind; the ledger says whether it happened. `tpa fund approve`, a payment run and this
// machine's history of approvals (`tpa fund history`) all settle a lost answer with resolveLostAnswer.

/** A ledger entry, as far as the fund releases go. */
export interface FundingEntry {
  readonly type: string;
  readonly reference: string | null;
}

/** An encounter's ledger entries, in their order. */
export interface FundingLedger {
  readonly entries: readonly FundingEntry[];
}

/** A fund release: its authorization code and its transfer (null when the ledger names none). */
export interface Funding {
  reference: string | null;
  transfer: string | null;
}

const ended = (e: FundingEntry) => e.type === 'SETTLEMENT_FAILED' || e.type === 'SETTLEMENT_REFUNDED';

/**
 * The fund release a ledger entry shows since its last failed or refunded transfer (those before
 * it no longer fund the encounter): its authorization code and its transfer; undefined if none.
 */
export function fundingOf(detail: FundingLedger): Funding | undefined {
  let last = -1;
  detail.entries.forEach((e, i) => {
    if (ended(e)) last = i;
  });
  const current = detail.entries.slice(last + 1);
  const funding = current.find((e) => e.type === 'FUNDING_APPROVED');
  return funding ? { reference: funding.reference, transfer: current.find((e) => e.type === 'SETTLEMENT_INITIATED')?.reference ?? null } : undefined;
}

/**
 * The fund release the ledger shows with this authorization code, whether or not it still funds the
 * encounter (an authorization code is never used twice): its transfer, and whether that transfer has
 * since FAILED or been REFUNDED; undefined if the ledger has no approval with this code.
 */
export function approvalOf(detail: FundingLedger, authorizationCode: string): { transfer: string | null; ended: boolean } | undefined {
  const at = detail.entries.findIndex((e) => e.type === 'FUNDING_APPROVED' && e.reference === authorizationCode);
  if (at < 0) return undefined;
  const after = detail.entries.slice(at + 1);
  const next = after.findIndex((e) => e.type === 'FUNDING_APPROVED');
  const own = next < 0 ? after : after.slice(0, next);
  return {
    transfer: own.find((e) => e.type === 'SETTLEMENT_INITIATED')?.reference ?? null,
    ended: own.some(ended),
  };
}

/** What became of an approval whose answer was lost. */
export type LostAnswer =
  /** The ledger shows it (its authorization code): it happened, even if its transfer has since FAILED or been REFUNDED (`ended`). */
  | { readonly approval: 'happened'; readonly transfer: string | null; readonly ended: boolean }
  /** It did not happen; `fundedBy`: another approval that funds the encounter now, if any. */
  | { readonly approval: 'did-not-happen'; readonly fundedBy?: Funding }
  /** The ledger could not be read: nobody can tell, and nothing may be resent. */
  | { readonly approval: 'unknown' };

/**
 * Settles an approval whose answer was lost from the encounter's ledger as read afterwards
 * ('not-found': the service has no such encounter; 'unreadable': the read failed). The approval is
 * found by its authorization code (never used twice), so one whose transfer has failed since still
 * happened; a fund release with another code is someone else's.
 */
export function resolveLostAnswer(ledger: FundingLedger | 'not-found' | 'unreadable', authorizationCode: string): LostAnswer {
  if (ledger === 'unreadable') return { approval: 'unknown' };
  if (ledger === 'not-found') return { approval: 'did-not-happen' };
  const mine = approvalOf(ledger, authorizationCode);
  if (mine) return { approval: 'happened', transfer: mine.transfer, ended: mine.ended };
  const fundedBy = fundingOf(ledger);
  return fundedBy ? { approval: 'did-not-happen', fundedBy } : { approval: 'did-not-happen' };
}

/**
 * The prefix of the authorization codes tpa offers (AUTH-<date>-<organisation>-<sequence>, the
 * format the contract recommends): AUTH-20261126-ACME for payer PAYER-ACME on 2026-11-26.
 */
export function authorizationPrefix(payerId: string, day: string): string {
  const org =
    payerId
      .replace(/^PAYER-/, '')
      .replace(/[^A-Za-z0-9]/g, '')
      .toUpperCase() || 'ORG';
  return `AUTH-${day.replace(/-/g, '')}-${org}`;
}

/** The format the contract recommends for an authorization code, as messages name it. */
export const AUTHORIZATION_CODE_FORMAT = 'AUTH-<date>-<organization>-<sequence>';

/**
 * Whether a code has the recommended shape: AUTH-, a date YYYYMMDD, an organisation of letters and
 * digits, a sequence of digits (AUTH-20261126-ACME-0001), in any case. The code is the approver's
 * own reference, so another shape is warned about, never refused.
 */
export function hasRecommendedShape(code: string): boolean {
  return /^AUTH-\d{8}-[A-Z0-9]+-\d+$/i.test(code.trim());
}

/** Whether a payment run's prefix gives codes of the recommended shape: AUTH-<date>-<organization>. */
export function isRecommendedPrefix(prefix: string): boolean {
  return hasRecommendedShape(`${prefix.trim()}-0001`);
}

/** Why an authorization code cannot be sent at all, or undefined: it is empty, or holds control characters (which the service refuses). */
export function authorizationCodeProblem(code: string): string | undefined {
  if (code.trim() === '') return 'required';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(code)) return 'must not hold control characters';
  return undefined;
}

/** An authorization code as codes are told apart: `auth-t-1 ` is AUTH-T-1 (a change of case or surrounding spaces is not a new code). */
export function codeKey(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * The next free authorization code of `prefix`: the sequence after the highest that `used` holds for
 * it (AUTH-20261126-ACME-0003 after -0001 and -0002), so that a code already used (approved,
 * refused, failed, or its transfer failed since) is never offered again, nor one below it.
 */
export function nextAuthorizationCode(prefix: string, used: Iterable<string>): string {
  let highest = 0;
  const head = `${prefix.toUpperCase()}-`;
  for (const code of used) {
    const c = codeKey(code);
    if (!c.startsWith(head)) continue;
    const seq = c.slice(head.length);
    if (/^\d{1,9}$/.test(seq)) highest = Math.max(highest, Number(seq));
  }
  return `${prefix}-${String(highest + 1).padStart(4, '0')}`;
}

/** The authorization codes an encounter's ledger shows (its FUNDING_APPROVED entries), its failed transfers' included. */
export function authorizationCodesOf(ledger: FundingLedger): string[] {
  return ledger.entries.filter((e) => e.type === 'FUNDING_APPROVED' && e.reference).map((e) => e.reference!);
}
