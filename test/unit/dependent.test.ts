// A dependent patient found among the subscriber's dependents by name and date of birth
// (src/domain/dependent.ts): how names are compared, and one, none or several.
import { describe, expect, it } from 'vitest';
import { matchDependent, nameWords, sameName } from '../../src/domain/dependent.js';
import { parseClaim } from '../../src/domain/fhir-claim.js';

const family = [
  { member_id: 'MBR-1007', name: 'Elena M. Rivera', dob: '1982-09-03' },
  { member_id: 'MBR-1008', name: 'Sofia Rivera', dob: '2012-06-18' },
];

describe('a dependent’s name', () => {
  it('is compared without case, accents, extra spaces, the punctuation of initials, or a generational suffix', () => {
    expect(nameWords('  José  O’Neil-Smith Jr. ')).toEqual(['jose', 'oneil-smith']);
    expect(nameWords("D'Arcy  III")).toEqual(['darcy']);
    expect(sameName('Sofia Rivera', 'RIVERA', ['SOFIA'])).toBe(true);
    expect(sameName('Sofia Rivera', 'rivera', ['  sofia '])).toBe(true);
    expect(sameName('Sofía Rivera', 'RIVERA', ['SOFIA'])).toBe(true);
    expect(sameName('Robert Chen Jr.', 'CHEN', ['ROBERT'])).toBe(true);
    expect(sameName('Robert Chen', 'CHEN JR', ['ROBERT'])).toBe(true);
  });

  it('takes the first name and the last name (one word or several); middle names and initials are not compared, on either side', () => {
    expect(sameName('Elena M. Rivera', 'RIVERA', ['ELENA'])).toBe(true);
    expect(sameName('Elena Rivera', 'RIVERA', ['ELENA', 'M'])).toBe(true);
    expect(sameName('Elena M. Rivera', 'RIVERA', ['ELENA', 'Q'])).toBe(true);
    expect(sameName('Ana de la Cruz', 'DE LA CRUZ', ['ANA'])).toBe(true);
    expect(sameName('Ana de la Cruz', 'CRUZ', ['ANA'])).toBe(true);
    // Another first name, another last name, or a first name sent as the middle: not the member.
    expect(sameName('Sofia Rivera', 'RIVERA', ['SOPHIA'])).toBe(false);
    expect(sameName('Sofia Rivera', 'RIVERAS', ['SOFIA'])).toBe(false);
    expect(sameName('Elena M. Rivera', 'RIVERA', ['M'])).toBe(false);
    expect(sameName('Rivera', 'RIVERA', ['RIVERA'])).toBe(false);
    expect(sameName('Sofia Rivera', '', ['SOFIA'])).toBe(false);
    expect(sameName('Sofia Rivera', 'RIVERA', [])).toBe(false);
  });
});

describe('the dependent a claim names', () => {
  const sent = { subscriberId: 'MBR-1006', family: 'RIVERA', given: ['SOFIA'], birthDate: '2012-06-18' };

  it('is the one dependent of that name and date of birth', () => {
    expect(matchDependent(sent, family)).toEqual({ kind: 'one', member: family[1] });
  });

  it('is none when the date of birth or the name differs', () => {
    expect(matchDependent({ ...sent, birthDate: '2012-06-19' }, family)).toEqual({ kind: 'none' });
    expect(matchDependent({ ...sent, given: ['ELENA'] }, family)).toEqual({ kind: 'none' });
    expect(matchDependent(sent, [])).toEqual({ kind: 'none' });
  });

  it('is several when two dependents have the name and date of birth (middle names apart)', () => {
    const twins = [...family, { member_id: 'MBR-1099', name: 'Sofia B Rivera', dob: '2012-06-18' }];
    expect(matchDependent(sent, twins)).toEqual({ kind: 'several', members: [family[1], twins[2]] });
  });
});

describe('a FHIR Claim’s dependent (contained Patient without a member id, beneficiary of a Coverage with subscriberId and relationship)', () => {
  const claim = (patient: Record<string, unknown>) => ({
    resourceType: 'Claim',
    contained: [
      { resourceType: 'Patient', id: 'patient', ...patient },
      {
        resourceType: 'Coverage',
        id: 'coverage',
        status: 'active',
        subscriberId: 'MBR-1006',
        beneficiary: { reference: '#patient' },
        relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'spouse' }] },
        payor: [{ display: 'Acme' }],
      },
    ],
    status: 'active',
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
    use: 'claim',
    patient: { reference: '#patient' },
    created: '2025-01-15',
    provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' } },
    insurance: [{ sequence: 1, focal: true, coverage: { reference: '#coverage' } }],
    item: [
      {
        sequence: 1,
        productOrService: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '45378' }] },
        servicedDate: '2025-01-10',
        net: { value: 1800, currency: 'USD' },
      },
    ],
    total: { value: 1800, currency: 'USD' },
  });

  it('is read for the engine to resolve: the subscriber, the name and the birth date', () => {
    expect(parseClaim(claim({ name: [{ family: 'Rivera', given: ['Elena'] }], birthDate: '1982-09-03' }))).toMatchObject({
      memberId: '',
      dependent: { subscriberId: 'MBR-1006', family: 'Rivera', given: ['Elena'], birthDate: '1982-09-03', relationship: 'spouse' },
    });
  });

  it('a member id named beside the dependent is compared as any second name of the member is: the coverage’s typed identifier must agree', () => {
    const named = claim({ identifier: [{ value: 'MBR-1007' }], name: [{ family: 'Rivera', given: ['Elena'] }], birthDate: '1982-09-03' }) as Record<
      string,
      any
    >;
    expect(parseClaim(named)).toMatchObject({ memberId: 'MBR-1007', dependent: { subscriberId: 'MBR-1006' } });
    named.insurance[0].coverage.identifier = {
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] },
      value: 'MBR-1001',
    };
    expect(() => parseClaim(named)).toThrow(/names member "MBR-1001" \(typed MB\), but the claim's patient is member "MBR-1007"/);
  });

  it('is read wherever a Coverage holds it, whatever `patient` names: the member named beside her is kept for the engine to compare', () => {
    const dep = { name: [{ family: 'Rivera', given: ['Elena'] }], birthDate: '1982-09-03' };
    for (const patient of [
      { reference: 'Patient/MBR-1003' },
      { reference: 'https://fhir.example.org/r4/Patient/MBR-1003/_history/2' },
      { identifier: { value: 'MBR-1003' } },
      { reference: '#patient', identifier: { value: 'MBR-1003' } },
    ]) {
      const named = { ...claim(dep), patient };
      expect(parseClaim(named)).toMatchObject({ memberId: 'MBR-1003', dependent: { subscriberId: 'MBR-1006', family: 'Rivera' } });
    }
    // A member a second Coverage covers is the member named beside a dependent `patient` points to.
    const second = claim(dep) as Record<string, any>;
    second.contained.push({
      resourceType: 'Coverage',
      id: 'c2',
      status: 'active',
      beneficiary: { reference: 'Patient/MBR-1003' },
      payor: [{ display: 'Acme' }],
    });
    second.insurance.push({ sequence: 2, coverage: { reference: '#c2' } });
    expect(parseClaim(second)).toMatchObject({ memberId: 'MBR-1003', dependent: { subscriberId: 'MBR-1006' } });
  });

  it('naming the subscriber beside his dependent, or two dependents, is refused by the reader', () => {
    const dep = { name: [{ family: 'Rivera', given: ['Elena'] }], birthDate: '1982-09-03' };
    expect(() => parseClaim({ ...claim(dep), patient: { reference: 'Patient/MBR-1006' } })).toThrow(
      /patient: names member "MBR-1006", the subscriber of the dependent it names \(Rivera, Elena, born 1982-09-03, spouse of MBR-1006\)/,
    );
    const two = claim(dep) as Record<string, any>;
    two.contained.push(
      { resourceType: 'Patient', id: 'kid', name: [{ family: 'Rivera', given: ['Sofia'] }], birthDate: '2012-06-18' },
      { ...two.contained[1], id: 'c2', beneficiary: { reference: '#kid' } },
    );
    two.insurance.push({ sequence: 2, coverage: { reference: '#c2' } });
    expect(() => parseClaim(two)).toThrow(
      /names the dependent Rivera, Sofia, born 2012-06-18 of subscriber MBR-1006 \(the Coverage of insurance\[1\]\), but the claim's patient is the dependent Rivera, Elena/,
    );
  });

  it('without a name or a birth date names no one: refused at each, both at once', () => {
    let errors: unknown;
    try {
      parseClaim(claim({ birthDate: '1982-09' }));
    } catch (err) {
      errors = (err as { errors: unknown }).errors;
    }
    expect(errors).toEqual([
      { field: 'contained[0].name', message: expect.stringContaining('is missing: a dependent of subscriber MBR-1006 is found by last and first name') },
      { field: 'contained[0].birthDate', message: expect.stringContaining('is "1982-09": a dependent of subscriber MBR-1006 is found by name and birth date') },
    ]);
  });
});
