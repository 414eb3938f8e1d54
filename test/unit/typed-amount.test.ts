// What a person types as an amount (the fund approve prompt, --amount, --expect-total), and the
// authorization code offered next.
import { describe, expect, it } from 'vitest';
import { authorizationPrefix, nextAuthorizationCode } from '../../src/domain/funding.js';
import { parseTypedAmount } from '../../src/domain/money.js';

describe('parseTypedAmount', () => {
  it.each([
    ['2,040.00', 204000],
    ['$2,040.00', 204000],
    ['2040', 204000],
    ['2040.5', 204050],
    [' 2040.05 ', 204005],
    ['0.07', 7],
    ['1,234,567.89', 123456789],
    ['99,999,999.99', 9999999999],
  ])('takes %s as %i cents', (text, cents) => {
    expect(parseTypedAmount(text)).toEqual({ cents });
  });

  it.each([
    ['2,04.00', /groups of three digits/],
    ['20,40', /groups of three digits/],
    ['2040.001', /more than two decimals/],
    ['2,040.123', /more than two decimals/],
    ['2040.', /digits after it/],
    ['-5', /not an amount/],
    ['1e3', /not an amount/],
    ['', /not an amount/],
    ['100,000,000.00', /more than 99,999,999\.99/],
    ['99999999999999999999', /more than 99,999,999\.99/],
  ])('refuses %s, saying why', (text, why) => {
    const r = parseTypedAmount(text);
    expect(r).toHaveProperty('problem');
    expect((r as { problem: string }).problem).toMatch(why);
  });
});

describe('nextAuthorizationCode', () => {
  const prefix = authorizationPrefix('PAYER-ACME', '2026-11-26');
  it('is -0001 when none is used, and the one after the highest used of the prefix otherwise', () => {
    expect(prefix).toBe('AUTH-20261126-ACME');
    expect(nextAuthorizationCode(prefix, [])).toBe('AUTH-20261126-ACME-0001');
    expect(nextAuthorizationCode(prefix, ['AUTH-20261126-ACME-0001'])).toBe('AUTH-20261126-ACME-0002');
    expect(nextAuthorizationCode(prefix, ['AUTH-20261126-ACME-0003', 'AUTH-20261126-ACME-0001'])).toBe('AUTH-20261126-ACME-0004');
    // Other prefixes and other forms do not count.
    expect(nextAuthorizationCode(prefix, ['AUTH-20261125-ACME-0009', 'AUTH-20261126-ACME-0002-B', 'AUTH-X'])).toBe('AUTH-20261126-ACME-0001');
  });
});
