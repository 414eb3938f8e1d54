// A claim that names one party twice in disagreement, submitted to the engine through its route
// table on a real SQLite file: 400 with errors[] naming both fields and both values, and nothing
// recorded, priced or payable (docs/design.md "Claims inside a Bundle": what disagrees is refused).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { call, useEngineHome } from '../helpers/engine.js';

type Body = Record<string, any>;
const T0 = '2026-03-02T10:00:00Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
const NPI = 'http://hl7.org/fhir/sid/us-npi';

const home = useEngineHome(beforeEach, afterEach);
const claim = (): Body => claimTemplate({ type: 'professional', serviceDate: '2026-03-02', patient: 'MBR-1001', cpt: ['45378'] }) as Body;

describe('the engine refuses a claim whose parties disagree', () => {
  it('patient.reference Patient/MBR-1002 with identifier MBR-1001: 400 naming both, no encounter, nothing priced', () => {
    const engine = home.at(T0);
    const c = claim();
    c.patient = { reference: 'Patient/MBR-1002', identifier: { value: 'MBR-1001' } };
    const refused = call(engine, 'POST', SUBMIT, c);
    expect(refused.status).toBe(400);
    const errors = (refused.body as Body).errors as { field: string; message: string }[];
    expect(errors).toEqual([{ field: 'patient.identifier.value', message: expect.stringContaining('"MBR-1001"') }]);
    expect(errors[0]!.message).toContain('patient.reference "Patient/MBR-1002" names member "MBR-1002"');
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
    // The same claim agreeing is taken, for the member both name.
    c.patient.reference = 'Patient/MBR-1001';
    const ack = call(engine, 'POST', SUBMIT, c);
    expect(ack.status).toBe(201);
    const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(ack.body as Body).external_claim_id}/`).body as Body;
    expect(detail.encounter.patient.member_id).toBe('MBR-1001');
  });

  it('provider.reference Organization/1045782368 with NPI identifier 1196382455: 400 naming both, nothing priced for either provider', () => {
    const engine = home.at(T0);
    const c = claim();
    c.provider = { reference: 'Organization/1045782368', identifier: { system: NPI, value: '1196382455' } };
    const refused = call(engine, 'POST', SUBMIT, c);
    expect(refused.status).toBe(400);
    const errors = (refused.body as Body).errors as { field: string; message: string }[];
    expect(errors).toEqual([{ field: 'provider.identifier.value', message: expect.stringContaining('is NPI 1196382455') }]);
    expect(errors[0]!.message).toContain('provider.reference "Organization/1045782368" names NPI 1045782368');
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
  });

  it('a reference tpa cannot read beside an identifier (Patient/MBR-1002/, Organization/ 1196382455): 400 at the reference, nothing priced for either party', () => {
    const engine = home.at(T0);
    for (const [edit, field] of [
      [(c: Body) => (c.patient = { reference: 'Patient/MBR-1002/', identifier: { value: 'MBR-1001' } }), 'patient.reference'],
      [(c: Body) => (c.provider = { reference: 'Organization/ 1196382455', identifier: { system: NPI, value: '1045782368' } }), 'provider.reference'],
      [(c: Body) => (c.insurer = { reference: 'Organization/PAYER-OTHER/', identifier: { value: 'PAYER-ACME' } }), 'insurer.reference'],
    ] as const) {
      const c = claim();
      edit(c);
      const refused = call(engine, 'POST', SUBMIT, c);
      expect(refused.status, field).toBe(400);
      expect((refused.body as Body).errors).toEqual([{ field, message: expect.any(String) }]);
    }
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
  });

  it('a body naming its patient twice as two keys: 400 naming the key, nothing recorded (JSON.parse alone would read the last)', () => {
    const engine = home.at(T0);
    const text = JSON.stringify(claim()).replace(
      '"patient":{"reference":"Patient/MBR-1001"}',
      '"patient":{"reference":"Patient/MBR-1001"},"patient":{"reference":"Patient/MBR-1002"}',
    );
    expect(text).toContain('MBR-1002');
    const refused = call(engine, 'POST', SUBMIT, text);
    expect(refused.status).toBe(400);
    expect((refused.body as Body).errors).toEqual([{ field: 'patient', message: expect.stringContaining('is given twice in one object') }]);
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
  });

  it('a claim addressed to one payer by its reference and another by its identifier: 400 naming both', () => {
    const engine = home.at(T0);
    const c = claim();
    c.insurer = { reference: 'Organization/PAYER-OTHER', identifier: { value: 'PAYER-ACME' } };
    const refused = call(engine, 'POST', SUBMIT, c);
    expect(refused.status).toBe(400);
    expect((refused.body as Body).errors).toEqual([{ field: 'insurer.identifier.value', message: expect.stringMatching(/"PAYER-ACME".*"PAYER-OTHER"/) }]);
  });
});
