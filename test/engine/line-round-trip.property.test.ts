// A line sent in comes back out, for any lines: generated FHIR claims (any codes of the payees'
// contracts, up to four modifiers in either case, quantities, a line control number or none) and
// generated 837s carrying the same lines; every line comes back in the ledger's service lines and
// the ClaimResponse with its code, modifiers, units and control number, whatever it was paid.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseClaim } from '../../src/domain/fhir-claim.js';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';
import { convert, interchange, professionalClaim, transaction } from '../helpers/x12.js';

const home = useEngineHome(beforeEach, afterEach);
const SUBMIT = '/tpa-api/v1/claims/submit/';
type Body = Record<string, any>;

const MORGAN = '1045782368';
const CODES = ['45378', '45380', '43235'];
const MODIFIERS = ['59', 'XS', 'xu', '76', '91', '26', 'tc', '50', 'PT', 'LT'];
/** X12's characters a line control number may hold (none of the 835's delimiters ~ * : ^). */
const CONTROL_CHARACTERS = 'ABCXYZ0123456789-./ #&()+,;=%@_';

interface SentLine {
  code: string;
  modifiers: string[];
  quantity: number;
  control: string | null;
}

const arbLine: fc.Arbitrary<SentLine> = fc.record({
  code: fc.constantFrom(...CODES),
  modifiers: fc.array(fc.constantFrom(...MODIFIERS), { maxLength: 4 }),
  quantity: fc.integer({ min: 1, max: 3 }),
  control: fc.option(
    fc
      .array(fc.constantFrom(...CONTROL_CHARACTERS), { minLength: 1, maxLength: 50 })
      .map((cs) => cs.join(''))
      .filter((s) => s.trim() !== ''),
    { nil: null },
  ),
});
const arbLines = fc.array(arbLine, { minLength: 1, maxLength: 6 });

/** What the line must come back as: modifiers upper case, the control number trimmed. */
const expected = (lines: SentLine[]) =>
  lines.map((l, i) => ({
    sequence: i + 1,
    cpt_code: l.code,
    modifiers: l.modifiers.map((m) => m.toUpperCase()),
    quantity: l.quantity,
    line_control_number: l.control === null ? null : l.control.trim(),
  }));

describe('every line comes back, for any lines', () => {
  it('FHIR: ledger service lines and ClaimResponse items carry each line as sent', () => {
    const engine = home.at('2026-03-20T10:00:00Z', '0');
    let day = 0;
    fc.assert(
      fc.property(arbLines, (lines) => {
        // A day of its own for each claim: this checks what comes back, not what is paid.
        const date = new Date(Date.UTC(2026, 0, 1) + day++ * 86_400_000).toISOString().slice(0, 10);
        const claim = claimOf({ npi: MORGAN, patient: 'MBR-1003', lines: lines.map((l) => ({ code: l.code, date, quantity: l.quantity })) });
        lines.forEach((l, i) => {
          const item = claim.item[i];
          if (l.modifiers.length > 0) item.modifier = l.modifiers.map((code) => ({ coding: [{ code }] }));
          if (l.control !== null) item.extension = [{ url: 'urn:tpa:x12:ref6r', valueString: l.control }];
        });
        const ack = call(engine, 'POST', SUBMIT, claim);
        expect(ack.status, JSON.stringify(ack.body)).toBe(201);
        const { submission_id: submissionId, external_claim_id: encounterId } = ack.body as Body;
        const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${encounterId}/`).body as Body;
        const back = (detail.service_lines as Body[]).map((l) => ({
          sequence: l.sequence,
          cpt_code: l.cpt_code,
          modifiers: l.modifiers,
          quantity: l.quantity,
          line_control_number: l.line_control_number,
        }));
        expect(back).toEqual(expected(lines));
        const response = call(engine, 'GET', `/tpa-api/v1/claims/${submissionId}/response/?include_raw_response=true`).body as Body;
        if (response.claim_response) {
          const items = response.claim_response.item as Body[];
          expect(items.map((i) => (i.extension ?? []).map((e: Body) => e.valueCodeableConcept.coding[0].code))).toEqual(
            expected(lines).map((l) => l.modifiers),
          );
        }
      }),
      { numRuns: 40 },
    );
  });

  it('837: each SV1 line reaches the parsed claim with its code, modifiers, units and REF*6R', async () => {
    await fc.assert(
      fc.asyncProperty(arbLines, async (lines) => {
        const segments = professionalClaim({
          clm01: 'PROP1',
          lines: lines.map((l) => ({
            cpt: [l.code, ...l.modifiers].join(':'),
            charge: String(1000 * l.quantity),
            units: String(l.quantity),
            ...(l.control !== null ? { ref6r: l.control } : {}),
          })),
        });
        const text = interchange([transaction({ st02: '0001', type: 'professional', claims: [segments] })]);
        const converted = await convert(text);
        expect(converted[0]!.problems).toEqual([]);
        const parsed = parseClaim(converted[0]!.claim);
        expect(
          parsed.lines.map((l) => ({
            sequence: l.sequence,
            cpt_code: l.cptCode,
            modifiers: l.modifiers ?? [],
            quantity: l.quantity,
            line_control_number: l.lineControlNumber ?? null,
          })),
        ).toEqual(expected(lines));
      }),
      { numRuns: 100 },
    );
  });
});
