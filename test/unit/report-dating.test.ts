// The finance desk's report counted by the money's own times (--by funded, --by settled): for any
// transfers, failures and refunds and any cut of time into periods, each figure of the periods adds
// up to the whole span's, and with --npi the payees' figures add up to everyone's. Transfers are
// generated, some without the times a service need not give (failed_at, refunded_at).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReportEntry, type ReportSettlement, type ReportTransfer, periodReport } from '../../src/domain/report.js';
import { REPORT_MONEY_FIGURES } from '../helpers/values.js';

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
    match: fc.constantFrom('EXACT', 'VARIANCE', 'MISSING_AEOB', null),
    variance: fc.integer({ min: -5_000, max: 5_000 }),
    payouts: fc.array(fc.record({ npi: fc.constantFrom(...NPIS), cents: fc.integer({ min: 1, max: 500_000 }), fee: fc.integer({ min: 0, max: 300 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map(({ start, arrival, later, status, says, match, variance, payouts }): ReportTransfer => {
    const at = T0 + start;
    return {
      processor_transfer_id: `tr_${start}`,
      status,
      total_amount: payouts.reduce((s, p) => s + p.cents, 0) / 100,
      payouts: payouts.map((p) => ({ provider_npi: p.npi, provider_name: p.npi, amount: p.cents / 100, processor_fee: p.fee / 100 })),
      reconciliation_status: match === 'EXACT' ? 'MATCHED' : 'UNMATCHED',
      aeob_match: status === 'COMPLETED' && match !== null ? { match_status: match, variance: match === 'EXACT' ? 0 : variance / 100 } : null,
      initiated_at: iso(at),
      completed_at: status === 'COMPLETED' || status === 'REFUNDED' ? iso(at + arrival) : null,
      failed_at: status === 'FAILED' && says ? iso(at + arrival) : null,
      refund_details: status === 'REFUNDED' ? (says ? { refunded_at: iso(at + arrival + later) } : null) : null,
    };
  });

const ledger = fc.array(fc.array(transfer, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }).map((encounters) => {
  const entries: ReportEntry[] = [];
  const settlements = new Map<string, ReportSettlement>();
  encounters.forEach((generated, i) => {
    const id = `enc_${i}`;
    // An encounter's earlier transfers were acted on (funded again): each ended FAILED or REFUNDED, before the next.
    const transfers = generated.map((t, k) =>
      k === generated.length - 1 || t.status === 'FAILED' || t.status === 'REFUNDED'
        ? { ...t, processor_transfer_id: `${t.processor_transfer_id}_${i}_${k}` }
        : { ...t, processor_transfer_id: `${t.processor_transfer_id}_${i}_${k}`, status: 'FAILED', aeob_match: null, completed_at: null },
    );
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

const FIGURES = REPORT_MONEY_FIGURES;
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

  it('any cut of time: the reconciliation, the exceptions, the per-provider rows and the transfer lines add up too', () => {
    const RECONCILED = ['matched', 'variance', 'missingAeob', 'notReconciled'] as const;
    const LINE = ['releasedCents', 'inTransitCents', 'settledCents', 'refundedCents', 'cameBackCents', 'failedCents'] as const;
    fc.assert(
      fc.property(
        ledger,
        fc.constantFrom('funded' as const, 'settled' as const),
        fc.uniqueArray(fc.integer({ min: 1, max: 470 }), { maxLength: 6 }),
        fc.constantFrom(undefined, ...NPIS),
        ({ entries, settlements }, by, cutDays, npi) => {
          const whole = { by, startMs: T0, endMs: T0 + 480 * DAY };
          const full = periodReport(entries, settlements, NOW, npi, whole);
          const bounds = [T0, ...cutDays.sort((a, b) => a - b).map((d) => T0 + d * DAY), whole.endMs];
          const parts = bounds.slice(1).map((end, i) => periodReport(entries, settlements, NOW, npi, { by, startMs: bounds[i]!, endMs: end }));
          for (const k of RECONCILED) {
            expect(
              parts.reduce((s, p) => s + p.reconciliation[k].count, 0),
              k,
            ).toBe(full.reconciliation[k].count);
            expect(
              parts.reduce((s, p) => s + p.reconciliation[k].amountCents, 0),
              k,
            ).toBe(full.reconciliation[k].amountCents);
          }
          // Each exception once in all the periods: the whole span's, no more, no fewer.
          const key = (x: { kind: string; reference: string | null; amountCents: number }) => `${x.kind} ${x.reference} ${x.amountCents}`;
          expect(parts.flatMap((p) => p.exceptions.map(key)).sort()).toEqual(full.exceptions.map(key).sort());
          // The whole span of every transfer lists each latest transfer's exception once.
          const latest = [...settlements.values()].filter(
            (s) =>
              s.status === 'FAILED' || s.status === 'REFUNDED' || s.aeob_match?.match_status === 'VARIANCE' || s.aeob_match?.match_status === 'MISSING_AEOB',
          );
          if (npi === undefined) expect(full.exceptions.length).toBe(latest.length);
          for (const r of [full, ...parts]) {
            // The transfer lines add up to the period's money, and each transfer is a line in one period.
            for (const k of LINE) {
              const moneyKey = k as keyof typeof r.money;
              expect(
                r.transferLines.reduce((s, l) => s + l[k], 0),
                k,
              ).toBe(r.money[moneyKey]);
            }
            expect(r.transferLines.reduce((s, l) => s + l.feeCents, 0)).toBe(r.money.feesChargedCents);
            // The per-provider rows add up to released, refunded and net; their fees to the fees charged on released transfers.
            const sum = (k: 'amountCents' | 'refundedCents' | 'netCents' | 'feeCents') => r.providers.reduce((s, p) => s + p[k], 0);
            expect(sum('amountCents'), 'providers amount').toBe(r.money.releasedCents);
            expect(sum('refundedCents'), 'providers refunded').toBe(r.money.refundedCents);
            expect(sum('netCents'), 'providers net').toBe(r.money.netCents);
            const failedFees = r.transferLines.filter((l) => l.transfer.status === 'FAILED').reduce((s, l) => s + l.feeCents, 0);
            expect(sum('feeCents') + failedFees, 'providers fees').toBe(r.money.feesChargedCents);
            // Settled per day sums to settled.
            expect(r.settledPerDay.reduce((s, d) => s + d.amountCents, 0)).toBe(r.money.settledCents);
          }
          // A transfer's release (or failure) is a line of one period; its refund may be a line of a later one.
          const releases = parts.flatMap((p) =>
            p.transferLines.filter((l) => l.releasedCents > 0 || l.failedCents > 0).map((l) => l.transfer.processor_transfer_id),
          );
          expect(new Set(releases).size).toBe(releases.length);
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
