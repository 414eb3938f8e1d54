import { describe, expect, it } from 'vitest';
import { characterCount, cptProblem, datePart, groupIdProblem, isoDateProblem, npiCheckDigit, npiProblem } from '../../src/domain/validation.js';
import { parseDuration } from '../../src/domain/duration.js';

describe('field rules', () => {
  it('accepts NPIs whose Luhn check digit (prefix 80840) is right', () => {
    expect(npiCheckDigit('123456789')).toBe(3);
    for (const npi of ['1234567893', '1045782368', '1196382455', '1329475804']) expect(npiProblem(npi), npi).toBeUndefined();
  });

  it('rejects NPIs of the wrong length, with letters, or with a wrong check digit', () => {
    expect(npiProblem('1234567890')).toMatch(/check digit/);
    expect(npiProblem('123456789')).toMatch(/10-digit/);
    expect(npiProblem('12345678a3')).toMatch(/10-digit/);
    expect(npiProblem(1234567893)).toMatch(/required/);
    expect(npiProblem(undefined)).toMatch(/required/);
  });

  it('takes CPT codes of exactly five digits', () => {
    expect(cptProblem('45378')).toBeUndefined();
    expect(cptProblem('00811')).toBeUndefined();
    expect(cptProblem('4537')).toMatch(/5-digit/);
    expect(cptProblem('4537A')).toMatch(/5-digit/);
  });

  it('takes calendar dates only', () => {
    expect(isoDateProblem('2026-02-28')).toBeUndefined();
    expect(isoDateProblem('2026-02-30')).toMatch(/not a calendar date/);
    expect(isoDateProblem('02/03/2026')).toMatch(/YYYY-MM-DD/);
    expect(datePart('2026-03-01T10:00:00Z')).toBe('2026-03-01');
    expect(datePart('2026-03-01T10:00')).toBeUndefined();
  });

  it('takes group ids of letters, digits, dashes and underscores', () => {
    expect(groupIdProblem('GRP-1001')).toBeUndefined();
    expect(groupIdProblem('GRP 1001')).toMatch(/letters/);
    expect(groupIdProblem('')).toMatch(/required/);
  });

  it('reads durations in ms, s, m, h and d', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('ten')).toBeUndefined();
  });

  it('counts characters as code points: an emoji outside the BMP is one, a lone surrogate one', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('notes')).toBe(5);
    expect(characterCount('café')).toBe(4);
    expect(characterCount('\u{1F600}'.repeat(500))).toBe(500);
    expect('\u{1F600}'.repeat(500).length).toBe(1000);
    expect(characterCount('a\u{1F1EB}\u{1F1F7}b')).toBe(4); // a flag is two code points
    expect(characterCount('\uD83D')).toBe(1);
    expect(characterCount('\uDE00x\uD83D')).toBe(3);
    for (const text of ['x\u{10FFFF}y', '\u{1F600}\uD83D\u{1F600}', 'plain']) expect(characterCount(text)).toBe([...text].length);
  });
});
