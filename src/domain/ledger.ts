// Ledger statuses (docs/api.md "Ledger status"); the status filter takes all seven (docs/money-rules.md "The ledger").
export const LEDGER_STATUSES = ['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED'] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];
