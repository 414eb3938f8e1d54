// The 837 that `claim template --format 837` writes (src/domain/x12-837-write.ts), read back by the
// 837 mapper as the CLI reads any 837: for templates of every seeded code, professional and
// institutional, one claim with no problem, the same lines, charges, dates and providers, and
// names that hold X12's delimiters written without them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { EnvelopeScanner, X12ClaimReader, type X12Claim, type X12Event } from '../../src/domain/x12-837.js';
import { claim837 } from '../../src/domain/x12-837-write.js';
import { tokens } from '../helpers/x12.js';

type Json = Record<string, any>;

async function read(text: string): Promise<{ claims: X12Claim[]; loose: unknown[] }> {
  const scanner = new EnvelopeScanner(text.slice(0, 106));
  scanner.push(text);
  const report = scanner.end();
  const reader = new X12ClaimReader({ report });
  const events: X12Event[] = [];
  for (const s of await tokens(text)) events.push(...reader.push(s));
  events.push(...reader.end());
  return { claims: events.flatMap((e) => (e.kind === 'claim' ? [e.claim] : [])), loose: report.loose };
}

const CODES = ['45378', '45380', '43235', '00811', '88305', '27447', '99213', '29881'];
const shape = (c: Json) => ({
  type: c.type.coding[0].code,
  member: c.patient.reference,
  provider: c.provider.identifier.value,
  total: c.total.value,
  lines: c.item.map((i: Json) => [
    i.productOrService.coding[0].code,
    i.revenue?.coding[0].code ?? null,
    i.net.value,
    i.servicedDate ?? c.billablePeriod.start,
    c.careTeam?.find((m: Json) => m.sequence === i.careTeamSequence?.[0])?.provider.identifier.value ?? null,
  ]),
});

describe('claim837', () => {
  it('any template, professional or institutional, reads back as the same claim, with no problem', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('professional' as const, 'institutional' as const),
        fc.uniqueArray(fc.constantFrom(...CODES), { minLength: 1, maxLength: 4 }),
        fc.option(fc.integer({ min: 1, max: 5_000_000 }), { nil: undefined }),
        async (type, cpt, chargeCents) => {
          const fhir = claimTemplate({ type, cpt, patient: 'MBR-1002', serviceDate: '2026-03-02', chargeCents }) as Json;
          const text = claim837(fhir, { isa13: '000000042', date: '20260302', time: '1015' });
          const { claims, loose } = await read(text);
          expect(loose).toEqual([]);
          expect(claims).toHaveLength(1);
          expect(claims[0]!.problems).toEqual([]);
          expect(shape(claims[0]!.claim as Json)).toEqual(shape(fhir));
          expect(claims[0]!.clm01).toBe('MBR-1002-20260302-000000042');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('names holding X12 delimiters are written without them; amounts without trailing zeros', async () => {
    const fhir = claimTemplate({ type: 'professional', cpt: ['45378'], patient: 'MBR-1002', serviceDate: '2026-03-02', chargeCents: 123450 }) as Json;
    const text = claim837(fhir, {
      isa13: '000000043',
      date: '20260302',
      time: '1015',
      names: { 'MBR-1002': 'Ann*Marie ~Lee:Smith^', '1045782368': 'Dr. A*B, GI' },
    });
    expect(text).toContain('NM1*IL*1*SMITH*ANN MARIE LEE****MI*MBR-1002~');
    expect(text).toContain('SV1*HC:45378*1234.5*UN*1***1~');
    const { claims } = await read(text);
    expect(claims[0]!.problems).toEqual([]);
  });
});
