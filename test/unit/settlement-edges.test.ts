// The payout split's edges: the order of payouts, their sequence numbers, providers whose lines
// carry no benefit, and what a transfer leaves settled in each state.
import { describe, expect, it } from 'vitest';
import { refundAmounts, settledCents, splitPayouts, varianceAeobCents, type BenefitLine } from '../../src/domain/settlement.js';

const line = (npi: string, role: BenefitLine['providerRole'], benefitCents: number): BenefitLine => ({
  providerNpi: npi,
  providerName: `name ${npi}`,
  providerRole: role,
  benefitCents,
});

describe('splitPayouts', () => {
  it('orders payouts facility, surgeon, anesthesia, pathology, then by NPI, numbered from 1', () => {
    const p = splitPayouts(
      [line('9', 'PATHOLOGY', 100), line('5', 'ANESTHESIA', 100), line('4', 'SURGEON', 100), line('3', 'SURGEON', 100), line('7', 'FACILITY', 100)],
      500,
    );
    expect(p.map((x) => [x.sequence, x.providerNpi, x.providerRole, x.providerName, x.amountCents])).toEqual([
      [1, '7', 'FACILITY', 'name 7', 100],
      [2, '3', 'SURGEON', 'name 3', 100],
      [3, '4', 'SURGEON', 'name 4', 100],
      [4, '5', 'ANESTHESIA', 'name 5', 100],
      [5, '9', 'PATHOLOGY', 'name 9', 100],
    ]);
  });

  it('a provider whose lines carry no benefit gets no payout; when none carries any, the split is equal', () => {
    const some = splitPayouts([line('1', 'FACILITY', 0), line('2', 'SURGEON', 300)], 300);
    expect(some.map((x) => [x.sequence, x.providerNpi, x.amountCents])).toEqual([[1, '2', 300]]);
    const none = splitPayouts([line('1', 'FACILITY', 0), line('2', 'SURGEON', 0)], 301);
    expect(none.map((x) => [x.providerNpi, x.amountCents])).toEqual([
      ['1', 151],
      ['2', 150],
    ]);
  });

  it('adds a provider’s lines together before splitting', () => {
    const p = splitPayouts([line('1', 'FACILITY', 100), line('2', 'SURGEON', 150), line('1', 'FACILITY', 50)], 600);
    expect(p.map((x) => [x.providerNpi, x.amountCents])).toEqual([
      ['1', 300],
      ['2', 300],
    ]);
  });

  it('no payouts for a negative total', () => {
    expect(splitPayouts([line('1', 'FACILITY', 100)], -1)).toEqual([]);
  });
});

describe('what a transfer leaves settled', () => {
  it('all of it on its way or completed, none once it failed or came back', () => {
    expect(settledCents('INITIATED', 2280)).toBe(2280);
    expect(settledCents('COMPLETED', 2280)).toBe(2280);
    expect(settledCents('FAILED', 2280)).toBe(0);
    expect(settledCents('REFUNDED', 2280)).toBe(0);
  });

  it('a refund returns the nets, the fees stay with the processor', () => {
    expect(
      refundAmounts([
        { amountCents: 130000, feeCents: 2890 },
        { amountCents: 52000, feeCents: 1174 },
      ]),
    ).toEqual({ netCents: 177936, grossCents: 182000, feesCents: 4064 });
    expect(refundAmounts([])).toEqual({ netCents: 0, grossCents: 0, feesCents: 0 });
  });

  it('the simulated AEOB variance never goes below zero', () => {
    expect(varianceAeobCents(2280, 1234)).toBe(1046);
    expect(varianceAeobCents(1000, 1234)).toBe(0);
  });
});
