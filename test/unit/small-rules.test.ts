// The small domain modules, each rule pinned: CSV reading, API key formats, durations, the
// validation error, the ledger statuses.
import { describe, expect, it } from 'vitest';
import { KEY_LENGTH, KEY_PREFIX, keyFormatProblem, maskKey } from '../../src/domain/api-keys.js';
import { parseCsv } from '../../src/domain/csv.js';
import { formatDuration, parseDuration } from '../../src/domain/duration.js';
import { ValidationError } from '../../src/domain/errors.js';
import { LEDGER_STATUSES } from '../../src/domain/ledger.js';

describe('parseCsv', () => {
  it('reads plain records with the line each starts on', () => {
    expect(parseCsv('a,b\nc,d\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['c', 'd'] },
    ]);
  });

  it('takes CRLF and lone CR line ends, and a last record without one', () => {
    expect(parseCsv('a,b\r\nc,d\re,f')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['c', 'd'] },
      { line: 3, fields: ['e', 'f'] },
    ]);
  });

  it('quoted fields keep commas, doubled quotes and line breaks; lines count on', () => {
    expect(parseCsv('"x, y","say ""hi""","two\nlines"\nnext,1\n')).toEqual([
      { line: 1, fields: ['x, y', 'say "hi"', 'two\nlines'] },
      { line: 3, fields: ['next', '1'] },
    ]);
  });

  it('a quote inside an unquoted field is a character', () => {
    expect(parseCsv('ab"c,d')).toEqual([{ line: 1, fields: ['ab"c', 'd'] }]);
  });

  it('skips blank lines but keeps a record of empty fields', () => {
    expect(parseCsv('a\n\n\nb\n,\n""\n')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 4, fields: ['b'] },
      { line: 5, fields: ['', ''] },
      { line: 6, fields: [''] },
    ]);
  });

  it('a trailing comma at the end of the text is an empty last field', () => {
    expect(parseCsv('a,')).toEqual([{ line: 1, fields: ['a', ''] }]);
    expect(parseCsv('""')).toEqual([{ line: 1, fields: [''] }]);
  });

  it('drops a byte order mark and nothing else', () => {
    expect(parseCsv('\ufeffcode,rate\n')).toEqual([{ line: 1, fields: ['code', 'rate'] }]);
    expect(parseCsv('x\ufeff')).toEqual([{ line: 1, fields: ['x\ufeff'] }]);
  });

  it('an empty text has no records', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('\n\r\n')).toEqual([]);
  });

  it('refuses a quoted field left open, naming the line its record starts on', () => {
    expect(() => parseCsv('a\n"open,\nstill')).toThrow('line 2: a quoted field is not closed');
  });
});

describe('API key formats', () => {
  const sand = `sk_sand_${'a'.repeat(KEY_LENGTH - 8)}`;
  const stage = `sk_stage_${'B'.repeat(KEY_LENGTH - 9)}`;

  it('knows both prefixes and the length', () => {
    expect(KEY_PREFIX).toEqual({ sandbox: 'sk_sand_', staging: 'sk_stage_' });
    expect(KEY_LENGTH).toBe(64);
  });

  it('accepts a well-formed key of either environment, or of the one asked for', () => {
    expect(keyFormatProblem(sand)).toBeUndefined();
    expect(keyFormatProblem(stage)).toBeUndefined();
    expect(keyFormatProblem(sand, 'sandbox')).toBeUndefined();
    expect(keyFormatProblem(stage, 'staging')).toBeUndefined();
  });

  it('names what is wrong: the prefix, the length, the characters', () => {
    expect(keyFormatProblem('pk_live_x')).toBe('an API key starts with sk_sand_ or sk_stage_');
    expect(keyFormatProblem(sand, 'staging')).toBe('an API key for staging starts with sk_stage_');
    expect(keyFormatProblem(`${sand}x`)).toBe('an API key is 64 characters long (this one has 65)');
    expect(keyFormatProblem(sand.slice(0, -1))).toBe('an API key is 64 characters long (this one has 63)');
    expect(keyFormatProblem(`${sand.slice(0, -1)}-`)).toBe('an API key has only letters, digits and underscores');
    expect(keyFormatProblem(`sk_sand_a-${sand.slice(10)}`)).toBe('an API key has only letters, digits and underscores');
    expect(keyFormatProblem(`${sand.slice(0, -1)}\n`)).toBe('an API key has only letters, digits and underscores');
    expect(keyFormatProblem(`-${sand.slice(1)}`)).toBe('an API key starts with sk_sand_ or sk_stage_');
  });

  it('shows a key by prefix and last four only, and nothing of a malformed one', () => {
    expect(maskKey(`${sand.slice(0, -4)}Wx9Z`)).toBe('sk_sand_…Wx9Z');
    expect(maskKey(`${stage.slice(0, -4)}Q1r2`)).toBe('sk_stage_…Q1r2');
    expect(maskKey(sand.slice(0, -1))).toBe('(not an API key)');
    expect(maskKey(`zz${sand.slice(2)}`)).toBe('(not an API key)');
  });
});

describe('durations', () => {
  it('parses each unit, decimals, and a bare number as seconds', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('0.0004s')).toBe(0);
    expect(parseDuration('0.0006s')).toBe(1);
    expect(parseDuration('3')).toBe(3000);
    expect(parseDuration(' 4s ')).toBe(4000);
    expect(parseDuration('0')).toBe(0);
  });

  it('refuses anything else', () => {
    for (const bad of ['', 's', '-1s', '1.s', '.5s', '1 s', '1w', '1sx', 'x1s', '1e3', '9'.repeat(400)]) expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('formats for people: ms under a second, seconds under two minutes, minutes under two hours, else hours', () => {
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(999)).toBe('999ms');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(1499)).toBe('1s');
    expect(formatDuration(1500)).toBe('2s');
    expect(formatDuration(119_499)).toBe('119s');
    expect(formatDuration(119_500)).toBe('2m');
    expect(formatDuration(120_000)).toBe('2m');
    expect(formatDuration(7_140_000)).toBe('119m');
    expect(formatDuration(7_170_000)).toBe('2h');
    expect(formatDuration(9_000_000)).toBe('3h');
  });
});

describe('ValidationError', () => {
  it('carries every problem, and says each with its field', () => {
    const e = new ValidationError([
      { field: 'item[0].net', message: 'must equal quantity × unitPrice' },
      { field: '', message: 'the claim is empty' },
    ]);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ValidationError');
    expect(e.message).toBe('item[0].net: must equal quantity × unitPrice; the claim is empty');
    expect(e.errors).toHaveLength(2);
  });
});

describe('ledger statuses', () => {
  it('are the seven of the contract, in order, then tpa’s two of corrected claims', () => {
    expect(LEDGER_STATUSES).toEqual(['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'PENDED', 'FUNDED', 'DENIED', 'RECONCILED', 'SUPERSEDED', 'VOIDED']);
  });
});
