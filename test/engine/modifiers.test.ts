// Procedure modifiers (docs/money-rules.md "Modifiers", "Duplicates"): a distinct-service modifier
// makes a line another service of its code and date; the same line sent twice is still one service;
// a pricing modifier changes neither the key nor the price; bundles and included anesthesia still pay
// once. Through the engine's routes on a real SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { adjudicateOn, useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;

const MORGAN = '1045782368'; // CASE_RATE: 45380 510.00
const CLEARVIEW = '1329475804'; // PATHOLOGY, 70% of charges: 88305
const LAKESIDE = '1450827369'; // PACKAGE 28,500.00 over 01402, 27447, 97161; includes anesthesia
const SUMMIT_ANESTHESIA = '1196382455';

function adjudicate(clock: string, spec: ClaimSpec): { response: Body; lines: Body[]; raw: Body } {
  const { status, response, detail } = adjudicateOn(home.at(clock, '0'), claimOf(spec));
  expect(status, JSON.stringify(response)).toBe(201);
  return { response, lines: detail.service_lines as Body[], raw: response.claim_response as Body };
}

const AT = '2026-03-10T10:00:00Z';

describe('distinct-service modifiers and the duplicate rule', () => {
  it('88305 and 88305-59 on one claim are two specimens: both are paid', () => {
    const a = adjudicate(AT, {
      npi: CLEARVIEW,
      patient: 'MBR-1003',
      lines: [
        { code: '88305', date: '2026-03-02', charge: '250.00' },
        { code: '88305', date: '2026-03-02', charge: '250.00', modifiers: ['59'] },
      ],
    });
    expect(a.response.disposition).toBe('APPROVED');
    expect(a.lines.map((l) => [l.status, l.allowed_amount, l.modifiers])).toEqual([
      ['ALLOWED', 175, []],
      ['ALLOWED', 175, ['59']],
    ]);
  });

  it('each set of distinct-service modifiers is its own service, paid once: 59 and XS both pay, a second XS is CARC-18', () => {
    const a = adjudicate(AT, {
      npi: CLEARVIEW,
      patient: 'MBR-1003',
      lines: [
        { code: '88305', date: '2026-03-03', charge: '100.00', modifiers: ['59'] },
        { code: '88305', date: '2026-03-03', charge: '100.00', modifiers: ['XS'] },
        { code: '88305', date: '2026-03-03', charge: '100.00', modifiers: ['xs'] },
      ],
    });
    expect(a.lines.map((l) => [l.status, l.denial_code])).toEqual([
      ['ALLOWED', null],
      ['ALLOWED', null],
      ['DENIED', 'CARC-18'],
    ]);
    // On a later claim too: the 59 specimen already paid is a duplicate; a third, 91, is not.
    const later = adjudicate(AT, {
      npi: CLEARVIEW,
      patient: 'MBR-1003',
      lines: [
        { code: '88305', date: '2026-03-03', charge: '100.00', modifiers: ['59', '26'] },
        { code: '88305', date: '2026-03-03', charge: '100.00', modifiers: ['91'] },
      ],
    });
    expect(later.lines.map((l) => [l.status, l.denial_code])).toEqual([
      ['DENIED', 'CARC-18'],
      ['ALLOWED', null],
    ]);
  });

  it('a pricing modifier (26, TC, 50, 80) is kept but changes neither the price nor the service: 45380-26 after 45380 is a duplicate', () => {
    const plain = adjudicate(AT, { npi: MORGAN, patient: 'MBR-1003', lines: [{ code: '45380', date: '2026-03-04' }] });
    const priced = adjudicate(AT, { npi: MORGAN, patient: 'MBR-1004', lines: [{ code: '45380', date: '2026-03-04', modifiers: ['26', '50'] }] });
    expect(priced.response.adjudication.allowed_amount).toBe(plain.response.adjudication.allowed_amount);
    expect(priced.lines[0]!.modifiers).toEqual(['26', '50']);
    const again = adjudicate(AT, { npi: MORGAN, patient: 'MBR-1003', lines: [{ code: '45380', date: '2026-03-04', modifiers: ['TC'] }] });
    expect(again.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('the ClaimResponse gives each item its modifiers back as extensions', () => {
    const a = adjudicate(AT, { npi: MORGAN, patient: 'MBR-1002', lines: [{ code: '45380', date: '2026-03-05', modifiers: ['59', 'PT'] }] });
    expect(a.raw.item[0].extension).toEqual([
      { url: 'urn:tpa:fhir:claim-item-modifier', valueCodeableConcept: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '59' }] } },
      { url: 'urn:tpa:fhir:claim-item-modifier', valueCodeableConcept: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: 'PT' }] } },
    ]);
  });
});

describe('bundles and included anesthesia still pay once, whatever the modifiers', () => {
  const at = '2026-08-01T10:00:00Z';

  it('a package part billed again with 59 in its episode is included (CARC-97), on its day or later', () => {
    const pkg = adjudicate(at, {
      npi: LAKESIDE,
      patient: 'MBR-1003',
      lines: [
        { code: '27447', date: '2026-06-01' },
        // Each part charged at least its share: the complete package is allowed the whole rate.
        { code: '01402', date: '2026-06-01', charge: '9500.00' },
        { code: '97161', date: '2026-06-01', charge: '9500.00' },
      ],
      preauthorization: 'PA-3',
    });
    expect(pkg.response.adjudication.allowed_amount).toBe(28500);
    for (const date of ['2026-06-01', '2026-06-11']) {
      const again = adjudicate(at, { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date, modifiers: ['59'] }] });
      expect(again.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
      expect(again.lines[0]).toMatchObject({ status: 'BUNDLED', modifiers: ['59'] });
    }
  });

  it('a package part on two lines of one claim, the second with 59, is one part: the first carries its share, the second is included', () => {
    const two = adjudicate(at, {
      npi: LAKESIDE,
      patient: 'MBR-1004',
      lines: [
        { code: '97161', date: '2026-05-04', charge: '8000.00' },
        { code: '97161', date: '2026-05-04', charge: '8000.00', modifiers: ['59'] },
      ],
    });
    expect(two.lines.map((l) => [l.status, l.allowed_amount])).toEqual([
      ['ALLOWED', 8000],
      ['BUNDLED', 0],
    ]);
    expect(two.response.adjudication.allowed_amount).toBe(8000);
  });

  it('an anesthesia fee with XU on a day whose rate includes the anesthesia is not paid again', () => {
    adjudicate(at, { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '27447', date: '2026-07-01' }], preauthorization: 'PA-5' });
    const anesthesia = adjudicate(at, { npi: SUMMIT_ANESTHESIA, patient: 'MBR-1003', lines: [{ code: '00811', date: '2026-07-01', modifiers: ['XU'] }] });
    expect(anesthesia.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
    expect(anesthesia.lines[0]).toMatchObject({ status: 'BUNDLED', modifiers: ['XU'] });
  });
});
