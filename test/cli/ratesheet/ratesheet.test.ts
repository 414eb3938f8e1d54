import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
const file = (name: string, text: string) => {
  const path = join(home.dir, name);
  writeFileSync(path, text);
  return path;
};

describe('tpa ratesheet', () => {
  it('catalog lists code, name, Medicare rate, CPT and anesthesia; --all follows every page', async () => {
    const table = await run(['ratesheet', 'catalog', '--search', 'cataract', '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/EY-0501\s+│ Cataract removal with intraocular lens\s+│\s+1,950\.00 │ 66984 │ yes/);
    const paged = await run(['ratesheet', 'catalog', '--page-size', '10', '-o', 'table']);
    expect(paged.stderr.replace(/\s+/g, ' ')).toMatch(
      /showing 10 of \d+ next page: tpa ratesheet catalog --page-size 10 --page 2 all of them: tpa ratesheet catalog --page-size 10 --all/,
    );
    const all = await run(['ratesheet', 'catalog', '--page-size', '10', '--all']);
    const list = all.json<{ code: string }[]>();
    expect(list.length).toBeGreaterThanOrEqual(40);
    expect(new Set(list.map((s) => s.code)).size).toBe(list.length);
    expect((await run(['ratesheet', 'catalog', '--page-size', '201'])).code).toBe(2);
  });

  it('builds a schedule, previews it with a total, finalizes it, and the rate reaches lookup and adjudication', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    expect(
      (
        await run([
          'ratesheet',
          'add',
          'BLD-1001',
          '--ssp',
          'ey-0501',
          '--rate-type',
          'PERCENT_MEDICARE',
          '--rate',
          '1.35',
          '--bundle-eligible',
          '--bundle-type',
          'CONVENED',
        ])
      ).code,
    ).toBe(0);
    const preview = await run(['ratesheet', 'preview', 'BLD-1001', '-o', 'table']);
    expect(preview.stdout).toMatch(/HD-0401[^\n]*2,100\.00/);
    expect(preview.stdout).toMatch(/EY-0501[^\n]*1\.35×[^\n]*1,950\.00[^\n]*2,632\.50/);
    expect(preview.stdout).toMatch(/Total[^\n]*2 SSPs[^\n]*4,732\.50/);
    expect((await run(['ratesheet', 'finalize', 'BLD-1001'])).code).toBe(2); // no --yes, no terminal
    const done = await run(['ratesheet', 'finalize', 'BLD-1001', '--yes']);
    expect(done.json()).toMatchObject({ status: 'FINALIZED', contract_id: 'ctr_6e2d9b4f1a7c3058', rate_records_created: 2 });
    // The rates take effect tomorrow (today's services keep today's rates): a day later they are in force.
    expect((await run(['local', 'clock', 'advance', '1d'])).code).toBe(0);
    const rates = await run(['lookup', 'rates', '--npi', '1902847361', '--group', 'GRP-4004', '--cpt', '64721', '66984']);
    expect(rates.json<{ negotiated_rate: number }[]>().map((r) => r.negotiated_rate)).toEqual([2100, 2632.5]);
    const claim = await run(['claim', 'template', '--type', 'institutional', '--npi', '1902847361', '--cpt', '64721']);
    const ack = (await run(['claim', 'submit', file('c.json', claim.stdout)])).json<{ submission_id: string }>();
    const adjudicated = await run(['claim', 'poll', ack.submission_id, '--wait']);
    // The template's surgeon line names Dr. Morgan (GRP-1001), not a payee of the facility's GRP-4004 (CARC-B7).
    expect(adjudicated.json()).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 2100 } });
    const locked = await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '1']);
    expect(locked.code).toBe(4);
  });

  it('finalize --dry-run says which codes stop being rated and writes nothing; the finalize itself says it again', async () => {
    await run(['ratesheet', 'init', 'BLD-1002']);
    expect((await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    const dry = await run(['ratesheet', 'finalize', 'BLD-1002', '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = dry.json<{ status: string; codes_dropped: string[]; codes_ended: string[]; codes_rated: string[] }>();
    expect(plan.status).toBe('DRY_RUN');
    expect(plan.codes_dropped).toContain('45378');
    expect(plan.codes_ended).toEqual(expect.arrayContaining(plan.codes_dropped));
    expect(plan.codes_rated).not.toContain('45378');
    // Nothing was written: the schedule is still a draft, and 45378 is still rated.
    expect((await run(['ratesheet', 'show', 'BLD-1002', '-o', 'json'])).json<{ rate_schedule: { status: string } }>().rate_schedule.status).toBe('DRAFT');
    const table = await run(['ratesheet', 'finalize', 'BLD-1002', '--yes', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/No longer rated[^\n]*45378/);
  });

  it("a finalized schedule keeps the plan's preauthorization of a code: a knee claim without a reference is pended", async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'OR-0306', '--rate-type', 'CASE_RATE', '--rate', '12000'])).code).toBe(0);
    expect((await run(['ratesheet', 'finalize', 'BLD-1001', '--yes'])).code).toBe(0);
    expect((await run(['local', 'clock', 'advance', '1d'])).code).toBe(0);
    const claim = await run(['claim', 'template', '--type', 'institutional', '--npi', '1902847361', '--cpt', '27447']);
    const ack = (await run(['claim', 'submit', file('knee.json', claim.stdout)])).json<{ submission_id: string }>();
    const adjudicated = await run(['claim', 'poll', ack.submission_id, '--wait']);
    expect(adjudicated.json()).toMatchObject({ disposition: 'PENDING_REVIEW' });
  });

  it('show, config and remove; --ssp takes a UUID or a code', async () => {
    await run(['ratesheet', 'init', 'BLD-1002', '--default-rate', '1.4']);
    const catalog = (await run(['ratesheet', 'catalog', '--search', 'GI-0101'])).json<{ results: { id: string }[] }>();
    await run(['ratesheet', 'add', 'BLD-1002', '--ssp', catalog.results[0]!.id, '--rate-type', 'CASE_RATE', '--rate', '450']);
    expect((await run(['ratesheet', 'config', 'BLD-1002', '--elective-hours', '48', '--scope', 'FACILITY_ONLY'])).code).toBe(0);
    const show = await run(['ratesheet', 'show', 'BLD-1002', '-o', 'table']);
    expect(show.stdout).toMatch(/Scope of care\s+FACILITY_ONLY/);
    expect(show.stdout).toMatch(/Elective advance\s+48 h/);
    expect(show.stdout).toMatch(/Default rate\s+PERCENT_MEDICARE 1\.4/);
    expect(show.stdout).toMatch(/GI-0101[^\n]*450\.00/);
    expect((await run(['ratesheet', 'config', 'BLD-1002', '--scope', 'EVERYWHERE'])).code).toBe(2);
    expect((await run(['ratesheet', 'config', 'BLD-1002'])).code).toBe(2);
    expect((await run(['ratesheet', 'remove', 'BLD-1002', '--ssp', 'GI-0101'])).code).toBe(0);
    expect((await run(['ratesheet', 'remove', 'BLD-1002', '--ssp', 'GI-0101'])).code).toBe(3);
    expect((await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'ZZ-9999', '--rate-type', 'CASE_RATE', '--rate', '1'])).code).toBe(3);
    expect((await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '1.234'])).code).toBe(2);
    expect((await run(['ratesheet', 'show', 'BLD-9999'])).code).toBe(3);
  });

  it('load-catalog adds a version at the default rate', async () => {
    await run(['ratesheet', 'init', 'BLD-1001']);
    const loaded = await run(['ratesheet', 'load-catalog', 'BLD-1001', '--version', 'v1.0']);
    expect(loaded.code).toBe(0);
    expect(loaded.json<{ count: number; message: string }>().message).toMatch(/v1\.0/);
    expect((await run(['ratesheet', 'load-catalog', 'BLD-1001', '--version', 'v9.9'])).code).toBe(3);
  });

  it('notes import exactly as export wrote them: leading spaces before a formula, a trailing tab, a no-break space', async () => {
    await run(['ratesheet', 'init', 'BLD-1001']);
    const notes = [' =1+1', "'\t", '\u00a0@SUM(A1)', 'ends with a tab\t'];
    const codes = ['HD-0401', 'EY-0501', 'GI-0101', 'CV-1101'];
    for (const [i, code] of codes.entries())
      expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', code, '--rate-type', 'CASE_RATE', '--rate', '100', '--notes', notes[i]!])).code).toBe(0);
    const exported = await run(['ratesheet', 'export', 'BLD-1001']);
    const imported = await run(['ratesheet', 'import', 'BLD-1001', file('notes.csv', exported.stdout), '--yes']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json()).toMatchObject({ written: 0, change: 0, unchanged: 4 });
    expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toBe(exported.stdout);
  });

  it('export and import round-trip a schedule through CSV, showing changes first and writing only with no --dry-run', async () => {
    await run(['ratesheet', 'init', 'BLD-1001']);
    await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '--notes', 'hand, "carpal"']);
    await run([
      'ratesheet',
      'add',
      'BLD-1001',
      '--ssp',
      'EY-0501',
      '--rate-type',
      'PERCENT_MEDICARE',
      '--rate',
      '1.35',
      '--bundle-eligible',
      '--bundle-type',
      'CONVENED',
    ]);
    const exported = await run(['ratesheet', 'export', 'BLD-1001']);
    expect(exported.stdout).toBe(
      'ssp_code,rate_type,rate_value,bundle_type,notes\nHD-0401,CASE_RATE,2100.00,,"hand, ""carpal"""\nEY-0501,PERCENT_MEDICARE,1.35,CONVENED,\n',
    );
    const same = await run(['ratesheet', 'import', 'BLD-1001', file('same.csv', exported.stdout)]);
    expect(same.json()).toMatchObject({ written: 0, add: 0, change: 0, unchanged: 2 });
    const edited = file('edited.csv', `${exported.stdout.replace('2100.00', '2200.00')}GI-0101,CASE_RATE,900,,\n`);
    const dry = await run(['ratesheet', 'import', 'BLD-1001', edited, '--dry-run', '-o', 'table']);
    expect(dry.stdout).toMatch(/HD-0401[^\n]*change[^\n]*rate_value 2,100\.00 → 2,200\.00/);
    expect(dry.stdout).toMatch(/GI-0101[^\n]*add/);
    expect(dry.stdout).toMatch(/dry run, nothing written/);
    expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toBe(exported.stdout);
    const applied = await run(['ratesheet', 'import', 'BLD-1001', edited]);
    expect(applied.json()).toMatchObject({ written: 2, add: 1, change: 1, unchanged: 1 });
    expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toBe(readFileSync(edited, 'utf8').replace(',900,', ',900.00,'));
  });

  it('a bad row stops the import before anything is written and names its line', async () => {
    await run(['ratesheet', 'init', 'BLD-1001']);
    const csv = file(
      'bad.csv',
      'ssp_code,rate_type,rate_value,bundle_type,notes\nHD-0401,CASE_RATE,2100,,\nGI-0101,FLAT,9,,\n\nNOPE-1,CASE_RATE,1,,\nEY-0501,CASE_RATE,12.345,,\n',
    );
    const r = await run(['ratesheet', 'import', 'BLD-1001', csv, '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 3: rate type must be CASE_RATE or PERCENT_MEDICARE/);
    expect(r.stderr).toMatch(/line 5: NOPE-1 is not an active SSP/);
    expect(r.stderr).toMatch(/line 6: a CASE_RATE rate has more than two decimals/);
    expect(r.stderr).toMatch(/nothing was written/);
    expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toBe('ssp_code,rate_type,rate_value,bundle_type,notes\n');
    const header = await run(['ratesheet', 'import', 'BLD-1001', file('h.csv', 'code,rate\nHD-0401,1\n')]);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/line 1: the header must name the columns/);
  });
});

describe('ratesheet counts say one in the singular', () => {
  it('finalize --dry-run of one item: "1 contract rate record", not "1 … records"', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    const r = await run(['ratesheet', 'finalize', 'BLD-1001', '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ message: string }>().message).toMatch(/would make 1 contract rate record on .*end the rates of 0 codes/);
  });

  it('what finalize says before its question: "1 code is then no longer rated", "its claims"; several in the plural', async () => {
    const { finalizePlanText } = await import('../../../src/cli/commands/ratesheet/finalize.js');
    const plan = (dropped: string[], ended: string[], records: number) =>
      ({ contract_id: 'ctr_x', effective_date: '2027-01-01', rate_records_created: records, codes_dropped: dropped, codes_ended: ended }) as never;
    const one = finalizePlanText(plan(['45378'], ['45378'], 1), 'BLD-1001', undefined, false);
    expect(one).toContain('1 item of BLD-1001 will become');
    expect(one).toContain('The rates in force of 1 code end the day before.');
    expect(one).toContain('1 code is then no longer rated on this contract, and its claims are not covered: 45378.');
    const two = finalizePlanText(plan(['45378', '43235'], ['45378', '43235'], 2), 'BLD-1001', undefined, false);
    expect(two).toContain('2 items of BLD-1001');
    expect(two).toContain('2 codes are then no longer rated on this contract, and their claims are not covered: 45378, 43235.');
    expect(`${one}\n${two}`).not.toMatch(/\b1 (codes|items)\b/);
  });

  it('import of a row of one field says "has 1 field"', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    writeFileSync(join(home.dir, 'short.csv'), 'ssp_code,rate_type,rate_value,bundle_type,notes\nHD-0401\n');
    const r = await run(['ratesheet', 'import', 'BLD-1001', join(home.dir, 'short.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has 1 field; the header has 5');
  });
});

describe('ratesheet CSV amounts', () => {
  it('show -o csv writes a case rate with two decimals, a multiplier as it is; catalog -o csv the Medicare rate with two decimals', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'EY-0501', '--rate-type', 'PERCENT_MEDICARE', '--rate', '1.35'])).code).toBe(0);
    const show = (await run(['ratesheet', 'show', 'BLD-1001', '-o', 'csv'])).stdout;
    expect(show).toMatch(/,HD-0401,[^\n]*,CASE_RATE,2100\.00,/);
    expect(show).toMatch(/,EY-0501,[^\n]*,PERCENT_MEDICARE,1\.35,/);
    for (const args of [
      ['ratesheet', 'catalog', '-o', 'csv'],
      ['ratesheet', 'catalog', '--all', '-o', 'csv'],
    ]) {
      const [header, ...rows] = (await run(args)).stdout.trim().split('\n');
      const at = header!.split(',').indexOf('medicare_rate');
      expect(rows.length).toBeGreaterThan(5);
      // The name may hold a quoted comma: the rate is read from the end of the line.
      for (const row of rows) expect(row.split(',').at(at - header!.split(',').length)!, row).toMatch(/^\d+\.\d\d$/);
    }
  });
});
