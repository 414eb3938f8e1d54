// Reading the screen, and output that scripts and spreadsheets rely on,
// in-process with a terminal switch at 80, 100 and 120 columns: bold amounts
// line up, the ledger is one line per entry from 100 columns with failed and refunded transfers
// flagged, the page hint comes last, prose wraps at spaces, counts carry separators, a CSV always
// has its header, `--all` has one shape, the report's amounts are JSON numbers, and the ledger's
// CSV has the latest status and its time rather than a JSON list in a cell.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { centsToAmount } from '../../src/domain/money.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { cents, ndjson } from '../helpers/values.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Row = Record<string, any>;
const CLOCK = '2026-11-20T12:00:00Z';
const LATER = '2026-11-25T12:00:00Z';
const PERIOD = ['--from', '2026-11-01', '--to', '2026-11-30'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what this takes off
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

let home: ReturnType<typeof tempDir>;
const at = (clock: string, args: string[], more: { tty?: boolean; columns?: number; env?: Record<string, string> } = {}) =>
  runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock, ...more.env }, tty: more.tty, columns: more.columns });
const run = (args: string[], more: { tty?: boolean; columns?: number } = {}) => at(LATER, args, more);
const ids: string[] = [];
let professionalSubmission = '';

beforeAll(async () => {
  home = tempDir();
  // Five institutional encounters on five days: one failed, one refunded, one settled, two adjudicated.
  for (let d = 10; d < 15; d++) {
    const file = join(home.dir, `c${d}.json`);
    writeFileSync(file, JSON.stringify(claimTemplate({ type: 'institutional', serviceDate: `2026-11-${d}` })));
    const r = await at(CLOCK, ['claim', 'submit', file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    ids.push(r.json<Row>().external_claim_id);
  }
  // And a professional claim whose benefit (under 1,000) is narrower than its charges (1,500.00).
  const file = join(home.dir, 'professional.json');
  writeFileSync(file, JSON.stringify(claimTemplate({ type: 'professional', cpt: ['43235'], patient: 'MBR-1001', serviceDate: '2026-11-09' })));
  const r = await at(CLOCK, ['claim', 'submit', file, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  ids.push(r.json<Row>().external_claim_id);
  professionalSubmission = r.json<Row>().submission_id;
  for (const [i, id] of ids.slice(0, 3).entries()) {
    const r = await at(CLOCK, ['fund', 'approve', id, '--amount', '2460.00', '--auth-code', `AUTH-20261120-SCR-000${i + 1}`, '--yes']);
    expect(r.code, r.stderr).toBe(0);
  }
  expect((await at(CLOCK, ['local', 'simulate', 'settlement-failure', ids[0]!])).code).toBe(0);
  expect((await at(LATER, ['local', 'simulate', 'refund', ids[1]!])).code).toBe(0);
});
afterAll(() => home.remove());

/** The column (on screen) where each line's amount ends, for the lines whose label is given. */
function amountEnds(text: string, labels: readonly string[]): number[] {
  return labels.map((label) => {
    const line = plain(text)
      .split('\n')
      .find((l) => l.startsWith(`${label} `));
    expect(line, `${label} in\n${plain(text)}`).toBeDefined();
    const m = /\d\.\d\d(?!\d)/.exec(line!.slice(label.length));
    expect(m, line).not.toBeNull();
    return label.length + m!.index + m![0].length;
  });
}

describe('bold amounts line up with the others', () => {
  for (const columns of [80, 120]) {
    it(`ledger show at ${columns} columns: Payer responsibility and Balance end where the other amounts end`, async () => {
      const r = await run(['ledger', 'show', ids[2]!], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('\x1b['); // bold really is there
      const ends = amountEnds(r.stdout, ['Submitted charges', 'Allowed', 'Patient responsibility', 'Payer responsibility', 'Balance']);
      expect(new Set(ends).size, plain(r.stdout)).toBe(1);
    });

    it(`claim poll at ${columns} columns: Benefit (plan pays) ends where Charges ends`, async () => {
      const r = await run(['claim', 'poll', professionalSubmission], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const ends = amountEnds(r.stdout, ['Charges', 'Allowed', '  Copay', 'Patient responsibility', 'Benefit (plan pays)']);
      expect(plain(r.stdout)).toMatch(/^Benefit \(plan pays\)\s+\d{1,3}\.\d\d$/m);
      expect(new Set(ends).size, plain(r.stdout)).toBe(1);
    });
  }
});

describe('ledger list on a terminal', () => {
  for (const columns of [100, 120]) {
    it(`at ${columns} columns an entry is one line: id, date, provider, status and benefit, no wider than the terminal`, async () => {
      const r = await run(['ledger', 'list'], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const lines = plain(r.stdout).trimEnd().split('\n');
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(columns);
      for (const id of ids) {
        const line = lines.find((l) => l.includes(id));
        expect(line, plain(r.stdout)).toBeDefined();
        expect(line).toMatch(/2026-11-\d\d/);
        // The provider's name gives way, its NPI never.
        expect(line).toMatch(/(Rive|Dr\.)[^│]*\((1234567893|1045782368)\)/);
        expect(line).toMatch(/\d\.\d\d\s*│$/);
      }
      // The header is one line, and no entry spills onto a second.
      expect(lines.length).toBe(ids.length + 3);
      expect(lines[1]).toMatch(/Id.*Service date.*Provider.*Status.*Benefit/);
    });
  }

  for (const columns of [100, 120]) {
    it(`--all at ${columns} columns: a flag on a later page than the first still fits its line`, async () => {
      // The first page of two holds no flag; the table's widths come from it.
      const r = await run(['ledger', 'list', '--all', '--limit', '2'], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const lines = plain(r.stdout).trimEnd().split('\n');
      expect(lines.length, plain(r.stdout)).toBe(ids.length + 3);
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(columns);
      expect(lines.find((l) => l.includes(ids[0]!))).toMatch(/ADJUDICATED ✗ failed/);
      expect(lines.find((l) => l.includes(ids[1]!))).toMatch(/ADJUDICATED ↩ refunded/);
    });
  }

  it('at 120 columns a failed transfer and a refunded one are flagged in the status column', async () => {
    const r = await run(['ledger', 'list'], { tty: true, columns: 120 });
    const line = (id: string) =>
      plain(r.stdout)
        .split('\n')
        .find((l) => l.includes(id))!;
    expect(line(ids[0]!)).toMatch(/ADJUDICATED ✗ failed/);
    expect(line(ids[1]!)).toMatch(/ADJUDICATED ↩ refunded/);
    expect(line(ids[2]!)).toMatch(/RECONCILED/);
    expect(line(ids[2]!)).not.toMatch(/failed|refunded/);
    expect(line(ids[3]!)).not.toMatch(/failed|refunded/);
  });

  it('at 80 columns an entry is still one line: the id, the status with its flag and the benefit; the provider left out rather than its NPI cut', async () => {
    for (const args of [[], ['--all', '--limit', '2']]) {
      const r = await run(['ledger', 'list', ...args], { tty: true, columns: 80 });
      const lines = plain(r.stdout).trimEnd().split('\n');
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
      expect(lines.length, plain(r.stdout)).toBe(ids.length + 3);
      expect(lines[1]).toMatch(/│ Id\s+│ Status\s+│\s+Benefit │/);
      expect(lines.find((l) => l.includes(ids[0]!))).toMatch(/│ ADJUDICATED ✗ failed\s*│\s+[\d,]+\.\d\d │$/);
    }
  });

  it('the page hint goes to stderr after the table, with separators; not at all without more pages', async () => {
    const r = await run(['ledger', 'list', '--limit', '2'], { tty: true, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('showing 1–2 of 6\n  next page:   tpa ledger list --limit 2 --offset 2\n  all of them: tpa ledger list --limit 2 --all\n');
    expect(r.stdout).not.toMatch(/showing/);
    const all = await run(['ledger', 'list'], { tty: true, columns: 120 });
    expect(all.stderr).toBe('');
  });

  it('the page hint names its numbers with thousands separators', async () => {
    const r = await run(['ledger', 'list', '--limit', '2', '--offset', '1000'], { tty: true, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const { pageHint } = await import('../../src/cli/options.js');
    expect(pageHint('1,001–1,020 of 12,345', { next: 'N', all: 'A' })).toBe('showing 1,001–1,020 of 12,345\n  next page:   N\n  all of them: A');
  });
});

describe('the settlement report', () => {
  it('its reconciliation section is aligned: counts end in one column, amounts in another', async () => {
    for (const columns of [80, 120]) {
      const r = await run(['settlement', 'report', ...PERIOD], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const text = plain(r.stdout);
      const section = text.slice(text.indexOf('Reconciliation'), text.indexOf('Exceptions to act on')).trim().split('\n').slice(1);
      const rows = section.filter((l) => /\d\.\d\d$/.test(l));
      expect(rows.length, text).toBe(4);
      expect(new Set(rows.map((l) => l.length)).size, section.join('\n')).toBe(1);
      const countEnds = rows.map((l) => /\d+(?=\s+[\d,]+\.\d\d$)/.exec(l)!).map((m) => m.index + m[0].length);
      expect(new Set(countEnds).size, section.join('\n')).toBe(1);
    }
  });

  it('counts have thousands separators in the table, beside the amounts', async () => {
    const { reportTable } = await import('../../src/cli/commands/settlement/report.js');
    const { periodReport } = await import('../../src/domain/report.js');
    const { tableTools } = await import('../../src/render/output.js');
    const r = periodReport([], new Map(), LATER);
    r.totals.count = 12345;
    r.byStatus.push({ status: 'ADJUDICATED', count: 12345, chargesCents: 123456789, allowedCents: 0, patientCents: 0, benefitCents: 0 });
    r.reconciliation.matched = { count: 2000, amountCents: 492_000_00 };
    r.providers.push({ npi: '1234567893', name: 'Riverside', payouts: 1500, amountCents: 100, refundedCents: 0, feeCents: 1, netCents: 99 });
    const text = reportTable(await tableTools(false, 120), r, { start_date: '2026-11-01', end_date: '2026-11-30' }, LATER, 'service');
    expect(text).toMatch(/ADJUDICATED\s+│\s+12,345\s+│\s+1,234,567\.89/);
    expect(text).toMatch(/Matched\s+2,000\s+492,000\.00/);
    expect(text).toMatch(/1,500\s+│\s+1\.00/);
    expect(text).not.toMatch(/\b(12345|2000|1500)\b/);
  });

  it('-o json writes every amount as a JSON number, exact to the cent, never a string', async () => {
    const r = await run(['settlement', 'report', ...PERIOD, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json<Row>();
    const strings: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (typeof v === 'string' && /^-?\d+\.\d\d$/.test(v)) strings.push(`${path}: ${v}`);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    };
    walk(report, '');
    expect(strings).toEqual([]);
    expect(typeof report.money.released).toBe('number');
    // Two transfers released (the failed one moved nothing), one still settled.
    expect(report.money.released).toBe(centsToAmount(2 * 246000));
    expect(cents(report.money.settled)).toBe(246000);
    expect(report.providers.every((p: Row) => typeof p.amount === 'number' && typeof p.net === 'number')).toBe(true);
    const csv = await run(['settlement', 'report', ...PERIOD, '-o', 'csv', '--section', 'money']);
    // In CSV, two decimals: a spreadsheet reads it as money.
    expect(csv.stdout).toMatch(/^released,4920\.00$/m);
  });
});

describe('CSV always has its header', () => {
  const empty = ['--from', '2020-01-01', '--to', '2020-01-31'];
  it.each([
    ['ledger list', ['ledger', 'list', ...empty, '-o', 'csv'], 'id,encounter_id,encounter_number,'],
    ['ledger list --all', ['ledger', 'list', ...empty, '--all', '-o', 'csv'], 'id,encounter_id,encounter_number,'],
    ['ratesheet catalog', ['ratesheet', 'catalog', '--search', 'no-such-thing', '-o', 'csv'], 'id,code,name,level,medicare_rate,'],
    ['ratesheet catalog --all', ['ratesheet', 'catalog', '--search', 'no-such-thing', '--all', '-o', 'csv'], 'id,code,name,level,medicare_rate,'],
    ['settlement report --section exceptions', ['settlement', 'report', ...empty, '-o', 'csv', '--section', 'exceptions'], 'kind,encounter_id,'],
    [
      'settlement report --section providers',
      ['settlement', 'report', ...empty, '-o', 'csv', '--section', 'providers'],
      'npi,name,payouts,amount,refunded,fees,net',
    ],
    ['settlement report --section days', ['settlement', 'report', ...empty, '-o', 'csv', '--section', 'days'], 'day,amount'],
    ['local audit list', ['local', 'audit', 'list', '--from', '2020-01-01', '--to', '2020-01-02', '-o', 'csv'], 'seq,at,type,'],
    ['fund history', ['fund', 'history', '--to', '2020-01-01', '-o', 'csv'], 'id,at,profile,environment,encounter_id,amount,'],
    ['fund run --dry-run', ['fund', 'run', '--dry-run', ...empty, '-o', 'csv'], 'encounter_id,encounter_number,service_date,'],
    ['config list', ['config', 'list', '-o', 'csv'], 'key,value'],
    ['local keys list', ['local', 'keys', 'list', '-o', 'csv'], 'id,environment,prefix,last4,scopes,status,'],
    ['local clients list', ['local', 'clients', 'list', '-o', 'csv'], 'client_id,scopes,status,registered_at,revoked_at'],
    ['ratesheet show (no items yet)', ['ratesheet', 'show', 'BLD-1001', '-o', 'csv'], 'id,ssp_id,ssp_code,ssp_name,rate_type,rate_value,'],
  ])('%s with no rows writes the header, and it is the header a list with rows has', async (name, args, start) => {
    if (name.startsWith('ratesheet show')) expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(start), JSON.stringify(r.stdout)).toBe(true);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('the empty header of ledger list, the catalog, fund history and a dry run is the header of a full one', async () => {
    const full = await run(['ledger', 'list', '-o', 'csv']);
    const none = await run(['ledger', 'list', ...empty, '-o', 'csv']);
    expect(none.stdout.split('\n')[0]).toBe(full.stdout.split('\n')[0]);
    for (const [full, none] of [
      [
        ['fund', 'history', '-o', 'csv'],
        ['fund', 'history', '--to', '2020-01-01', '-o', 'csv'],
      ],
      [
        ['fund', 'run', '--dry-run', '-o', 'csv'],
        ['fund', 'run', '--dry-run', ...empty, '-o', 'csv'],
      ],
    ]) {
      const rows = (await run(full!)).stdout.split('\n');
      expect(rows.length).toBeGreaterThan(2);
      expect((await run(none!)).stdout.split('\n')[0]).toBe(rows[0]);
    }
    const catalog = await run(['ratesheet', 'catalog', '-o', 'csv']);
    const noCatalog = await run(['ratesheet', 'catalog', '--search', 'no-such-thing', '-o', 'csv']);
    expect(noCatalog.stdout.split('\n')[0]).toBe(catalog.stdout.split('\n')[0]);
  });
});

describe('ledger list -o csv: the latest status and its time, not a JSON list in a cell', () => {
  it('csv has status and status_at; json and ndjson keep status_progression', async () => {
    const json = (await run(['ledger', 'list', '-o', 'json'])).json<Row>().results as Row[];
    for (const args of [
      ['ledger', 'list', '-o', 'csv'],
      ['ledger', 'list', '--all', '-o', 'csv'],
    ]) {
      const csv = (await run(args)).stdout.trimEnd().split('\n');
      const header = csv[0]!.split(',');
      expect(header).not.toContain('status_progression');
      expect(header.slice(header.indexOf('status'), header.indexOf('status') + 2)).toEqual(['status', 'status_at']);
      expect(csv.join('\n')).not.toContain('[{');
      for (const e of json) {
        const line = csv.find((l) => l.includes(e.encounter_id))!;
        const last = e.status_progression[e.status_progression.length - 1];
        expect(line).toContain(`,${e.status},${last.timestamp},`);
      }
    }
    const lines = ndjson((await run(['ledger', 'list', '--all', '-o', 'ndjson'])).stdout);
    expect(lines.map((l) => l.status_progression)).toEqual(json.map((e) => e.status_progression));
  });
});

describe('--all has one shape on every list that pages', () => {
  it.each([
    ['ledger', 'list', '--limit'],
    ['ratesheet', 'catalog', '--page-size'],
  ])('%s %s: a page is {count, next, previous, results}; --all is one array of every row', async (noun, verb, size) => {
    const page = (await run([noun!, verb!, size!, '2', '-o', 'json'])).json<Row>();
    expect(Object.keys(page)).toEqual(['count', 'next', 'previous', 'results']);
    const all = (await run([noun!, verb!, size!, '2', '--all', '-o', 'json'])).json<Row[]>();
    expect(Array.isArray(all)).toBe(true);
    expect(all).toHaveLength(page.count);
    expect(all.slice(0, 2)).toEqual(page.results);
    const rows = ndjson((await run([noun!, verb!, size!, '2', '--all', '-o', 'ndjson'])).stdout);
    expect(rows).toEqual(all);
  });

  it('both say so in their --help, in the same words, and tpa help formats says it for every list', async () => {
    const help = async (noun: string, verb: string) => {
      const text = (await run([noun, verb, '--help'])).stdout.replace(/\s+/g, ' ');
      return /--all (follow .*?) -h, --help/.exec(text)?.[1];
    };
    const ledger = await help('ledger', 'list');
    expect(ledger).toMatch(/one array/);
    expect(ledger).toMatch(/\{count, next, previous, results\}/);
    expect(await help('ratesheet', 'catalog')).toBe(ledger);
    const formats = (await run(['help', 'formats'])).stdout.replace(/\s+/g, ' ');
    expect(formats).toMatch(/one page of a list is \{count, next, previous, results\}, a listing with --all one array of every row/);
    expect(formats).toMatch(/a header \(even when no row matches\)/);
  });
});

describe('prose wraps at spaces to the terminal, not mid-word', () => {
  it('an error and its hint at 80 columns: no line wider, every word whole; piped, one line as before', async () => {
    const args = ['ledger', 'show', 'enc_00000000000000000000', '-o', 'table', '--profile', 'no-such-profile-with-a-rather-long-name-to-make-it-wrap'];
    const tty = await run(args, { tty: true, columns: 80 });
    const piped = await run(args);
    expect(tty.code).toBe(piped.code);
    expect(piped.stderr.split('\n')[0]!.length, piped.stderr).toBeGreaterThan(80);
    const lines = plain(tty.stderr).trimEnd().split('\n');
    for (const l of lines) expect([...l].length, tty.stderr).toBeLessThanOrEqual(80);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(plain(piped.stderr).trimEnd().replace(/\s+/g, ' '));
  });

  it('a note at 80 columns (a claim still in adjudication): wrapped at spaces, every word whole', async () => {
    const file = join(home.dir, 'late.json');
    writeFileSync(file, JSON.stringify(claimTemplate({ type: 'professional', cpt: ['45380'], patient: 'MBR-1002', serviceDate: '2026-11-08' })));
    const slow = { TPA_ADJUDICATION_DELAY: '1h' };
    const sub = await at(LATER, ['claim', 'submit', file, '-o', 'json'], { env: slow });
    expect(sub.code, sub.stderr).toBe(0);
    const poll = ['claim', 'poll', sub.json<Row>().submission_id];
    const tty = await at(LATER, poll, { tty: true, columns: 80, env: slow });
    const piped = await at(LATER, [...poll, '-o', 'table'], { env: slow });
    expect(tty.code).toBe(7);
    const note = piped.stderr.split('\n').find((l) => l.startsWith('not finished'))!;
    expect(note.length).toBeGreaterThan(80);
    const lines = plain(tty.stderr).trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect([...l].length, tty.stderr).toBeLessThanOrEqual(80);
    expect(lines.join(' ')).toBe(note);
  });

  it('the demo at 80 columns: every line fits and no word is split', async () => {
    const tty = await run(['demo'], { tty: true, columns: 80 });
    expect(tty.code, tty.stderr).toBe(0);
    const lines = plain(tty.stdout).split('\n');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    // A long answer went on under its text, after the arrow; the sentence that was 122 columns wide is whole.
    const hung = lines.flatMap((l, i) => (/^→ /.test(l) && /^ {2}\S/.test(lines[i + 1] ?? '') ? [lines[i + 1]!] : []));
    expect(hung.length, tty.stdout).toBeGreaterThan(0);
    expect(plain(tty.stdout).replace(/\s+/g, ' ')).toContain('bills a colonoscopy with biopsy (CPT 45380) for member MBR-1003, with the surgeon');
  });
});
