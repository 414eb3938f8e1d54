// The events a sequence is made of, and the figures both the reference model and the engine's
// answers are turned into, so that they can be compared field by field.

export interface LineEvent {
  code: string;
  date: string;
  /** The unit price in cents; the line's charge is unitCents × quantity. */
  unitCents: number;
  quantity: number;
  /** The care-team member the line names (its NPI); absent: the billing provider. */
  careTeam?: string;
  /** The line's procedure modifiers; absent: none. */
  modifiers?: string[];
  /** The sender's line control number (FHIR item extension `urn:tpa:x12:ref6r`); absent: none sent. */
  control?: string;
}

export type Scenario = 'settlement-failure' | 'refund' | 'aeob-variance' | 'missing-aeob';

export type Event =
  | { kind: 'claim'; billing: string; member: string; lines: LineEvent[]; preauthorization: boolean }
  /** Fund approval of the n-th claim of the sequence (counted from 0, modulo the claims so far). */
  | { kind: 'fund'; claim: number }
  | { kind: 'simulate'; scenario: Scenario; claim: number }
  /** The engine clock moves forward. */
  | { kind: 'advance'; hours: number }
  /** `tpa local clock set` to some hours before the clock: refused (exit 2) before a recorded event. */
  | { kind: 'clock-back'; hours: number }
  /** A builder schedule finalized: BLD-1002's case rates for Dr. Morgan from `effective`. */
  | { kind: 'finalize'; rates: { code: string; cents: number }[]; effective: string };

export interface Sequence {
  /** The engine clock at the start (ISO, UTC). */
  start: string;
  events: Event[];
}

export interface LineFigures {
  status: string;
  denial_code: string | null;
  allowed: number | null;
  copay: number | null;
  deductible: number | null;
  coinsurance: number | null;
  patient: number | null;
  benefit: number | null;
  payee: string;
}

export interface ClaimFigures {
  /** The submission's HTTP status (201, 404). */
  http: number;
  disposition?: string;
  denial_code?: string | null;
  allowed?: number | null;
  copay?: number | null;
  deductible?: number | null;
  coinsurance?: number | null;
  patient?: number | null;
  benefit?: number | null;
  lines?: LineFigures[];
}

export interface PayoutFigures {
  npi: string;
  role: string;
  amount: number;
  /** Absent for a failed transfer (its fee and net are not compared: it moved nothing). */
  fee?: number;
  net?: number;
  status: string;
}

export interface TransferFigures {
  status: string;
  total: number;
  payouts: PayoutFigures[];
  reconciliation_status: string;
  aeob: { aeob_amount: number | null; settlement_amount: number; variance: number; match_status: string } | null;
  refund: { amount: number; gross: number; fees_not_returned: number } | null;
}

export interface EncounterFigures {
  ledger_status: string;
  balance_status: string;
  /** Every transfer, oldest first (previous_transfers, then the current one). */
  transfers: TransferFigures[];
  /** A pended claim that a later claim sent again (the ledger's `superseded_by`). */
  superseded: boolean;
}

export const MONEY_KEYS = [
  'funded',
  'in_transit',
  'settled',
  'failed',
  'refunded',
  'processor_fees',
  'net_to_providers',
  'came_back',
  'fees_charged',
  'fees_kept',
  'spent',
] as const;
export type MoneyKey = (typeof MONEY_KEYS)[number];

export interface ReportFigures {
  by_status: Record<string, { count: number; charges: number; allowed: number; patient: number; benefit: number }>;
  /**
   * funded: released to the processor (in transit, settled, refunded); processor_fees: of the
   * transfers in transit or settled; came_back: the refunds' amounts (net of the fees kept);
   * fees_charged: on every transfer but a failed one; fees_kept: the fees of refunded transfers;
   * spent: funded − came_back. The engine's report is compared on those of them it prints.
   */
  money: Partial<Record<MoneyKey, number>>;
  providers: Record<string, { payouts: number; amount: number; refunded: number; fees: number; net: number }>;
  reconciliation: { matched: [number, number]; variance: number[]; missing_aeob: [number, number]; not_reconciled: number };
}

/** A report with nothing in it yet (every money key at 0), and the function that adds to its money. */
export function emptyReport(): { report: ReportFigures; add: (key: MoneyKey, cents: number) => void } {
  const report: ReportFigures = {
    by_status: {},
    money: Object.fromEntries(MONEY_KEYS.map((k) => [k, 0])),
    providers: {},
    reconciliation: { matched: [0, 0], variance: [], missing_aeob: [0, 0], not_reconciled: 0 },
  };
  return { report, add: (key, cents) => void (report.money[key] = (report.money[key] ?? 0) + cents) };
}

/** What one event answered: its HTTP status and, for a refusal, the reason. */
export interface Answer {
  http: number;
  reason?: string;
}

export interface Outcome {
  /** One answer per event, in order (claims: their figures). */
  answers: (Answer | ClaimFigures)[];
  /** Per accepted claim (201), in order of submission: its encounter at the end. */
  encounters: EncounterFigures[];
  report?: ReportFigures;
}
