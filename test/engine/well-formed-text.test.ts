// Text that is not well-formed Unicode (a lone surrogate) is refused wherever it enters the engine:
// a JSON body's strings and keys at any depth, a query parameter, a path segment, a header. Kept, a
// lone surrogate went into the audit record as "\ud800" and into SQLite as U+FFFD, so `audit verify
// --deep` failed on untampered data. Well-formed text beyond the BMP (emoji) is taken as it is.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { databaseFile, type Engine } from '../../src/engine/engine.js';
import { adjudicateOn, call, useEngineHome } from '../helpers/engine.js';

const MON = '2026-03-02T10:00:00Z';
type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);

const claim = (patient = 'MBR-1002') => claimTemplate({ type: 'institutional', patient, serviceDate: '2026-03-02' }) as Body;

function adjudicated(e: Engine): { id: string; amount: number } {
  const a = adjudicateOn(e, claim());
  expect(a.status).toBe(201);
  return { id: a.encounterId, amount: a.detail.financial_summary.payer_responsibility.total };
}

function settlements(): number {
  const db = new Database(databaseFile(home.dir), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM settlements').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('text that is not well-formed Unicode, in-process', () => {
  it('a fund release whose authorization code holds a lone surrogate is refused 400 naming the field; nothing is written', () => {
    const e = home.at(MON, '0');
    const { id, amount } = adjudicated(e);
    const head = e.auditHead();
    const r = call(e, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: id, amount, authorization_code: 'AUTH-\ud800-0001' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ field: 'authorization_code', message: expect.stringMatching(/not well-formed Unicode/) }] });
    expect(e.auditHead()).toEqual(head);
    expect(settlements()).toBe(0);
    expect((call(e, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body).encounter.status).toBe('ADJUDICATED');
  });

  it('a fund release naming its amount twice as two keys is refused 400 naming the key; nothing is written', () => {
    const e = home.at(MON, '0');
    const { id, amount } = adjudicated(e);
    const head = e.auditHead();
    // JSON.parse alone keeps the last amount; a reader before the service may have checked the first.
    const body = `{"encounter_id":${JSON.stringify(id)},"amount":${amount},"authorization_code":"AUTH-20260302-ACME-0001","amount":${amount * 100}}`;
    const r = call(e, 'POST', '/tpa-api/v1/funding/approve/', body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ field: 'amount', message: expect.stringMatching(/given twice/) }] });
    expect(e.auditHead()).toEqual(head);
    expect(settlements()).toBe(0);
  });

  it('well-formed text beyond the BMP (emoji, a CJK extension character) is released as it is, and --deep agrees', () => {
    const e = home.at(MON, '0');
    const { id, amount } = adjudicated(e);
    const code = 'AUTH-😀-𠀀-🏥';
    const r = call(e, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: id, amount, authorization_code: code });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const db = new Database(databaseFile(home.dir), { readonly: true });
    expect(db.prepare('SELECT authorization_code FROM settlements').pluck().get()).toBe(code);
    db.close();
    expect(e.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0, disagreements: [] });
  });

  it('is refused wherever it is: a key or value deep in a claim, a query parameter, a path segment, a header', () => {
    const e = home.at(MON, '0');
    const deepValue = claim();
    deepValue.item[0].productOrService.coding[0].display = 'colonoscopy \udc00';
    const deepKey = claim();
    deepKey.extension = [{ url: 'http://example.org/x', valueString: 'x', 'note\ud83d': 'x' }];
    const cases: [string, ReturnType<typeof call>][] = [
      ['item[0].productOrService.coding[0].display', call(e, 'POST', '/tpa-api/v1/claims/submit/', deepValue)],
      ['extension[0].note\\ud83d', call(e, 'POST', '/tpa-api/v1/claims/submit/', deepKey)],
      ['path', e.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/enc_\ud800/', query: new URLSearchParams(), headers: {}, body: undefined })],
      ['idempotency-key', call(e, 'POST', '/tpa-api/v1/claims/submit/', claim('MBR-1003'), { 'idempotency-key': 'k-\udfff' })],
    ];
    // A query parameter as an in-process caller could hand it (URLSearchParams itself would replace it).
    const query = {
      get: () => null,
      [Symbol.iterator]: function* () {
        yield ['provider_npi', '1\ud800'] as [string, string];
      },
    } as unknown as URLSearchParams;
    cases.push(['provider_npi', e.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/', query, headers: {}, body: undefined })]);
    for (const [field, r] of cases) {
      expect(r.status, field).toBe(400);
      expect(r.body, field).toEqual({ errors: [{ field, message: expect.stringMatching(/not well-formed Unicode/) }] });
    }
    // Nothing of them was written: no encounter, no audit record.
    expect(JSON.stringify(call(e, 'GET', '/tpa-api/v1/ledger/entries/').body)).not.toContain('enc_');
    expect(e.auditHead().seq).toBe(0);
    // An escaped pair (an emoji written as two escapes) is well-formed, and accepted.
    const pair = JSON.stringify(claim()).replace(/"display":"([^"]*)"/, '"display":"$1 \\ud83d\\ude00"');
    expect(call(e, 'POST', '/tpa-api/v1/claims/submit/', pair).status).toBe(201);
  });

  it('claim validate on the embedded engine refuses it as submit does', () => {
    const e = home.at(MON, '0');
    const text = JSON.stringify({ ...claim(), extension: [{ url: 'http://example.org/x', valueString: 'a\ud800' }] });
    expect(e.checkClaim(text)).toMatchObject({ status: 400, body: { errors: [{ field: 'extension[0].valueString' }] } });
  });
});
