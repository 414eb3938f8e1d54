// Rates and amounts bounded on the command line: a rate, a ratio or an amount beyond what
// one amount may be (99,999,999.99), or a ratio with more than four decimals, exits 2 naming the
// option, the CSV line or the claim field, and nothing is sent or written.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../src/engine/engine.js';
import { CURRENT_CATALOG_VERSION, sspUuid } from '../../src/engine/store/catalog-seed.js';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach, { TPA_CLOCK: '2026-03-02T10:00:00Z' });
const run = home.run;

describe('rates and amounts on the command line', () => {
  it('ratesheet add, config and init refuse a rate out of bounds or a ratio with more than four decimals, naming the option', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    const add = (type: string, rate: string) => run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', type, '--rate', rate, '-o', 'json']);
    for (const [type, rate, why] of [
      ['PERCENT_MEDICARE', '1999999999999', /more than 1000 times the Medicare rate/],
      ['PERCENT_MEDICARE', '1.12345', /more than 4 decimals/],
      ['PERCENT_MEDICARE', '1.123456', /more than 4 decimals/],
      ['CASE_RATE', '100000000', /more than 99,999,999\.99/],
    ] as const) {
      const r = await add(type, rate);
      expect(r.code, `${type} ${rate}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/--rate: /);
      expect(r.stderr).toMatch(why);
    }
    expect((await run(['ratesheet', 'show', 'BLD-1001', '-o', 'json'])).json<{ rate_schedule: { items: unknown[] } }>().rate_schedule.items).toEqual([]);
    expect((await add('PERCENT_MEDICARE', '1.1234')).code).toBe(0);
    for (const [args, option] of [
      [['--fallback-percent', '1.00001'], '--fallback-percent'],
      [['--fallback-percent', '5000'], '--fallback-percent'],
      [['--default-rate', '1.23456', '--default-rate-type', 'PERCENT_MEDICARE'], '--default-rate'],
      [['--default-rate', '123456789', '--default-rate-type', 'CASE_RATE'], '--default-rate'],
      [['--default-rate', '123456789'], '--default-rate'],
    ] as const) {
      const r = await run(['ratesheet', 'config', 'BLD-1001', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${option}: `);
    }
    // Left to the engine, which knows the schedule's default rate type: 2000 × Medicare is no ratio it takes.
    const engine = await run(['ratesheet', 'config', 'BLD-1001', '--default-rate', '2000', '-o', 'json']);
    expect(engine.code).toBe(2);
    expect(engine.json()).toMatchObject({ errors: [{ field: 'default_rate_value' }] });
    const init = await run(['ratesheet', 'init', 'BLD-1002', '--fallback-percent', '1.25001']);
    expect(init.code).toBe(2);
    expect(init.stderr).toContain('--fallback-percent: ');
  });

  it('ratesheet import refuses a row out of bounds by its line, and writes nothing', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    // An SSP dearer than the seeded ones (Medicare pays 200,000.00): 600 times it is no contract rate.
    const db = new Database(databaseFile(home.dir));
    db.prepare(`INSERT INTO ssp_catalog VALUES (?, ?, 'ZZ-9001', 'A very dear package', 'ENCOUNTER', 20000000, '1.0', '99999', 0, 1)`).run(
      sspUuid(CURRENT_CATALOG_VERSION, 'ZZ-9001'),
      CURRENT_CATALOG_VERSION,
    );
    db.close();
    const csv = join(home.dir, 'rates.csv');
    writeFileSync(
      csv,
      'ssp_code,rate_type,rate_value,bundle_type,notes\nHD-0401,CASE_RATE,2100,,\nEY-0501,PERCENT_MEDICARE,1.12345,,\nGI-0101,CASE_RATE,100000000,,\nOR-0306,PERCENT_MEDICARE,3100000000000000,,\nZZ-9001,PERCENT_MEDICARE,600,,\n',
    );
    const r = await run(['ratesheet', 'import', 'BLD-1001', csv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 3: a PERCENT_MEDICARE rate has more than 4 decimals/);
    expect(r.stderr).toMatch(/line 4: a CASE_RATE rate is more than 99,999,999\.99/);
    expect(r.stderr).toMatch(/line 5: a PERCENT_MEDICARE rate is more than 1000 times the Medicare rate/);
    expect(r.stderr).toMatch(/line 6: 600 × the Medicare rate 200,000\.00 of ZZ-9001 is more than 99,999,999\.99/);
    expect(r.stderr).toMatch(/nothing was written/);
    expect((await run(['ratesheet', 'show', 'BLD-1001', '-o', 'json'])).json<{ rate_schedule: { items: unknown[] } }>().rate_schedule.items).toEqual([]);
  });

  it('fund approve refuses an amount above 99,999,999.99 before sending; claim validate refuses such a unit price', async () => {
    const enc = await adjudicatedEncounter(run, home.dir);
    const r = await run(['fund', 'approve', enc.id, '--amount', '100000000.00', '--auth-code', 'AUTH-BOUND-0001', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--amount: \W*100000000\.00\W* is more than 99,999,999\.99/);
    expect((await run(['settlement', 'show', enc.id])).code).toBe(7);
    const claim = await claimFile(run, home.dir, {
      edit: (c) => {
        c.item[0].unitPrice.value = 100_000_000;
        c.item[0].factor = 0.5;
        c.item[0].net.value = 50_000_000;
        delete c.total;
      },
    });
    const v = await run(['claim', 'validate', claim]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/item\[0\]\.unitPrice\.value/);
  });
});
