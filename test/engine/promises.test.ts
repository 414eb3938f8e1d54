// What the README and docs/ promise and no test checked before, through the engine on a real
// SQLite file: a denied encounter has no settlement, a refused request is not remembered against its
// Idempotency-Key, the builder's first item wins a shared code, and the duplicate rule's edges.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { sspUuid } from '../../src/engine/store/catalog-seed.js';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';

type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);
const AT = '2026-03-02T10:00:00Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
const APPROVE = '/tpa-api/v1/funding/approve/';
const B = '/api/v1/computable-contracts/builder';

function adjudicate(spec: ClaimSpec | Body): { response: Body; encounterId: string } {
  const engine = home.at(AT, '0');
  const ack = call(engine, 'POST', SUBMIT, 'lines' in spec ? claimOf(spec as ClaimSpec) : spec);
  expect(ack.status, JSON.stringify(ack.body)).toBe(201);
  const { submission_id: sub, external_claim_id: encounterId } = ack.body as Body;
  return { response: call(engine, 'GET', `/tpa-api/v1/claims/${sub}/response/`).body as Body, encounterId };
}

describe('settlement of a denied encounter', () => {
  it('answers 404 no_settlement: it never will be funded', () => {
    adjudicate({ lines: [{ code: '45378', date: '2026-03-02' }] });
    const denied = adjudicate({ lines: [{ code: '45378', date: '2026-03-02' }] });
    expect(denied.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    const r = call(home.at(AT, '0'), 'GET', `/tpa-api/v1/settlement/${denied.encounterId}/`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'no_settlement', encounter_id: denied.encounterId });
    const approve = call(home.at(AT, '0'), 'POST', APPROVE, { encounter_id: denied.encounterId, amount: 0, authorization_code: 'A-1' });
    expect(approve.status).toBeGreaterThanOrEqual(400);
  });
});

describe('a refused request is not stored against its Idempotency-Key', () => {
  it('a claim refused 400 can be sent again, corrected, under the same key', () => {
    const engine = home.at(AT, '0');
    const key = { 'idempotency-key': 'claim-key-1' };
    const bad = call(engine, 'POST', SUBMIT, { resourceType: 'Claim' }, key);
    expect(bad.status).toBe(400);
    const good = call(engine, 'POST', SUBMIT, claimTemplate({ type: 'professional', serviceDate: '2026-03-02' }), key);
    expect(good.status).toBe(201);
    // From then on the key is the accepted claim's: a replay returns the same acknowledgment.
    const replay = call(engine, 'POST', SUBMIT, claimTemplate({ type: 'professional', serviceDate: '2026-03-02' }), key);
    expect(replay.status).toBe(201);
    expect((replay.body as Body).submission_id).toBe((good.body as Body).submission_id);
  });

  it('a fund approval refused for its amount can be sent again with the right amount under the same key', () => {
    const { encounterId } = adjudicate(claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }));
    const engine = home.at(AT, '0');
    const key = { 'idempotency-key': 'fund-key-1' };
    const wrong = call(engine, 'POST', APPROVE, { encounter_id: encounterId, amount: 2000, authorization_code: 'AUTH-K-1' }, key);
    expect(wrong.status).toBe(409);
    expect(wrong.body).toMatchObject({ expected_amount: 2460, submitted_amount: 2000 });
    const right = call(engine, 'POST', APPROVE, { encounter_id: encounterId, amount: 2460, authorization_code: 'AUTH-K-1' }, key);
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ status: 'APPROVED' });
  });
});

describe("the builder's finalize", () => {
  it('gives a CPT code shared by two items the rate of the first item in schedule order', () => {
    const engine = home.at(AT, '0');
    const api = (method: string, path: string, body?: unknown) => call(engine, method, path, body);
    api('POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    // Two versions of the cataract SSP: one primary code, 66984.
    expect(api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.0', 'EY-0501'), rate_type: 'CASE_RATE', rate_value: 2000 }).status).toBe(
      200,
    );
    expect(api('PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'EY-0501'), rate_type: 'CASE_RATE', rate_value: 3000 }).status).toBe(
      200,
    );
    expect(api('POST', `${B}/BLD-1001/finalize`, { effective_date: '2026-03-02', allow_retroactive: true }).body).toMatchObject({
      status: 'FINALIZED',
      rate_records_created: 2,
    });
    const full = call(engine, 'POST', '/tpa-api/v1/contract-lookup/full/', {
      contract_id: 'ctr_6e2d9b4f1a7c3058',
      npi: '1902847361',
      group_id: 'GRP-4004',
      cpt_code: '66984',
    });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ negotiated_rate: 2000 });
  });
});

describe("the duplicate rule's edges", () => {
  const paid = (spec: ClaimSpec) => adjudicate(spec).response;
  beforeEach(() => {
    expect(
      paid({
        lines: [
          { code: '45378', date: '2026-03-02' },
          { code: '43235', date: '2026-03-02' },
        ],
      }).disposition,
    ).toBe('APPROVED');
  });

  it('the same codes in another order are a duplicate', () => {
    expect(
      paid({
        lines: [
          { code: '43235', date: '2026-03-02' },
          { code: '45378', date: '2026-03-02' },
        ],
      }),
    ).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('another member, another provider or another date is not', () => {
    expect(
      paid({
        patient: 'MBR-1001',
        lines: [
          { code: '45378', date: '2026-03-02' },
          { code: '43235', date: '2026-03-02' },
        ],
      }).disposition,
    ).toBe('APPROVED');
    expect(
      paid({
        npi: '1234567893',
        lines: [
          { code: '45378', date: '2026-03-02' },
          { code: '43235', date: '2026-03-02' },
        ],
      }).disposition,
    ).toBe('APPROVED');
    expect(
      paid({
        lines: [
          { code: '45378', date: '2026-03-01' },
          { code: '43235', date: '2026-03-01' },
        ],
      }).disposition,
    ).toBe('APPROVED');
  });

  it('a line of an earlier denied claim makes no later claim a duplicate', () => {
    // Denied: 45378 is already paid (the claim above), and Dr. Morgan's contract does not cover 29881 yet.
    const denied = paid({
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '29881', date: '2026-03-02' },
      ],
    });
    expect(denied).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    // The contract is amended (builder BLD-1002 finalizes a knee arthroscopy rate for 29881).
    const engine = home.at(AT, '0');
    call(engine, 'POST', `${B}/BLD-1002/rate-schedule/init/`, {});
    expect(
      call(engine, 'PUT', `${B}/BLD-1002/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'OR-0301'), rate_type: 'CASE_RATE', rate_value: 1500 }).status,
    ).toBe(200);
    expect(call(engine, 'POST', `${B}/BLD-1002/finalize`, { effective_date: '2026-03-02', allow_retroactive: true }).status).toBe(200);
    // The service the denied claim listed is paid now, once (29881 needs a preauthorization under
    // the plan, so under the amended contract too).
    const knee = { lines: [{ code: '29881', date: '2026-03-02' }], preauthorization: 'PA-2026-0302' };
    expect(paid(knee).disposition).toBe('APPROVED');
    expect(paid(knee)).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });
});
