// A claim that names one party twice in disagreement, submitted to the engine through its route
// table on a real SQLite file: 400 with errors[] naming both fields and both values, and nothing
// recorded, priced or payable (docs/claim-batches.md "Claims inside a Bundle": what disagrees is refused).
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

  it('a claim sent straight with tpa’s own mark (urn:tpa:fhir:bundle-reference): every mark is read, one naming another member refuses it, nothing priced', () => {
    const engine = home.at(T0);
    const MARK = 'urn:tpa:fhir:bundle-reference';
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [{ type: { coding: [{ code: 'MB' }] }, value: 'MBR-1002' }] }];
    // The first mark agrees with the Patient, the second does not: the second is read too.
    c.patient = {
      reference: '#p',
      extension: [
        { url: MARK, valueString: 'Patient/MBR-1002' },
        { url: MARK, valueString: 'Patient?identifier=urn:x|MBR-1003' },
      ],
    };
    const refused = call(engine, 'POST', SUBMIT, c);
    expect(refused.status).toBe(400);
    expect((refused.body as Body).errors).toEqual([
      { field: 'patient.reference', message: expect.stringMatching(/naming member "MBR-1003".*is member "MBR-1002"/) },
    ]);
    c.provider = { reference: 'Organization/1045782368', extension: [{ url: MARK, valueString: 'Organization/1196382455' }] };
    c.patient = { reference: 'Patient/MBR-1001' };
    const provider = call(engine, 'POST', SUBMIT, c);
    expect(provider.status).toBe(400);
    expect((provider.body as Body).errors).toEqual([
      { field: 'provider.reference', message: expect.stringMatching(/naming NPI 1196382455.*is NPI 1045782368/) },
    ]);
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
  });

  it('an insurer or a Coverage’s beneficiary referring to nothing or to another kind of resource: 400 at its reference, nothing priced', () => {
    const engine = home.at(T0);
    const cases: [(c: Body) => void, string][] = [
      [(c) => (c.insurer = { reference: 'urn:uuid:55555555-2222-4222-8222-222222222222', identifier: { value: 'PAYER-ACME' } }), 'insurer.reference'],
      [(c) => (c.insurer = { reference: '#nothing', identifier: { value: 'PAYER-ACME' } }), 'insurer.reference'],
      [(c) => (c.insurer = { reference: 'Patient/PAYER-OTHER', identifier: { value: 'PAYER-ACME' } }), 'insurer.reference'],
      ...['urn:uuid:55555555-2222-4222-8222-222222222222', '#nothing', 'Organization/MBR-1001', 'urn:oid:2.16.840.1'].map(
        (reference) =>
          [
            (c: Body) => {
              c.contained = [{ resourceType: 'Coverage', id: 'cv', status: 'active', beneficiary: { reference, identifier: { value: 'MBR-1001' } } }];
              c.insurance[0].coverage = { reference: '#cv' };
            },
            'contained[0].beneficiary.reference',
          ] as [(c: Body) => void, string],
      ),
    ];
    for (const [edit, field] of cases) {
      const c = claim();
      edit(c);
      const refused = call(engine, 'POST', SUBMIT, c);
      expect(refused.status, JSON.stringify(c.insurer ?? c.contained)).toBe(400);
      expect((refused.body as Body).errors).toEqual([{ field, message: expect.any(String) }]);
    }
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).count).toBe(0);
  });
});
