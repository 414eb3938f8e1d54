// What happened in a span of time, read from the ledger's status progressions (docs/periods.md
// "What the events are"): each change of an entry's status is an event of one kind, dated by its
// timestamp. Pure: the entries and the span are given.
import { jsonNumberToCents } from './money.js';
import { type InstantSpan, spanHolds } from './period.js';

export const ACTIVITY_KINDS = ['submitted', 'adjudicated', 'pended', 'denied', 'funded', 'settled', 'failed', 'refunded', 'superseded', 'voided'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Which amount of the entry an event of each kind carries. */
export const KIND_AMOUNT: Record<ActivityKind, 'charges' | 'benefit_amount'> = {
  submitted: 'charges',
  adjudicated: 'benefit_amount',
  pended: 'charges',
  denied: 'charges',
  funded: 'benefit_amount',
  settled: 'benefit_amount',
  failed: 'benefit_amount',
  refunded: 'benefit_amount',
  // A claim a corrected claim replaced or voided: its charges withdrawn, as a denial's are refused.
  superseded: 'charges',
  voided: 'charges',
};

/** The fields of a ledger entry (list item) that events are read from. */
export interface ActivityEntry {
  encounter_id: string;
  encounter_number: string;
  service_date: string;
  provider: { npi: string; name: string };
  status_progression: readonly { status: string; timestamp: string }[];
  financial_summary: Record<string, number | null | undefined>;
}

export interface ActivityEvent {
  time: string;
  kind: ActivityKind;
  encounter_id: string;
  encounter_number: string;
  service_date: string;
  provider_npi: string;
  provider_name: string;
  /** Per KIND_AMOUNT; null when the entry has no such amount (not adjudicated). */
  amountCents: number | null;
}

/** A span of time: from startMs, inclusive, to endMs, exclusive. */
export type Span = InstantSpan;

/**
 * The kind of each step of a progression, or undefined for a step that is no event of its own
 * (PROCESSING, which comes with the submission). A transfer arrives as RECONCILED when its
 * settlement matched the AEOB, else as a second FUNDED (the money arrived, not reconciled): either
 * is `settled`. A FUNDED after RECONCILED is a reconciliation that no longer holds (an AEOB stated
 * later): no money moved, no event. A return to ADJUDICATED from a transfer that had not arrived is
 * a failed transfer, from one that had, a refunded one: the benefit is owed again, which is no new
 * adjudication. The one place the ledger's sign of arrival is read: `tpa activity` (settled,
 * refunded), `ledger list --by settled` and the period 835s' in-transit count.
 */
export function stepKinds(progression: readonly { status: string }[]): (ActivityKind | undefined)[] {
  let previous: string | undefined;
  // Whether the latest transfer has arrived.
  let arrived = false;
  return progression.map(({ status }) => {
    const after = previous;
    previous = status;
    switch (status) {
      case 'SUBMITTED':
        return 'submitted';
      case 'ADJUDICATED': {
        const back = after === 'FUNDED' || after === 'RECONCILED';
        const kind = !back ? 'adjudicated' : arrived || after === 'RECONCILED' ? 'refunded' : 'failed';
        arrived = false;
        return kind;
      }
      case 'PENDED':
        return 'pended';
      case 'DENIED':
        return 'denied';
      case 'FUNDED':
        if (after === 'RECONCILED') return undefined;
        if (after === 'FUNDED') {
          if (arrived) return undefined;
          arrived = true;
          return 'settled';
        }
        arrived = false;
        return 'funded';
      case 'RECONCILED':
        if (arrived) return undefined;
        arrived = true;
        return 'settled';
      case 'SUPERSEDED':
        return 'superseded';
      case 'VOIDED':
        return 'voided';
      default:
        return undefined;
    }
  });
}

/**
 * One provider's share of an entry (`tpa activity --npi`, docs/periods.md "With --npi"): the
 * charges and benefit of its own lines (the lines it is the payee of), and its payouts in each
 * transfer of the entry, in the order the transfers were made. The shares of an entry's providers
 * add up to the entry, so the providers' activity adds up to the whole.
 */
export interface ProviderShare {
  chargesCents: number;
  /** null when none of its lines has a benefit yet. */
  benefitCents: number | null;
  transferCents: readonly number[];
}

/**
 * A provider's share of an entry from its ledger detail's lines (each line's payee, `provider_npi`;
 * a line that names none is the billing provider's) and its transfers' payouts (earliest first).
 * An entry whose detail has no lines at all is the billing provider's whole.
 */
export function providerShare(
  npi: string,
  entry: ActivityEntry,
  lines: readonly { provider_npi?: string | null; submitted_charge: number; benefit_amount: number | null }[] | undefined,
  transfers: readonly { payouts: readonly { provider_npi: string; amount: number }[] }[],
): ProviderShare {
  let chargesCents = 0;
  let benefitCents: number | null = null;
  if (!lines || lines.length === 0) {
    if (npi === entry.provider.npi) {
      chargesCents = jsonNumberToCents(entry.financial_summary.charges) ?? 0;
      benefitCents = jsonNumberToCents(entry.financial_summary.benefit_amount) ?? null;
    }
  } else {
    for (const l of lines) {
      if ((l.provider_npi || entry.provider.npi) !== npi) continue;
      chargesCents += jsonNumberToCents(l.submitted_charge) ?? 0;
      const b = jsonNumberToCents(l.benefit_amount);
      if (b !== undefined) benefitCents = (benefitCents ?? 0) + b;
    }
  }
  const transferCents = transfers.map((t) => t.payouts.filter((p) => p.provider_npi === npi).reduce((sum, p) => sum + (jsonNumberToCents(p.amount) ?? 0), 0));
  return { chargesCents, benefitCents, transferCents };
}

/** The amount an event carries: the entry's (KIND_AMOUNT), or one provider's share of it. */
function eventAmount(entry: ActivityEntry, kind: ActivityKind, transfer: number, share: ProviderShare | undefined): number | null {
  if (!share) return jsonNumberToCents(entry.financial_summary[KIND_AMOUNT[kind]]) ?? null;
  if (KIND_AMOUNT[kind] === 'charges') return share.chargesCents;
  if (kind === 'adjudicated') return share.benefitCents;
  return share.transferCents[transfer] ?? 0;
}

/**
 * The events of one entry inside the span, oldest first. A timestamp that is not one is no event.
 * With a provider's share, each event's amount is that provider's (ProviderShare): a funded,
 * settled, failed or refunded event its payouts in the transfer the event belongs to (the latest
 * one funded before it).
 */
export function entryEvents(entry: ActivityEntry, span: Span, share?: ProviderShare): ActivityEvent[] {
  const kinds = stepKinds(entry.status_progression);
  const events: ActivityEvent[] = [];
  let transfer = -1;
  entry.status_progression.forEach((step, i) => {
    const kind = kinds[i];
    if (kind === 'funded') transfer++;
    const ms = Date.parse(step.timestamp);
    if (kind === undefined || !spanHolds(span, ms)) return;
    events.push({
      time: step.timestamp,
      kind,
      encounter_id: entry.encounter_id,
      encounter_number: entry.encounter_number,
      service_date: entry.service_date,
      provider_npi: entry.provider.npi,
      provider_name: entry.provider.name,
      amountCents: eventAmount(entry, kind, transfer, share),
    });
  });
  return events;
}

export interface KindTotal {
  kind: ActivityKind;
  count: number;
  amountCents: number;
}

/** Count and amount of each kind, every kind listed (zero included), in ACTIVITY_KINDS order. */
export function activityTotals(events: readonly ActivityEvent[], kinds: readonly ActivityKind[] = ACTIVITY_KINDS): KindTotal[] {
  const totals = new Map<ActivityKind, KindTotal>(kinds.map((kind) => [kind, { kind, count: 0, amountCents: 0 }]));
  for (const e of events) {
    const t = totals.get(e.kind);
    if (!t) continue;
    t.count++;
    t.amountCents += e.amountCents ?? 0;
  }
  return [...totals.values()];
}

/** Events in time order; at one instant, in the order of the lifecycle, then by encounter. */
export function sortEvents(events: ActivityEvent[]): ActivityEvent[] {
  const rank = new Map(ACTIVITY_KINDS.map((k, i) => [k, i]));
  const keyed = events.map((e) => ({ e, ms: Date.parse(e.time) }));
  keyed.sort(
    (a, b) =>
      a.ms - b.ms || rank.get(a.e.kind)! - rank.get(b.e.kind)! || (a.e.encounter_id < b.e.encounter_id ? -1 : a.e.encounter_id > b.e.encounter_id ? 1 : 0),
  );
  return keyed.map((k) => k.e);
}
