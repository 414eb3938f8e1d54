// What `tpa settlement remit` writes an 835 from (docs/x12-835.md "835 out"): a transfer's settlement
// record and the ledger detail of its encounter, read through the client so that the embedded engine
// and a remote service serve alike; the CLM01 of claims that came in an 837, from the claim journals
// of this machine; the interchange control number, one more each file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isClosedStatus } from '../domain/ledger.js';
import { formatCentsGrouped, jsonNumberToCents } from '../domain/money.js';
import type { RemitLine, RemitTransaction } from '../domain/x12-835.js';
import { ConflictError, NetworkError, NotFoundError, PendingError } from '../errors.js';
import type { TpaClient } from '../client/client.js';
import { encounterNumber, resolveEncounter } from '../client/encounter-ref.js';
import { journalPaths } from './job-journals.js';
import { journalsDir, readJournal } from './journal.js';
import type { LedgerDetail, LedgerServiceLine, SettlementRecord, SettlementTransfer } from '../client/types.js';

/**
 * The CLM01 of each encounter whose claim came in an 837 and was sent from this machine: the
 * claim journals' `sending` records carry `clm01` under the claim's journal identity, and their
 * `acknowledged` records the same identity with `external_claim_id`, the encounter id.
 */
export function clm01ByEncounter(dataDir: string): Map<string, string> {
  const clm01 = new Map<string, string>();
  const encounter = new Map<string, string>();
  for (const path of journalPaths(journalsDir(dataDir))) {
    try {
      readJournal(path, (r) => {
        if (typeof r.claim !== 'string') return;
        if (r.type === 'sending' && typeof r.clm01 === 'string' && r.clm01 !== '') clm01.set(r.claim, r.clm01);
        if (r.type === 'acknowledged' && typeof r.external_claim_id === 'string' && r.external_claim_id !== '') encounter.set(r.claim, r.external_claim_id);
      });
    } catch {
      // A journal that cannot be read names no claim: its encounters are remitted under their numbers.
    }
  }
  const out = new Map<string, string>();
  for (const [claim, id] of encounter) {
    const c = clm01.get(claim);
    if (c !== undefined) out.set(id, c);
  }
  return out;
}

/**
 * The journals' CLM01s as a map read on first use, once: a service that returns each claim's
 * `patient_control_number` never has them read.
 */
export function lazyClm01(dataDir: string): Pick<ReadonlyMap<string, string>, 'get'> {
  let map: Map<string, string> | undefined;
  return {
    get(encounterId: string) {
      map ??= clm01ByEncounter(dataDir);
      return map.get(encounterId);
    },
  };
}

/** A transfer and the encounter it paid. */
export interface FoundTransfer {
  transfer: SettlementTransfer;
  detail: LedgerDetail;
  /** How to remit it: a REFUNDED transfer is its reversal unless its payment is asked for (a period it was paid in). */
  as?: 'payment' | 'reversal';
}

/**
 * The transfer `ref` names: an encounter (its id or ENC number: its latest transfer) or a processor
 * transfer id, looked for first through this machine's fund history (`dataDir`: the approval that
 * made it names its encounter), else in the settlement records of every encounter ever funded, the
 * earlier transfers included. Not funded yet: exit 7; unknown: exit 3.
 */
export async function findTransfer(
  client: TpaClient,
  ref: string,
  onProgress?: (p: { read: number; total: number }) => void,
  dataDir?: string,
): Promise<FoundTransfer | FoundNotice> {
  let record: SettlementRecord | undefined;
  let encounterId: string | undefined;
  try {
    encounterId = await resolveEncounter(client, ref);
    const s = await client.settlement(encounterId);
    if (s.status === 202) {
      // Adjudicated with nothing to pay: no transfer will ever follow, and its 835 is a notice.
      const detail = (await client.ledgerDetail(encounterId)).body;
      if (paysNothing(detail)) return { notice: detail };
      throw new PendingError(`encounter ${encounterId} has no transfer yet (${s.body.status}): an 835 is written for a transfer`, {
        hint: `see where it stands: tpa settlement show ${encounterId}`,
      });
    }
    record = s.body as SettlementRecord;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    // A claim closed after its transfer FAILED or was REFUNDED: that transfer is history, and its 835 is still its own.
    const history = (err.body as { history?: SettlementRecord } | undefined)?.history;
    if (history && encounterId) return { transfer: history, detail: (await client.ledgerDetail(encounterId)).body };
    // A denied encounter has no settlement and never will: its 835 is a notice of the denial.
    if (encounterId) {
      const detail = await client.ledgerDetail(encounterId).then(
        (r) => r.body,
        () => undefined,
      );
      if (detail && paysNothing(detail)) return { notice: detail };
      // Closed by a corrected claim before funding: nothing was paid, and nothing will be.
      const status = detail?.encounter.status;
      if (status !== undefined && isClosedStatus(status))
        throw new NotFoundError(
          `encounter ${encounterId} was ${status === 'SUPERSEDED' ? 'replaced by a corrected claim' : 'voided'} before funding: it has no transfer and no 835`,
          {
            code: 'no_settlement',
            hint:
              status === 'SUPERSEDED'
                ? 'its replacement’s 835 is written once the replacement is funded (tpa ledger show names it)'
                : 'a voided claim is never paid',
          },
        );
    }
    if (encounterNumber(ref)) throw err;
  }
  if (record && encounterId) return { transfer: record, detail: (await client.ledgerDetail(encounterId)).body };
  const wanted = ref.trim();
  const inRecord = async (id: string, s: SettlementRecord | null | Error | undefined): Promise<FoundTransfer | undefined> => {
    if (!s || s instanceof Error) return undefined;
    const transfer = transfersOf(s).find((t) => t.processor_transfer_id === wanted);
    return transfer ? { transfer, detail: (await client.ledgerDetail(id)).body } : undefined;
  };
  // This machine's fund history first: the approval that made the transfer names its encounter.
  for (const id of dataDir ? await approvedEncounters(dataDir, wanted) : []) {
    const s = await client.settlement(id).catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
    const found = await inRecord(id, s?.status === 200 ? (s.body as SettlementRecord) : null);
    if (found) return found;
  }
  // Else every encounter ever funded, their settlement records read a few at a time, paced.
  const [{ entriesWithEvent }, { readSettlements }] = await Promise.all([import('../client/activity.js'), import('../client/settlement-reads.js')]);
  const { entries } = await entriesWithEvent(client, {}, 'funded', { startMs: Number.NEGATIVE_INFINITY, endMs: Number.POSITIVE_INFINITY }, onProgress);
  const records = await readSettlements(
    client,
    entries.map((e) => e.encounter_id),
  );
  for (const [id, s] of records) {
    const found = await inRecord(id, s);
    if (found) return found;
  }
  throw new NotFoundError(`no encounter or transfer ${ref.trim()}`, {
    code: 'transfer_not_found',
    hint: 'name an encounter (enc_… or ENC-2026-000002) or a processor transfer id, as tpa settlement show prints it',
  });
}

/** The encounters whose approval on this machine made transfer `transferId` (none when there is no history). */
async function approvedEncounters(dataDir: string, transferId: string): Promise<string[]> {
  const { FundHistory, historyPath } = await import('./fund-history.js');
  if (!existsSync(historyPath(dataDir))) return [];
  try {
    return [
      ...new Set(
        FundHistory.read(dataDir)
          .filter((a) => a.processor_transfer_id === transferId)
          .map((a) => a.encounter_id),
      ),
    ];
  } catch {
    // A history that cannot be read names nothing: the ledger is searched.
    return [];
  }
}

/** An encounter adjudicated with nothing to pay (denied, or a benefit of 0.00): no transfer follows; its 835 is a notice. */
export interface FoundNotice {
  notice: LedgerDetail;
}

/** Whether an encounter is adjudicated and pays nothing: DENIED, or every line's benefit 0.00 (a pended one is not final). */
function paysNothing(detail: LedgerDetail): boolean {
  const status = detail.encounter.status;
  if (status === 'DENIED') return true;
  if (status !== 'ADJUDICATED' && status !== 'RECONCILED') return false;
  return (
    detail.service_lines.length > 0 &&
    detail.service_lines.every((l) => l.benefit_amount !== null && cents(l.benefit_amount, `line ${l.sequence}: benefit_amount`) === 0)
  );
}

/** A settlement record's transfers: the latest and the earlier ones (failed or refunded). */
export function transfersOf(record: SettlementRecord): SettlementTransfer[] {
  return [...(record.previous_transfers ?? []), record];
}

/**
 * What a period remits, chosen by event (docs/x12-835.md "835 out"): each transfer that **arrived**
 * inside the span (its `completed_at`, the 835's BPR16 effective date) as its payment (a REFUNDED
 * one too: it was paid then), and each transfer refunded inside it (its
 * `refund_details.refunded_at`) as its reversal: every payment in exactly one period, whatever the
 * cut. A transfer still in transit is in the 835 of the period it arrives in. The encounters are
 * those the ledger shows settled or refunded in the span (activity's arrival step), their service
 * dates read from the filters' (every one up to the span's last day, unless a partial read was
 * asked for), each with its detail; in the order of the events.
 */
export async function transfersInPeriod(
  client: TpaClient,
  filters: { start_date?: string; end_date?: string; provider_npi?: string },
  span: { startMs: number; endMs: number },
  onProgress?: (p: { read: number; total: number; waitingMs?: number }) => void,
): Promise<{ found: FoundTransfer[]; entriesRead: number; inTransit: number }> {
  const [{ eachEntry }, { entryEvents, stepKinds }, { refundInstant, inSpan }] = await Promise.all([
    import('../client/activity.js'),
    import('../domain/activity.js'),
    import('../domain/report.js'),
  ]);
  const ids: string[] = [];
  // Funded in the span and not arrived yet (its latest step is the funding): its payment is in the
  // 835 of the period it arrives in, which the note of an empty period says.
  let inTransit = 0;
  const entriesRead = await eachEntry(
    client,
    filters,
    (rows) => {
      for (const row of rows) {
        const kinds = entryEvents(row, span).map((e) => e.kind);
        if (kinds.includes('settled') || kinds.includes('refunded')) ids.push(row.encounter_id);
        if (kinds.includes('funded') && stepKinds(row.status_progression).at(-1) === 'funded') inTransit++;
      }
    },
    onProgress,
  );
  const records = await settlementsOf(client, ids);
  const pickedOf = new Map<string, { transfer: SettlementTransfer; as?: 'payment' | 'reversal'; at: string }[]>();
  for (const [i, id] of ids.entries()) {
    const record = records[i];
    if (!record) continue;
    const picked: { transfer: SettlementTransfer; as?: 'payment' | 'reversal'; at: string }[] = [];
    for (const t of transfersOf(record)) {
      if ((t.status === 'COMPLETED' || t.status === 'REFUNDED') && inSpan(t.completed_at, span))
        picked.push({ transfer: t, as: t.status === 'REFUNDED' ? 'payment' : undefined, at: t.completed_at! });
      const refunded = t.status === 'REFUNDED' ? refundInstant(t) : null;
      if (refunded !== null && inSpan(refunded, span)) picked.push({ transfer: t, as: 'reversal', at: refunded });
    }
    if (picked.length > 0) pickedOf.set(id, picked);
  }
  // Each picked encounter's detail, a few at a time, paced (settlement-reads.ts), not one round trip after another.
  const { readLedgerDetails } = await import('../client/settlement-reads.js');
  const details = await readLedgerDetails(client, [...pickedOf.keys()]);
  const found: { one: FoundTransfer; at: string }[] = [];
  for (const [id, picked] of pickedOf) {
    const detail = details.get(id);
    if (!detail || detail instanceof Error) throw new Error(`no ledger detail for encounter ${id}`);
    for (const p of picked) found.push({ one: { transfer: p.transfer, detail, ...(p.as ? { as: p.as } : {}) }, at: p.at });
  }
  const rank = (f: FoundTransfer) => (f.as === 'reversal' ? 1 : 0);
  return {
    found: found
      .sort(
        (a, b) =>
          a.at.localeCompare(b.at) || a.one.transfer.processor_transfer_id.localeCompare(b.one.transfer.processor_transfer_id) || rank(a.one) - rank(b.one),
      )
      .map((f) => f.one),
    entriesRead,
    inTransit,
  };
}

/** The settlement records of these encounters (undefined: none yet), read a few at a time, paced (settlement-reads.ts). */
async function settlementsOf(client: TpaClient, ids: readonly string[]): Promise<(SettlementRecord | undefined)[]> {
  const { readSettlements } = await import('../client/settlement-reads.js');
  const read = await readSettlements(client, ids);
  return ids.map((id) => {
    const s = read.get(id);
    return s && !(s instanceof Error) ? s : undefined;
  });
}

/** Why a transfer has no 835: failed (no money moved: exit 4) or not final yet (exit 7). */
export interface NoRemittance {
  transferId: string;
  encounterId: string;
  status: string;
  why: string;
}

const cents = (value: unknown, what: string): number => {
  if (value === null || value === undefined) return 0;
  const c = jsonNumberToCents(value);
  if (c === undefined)
    throw new NetworkError(`the service's answer cannot be written as an 835: ${what} is not an amount in cents: ${JSON.stringify(value)}`, {
      code: 'answer_unusable',
    });
  return c;
};

const day = (iso: string | null | undefined, fallback: string): string => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : fallback);

/** A line as the 835 takes it; its date its own (the service's `service_date`), else the encounter's; `payee` the provider it is paid to. */
function remitLine(l: LedgerServiceLine, encounterDate: string, payee?: string): RemitLine {
  const what = `line ${l.sequence}`;
  const deductibleCents = cents(l.deductible_applied, `${what}: deductible_applied`);
  const coinsuranceCents = cents(l.coinsurance_applied, `${what}: coinsurance_applied`);
  const copayCents = cents(l.copay_applied, `${what}: copay_applied`);
  return {
    sequence: l.sequence,
    // A revenue-code-only line has no procedure code (null).
    cptCode: l.cpt_code ?? '',
    modifiers: Array.isArray(l.modifiers) ? l.modifiers : [],
    controlNumber: typeof l.line_control_number === 'string' && l.line_control_number !== '' ? l.line_control_number : null,
    revenueCode: typeof l.revenue_code === 'string' && l.revenue_code !== '' ? l.revenue_code : null,
    remarkCodes: Array.isArray(l.remark_codes) ? l.remark_codes.filter((c): c is string => typeof c === 'string' && c !== '') : [],
    payeeNpi: payee ?? l.provider_npi ?? null,
    serviceDate: l.service_date ?? encounterDate,
    // As sent, whole or decimal (drug and time units); a service that gives none: 1.
    units: typeof l.quantity === 'number' && Number.isFinite(l.quantity) && l.quantity > 0 ? l.quantity : 1,
    chargeCents: cents(l.submitted_charge, `${what}: submitted_charge`),
    allowedCents: cents(l.allowed_amount, `${what}: allowed_amount`),
    deductibleCents,
    coinsuranceCents,
    copayCents,
    patientCents:
      l.patient_responsibility === null || l.patient_responsibility === undefined
        ? deductibleCents + coinsuranceCents + copayCents
        : cents(l.patient_responsibility, `${what}: patient_responsibility`),
    paidCents: cents(l.benefit_amount, `${what}: benefit_amount`),
    status: l.status,
    denialCode: l.denial_code ?? null,
    includedElsewhereCents: cents(l.anesthesia_deducted, `${what}: anesthesia_deducted`),
  };
}

/**
 * The 835 transactions of one transfer, one per payee (or the one `npi` names): a COMPLETED
 * transfer pays each payout's provider (BPR I) and tells a provider of the lines that is paid nothing
 * (BPR H); a REFUNDED one reverses each payout (CLP02 22). A FAILED transfer, or one not final yet,
 * has none: `none` says why.
 */
export function remitTransactions(
  found: FoundTransfer,
  claimIds: Pick<ReadonlyMap<string, string>, 'get'>,
  npi?: string,
): { transactions: RemitTransaction[]; none?: NoRemittance } {
  const { transfer: t, detail } = found;
  const enc = detail.encounter;
  const none = notRemitted(t, enc.encounter_number);
  if (none) return { transactions: [], none };
  const byNpi = linesByPayee(detail, lineOwner(t, enc), (who) => t.payouts.find((p) => p.provider_npi === who)?.provider_name);
  const common = claimCommon(detail, t.processor_transfer_id, claimIds);
  const refunded = found.as === undefined ? t.status === 'REFUNDED' : found.as === 'reversal';
  if (refunded) checkReversal(t, enc.encounter_number);
  const refundDay = day(t.refund_details?.refunded_at, day(t.completed_at, day(t.initiated_at, enc.service_date)));
  const transactions = payoutTransactions(t, enc.service_date, { common, byNpi, npi, refunded, refundDay });
  // What a notice and the billing provider's copy say alike: the payment's dates and trace, or the refund's.
  const trace = refunded ? (t.refund_details?.refund_id ?? `${t.processor_transfer_id}-REV`) : t.processor_transfer_id;
  const dates = refunded
    ? { production: refundDay, effective: refundDay }
    : { production: day(t.initiated_at, enc.service_date), effective: day(t.completed_at, day(t.initiated_at, enc.service_date)) };
  // A provider of the lines whom the transfer pays nothing (its lines denied, or its benefit 0.00) is
  // told so, once, with the payment; and told of the reversal with the refund, as every payee and the
  // billing provider's copy are: a payer reversing a claim reverses it for every payee it told.
  const payoutNpis = new Set(t.payouts.map((p) => p.provider_npi));
  for (const [who, entry] of byNpi) {
    if (payoutNpis.has(who) || (npi !== undefined && who !== npi)) continue;
    const owed = entry.lines.reduce((s, l) => s + l.paidCents, 0);
    // An 835 that leaves out money the lines say is owed would mislead the payee: refused.
    if (entry.lines.some((l) => l.paidCents !== 0))
      throw new ConflictError(
        `transfer ${t.processor_transfer_id} of ${enc.encounter_number} pays nothing to ${who}, whose lines have a benefit of ${formatCentsGrouped(owed)}: the 835 would leave that money out, so none is written`,
      );
    const notice = noticeTo(common, who, entry, dates, trace);
    transactions.push(refunded ? { ...notice, reverses: true } : notice);
  }
  // The billing provider's copy (of the payment, or of its reversal when it had the copy of the
  // payment: its books took the claim as paid, and are told it came back).
  const copy = billingCopy(detail, common, byNpi, npi, dates, trace);
  if (copy) transactions.push(refunded ? { ...copy, reverses: true } : copy);
  return { transactions };
}

type Transfer = FoundTransfer['transfer'];

/** Why a transfer has no 835: FAILED (no money moved), or not final yet; undefined when it has one. */
function notRemitted(t: Transfer, encounterNumber: string): NoRemittance | undefined {
  const base = { transferId: t.processor_transfer_id, encounterId: t.encounter_id, status: t.status };
  if (t.status === 'FAILED')
    return {
      ...base,
      why: `transfer ${t.processor_transfer_id} of ${encounterNumber} FAILED${t.failed_at ? ` on ${t.failed_at.slice(0, 10)}` : ''}: no money moved, so there is nothing to remit`,
    };
  if (t.status !== 'COMPLETED' && t.status !== 'REFUNDED')
    return { ...base, why: `transfer ${t.processor_transfer_id} of ${encounterNumber} is ${t.status}: its 835 is written once the transfer is COMPLETED` };
  return undefined;
}

/** Whose each line is: the service says (tpa's engine does); else the one payee, or the encounter's provider. */
function lineOwner(t: Transfer, enc: LedgerDetail['encounter']): (l: LedgerServiceLine) => string {
  return (l) => {
    if (l.provider_npi) return l.provider_npi;
    if (t.payouts.length === 1) return t.payouts[0]!.provider_npi;
    if (t.payouts.length === 0) return enc.provider.npi;
    throw new ConflictError(
      `the ledger of ${enc.encounter_number} does not say which provider each service line is for, and transfer ${t.processor_transfer_id} pays ${t.payouts.length}: the lines cannot be remitted to their payees`,
    );
  };
}

/** A reversal is of a REFUNDED transfer, and PLB 72 gives back each payout's net: together they are what the refund says came back. */
function checkReversal(t: Transfer, encounterNumber: string): void {
  if (t.status !== 'REFUNDED')
    throw new ConflictError(`transfer ${t.processor_transfer_id} of ${encounterNumber} is ${t.status}, not REFUNDED: it has no reversal`);
  if (t.refund_details?.amount === undefined || t.refund_details.amount === null) return;
  const back = t.payouts.reduce(
    (sum, p) => sum + cents(p.amount, `payout ${p.sequence}: amount`) - cents(p.processor_fee, `payout ${p.sequence}: processor_fee`),
    0,
  );
  const said = cents(t.refund_details.amount, 'refund_details.amount');
  if (back !== said)
    throw new ConflictError(
      `transfer ${t.processor_transfer_id} of ${encounterNumber}: its refund is ${formatCentsGrouped(said)} but its payouts' net is ${formatCentsGrouped(back)}: the reversal would not say what came back, so none is written`,
    );
}

/** One transaction per payout (of the payee `npi` names, if it names one), its lines' benefit equal to the payout. */
function payoutTransactions(
  t: Transfer,
  serviceDate: string,
  of: {
    common: ReturnType<typeof claimCommon>;
    byNpi: ReturnType<typeof linesByPayee>;
    npi: string | undefined;
    refunded: boolean;
    refundDay: string;
  },
): RemitTransaction[] {
  const { common, byNpi, npi, refunded, refundDay } = of;
  const transactions: RemitTransaction[] = [];
  for (const p of t.payouts) {
    if (npi !== undefined && p.provider_npi !== npi) continue;
    const lines = byNpi.get(p.provider_npi)?.lines ?? [];
    const paymentCents = cents(p.amount, `payout ${p.sequence}: amount`);
    const feeCents = cents(p.processor_fee, `payout ${p.sequence}: processor_fee`);
    const linesPay = lines.reduce((s, l) => s + l.paidCents, 0);
    if (linesPay !== paymentCents)
      throw new ConflictError(
        `payout ${p.sequence} of transfer ${t.processor_transfer_id} pays ${p.provider_npi} ${formatCentsGrouped(paymentCents)} but the benefit of its lines is ${formatCentsGrouped(linesPay)}: the 835 would not balance, so none is written`,
      );
    transactions.push({
      ...common,
      // A reversal has a trace of its own (the refund's), so that a posting system that knows each
      // remittance by its trace never takes it for a copy of the payment.
      ...(refunded ? { transferId: t.refund_details?.refund_id ?? `${t.processor_transfer_id}-REV` } : {}),
      kind: refunded ? 'reversal' : 'payment',
      payee: { npi: p.provider_npi, name: p.provider_name },
      lines,
      paymentCents,
      feeCents,
      payoutId: p.processor_payout_id ?? null,
      refundId: t.refund_details?.refund_id ?? null,
      productionDate: refunded ? refundDay : day(p.payout_date, day(t.initiated_at, serviceDate)),
      effectiveDate: refunded ? refundDay : day(t.completed_at, day(p.expected_arrival, day(t.initiated_at, serviceDate))),
    });
  }
  return transactions;
}

/**
 * The billing provider's copy of a claim whose lines are all paid to other providers (rendering
 * providers with contracts of their own, under the direct-payee rule): the provider whose CLM01 it
 * is would otherwise get no 835 of it. Information only (BPR H, 0.00): every line of the claim, each
 * with `REF*HPI` naming the provider it was paid to, and a PLB `CS:<NPI>` for each payee's part, so
 * that it moves no money. None when the billing provider is a payee of a line (it gets its own
 * transaction, which names its lines only), or when `npi` names another provider.
 */
function billingCopy(
  detail: LedgerDetail,
  common: ReturnType<typeof claimCommon>,
  byNpi: Map<string, { name: string; lines: RemitLine[] }>,
  npi: string | undefined,
  dates: { production: string; effective: string },
  trace: string = common.transferId,
): RemitTransaction | undefined {
  const billing = detail.encounter.provider;
  if (byNpi.has(billing.npi) || (npi !== undefined && npi !== billing.npi) || byNpi.size === 0) return undefined;
  const lines = [...byNpi.values()].flatMap((e) => e.lines).sort((a, b) => a.sequence - b.sequence);
  const paidToOthers = [...byNpi].map(([who, e]) => ({ npi: who, cents: e.lines.reduce((s, l) => s + l.paidCents, 0) }));
  // A notice (BPR H, 0.00) of every line, with a trace of its own: it is information, not the
  // payment (or the reversal) its payees post.
  return { ...noticeTo(common, billing.npi, { name: billing.name, lines }, dates), transferId: `${trace}-INFO`, kind: 'copy', paidToOthers };
}

/** The service lines of an encounter by the provider each is for (`lineNpi`), in their order. */
function linesByPayee(
  detail: LedgerDetail,
  lineNpi: (l: LedgerServiceLine) => string,
  payoutName: (npi: string) => string | undefined = () => undefined,
): Map<string, { name: string; lines: RemitLine[] }> {
  const enc = detail.encounter;
  const byNpi = new Map<string, { name: string; lines: RemitLine[] }>();
  for (const l of [...detail.service_lines].sort((a, b) => a.sequence - b.sequence)) {
    const who = lineNpi(l);
    const entry = byNpi.get(who) ?? { name: l.provider_name ?? payoutName(who) ?? enc.provider.name, lines: [] };
    entry.lines.push(remitLine(l, enc.service_date, who));
    byNpi.set(who, entry);
  }
  return byNpi;
}

/** What every transaction of one claim says alike: its trace, payer, CLP01, CLP07, patient, date received. */
function claimCommon(detail: LedgerDetail, transferId: string, claimIds: Pick<ReadonlyMap<string, string>, 'get'>) {
  const enc = detail.encounter;
  // The CLM01 the service keeps with the claim; else the journals of this machine (asked only then).
  const pcn = typeof enc.patient_control_number === 'string' && enc.patient_control_number.trim() !== '' ? enc.patient_control_number : undefined;
  const p = enc.payer;
  const a = p.address;
  const c = p.technical_contact;
  return {
    transferId,
    payer: {
      name: p.name,
      id: p.id,
      taxId: typeof p.tax_id === 'string' ? p.tax_id : null,
      address: a ? { line1: a.line1, line2: a.line2 ?? null, city: a.city, state: a.state, postalCode: a.postal_code } : null,
      contact: c ? { name: c.name ?? null, phone: c.phone ?? null, email: c.email ?? null, url: c.url ?? null } : null,
    },
    claimId: pcn ?? claimIds.get(enc.id) ?? enc.encounter_number,
    encounterId: enc.id,
    facilityTypeCode: typeof enc.facility_type_code === 'string' ? enc.facility_type_code : null,
    claimFrequencyCode: typeof enc.claim_frequency_code === 'string' ? enc.claim_frequency_code : null,
    patient: { memberId: enc.patient.member_id, name: enc.patient.name },
    // As the service sent it: the writer refuses a date that is not one rather than cut it.
    receivedDate: enc.submission_date ?? null,
  };
}

/**
 * A notice (BPR H, 0.00) to one provider of the claim's lines, dated as given. With a transfer's
 * `trace` (the payment's or the refund's), its own: `<trace>-NOTICE`, since it moves none of that
 * transfer's money; without, the claim's (a claim paid nothing has no transfer to be taken for).
 */
function noticeTo(
  common: ReturnType<typeof claimCommon>,
  npi: string,
  entry: { name: string; lines: RemitLine[] },
  dates: { production: string; effective: string },
  trace?: string,
): RemitTransaction {
  return {
    ...common,
    ...(trace !== undefined ? { transferId: `${trace}-NOTICE` } : {}),
    kind: 'notice',
    payee: { npi, name: entry.name },
    lines: entry.lines,
    paymentCents: 0,
    feeCents: 0,
    payoutId: null,
    refundId: null,
    productionDate: dates.production,
    effectiveDate: dates.effective,
  };
}

/**
 * The 835 of an encounter adjudicated with nothing to pay (FoundNotice): one notice (BPR H, 0.00) to
 * each provider of its lines, the lines with their denial's CARC or the patient's share, so that the
 * provider can post the denial. Its trace (TRN02) is the AEOB reference, else the encounter id: no
 * transfer was made.
 */
export function noticeTransactions(detail: LedgerDetail, claimIds: Pick<ReadonlyMap<string, string>, 'get'>, npi?: string): RemitTransaction[] {
  const enc = detail.encounter;
  const byNpi = linesByPayee(detail, (l) => l.provider_npi ?? enc.provider.npi);
  const common = claimCommon(detail, detail.reconciliation?.aeob_reference ?? enc.id, claimIds);
  const decided = detail.entries.find((e) => e.type === 'DENIED' || e.type === 'ADJUDICATION')?.timestamp;
  const date = day(decided, day(enc.submission_date, enc.service_date));
  const out: RemitTransaction[] = [];
  for (const [who, entry] of byNpi) {
    if (npi !== undefined && who !== npi) continue;
    out.push(noticeTo(common, who, entry, { production: date, effective: date }));
  }
  const copy = billingCopy(detail, common, byNpi, npi, { production: date, effective: date });
  if (copy) out.push(copy);
  return out;
}

const CONTROL_FILE = 'x12-control-number';

/**
 * The next interchange control number (ISA13) of this data directory: one more than the last
 * written, from 1, wrapping after 999,999,999. Read and written under a lock (journal-lock.ts's
 * kernel lock), so two remits at once never take the same number; the file is replaced whole, so
 * a crash leaves the old number or the new one. A lock held more than 10 s: exit 4.
 */
export async function nextControlNumber(dataDir: string): Promise<number> {
  return withControlNumber(dataDir, (last) => (last >= 999_999_999 ? 1 : last + 1));
}

/** The last interchange control number this data directory wrote (0: none yet); a backup carries it. */
export function lastControlNumber(dataDir: string): number {
  try {
    const n = Number(readFileSync(join(dataDir, CONTROL_FILE), 'utf8').trim());
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  } catch {
    return 0;
  }
}

/**
 * After a restore: the data directory's counter set to the larger of its own and the backup's
 * (`carried`), so that no ISA13 written before the backup was taken, here or where it was taken, is
 * written again.
 */
export async function raiseControlNumber(dataDir: string, carried: number): Promise<number> {
  return withControlNumber(dataDir, (last) => Math.max(last, carried));
}

/** The counter read, changed by `step` and written, under its lock; the value written. */
async function withControlNumber(dataDir: string, step: (last: number) => number): Promise<number> {
  const { holdExclusively, letGo } = await import('./journal-lock.js');
  const { replaceWhole } = await import('../files/write-whole.js');
  const path = join(dataDir, CONTROL_FILE);
  // Another user's data folder is refused before the number is read or written there.
  (await import('./journal.js')).ownDataDir(dataDir, true);
  const what = 'the lock of the X12 control number';
  const deadline = Date.now() + 10_000;
  let lock = await holdExclusively(`${path}.lock`, what);
  while (!lock && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    lock = await holdExclusively(`${path}.lock`, what);
  }
  if (!lock)
    throw new ConflictError(`${what} (${path}.lock) is held by another tpa: no 835 written`, { hint: 'run the command again once the other remit has ended' });
  try {
    const last = lastControlNumber(dataDir);
    const next = step(last);
    if (next !== last) replaceWhole(path, `${next}\n`);
    return next;
  } finally {
    letGo(lock);
  }
}
