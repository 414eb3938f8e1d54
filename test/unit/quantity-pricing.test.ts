// How a line's quantity is read and priced (docs/money-rules.md "Quantity"): at most three
// decimals, a FLAT_RATE's rate × units rounded once half up to the cent, minutes (MJ) one service;
// and which remark codes a line tpa does not price carries ("Lines tpa does not price").
import { describe, expect, it } from 'vitest';
import { DENIAL, UNPRICED_REMARKS } from '../../src/domain/adjudication.js';
import { flatRatePrice, pricedUnits } from '../../src/domain/contract-rates.js';
import { mulRatiosRound, ratioText } from '../../src/domain/money.js';
import { MAX_QUANTITY, quantityRatio } from '../../src/domain/validation.js';

describe('a line quantity', () => {
  it.each([
    [1, { numerator: 1, denominator: 1 }],
    [1.5, { numerator: 15, denominator: 10 }],
    [1.005, { numerator: 1005, denominator: 1000 }],
    [0.001, { numerator: 1, denominator: 1000 }],
    [MAX_QUANTITY, { numerator: MAX_QUANTITY, denominator: 1 }],
  ])('%s is read exactly', (value, ratio) => expect(quantityRatio(value)).toEqual(ratio));

  it.each([0, -1, 1.0005, 0.0001, 9999.001, 10000, Number.NaN, Number.POSITIVE_INFINITY, '1', null, 1e-7])('%s is refused', (value) =>
    expect(quantityRatio(value)).toBeUndefined(),
  );

  it('is written back as it was sent', () => {
    expect([quantityRatio(1.5)!, quantityRatio(1.005)!, quantityRatio(2)!, quantityRatio(0.25)!].map(ratioText)).toEqual(['1.5', '1.005', '2', '0.25']);
  });
});

describe('pricing units', () => {
  it('a FLAT_RATE is the rate × the units, rounded once half up to the cent (never banker’s)', () => {
    // 95.00 × 1.003 = 95.285 → 95.29 (banker's: 95.28); 95.00 × 1.005 = 95.475 → 95.48.
    expect(flatRatePrice(9500, { quantity: 1.003 })).toBe(9529);
    expect(flatRatePrice(9500, { quantity: 1.005 })).toBe(9548);
    expect(flatRatePrice(9500, { quantity: 1.001 })).toBe(9510);
    expect(flatRatePrice(10001, { quantity: 1.005 })).toBe(10051);
    expect(flatRatePrice(1, { quantity: 0.001 })).toBe(0);
    expect(flatRatePrice(500, { quantity: 0.001 })).toBe(1);
    expect(flatRatePrice(48000, { quantity: 3 })).toBe(144000);
  });

  it('minutes of anesthesia (MJ) are one service, whatever the minutes', () => {
    expect(pricedUnits({ quantity: 60, unitOfMeasure: 'MJ' })).toEqual({ numerator: 1, denominator: 1 });
    expect(flatRatePrice(48000, { quantity: 60, unitOfMeasure: 'MJ' })).toBe(48000);
    expect(pricedUnits({ quantity: 2.5 })).toEqual({ numerator: 2500, denominator: 1000 });
  });

  it('mulRatiosRound multiplies exactly, then rounds half away from zero once', () => {
    expect(mulRatiosRound(3, [{ numerator: 3, denominator: 2 }])).toBe(5);
    expect(
      mulRatiosRound(10001, [
        { numerator: 1005, denominator: 1000 },
        { numerator: 1, denominator: 1 },
      ]),
    ).toBe(10051);
    // 99,999,999.99 × 9999.999 stays exact (BigInt), beyond a double's integers.
    expect(mulRatiosRound(9_999_999_999, [{ numerator: 9_999_999, denominator: 1000 }])).toBe(99_999_989_990_000);
    expect(mulRatiosRound(-3, [{ numerator: 1, denominator: 2 }])).toBe(-2);
  });
});

describe('lines tpa does not price', () => {
  it('are CARC-96 with N130 (HCPCS Level II) or M51 (a revenue code alone)', () => {
    expect(UNPRICED_REMARKS.HCPCS_LEVEL_II).toEqual({ denial: DENIAL.HCPCS_NOT_PRICED, remarkCodes: ['N130'] });
    expect(UNPRICED_REMARKS.REVENUE_CODE_ONLY).toEqual({ denial: DENIAL.REVENUE_CODE_ONLY, remarkCodes: ['M51'] });
    expect([DENIAL.HCPCS_NOT_PRICED.code, DENIAL.REVENUE_CODE_ONLY.code]).toEqual(['CARC-96', 'CARC-96']);
  });
});
