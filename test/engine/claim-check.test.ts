// checkClaim: what submitting a claim would do, asked of the engine without keeping anything
// (`claim validate` on the local profile): the same answers as a submission and its claim response,
// and the ledger, the encounter numbers and the audit chain as they were.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import type { Engine } from '../../src/engine/engine.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

type Body = Record<string, any>;
const CLOCK = '2026-03-04T10:00:00Z';
let home: ReturnType<typeof tempDir>;
let engine: Engine;
beforeEach(() => {
  home = tempDir();
  engine = engineAt(home.dir, CLOCK, '0s');
});
afterEach(() => {
  engine.close();
  home.remove();
});

const claim = (o: Partial<Parameters<typeof claimTemplate>[0]> = {}) =>
  JSON.stringify(claimTemplate({ type: 'professional', cpt: ['45378'], patient: 'MBR-1002', serviceDate: '2026-03-02', ...o }));
const ledgerCount = () => (call(engine, 'GET', '/tpa-api/v1/ledger/entries/?limit=1').body as Body).count as number;
const auditHead = () => engine.auditHead();

describe('engine checkClaim', () => {
  it('answers as the claim response would, and keeps nothing: no encounter, no number used, the audit chain as it was', async () => {
    const head = auditHead();
    const checked = engine.checkClaim(claim());
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ status: 'ADJUDICATED', disposition: 'APPROVED', lines: [{ sequence: 1, cpt_code: '45378', status: 'ALLOWED' }] });
    expect(ledgerCount()).toBe(0);
    expect(auditHead()).toEqual(head);
    // The submission that follows gets the first number and the same adjudication.
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim());
    expect(ack.status).toBe(201);
    const response = call(engine, 'GET', `/tpa-api/v1/claims/${(ack.body as Body).submission_id}/response/`).body as Body;
    expect(response.adjudication).toEqual((checked.body as Body).adjudication);
    expect((call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).results[0].encounter_number).toBe('ENC-2026-000001');
    // Now the same claim would be a duplicate.
    expect(engine.checkClaim(claim()).body).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    expect(ledgerCount()).toBe(1);
  });

  it('answers a refusal as the submission would: 400 with its fields, 404 without a contract', async () => {
    const unknown = engine.checkClaim(claim({ patient: 'MBR-9999' }));
    expect(unknown.status).toBe(400);
    expect((unknown.body as Body).errors).toEqual([{ field: 'patient.reference', message: 'no member "MBR-9999" is enrolled with the plan' }]);
    const bad = engine.checkClaim('{"resourceType":"Claim"}');
    expect(bad.status).toBe(400);
    expect((bad.body as Body).errors.length).toBeGreaterThan(2);
    const none = engine.checkClaim(claim({ npi: '1859362703' }));
    expect(none.status).toBe(404);
    expect((none.body as Body).error).toBe('no_active_contract');
    expect(ledgerCount()).toBe(0);
  });

  it('says which line would be denied because tpa does not price it, with its reason and remark code', async () => {
    const c = claimTemplate({ type: 'professional', cpt: ['45378', '45378'], patient: 'MBR-1002', serviceDate: '2026-03-02' }) as Body;
    c.item[1].productOrService = { coding: [{ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: 'J3490' }] };
    const checked = engine.checkClaim(JSON.stringify(c));
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ disposition: 'PARTIAL_APPROVAL' });
    expect((checked.body as Body).lines[1]).toMatchObject({ cpt_code: 'J3490', status: 'DENIED', reason_code: 'CARC-96', remark_codes: ['N130'] });
    expect(ledgerCount()).toBe(0);
  });
});
