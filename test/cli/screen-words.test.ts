// What the text screens say, read as a person reads them at 80 columns: ids that other commands
// take, the words beside them, amounts in one format, lines wrapped at spaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

const home = useTpaHome(beforeAll, afterAll);
const run = home.run;
/** A command on a terminal `columns` wide, in-process. */
const onTerminal = (args: string[], columns = 80) => runTpa(args, { home: home.dir, tty: true, columns });

describe('the processor trace', () => {
  it('is shown at adjudication as the id the transfer takes once funded, not as a transfer; the ledger calls it the transfer once funded', async () => {
    const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', 'JS00111223333'] });
    const trace = e.response.processor_trace_id as string;
    expect(trace).toMatch(/^tr_/);
    const polled = await onTerminal(['claim', 'poll', e.submissionId]);
    expect(polled.code, polled.stderr).toBe(0);
    expect(polled.stdout).not.toMatch(/Processor trace/);
    expect(polled.stdout).toMatch(new RegExp(`\\nTrace\\s+${trace} \\(the transfer's id once funded\\)\\n`));
    const before = await onTerminal(['ledger', 'show', e.id]);
    expect(before.stdout).toMatch(new RegExp(`\\n\\s*Trace\\s+${trace} \\(the transfer's id once funded\\)`));
    const approved = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-TRACE-0001', '--yes', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    const after = await onTerminal(['ledger', 'show', e.id]);
    expect(after.stdout).toMatch(new RegExp(`\\n\\s*Transfer\\s+${approved.json<{ processor_transfer_id: string }>().processor_transfer_id}\\n`));
    expect(after.stdout).not.toMatch(/once funded|Processor trace/);
  });
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what this takes off
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('lists on a terminal are tables, a row a line, at 80 columns and wider', () => {
  const encounters: { id: string; amount: string }[] = [];
  beforeAll(async () => {
    for (const patient of ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004']) {
      const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
      encounters.push({ id: e.id, amount: e.amount });
    }
    const ok = await run(['fund', 'approve', encounters[0]!.id, '--amount', encounters[0]!.amount, '--auth-code', 'AUTH-20261207-LIST-0001', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    // A refusal, whose reason is a long sentence.
    expect((await run(['fund', 'approve', encounters[1]!.id, '--amount', '1.00', '--auth-code', 'AUTH-20261207-LIST-0002', '--yes'])).code).not.toBe(0);
  });

  /** The table's lines: one per row, the header and the borders. */
  const rowsOf = (stdout: string) => plain(stdout).trimEnd().split('\n');

  it('piped, a list is neither cut nor trimmed of columns, even as a table', async () => {
    const r = await run(['fund', 'history', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/When.*Profile.*Encounter.*Amount.*Authorization.*Outcome.*Transfer.*Transfer status.*Reason/);
    expect(r.stdout).toContain('The amount must equal the adjudicated benefit');
    expect(r.stdout).not.toContain('…');
  });

  for (const columns of [80, 120]) {
    it(`fund history at ${columns} columns: an approval a line, its encounter and amount whole`, async () => {
      const r = await onTerminal(['--no-pager', 'fund', 'history'], columns);
      expect(r.code, r.stderr).toBe(0);
      const lines = rowsOf(r.stdout);
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(columns);
      // Every approval of this home (the trace test's too) on its own line, nothing else but the header and borders.
      const approvals = (await run(['fund', 'history', '-o', 'json'])).json<unknown[]>().length;
      expect(lines.length, plain(r.stdout)).toBe(approvals + 3);
      expect(lines.filter((l) => /enc_/.test(l)).length).toBe(approvals);
      expect(lines.find((l) => l.includes(encounters[0]!.id))).toMatch(/ APPROVED /);
      expect(lines.find((l) => l.includes(encounters[0]!.id))).toContain(Number(encounters[0]!.amount).toLocaleString('en-US', { minimumFractionDigits: 2 }));
      expect(lines.find((l) => l.includes(encounters[1]!.id))).toMatch(/ REFUSED .*1\.00|1\.00 .* REFUSED /);
      if (columns >= 120) expect(lines.join('\n')).toMatch(/AUTH-20261207-LIST-0001/);
    });

    it(`fund run --dry-run at ${columns} columns: an encounter a line, then the summary`, async () => {
      const r = await onTerminal(['--no-pager', 'fund', 'run', '--dry-run'], columns);
      expect(r.code, r.stderr).toBe(0);
      const text = plain(r.stdout);
      for (const l of text.split('\n')) expect([...l].length, l).toBeLessThanOrEqual(columns);
      const listing = text.slice(0, text.indexOf('Payment run (dry run')).trimEnd().split('\n');
      // Three adjudicated, unfunded encounters: three rows, a header and two borders.
      expect(listing.length, text).toBe(3 + 3);
      for (const e of encounters.slice(1)) expect(listing.filter((l) => l.includes(e.id)).length).toBe(1);
      expect(listing[1]).toMatch(/Encounter.*Amount/);
    });
  }
});

describe('the builder ids on the text screens', () => {
  it('local fixtures lists the builder instances and catalog versions the ratesheet commands take, at 80 columns', async () => {
    const r = await onTerminal(['--no-pager', 'local', 'fixtures']);
    expect(r.code, r.stderr).toBe(0);
    const lines = plain(r.stdout).split('\n');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(lines.find((l) => l.includes('BLD-1001'))).toMatch(/│ BLD-1001 │ DC-2026-0101 │ 1902847361 │/);
    expect(lines.find((l) => l.includes('BLD-1002'))).toMatch(/│ BLD-1002 │/);
    expect(lines.some((l) => /│ v1\.0\s+│\s+\d+ │/.test(l))).toBe(true);
    const help = await onTerminal(['ratesheet', 'show', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'instance_id builder instance id, e.g. BLD-1001 (the embedded engine lists its own: tpa local fixtures)',
    );
  });

  it('init names the rate schedule it made, add the item and the SSP id, as json does', async () => {
    const init = await onTerminal(['ratesheet', 'init', 'BLD-1002']);
    expect(init.code, init.stderr).toBe(0);
    const schedule = (await run(['ratesheet', 'init', 'BLD-1002', '-o', 'json'])).json<{ rate_schedule_id: string }>().rate_schedule_id;
    expect(plain(init.stdout)).toMatch(new RegExp(`^✓ .*BLD-1002\\nRate schedule\\s+${schedule}\\n$`));
    const add = await onTerminal(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '900']);
    expect(add.code, add.stderr).toBe(0);
    const again = (await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '900', '-o', 'json'])).json<{
      rate_schedule_item_id: string;
      ssp_id: string;
    }>();
    expect(plain(add.stdout)).toContain(`Item    ${again.rate_schedule_item_id}\nSSP id  ${again.ssp_id}\n`);
  });
});

describe('one amount format on a screen', () => {
  it('a case rate, a default rate and a negotiated rate are grouped with two decimals like every amount beside them, without a currency sign', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001', '--default-rate-type', 'CASE_RATE', '--default-rate', '2100'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '12500'])).code).toBe(0);
    const show = plain((await onTerminal(['--no-pager', 'ratesheet', 'show', 'BLD-1001'], 120)).stdout);
    expect(show).toMatch(/\nDefault rate\s+CASE_RATE 2,100\.00\n/);
    expect(show).toMatch(/HD-0401[^\n]*│\s+12,500\.00 │/);
    expect(show).not.toMatch(/\b2100\b|12500/);
    const full = plain((await onTerminal(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378'])).stdout);
    expect(full).toMatch(/\nNegotiated rate\s+\d{1,3}(,\d{3})*\.\d\d\n/);
    expect(full).not.toContain('$');
  });
});

describe('a settlement refunded, at 80 columns', () => {
  // A home of its own: the encounters of the other screens stay as they are.
  const own = useTpaHome(beforeAll, afterAll);
  it('says what came back in lines within the width, broken at spaces, never mid-word', async () => {
    const e = await adjudicatedEncounter(own.run, own.dir, { template: ['--type', 'institutional'] });
    const ok = await own.run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20261207-REFUND-0001', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await own.run(['local', 'clock', 'advance', '3d'])).code).toBe(0);
    const refunded = await own.run(['local', 'simulate', 'refund', e.id]);
    expect(refunded.code, refunded.stderr).toBe(0);
    const r = await runTpa(['--no-pager', 'settlement', 'show', e.id], { home: own.dir, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = plain(r.stdout).trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // The sentence read across its lines: every word whole.
    const start = lines.findIndex((l) => l.startsWith('Refund '));
    expect(start, r.stdout).toBeGreaterThanOrEqual(0);
    const sentence = lines
      .slice(start)
      .map((l) => l.trim())
      .join(' ');
    expect(sentence).toMatch(/came back of [\d,]+\.\d\d sent, processor fees of [\d,]+\.\d\d not returned, on /);
  });
});
