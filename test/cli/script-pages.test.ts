// What a script gets from `tpa ledger list` when it does not read a terminal: one page of several
// is said on stderr in every format (the rows left out are never silent), and CSV amounts carry two
// decimals, as a spreadsheet shows money.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/domain/csv.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

let home: ReturnType<typeof tempDir>;
const run = (args: string[]) => runTpa(args, { home: home.dir });

beforeAll(async () => {
  home = tempDir();
  for (const cpt of ['45378', '43235', '45380']) await adjudicatedEncounter(run, home.dir, { template: ['--cpt', cpt] });
});
afterAll(() => home.remove());

describe('ledger list for a script', () => {
  for (const format of ['csv', 'ndjson', 'json']) {
    it(`-o ${format} of one page of several says on stderr how many were left out and how to get them`, async () => {
      const r = await run(['ledger', 'list', '--limit', '2', '-o', format]);
      expect(r.code, r.stderr).toBe(0);
      const said = r.stderr.replace(/\s+/g, ' ');
      expect(said).toContain(`showing 1–2 of 3 entries: one page, the others are not in this ${format.toUpperCase()}`);
      expect(said).toContain(`next page: tpa ledger list --limit 2 -o ${format} --offset 2`);
      expect(said).toContain(`all of them: tpa ledger list --limit 2 -o ${format} --all`);
    });
  }

  it('the last page, or --all, says nothing on stderr', async () => {
    expect((await run(['ledger', 'list', '--limit', '2', '--offset', '2', '-o', 'csv'])).stderr).toBe('');
    expect((await run(['ledger', 'list', '--all', '-o', 'csv'])).stderr).toBe('');
    expect((await run(['ledger', 'list', '-o', 'csv'])).stderr).toBe('');
  });

  it('-o csv writes every amount with two decimals, in a page and with --all', async () => {
    for (const args of [
      ['ledger', 'list', '-o', 'csv'],
      ['ledger', 'list', '--all', '-o', 'csv'],
    ]) {
      const [header, ...rows] = parseCsv((await run(args)).stdout).map((r) => r.fields);
      const money = header!.flatMap((h, i) => (h.startsWith('financial_summary.') ? [i] : []));
      expect(money.length).toBeGreaterThan(5);
      expect(rows).toHaveLength(3);
      for (const row of rows) for (const i of money) expect(row[i], header![i]).toMatch(/^\d+\.\d\d$/);
    }
  });
});

describe('ratesheet catalog for a script', () => {
  it('-o csv of one page of several says so on stderr, with the next page and --all; --all says nothing', async () => {
    const r = await run(['ratesheet', 'catalog', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.replace(/\s+/g, ' ');
    expect(said).toMatch(/showing \d+ of [\d,]+ SSPs: one page, the others are not in this CSV/);
    expect(said).toContain('next page: tpa ratesheet catalog -o csv --page 2');
    expect(said).toContain('all of them: tpa ratesheet catalog -o csv --all');
    expect((await run(['ratesheet', 'catalog', '--all', '-o', 'csv'])).stderr).toBe('');
  });
});
