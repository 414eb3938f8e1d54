// Settlement rules (docs/api-resources.md "Settlement", docs/money-funding.md "Settlement"): payouts per care-team provider in
// proportion to the benefit of their lines, the processor fee, T+1 business day, AEOB matching.
import { allocate, mulDivRound } from './money.js';
import type { ProviderRole } from './fhir-claim.js';

export interface BenefitLine {
  providerNpi: string;
  providerName: string;
  providerRole: ProviderRole;
  benefitCents: number;
}

export interface PayoutShare {
  sequence: number;
  providerNpi: string;
  providerName: string;
  providerRole: ProviderRole;
  amountCents: number;
  feeCents: number;
  netCents: number;
}

/** Funding `notes` limit (docs/api.md "Limits"). */
export const MAX_FUNDING_NOTES = 500;

const ROLE_ORDER: readonly ProviderRole[] = ['FACILITY', 'SURGEON', 'ANESTHESIA', 'PATHOLOGY'];

// mutation: no survivors (the fee and the payout split)
/** The processor's fee per payout: 2.2% of the amount, rounded half away from zero to the cent, plus 0.30. */
export function processorFeeCents(amountCents: number): number {
  return mulDivRound(amountCents, 22, 1000) + 30;
}

/**
 * Splits a transfer over the providers of the lines, in proportion to the benefit of each
 * provider's lines; the payouts add up to the total exactly (no payouts for a zero total). Providers whose lines carry no
 * benefit get no payout (unless no line carries any, when the split is equal).
 */
export function splitPayouts(lines: readonly BenefitLine[], totalCents: number): PayoutShare[] {
  if (totalCents <= 0) return [];
  const byProvider = new Map<string, { npi: string; name: string; role: ProviderRole; benefitCents: number }>();
  for (const line of lines) {
    const p = byProvider.get(line.providerNpi) ?? { npi: line.providerNpi, name: line.providerName, role: line.providerRole, benefitCents: 0 };
    p.benefitCents += line.benefitCents;
    byProvider.set(line.providerNpi, p);
  }
  let providers = [...byProvider.values()].sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || a.npi.localeCompare(b.npi));
  if (providers.some((p) => p.benefitCents > 0)) providers = providers.filter((p) => p.benefitCents > 0);
  const amounts = allocate(
    totalCents,
    providers.map((p) => p.benefitCents),
  );
  return providers.map((p, i) => {
    const amountCents = amounts[i]!;
    // A payout smaller than the flat part of the fee cannot pay a fee larger than itself.
    const feeCents = Math.min(processorFeeCents(amountCents), amountCents);
    return { sequence: i + 1, providerNpi: p.npi, providerName: p.name, providerRole: p.role, amountCents, feeCents, netCents: amountCents - feeCents };
  });
}
// mutation: end

/** The same time of day, `days` business days later (Saturday and Sunday skipped; UTC). */
export function addBusinessDays(from: Date, days: number): Date {
  const d = new Date(from.getTime());
  let left = days;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    const weekday = d.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return d;
}

export type MatchStatus = 'EXACT' | 'VARIANCE' | 'MISSING_AEOB';

/** AEOB reconciliation: EXACT when equal, VARIANCE when they differ, MISSING_AEOB without an AEOB. */
export function reconcile(aeobCents: number | null, settlementCents: number): { matchStatus: MatchStatus; varianceCents: number } {
  if (aeobCents === null) return { matchStatus: 'MISSING_AEOB', varianceCents: settlementCents };
  const varianceCents = settlementCents - aeobCents;
  return { matchStatus: varianceCents === 0 ? 'EXACT' : 'VARIANCE', varianceCents };
}

/** What a refund brings back: what the providers received (net), the processor keeping its fees. */
export interface RefundAmounts {
  netCents: number;
  grossCents: number;
  feesCents: number;
}

/**
 * A refund returns what reached the providers: each payout's `net_to_provider` (amount − fee). The
 * processor's fees were spent on the transfer and do not come back (docs/api.md: `total_amount` is the
 * amount before fees, `net_to_provider` what the provider received).
 */
export function refundAmounts(payouts: readonly { amountCents: number; feeCents: number }[]): RefundAmounts {
  let grossCents = 0;
  let feesCents = 0;
  for (const p of payouts) {
    grossCents += p.amountCents;
    feesCents += p.feeCents;
  }
  return { netCents: grossCents - feesCents, grossCents, feesCents };
}

/**
 * The amount a transfer leaves settled with the providers toward the benefit: all of it once
 * COMPLETED (or on its way), none once it FAILED (no money moved) or was REFUNDED (it came back).
 */
export function settledCents(status: string, totalCents: number): number {
  return status === 'FAILED' || status === 'REFUNDED' ? 0 : totalCents;
}

/**
 * What a payout brought its provider: the amount less the fee, and nothing when the transfer FAILED
 * (no money moved: no fee was charged and nothing was paid).
 */
export function payoutNetCents(payoutStatus: string, amountCents: number, feeCents: number): number {
  return payoutStatus === 'FAILED' ? 0 : amountCents - feeCents;
}

/** The AEOB amount of the simulated variance: 12.34 less than the benefit, never below 0.00. */
export function varianceAeobCents(benefitCents: number, varianceCents: number): number {
  return Math.max(0, benefitCents - varianceCents);
}
