import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

const BLIND = '/tpa-api/v1/contract-lookup/blind/';
const FULL = '/tpa-api/v1/contract-lookup/full/';
let home: ReturnType<typeof tempDir>;
let engine: Engine;

beforeEach(() => {
  home = tempDir();
  engine = engineAt(home.dir, '2026-03-02T10:00:00Z');
});
afterEach(() => {
  engine.close();
  home.remove();
});

describe('blind lookup', () => {
  it('finds the contract covering every requested code and reveals no pricing', () => {
    const res = call(engine, 'POST', BLIND, { npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378', '43235'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ match_found: true, contract_id: 'ctr_8d21b5e09f4c7a13', message: expect.any(String) });
  });

  it('answers 404 match_found false when a code is not covered, the group differs or the contract expired', () => {
    for (const body of [
      { npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378', '99213'] },
      { npi: '1045782368', group_id: 'GRP-2002', cpt_codes: ['45378'] },
      { npi: '1673904821', group_id: 'GRP-3003', cpt_codes: ['70553'] },
      { npi: '1728493051', group_id: 'GRP-3003', cpt_codes: ['66984'] },
    ]) {
      const res = call(engine, 'POST', BLIND, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toMatchObject({ match_found: false, message: expect.any(String) });
      expect(res.body).not.toHaveProperty('contract_id');
    }
  });

  it('finds the contract active on the service_date asked for, else on today', () => {
    const northgate = { npi: '1673904821', group_id: 'GRP-3003', cpt_codes: ['70553'] };
    const harbor = { npi: '1728493051', group_id: 'GRP-3003', cpt_codes: ['66984'] };
    expect(call(engine, 'POST', BLIND, { ...northgate, service_date: '2025-06-01' }).body).toEqual({
      match_found: true,
      contract_id: 'ctr_0d4c8a2e6b9f1357',
      message: expect.any(String),
    });
    expect(call(engine, 'POST', BLIND, { ...harbor, service_date: '2027-02-01' }).body).toMatchObject({
      match_found: true,
      contract_id: 'ctr_7b3f0e8c1d5a9246',
    });
    const after = call(engine, 'POST', BLIND, { ...northgate, service_date: '2026-01-01' });
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ match_found: false, message: expect.stringContaining('2026-01-01') });
    expect(call(engine, 'POST', BLIND, { ...northgate, service_date: '2025-13-01' }).body).toEqual({
      errors: [{ field: 'service_date', message: expect.any(String) }],
    });
  });

  it('answers 400 errors[] naming each bad field', () => {
    const res = call(engine, 'POST', BLIND, { npi: '12345', group_id: '', cpt_codes: ['4537'] });
    expect(res.status).toBe(400);
    expect((res.body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['npi', 'group_id', 'cpt_codes[0]']);
  });
});

describe('full lookup', () => {
  const base = { npi: '1045782368', group_id: 'GRP-1001', cpt_code: '45378' };

  it('returns pricing and terms for a fixed-rate contract', () => {
    const res = call(engine, 'POST', FULL, { ...base, contract_id: 'ctr_8d21b5e09f4c7a13' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      contract_id: 'ctr_8d21b5e09f4c7a13',
      contract_number: 'DC-2026-0002',
      effective_date: '2025-01-01',
      termination_date: null,
      network_tier: 'TIER_1',
      rate_type: 'CASE_RATE',
      negotiated_rate: 425,
      medicare_multiplier: null,
      bundle_type: 'SINGLE',
      anesthesia_included: false,
      // The rate in force on the date asked for (today on the engine clock by default).
      service_date: '2026-03-02',
      rate_effective_from: '2025-01-01',
      rate_effective_to: null,
    });
  });

  it('returns the multiplier and no negotiated rate for a percentage contract, and the bundle rate for a bundle', () => {
    const pct = call(engine, 'POST', FULL, { npi: '1196382455', group_id: 'GRP-1001', cpt_code: '00811', contract_id: 'ctr_2b7e6d0c3a9f8154' }).body;
    expect(pct).toMatchObject({ rate_type: 'PERCENT_OF_CHARGES', negotiated_rate: null, medicare_multiplier: 0.85, anesthesia_included: true });
    const bundle = call(engine, 'POST', FULL, {
      npi: '1450827369',
      group_id: 'GRP-2002',
      cpt_code: '27447',
      contract_id: 'ctr_5a0f9e3d6c2b7184',
      admit_type: 'INPATIENT',
    }).body;
    expect(bundle).toMatchObject({ rate_type: 'BUNDLE', bundle_type: 'PACKAGE', negotiated_rate: 28500 });
  });

  it('answers 400 for a malformed contract id and 404 for an unknown or expired one', () => {
    const malformed = call(engine, 'POST', FULL, { ...base, contract_id: 'nope' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ errors: [{ field: 'contract_id' }] });
    const unknown = call(engine, 'POST', FULL, { ...base, contract_id: 'ctr_0000000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: expect.any(String), contract_id: 'ctr_0000000000000000' });
    const expired = call(engine, 'POST', FULL, { npi: '1673904821', group_id: 'GRP-3003', cpt_code: '70553', contract_id: 'ctr_0d4c8a2e6b9f1357' });
    expect(expired.status).toBe(404);
  });

  it('answers 400 for an unknown admit type', () => {
    expect(call(engine, 'POST', FULL, { ...base, contract_id: 'ctr_8d21b5e09f4c7a13', admit_type: 'DAYCARE' }).body).toMatchObject({
      errors: [{ field: 'admit_type' }],
    });
  });
});

describe('the route table', () => {
  it('answers 404 JSON for an unknown route and 405 for a known path with another method', () => {
    expect(call(engine, 'GET', '/tpa-api/v1/nothing/').status).toBe(404);
    const res = call(engine, 'GET', BLIND);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});
