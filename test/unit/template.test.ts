// The Go-template subset of --template (src/render/template.ts).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseTemplate, sprintf } from '../../src/render/template.js';

const render = (source: string, data: unknown) => parseTemplate(source)(data);

describe('--template', () => {
  const rows = [
    { id: 'a', n: 3, tags: ['x', 'y'], who: { name: 'Ann' } },
    { id: 'bb', n: 0, tags: [], who: null },
  ];

  it('prints fields, nested fields, and ranges over a list with else', () => {
    expect(render('{{range .}}{{.id}}:{{.who.name}};{{end}}', rows)).toBe('a:Ann;bb:;');
    expect(render('{{range .}}x{{else}}none{{end}}', [])).toBe('none');
  });

  it('branches with if, else if and else, by Go truth (0, empty text and an empty list are false)', () => {
    const t = '{{range .}}{{if .tags}}tagged{{else if .n}}counted{{else}}neither{{end}} {{end}}';
    expect(render(t, rows)).toBe('tagged neither ');
    expect(render('{{if and .a (not .b)}}yes{{end}}', { a: 1, b: '' })).toBe('yes');
  });

  it('pipes into functions and formats with printf, join, truncate, len, index and json', () => {
    expect(render('{{.n | printf "%05d"}}', { n: 42 })).toBe('00042');
    expect(render('{{printf "%-4s|%6.2f" .id .v}}', { id: 'a', v: 12.3456 })).toBe('a   | 12.35');
    expect(render('{{join ", " .tags}}', rows[0])).toBe('x, y');
    expect(render('{{truncate 6 .t}}', { t: 'abcdefghij' })).toBe('abc...');
    expect(render('{{len .}} {{index . 1 "id"}}', rows)).toBe('2 bb');
    expect(render('{{json .who}}', rows[0])).toBe('{"name":"Ann"}');
  });

  it('keeps variables, range variables and $ for the whole input', () => {
    expect(render('{{range $i, $r := .}}{{$i}}={{$r.id}} {{end}}', rows)).toBe('0=a 1=bb ');
    expect(render('{{$first := index . 0}}{{range .}}{{$first.id}}{{end}}', rows)).toBe('aa');
    expect(render('{{range .}}{{len $}}{{end}}', rows)).toBe('22');
  });

  it('trims white space beside {{- and -}} and skips comments', () => {
    expect(render('a  {{- /* note */ -}}  b\n{{- .x}}', { x: 'c' })).toBe('abc');
  });

  it('aligns tablerow columns, rendered at tablerender or at the end', () => {
    expect(render('{{range .}}{{tablerow .id .n}}{{end}}', rows)).toBe('a   3\nbb  0\n');
    expect(render('{{tablerow "x" "y"}}{{tablerender}}after', null)).toBe('x  y\nafter');
    // Aligned on screen: a wide character takes two columns, a combining accent none.
    expect(
      render('{{range .}}{{tablerow .id .n}}{{end}}', [
        { id: '東京', n: 1 },
        { id: 'Zoe\u0301', n: 2 },
        { id: 'abcde', n: 3 },
      ]),
    ).toBe('東京   1\nZoe\u0301    2\nabcde  3\n');
  });

  it('refuses an unknown function, an unclosed action and a missing end, naming line and column', () => {
    expect(() => parseTemplate('{{.a}}\n  {{upper .a}}')).toThrow(/line 2, column 5: unknown function "upper"/);
    expect(() => parseTemplate('{{.a')).toThrow(/line 1, column 1: unclosed action/);
    expect(() => parseTemplate('{{if .a}}x')).toThrow(/{{if}} has no {{end}}/);
    expect(() => parseTemplate('{{end}}')).toThrow(UsageError);
  });

  it('an error while it runs is a usage error: a range over text, a field of a number', () => {
    expect(() => render('{{range .}}{{end}}', 'text')).toThrow(/range cannot go over string/);
    expect(() => render('{{.a.b}}', { a: 3 })).toThrow(/cannot read field b of number 3/);
  });

  it('text from the data is printed, never run as a template', () => {
    expect(render('{{.}}', '{{printf "%d" 1}}')).toBe('{{printf "%d" 1}}');
  });

  it("never truncates an amount: %d of a fraction is Go's %!d(float64=…), %f/%.2f/%s/%v the exact decimal", () => {
    const a = { benefit: 6.55, big: 1234567.89, n: 42 };
    expect(render('{{printf "%d" .benefit}}', a)).toBe('%!d(float64=6.55)');
    expect(render('{{printf "%5d" .n}}|{{printf "%x" .benefit}}', a)).toBe('   42|%!x(float64=6.55)');
    expect(render('{{printf "%.2f" .benefit}} {{printf "%f" .benefit}} {{printf "%s" .big}} {{printf "%v" .big}}', a)).toBe(
      '6.55 6.550000 1234567.89 1234567.89',
    );
  });

  it('print puts a space between two operands when neither is a string, as Go does', () => {
    expect(render('{{print .a .b}}', { a: 6.55, b: 10 })).toBe('6.55 10');
    expect(render('{{print .s .a "x" .b}}', { s: 'n=', a: 1, b: 2 })).toBe('n=1x2');
  });

  it('printf says what is missing as Go does', () => {
    expect(sprintf('%s and %s', ['one'])).toBe('one and %!s(MISSING)');
    expect(sprintf('100%%', [])).toBe('100%');
  });
});

describe('printf: floats as Go prints them', () => {
  // Expected texts are Go's (fmt.Sprintf on float64): the double's exact value, an exact tie to even.
  it('%f rounds the exact binary value, an exact half to even, where toFixed breaks it upward', () => {
    expect(sprintf('%.0f|%.1f|%.2f|%.0f|%5.1f', [284.5, 6.25, 0.125, 0.5, 2.25])).toBe('284|6.2|0.12|0|  2.2');
    expect(sprintf('%.2f|%.2f|%.1f|%.0f|%f', [2.675, 1.005, -6.25, -0.5, 0])).toBe('2.67|1.00|-6.2|-0|0.000000');
    expect(sprintf('%.0f|%.0f|%.0f|%.0f|%.1f|%+.1f', [1.5, 2.5, -2.5, 3.5, 0.35, 0.25])).toBe('2|2|-2|4|0.3|+0.2');
    expect(sprintf('%.0f|%.2f|%.3f', [1e22, 2 ** 53 + 2, 1 / 3])).toBe('10000000000000000000000|9007199254740994.00|0.333');
    expect(sprintf('%08.2f|%-7.1f|', [-284.125, 0.05])).toBe('-0284.12|0.1    |');
  });

  it('%e and %g as Go prints them', () => {
    expect(sprintf('%e|%.2e|%.0e|%e|%e|%.3e', [284.5, 6.255, 2.5, 0, -1234.5678, 1e-7])).toBe(
      '2.845000e+02|6.25e+00|2e+00|0.000000e+00|-1.234568e+03|1.000e-07',
    );
    expect(sprintf('%g|%g|%g|%g|%g|%g|%g|%g', [284.5, 1e6, 1e-5, 0.0001, 100000, 123456789, 0, -0.1])).toBe(
      '284.5|1e+06|1e-05|0.0001|100000|1.23456789e+08|0|-0.1',
    );
    expect(sprintf('%.3g|%.2g|%.0g|%.3g|%.1g|%.5g', [2.5, 2.25, 2.5, 1234.5, 0.000123, 1e21])).toBe('2.5|2.2|2|1.23e+03|0.0001|1e+21');
    expect(sprintf('%e|%g', ['x', true])).toBe('%!e(x)|%!g(true)');
  });
});
