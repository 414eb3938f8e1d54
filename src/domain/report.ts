// The finance desk's period report (`tpa settlement report`), computed from the ledger entries and
// settlement records a client read, so that either transport gives the same report (
// docs/design.md "Where each rule lives"). Pure: no I/O; every sum in integer cents.
import { isClosedStatus } from './ledger.js';
import { jsonNumberToCents } from './money.js';
import { spanHolds } from './period.js';

/** What the report needs of a ledger list entry. */
export interface ReportEntry {
  encounter_id: string;
  encounter_number: string;
  service_date: string;
  status: string;
  status_progression: { status: string; timestamp: string }[];
  provider: { npi: string; name: string };
  financial_summary: Record<string, number | null>;
  /** On a pended entry sent again: the encounter of the claim that sent it (tpa's). */
  superseded_by?: string | null;
}

/**
 * The encounter that sent this pended entry again, when it was: the report counts such an entry
 * under `superseded_pended`, not in its statuses, totals or exceptions (its charges count once, as
 * its resubmission). Null for any other entry.
 */
export function supersededBy(e: Pick<ReportEntry, 'status' | 'superseded_by'>): string | null {
  return e.status === 'PENDED' && e.superseded_by ? e.superseded_by : null;
}

/** What the report needs of a transfer (the settlement record or one of its earlier transfers). */
export interface ReportTransfer {
  processor_transfer_id: string;
  status: string;
  total_amount: number;
  payouts: { provider_npi: string; provider_name: string; amount: number; processor_fee?: number }[];
  reconciliation_status: string;
  aeob_match: { match_status: string; variance: number } | null;
  initiated_at?: string | null;
  completed_at: string | null;
  failed_at?: string | null;
  refund_details: { refunded_at: string } | null;
}

export interface ReportSettlement extends ReportTransfer {
  previous_transfers?: ReportTransfer[];
}

export interface StatusLine {
  status: string;
  count: number;
  chargesCents: number;
  allowedCents: number;
  patientCents: number;
  benefitCents: number;
}

export interface ProviderLine {
  npi: string;
  name: string;
  payouts: number;
  /** Released to the provider: in transit, settled, and released then refunded. */
  amountCents: number;
  /** Of the amount, released then refunded. */
  refundedCents: number;
  /** The fees of its released payouts. */
  feeCents: number;
  /** What reaches it: the amount less the fee, of the transfers in transit or settled. */
  netCents: number;
}

/** A provider's line before any payout is added to it. */
export function emptyProviderLine(npi: string, name: string): ProviderLine {
  return { npi, name, payouts: 0, amountCents: 0, refundedCents: 0, feeCents: 0, netCents: 0 };
}

/**
 * One transfer's part in a period counted by the money's own times (--by funded, --by settled):
 * each amount is in this period by the same time the money section counts it, so the lines of a
 * period add up to its money section, and the lines of a span's periods to the span's.
 */
export interface TransferLine extends MovedCents {
  encounter_id: string;
  transfer: ReportTransfer;
  feeCents: number;
}

/** The amounts of the money section that a transfer line carries too (PeriodReport["money"]). */
interface MovedCents {
  releasedCents: number;
  inTransitCents: number;
  settledCents: number;
  refundedCents: number;
  cameBackCents: number;
  failedCents: number;
}

export type ExceptionKind = 'FAILED_TRANSFER' | 'REFUNDED_TRANSFER' | 'AEOB_VARIANCE' | 'MISSING_AEOB' | 'PENDED_OVER_7_DAYS' | 'NOT_FUNDED_AFTER_3_DAYS';

export interface ReportException {
  kind: ExceptionKind;
  encounter_id: string;
  encounter_number: string;
  amountCents: number;
  /** When the condition began: the failure, the refund, the pend, the adjudication. */
  since: string | null;
  reference: string | null;
}

export interface PeriodReport {
  byStatus: StatusLine[];
  totals: Omit<StatusLine, 'status'>;
  /**
   * Pended encounters sent again (superseded by their resubmission): acted on, so no exception, and
   * left out of the statuses and totals, where the resubmission counts the service once.
   */
  superseded: { count: number; chargesCents: number };
  /**
   * Claims a corrected claim replaced or voided (SUPERSEDED, VOIDED): closed and never paid, so no
   * exception, and left out of the statuses and totals, where a replacement counts the service once.
   */
  corrected: { count: number; chargesCents: number };
  /**
   * What the plan's money did (docs/money-funding.md "The finance desk's report"). Every amount is the sum of the
   * payouts it summarizes (with --npi, that provider's payouts only):
   * released = in transit + settled + released then refunded (a failed transfer moved nothing);
   * came back = what the refunds returned (each refunded payout's amount less its fee);
   * fees kept = the fees of refunded and failed transfers; spent = in transit + settled + fees kept
   * (what left the plan and did not come back) = net to providers + fees charged.
   */
  money: MovedCents & {
    feesChargedCents: number;
    feesKeptCents: number;
    /** Of the transfers in transit or settled: what reaches the providers (amount less fees). */
    netCents: number;
    spentCents: number;
    transfers: Record<string, number>;
  };
  providers: ProviderLine[];
  reconciliation: {
    matched: { count: number; amountCents: number };
    variance: { count: number; amountCents: number; items: { encounter_id: string; varianceCents: number }[] };
    missingAeob: { count: number; amountCents: number };
    notReconciled: { count: number; amountCents: number };
  };
  exceptions: ReportException[];
  /**
   * Under --by funded or --by settled: the time-based exceptions (PENDED_OVER_7_DAYS,
   * NOT_FUNDED_AFTER_3_DAYS) are facts of now, not of a period, and are listed with --by service only.
   */
  asOfNowExceptionsListed: boolean;
  /**
   * The arrival days of the transfers released in the period that are settled now: their sum is
   * money.settled (under --by funded a transfer initiated at the period's end arrives after it).
   */
  settledPerDay: { day: string; amountCents: number }[];
  /** Under --by funded or --by settled: every transfer with a figure in the period (TransferLine). */
  transferLines: TransferLine[];
}

const DAY_MS = 86_400_000;

/** The exceptions a transfer's latest state raises; the others are facts of the encounter now. */
export const TRANSFER_EXCEPTIONS: readonly ExceptionKind[] = ['FAILED_TRANSFER', 'REFUNDED_TRANSFER', 'AEOB_VARIANCE', 'MISSING_AEOB'];
export const AS_OF_NOW_EXCEPTIONS: readonly ExceptionKind[] = ['PENDED_OVER_7_DAYS', 'NOT_FUNDED_AFTER_3_DAYS'];
const cents = (v: unknown): number => jsonNumberToCents(v) ?? 0;

/** The moment the entry last entered `status` (its progression), if it did. */
function since(e: ReportEntry, status: string): string | null {
  const hits = e.status_progression.filter((p) => p.status === status);
  return hits.length > 0 ? hits[hits.length - 1]!.timestamp : null;
}

/** The payouts of a transfer that the report counts: all of them, or one provider's (--npi). */
function payoutsOf(t: ReportTransfer, npi: string | undefined) {
  return npi === undefined ? t.payouts : t.payouts.filter((p) => p.provider_npi === npi);
}

/** A transfer's money in the report: its (selected) payouts' amounts and fees; a FAILED one charged no fee. */
function transferMoney(t: ReportTransfer, npi: string | undefined): { amountCents: number; feeCents: number } {
  let amountCents = 0;
  let feeCents = 0;
  for (const p of payoutsOf(t, npi)) {
    amountCents += cents(p.amount);
    feeCents += cents(p.processor_fee);
  }
  return { amountCents, feeCents };
}

/**
 * A period counted by the dates of the money itself (--by funded, --by settled), each figure by its
 * own record's time (docs/periods.md "Which date a period counts"): a transfer's release by its
 * initiation (funded) or its arrival (settled), a failure by `failed_at`, a refund by its
 * `refunded_at`; fees go with their transfer's release, the fees kept with the failure or refund.
 * So each transfer, payout, refund and fee falls in exactly one period of any cut of time.
 */
export interface ReportDating {
  by: 'funded' | 'settled';
  startMs: number;
  /** Exclusive. */
  endMs: number;
  /** The ledger entries of the encounters whose records are given (for their numbers), if not among the entries. */
  moneyEntries?: readonly ReportEntry[];
}

/** The instant that puts a transfer's release in a period: its initiation (--by funded) or its arrival (--by settled). */
export function releaseInstant(t: ReportTransfer, by: 'funded' | 'settled'): string | null {
  return (by === 'funded' ? t.initiated_at : t.completed_at) ?? null;
}

/**
 * When a transfer failed, or was refunded: its `failed_at`, its refund's `refunded_at`. A service
 * that does not say (neither is in the service's contract) has the failure dated by the
 * transfer's initiation and the refund by its arrival, so that each still falls in one period.
 */
export function failureInstant(t: Pick<ReportTransfer, 'failed_at' | 'initiated_at'>): string | null {
  return t.failed_at ?? t.initiated_at ?? null;
}
export function refundInstant(t: Pick<ReportTransfer, 'refund_details' | 'completed_at' | 'initiated_at'>): string | null {
  return t.refund_details?.refunded_at ?? t.completed_at ?? t.initiated_at ?? null;
}

/** The exception a transfer raises while it is its encounter's latest, if any. */
function transferException(t: ReportTransfer): ExceptionKind | null {
  if (t.status === 'FAILED') return 'FAILED_TRANSFER';
  if (t.status === 'REFUNDED') return 'REFUNDED_TRANSFER';
  if (t.status !== 'COMPLETED') return null;
  const match = t.aeob_match?.match_status;
  return match === 'VARIANCE' ? 'AEOB_VARIANCE' : match === 'MISSING_AEOB' ? 'MISSING_AEOB' : null;
}

function exceptionOf(
  kind: ExceptionKind,
  base: { encounter_id: string; encounter_number: string },
  t: ReportTransfer,
  npi: string | undefined,
): ReportException {
  const amountCents = kind === 'AEOB_VARIANCE' ? cents(t.aeob_match!.variance) : transferMoney(t, npi).amountCents;
  const at = kind === 'FAILED_TRANSFER' ? (t.failed_at ?? null) : kind === 'REFUNDED_TRANSFER' ? (t.refund_details?.refunded_at ?? null) : t.completed_at;
  return { ...base, kind, amountCents, since: at, reference: t.processor_transfer_id };
}

/** A transfer whose money stays with the providers (in transit or settled), under its reconciliation state. */
function reconcile(r: PeriodReport['reconciliation'], encounterId: string, t: ReportTransfer, npi: string | undefined): void {
  const amount = transferMoney(t, npi).amountCents;
  if (t.status === 'INITIATED') {
    r.notReconciled.count++;
    r.notReconciled.amountCents += amount;
  } else if (t.status === 'COMPLETED') {
    const match = t.aeob_match?.match_status;
    if (match === 'EXACT') {
      r.matched.count++;
      r.matched.amountCents += amount;
    } else if (match === 'VARIANCE') {
      // The AEOB is the encounter's: its variance is the whole transfer's, whoever the report is for.
      const variance = cents(t.aeob_match!.variance);
      r.variance.count++;
      r.variance.amountCents += variance;
      r.variance.items.push({ encounter_id: encounterId, varianceCents: variance });
    } else if (match === 'MISSING_AEOB') {
      r.missingAeob.count++;
      r.missingAeob.amountCents += amount;
    } else {
      r.notReconciled.count++;
      r.notReconciled.amountCents += amount;
    }
  }
}

/** Whether an instant falls in the span (its end exclusive); a missing or unreadable one falls in none. */
export function inSpan(iso: string | null | undefined, span: { startMs: number; endMs: number }): boolean {
  const ms = Date.parse(iso ?? '');
  return spanHolds(span, ms);
}

/**
 * The report over the entries read. `npi`: the money is that provider's payouts only (the other
 * providers of the same transfers are left out); the encounters section still counts the encounters
 * the provider is on, with their whole amounts.
 */
export function periodReport(
  entries: readonly ReportEntry[],
  settlements: ReadonlyMap<string, ReportSettlement>,
  now: string,
  npi?: string,
  dating?: ReportDating,
): PeriodReport {
  const report = reportAccumulator(now, npi, dating);
  const transferLines = report.add(entries, settlements, dating?.moneyEntries);
  return { ...report.result(), transferLines };
}

/**
 * The report built page by page, as the ledger is read: every figure is a sum (by status, provider,
 * day) or a list in ledger order, so the pages folded in turn give the report of them all, and a
 * period's report holds its figures, never its entries. Each call of `add` is given a page's entries
 * (in ledger order), the settlement records of its encounters, and (dated) the entries those records
 * are of; it returns the page's transfer lines (dated). `result` has no transfer lines: they were
 * given page by page.
 */
export interface ReportAccumulator {
  add(entries: readonly ReportEntry[], settlements: ReadonlyMap<string, ReportSettlement>, moneyEntries?: readonly ReportEntry[]): TransferLine[];
  result(): PeriodReport;
}

/** What a report holds while the pages are folded in. */
interface Folding {
  npi: string | undefined;
  dating: ReportDating | undefined;
  nowMs: number;
  byStatus: Map<string, StatusLine>;
  totals: Omit<StatusLine, 'status'>;
  superseded: { count: number; chargesCents: number };
  corrected: { count: number; chargesCents: number };
  money: PeriodReport['money'];
  providers: Map<string, ProviderLine>;
  reconciliation: PeriodReport['reconciliation'];
  exceptions: ReportException[];
  perDay: Map<string, number>;
}

export function reportAccumulator(now: string, npi?: string, dating?: ReportDating): ReportAccumulator {
  const r: Folding = {
    npi,
    dating,
    nowMs: Date.parse(now),
    byStatus: new Map(),
    totals: { count: 0, chargesCents: 0, allowedCents: 0, patientCents: 0, benefitCents: 0 },
    superseded: { count: 0, chargesCents: 0 },
    corrected: { count: 0, chargesCents: 0 },
    money: {
      releasedCents: 0,
      inTransitCents: 0,
      settledCents: 0,
      refundedCents: 0,
      cameBackCents: 0,
      failedCents: 0,
      feesChargedCents: 0,
      feesKeptCents: 0,
      netCents: 0,
      spentCents: 0,
      transfers: {},
    },
    providers: new Map(),
    reconciliation: {
      matched: { count: 0, amountCents: 0 },
      variance: { count: 0, amountCents: 0, items: [] },
      missingAeob: { count: 0, amountCents: 0 },
      notReconciled: { count: 0, amountCents: 0 },
    },
    exceptions: [],
    perDay: new Map(),
  };
  return {
    add(entries, settlements, moneyEntries) {
      for (const e of entries) addEntry(r, e, settlements.get(e.encounter_id));
      return addMoney(r, entries, settlements, moneyEntries ?? []);
    },
    result: () => resultOf(r),
  };
}

/** An entry's part of the encounters section and, by service dates, its exceptions and reconciliation. */
function addEntry(r: Folding, e: ReportEntry, s: ReportSettlement | undefined): void {
  const f = e.financial_summary;
  if (supersededBy(e) !== null) {
    r.superseded.count++;
    r.superseded.chargesCents += cents(f.charges);
    return;
  }
  if (isClosedStatus(e.status)) {
    r.corrected.count++;
    r.corrected.chargesCents += cents(f.charges);
    return;
  }
  const line = r.byStatus.get(e.status) ?? { status: e.status, count: 0, chargesCents: 0, allowedCents: 0, patientCents: 0, benefitCents: 0 };
  const add = {
    count: 1,
    chargesCents: cents(f.charges),
    allowedCents: cents(f.allowed_amount),
    patientCents: cents(f.patient_responsibility),
    benefitCents: cents(f.benefit_amount),
  };
  for (const k of ['count', 'chargesCents', 'allowedCents', 'patientCents', 'benefitCents'] as const) {
    line[k] += add[k];
    r.totals[k] += add[k];
  }
  r.byStatus.set(e.status, line);
  // The facts of now (pended too long, not funded) belong to no period of the money's times: they
  // are listed with --by service only (docs/periods.md "Which time puts money in a period").
  if (r.dating) return;
  const base = { encounter_id: e.encounter_id, encounter_number: e.encounter_number };
  const pendedSince = e.status === 'PENDED' ? since(e, 'PENDED') : null;
  if (pendedSince && r.nowMs - Date.parse(pendedSince) > 7 * DAY_MS)
    r.exceptions.push({ ...base, kind: 'PENDED_OVER_7_DAYS', amountCents: add.chargesCents, since: pendedSince, reference: null });

  const adjudicatedSince = e.status === 'ADJUDICATED' ? since(e, 'ADJUDICATED') : null;
  const funding = s && (s.status === 'INITIATED' || s.status === 'COMPLETED');
  if (adjudicatedSince && !funding && add.benefitCents > 0 && r.nowMs - Date.parse(adjudicatedSince) > 3 * DAY_MS) {
    // With an NPI, an encounter that has payouts (its latest transfer was refunded or failed) is
    // owed that provider's part of them; only one with no payouts yet stays whole.
    const owed = r.npi !== undefined && s && s.payouts.length > 0 ? transferMoney(s, r.npi).amountCents : add.benefitCents;
    r.exceptions.push({ ...base, kind: 'NOT_FUNDED_AFTER_3_DAYS', amountCents: owed, since: adjudicatedSince, reference: null });
  }
  if (!s) return;
  // Only the encounter's latest transfer is an exception: one funded again has been acted on.
  const kind = transferException(s);
  if (kind) r.exceptions.push(exceptionOf(kind, base, s, r.npi));
  // Reconciliation: the current transfer, when money stays with the providers.
  reconcile(r.reconciliation, e.encounter_id, s, r.npi);
}

/**
 * The money of a page: undated (a period of service dates), every transfer of the entries given,
 * each under its status; dated, every transfer of the records given, each figure in the period of
 * its own time (ReportDating), and so its reconciliation, its exception and its transfer line.
 */
function addMoney(
  r: Folding,
  entries: readonly ReportEntry[],
  settlements: ReadonlyMap<string, ReportSettlement>,
  moneyEntries: readonly ReportEntry[],
): TransferLine[] {
  const undatedIds = r.dating ? undefined : new Set(entries.map((e) => e.encounter_id));
  const numbers = new Map<string, string>();
  // Claims a corrected claim closed: a transfer they had (FAILED, REFUNDED) is history and stays in
  // the money and the transfer lines, but no exception says anything is owed on them.
  const closed = new Set<string>();
  for (const list of [moneyEntries, entries])
    for (const e of list) {
      numbers.set(e.encounter_id, e.encounter_number);
      if (isClosedStatus(e.status) || supersededBy(e) !== null) closed.add(e.encounter_id);
    }
  const transferLines: TransferLine[] = [];
  for (const [id, s] of settlements) {
    if (undatedIds && !undatedIds.has(id)) continue;
    const owedOn = closed.has(id) ? undefined : { encounter_id: id, encounter_number: numbers.get(id) ?? '' };
    for (const t of s.previous_transfers ?? []) addTransfer(r, id, t, undefined, transferLines);
    addTransfer(r, id, s, owedOn, transferLines);
  }
  return transferLines;
}

/**
 * One transfer's figures. `owedOn`: the transfer is its encounter's latest and the encounter is not
 * closed, so (dated) its exception is listed in the period of the figure it is about.
 */
function addTransfer(
  r: Folding,
  id: string,
  t: ReportTransfer,
  owedOn: { encounter_id: string; encounter_number: string } | undefined,
  transferLines: TransferLine[],
): void {
  const { money, dating, npi } = r;
  const { amountCents: amount, feeCents: fee } = transferMoney(t, npi);
  const failed = t.status === 'FAILED';
  const released = !failed && (!dating || inSpan(releaseInstant(t, dating.by), dating));
  const failedHere = failed && (!dating || inSpan(failureInstant(t), dating));
  const refundedHere = t.status === 'REFUNDED' && (!dating || inSpan(refundInstant(t), dating));
  const line: TransferLine = {
    encounter_id: id,
    transfer: t,
    releasedCents: 0,
    inTransitCents: 0,
    settledCents: 0,
    refundedCents: 0,
    cameBackCents: 0,
    failedCents: 0,
    feeCents: 0,
  };
  if (released || failedHere) {
    money.transfers[t.status] = (money.transfers[t.status] ?? 0) + 1;
    money.feesChargedCents += fee;
    line.feeCents = fee;
  }
  if (failedHere) {
    // No money moved: nothing released; a fee, if the record shows one, was kept.
    money.failedCents += amount;
    money.feesKeptCents += fee;
    line.failedCents = amount;
  }
  if (refundedHere) {
    money.cameBackCents += amount - fee;
    money.feesKeptCents += fee;
    line.cameBackCents = amount - fee;
  }
  if (dating && owedOn) {
    // The latest transfer's exception, in the period of the figure it is about: a failure with
    // the failure, a refund with what came back, a variance or a missing AEOB with the release.
    const kind = transferException(t);
    const here = kind === 'FAILED_TRANSFER' ? failedHere : kind === 'REFUNDED_TRANSFER' ? refundedHere : released;
    if (kind && here) r.exceptions.push(exceptionOf(kind, owedOn, t, npi));
  }
  if (released) addRelease(r, id, t, line, amount, fee);
  if (dating && (released || failedHere || refundedHere)) transferLines.push(line);
}

/** A released transfer: its state's money, its providers' rows, its arrival day and (dated) its reconciliation. */
function addRelease(r: Folding, id: string, t: ReportTransfer, line: TransferLine, amount: number, fee: number): void {
  const { money } = r;
  money.releasedCents += amount;
  line.releasedCents = amount;
  if (t.status === 'INITIATED') line.inTransitCents = amount;
  else if (t.status === 'COMPLETED') line.settledCents = amount;
  else if (t.status === 'REFUNDED') line.refundedCents = amount;
  money.inTransitCents += line.inTransitCents;
  money.settledCents += line.settledCents;
  money.refundedCents += line.refundedCents;
  const stays = t.status === 'INITIATED' || t.status === 'COMPLETED';
  if (stays) money.netCents += amount - fee;
  // Every released payout is its provider's row, refunded since or not: the rows add up to released.
  for (const p of payoutsOf(t, r.npi)) {
    const pFee = cents(p.processor_fee);
    const pay = cents(p.amount);
    const pl = r.providers.get(p.provider_npi) ?? emptyProviderLine(p.provider_npi, p.provider_name);
    pl.payouts++;
    pl.amountCents += pay;
    pl.feeCents += pFee;
    if (stays) pl.netCents += pay - pFee;
    else pl.refundedCents += pay;
    r.providers.set(p.provider_npi, pl);
  }
  if (t.status === 'COMPLETED' && t.completed_at) {
    const day = t.completed_at.slice(0, 10);
    r.perDay.set(day, (r.perDay.get(day) ?? 0) + amount);
  }
  // Dated: each transfer released in the period under its own reconciliation state.
  if (r.dating) reconcile(r.reconciliation, id, t, r.npi);
}

/** The report of the pages folded so far; its sections sorted as they are shown. */
function resultOf(r: Folding): PeriodReport {
  const money = { ...r.money, transfers: { ...r.money.transfers } };
  money.spentCents = money.inTransitCents + money.settledCents + money.feesKeptCents;
  return {
    byStatus: [...r.byStatus.values()].sort((a, b) => a.status.localeCompare(b.status)),
    totals: r.totals,
    superseded: r.superseded,
    corrected: r.corrected,
    money,
    providers: [...r.providers.values()].sort((a, b) => b.amountCents - a.amountCents || a.npi.localeCompare(b.npi)),
    reconciliation: r.reconciliation,
    exceptions: r.exceptions,
    asOfNowExceptionsListed: !r.dating,
    transferLines: [],
    settledPerDay: [...r.perDay].sort(([a], [b]) => a.localeCompare(b)).map(([day, amountCents]) => ({ day, amountCents })),
  };
}
