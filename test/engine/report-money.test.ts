// The finance desk's money through the engine: what a refund brings back and what the
// processor keeps, what a failed transfer moved (nothing), and one provider's share with --npi. The
// report's pure function is fed the engine's own answers (ledger entries, settlement records), and
// every total is checked against the payouts it summarizes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { periodReport, type ReportEntry, type ReportSettlement } from '../../src/domain/report.js';
import type { Engine } from '../../src/engine/engine.js';
import { call, useEngineHome } from '../helpers/engine.js';
import { cents, REPORT_MONEY_FIGURES } from '../helpers/values.js';

const MON = '2026-03-02T10:00:00Z';
const WED = '2026-03-04T12:00:00Z';
type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);

function submit(e: Engine, patient: string, serviceDate: string): string {
  return (call(e, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient, serviceDate })).body as Body).external_claim_id;
}
function approve(e: Engine, id: string, code: string): void {
  const amount = (call(e, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body).financial_summary.payer_responsibility.total;
  expect(call(e, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: id, amount, authorization_code: code }).status).toBe(200);
}
function report(e: Engine, npi?: string) {
  const entries = (
    call(e, 'GET', `/tpa-api/v1/ledger/entries/?start_date=2026-02-01&end_date=2026-03-31&limit=100${npi ? `&provider_npi=${npi}` : ''}`).body as Body
  ).results as ReportEntry[];
  const settlements = new Map<string, ReportSettlement>();
  for (const x of entries) {
    const s = call(e, 'GET', `/tpa-api/v1/settlement/${x.encounter_id}/`);
    if (s.status === 200) settlements.set(x.encounter_id, s.body as ReportSettlement);
  }
  return { entries, settlements, report: periodReport(entries, settlements, WED, npi) };
}

/** Three institutional encounters (four payees each): one refunded, one failed then funded again and settled, one settled. */
function period(): { refunded: string; failedThenSettled: string; settled: string } {
  const mon = home.at(MON, '0');
  const [refunded, failedThenSettled, settled] = [
    submit(mon, 'MBR-1002', '2026-03-02'),
    submit(mon, 'MBR-1003', '2026-03-02'),
    submit(mon, 'MBR-1001', '2026-02-27'),
  ] as [string, string, string];
  approve(mon, refunded, 'AUTH-RPT-0001');
  approve(mon, failedThenSettled, 'AUTH-RPT-0002');
  approve(mon, settled, 'AUTH-RPT-0003');
  mon.simulate('settlement-failure', failedThenSettled);
  approve(mon, failedThenSettled, 'AUTH-RPT-0004');
  const wed = home.at(WED, '0');
  call(wed, 'GET', `/tpa-api/v1/settlement/${refunded}/`);
  wed.simulate('refund', refunded);
  return { refunded, failedThenSettled, settled };
}

describe('the report of what the money did', () => {
  it('a failed transfer shows no fee and no net; funded again and settled, it is no exception', () => {
    const ids = period();
    const wed = home.at(WED, '0');
    const s = call(wed, 'GET', `/tpa-api/v1/settlement/${ids.failedThenSettled}/`).body as Body;
    expect(s.status).toBe('COMPLETED');
    const failed = s.previous_transfers[0] as Body;
    expect(failed.status).toBe('FAILED');
    expect(failed.payouts.length).toBe(4);
    for (const p of failed.payouts) expect([p.payout_status, p.processor_fee, p.net_to_provider]).toEqual(['FAILED', 0, 0]);
    const { report: r } = report(wed);
    expect(r.money.failedCents).toBe(cents(failed.total_amount));
    expect(r.exceptions.filter((x) => x.encounter_id === ids.failedThenSettled)).toEqual([]);
    expect(r.exceptions.map((x) => x.kind)).toContain('REFUNDED_TRANSFER');
  });

  it('counts what came back net of the fees kept, and what the plan spent in all; each total is the sum of its payouts', () => {
    const ids = period();
    const wed = home.at(WED, '0');
    const { settlements, report: r } = report(wed);
    const transfers = [...settlements.values()].flatMap((s) => [...(s.previous_transfers ?? []), s]) as Body[];
    const payouts = (status: string[]) => transfers.filter((t) => status.includes(t.status)).flatMap((t) => t.payouts as Body[]);
    const sum = (ps: Body[], f: (p: Body) => number) => ps.reduce((s, p) => s + f(p), 0);
    const refund = (settlements.get(ids.refunded) as Body).refund_details;
    expect(r.money.refundedCents).toBe(sum(payouts(['REFUNDED']), (p) => cents(p.amount)));
    expect(r.money.cameBackCents).toBe(cents(refund.amount));
    expect(r.money.cameBackCents).toBe(sum(payouts(['REFUNDED']), (p) => cents(p.net_to_provider)));
    expect(r.money.feesKeptCents).toBe(cents(refund.fees_not_returned));
    expect(r.money.feesKeptCents).toBeGreaterThan(0);
    expect(r.money.feesChargedCents).toBe(sum(payouts(['INITIATED', 'COMPLETED', 'REFUNDED', 'FAILED']), (p) => cents(p.processor_fee)));
    expect(r.money.releasedCents).toBe(sum(payouts(['INITIATED', 'COMPLETED', 'REFUNDED']), (p) => cents(p.amount)));
    expect(r.money.spentCents).toBe(r.money.releasedCents - r.money.cameBackCents);
    expect(r.money.spentCents).toBe(r.money.netCents + r.money.feesChargedCents);
    expect(r.money.settledCents).toBe(sum(payouts(['COMPLETED']), (p) => cents(p.amount)));
  });

  it("with an NPI, the money is that provider's payouts; the four providers' reports add up to the whole", () => {
    period();
    const wed = home.at(WED, '0');
    const whole = report(wed);
    const npis = [...new Set([...whole.settlements.values()].flatMap((s) => s.payouts.map((p) => p.provider_npi)))];
    expect(npis.length).toBe(4);
    const keys = REPORT_MONEY_FIGURES;
    const summed = Object.fromEntries(keys.map((k) => [k, 0])) as Record<(typeof keys)[number], number>;
    for (const npi of npis) {
      const mine = report(wed, npi).report;
      for (const k of keys) summed[k] += mine.money[k];
      expect(mine.providers.map((p) => p.npi)).toEqual([npi]);
      // Its own payouts, never the encounter's whole transfer.
      expect(mine.money.releasedCents).toBeLessThan(whole.report.money.releasedCents);
    }
    expect(summed).toEqual(Object.fromEntries(keys.map((k) => [k, whole.report.money[k]])));
  });

  it("with an NPI, a refunded encounter not funded again is owed that provider's payouts, not the whole encounter", () => {
    const { refunded } = period();
    const wed = home.at(WED, '0');
    const later = '2026-03-08T13:00:00Z'; // more than 3 days after the refund put it back to ADJUDICATED
    const whole = report(wed);
    const s = whole.settlements.get(refunded)!;
    expect(s.status).toBe('REFUNDED');
    const unfunded = (r: ReturnType<typeof periodReport>) => r.exceptions.filter((x) => x.kind === 'NOT_FUNDED_AFTER_3_DAYS' && x.encounter_id === refunded);
    const all = unfunded(periodReport(whole.entries, whole.settlements, later));
    expect(all).toHaveLength(1);
    let summed = 0;
    for (const p of s.payouts) {
      const mine = report(wed, p.provider_npi);
      const x = unfunded(periodReport(mine.entries, mine.settlements, later, p.provider_npi));
      expect(x.map((e) => e.amountCents)).toEqual([cents(p.amount)]);
      summed += x[0]!.amountCents;
    }
    expect(s.payouts.length).toBe(4);
    expect(summed).toBe(all[0]!.amountCents);
  });

  it("an approval for an encounter one provider is on releases the whole encounter, every provider's payout", () => {
    const mon = home.at(MON, '0');
    const id = submit(mon, 'MBR-1002', '2026-03-02');
    const selected = (call(mon, 'GET', '/tpa-api/v1/ledger/entries/?provider_npi=1045782368&status=ADJUDICATED').body as Body).results as Body[];
    expect(selected.map((e) => e.encounter_id)).toEqual([id]);
    approve(mon, id, 'AUTH-NPI-0001');
    const s = call(mon, 'GET', `/tpa-api/v1/settlement/${id}/`).body as Body;
    expect(s.payouts.map((p: Body) => p.provider_npi)).toContain('1045782368');
    expect(s.payouts.length).toBe(4);
    expect(s.payouts.reduce((sum: number, p: Body) => sum + cents(p.amount), 0)).toBe(cents(s.total_amount));
  });
});
