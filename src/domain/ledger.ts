// Ledger statuses (SPEC.md "Ledger status"); the status filter takes all seven (DESIGN.md section 4).
export const LEDGER_STATUSES = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED'] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];
