import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import type { Engine } from '../../src/engine/engine.js';
import { sspUuid } from '../../src/engine/store/catalog-seed.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

const B = '/api/v1/computable-contracts/builder';
let home: ReturnType<typeof tempDir>;
let engine: Engine;
const api = (method: string, path: string, body?: unknown) => call(engine, method, path, body);

beforeEach(() => {
  home = tempDir();
  engine = engineAt(home.dir, '2026-03-02T10:00:00Z', '0');
});
afterEach(() => {
  engine.close();
  home.remove();
});

describe('SSP catalog', () => {
  it('lists only active ENCOUNTER-level SSPs of the current version, paged', () => {
    const page = api('GET', '/api/v1/ssp/catalog/').body as { count: number; next: string; previous: null; results: Record<string, unknown>[] };
    expect(page.count).toBeGreaterThanOrEqual(40);
    expect(page.results).toHaveLength(20);
    expect(page.previous).toBeNull();
    expect(page.next).toBe('/api/v1/ssp/catalog/?page=2&page_size=20');
    expect(page.results[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      code: expect.any(String),
      name: expect.any(String),
      level: 'ENCOUNTER',
      medicare_rate: expect.any(Number),
      base_weight: expect.any(Number),
      primary_cpt_code: expect.stringMatching(/^\d{5}$/),
      requires_anesthesia: expect.any(Boolean),
    });
    const all = api('GET', '/api/v1/ssp/catalog/?page_size=200').body as { results: { code: string; name: string }[]; next: null };
    expect(all.next).toBeNull();
    const codes = all.results.map((r) => r.code);
    expect(codes).not.toContain('GI-0199'); // inactive
    expect(codes).not.toContain('OR-E001'); // episode level
    expect(codes).not.toContain('SP-0604'); // retired in v1.1
    expect(codes).toContain('OR-0309'); // new in v1.1
    const v10 = (api('GET', '/api/v1/ssp/catalog/?version=v1.0&page_size=200').body as { results: { code: string }[] }).results.map((r) => r.code);
    expect(v10).toContain('SP-0604');
  });

  it('searches by name or code', () => {
    const byName = api('GET', '/api/v1/ssp/catalog/?search=colonoscopy').body as { count: number; results: { name: string }[] };
    expect(byName.count).toBe(3);
    expect(byName.results.every((r) => /colonoscopy/i.test(r.name))).toBe(true);
    expect((api('GET', '/api/v1/ssp/catalog/?search=HD-0401').body as { results: { primary_cpt_code: string }[] }).results).toEqual([
      expect.objectContaining({ primary_cpt_code: '64721' }),
    ]);
  });

  it('refuses a page size outside 1..200 and an unknown version with 400', () => {
    for (const q of ['page_size=0', 'page_size=201', 'page=0', 'version=v9.9']) expect(api('GET', `/api/v1/ssp/catalog/?${q}`).status, q).toBe(400);
  });
});

describe('rate schedule', () => {
  const carpal = sspUuid('v1.1', 'HD-0401'); // Medicare 1,600.00, CPT 64721
  const cataract = sspUuid('v1.1', 'EY-0501'); // Medicare 1,950.00 in v1.1, CPT 66984

  it('initializes once: a second init returns the same schedule id, with the defaults of docs/local.md "Rate schedules"', () => {
    const first = api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    expect(first.status).toBe(200);
    const again = api('POST', `${B}/BLD-1001/rate-schedule/init/`, { scope_of_care: 'FACILITY_ONLY' });
    expect((again.body as { rate_schedule_id: string }).rate_schedule_id).toBe((first.body as { rate_schedule_id: string }).rate_schedule_id);
    expect(api('GET', `${B}/BLD-1001/rate-schedule/`).body).toMatchObject({
      rate_schedule: {
        ssp_reference_type: 'INDIVIDUAL',
        scope_of_care: 'FACILITY_AND_PROFESSIONAL',
        service_logic: 'ELECTIVE_ONLY',
        elective_advance_hours: 72,
        non_elective_fallback: 'PERCENT_MEDICARE',
        non_elective_fallback_percent: 1.25,
        default_rate_type: 'PERCENT_MEDICARE',
        default_rate_value: 1.5,
        items: [],
      },
    });
  });

  it('answers 404 for an unknown instance and for a schedule not initialized', () => {
    expect(api('POST', `${B}/BLD-9999/rate-schedule/init/`, {})).toMatchObject({ status: 404, body: { error: expect.any(String) } });
    expect(api('GET', `${B}/BLD-1001/rate-schedule/`).status).toBe(404);
  });

  it('config changes settings only and checks every field', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    expect(
      api('PATCH', `${B}/BLD-1001/rate-schedule/config/`, { scope_of_care: 'FACILITY_ONLY', elective_advance_hours: 48, non_elective_fallback: 'WRAP_NETWORK' })
        .status,
    ).toBe(200);
    const s = (api('GET', `${B}/BLD-1001/rate-schedule/`).body as { rate_schedule: Record<string, unknown> }).rate_schedule;
    expect(s).toMatchObject({
      scope_of_care: 'FACILITY_ONLY',
      elective_advance_hours: 48,
      non_elective_fallback: 'WRAP_NETWORK',
      items: [expect.objectContaining({ ssp_code: 'HD-0401' })],
    });
    const bad = api('PATCH', `${B}/BLD-1001/rate-schedule/config/`, {
      scope_of_care: 'EVERYTHING',
      elective_advance_hours: -1,
      default_rate_value: -2,
      colour: 'blue',
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: { field: string }[] }).errors.map((e) => e.field).sort()).toEqual([
      'colour',
      'default_rate_value',
      'elective_advance_hours',
      'scope_of_care',
    ]);
  });

  it('add-ssp upserts by SSP id, refuses a non-UUID (400 error), an unknown SSP (404) and a retired one', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    const added = api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, {
      ssp_id: carpal,
      rate_type: 'CASE_RATE',
      rate_value: 2100,
      is_bundle_eligible: true,
      bundle_type: 'CONVENED',
      notes: 'hand',
    });
    expect(added.body).toMatchObject({ rate_schedule_item_id: expect.any(String), ssp_id: carpal, message: expect.any(String) });
    const updated = api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'PERCENT_MEDICARE', rate_value: 1.4 });
    expect((updated.body as { rate_schedule_item_id: string }).rate_schedule_item_id).toBe(
      (added.body as { rate_schedule_item_id: string }).rate_schedule_item_id,
    );
    const items = (api('GET', `${B}/BLD-1001/rate-schedule/`).body as { rate_schedule: { items: Record<string, unknown>[] } }).rate_schedule.items;
    expect(items).toEqual([
      expect.objectContaining({ ssp_id: carpal, rate_type: 'PERCENT_MEDICARE', rate_value: 1.4, is_bundle_eligible: false, bundle_type: null, sort_order: 1 }),
    ]);
    expect(api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: 'HD-0401', rate_type: 'CASE_RATE', rate_value: 1 })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/UUID/) },
    });
    expect(
      api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: '00000000-0000-4000-8000-000000000000', rate_type: 'CASE_RATE', rate_value: 1 }).status,
    ).toBe(404);
    expect(api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'SP-0604'), rate_type: 'CASE_RATE', rate_value: 1 }).status).toBe(400);
    const bad = api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'FLAT', rate_value: -1, bundle_type: 'X' });
    expect((bad.body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['rate_type', 'rate_value', 'bundle_type']);
    expect(
      (
        api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'CASE_RATE', rate_value: 10.001 }).body as {
          errors: { field: string }[];
        }
      ).errors[0]!.field,
    ).toBe('rate_value');
  });

  it('add-ssp reads a rate of a type it does not know by no type’s rule: 2100 is a case rate, so only the type is refused', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    const bad = api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'PER_DIEM', rate_value: 2100 });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: unknown[] }).errors).toEqual([{ field: 'rate_type', message: 'is required: CASE_RATE or PERCENT_MEDICARE' }]);
    // A value no type takes is refused with each type's reason.
    const neither = api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'PER_DIEM', rate_value: 2100.001 });
    expect((neither.body as { errors: { field: string; message: string }[] }).errors[1]).toEqual({
      field: 'rate_value',
      message: expect.stringMatching(/^a CASE_RATE rate has more than two decimals.*; a PERCENT_MEDICARE rate /),
    });
  });

  it('remove-ssp removes an item; removing one that is not there is 404', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    expect(api('DELETE', `${B}/BLD-1001/rate-schedule/remove-ssp/`, { ssp_id: carpal }).status).toBe(200);
    expect(api('DELETE', `${B}/BLD-1001/rate-schedule/remove-ssp/`, { ssp_id: carpal }).status).toBe(404);
  });

  it('load-catalog adds every active encounter SSP of the version at the default rate, keeping items already chosen', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    const catalogCount = (api('GET', '/api/v1/ssp/catalog/?version=v1.0').body as { count: number }).count;
    const loaded = api('POST', `${B}/BLD-1001/rate-schedule/load-catalog/`, { version: 'v1.0' });
    expect(loaded.body).toEqual({ count: catalogCount - 1, message: expect.stringMatching(new RegExp(`${catalogCount - 1}.*v1\\.0`)) });
    const items = (
      api('GET', `${B}/BLD-1001/rate-schedule/`).body as {
        rate_schedule: { items: { ssp_code: string; rate_type: string; rate_value: number; sort_order: number }[] };
      }
    ).rate_schedule.items;
    expect(items).toHaveLength(catalogCount);
    expect(items[0]).toMatchObject({ ssp_code: 'HD-0401', rate_type: 'CASE_RATE', rate_value: 2100, sort_order: 1 });
    expect(items.slice(1).every((i) => i.rate_type === 'PERCENT_MEDICARE' && i.rate_value === 1.5)).toBe(true);
    expect(new Set(items.map((i) => i.sort_order)).size).toBe(items.length);
    expect(api('POST', `${B}/BLD-1001/rate-schedule/load-catalog/`, { version: 'v1.0' }).body).toMatchObject({ count: 0 });
    expect(api('POST', `${B}/BLD-1001/rate-schedule/load-catalog/`, { version: 'v7.0' }).status).toBe(404);
  });

  it('preview computes allowed amounts without writing: CASE_RATE is the rate, PERCENT_MEDICARE the rate times Medicare', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'PERCENT_MEDICARE', rate_value: 1.333 });
    const preview = api('GET', `${B}/BLD-1001/rate-schedule/preview/`).body as { items: Record<string, unknown>[] };
    expect(preview.items).toEqual([
      {
        ssp_code: 'HD-0401',
        ssp_name: 'Carpal tunnel release',
        rate_type: 'CASE_RATE',
        rate_value: 2100,
        calculated_allowed_amount: 2100,
        medicare_rate: 1600,
        bundle_type: null,
      },
      // 1.333 × 1,950.00 = 2,599.35
      {
        ssp_code: 'EY-0501',
        ssp_name: 'Cataract removal with intraocular lens',
        rate_type: 'PERCENT_MEDICARE',
        rate_value: 1.333,
        calculated_allowed_amount: 2599.35,
        medicare_rate: 1950,
        bundle_type: null,
      },
    ]);
    expect(engine.db.prepare('SELECT COUNT(*) FROM contract_rate_records').pluck().get() as number).toBe(0);
  });

  it('finalize turns the items into live contract rates that lookups and adjudication use, then refuses changes with 409', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: cataract, rate_type: 'PERCENT_MEDICARE', rate_value: 1.333 });
    const blindBefore = call(engine, 'POST', '/tpa-api/v1/contract-lookup/blind/', { npi: '1902847361', group_id: 'GRP-4004', cpt_codes: ['64721'] });
    expect(blindBefore.status).toBe(404);
    // From today, as the claim below is of today: today's services may be claimed already, so it is said (retroactive).
    const done = api('POST', `${B}/BLD-1001/finalize`, { effective_date: '2026-03-02', allow_retroactive: true });
    expect(done.body).toMatchObject({ status: 'FINALIZED', contract_id: 'ctr_6e2d9b4f1a7c3058', rate_records_created: 2 });
    const records = engine.db
      .prepare('SELECT ssp_code, cpt_code, rate_type, rate_value, allowed_amount_cents FROM contract_rate_records ORDER BY ssp_code')
      .all();
    expect(records).toEqual([
      { ssp_code: 'EY-0501', cpt_code: '66984', rate_type: 'PERCENT_MEDICARE', rate_value: '1.333', allowed_amount_cents: 259935 },
      { ssp_code: 'HD-0401', cpt_code: '64721', rate_type: 'CASE_RATE', rate_value: '2100.00', allowed_amount_cents: 210000 },
    ]);
    const blind = call(engine, 'POST', '/tpa-api/v1/contract-lookup/blind/', { npi: '1902847361', group_id: 'GRP-4004', cpt_codes: ['64721', '66984'] })
      .body as { contract_id: string };
    expect(blind.contract_id).toBe('ctr_6e2d9b4f1a7c3058');
    const full = call(engine, 'POST', '/tpa-api/v1/contract-lookup/full/', {
      contract_id: blind.contract_id,
      npi: '1902847361',
      group_id: 'GRP-4004',
      cpt_code: '66984',
    }).body;
    expect(full).toMatchObject({ rate_type: 'CASE_RATE', negotiated_rate: 2599.35 });
    const claim = claimTemplate({ type: 'institutional', npi: '1902847361', cpt: ['64721'], serviceDate: '2026-03-02' });
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim).body as { submission_id: string };
    const res = call(engine, 'GET', `/tpa-api/v1/claims/${ack.submission_id}/response/`).body as { adjudication: { allowed_amount: number } };
    // Facility fee charged 3,800.00 (above the 2,100.00 rate); the surgeon line names Dr. Morgan, whose
    // contract is in GRP-1001, not the facility's GRP-4004: she may not be paid for it (CARC-B7).
    expect(res.adjudication.allowed_amount).toBe(2100);
    expect(api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 1 })).toMatchObject({
      status: 409,
      body: { error: expect.any(String) },
    });
    expect(api('POST', `${B}/BLD-1001/finalize/`).status).toBe(409);
    expect(api('GET', `${B}/BLD-1001/rate-schedule/`).body).toMatchObject({ rate_schedule: { status: 'FINALIZED' } });
  });

  it('a code newly rated by a finalize needs preauthorization when the plan requires it for that code elsewhere', () => {
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'OR-0306'), rate_type: 'CASE_RATE', rate_value: 12000 });
    api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
    expect(api('POST', `${B}/BLD-1001/finalize`, { effective_date: '2026-03-02', allow_retroactive: true }).body).toMatchObject({ status: 'FINALIZED' });
    const rates = engine.db.prepare("SELECT cpt_code, requires_preauth FROM contract_rates WHERE contract_id = 'ctr_6e2d9b4f1a7c3058' ORDER BY cpt_code").all();
    expect(rates).toEqual([
      { cpt_code: '27447', requires_preauth: 1 }, // Lakeside's contract requires it
      { cpt_code: '64721', requires_preauth: 0 },
    ]);
    const claim = claimTemplate({ type: 'institutional', npi: '1902847361', cpt: ['27447'], serviceDate: '2026-03-02' });
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim).body as { submission_id: string };
    const res = call(engine, 'GET', `/tpa-api/v1/claims/${ack.submission_id}/response/`).body as { disposition: string };
    expect(res.disposition).toBe('PENDING_REVIEW');
  });

  it('a schedule finalized by another process reaches claims priced by this one (its contracts read from memory until they change)', () => {
    const claim = () => claimTemplate({ type: 'institutional', npi: '1902847361', cpt: ['64721'], serviceDate: '2026-03-02' });
    // This engine reads the provider's contracts (no rate for 64721 yet: the claim is refused).
    expect(api('POST', '/tpa-api/v1/claims/submit/', claim()).status).toBe(404);
    const other = engineAt(home.dir, '2026-03-02T10:00:00Z', '0');
    try {
      expect(call(other, 'POST', `${B}/BLD-1001/rate-schedule/init/`, {}).status).toBe(200);
      call(other, 'PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: carpal, rate_type: 'CASE_RATE', rate_value: 2100 });
      expect(call(other, 'POST', `${B}/BLD-1001/finalize`, { effective_date: '2026-03-02', allow_retroactive: true }).body).toMatchObject({
        status: 'FINALIZED',
      });
    } finally {
      other.close();
    }
    const ack = api('POST', '/tpa-api/v1/claims/submit/', claim());
    expect(ack.status).toBe(201);
    const res = api('GET', `/tpa-api/v1/claims/${(ack.body as { submission_id: string }).submission_id}/response/`).body as {
      adjudication: { allowed_amount: number };
    };
    expect(res.adjudication.allowed_amount).toBe(2100);
  });

  it('refuses to finalize an empty schedule', () => {
    api('POST', `${B}/BLD-1002/rate-schedule/init/`, {});
    expect(api('POST', `${B}/BLD-1002/finalize`).status).toBe(400);
  });
});
