// The finance desk's report counted by the money's own times (--by funded, --by settled): for any
// transfers, failures and refunds and any cut of time into periods, each figure of the periods adds
// up to the whole span's, and with --npi the payees' figures add up to everyone's. Transfers are
// generated, some without the times a service need not give (failed_at, refunded_at).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReportEntry, type ReportSettlement, type ReportTransfer, periodReport } from '../../src/domain/report.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
const NPIS = ['1234567893', '1045782368', '1196382455'];

const transfer = fc
  .record({
    start: fc.integer({ min: 0, max: 400 * DAY }),
    arrival: fc.integer({ min: 3_600_000, max: 4 * DAY }),
    later: fc.integer({ min: 3_600_000, max: 60 * DAY }),
    status: fc.constantFrom('INITIATED', 'COMPLETED', 'FAILED', 'REFUNDED'),
    says: fc.boolean(),
    payouts: fc.array(fc.record({ npi: fc.constantFrom(...NPIS), cents: fc.integer({ min: 1, max: 500_000 }), fee: fc.integer({ min: 0, max: 300 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map(({ start, arrival, later, status, says, payouts }): ReportTransfer => {
    const at = T0 + start;
    return {
      processor_transfer_id: `tr_${start}`,
      status,
      total_amount: payouts.reduce((s, p) => s + p.cents, 0) / 100,
      payouts: payouts.map((p) => ({ provider_npi: p.npi, provider_name: p.npi, amount: p.cents / 100, processor_fee: p.fee / 100 })),
      reconciliation_status: 'MATCHED',
      aeob_match: null,
      initiated_at: iso(at),
      completed_at: status === 'COMPLETED' || status === 'REFUNDED' ? iso(at + arrival) : null,
      failed_at: status === 'FAILED' && says ? iso(at + arrival) : null,
      refund_details: status === 'REFUNDED' ? (says ? { refunded_at: iso(at + arrival + later) } : null) : null,
    };
  });

const ledger = fc.array(fc.array(transfer, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }).map((encounters) => {
  const entries: ReportEntry[] = [];
  const settlements = new Map<string, ReportSettlement>();
  encounters.forEach((transfers, i) => {
    const id = `enc_${i}`;
    entries.push({
      encounter_id: id,
      encounter_number: `ENC-${i}`,
      service_date: '2025-12-01',
      status: 'ADJUDICATED',
      status_progression: [],
      provider: { npi: NPIS[0]!, name: 'x' },
      financial_summary: {},
    });
    settlements.set(id, { ...transfers.at(-1)!, previous_transfers: transfers.slice(0, -1) });
  });
  return { entries, settlements };
});

const FIGURES = [
  'releasedCents',
  'inTransitCents',
  'settledCents',
  'refundedCents',
  'cameBackCents',
  'failedCents',
  'feesChargedCents',
  'feesKeptCents',
  'netCents',
  'spentCents',
] as const;
const NOW = '2027-06-01T00:00:00Z';

describe('the report by the money’s own times', () => {
  it('any cut of time: each figure of the periods adds up to the whole span’s; any split of payees to everyone’s', () => {
    fc.assert(
      fc.property(
        ledger,
        fc.constantFrom('funded' as const, 'settled' as const),
        fc.uniqueArray(fc.integer({ min: 1, max: 470 }), { maxLength: 6 }),
        ({ entries, settlements }, by, cutDays) => {
          const whole = { by, startMs: T0, endMs: T0 + 480 * DAY };
          const full = periodReport(entries, settlements, NOW, undefined, whole).money;
          const bounds = [T0, ...cutDays.sort((a, b) => a - b).map((d) => T0 + d * DAY), whole.endMs];
          const parts = bounds.slice(1).map((end, i) => periodReport(entries, settlements, NOW, undefined, { by, startMs: bounds[i]!, endMs: end }).money);
          for (const k of FIGURES)
            expect(
              parts.reduce((s, p) => s + p[k], 0),
              k,
            ).toBe(full[k]);
          const payees = NPIS.map((npi) => periodReport(entries, settlements, NOW, npi, whole).money);
          for (const k of FIGURES)
            expect(
              payees.reduce((s, p) => s + p[k], 0),
              `${k} by payee`,
            ).toBe(full[k]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a failure or refund without its time still falls in one period: the initiation, or the arrival', () => {
    const t: ReportTransfer = {
      processor_transfer_id: 'tr_1',
      status: 'REFUNDED',
      total_amount: 100,
      payouts: [{ provider_npi: NPIS[0]!, provider_name: 'x', amount: 100, processor_fee: 1 }],
      reconciliation_status: 'MATCHED',
      aeob_match: null,
      initiated_at: '2026-03-31T10:00:00Z',
      completed_at: '2026-04-01T10:00:00Z',
      refund_details: null,
    };
    const entries: ReportEntry[] = [
      {
        encounter_id: 'e',
        encounter_number: 'E',
        service_date: '2026-03-01',
        status: 'ADJUDICATED',
        status_progression: [],
        provider: { npi: NPIS[0]!, name: 'x' },
        financial_summary: {},
      },
    ];
    const month = (from: string, to: string) =>
      periodReport(entries, new Map([['e', t]]), NOW, undefined, { by: 'funded', startMs: Date.parse(from), endMs: Date.parse(to) }).money;
    expect(month('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z')).toMatchObject({ releasedCents: 10_000, refundedCents: 10_000, cameBackCents: 0 });
    expect(month('2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z')).toMatchObject({ releasedCents: 0, cameBackCents: 9_900, feesKeptCents: 100 });
  });
});
