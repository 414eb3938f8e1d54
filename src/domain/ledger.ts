// Ledger statuses (docs/api.md "Ledger status"); the status filter takes all seven (docs/money-rules.md "The ledger").
export const LEDGER_STATUSES = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED'] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/**
 * The statuses a ledger filter value stands for. A claim goes SUBMITTED → PROCESSING in the same
 * instant, so SUBMITTED (one of the contract's filter values) finds every claim not yet adjudicated;
 * PROCESSING alone still filters as itself. Undefined: no status filter.
 */
export function statusesOf(status: string | undefined): readonly string[] | undefined {
  if (status === 'SUBMITTED') return ['SUBMITTED', 'PROCESSING'];
  return status ? [status] : undefined;
}
