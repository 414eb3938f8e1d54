// The shared field rules at their edges: exact messages, anchors of each pattern, calendar dates,
// FHIR date-times, whole-number bounds, clipping, and counting characters as the contract (docs/api.md) does.
import { describe, expect, it } from 'vitest';
import {
  characterCount,
  clip,
  cptProblem,
  datePart,
  groupIdProblem,
  isoDateProblem,
  npiCheckDigit,
  npiProblem,
  wholeNumberProblem,
} from '../../src/domain/validation.js';

describe('identifiers', () => {
  it('NPI check digits of real NPIs', () => {
    expect(npiCheckDigit('123456789')).toBe(3);
    expect(npiCheckDigit('104578236')).toBe(8);
    expect(npiCheckDigit('990000000')).toBe(8);
    expect(npiProblem('1234567893')).toBeUndefined();
    expect(npiProblem('1234567890')).toBe('"1234567890" fails the NPI check digit');
  });

  it('say what is required when nothing, or no text, is given', () => {
    for (const v of ['', undefined, 12]) {
      expect(npiProblem(v)).toBe('is required: a 10-digit NPI');
      expect(cptProblem(v)).toBe('is required: a 5-digit CPT code');
      expect(groupIdProblem(v)).toBe('is required: a TPA network or group id');
      if (v !== 12) expect(isoDateProblem(v)).toBe('is required: a date as YYYY-MM-DD');
    }
    // A date given as a number is there, in the wrong form: it is named as such.
    expect(isoDateProblem(20261125)).toBe('must be a date as YYYY-MM-DD, a string (got number 20261125)');
  });

  it('match the whole value, not a part of it', () => {
    expect(npiProblem('x1234567893')).toBe('must be a 10-digit string (got "x1234567893")');
    expect(npiProblem('12345678930')).toBe('must be a 10-digit string (got "12345678930")');
    expect(cptProblem('453780')).toBe('must be a 5-digit CPT code (got "453780")');
    expect(cptProblem('a45378')).toBe('must be a 5-digit CPT code (got "a45378")');
    expect(groupIdProblem('GRP-1001')).toBeUndefined();
    expect(groupIdProblem('-GRP')).toBe('must be 2 to 40 letters, digits, "-" or "_" (got "-GRP")');
    expect(groupIdProblem('G')).toBe('must be 2 to 40 letters, digits, "-" or "_" (got "G")');
    expect(groupIdProblem('G'.repeat(41))).toBe(`must be 2 to 40 letters, digits, "-" or "_" (got "${'G'.repeat(40)}…")`);
    expect(groupIdProblem('G'.repeat(40))).toBeUndefined();
  });
});

describe('dates', () => {
  it('calendar dates that exist, written exactly YYYY-MM-DD', () => {
    expect(isoDateProblem('2024-02-29')).toBeUndefined();
    expect(isoDateProblem('2026-02-29')).toBe('"2026-02-29" is not a calendar date');
    expect(isoDateProblem('2026-13-01')).toBe('"2026-13-01" is not a calendar date');
    expect(isoDateProblem('2026-04-31')).toBe('"2026-04-31" is not a calendar date');
    expect(isoDateProblem('x2026-03-02')).toBe('must be a date as YYYY-MM-DD (got "x2026-03-02")');
    expect(isoDateProblem('2026-03-02x')).toBe('must be a date as YYYY-MM-DD (got "2026-03-02x")');
  });

  it('FHIR date-times: the date part when the time is a valid one with a zone', () => {
    expect(datePart('2026-03-02')).toBe('2026-03-02');
    for (const ok of ['2026-03-02T10:00Z', '2026-03-02T23:59:60Z', '2026-03-02T10:00:00.123+05:30', '2026-03-02T00:00:00-12:00'])
      expect(datePart(ok), ok).toBe('2026-03-02');
    for (const bad of [
      '2026-03-02T24:00Z',
      '2026-03-02T10:00',
      '2026-03-02T10:60Z',
      '2026-03-02T10:00:61Z',
      '2026-03-02T10:00+24:00',
      '2026-03-02 10:00Z',
      '2026-03-02T10:00Zx',
      '2026-02-30T10:00Z',
      20260302,
      null,
    ]) {
      expect(datePart(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('numbers, clipping and characters', () => {
  it('whole numbers within bounds, digits only', () => {
    expect(wholeNumberProblem('1', 1, 100)).toBeUndefined();
    expect(wholeNumberProblem('100', 1, 100)).toBeUndefined();
    expect(wholeNumberProblem('0', 1, 100)).toBe('must be a whole number from 1 to 100 (got "0")');
    expect(wholeNumberProblem('101', 1, 100)).toBe('must be a whole number from 1 to 100 (got "101")');
    expect(wholeNumberProblem('5x', 1, 100)).toBe('must be a whole number from 1 to 100 (got "5x")');
    expect(wholeNumberProblem('x5', 1, 100)).toBe('must be a whole number from 1 to 100 (got "x5")');
  });

  it('clips what it quotes back at 40 characters unless told otherwise', () => {
    expect(clip('a'.repeat(40))).toBe('a'.repeat(40));
    expect(clip('a'.repeat(41))).toBe(`${'a'.repeat(40)}…`);
    expect(clip('abcdef', 3)).toBe('abc…');
    expect(clip('abc', 3)).toBe('abc');
  });

  it('counts characters as code points: an emoji is one, a lone surrogate one', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('a😀b')).toBe(3);
    expect(characterCount('\ud83d')).toBe(1);
    expect(characterCount('\ud83dx')).toBe(2);
    expect(characterCount('\ude00\ud83d')).toBe(2);
    expect(characterCount('😀'.repeat(500))).toBe(500);
  });
});
