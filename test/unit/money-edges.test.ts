// The edges of the money module that a one-character bug would move: signs in rounding, a zero
// denominator, ties in the largest-remainder split, rates of several digits, JSON numbers that are
// not amounts.
import { describe, expect, it } from 'vitest';
import { allocate, jsonNumberToCents, jsonNumberToRatio, mulDivRound, parseRatio } from '../../src/domain/money.js';

describe('mulDivRound', () => {
  it('rounds halves away from zero whatever the signs', () => {
    expect(mulDivRound(5, 1, 2)).toBe(3);
    expect(mulDivRound(-5, 1, 2)).toBe(-3);
    expect(mulDivRound(5, 1, -2)).toBe(-3);
    expect(mulDivRound(5, -1, 2)).toBe(-3);
    expect(mulDivRound(-5, -1, 2)).toBe(3);
    expect(mulDivRound(-5, 1, -2)).toBe(3);
    expect(mulDivRound(-4, 1, 3)).toBe(-1);
    expect(mulDivRound(7, 1, -3)).toBe(-2);
    expect(mulDivRound(0, 7, -3)).toBe(0);
  });

  it('refuses a zero denominator', () => {
    expect(() => mulDivRound(100, 1, 0)).toThrow(new RangeError('denominator is zero'));
  });
});

describe('allocate', () => {
  it('no weights, no parts; one weight takes it all, zero or not', () => {
    expect(allocate(500, [])).toEqual([]);
    expect(allocate(500, [0])).toEqual([500]);
    expect(allocate(500, [3])).toEqual([500]);
  });

  it('equal remainders go to the earlier parts', () => {
    expect(allocate(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(allocate(1, [1, 1, 1, 1])).toEqual([1, 0, 0, 0]);
    expect(allocate(3, [1, 1, 1, 1, 1])).toEqual([1, 1, 1, 0, 0]);
    expect(allocate(5, [2, 1, 1, 2])).toEqual([2, 1, 1, 1]);
  });

  it('the largest remainder wins before the earlier part', () => {
    // 10 × 1/6 = 1.67, 10 × 2/6 = 3.33, 10 × 3/6 = 5: the first part's .67 takes the last cent.
    expect(allocate(10, [1, 2, 3])).toEqual([2, 3, 5]);
    expect(allocate(10, [2, 1, 3])).toEqual([3, 2, 5]);
    expect(allocate(7, [1, 3])).toEqual([2, 5]);
    expect(allocate(7, [3, 1])).toEqual([5, 2]);
  });
});

describe('rates and JSON numbers', () => {
  it('parses rates of several digits, with and without decimals, around blanks', () => {
    expect(parseRatio('20')).toEqual({ numerator: 20, denominator: 1 });
    expect(parseRatio('125')).toEqual({ numerator: 125, denominator: 1 });
    expect(parseRatio(' 1.25 ')).toEqual({ numerator: 125, denominator: 100 });
    expect(parseRatio('12.000001')).toEqual({ numerator: 12000001, denominator: 1000000 });
    expect(parseRatio('1.0000001')).toBeUndefined();
    expect(parseRatio('-1')).toBeUndefined();
  });

  it('takes only numbers, and only those whose decimal form is an amount or a rate', () => {
    for (const bad of ['12', null, undefined, {}, [12], true, -1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 1e-7]) {
      expect(jsonNumberToCents(bad), String(bad)).toBeUndefined();
      expect(jsonNumberToRatio(bad), String(bad)).toBeUndefined();
    }
    expect(jsonNumberToCents(12.3)).toBe(1230);
    expect(jsonNumberToCents(0)).toBe(0);
    expect(jsonNumberToCents(-0)).toBe(0);
    expect(jsonNumberToRatio(1.25)).toEqual({ numerator: 125, denominator: 100 });
    expect(jsonNumberToRatio(0)).toEqual({ numerator: 0, denominator: 1 });
  });
});
