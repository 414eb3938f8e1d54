// Text as a terminal lays it out (src/render/text.ts): widths, padding, prose wrapped at spaces,
// and the label/value layout that lines amounts up by what they take on screen.
import { describe, expect, it } from 'vitest';
import { colors, count } from '../../src/render/format.js';
import { keyValues, table } from '../../src/render/table.js';
import { aligned, displayWidth, fill, padEnd, padStart, wrapProse, wrapWords } from '../../src/render/text.js';

const bold = colors(true).bold;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what this takes off
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('displayWidth', () => {
  it('counts colour codes as nothing, wide characters as two, combining marks as none', () => {
    expect(displayWidth(bold('2,460.00'))).toBe(8);
    expect(displayWidth('José')).toBe(4);
    expect(displayWidth('Jose\u0301')).toBe(4);
    expect(displayWidth('山田太郎')).toBe(8);
    expect(displayWidth('✗ failed')).toBe(8);
  });

  it('pads by that width', () => {
    expect(plain(padStart(bold('1.00'), 8))).toBe('    1.00');
    expect(padEnd('山田', 6)).toBe('山田  ');
  });
});

describe('keyValues', () => {
  it('lines a bold amount, and one followed by a word, up with the others', () => {
    const text = plain(
      keyValues([
        ['Charges', '4,200.00'],
        ['Benefit', bold('204.00')],
        ['Balance', '0.00 (SETTLED)'],
        ['Patient', 'Maria'],
      ]),
    );
    expect(text.split('\n')).toEqual(['Charges  4,200.00', 'Benefit    204.00', 'Balance      0.00 (SETTLED)', 'Patient  Maria']);
  });
});

describe('wrapProse', () => {
  it('wraps at spaces, never inside a word, and continues under the indent and marker', () => {
    const line = '   ✓ allowed = benefit + patient responsibility, to the cent, on every line and in the total of the encounter';
    const wrapped = wrapProse(line, 40).split('\n');
    for (const l of wrapped) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(wrapped[0]).toMatch(/^ {3}✓ allowed/);
    for (const l of wrapped.slice(1)) expect(l).toMatch(/^ {5}\S/);
    expect(wrapped.join(' ').replace(/\s+/g, ' ').trim()).toBe(line.replace(/\s+/g, ' ').trim());
  });

  it('keeps a word longer than the line whole, and leaves text alone without a width', () => {
    const path = `see /tmp/${'x'.repeat(50)}/file.json now`;
    expect(wrapProse(path, 30).split('\n')).toEqual(['see', `/tmp/${'x'.repeat(50)}/file.json`, 'now']);
    expect(wrapProse(path, undefined)).toBe(path);
  });

  it('never breaks a suggested command: from "tpa " to the end of the line it goes whole onto a line of its own', () => {
    const command = 'tpa ledger list --from 2026-01-01 --status ADJUDICATED --limit 3 --offset 3 -p local';
    const short = 'tpa ledger list --limit 3 --offset 3';
    expect(wrapProse(`  next page: ${short}`, 40).split('\n')).toEqual(['  next page:', `  ${short}`]);
    // Longer than a line: continued with " \\", which a shell reads as one command.
    expect(wrapProse(`$ ${command}`, 40).split('\n')).toEqual([
      '$ tpa ledger list --from 2026-01-01 \\',
      '    --status ADJUDICATED --limit 3 \\',
      '    --offset 3 -p local',
    ]);
    // Its comment is not continued with " \\" (a shell would run the next line): it goes after, as comments.
    expect(wrapProse('  tpa fund approve ENC-2026-000001   # reviews, then asks before money moves', 40).split('\n')).toEqual([
      '  tpa fund approve ENC-2026-000001',
      '  # reviews, then asks before money',
      '  # moves',
    ]);
    // A word that merely contains "tpa" is not a command.
    expect(wrapProse('the setpa value is long enough to wrap here', 20).split('\n')).toEqual(['the setpa value is', 'long enough to wrap', 'here']);
  });

  it('measures by what shows: a coloured word is not wrapped early', () => {
    const text = `${bold('error:')} ${'word '.repeat(14).trim()}`;
    expect(plain(wrapProse(text, 80))).toBe(plain(text));
  });
});

describe('aligned and count', () => {
  it('right-aligns counts and amounts in columns of their own, with separators', () => {
    expect(
      aligned(
        [
          ['Matched', count(2000), '492,000.00'],
          ['Missing AEOB', count(7), '0.00'],
        ],
        [false, true, true],
      ),
    ).toEqual(['Matched       2,000  492,000.00', 'Missing AEOB      7        0.00']);
    expect(count(12345678)).toBe('12,345,678');
    expect(count(999)).toBe('999');
  });
});

describe('one way to break lines (fill, wrapWords)', () => {
  it('breaks at spaces only: a word longer than the line (an id, a path) stands alone on its line, whole', () => {
    const id = 'enc_01a24f6dc3749128dc87_and_then_some_more_of_it';
    const lines = wrapWords(`the encounter ${id} was funded for 2,460.00 to 1234567893`, 30);
    expect(lines).toEqual(['the encounter', id, 'was funded for 2,460.00 to', '1234567893']);
    for (const word of [id, '2,460.00', '1234567893']) expect(lines.some((l) => l.split(' ').includes(word))).toBe(true);
  });

  it('keeps units whole (flags with their short form), indents the lines after the first, and breaks a list too long for any line after its commas', () => {
    expect(fill(['-p, --profile ·', '-o, --output ·', '--json'], 32, '  ', '  ')).toEqual(['  -p, --profile · -o, --output ·', '  --json']);
    expect(wrapWords('a CSV of ssp_code,rate_type,rate_value,bundle_type,notes', 24)).toEqual([
      'a CSV of',
      'ssp_code,rate_type,',
      'rate_value,bundle_type,',
      'notes',
    ]);
    // An amount is not a list.
    expect(wrapWords('paid 1,234,567.89', 10)).toEqual(['paid', '1,234,567.89']);
    expect(wrapWords('  indented text that goes on', 16)).toEqual(['  indented text', '  that goes on']);
  });

  it('table cells and values wrap the same way: no word of a value is cut', () => {
    const text = keyValues([['Reason', 'amount_mismatch: The amount must equal the adjudicated benefit amount 1,792.00']], 40);
    expect(text.split('\n').every((l) => l.length <= 40)).toBe(true);
    expect(text).toContain('amount_mismatch:');
    expect(text).toMatch(/ 1,792\.00$/);
  });
});

describe('a list at any width', () => {
  const cols = [{ header: 'Id' }, { header: 'Provider' }, { header: 'Status' }, { header: 'Amount', align: 'right' as const }];
  const rows = [
    ['enc_01a24f6dc3749128dc87', 'Riverside Surgery Center (1234567893)', 'ADJUDICATED', '2,460.00'],
    ['enc_01a24f6dc3859128dc8c', 'Dr. Alice Morgan, Riverside GI (1045782368)', 'FUNDED', '612.00'],
  ];

  it('keeps a row on one line: the name is cut with … before its NPI, never the NPI, the id or the amount', () => {
    const text = table(cols, rows, { width: 80, list: true });
    const lines = text.split('\n');
    expect(lines.length).toBe(rows.length + 3);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(lines[2]).toMatch(/│ enc_01a24f6dc3749128dc87 │ Riverside… \(1234567893\)\s*│ ADJUDICATED │\s+2,460\.00 │/);
    expect(lines[3]).toMatch(/\(1045782368\)/);
  });

  it('leaves a column out rather than cut an id: a one-word column first, then text, the amount last', () => {
    const at = (width: number) => table(cols, rows, { width, list: true }).split('\n');
    for (const [width, header] of [
      [60, /│ Id\s+│ Provider\s+│\s+Amount │/],
      [50, /│ Id\s+│\s+Amount │/],
    ] as const) {
      const lines = at(width);
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
      expect(lines[1]).toMatch(header);
      expect(lines[2]).toContain('enc_01a24f6dc3749128dc87');
      expect(lines[2]).toContain('2,460.00');
    }
    expect(at(60)[2]).toMatch(/… \(1234567893\) │/);
  });

  it('a table that is not a list still wraps its text at spaces, every word whole', () => {
    const text = table(cols, rows, { width: 80 });
    expect(text).toContain('(1234567893)');
    expect(text.split('\n').length).toBeGreaterThan(rows.length + 3);
  });
});

describe('one way to break a command', () => {
  it('a suggested command is continued with " \\" at spaces outside its quotes only, as a shell reads it back', () => {
    const command = "tpa fund approve enc_01a24f6dc3749128dc87 --auth-code AUTH-20261207-ACME-0002 --notes 'owed again after a refund of the transfer'";
    const text = wrapProse(`to approve it anew: ${command}`, 60);
    for (const l of text.split('\n')) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(text).toContain("'owed again after a refund of the transfer'");
    // Joined back as a shell would (backslash-newline gone), it is the command.
    expect(text.replace(/ \\\n\s+/g, ' ').replace(/^to approve it anew:\s+/, '')).toBe(command);
  });

  it("--help's examples are broken the same way", async () => {
    const { fitCommand } = await import('../../src/cli/action.js');
    const text = fitCommand('tpa ledger list --all -o ndjson | jq -r \'select(.status == "ADJUDICATED") | .encounter_id\'', 56);
    expect(text.split('\n')).toEqual(['  $ tpa ledger list --all -o ndjson | jq -r \\', '      \'select(.status == "ADJUDICATED") | .encounter_id\'']);
    // A word that fits the line only nearer the margin comes nearer, whole, rather than be cut by the terminal.
    expect(fitCommand('tpa ledger list --all -o ndjson | jq -r \'select(.status == "ADJUDICATED") | .encounter_id\'', 50).split('\n')[1]).toBe(
      '\'select(.status == "ADJUDICATED") | .encounter_id\'',
    );
  });
});

describe('a token is never cut by a line break, at 80 columns', () => {
  // A journal's path under a short `mktemp -d` home is 79 columns: too long beside a label or after an indent, not for a line.
  const path = '/tmp/tmp.m2rjfttBWX/journals/fund-run-AUTH-20261207-ACME-911fc8de0aef.ndjson';
  const hash = '06626cc5aaaabbbbccccddddeeeeffff000011112222333344445555666677772030';
  const longer = `/tmp/${'x'.repeat(90)}/run.ndjson`;
  // Each token sits whole on one line, and no line but one holding a token longer than the line passes 80 columns.
  const whole = (text: string, tokens: readonly string[]) => {
    const lines = plain(text).split('\n');
    for (const t of tokens)
      expect(
        lines.some((l) => l.includes(t)),
        `${t} whole in:\n${text}`,
      ).toBe(true);
    for (const l of lines) if (displayWidth(l) > 80) expect(l.trim().split(' ')[0]!.length, l).toBeGreaterThan(80);
  };

  it('keyValues: a path, a hash and a command go on lines of their own, nearer the margin, never past it', () => {
    const text = keyValues(
      [
        ['Approved', '3'],
        ['Journal', path],
        ['Next', `tpa fund run --journal ${path} -p sandbox`],
        ['Authorization code', `record 123 ${hash}`],
        ['Longer', longer],
      ],
      80,
    );
    whole(text, [path, hash, longer]);
    const lines = text.split('\n');
    // The command reads back as one: each line but its last ends in " \".
    const next = lines.findIndex((l) => l.startsWith('Next'));
    expect(lines[next]).toMatch(/tpa fund run --journal \\$/);
    expect(lines[next + 1]).toBe(`  ${path} \\`);
    expect(lines[next + 2]!.trim()).toBe('-p sandbox');
    expect(lines.find((l) => l.includes(longer))!.trim()).toBe(longer);
    // Beside the label at 80 columns, the 76-column path would be cut by the terminal: it has a line of its own.
    expect(lines[lines.indexOf('Journal') + 1]).toBe(`    ${path}`);
  });

  it('a note and a suggested command: the path nearer the margin, the " \\" after it on the same line', () => {
    const note = wrapProse(
      `interrupted after 3 of 300 approvals: the journal says what was approved; continue with: tpa fund run --journal ${path} -p sandbox`,
      80,
    );
    whole(note, [path]);
    const lines = note.split('\n');
    expect(lines.find((l) => l.includes(path))).toMatch(/ndjson \\$/);
    expect(
      wrapProse(`journal: ${path} (if interrupted, run: tpa fund run --journal ${path})`, 80)
        .split('\n')
        .filter((l) => l.includes(path)),
    ).toHaveLength(2);
    expect(fill(['see', 'this', path, 'now'], 80, '', '        ')).toEqual(['see this', `    ${path}`, '        now']);
  });
});

describe('a command in prose', () => {
  it('is "tpa" followed by one of its commands: "tpa prints it" is prose, wrapped as prose, never continued with " \\"', () => {
    const text = wrapProse('> "y" is not an amount: write it as tpa prints it, e.g. 2,040.00 or 2040: type 2,460.00, or press Ctrl-C to send nothing', 78);
    expect(text).not.toContain('\\');
    expect(text.split('\n')).toEqual([
      '> "y" is not an amount: write it as tpa prints it, e.g. 2,040.00 or 2040: type',
      '2,460.00, or press Ctrl-C to send nothing',
    ]);
    expect(wrapProse('continue with: tpa fund run --journal /tmp/a-long-folder/journals/fund-run-AUTH-20261207-ACME.ndjson --yes', 60)).toContain(' \\\n');
  });

  it("knows the root's commands, as the command tree lists them", async () => {
    const { ROOT } = await import('../../src/cli/program.js');
    const { COMMAND_WORDS } = await import('../../src/render/text.js');
    expect([...COMMAND_WORDS].sort()).toEqual([...ROOT.map((r) => r.name), 'help'].sort());
  });
});
