// `tpa local audit verify --deep`: what the money tables must hold, recomputed from the
// audit chain alone, and every row and column that holds something else. The chain says what was decided
// (each claim's amounts, each transfer, each payout's payee, amount and fee, each settlement
// transition, each reconciliation's outcome, each AEOB change); a row edited behind the engine's
// back, with the chain left whole, disagrees with it. Pure: the engine reads the rows and the chain.
import { canonicalJson, sha256Hex } from './canonical.js';
import type { StoredAudit } from './audit.js';
import { shiftDate } from './adjudication.js';
import { isDisposition, LEDGER_STATUS_OF_DISPOSITION } from './ledger.js';
import { jsonNumberToCents } from './money.js';

export interface ExpectedPayout {
  seq: number;
  processorPayoutId: string;
  providerNpi: string;
  providerRole: string;
  amountCents: number;
  feeCents: number;
  payoutStatus: string;
  statusSeq: number;
}

export interface ExpectedSettlement {
  seq: number;
  encounterId: string;
  attempt: number;
  processorTransferId: string;
  totalCents: number;
  authorizationCode: string;
  status: string;
  statusSeq: number;
  reconciliationStatus: string;
  matchStatus: string | null;
  aeobAmountCents: number | null;
  reconciliationSeq: number;
  /** The refund the chain recorded (SETTLEMENT_REFUNDED), or null: none. */
  refund: ExpectedRefund | null;
  payouts: Map<number, ExpectedPayout>;
}

/** What a SETTLEMENT_REFUNDED record says came back: the row's refund_json must say the same. */
export interface ExpectedRefund {
  seq: number;
  refundId: string;
  /** What came back (the payouts' amounts less the fees kept): refund_json.amount. */
  netCents: number;
  grossCents: number;
  feesKeptCents: number;
}

export interface ExpectedEncounter {
  seq: number;
  disposition: string;
  chargeCents: number;
  allowedCents: number;
  patientCents: number;
  benefitCents: number;
  /** Its member, billing provider and contract as recorded; null in a record made before they were kept. */
  parties: { memberId: string; providerNpi: string; contractId: string } | null;
  /** The digest of who each line pays and how much (linesDigest); null in a record made before it was kept. */
  linesDigest: string | null;
  /** The digest of the whole adjudication (outcomeDigest): every line's charge, code, quantity and share; null before it was kept. */
  outcomeDigest: string | null;
  /** The statuses the last money event may have left (null: none yet, the claim's own outcome decides). */
  moneyStatuses: string[] | null;
  moneySeq: number;
  /** Its AEOB changes are in the chain (submitted once the chain recorded them). */
  aeobTracked: boolean;
  /** Every history entry of it with amounts has its record in the chain (submitted once the chain recorded them all). */
  historyTracked: boolean;
  aeobAdjustmentCents: number;
  aeobMissing: boolean;
  aeobSeq: number;
  /** The chain's records of it, with their amounts in cents: what its history entries' amounts are checked against. */
  events: ExpectedEvent[];
}

/** A record of an encounter's money: when, its type and reference, and every amount it holds (`*_cents`). */
export interface ExpectedEvent {
  seq: number;
  type: string;
  at: string;
  reference: unknown;
  cents: Record<string, number>;
}

export interface ExpectedMoney {
  encounters: Map<string, ExpectedEncounter>;
  settlements: Map<string, ExpectedSettlement>;
  /** Each contract's rates since its first finalized schedule, replayed from SCHEDULE_FINALIZED records. */
  rates: Map<string, ExpectedRates>;
}

/** A contract's rates from `from` on, as the schedules it finalized made them (key: cpt and effective_from). */
export interface ExpectedRates {
  from: string;
  rows: Map<string, { cents: number; to: string | null; seq: number }>;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Where each money event leaves the encounter's ledger status. */
const MONEY_STATUS: Record<string, string> = {
  FUNDING_APPROVED: 'FUNDED',
  SETTLEMENT_INITIATED: 'FUNDED',
  SETTLEMENT_COMPLETED: 'FUNDED',
  RECONCILIATION: 'RECONCILED',
  SETTLEMENT_FAILED: 'ADJUDICATED',
  SETTLEMENT_REFUNDED: 'ADJUDICATED',
  // A corrected claim closed it before funding (docs/money-funding.md "Corrected and void claims").
  REPLACED: 'SUPERSEDED',
  VOIDED: 'VOIDED',
};

/**
 * Replays the chain (already verified whole). `deepFromSeq`: the last record before the chain
 * recorded payouts, reconciliations and AEOB changes; what came before is known only in part.
 */
export function expectedMoney(records: Iterable<StoredAudit>, deepFromSeq: number): ExpectedMoney {
  const encounters = new Map<string, ExpectedEncounter>();
  const settlements = new Map<string, ExpectedSettlement>();
  const rates = new Map<string, ExpectedRates>();
  for (const r of records) {
    const d = JSON.parse(r.data_json) as Record<string, unknown>;
    if (r.type === 'SCHEDULE_FINALIZED') {
      finalizedSchedule(rates, r, d);
      continue;
    }
    if (r.type === 'SUBMISSION') {
      encounters.set(r.subject, {
        seq: r.seq,
        disposition: str(d.disposition),
        chargeCents: num(d.charge_cents),
        allowedCents: num(d.allowed_cents),
        patientCents: num(d.patient_cents),
        benefitCents: num(d.benefit_cents),
        linesDigest: typeof d.lines_sha256 === 'string' ? d.lines_sha256 : null,
        outcomeDigest: typeof d.outcome_sha256 === 'string' ? d.outcome_sha256 : null,
        parties:
          typeof d.member_id === 'string' && typeof d.provider_npi === 'string' && typeof d.contract_id === 'string'
            ? { memberId: d.member_id, providerNpi: d.provider_npi, contractId: d.contract_id }
            : null,
        moneyStatuses: null,
        moneySeq: r.seq,
        aeobTracked: r.seq > deepFromSeq,
        historyTracked: r.seq > deepFromSeq,
        aeobAdjustmentCents: 0,
        aeobMissing: false,
        aeobSeq: r.seq,
        events: [],
      });
      continue;
    }
    const e = encounters.get(r.subject);
    if (e) e.events.push(eventOf(r, d));
    if (e && MONEY_STATUS[r.type]) {
      e.moneyStatuses = [MONEY_STATUS[r.type]!];
      // A reconciliation that did not match leaves the ledger FUNDED (docs/money-funding.md
      // "Settlement"); databases written before that rule show RECONCILED for it.
      if (r.type === 'RECONCILIATION' && str(d.reconciliation_status) === 'UNMATCHED') e.moneyStatuses = ['FUNDED', 'RECONCILED'];
      e.moneySeq = r.seq;
    }
    if (e && r.type === 'AEOB_VARIANCE') {
      e.aeobAdjustmentCents = num(d.aeob_adjustment_cents);
      e.aeobSeq = r.seq;
    }
    if (e && r.type === 'AEOB_MISSING') {
      e.aeobMissing = true;
      e.aeobSeq = r.seq;
    }
    // Transfers and payouts: only those recorded with their settlement record's id.
    const id = str(d.settlement_id);
    if (id === '') continue;
    if (r.type === 'SETTLEMENT_INITIATED') {
      settlements.set(id, {
        seq: r.seq,
        encounterId: r.subject,
        attempt: num(d.attempt),
        processorTransferId: str(d.reference),
        totalCents: num(d.total_cents),
        authorizationCode: str(d.authorization_code),
        status: 'INITIATED',
        statusSeq: r.seq,
        reconciliationStatus: 'PENDING',
        matchStatus: null,
        aeobAmountCents: null,
        reconciliationSeq: r.seq,
        refund: null,
        payouts: new Map(),
      });
      continue;
    }
    const s = settlements.get(id);
    if (!s) continue;
    const payoutsTo = (status: string, zeroFee = false) => {
      for (const p of s.payouts.values()) {
        p.payoutStatus = status;
        p.statusSeq = r.seq;
        if (zeroFee) p.feeCents = 0;
      }
    };
    if (r.type === 'PAYOUT') {
      s.payouts.set(num(d.sequence), {
        seq: r.seq,
        processorPayoutId: str(d.processor_payout_id),
        providerNpi: str(d.provider_npi),
        providerRole: str(d.provider_role),
        amountCents: num(d.amount_cents),
        feeCents: num(d.fee_cents),
        payoutStatus: 'PENDING',
        statusSeq: r.seq,
      });
    } else if (r.type === 'SETTLEMENT_COMPLETED') {
      s.status = 'COMPLETED';
      s.statusSeq = r.seq;
      payoutsTo('COMPLETED');
    } else if (r.type === 'SETTLEMENT_FAILED') {
      // No money moved: no fee was charged.
      s.status = 'FAILED';
      s.statusSeq = r.seq;
      payoutsTo('FAILED', true);
    } else if (r.type === 'SETTLEMENT_REFUNDED') {
      s.status = 'REFUNDED';
      s.statusSeq = r.seq;
      s.matchStatus = str(d.match_status) || s.matchStatus;
      s.reconciliationStatus = str(d.reconciliation_status) || s.reconciliationStatus;
      s.reconciliationSeq = r.seq;
      s.refund = {
        seq: r.seq,
        refundId: str(d.refund_id),
        netCents: num(d.refunded_amount_cents),
        grossCents: num(d.gross_cents),
        feesKeptCents: num(d.fees_kept_cents),
      };
      payoutsTo('RETURNED');
    } else if (r.type === 'RECONCILIATION') {
      s.matchStatus = str(d.match_status);
      s.aeobAmountCents = typeof d.aeob_amount_cents === 'number' ? d.aeob_amount_cents : null;
      s.reconciliationStatus = str(d.reconciliation_status);
      s.reconciliationSeq = r.seq;
    }
  }
  return { encounters, settlements, rates };
}

/**
 * A finalized schedule as the builder applies it to the contract's rates: those starting on its
 * effective date or later go, those still in force then end the day before, and the first rate of
 * each CPT code in schedule order is in force from that date.
 */
function finalizedSchedule(rates: Map<string, ExpectedRates>, r: StoredAudit, d: Record<string, unknown>): void {
  const effective = str(d.effective_date);
  if (effective === '' || !Array.isArray(d.rates)) return;
  const contract = rates.get(r.subject) ?? { from: effective, rows: new Map() };
  if (effective < contract.from) contract.from = effective;
  const dayBefore = shiftDate(effective, -1);
  for (const [key, row] of contract.rows) {
    if (key.split('|')[1]! >= effective) contract.rows.delete(key);
    else if (row.to === null || row.to >= effective) row.to = dayBefore;
  }
  const seen = new Set<string>();
  for (const item of d.rates as Record<string, unknown>[]) {
    const cpt = str(item.cpt);
    if (seen.has(cpt)) continue;
    seen.add(cpt);
    contract.rows.set(`${cpt}|${effective}`, { cents: num(item.allowed_cents), to: null, seq: r.seq });
  }
  rates.set(r.subject, contract);
}

export interface RateFacts {
  contract_id: string;
  cpt_code: string;
  effective_from: string;
  effective_to: string | null;
  negotiated_rate_cents: number;
}

/**
 * A contract rate against the schedules the chain finalized: a rate of a contract that finalized
 * one, in force from the first schedule's date or later, is one a schedule made, with its amount
 * and its end. Rates before (the contract's own, from the seed) are let be.
 */
export function checkRate(row: RateFacts, x: ExpectedRates | undefined): Disagreement[] {
  if (!x || row.effective_from < x.from) return [];
  const key = `${row.contract_id} ${row.cpt_code} from ${row.effective_from}`;
  const expected = x.rows.get(`${row.cpt_code}|${row.effective_from}`);
  if (!expected) return [{ table: 'contract_rates', row: key, column: 'id', expected: 'SCHEDULE_FINALIZED', found: 'a rate', seq: null }];
  return differs('contract_rates', key, [
    ['negotiated_rate_cents', expected.cents, row.negotiated_rate_cents, expected.seq],
    ['effective_to', expected.to, row.effective_to, expected.seq],
  ]);
}

/** The key checkRate names a rate by, for one the chain made that the table no longer has. */
export function rateKey(contractId: string, rowKey: string): string {
  const [cpt, from] = rowKey.split('|');
  return `${contractId} ${cpt} from ${from}`;
}

function eventOf(r: StoredAudit, d: Record<string, unknown>): ExpectedEvent {
  const cents: Record<string, number> = {};
  for (const [k, v] of Object.entries(d)) if (k.endsWith('_cents') && typeof v === 'number') cents[k] = v;
  return { seq: r.seq, type: r.type, at: r.at, reference: d.reference ?? null, cents };
}

/** How many disagreements `--deep` names; it counts them all. */
export const DISAGREEMENTS_SHOWN = 10;

/** A row that disagrees with the chain: where, what the chain says (and in which record), what the row holds. */
export interface Disagreement {
  table: 'encounters' | 'settlements' | 'payouts' | 'history_entries' | 'contract_rates';
  row: string;
  column: string;
  expected: unknown;
  found: unknown;
  /** The audit record that says what the row must hold (null: no record of the row at all). */
  seq: number | null;
}

export interface EncounterFacts {
  id: string;
  /** 1: made since the chain records everything of it (so it must be in the chain). */
  covered: number;
  status: string;
  /** 1 once the claim's outcome was due (the ledger shows it). */
  completed: number;
  disposition: string;
  charge_cents: number;
  allowed_cents: number;
  patient_cents: number;
  benefit_cents: number;
  /** The adjudication's own totals (what funding reads). */
  outcome_charge_cents: number;
  outcome_allowed_cents: number;
  outcome_patient_cents: number;
  outcome_benefit_cents: number;
  /** The adjudication's lines (outcome_json), which funding pays from. */
  outcome_lines: string;
  /** The whole adjudication as stored (outcome_json). */
  outcome_json: string;
  member_id: string;
  provider_npi: string;
  contract_id: string;
  aeob_adjustment_cents: number;
  aeob_missing: number;
}

/** Every column of a row that holds something else than the chain says. */
function differs(table: Disagreement['table'], row: string, pairs: [string, unknown, unknown, number][]): Disagreement[] {
  const found: Disagreement[] = [];
  for (const [column, expected, value, seq] of pairs) if (expected !== value) found.push({ table, row, column, expected, found: value, seq });
  return found;
}

/** Not yet due, a claim is SUBMITTED or PROCESSING; once due, its outcome's status (none for a disposition tpa never writes); then its money's. */
function statusesFor(x: ExpectedEncounter, completed: number): string[] {
  if (x.moneyStatuses !== null) return x.moneyStatuses;
  if (!completed) return ['SUBMITTED', 'PROCESSING'];
  return isDisposition(x.disposition) ? [LEDGER_STATUS_OF_DISPOSITION[x.disposition]] : [];
}

/** Every way an encounter row disagrees with the chain (none: an empty list). */
export function checkEncounter(row: EncounterFacts, x: ExpectedEncounter | undefined): Disagreement[] {
  if (!x) return row.covered ? [{ table: 'encounters', row: row.id, column: 'id', expected: 'SUBMISSION', found: row.id, seq: null }] : [];
  const found = differs('encounters', row.id, [
    ['disposition', x.disposition, row.disposition, x.seq],
    ['charge_cents', x.chargeCents, row.charge_cents, x.seq],
    ['allowed_cents', x.allowedCents, row.allowed_cents, x.seq],
    ['patient_cents', x.patientCents, row.patient_cents, x.seq],
    ['benefit_cents', x.benefitCents, row.benefit_cents, x.seq],
    ['outcome_json totals.chargeCents', x.chargeCents, row.outcome_charge_cents, x.seq],
    ['outcome_json totals.allowedCents', x.allowedCents, row.outcome_allowed_cents, x.seq],
    ['outcome_json totals.patientResponsibilityCents', x.patientCents, row.outcome_patient_cents, x.seq],
    ['outcome_json totals.benefitCents', x.benefitCents, row.outcome_benefit_cents, x.seq],
  ]);
  if (x.parties !== null)
    found.push(
      ...differs('encounters', row.id, [
        ['member_id', x.parties.memberId, row.member_id, x.seq],
        ['provider_npi', x.parties.providerNpi, row.provider_npi, x.seq],
        ['contract_id', x.parties.contractId, row.contract_id, x.seq],
      ]),
    );
  if (x.linesDigest !== null) {
    const digest = linesDigest(JSON.parse(row.outcome_lines) as AuditedLine[]);
    if (digest !== x.linesDigest)
      found.push({
        table: 'encounters',
        row: row.id,
        column: 'outcome_json lines (payee, status, allowed, benefit)',
        expected: x.linesDigest,
        found: digest,
        seq: x.seq,
      });
  }
  if (x.outcomeDigest !== null) {
    let digest: string;
    try {
      digest = outcomeDigest(JSON.parse(row.outcome_json));
    } catch {
      digest = 'unreadable JSON';
    }
    if (digest !== x.outcomeDigest)
      found.push({
        table: 'encounters',
        row: row.id,
        column: 'outcome_json (every line: charge, code, quantity, share and its split; the totals; the disposition)',
        expected: x.outcomeDigest,
        found: digest,
        seq: x.seq,
      });
  }
  const statuses = statusesFor(x, row.completed);
  if (!statuses.includes(row.status))
    found.push({ table: 'encounters', row: row.id, column: 'status', expected: statuses.join(' or '), found: row.status, seq: x.moneySeq });
  if (!x.aeobTracked) return found;
  return [
    ...found,
    ...differs('encounters', row.id, [
      ['aeob_adjustment_cents', x.aeobAdjustmentCents, row.aeob_adjustment_cents, x.aeobSeq],
      ['aeob_missing', x.aeobMissing ? 1 : 0, row.aeob_missing, x.aeobSeq],
    ]),
  ];
}

export interface SettlementFacts {
  id: string;
  covered: number;
  encounter_id: string;
  attempt: number;
  processor_transfer_id: string;
  status: string;
  total_amount_cents: number;
  authorization_code: string;
  reconciliation_status: string;
  match_status: string | null;
  aeob_amount_cents: number | null;
  /** The refund's details as stored (JSON), or null: none. */
  refund_json: string | null;
}

/**
 * A stored refund against the chain's: one present where the chain recorded one and absent where it
 * did not, and its id, amount, gross and fees kept those of the record (amounts compared in cents).
 */
function checkRefund(row: SettlementFacts, x: ExpectedSettlement): Disagreement[] {
  const expected = x.refund;
  if (row.refund_json === null) {
    return expected === null ? [] : [{ table: 'settlements', row: row.id, column: 'refund_json', expected: 'a refund', found: null, seq: expected.seq }];
  }
  if (expected === null) return [{ table: 'settlements', row: row.id, column: 'refund_json', expected: null, found: 'a refund', seq: x.statusSeq }];
  let stored: Record<string, unknown>;
  try {
    const parsed = JSON.parse(row.refund_json) as unknown;
    stored = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return [{ table: 'settlements', row: row.id, column: 'refund_json', expected: 'a refund', found: 'unreadable JSON', seq: expected.seq }];
  }
  const cents = (v: unknown) => jsonNumberToCents(v) ?? null;
  return differs('settlements', row.id, [
    ['refund_json refund_id', expected.refundId, stored.refund_id ?? null, expected.seq],
    ['refund_json amount (cents)', expected.netCents, cents(stored.amount), expected.seq],
    ['refund_json gross_amount (cents)', expected.grossCents, cents(stored.gross_amount), expected.seq],
    ['refund_json fees_not_returned (cents)', expected.feesKeptCents, cents(stored.fees_not_returned), expected.seq],
  ]);
}

/** Every way a settlement row disagrees with the chain (none: an empty list). */
export function checkSettlement(row: SettlementFacts, x: ExpectedSettlement | undefined): Disagreement[] {
  if (!x) return row.covered ? [{ table: 'settlements', row: row.id, column: 'id', expected: 'SETTLEMENT_INITIATED', found: row.id, seq: null }] : [];
  return [...settlementColumns(row, x), ...checkRefund(row, x)];
}

function settlementColumns(row: SettlementFacts, x: ExpectedSettlement): Disagreement[] {
  return differs('settlements', row.id, [
    ['encounter_id', x.encounterId, row.encounter_id, x.seq],
    ['attempt', x.attempt, row.attempt, x.seq],
    ['processor_transfer_id', x.processorTransferId, row.processor_transfer_id, x.seq],
    ['total_amount_cents', x.totalCents, row.total_amount_cents, x.seq],
    ['authorization_code', x.authorizationCode, row.authorization_code, x.seq],
    ['status', x.status, row.status, x.statusSeq],
    ['reconciliation_status', x.reconciliationStatus, row.reconciliation_status, x.reconciliationSeq],
    ['match_status', x.matchStatus, row.match_status, x.reconciliationSeq],
    ['aeob_amount_cents', x.aeobAmountCents, row.aeob_amount_cents, x.reconciliationSeq],
  ]);
}

export interface PayoutFacts {
  settlement_id: string;
  sequence: number;
  processor_payout_id: string;
  provider_npi: string;
  provider_role: string;
  amount_cents: number;
  fee_cents: number;
  payout_status: string;
}

/**
 * Every way a payout row disagrees with the chain (none: an empty list). `settlement` undefined: the
 * payout's transfer is not in the chain (made before it recorded payouts).
 */
export function checkPayout(row: PayoutFacts, settlement: ExpectedSettlement | undefined): Disagreement[] {
  if (!settlement) return [];
  const key = `${row.settlement_id} #${row.sequence}`;
  const x = settlement.payouts.get(row.sequence);
  if (!x)
    return [{ table: 'payouts', row: key, column: 'sequence', expected: `payouts 1 to ${settlement.payouts.size}`, found: row.sequence, seq: settlement.seq }];
  return differs('payouts', key, [
    ['provider_npi', x.providerNpi, row.provider_npi, x.seq],
    ['provider_role', x.providerRole, row.provider_role, x.seq],
    ['processor_payout_id', x.processorPayoutId, row.processor_payout_id, x.seq],
    ['amount_cents', x.amountCents, row.amount_cents, x.seq],
    ['fee_cents', x.feeCents, row.fee_cents, x.statusSeq > x.seq && x.feeCents === 0 ? x.statusSeq : x.seq],
    ['payout_status', x.payoutStatus, row.payout_status, x.statusSeq],
  ]);
}

export interface HistoryFacts {
  encounter_id: string;
  seq: number;
  type: string;
  timestamp: string;
  reference: string | null;
  financial_impact_json: string | null;
}

/**
 * The amounts of a ledger history entry (what `ledger show` and `settlement show` list) against the
 * chain: an entry of a money event (a fund release, a transfer settled, failed or refunded) holds
 * the amounts its record holds (`transfer_amount` is the record's `transfer_amount_cents`), and a
 * claim's adjudication entry the benefit its SUBMISSION recorded. Of a claim the chain records
 * whole (`historyTracked`), each entry with amounts is ONE record's: an entry no record made (an
 * invented release or refund) and a second entry for a record one already answers (a duplicated
 * release) are disagreements. `matched` holds the records already answered, across the calls of one
 * verification. An encounter the chain does not know, or knows only in part, is let be.
 */
export function checkHistoryEntry(row: HistoryFacts, x: ExpectedEncounter | undefined, matched: Set<number>): Disagreement[] {
  if (!x || row.financial_impact_json === null) return [];
  const key = `${row.encounter_id} #${row.seq}`;
  let impact: Record<string, unknown>;
  try {
    const parsed = JSON.parse(row.financial_impact_json) as unknown;
    // The engine writes an object of amounts, or nothing: a list or a bare value in its place is not
    // "no amounts" (`ledger show` gives it back as it is).
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return [
        {
          table: 'history_entries',
          row: key,
          column: 'financial_impact_json',
          expected: 'an object of amounts',
          found: Array.isArray(parsed) ? 'a list' : parsed === null ? 'null' : `a ${typeof parsed}`,
          seq: x.seq,
        },
      ];
    impact = parsed as Record<string, unknown>;
  } catch {
    return [{ table: 'history_entries', row: key, column: 'financial_impact_json', expected: 'amounts', found: 'unreadable JSON', seq: x.seq }];
  }
  if (row.type === 'ADJUDICATION') {
    // One adjudication entry per claim: the SUBMISSION record holds its amounts (the benefit; the
    // copay and coinsurance split is not recorded). Any other amount is none the adjudication wrote.
    if (x.historyTracked && once(matched, x.seq)) return [secondEntry(key, x.seq)];
    const foreign: Disagreement[] = Object.keys(impact)
      .filter((k) => !ADJUDICATION_AMOUNTS.has(k))
      .map((k) => ({ table: 'history_entries', row: key, column: `financial_impact ${k}`, expected: 'none on an adjudication', found: impact[k], seq: x.seq }));
    return [
      ...foreign,
      ...('benefit_amount' in impact
        ? differs('history_entries', key, [
            ['financial_impact benefit_amount (cents)', x.benefitCents, jsonNumberToCents(impact.benefit_amount) ?? null, x.seq],
          ])
        : []),
    ];
  }
  // Two records alike (a release failed and approved again within one second, one code) are two
  // entries: each entry takes the first record of its kind not yet answered.
  const alike = x.events.filter(
    (e) =>
      e.at === row.timestamp &&
      e.reference === row.reference &&
      (e.type === row.type || (e.type === 'RECONCILIATION' && row.type.startsWith('RECONCILIATION'))),
  );
  if (alike.length === 0)
    return x.historyTracked
      ? [
          {
            table: 'history_entries',
            row: key,
            column: '(row)',
            expected: `${row.type} (${row.timestamp}, ${row.reference ?? 'no reference'})`,
            found: 'an entry',
            seq: null,
          },
        ]
      : [];
  const event = alike.find((e) => !matched.has(e.seq)) ?? alike[0]!;
  if (x.historyTracked && once(matched, event.seq)) return [secondEntry(key, event.seq)];
  return differs(
    'history_entries',
    key,
    Object.entries(impact).map(([k, v]): [string, unknown, unknown, number] => [
      `financial_impact ${k} (cents)`,
      event.cents[`${k}_cents`] ?? null,
      jsonNumberToCents(v) ?? null,
      event.seq,
    ]),
  );
}

/** The amounts an adjudication's history entry holds (engine/services/reveal.ts). */
const ADJUDICATION_AMOUNTS = new Set(['benefit_amount', 'copay_applied', 'coinsurance_applied']);

/** Marks a record answered by an entry; true when one already was. */
function once(matched: Set<number>, seq: number): boolean {
  if (matched.has(seq)) return true;
  matched.add(seq);
  return false;
}

/** A history entry for a record another entry already answers. */
function secondEntry(row: string, seq: number): Disagreement {
  return { table: 'history_entries', row, column: '(row)', expected: 'one entry', found: 'a second entry', seq };
}

/** A row the chain made that the table no longer has. */
export function missingRow(table: Disagreement['table'], row: string, seq: number): Disagreement {
  return { table, row, column: '(row)', expected: 'a row', found: 'none', seq };
}

/** One sentence for the terminal. */
export function describeDisagreement(d: Disagreement): string {
  const show = (v: unknown) => (v === null ? 'null' : typeof v === 'string' ? v : JSON.stringify(v));
  if (d.seq === null) return `${d.table} ${d.row}: the audit chain has no ${show(d.expected)} record of it`;
  if (d.column === '(row)' && d.found === 'a second entry') return `${d.table} ${d.row}: a second entry for audit record ${d.seq}, which made one`;
  if (d.column === '(row)') return `${d.table} ${d.row}: the row is missing; audit record ${d.seq} made it`;
  return `${d.table} ${d.row}: ${d.column} is ${show(d.found)}, audit record ${d.seq} says ${show(d.expected)}`;
}

/** What of an adjudicated line funding pays from: its payee and its amounts. */
export interface AuditedLine {
  sequence: number;
  providerNpi: string;
  status: string;
  allowedCents: number;
  benefitCents: number;
}

/**
 * The SHA-256 of a claim's whole adjudication as the engine stores it (outcome_json, written once):
 * what the 835 and `ledger show` read of each line (charge, code, quantity, the patient's share and
 * its split, reason) and of the totals, recorded with the claim.
 */
export function outcomeDigest(adjudication: unknown): string {
  return sha256Hex(canonicalJson(adjudication));
}

/**
 * The SHA-256 of who each line of a claim pays and how much, recorded with the claim: a payee or a
 * benefit moved between lines in the stored adjudication, the totals unchanged, is then seen.
 */
export function linesDigest(lines: readonly AuditedLine[]): string {
  return sha256Hex(canonicalJson(lines.map((l) => [l.sequence, l.providerNpi, l.status, l.allowedCents, l.benefitCents])));
}
