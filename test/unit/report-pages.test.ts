// The finance desk's report is folded in page by page as the ledger is read (domain/report.ts
// reportAccumulator), so that a period's report holds its figures, never its entries: for any
// ledger and any cut of it into pages, the pages folded in turn give exactly the report of the
// whole ledger at once, by service dates and by the money's own times, for everyone or one payee.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReportEntry, type ReportSettlement, type ReportTransfer, periodReport, reportAccumulator } from '../../src/domain/report.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
const NPIS = ['1234567893', '1045782368', '1196382455'];
const NOW = '2026-03-01T00:00:00Z';

const transfer = fc
  .record({
    start: fc.integer({ min: 0, max: 50 * DAY }),
    arrival: fc.integer({ min: 3_600_000, max: 4 * DAY }),
    status: fc.constantFrom('INITIATED', 'COMPLETED', 'FAILED', 'REFUNDED'),
    match: fc.constantFrom('EXACT', 'VARIANCE', 'MISSING_AEOB', null),
    payouts: fc.array(fc.record({ npi: fc.constantFrom(...NPIS), cents: fc.integer({ min: 1, max: 500_000 }), fee: fc.integer({ min: 0, max: 300 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map(({ start, arrival, status, match, payouts }): ReportTransfer => {
    const at = T0 + start;
    return {
      processor_transfer_id: `tr_${start}`,
      status,
      total_amount: payouts.reduce((s, p) => s + p.cents, 0) / 100,
      payouts: payouts.map((p) => ({ provider_npi: p.npi, provider_name: p.npi, amount: p.cents / 100, processor_fee: p.fee / 100 })),
      reconciliation_status: match === 'EXACT' ? 'MATCHED' : 'UNMATCHED',
      aeob_match: status === 'COMPLETED' && match !== null ? { match_status: match, variance: match === 'EXACT' ? 0 : 1.5 } : null,
      initiated_at: iso(at),
      completed_at: status === 'COMPLETED' || status === 'REFUNDED' ? iso(at + arrival) : null,
      failed_at: status === 'FAILED' ? iso(at + arrival) : null,
      refund_details: status === 'REFUNDED' ? { refunded_at: iso(at + 2 * arrival) } : null,
    };
  });

/** An encounter: any status (pended, sent again, closed by a corrected claim…), with or without transfers. */
const encounter = fc.record({
  status: fc.constantFrom('ADJUDICATED', 'PENDED', 'DENIED', 'FUNDED', 'RECONCILED', 'SUPERSEDED', 'VOIDED'),
  sentAgain: fc.boolean(),
  since: fc.integer({ min: 0, max: 58 * DAY }),
  cents: fc.integer({ min: 0, max: 900_000 }),
  npi: fc.constantFrom(...NPIS),
  transfers: fc.array(transfer, { maxLength: 3 }),
});

const ledger = fc.array(encounter, { minLength: 1, maxLength: 30 }).map((generated) => {
  const entries: ReportEntry[] = [];
  const settlements = new Map<string, ReportSettlement>();
  generated.forEach((g, i) => {
    const id = `enc_${i}`;
    const funded = g.transfers.length > 0;
    entries.push({
      encounter_id: id,
      encounter_number: `ENC-${i}`,
      service_date: '2026-01-15',
      status: g.status,
      status_progression: [
        { status: 'SUBMITTED', timestamp: iso(T0) },
        { status: g.status === 'PENDED' ? 'PENDED' : 'ADJUDICATED', timestamp: iso(T0 + g.since) },
        ...(funded ? [{ status: 'FUNDED', timestamp: iso(T0 + g.since + 1000) }] : []),
      ],
      provider: { npi: g.npi, name: g.npi },
      financial_summary: { charges: g.cents / 100, allowed_amount: g.cents / 200, patient_responsibility: g.cents / 400, benefit_amount: g.cents / 400 },
      superseded_by: g.status === 'PENDED' && g.sentAgain ? `enc_${i + 1000}` : null,
    });
    if (funded) settlements.set(id, { ...g.transfers.at(-1)!, previous_transfers: g.transfers.slice(0, -1) });
  });
  return { entries, settlements };
});

/** The report folded a page at a time, as `tpa settlement report` reads the ledger: each page with its encounters' records. */
function byPages(
  entries: readonly ReportEntry[],
  settlements: ReadonlyMap<string, ReportSettlement>,
  cuts: number[],
  npi: string | undefined,
  dating: { by: 'funded' | 'settled'; startMs: number; endMs: number } | undefined,
) {
  const report = reportAccumulator(NOW, npi, dating);
  const bounds = [0, ...cuts.filter((c) => c < entries.length).sort((a, b) => a - b), entries.length];
  const transferLines = bounds.slice(1).flatMap((end, i) => {
    const page = entries.slice(bounds[i]!, end);
    const mine = new Map([...settlements].filter(([id]) => page.some((e) => e.encounter_id === id)));
    return report.add(page, mine, dating ? page : undefined);
  });
  return { ...report.result(), transferLines };
}

describe('the report folded page by page', () => {
  it('any cut into pages gives the report of the whole ledger at once, every section and line, by service dates and by the money’s times', () => {
    fc.assert(
      fc.property(
        ledger,
        fc.uniqueArray(fc.integer({ min: 1, max: 29 }), { maxLength: 8 }),
        fc.constantFrom(undefined, ...NPIS),
        fc.constantFrom(undefined, 'funded' as const, 'settled' as const),
        ({ entries, settlements }, cuts, npi, by) => {
          const dating = by ? { by, startMs: T0 + 10 * DAY, endMs: T0 + 40 * DAY } : undefined;
          const whole = periodReport(entries, settlements, NOW, npi, dating ? { ...dating, moneyEntries: entries } : undefined);
          expect(byPages(entries, settlements, cuts, npi, dating)).toEqual(whole);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a page folded in adds to what the report holds: the figures so far are those of the pages so far', () => {
    const page = (i: number, cents: number): ReportEntry => ({
      encounter_id: `enc_${i}`,
      encounter_number: `ENC-${i}`,
      service_date: '2026-01-15',
      status: 'ADJUDICATED',
      status_progression: [{ status: 'ADJUDICATED', timestamp: iso(T0) }],
      provider: { npi: NPIS[0]!, name: 'x' },
      financial_summary: { charges: cents / 100, allowed_amount: cents / 100, patient_responsibility: 0, benefit_amount: cents / 100 },
    });
    const report = reportAccumulator(NOW);
    report.add([page(1, 10_050)], new Map());
    expect(report.result().totals).toMatchObject({ count: 1, chargesCents: 10_050 });
    report.add([page(2, 25)], new Map());
    // Each encounter's benefit unfunded since T0, more than three days before NOW: an exception each, in ledger order.
    expect(report.result()).toMatchObject({
      totals: { count: 2, chargesCents: 10_075, benefitCents: 10_075 },
      exceptions: [
        { kind: 'NOT_FUNDED_AFTER_3_DAYS', encounter_id: 'enc_1', amountCents: 10_050 },
        { kind: 'NOT_FUNDED_AFTER_3_DAYS', encounter_id: 'enc_2', amountCents: 25 },
      ],
    });
  });
});
