// What `fund approve`, `fund run` and `tpa demo` share for showing payouts before money moves: the
// payouts an approval will make, read from the encounter's ledger detail.
import type { LedgerDetail } from '../../../client/types.js';
import type { ProviderRole } from '../../../domain/fhir-claim.js';
import { jsonNumberToCents } from '../../../domain/money.js';
import { splitPayouts, type PayoutShare } from '../../../domain/settlement.js';
import { EXIT, TpaError } from '../../../errors.js';

/** An amount from the service in cents; one that is missing or not money is an error, never 0. */
function cents(amount: unknown, what: string): number {
  const c = typeof amount === 'number' ? jsonNumberToCents(amount) : undefined;
  if (c === undefined)
    throw new TpaError(EXIT.INTERNAL, 'bad_amount', `the service gave ${what} as ${JSON.stringify(amount)}, not an amount; nothing was sent`);
  return c;
}

/**
 * The payouts the approval will make, by the same rule the engine applies (docs/money-funding.md "Settlement").
 * Service lines that do not name their provider (a service without tpa's extra fields) are all
 * counted as the billing provider's.
 */
export function reviewPayouts(detail: LedgerDetail): PayoutShare[] {
  const billing = detail.encounter.provider;
  const lines = detail.service_lines.map((l) => ({
    providerNpi: l.provider_npi ?? billing.npi,
    providerName: l.provider_name ?? billing.name,
    providerRole: (l.provider_role ?? billing.role ?? 'FACILITY') as ProviderRole,
    benefitCents: cents(l.benefit_amount, `the benefit of line ${l.sequence}`),
  }));
  return splitPayouts(lines, benefitOf(detail));
}

/** The encounter's adjudicated benefit, in cents: what an approval releases. */
export function benefitOf(detail: LedgerDetail): number {
  return cents(detail.financial_summary.payer_responsibility?.total, 'the benefit amount');
}
