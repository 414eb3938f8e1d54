import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addBusinessDays, processorFeeCents, reconcile, splitPayouts, type BenefitLine } from '../../src/domain/settlement.js';
import { nextPollDelay } from '../../src/client/polling.js';

const line = (npi: string, role: BenefitLine['providerRole'], benefitCents: number): BenefitLine => ({
  providerNpi: npi,
  providerName: npi,
  providerRole: role,
  benefitCents,
});

describe('settlement rules', () => {
  it('charges 2.2% rounded half away from zero plus 0.30 per payout', () => {
    expect(processorFeeCents(130000)).toBe(2890);
    expect(processorFeeCents(250)).toBe(36); // 5.5 cents → 6, + 30
    expect(processorFeeCents(0)).toBe(30);
  });

  it('splits by the benefit of each provider, to the cent, facility first', () => {
    const p = splitPayouts([line('2', 'SURGEON', 52000), line('1', 'FACILITY', 130000), line('2', 'SURGEON', 0), line('3', 'PATHOLOGY', 0)], 182000);
    expect(p.map((x) => [x.providerNpi, x.amountCents, x.feeCents, x.netCents])).toEqual([
      ['1', 130000, 2890, 127110],
      ['2', 52000, 1174, 50826],
    ]);
  });

  it('makes no payouts for a zero total and never a fee larger than the payout', () => {
    expect(splitPayouts([line('1', 'FACILITY', 0)], 0)).toEqual([]);
    const [small] = splitPayouts([line('1', 'FACILITY', 20)], 20);
    expect(small).toMatchObject({ amountCents: 20, feeCents: 20, netCents: 0 });
  });

  it('payouts always add up to the total and nets are never negative', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('1', '2', '3', '4'), fc.integer({ min: 0, max: 1e8 })), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 1e9 }),
        (lines, total) => {
          const p = splitPayouts(
            lines.map(([npi, c]) => line(npi, 'SURGEON', c)),
            total,
          );
          expect(p.reduce((s, x) => s + x.amountCents, 0)).toBe(total);
          expect(p.every((x) => x.netCents >= 0 && x.amountCents - x.feeCents === x.netCents)).toBe(true);
        },
      ),
    );
  });

  it('counts business days: Friday + 1 is Monday, Saturday + 1 is Monday', () => {
    expect(addBusinessDays(new Date('2026-03-06T15:00:00Z'), 1).toISOString()).toBe('2026-03-09T15:00:00.000Z');
    expect(addBusinessDays(new Date('2026-03-07T15:00:00Z'), 1).toISOString()).toBe('2026-03-09T15:00:00.000Z');
    expect(addBusinessDays(new Date('2026-03-02T15:00:00Z'), 1).toISOString()).toBe('2026-03-03T15:00:00.000Z');
  });

  it('matches an AEOB exactly only when the amounts are equal', () => {
    expect(reconcile(228000, 228000)).toEqual({ matchStatus: 'EXACT', varianceCents: 0 });
    expect(reconcile(227999, 228000)).toEqual({ matchStatus: 'VARIANCE', varianceCents: 1 });
    expect(reconcile(null, 228000).matchStatus).toBe('MISSING_AEOB');
  });
});

describe('claim polling', () => {
  const now = Date.parse('2026-11-22T00:00:00Z');
  it('polls when the service expects to be done, within the schedule, and never in a tight loop', () => {
    expect(nextPollDelay(0, '2026-11-22T00:00:03Z', now)).toBe(3250);
    expect(nextPollDelay(0, '2026-11-22T01:00:00Z', now)).toBe(10_000);
    expect(nextPollDelay(3, undefined, now)).toBe(30_000);
    // A frozen service clock: the estimate is long past here, so the schedule rules.
    expect(nextPollDelay(1, '2026-03-02T10:00:03Z', now)).toBe(15_000);
  });
});
