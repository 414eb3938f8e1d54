import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { openDatabase, SCHEMA_VERSION } from '../../src/engine/store/db.js';
import { databaseFile } from '../../src/engine/engine.js';
import { call, useEngineHome } from '../helpers/engine.js';

const T0 = '2026-03-02T10:00:00Z';
const LATER = '2026-03-02T10:00:05Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
const response = (id: string, raw = false) => `/tpa-api/v1/claims/${id}/response/${raw ? '?include_raw_response=true' : ''}`;

const home = useEngineHome(beforeEach, afterEach);
const at = (clock: string) => home.at(clock);

const template = (o: Partial<Parameters<typeof claimTemplate>[0]> = {}) => claimTemplate({ type: 'professional', serviceDate: '2026-03-02', ...o });

describe('the engine store', () => {
  it('creates, migrates and seeds the database on first use, in WAL mode', () => {
    at(T0);
    const db = openDatabase(databaseFile(home.dir));
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((db.prepare('SELECT COUNT(*) AS n FROM contracts').get() as { n: number }).n).toBeGreaterThanOrEqual(8);
    db.close();
  });
});

describe('claim submission and response', () => {
  it('acknowledges a claim with 201, answers 202 until the clock reaches the ready time, then 200', () => {
    const ack = call(at(T0), 'POST', SUBMIT, template());
    expect(ack.status).toBe(201);
    const body = ack.body as Record<string, string>;
    expect(body).toMatchObject({ status: 'ACKNOWLEDGED' });
    expect(body.submission_id).toMatch(/^sub_/);
    expect(body.external_claim_id).toMatch(/^enc_/);

    const early = call(at(T0), 'GET', response(body.submission_id!));
    expect(early.status).toBe(202);
    expect(early.body).toMatchObject({ status: 'PROCESSING', estimated_completion: '2026-03-02T10:00:03Z' });

    const done = call(at(LATER), 'GET', response(body.submission_id!));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'ADJUDICATED', disposition: 'APPROVED', completed_at: '2026-03-02T10:00:03Z' });
    const adj = (done.body as { adjudication: Record<string, number> }).adjudication;
    // MBR-1003: deductible met; CASE_RATE 425.00 < charge 1,800.00; copay 25.00; 20% of 400.00.
    expect(adj).toEqual({
      service_date: '2026-03-02',
      total_charges: 1800,
      allowed_amount: 425,
      deductible_applied: 0,
      copay_applied: 25,
      coinsurance_applied: 80,
      patient_responsibility: 105,
      benefit_amount: 320,
      payer_responsibility: 320,
    });
    expect(done.body).not.toHaveProperty('claim_response');
  });

  it('includes a FHIR ClaimResponse only with include_raw_response=true, with FHIR-safe ids', () => {
    const ack = call(at(T0), 'POST', SUBMIT, template()).body as Record<string, string>;
    const done = call(at(LATER), 'GET', response(ack.submission_id!, true)).body as { claim_response: Record<string, unknown> };
    const cr = done.claim_response;
    expect(cr).toMatchObject({
      resourceType: 'ClaimResponse',
      status: 'active',
      use: 'claim',
      outcome: 'complete',
      patient: { reference: 'Patient/MBR-1003' },
    });
    expect(String(cr.id)).toMatch(/^[A-Za-z0-9\-.]{1,64}$/);
    expect(String((cr.request as { reference: string }).reference)).toMatch(/^Claim\/[A-Za-z0-9\-.]+$/);
    const item = (
      cr.item as { itemSequence: number; adjudication: { category: { coding: { code: string }[] }; amount: { value: number; currency: string } }[] }[]
    )[0]!;
    const byCode = Object.fromEntries(item.adjudication.map((a) => [a.category.coding[0]!.code, a.amount.value]));
    expect(byCode).toMatchObject({ submitted: 1800, allowable: 425, benefit: 320 });
  });

  it('a replay with the same Idempotency-Key returns the first acknowledgment and creates no second claim', () => {
    const engine = at(T0);
    const claim = JSON.stringify(template());
    const first = call(engine, 'POST', SUBMIT, claim, { 'idempotency-key': 'key-1' });
    const second = call(engine, 'POST', SUBMIT, claim, { 'idempotency-key': 'key-1' });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((engine.db.prepare('SELECT COUNT(*) AS n FROM encounters').get() as { n: number }).n).toBe(1);
    const other = call(engine, 'POST', SUBMIT, JSON.stringify(template({ cpt: ['43235'] })), { 'idempotency-key': 'key-1' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'idempotency_key_reused' });
  });

  it('denies a second identical claim as a duplicate with a CARC code and no amounts', () => {
    const engine = at(T0);
    call(engine, 'POST', SUBMIT, template());
    const dup = call(engine, 'POST', SUBMIT, template()).body as Record<string, string>;
    const done = call(at(LATER), 'GET', response(dup.submission_id!, true)).body as Record<string, unknown>;
    expect(done).toMatchObject({ status: 'ADJUDICATED', disposition: 'DENIED', denial_code: 'CARC-18' });
    expect(done.denial_reason).toMatch(/duplicate/i);
    for (const absent of ['adjudication', 'claim_response', 'processor_trace_id']) expect(done).not.toHaveProperty(absent);
    expect(done).toHaveProperty('aeob_reference');
  });

  it('denies a claim for a member whose coverage ended before the service date', () => {
    const ack = call(at('2026-07-20T10:00:00Z'), 'POST', SUBMIT, template({ patient: 'MBR-1005', serviceDate: '2026-07-15' })).body as Record<string, string>;
    expect(call(at('2026-07-20T10:01:00Z'), 'GET', response(ack.submission_id!)).body).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-27' });
  });

  it('pends a claim whose code needs preauthorization when supportingInfo has none', () => {
    const ack = call(at(T0), 'POST', SUBMIT, template({ npi: '1582736496', cpt: ['29881'] })).body as Record<string, string>;
    expect(call(at(LATER), 'GET', response(ack.submission_id!)).body).toMatchObject({ disposition: 'PENDING_REVIEW', pend_reason: 'MISSING_PREAUTHORIZATION' });
  });

  it('a pended claim sent again with its preauthorization is adjudicated, not denied as a duplicate', () => {
    const first = call(at(T0), 'POST', SUBMIT, template({ npi: '1582736496', cpt: ['29881'] })).body as Record<string, string>;
    expect(call(at(LATER), 'GET', response(first.submission_id!)).body).toMatchObject({ disposition: 'PENDING_REVIEW' });
    const again = template({ npi: '1582736496', cpt: ['29881'] });
    again.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-2026-0042' }];
    const second = call(at(LATER), 'POST', SUBMIT, again).body as Record<string, string>;
    expect(call(at('2026-03-02T10:01:00Z'), 'GET', response(second.submission_id!)).body).toMatchObject({ disposition: 'APPROVED' });
  });

  it('partially approves a claim with a code the contract does not cover', () => {
    const ack = call(at(T0), 'POST', SUBMIT, template({ npi: '1045782368', cpt: ['45378', '99213'] })).body as Record<string, string>;
    expect(call(at(LATER), 'GET', response(ack.submission_id!)).body).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 425 } });
  });

  it('rejects a claim for codes no active contract covers with 404 naming the NPI and codes', () => {
    const res = call(at(T0), 'POST', SUBMIT, template({ npi: '1045782368', cpt: ['99213'] }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ provider_npi: '1045782368', cpt_codes: ['99213'] });
    expect(typeof (res.body as { error: unknown }).error).toBe('string');
  });

  it('answers 400 with field paths for an invalid claim, and records nothing', () => {
    const bad = template();
    (bad.item as { productOrService: { coding: { code: string }[] } }[])[0]!.productOrService.coding[0]!.code = '4537';
    const engine = at(T0);
    const res = call(engine, 'POST', SUBMIT, bad);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field: 'item[0].productOrService.coding[0].code', message: expect.stringMatching(/5-digit/) }] });
    expect((engine.db.prepare('SELECT COUNT(*) AS n FROM encounters').get() as { n: number }).n).toBe(0);
  });

  it('answers 400 for an unknown member and for a body that is not JSON', () => {
    expect(call(at(T0), 'POST', SUBMIT, template({ patient: 'MBR-9999' })).body).toMatchObject({ errors: [{ field: 'patient.reference' }] });
    const notJson = call(at(T0), 'POST', SUBMIT, '{"resourceType":');
    expect(notJson.status).toBe(400);
    expect((notJson.body as { errors: { message: string }[] }).errors[0]!.message).toMatch(/not valid JSON/);
  });

  it('refuses a line charge over 99,999,999.99, so sums stay exact', () => {
    const huge = template();
    const item = (huge.item as Record<string, unknown>[])[0]!;
    item.net = { value: 90071992547.41, currency: 'USD' };
    const res = call(at(T0), 'POST', SUBMIT, huge);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field: 'item[0].net.value', message: expect.stringMatching(/99,999,999\.99/) }] });
  });

  it('answers 404, not a crash, for a malformed percent-escape in a path', () => {
    expect(call(at(T0), 'GET', '/tpa-api/v1/claims/%E0%A4%A/response/').status).toBe(404);
  });

  it('answers 404 with the submission id for an unknown submission', () => {
    const res = call(at(T0), 'GET', response('sub_nope'));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ submission_id: 'sub_nope' });
  });

  it('records the ledger status progression and history entries as the claim moves', () => {
    const ack = call(at(T0), 'POST', SUBMIT, template()).body as Record<string, string>;
    const engine = at(LATER);
    call(engine, 'GET', response(ack.submission_id!));
    const id = ack.external_claim_id!;
    const list = call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as {
      results: { encounter_id: string; status: string; status_progression: unknown[] }[];
    };
    const item = list.results.find((r) => r.encounter_id === id)!;
    expect(item.status).toBe('ADJUDICATED');
    expect(item.status_progression).toEqual([
      { status: 'SUBMITTED', timestamp: T0 },
      { status: 'PROCESSING', timestamp: T0 },
      { status: 'ADJUDICATED', timestamp: '2026-03-02T10:00:03Z' },
    ]);
    const history = engine.db.prepare('SELECT type, reference FROM history_entries WHERE encounter_id = ? ORDER BY seq').all(id) as {
      type: string;
      reference: string;
    }[];
    expect(history.map((h) => h.type)).toEqual(['SUBMISSION', 'VALIDATION', 'ADJUDICATION']);
    expect(history[0]!.reference).toBe(ack.submission_id);
    expect(history[1]!.reference).toBe('ctr_8d21b5e09f4c7a13');
  });

  it('counts the deductible of one claim toward the next claim of the member', () => {
    const engine = at(T0);
    const first = call(engine, 'POST', SUBMIT, template({ patient: 'MBR-1001' })).body as Record<string, string>;
    const second = call(engine, 'POST', SUBMIT, template({ patient: 'MBR-1001', cpt: ['43235'] })).body as Record<string, string>;
    const later = at(LATER);
    const a1 = (call(later, 'GET', response(first.submission_id!)).body as { adjudication: Record<string, number> }).adjudication;
    const a2 = (call(later, 'GET', response(second.submission_id!)).body as { adjudication: Record<string, number> }).adjudication;
    expect(a1.deductible_applied).toBe(400); // 425.00 allowed − 25.00 copay, all to the 500.00 deductible
    expect(a2.deductible_applied).toBe(100); // the 100.00 left
  });
});
