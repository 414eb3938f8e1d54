// What the ratesheet verbs share about a rate: the service's own rules for one, so that a change is
// refused before anything is written, and how a rate is written in the CSV of export and import.
import { checkAmount, checkRateRatio, formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';

export const RATE_TYPES = ['CASE_RATE', 'PERCENT_MEDICARE'];
export const BUNDLE_TYPES = ['CONVENED', 'PROVIDER_ONLY'];
export const CSV_COLUMNS = ['ssp_code', 'rate_type', 'rate_value', 'bundle_type', 'notes'] as const;

/** The service's own rules for a rate, so that an import is refused before anything is written. */
export function rateProblem(rateType: string, value: string): string | undefined {
  if (!RATE_TYPES.includes(rateType)) return `rate type must be ${RATE_TYPES.join(' or ')} (got "${rateType}")`;
  // The rate travels as a JSON number: within these bounds it comes back as the same decimal text.
  const checked = rateType === 'CASE_RATE' ? checkAmount(value) : checkRateRatio(value);
  return 'problem' in checked ? `a ${rateType} rate ${checked.problem}` : undefined;
}

/** A rate as the CSV of export and import writes it: 2100.00 for a case rate, 1.35 for a multiple of Medicare. */
export function formatRate(rateType: string, value: number): string {
  return rateType === 'CASE_RATE' ? value.toFixed(2) : String(value);
}

/** A rate on a screen, as every amount there is written: 2,100.00 for a case rate (grouped), 1.35× for a multiple of Medicare. */
export function rateOnScreen(rateType: string, value: number): string {
  if (rateType !== 'CASE_RATE') return `${value}×`;
  const cents = jsonNumberToCents(value);
  return cents === undefined ? String(value) : formatCentsGrouped(cents);
}
