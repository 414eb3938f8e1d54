// The review of a payment run, before anything is confirmed: the payouts each approval will make,
// the totals per provider, and with --npi what the same transfers carry to the other providers.
// The summary is shown on stderr before the confirmation; every encounter by `fund run --dry-run`
// (a table with the summary last, or data).
import type { RunPlan } from '../../../jobs/payment-run.js';
import { centsToAmount, formatCentsGrouped } from '../../../domain/money.js';
import { emptyProviderLine, type ProviderLine } from '../../../domain/report.js';
import type { PayoutShare } from '../../../domain/settlement.js';
import { count } from '../../../render/format.js';
import type { TableTools } from '../../../render/output.js';
import { wrapProse } from '../../../render/text.js';
import type { Context } from '../../context.js';
import { counter } from '../../status-line.js';
import { reviewPayouts } from './review.js';

export interface Review {
  plan: RunPlan;
  providers: ProviderLine[];
  /** Each encounter's payouts, as the approval will make them. */
  payouts: Map<string, PayoutShare[]>;
  /** --npi: the provider the selection was made for (the others' payouts ride on the same transfers). */
  npi?: string;
  /** The payer of most of the encounters: the organisation of the authorization codes offered. */
  payer?: string;
}

/** The payouts the approvals will make (the engine's rule, docs/money-funding.md "Settlement"): per encounter, and the totals per provider. */
export async function reviewOf(ctx: Context, plan: RunPlan, npi: string | undefined): Promise<Review> {
  const client = await ctx.client();
  const totals = new Map<string, ProviderLine>();
  const byEncounter = new Map<string, PayoutShare[]>();
  const payers = new Map<string, number>();
  let n = 0;
  const reviewing = counter(ctx.status, 'reviewing', 'encounters');
  for (const e of plan.encounters) {
    const detail = (await client.ledgerDetail(e.encounter_id)).body;
    const payouts: PayoutShare[] = reviewPayouts(detail);
    byEncounter.set(e.encounter_id, payouts);
    const payer = detail.encounter.payer?.id;
    if (payer) payers.set(payer, (payers.get(payer) ?? 0) + 1);
    for (const p of payouts) {
      const t = totals.get(p.providerNpi) ?? emptyProviderLine(p.providerNpi, p.providerName);
      t.payouts++;
      t.amountCents += p.amountCents;
      t.feeCents += p.feeCents;
      t.netCents += p.netCents;
      totals.set(p.providerNpi, t);
    }
    reviewing(++n, plan.encounters.length);
  }
  ctx.status.clear();
  const providers = [...totals.values()].sort((a, b) => b.amountCents - a.amountCents || a.npi.localeCompare(b.npi));
  const payer = [...payers.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  return { plan, providers, payouts: byEncounter, ...(npi !== undefined ? { npi } : {}), ...(payer !== undefined ? { payer } : {}) };
}

/**
 * With --npi: funding is per encounter (one approval for its whole benefit), so a run for one
 * provider releases whole encounters, the other providers' payouts with it. The review says so,
 * with those payouts, before anything is confirmed (docs/jobs.md "Payment runs").
 */
function splitByNpi(r: Review, encounterId?: string): { mineCents: number; othersCents: number; others: ProviderLine[] } {
  const ids = encounterId === undefined ? [...r.payouts.keys()] : [encounterId];
  let mineCents = 0;
  let othersCents = 0;
  for (const id of ids) {
    for (const p of r.payouts.get(id) ?? []) {
      if (p.providerNpi === r.npi) mineCents += p.amountCents;
      else othersCents += p.amountCents;
    }
  }
  return { mineCents, othersCents, others: r.providers.filter((p) => p.npi !== r.npi) };
}

/**
 * The providers the review above a confirmation shows at most: with the lines around them, the
 * total and the prompt stay on an 80×24 screen (docs/approval.md "Approval screens"); the others are
 * counted, and listed by the command given.
 */
export const MAX_REVIEW_PROVIDERS = 6;

/**
 * The review on a screen: with `encounters`, every encounter first (a dry run's listing); then the
 * summary (count and total, with --npi what goes to the others, the payouts, fees and nets per
 * provider) last, so that it is what stands above the confirmation however long the run. Above a
 * confirmation (`listAll`: the command that lists everything), at most MAX_REVIEW_PROVIDERS
 * providers, the largest, and a line for the rest. Each provider is one line: its name is cut with …
 * before its NPI or an amount is touched.
 */
export function reviewText(t: TableTools, r: Review, heading: string, encounters: boolean, listAll?: string): string {
  const money = (c: number) => formatCentsGrouped(c);
  const e = r.plan.encounters;
  const split = r.npi !== undefined ? splitByNpi(r) : undefined;
  const shown = listAll !== undefined && r.providers.length > MAX_REVIEW_PROVIDERS + 1 ? r.providers.slice(0, MAX_REVIEW_PROVIDERS) : r.providers;
  const lines: string[] = [];
  if (encounters)
    lines.push(
      split
        ? t.table(
            [
              { header: 'Authorization', drop: 2 },
              'Encounter',
              { header: 'Service date', drop: 1 },
              { header: 'Provider', drop: 3 },
              { header: 'Amount', align: 'right' },
              { header: `To ${r.npi}`, align: 'right' },
              { header: 'To others', align: 'right' },
            ],
            e.map((x) => {
              const one = splitByNpi(r, x.encounter_id);
              return [
                x.authorization_code,
                x.encounter_id,
                x.service_date,
                x.provider_name,
                money(x.amount_cents),
                money(one.mineCents),
                money(one.othersCents),
              ];
            }),
            { list: true },
          )
        : t.table(
            // A dry run's listing is one line an encounter at any width (the service date, then the
            // authorization code give way on a narrow terminal; json and csv have them all).
            [{ header: 'Authorization', drop: 2 }, 'Encounter', { header: 'Service date', drop: 1 }, 'Provider', { header: 'Amount', align: 'right' }],
            e.map((x) => [x.authorization_code, x.encounter_id, x.service_date, x.provider_name, money(x.amount_cents)]),
            { list: true },
          ),
    );
  lines.push(
    t.c.bold(`${heading}: ${count(e.length)} encounter${e.length === 1 ? '' : 's'}, ${money(r.plan.total_cents)} in all`),
    ...(split && split.othersCents > 0
      ? [
          // Wrapped at spaces as every note is (render/text.ts), never inside an amount or an NPI; each line coloured.
          ...wrapProse(
            `--npi ${r.npi} selects the encounters it is on, and each approval releases its encounter's whole benefit: ${money(split.mineCents)} to ${r.npi}, and ${money(split.othersCents)} to ${split.others.length} other provider${split.others.length === 1 ? '' : 's'} on the same transfers (below).`,
            t.width,
          )
            .split('\n')
            .map((l) => t.c.yellow(l)),
        ]
      : []),
    t.table(
      [
        { header: 'Provider', cut: true },
        'NPI',
        { header: 'Payouts', align: 'right' },
        { header: 'Amount', align: 'right' },
        { header: 'Fees', align: 'right' },
        { header: 'Net', align: 'right' },
      ],
      shown.map((p) => [
        `${split && p.npi !== r.npi ? '(other) ' : ''}${p.name}`,
        p.npi,
        count(p.payouts),
        money(p.amountCents),
        money(p.feeCents),
        money(p.netCents),
      ]),
    ),
  );
  const more = r.providers.length - shown.length;
  if (more > 0) lines.push(wrapProse(`… and ${count(more)} more provider${more === 1 ? '' : 's'}; the list: ${listAll}`, t.width));
  return lines.join('\n');
}

const providerData = (p: ProviderLine) => ({
  npi: p.npi,
  name: p.name,
  payouts: p.payouts,
  amount: centsToAmount(p.amountCents),
  fees: centsToAmount(p.feeCents),
  net: centsToAmount(p.netCents),
});

export function reviewData(r: Review): Record<string, unknown> {
  const split = r.npi !== undefined ? splitByNpi(r) : undefined;
  return {
    count: r.plan.encounters.length,
    total: centsToAmount(r.plan.total_cents),
    filters: r.plan.filters,
    providers: r.providers.map(providerData),
    // --npi: what goes to that provider, and what the same transfers carry to the others.
    ...(split
      ? {
          npi: { npi: r.npi, amount: centsToAmount(split.mineCents), other_providers_amount: centsToAmount(split.othersCents) },
          other_providers: split.others.map(providerData),
        }
      : {}),
    encounters: r.plan.encounters.map((x) => ({
      ...encounterRow(r, x),
      payouts: (r.payouts.get(x.encounter_id) ?? []).map((p) => ({
        provider_npi: p.providerNpi,
        provider_name: p.providerName,
        provider_role: p.providerRole,
        amount: centsToAmount(p.amountCents),
        fee: centsToAmount(p.feeCents),
        net: centsToAmount(p.netCents),
      })),
    })),
  };
}

/** Every field of encounterRow, in its order: the split by provider is there with --npi. */
export const ENCOUNTER_FIELDS = [
  'encounter_id',
  'encounter_number',
  'service_date',
  'provider_npi',
  'provider_name',
  'amount',
  'npi_amount',
  'other_providers_amount',
  'authorization_code',
] as const;

/** The fields of encounterRow: the CSV header, written even when nothing is selected. */
export function encounterColumns(npi: string | undefined): string[] {
  return ENCOUNTER_FIELDS.filter((f) => npi !== undefined || (f !== 'npi_amount' && f !== 'other_providers_amount'));
}

/** An encounter of the review, flat (a csv row); with --npi, its amount to that provider and to the others. */
export function encounterRow(r: Review, x: RunPlan['encounters'][number]) {
  const split = r.npi !== undefined ? splitByNpi(r, x.encounter_id) : undefined;
  return {
    encounter_id: x.encounter_id,
    encounter_number: x.encounter_number,
    service_date: x.service_date,
    provider_npi: x.provider_npi,
    provider_name: x.provider_name,
    amount: centsToAmount(x.amount_cents),
    ...(split ? { npi_amount: centsToAmount(split.mineCents), other_providers_amount: centsToAmount(split.othersCents) } : {}),
    authorization_code: x.authorization_code,
  };
}
