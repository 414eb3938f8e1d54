// The two guards of text from outside: `screen` for a person's terminal, `csvCell` for a spreadsheet.
import { describe, expect, it } from 'vitest';
import { csvCell, csvCellValue, own, screen } from '../../src/render/screen.js';
import { flatten, toCsv } from '../../src/render/output.js';
import { keyValues } from '../../src/render/table.js';

describe('screen', () => {
  it('shows ESC, BEL, CSI (0x9b), DEL and every other C0/C1 control as a \\u escape; newline and tab stay', () => {
    const hostile = 'Patient/\u001b[5mX\u001b]0;PWN\u0007 \u009b31m \u007f \u0000\r';
    const shown = screen(`${hostile}\n\tnext`);
    expect(shown).toBe('Patient/\\u001b[5mX\\u001b]0;PWN\\u0007 \\u009b31m \\u007f \\u0000\\u000d\n\tnext');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may be left
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('escapes tabs too when asked (a table cell), and leaves plain text untouched', () => {
    expect(screen('a\tb', false)).toBe('a\\u0009b');
    expect(screen('Naïve café — 2,100.00 ✓')).toBe('Naïve café — 2,100.00 ✓');
  });

  it("lets tpa's own escapes through, and no look-alike typed in the text", () => {
    expect(screen(`${own('31m')}red${own('39m')}${own('\r')}${own('K')}`)).toBe('\u001b[31mred\u001b[39m\r\u001b[K');
    expect(screen('\u001b[123456789;31m')).toBe('\\u001b[123456789;31m');
  });

  it('shows every bidirectional control (embeddings, overrides, isolates, marks) as a \\u escape', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(screen(`a${bidi}b`)).toBe('a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cb');
    expect(screen('שלום مرحبا')).toBe('שלום مرحبا');
    expect(JSON.parse(screen(JSON.stringify({ n: `x${bidi}` })))).toEqual({ n: `x${bidi}` });
  });

  it('keeps JSON text JSON, with the same value', () => {
    const value = { note: 'a\u009b\u007fb\u001b' };
    expect(JSON.parse(screen(JSON.stringify(value)))).toEqual(value);
  });
});

describe('csvCell', () => {
  it('puts a quote before a cell a spreadsheet would run: =, +, -, @, tab, CR', () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(csvCell("+1+cmd|'/c calc'!A0")).toBe("'+1+cmd|'/c calc'!A0");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(1)')).toBe("'@SUM(1)");
    expect(csvCell('\t=1+1')).toBe("'\t=1+1");
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
  });

  it('leaves numbers, negative ones included, and plain text as they are; quotes as CSV requires', () => {
    expect(csvCell('-12.34')).toBe('-12.34');
    expect(csvCell('-7')).toBe('-7');
    expect(csvCell('2100.00')).toBe('2100.00');
    expect(csvCell('a, "b"')).toBe('"a, ""b"""');
    expect(csvCell('')).toBe('');
  });

  it('reads back what it wrote', () => {
    for (const text of ['=1+1', '-2+3', '@x', '\tx', '-12.34', "it's", "'quoted", "'=1+1", "''@x", "'-12.34"]) {
      const written = csvCell(text);
      const unquoted = written.startsWith('"') ? written.slice(1, -1).replace(/""/g, '"') : written;
      expect(csvCellValue(unquoted)).toBe(text);
    }
  });
});

describe('keyValues', () => {
  it("keeps a value's own line breaks under its label, with or without a width", () => {
    for (const width of [undefined, 80]) {
      const text = keyValues(
        [
          ['Notes', 'paid\nStatus  REFUNDED'],
          ['Status', 'FUNDED'],
        ],
        width,
      );
      expect(text.split('\n')).toEqual(['Notes   paid', '        Status  REFUNDED', 'Status  FUNDED']);
    }
  });
});

describe('flatten', () => {
  it('keeps a field named __proto__ as a column, not as the row prototype', () => {
    const row = JSON.parse('{"__proto__":["=1+1"],"b":2,"c":{"__proto__":{"d":3}}}');
    const flat = flatten(row);
    expect(Object.keys(flat)).toEqual(['__proto__', 'b', 'c.__proto__.d']);
    expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
    expect(toCsv([row])).toBe('__proto__,b,c.__proto__.d\n"[""=1+1""]",2,3\n');
  });
});
