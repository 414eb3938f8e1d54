// Rates and amounts bounded: every rate of a rate schedule, the contract rate a ratio
// makes, a fund release's amount and a claim's unit price stay within what one amount may be
// (99,999,999.99), and a ratio with more decimals than are kept (four) is refused, never rounded.
// Each is a 400 with errors[] naming the field, and nothing is written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { CURRENT_CATALOG_VERSION, sspUuid } from '../../src/engine/store/catalog-seed.js';
import { call, useEngineHome } from '../helpers/engine.js';

const B = '/api/v1/computable-contracts/builder/BLD-1001/rate-schedule';
const MON = '2026-03-02T10:00:00Z';
const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;
const carpal = sspUuid(CURRENT_CATALOG_VERSION, 'HD-0401');

function fields(r: { status: number; body: unknown }): string[] {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  return (r.body as { errors: { field: string }[] }).errors.map((e) => e.field);
}

describe('rates and amounts are bounded', () => {
  it('refuses a schedule rate beyond what money holds, or a ratio with more than four decimals, naming the field', () => {
    const e = home.at(MON, '0');
    const add = (rate_type: string, rate_value: unknown) => call(e, 'PUT', `${B}/add-ssp/`, { ssp_id: carpal, rate_type, rate_value });
    // The PERCENT_MEDICARE ratio that once made a 3.1e18 USD contract rate, and its neighbours.
    expect(call(e, 'POST', `${B}/init/`, {}).status).toBe(200);
    expect(fields(add('PERCENT_MEDICARE', 1_999_999_999_999))).toEqual(['rate_value']);
    expect(fields(add('PERCENT_MEDICARE', 1000.0001))).toEqual(['rate_value']);
    const decimals = add('PERCENT_MEDICARE', 1.12345);
    expect(fields(decimals)).toEqual(['rate_value']);
    expect((decimals.body as Body).errors[0].message).toMatch(/more than 4 decimals.*never rounded/);
    expect(fields(add('CASE_RATE', 100_000_000))).toEqual(['rate_value']);
    expect(fields(add('CASE_RATE', 1e21))).toEqual(['rate_value']);
    const schedule = () => (call(e, 'GET', `${B}/`).body as Body).rate_schedule;
    expect(schedule().items).toEqual([]);
    // The edges are taken, exactly.
    expect(add('CASE_RATE', 99_999_999.99).status).toBe(200);
    expect(add('PERCENT_MEDICARE', 1.1234).status).toBe(200);
    expect(schedule().items[0]).toMatchObject({ rate_type: 'PERCENT_MEDICARE', rate_value: 1.1234 });
    expect(add('PERCENT_MEDICARE', 1000).status).toBe(200);

    // Schedule settings: the fallback ratio, the default rate by the default rate type.
    const config = (body: Body) => call(e, 'PATCH', `${B}/config/`, body);
    expect(fields(config({ non_elective_fallback_percent: 1.00001 }))).toEqual(['non_elective_fallback_percent']);
    expect(fields(config({ non_elective_fallback_percent: 5000 }))).toEqual(['non_elective_fallback_percent']);
    expect(fields(config({ default_rate_value: 1.23456 }))).toEqual(['default_rate_value']);
    expect(fields(config({ default_rate_value: 2000 }))).toEqual(['default_rate_value']);
    expect(fields(config({ default_rate_type: 'CASE_RATE', default_rate_value: 123_456_789 }))).toEqual(['default_rate_value']);
    expect(schedule()).toMatchObject({ non_elective_fallback_percent: 1.25, default_rate_type: 'PERCENT_MEDICARE', default_rate_value: 1.5 });
    expect(config({ default_rate_type: 'CASE_RATE', default_rate_value: 99_999_999.99 }).status).toBe(200);
    // A CASE_RATE default is no ratio: switching the type back alone is judged against the ratio's bounds.
    expect(fields(config({ default_rate_type: 'PERCENT_MEDICARE' }))).toEqual(['default_rate_value']);
    const init = call(e, 'POST', '/api/v1/computable-contracts/builder/BLD-1002/rate-schedule/init/', { default_rate_value: 1.00001 });
    expect(fields(init)).toEqual(['default_rate_value']);
  });

  it('refuses a ratio whose contract rate (ratio × Medicare rate) is more than one amount may be: on add, on load-catalog and on finalize', () => {
    const e = home.at(MON, '0');
    // An SSP dearer than the seeded ones: Medicare pays 200,000.00 for it.
    const dear = sspUuid(CURRENT_CATALOG_VERSION, 'ZZ-9001');
    e.db
      .prepare(`INSERT INTO ssp_catalog VALUES (?, ?, 'ZZ-9001', 'A very dear package', 'ENCOUNTER', 20000000, '1.0', '99999', 0, 1)`)
      .run(dear, CURRENT_CATALOG_VERSION);
    expect(call(e, 'POST', `${B}/init/`, {}).status).toBe(200);
    const tooDear = call(e, 'PUT', `${B}/add-ssp/`, { ssp_id: dear, rate_type: 'PERCENT_MEDICARE', rate_value: 500.0001 });
    expect(fields(tooDear)).toEqual(['rate_value']);
    expect((tooDear.body as Body).errors[0].message).toMatch(
      /500\.0001 × the Medicare rate 200,000\.00 of ZZ-9001 is 100,000,020\.00, more than 99,999,999\.99/,
    );
    expect(call(e, 'PUT', `${B}/add-ssp/`, { ssp_id: dear, rate_type: 'PERCENT_MEDICARE', rate_value: 499.9999 }).status).toBe(200);
    // The default rate loaded onto every SSP of the catalog: the dearest decides.
    expect(call(e, 'PATCH', `${B}/config/`, { default_rate_value: 600 }).status).toBe(200);
    const load = call(e, 'POST', `${B}/load-catalog/`, { version: CURRENT_CATALOG_VERSION });
    expect(fields(load)).toEqual(['default_rate_value']);
    expect((call(e, 'GET', `${B}/`).body as Body).rate_schedule.items).toHaveLength(1);
    // A rate stored before rates were bounded never becomes a live contract rate.
    e.db.prepare(`UPDATE rate_schedule_items SET rate_value = '1000000000000' WHERE ssp_id = ?`).run(dear);
    const finalized = call(e, 'POST', '/api/v1/computable-contracts/builder/BLD-1001/finalize', {});
    expect(fields(finalized)).toEqual(['items[0].rate_value']);
    expect(e.db.prepare('SELECT COUNT(*) FROM contract_rate_records').pluck().get()).toBe(0);
    expect((call(e, 'GET', `${B}/`).body as Body).rate_schedule.status).toBe('DRAFT');
  });

  it('refuses a fund release above what one amount may be as a 400 naming amount, not a mismatch', () => {
    const e = home.at(MON, '0');
    const ack = call(e, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02' }))
      .body as Body;
    for (const amount of [100_000_000, 3.1e18, 1e308]) {
      const r = call(e, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: ack.external_claim_id, amount, authorization_code: 'AUTH-BOUND-0001' });
      expect(fields(r), String(amount)).toEqual(['amount']);
      expect((r.body as Body).errors[0].message).toMatch(/more than 99,999,999\.99/);
    }
    expect(e.db.prepare('SELECT COUNT(*) FROM settlements').pluck().get()).toBe(0);
  });

  it('refuses a claim line whose unit price alone is more than one line may charge, whatever its factor', () => {
    const e = home.at(MON, '0');
    const claim = claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02' }) as Body;
    claim.item[0].unitPrice.value = 100_000_000;
    claim.item[0].factor = 0.5;
    claim.item[0].net = { value: 50_000_000, currency: 'USD' };
    delete claim.total;
    const r = call(e, 'POST', '/tpa-api/v1/claims/submit/', claim);
    expect(fields(r)).toEqual(['item[0].unitPrice.value']);
    expect(e.db.prepare('SELECT COUNT(*) FROM encounters').pluck().get()).toBe(0);
  });
});
