import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  allocate,
  centsToAmount,
  centsToJson,
  formatCents,
  formatCentsGrouped,
  jsonNumberToCents,
  mulDivRound,
  parseCents,
  parseRatio,
} from '../../src/domain/money.js';

describe('money in integer cents', () => {
  it('parses decimal text with at most two places exactly', () => {
    expect(parseCents('12.34')).toBe(1234);
    expect(parseCents('12.3')).toBe(1230);
    expect(parseCents('12')).toBe(1200);
    expect(parseCents('0.01')).toBe(1);
    expect(parseCents(' 7.05 ')).toBe(705);
  });

  it('refuses more than two decimals, signs, exponents and non-numbers instead of rounding', () => {
    for (const bad of ['12.345', '-1.00', '1e3', 'abc', '', '.5', '1.', '1,000.00', 'NaN', 'Infinity']) {
      expect(parseCents(bad), bad).toBeUndefined();
    }
  });

  it('takes JSON numbers only when their decimal form has at most two places', () => {
    expect(jsonNumberToCents(1234.56)).toBe(123456);
    expect(jsonNumberToCents(0.29)).toBe(29);
    expect(jsonNumberToCents(0.1 + 0.2)).toBeUndefined();
    expect(jsonNumberToCents(-5)).toBeUndefined();
    expect(jsonNumberToCents('12.00')).toBeUndefined();
  });

  it('formats cents with two decimals and groups thousands for tables', () => {
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(-5)).toBe('-0.05');
    expect(formatCents(123456)).toBe('1234.56');
    expect(formatCentsGrouped(123456789)).toBe('1,234,567.89');
    expect(centsToAmount(1230)).toBe(12.3);
  });

  it('round-trips every amount through text and JSON numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), (cents) => {
        expect(parseCents(formatCents(cents))).toBe(cents);
        expect(jsonNumberToCents(centsToAmount(cents))).toBe(cents);
      }),
    );
  });

  it('writes an amount as JSON text exactly as JSON.stringify writes its number', () => {
    for (const [cents, text] of [
      [0, '0'],
      [7, '0.07'],
      [70, '0.7'],
      [100, '1'],
      [123450, '1234.5'],
      [123456, '1234.56'],
      [-5, '-0.05'],
      [-100, '-1'],
    ] as const) {
      expect(centsToJson(cents)).toBe(text);
    }
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        expect(centsToJson(cents)).toBe(JSON.stringify(centsToAmount(cents)));
      }),
      { numRuns: 5000 },
    );
  });

  it('rounds halves away from zero in exact integer arithmetic', () => {
    expect(mulDivRound(250, 1, 100)).toBe(3); // 2.5 → 3
    expect(mulDivRound(249, 1, 100)).toBe(2);
    expect(mulDivRound(-250, 1, 100)).toBe(-3);
    expect(mulDivRound(10001, 22, 1000)).toBe(220); // 2.2% of 100.01 = 2.20022
    expect(mulDivRound(1, 1, 2)).toBe(1);
  });

  it('reads rates as exact fractions', () => {
    expect(parseRatio('1.25')).toEqual({ numerator: 125, denominator: 100 });
    expect(parseRatio('0.85')).toEqual({ numerator: 85, denominator: 100 });
    expect(parseRatio('2')).toEqual({ numerator: 2, denominator: 1 });
    expect(parseRatio('1.2.3')).toBeUndefined();
  });

  it('allocates a total over weights so that the parts add up to the cent', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(0, [5, 5])).toEqual([0, 0]);
    expect(allocate(10, [0, 0])).toEqual([5, 5]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.array(fc.integer({ min: 0, max: 1e7 }), { minLength: 1, maxLength: 12 }), (total, weights) => {
        const parts = allocate(total, weights);
        expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
        expect(parts.every((p) => Number.isInteger(p) && p >= 0)).toBe(true);
      }),
    );
  });
});
