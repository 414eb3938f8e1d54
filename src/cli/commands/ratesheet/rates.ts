// What the ratesheet verbs share about a rate beyond its type's own rules (domain/schedule-rates.ts:
// the check, price, screen and CSV form of each type): how their help names the types and values,
// and the columns of the CSV of export and import.
import { SCHEDULE_RATE_TYPE_NAMES, SCHEDULE_RATE_TYPES } from '../../../domain/schedule-rates.js';

export const CSV_COLUMNS = ['ssp_code', 'rate_type', 'rate_value', 'bundle_type', 'notes'] as const;

/** What a rate value is, by type: "USD for CASE_RATE; a multiple of the Medicare rate for PERCENT_MEDICARE". */
export const RATE_VALUE_HELP = SCHEDULE_RATE_TYPE_NAMES.map((type) => `${SCHEDULE_RATE_TYPES[type].means} for ${type}`).join('; ');
