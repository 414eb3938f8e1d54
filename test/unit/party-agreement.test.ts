// One reading of a claim's parties: wherever a FHIR Claim or an 837 names one party twice (a
// reference and an identifier, a literal id, a conditional reference, a contained resource and its
// identifiers, a Bundle entry, a Coverage, a second NM1 of one loop, a key given twice in one JSON
// object), the two agree or the claim is refused naming both, never one side chosen. The parser
// (domain/fhir-claim.ts, domain/json-keys.ts), the Bundle reader (domain/fhir-bundle.ts) and the
// 837 mapper (domain/x12-837.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { ownMarkProblem, selfContainedClaim } from '../../src/domain/fhir-bundle.js';
import { parseClaim, parseClaimText, parseReadClaim } from '../../src/domain/fhir-claim.js';
import { duplicateKeyPath } from '../../src/domain/json-keys.js';
import { interchange, professionalClaim, convert, transaction } from '../helpers/x12.js';

type Json = Record<string, any>;
const NPI = 'http://hl7.org/fhir/sid/us-npi';
const V2 = 'http://terminology.hl7.org/CodeSystem/v2-0203';
const typed = (code: string, value: string) => ({ type: { coding: [{ system: V2, code }] }, value });

/** Dr. Morgan's (NPI 1045782368) professional claim for MBR-1001: `Patient/MBR-1001`, `Organization/1045782368` with its NPI identifier. */
const claim = (): Json => claimTemplate({ type: 'professional', serviceDate: '2025-06-02', patient: 'MBR-1001', cpt: ['45378'] }) as Json;

function errors(value: unknown): { field: string; message: string }[] {
  try {
    parseClaim(value, { today: '2026-06-30' });
  } catch (e) {
    return (e as { errors: { field: string; message: string }[] }).errors;
  }
  return [];
}

describe('the attack: a reference and an identifier that disagree', () => {
  it('patient.reference Patient/MBR-1002 with identifier MBR-1001 is refused naming both fields and both members', () => {
    const c = claim();
    c.patient = { reference: 'Patient/MBR-1002', identifier: { value: 'MBR-1001' } };
    expect(errors(c)).toEqual([
      {
        field: 'patient.identifier.value',
        message: 'is "MBR-1001", but patient.reference "Patient/MBR-1002" names member "MBR-1002": which member the claim is for is not for tpa to guess',
      },
    ]);
    // Agreeing, it is read; so is the reference alone and the identifier alone.
    c.patient.reference = 'Patient/MBR-1001';
    expect(parseClaim(c).memberId).toBe('MBR-1001');
    expect(parseClaim({ ...c, patient: { reference: 'Patient/MBR-1002' } }).memberId).toBe('MBR-1002');
    expect(parseClaim({ ...c, patient: { identifier: { value: 'MBR-1001' } } }).memberId).toBe('MBR-1001');
  });

  it('provider.reference Organization/1045782368 with NPI identifier 1196382455 is refused naming both fields and both NPIs', () => {
    const c = claim();
    c.provider = { reference: 'Organization/1045782368', identifier: { system: NPI, value: '1196382455' } };
    expect(errors(c)).toEqual([
      {
        field: 'provider.identifier.value',
        message: 'is NPI 1196382455, but provider.reference "Organization/1045782368" names NPI 1045782368: which provider is meant is not for tpa to guess',
      },
    ]);
    c.provider.identifier.value = '1045782368';
    expect(parseClaim(c).providerNpi).toBe('1045782368');
  });
});

/** Each case: a claim naming a party twice in disagreement, the field refused and what its message names; then the same claim agreeing, and what is read. */
const CASES: { name: string; disagree: (c: Json) => void; field: string; names: RegExp; agree: (c: Json) => void; read: (c: Json) => void }[] = [
  {
    name: 'patient: absolute literal reference with a version, and an identifier',
    disagree: (c) => (c.patient = { reference: 'https://ehr.example/fhir/Patient/MBR-1002/_history/3', identifier: { value: 'MBR-1001' } }),
    field: 'patient.identifier.value',
    names: /"MBR-1001".*patient\.reference.*"MBR-1002"/,
    agree: (c) => (c.patient.reference = 'https://ehr.example/fhir/Patient/MBR-1001/_history/3'),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'patient: conditional reference and an identifier',
    disagree: (c) => (c.patient = { reference: 'Patient?identifier=urn:plan|MBR-1002', identifier: { value: 'MBR-1001' } }),
    field: 'patient.identifier.value',
    names: /"MBR-1001".*patient\.reference.*"MBR-1002"/,
    agree: (c) => (c.patient.reference = 'Patient?identifier=urn:plan|MBR-1001'),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'patient: contained Patient and an identifier',
    disagree: (c) => {
      c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', 'MBR-1002')] }];
      c.patient = { reference: '#p', identifier: { value: 'MBR-1001' } };
    },
    field: 'patient.identifier.value',
    names: /"MBR-1001".*contained\[0\].*"MBR-1002"/,
    agree: (c) => (c.contained[0].identifier = [typed('MB', 'MBR-1001')]),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'patient: a member number (MB) and a subscriber number (SN) of other values on one Patient',
    disagree: (c) => {
      c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', 'MBR-1001'), typed('SN', 'MBR-1002')] }];
      c.patient = { reference: '#p' };
    },
    field: 'contained[0].identifier',
    names: /"MBR-1001" \(MB\).*"MBR-1002" \(SN\)/,
    agree: (c) => (c.contained[0].identifier[1].value = 'MBR-1001'),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'patient: the Coverage of the claim’s insurance covers another member',
    disagree: (c) => {
      c.contained = [{ resourceType: 'Coverage', id: 'cov', status: 'active', beneficiary: { reference: 'Patient/MBR-1002' } }];
      c.insurance = [{ sequence: 1, focal: true, coverage: { reference: '#cov' } }];
    },
    field: 'contained[0].beneficiary.reference',
    names: /"MBR-1002".*patient is member "MBR-1001"/,
    agree: (c) => (c.contained[0].beneficiary.reference = 'Patient/MBR-1001'),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'patient: the Coverage’s beneficiary by identifier',
    disagree: (c) => {
      c.contained = [{ resourceType: 'Coverage', id: 'cov', status: 'active', beneficiary: { identifier: { value: 'MBR-1002' } } }];
      c.insurance = [{ sequence: 1, focal: true, coverage: { reference: '#cov' } }];
    },
    field: 'contained[0].beneficiary.identifier.value',
    names: /"MBR-1002".*"MBR-1001"/,
    agree: (c) => (c.contained[0].beneficiary.identifier.value = 'MBR-1001'),
    read: (c) => expect(parseClaim(c).memberId).toBe('MBR-1001'),
  },
  {
    name: 'billing provider: Practitioner/<NPI> and an identifier without a system',
    disagree: (c) => (c.provider = { reference: 'Practitioner/1045782368', identifier: { value: '1196382455' } }),
    field: 'provider.identifier.value',
    names: /1196382455.*provider\.reference.*1045782368/,
    agree: (c) => (c.provider.identifier.value = '1045782368'),
    read: (c) => expect(parseClaim(c).providerNpi).toBe('1045782368'),
  },
  {
    name: 'billing provider: a contained Organization with two NPIs',
    disagree: (c) => {
      c.contained = [
        {
          resourceType: 'Organization',
          id: 'org',
          identifier: [
            { system: NPI, value: '1045782368' },
            { system: NPI, value: '1196382455' },
          ],
        },
      ];
      c.provider = { reference: '#org' };
    },
    field: 'contained[0].identifier',
    names: /1045782368, 1196382455/,
    agree: (c) => (c.contained[0].identifier[1].value = '1045782368'),
    read: (c) => expect(parseClaim(c).providerNpi).toBe('1045782368'),
  },
  {
    name: 'care team provider: PractitionerRole/<NPI> and an NPI identifier',
    disagree: (c) => (c.careTeam[0].provider = { reference: 'PractitionerRole/1045782368', identifier: { system: NPI, value: '1196382455' } }),
    field: 'careTeam[0].provider.identifier.value',
    names: /1196382455.*careTeam\[0\]\.provider\.reference.*1045782368/,
    agree: (c) => (c.careTeam[0].provider.identifier.value = '1045782368'),
    read: (c) => expect(parseClaim(c).careTeam[0]!.npi).toBe('1045782368'),
  },
  {
    name: 'insurer: Organization/<payer id> and an identifier',
    disagree: (c) => (c.insurer = { reference: 'Organization/PAYER-OTHER', identifier: { value: 'PAYER-ACME' } }),
    field: 'insurer.identifier.value',
    names: /"PAYER-ACME".*insurer\.reference.*"PAYER-OTHER"/,
    agree: (c) => (c.insurer.reference = 'Organization/PAYER-ACME'),
    read: (c) => expect(parseClaim(c).insurerIdentifier).toBe('PAYER-ACME'),
  },
  {
    name: 'insurer: a conditional reference and an identifier',
    disagree: (c) => (c.insurer = { reference: 'Organization?identifier=urn:payers|PAYER-OTHER', identifier: { value: 'PAYER-ACME' } }),
    field: 'insurer.identifier.value',
    names: /"PAYER-ACME".*"PAYER-OTHER"/,
    agree: (c) => (c.insurer.reference = 'Organization?identifier=urn:payers|PAYER-ACME'),
    read: (c) => expect(parseClaim(c).insurerIdentifier).toBe('PAYER-ACME'),
  },
  {
    name: 'insurer: a contained Organization and an identifier',
    disagree: (c) => {
      c.contained = [{ resourceType: 'Organization', id: 'payer', identifier: [{ value: 'PAYER-OTHER' }] }];
      c.insurer = { reference: '#payer', identifier: { value: 'PAYER-ACME' } };
    },
    field: 'insurer.identifier.value',
    names: /"PAYER-ACME".*contained\[0\].*"PAYER-OTHER"/,
    agree: (c) => (c.contained[0].identifier[0].value = 'PAYER-ACME'),
    read: (c) => expect(parseClaim(c).insurerIdentifier).toBe('PAYER-ACME'),
  },
];

describe('every place a FHIR Claim names a party twice', () => {
  for (const t of CASES) {
    it(`${t.name}: refused naming both when they disagree, read when they agree`, () => {
      const c = claim();
      t.disagree(c);
      const found = errors(c);
      expect(found).toEqual([{ field: t.field, message: expect.stringMatching(t.names) }]);
      expect(found[0]!.message).toMatch(/not for tpa to guess/);
      t.agree(c);
      expect(errors(c)).toEqual([]);
      t.read(c);
    });
  }

  it('spellings that agree but for the spaces around an id agree; a literal id that is not an NPI names no NPI', () => {
    const c = claim();
    c.patient = { reference: 'Patient/MBR-1001', identifier: { value: 'MBR-1001 ' } };
    c.insurer = { reference: 'Organization/PAYER-ACME', identifier: { value: ' PAYER-ACME' } };
    expect(errors(c)).toEqual([]);
    // A server's own id (not 10 digits, or failing the NPI check digit) is the resource's name, not an NPI.
    c.provider = { reference: 'Organization/org-17', identifier: { system: NPI, value: '1045782368' } };
    expect(parseClaim(c).providerNpi).toBe('1045782368');
    c.provider = { reference: 'Organization/1234567890', identifier: { system: NPI, value: '1045782368' } };
    expect(parseClaim(c).providerNpi).toBe('1045782368');
    // An identifier of another system (a tax id) is not a second NPI.
    c.provider = { reference: 'Organization/1045782368', identifier: { system: 'urn:oid:2.16.840.1.113883.4.4', value: '123456789' } };
    expect(parseClaim(c).providerNpi).toBe('1045782368');
  });

  it('an identifier no reader can take as one (a list, a number) or a reference to nothing is refused, never set aside for the other name', () => {
    const c = claim();
    c.patient = { reference: 'Patient/MBR-1002', identifier: [{ value: 'MBR-1001' }] };
    expect(errors(c)).toEqual([{ field: 'patient.identifier', message: expect.stringMatching(/must be one Identifier.*a list/) }]);
    c.patient = { reference: 'Patient/MBR-1002', identifier: { value: 1001 } };
    expect(errors(c)).toEqual([{ field: 'patient.identifier.value', message: expect.stringMatching(/must be text.*1001/) }]);
    c.patient = { reference: '#gone', identifier: { value: 'MBR-1001' } };
    expect(errors(c)).toEqual([{ field: 'patient.reference', message: expect.stringContaining('"#gone", which the claim does not contain') }]);
    c.patient = { reference: 'Patient/MBR-1001' };
    c.provider = { reference: 'Organization/1045782368', identifier: [{ system: NPI, value: '1196382455' }] };
    expect(errors(c)).toEqual([{ field: 'provider.identifier', message: expect.stringMatching(/must be one Identifier/) }]);
    c.provider = { reference: 'Organization/1045782368' };
    c.insurer = { reference: 'Organization/PAYER-ACME', identifier: [{ value: 'PAYER-OTHER' }] };
    expect(errors(c)).toEqual([{ field: 'insurer.identifier', message: expect.stringMatching(/must be one Identifier/) }]);
  });

  it('a provider identifier beside a contained resource whose identifier without a system is another valid NPI: refused naming both', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Organization', id: 'o', identifier: [{ value: 'org-17' }, { value: '1196382455' }] }];
    c.provider = { reference: '#o', identifier: { system: NPI, value: '1045782368' } };
    expect(errors(c)).toEqual([{ field: 'provider.identifier.value', message: expect.stringMatching(/1045782368.*has NPI 1196382455/) }]);
    // An id without a system that is no NPI (a server's own) is not a second NPI.
    c.contained[0].identifier = [{ value: 'org-17' }];
    expect(parseClaim(c).providerNpi).toBe('1045782368');
  });

  it('a Patient of two member ids is refused even beside an identifier naming one of them, and as a Coverage’s beneficiary', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', 'MBR-1001'), typed('MB', 'MBR-1002')] }];
    c.patient = { reference: '#p', identifier: { value: 'MBR-1001' } };
    expect(errors(c)).toEqual([{ field: 'contained[0].identifier', message: expect.stringMatching(/several member ids \("MBR-1001", "MBR-1002"\)/) }]);
    c.patient = { reference: 'Patient/MBR-1001' };
    c.contained.push({ resourceType: 'Coverage', id: 'cov', status: 'active', beneficiary: { reference: '#p' } });
    c.insurance = [{ sequence: 1, focal: true, coverage: { reference: '#cov' } }];
    expect(errors(c)).toEqual([{ field: 'contained[0].identifier', message: expect.stringMatching(/several member ids/) }]);
  });

  // Every way the claim can spell its member, one to three at once: read when they all name one
  // member, refused (naming the field) when any two differ, never read as one of them.
  it('property: any set of spellings of the member is read only when all name one member', () => {
    const member = fc.constantFrom('MBR-1001', 'MBR-1002', 'MBR-1003');
    fc.assert(
      fc.property(
        fc.record({
          ref: fc.option(fc.tuple(fc.constantFrom('literal', 'conditional', 'contained'), member), { nil: undefined }),
          id: fc.option(member, { nil: undefined }),
        }),
        ({ ref, id }) => {
          fc.pre(ref !== undefined || id !== undefined);
          const c = claim();
          c.patient = {};
          if (ref?.[0] === 'literal') c.patient.reference = `Patient/${ref[1]}`;
          if (ref?.[0] === 'conditional') c.patient.reference = `Patient?identifier=urn:plan|${ref[1]}`;
          if (ref?.[0] === 'contained') {
            c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', ref[1])] }];
            c.patient.reference = '#p';
          }
          if (id !== undefined) c.patient.identifier = { value: id };
          const named = new Set([ref?.[1], id].filter((v) => v !== undefined));
          const found = errors(c);
          if (named.size === 1) {
            expect(found).toEqual([]);
            expect(parseClaim(c).memberId).toBe([...named][0]);
          } else {
            expect(found).toEqual([{ field: 'patient.identifier.value', message: expect.stringContaining(`"${id}"`) }]);
            expect(found[0]!.message).toContain(`"${ref![1]}"`);
          }
        },
      ),
    );
  });

  it('property: any set of spellings of a provider is read only when all name one NPI', () => {
    const npi = fc.constantFrom('1045782368', '1196382455', '1234567893');
    const spelling = fc.constantFrom('literal', 'conditional', 'contained');
    fc.assert(
      fc.property(
        fc.record({
          where: fc.constantFrom('provider', 'careTeam'),
          ref: fc.option(fc.tuple(spelling, npi), { nil: undefined }),
          id: fc.option(npi, { nil: undefined }),
        }),
        ({ where, ref, id }) => {
          fc.pre(ref !== undefined || id !== undefined);
          const c = claim();
          const r: Json = {};
          if (ref?.[0] === 'literal') r.reference = `Organization/${ref[1]}`;
          if (ref?.[0] === 'conditional') r.reference = `Practitioner?identifier=${NPI}|${ref[1]}`;
          if (ref?.[0] === 'contained') {
            c.contained = [{ resourceType: 'Practitioner', id: 'pr', identifier: [{ system: NPI, value: ref[1] }] }];
            r.reference = '#pr';
          }
          if (id !== undefined) r.identifier = { system: NPI, value: id };
          if (where === 'provider') c.provider = r;
          else c.careTeam[0].provider = r;
          const path = where === 'provider' ? 'provider' : 'careTeam[0].provider';
          const named = new Set([ref?.[1], id].filter((v) => v !== undefined));
          const found = errors(c);
          if (named.size === 1) {
            expect(found).toEqual([]);
            const parsed = parseClaim(c);
            expect(where === 'provider' ? parsed.providerNpi : parsed.careTeam[0]!.npi).toBe([...named][0]);
          } else {
            expect(found).toEqual([{ field: `${path}.identifier.value`, message: expect.stringContaining(id!) }]);
            expect(found[0]!.message).toContain(ref![1]);
          }
        },
      ),
    );
  });
});

describe('a reference beside an identifier is read exactly as it would be alone', () => {
  // Each spelling tpa cannot read as a patient reference: alone it is refused, and beside an
  // identifier naming another member it is refused the same way, never set aside for the identifier.
  const MALFORMED_PATIENT = [
    'Patient/MBR-1002/',
    'Patient//MBR-1002',
    'Patient/./MBR-1002',
    'Patient/MBR-1002?',
    'Patient/MBR-1002#x',
    'Patient/MBR-1002\t',
    'Patient/MBR-1002 ',
    '\u00a0Patient/MBR-1002',
    'Patient/MBR%2D1002',
    'urn:uuid:MBR-1002',
    'Patient/MBR-1002,MBR-1001',
    'Patient?identifier=x|MBR-1002&active=true',
    'Patient?_id=MBR-1002',
    'Patient?identifier:exact=x|MBR-1002',
    'Organization/MBR-1002',
  ];

  it('a malformed patient reference is refused at patient.reference, alone and beside an identifier naming another member', () => {
    for (const reference of MALFORMED_PATIENT) {
      for (const patient of [{ reference }, { reference, identifier: { value: 'MBR-1001' } }]) {
        const c = claim();
        c.patient = patient;
        const found = errors(c);
        expect(found, JSON.stringify(patient)).toEqual([{ field: 'patient.reference', message: expect.any(String) }]);
        // What it is refused for, never a member read from the identifier beside it.
        expect(found[0]!.message, reference).toMatch(
          /^must be Patient\/<member id> \(got "|neither contained in the claim nor an entry of its Bundle|names several identifiers/,
        );
      }
    }
  });

  const MALFORMED_PROVIDER = [
    'Organization/1196382455/',
    'Organization/ 1196382455',
    'Practitioner/1196382455/',
    'Organization/1196382455?x=1',
    'Organization?npi=1196382455',
  ];

  it('a malformed provider or care-team reference beside an NPI identifier is refused at its reference, never set aside', () => {
    for (const reference of MALFORMED_PROVIDER) {
      const c = claim();
      c.provider = { reference, identifier: { system: NPI, value: '1045782368' } };
      expect(errors(c), reference).toEqual([{ field: 'provider.reference', message: expect.stringContaining('is not a reference tpa can read') }]);
      const d = claim();
      d.careTeam[0].provider = { reference, identifier: { system: NPI, value: '1045782368' } };
      expect(errors(d), reference).toEqual([{ field: 'careTeam[0].provider.reference', message: expect.stringContaining('is not a reference tpa can read') }]);
    }
  });

  it('an absolute or versioned Organization/<NPI> names that NPI alone and beside an identifier: another NPI is refused naming both', () => {
    for (const reference of [
      'https://fhir.example/Organization/1196382455',
      'Organization/1196382455/_history/2',
      'https://fhir.example/fhir/Practitioner/1196382455/_history/1',
    ]) {
      const c = claim();
      c.provider = { reference };
      expect(parseClaim(c).providerNpi, reference).toBe('1196382455');
      c.provider.identifier = { system: NPI, value: '1045782368' };
      expect(errors(c), reference).toEqual([{ field: 'provider.identifier.value', message: expect.stringMatching(/is NPI 1045782368.*names NPI 1196382455/) }]);
      c.provider.identifier.value = '1196382455';
      expect(parseClaim(c).providerNpi).toBe('1196382455');
    }
  });

  it('a urn:uuid patient or provider reference in a lone Claim is refused beside an identifier too: it names an entry that is not there', () => {
    const c = claim();
    c.patient = { reference: 'urn:uuid:MBR-1002', identifier: { value: 'MBR-1001' } };
    expect(errors(c)).toEqual([{ field: 'patient.reference', message: expect.stringContaining('neither contained in the claim nor an entry of its Bundle') }]);
    const d = claim();
    d.provider = { reference: 'urn:uuid:0b6e', identifier: { system: NPI, value: '1045782368' } };
    expect(errors(d)).toEqual([{ field: 'provider.reference', message: expect.stringContaining('neither contained in the claim nor an entry of its Bundle') }]);
  });

  it('a malformed insurer reference, or a contained Coverage’s malformed beneficiary reference, is refused beside its identifier', () => {
    const c = claim();
    c.insurer = { reference: 'Organization/PAYER-OTHER/', identifier: { value: 'PAYER-ACME' } };
    expect(errors(c)).toEqual([{ field: 'insurer.reference', message: expect.stringContaining('"Organization/PAYER-OTHER/"') }]);
    c.insurer = { reference: 'Organization/PAYER-ACME', identifier: { value: 'PAYER-ACME' } };
    c.contained = [{ resourceType: 'Coverage', id: 'cov', status: 'active', beneficiary: { reference: 'Patient/MBR-1002/' } }];
    c.insurance = [{ sequence: 1, focal: true, coverage: { reference: '#cov' } }];
    expect(errors(c)).toEqual([{ field: 'contained[0].beneficiary.reference', message: expect.stringContaining('"Patient/MBR-1002/"') }]);
    c.contained[0].beneficiary.reference = 'Patient/MBR-1001';
    expect(parseClaim(c).memberId).toBe('MBR-1001');
  });

  it('the readable forms still read: relative, absolute, versioned, conditional, contained; white space around an identifier’s value is set aside', () => {
    for (const reference of [
      'Patient/MBR-1001',
      'https://ehr.example/fhir/Patient/MBR-1001',
      'Patient/MBR-1001/_history/7',
      'Patient?identifier=urn:plan|MBR-1001',
    ]) {
      const c = claim();
      c.patient = { reference, identifier: { value: ' MBR-1001 ' } };
      expect(errors(c), reference).toEqual([]);
      expect(parseClaim({ ...c, patient: { reference } }).memberId).toBe('MBR-1001');
    }
  });
});

describe('a key given twice in one object of the claim’s text', () => {
  it('the path of the first key given twice, wherever it is; keys of other objects, and keys’ text inside strings, are not repeats', () => {
    expect(duplicateKeyPath('{"a":1,"b":2}')).toBeUndefined();
    expect(duplicateKeyPath('{"a":1,"a":2}')).toBe('a');
    expect(duplicateKeyPath('{"p":{"r":"x","r":"y"}}')).toBe('p.r');
    expect(duplicateKeyPath('{"item":[{"net":1},{"net":2,"q":{"v":1},"net":3}]}')).toBe('item[1].net');
    // The same key written two ways is one key to JSON.parse.
    expect(duplicateKeyPath('{"a":1,"\\u0061":2}')).toBe('a');
    // Quotes, braces and commas inside strings are text.
    expect(duplicateKeyPath('{"a":"\\",\\"a\\":{,[","b":["a","a"],"c":{"a":1}}')).toBeUndefined();
    expect(duplicateKeyPath('[{"a":1},{"a":2}]')).toBeUndefined();
    // An object of many keys (kept in a set past the first few), its repeat found at the end.
    const many = Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`);
    expect(duplicateKeyPath(`{"x":{${many.join(',')}}}`)).toBeUndefined();
    expect(duplicateKeyPath(`{"x":{${many.join(',')},"k7":0}}`)).toBe('x.k7');
    expect(duplicateKeyPath(`{"x":{"k1":0,${many.slice(0, 3).join(',')}}}`)).toBe('x.k1');
  });

  it('a claim naming its patient twice as two keys is refused at that key, by the text the service and the CLI read', () => {
    const c = claim();
    const text = JSON.stringify(c).replace(
      '"patient":{"reference":"Patient/MBR-1001"}',
      '"patient":{"reference":"Patient/MBR-1001"},"patient":{"reference":"Patient/MBR-1002"}',
    );
    expect(text).toContain('MBR-1002');
    // JSON.parse alone would read MBR-1002, the last.
    expect(parseClaim(JSON.parse(text)).memberId).toBe('MBR-1002');
    const refused = (read: () => unknown) => {
      try {
        read();
      } catch (e) {
        return (e as { errors: unknown }).errors;
      }
      return [];
    };
    const expected = [{ field: 'patient', message: expect.stringMatching(/^is given twice in one object: one reader takes the first, another the last/) }];
    expect(refused(() => parseClaimText(text))).toEqual(expected);
    expect(refused(() => parseReadClaim(text, JSON.parse(text)))).toEqual(expected);
    const twoNets = JSON.stringify(c).replace('"net":{', '"net":{"value":1,"currency":"USD"},"net":{');
    expect(refused(() => parseClaimText(twoNets))).toEqual([{ field: 'item[0].net', message: expect.any(String) }]);
  });
});

describe('a Claim inside a Bundle', () => {
  const bundle = (c: Json, entry: Json, fullUrl?: string) => ({
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [{ ...(fullUrl ? { fullUrl } : {}), resource: entry }, { resource: c }],
  });

  it('a Patient entry whose member id is not the reference’s own identifier: refused naming both', () => {
    const c = claim();
    c.patient = { reference: 'urn:uuid:0b6e', identifier: { value: 'MBR-1001' } };
    const sent = selfContainedClaim(bundle(c, { resourceType: 'Patient', identifier: [typed('MB', 'MBR-1002')] }, 'urn:uuid:0b6e'), 1);
    expect(errors(sent)).toEqual([{ field: 'patient.identifier.value', message: expect.stringMatching(/"MBR-1001".*contained\[0\].*"MBR-1002"/) }]);
  });

  it('Organization/<NPI> naming an entry that holds another NPI is refused naming both, not read as the entry', () => {
    const c = claim();
    c.provider = { reference: 'Organization/1045782368' };
    const entry = { resourceType: 'Organization', id: '1045782368', identifier: [{ system: NPI, value: '1196382455' }] };
    const sent = selfContainedClaim(bundle(c, entry), 1);
    expect(errors(sent)).toEqual([{ field: 'provider.reference', message: expect.stringMatching(/Organization\/1045782368.*1045782368.*1196382455/) }]);
    // An entry whose NPI has no system is read as the parser reads it: the same refusal.
    const untyped = { ...entry, identifier: [{ value: '1196382455' }] };
    expect(errors(selfContainedClaim(bundle(c, untyped), 1))).toEqual([{ field: 'provider.reference', message: expect.stringContaining('1196382455') }]);
    // The entry holding that NPI, it is read.
    entry.identifier[0]!.value = '1045782368';
    expect(parseClaim(selfContainedClaim(bundle(c, entry), 1)).providerNpi).toBe('1045782368');
  });

  it('the absolute or versioned form of Organization/<NPI>, or a conditional reference by NPI, naming an entry of another NPI is refused naming both', () => {
    const entry = { resourceType: 'Organization', id: '1045782368', identifier: [{ system: NPI, value: '1196382455' }] };
    for (const reference of ['http://x/Organization/1045782368', 'Organization/1045782368/_history/1', `Organization?identifier=1045782368`]) {
      const c = claim();
      c.provider = { reference };
      const held = reference.startsWith('Organization?') ? { ...entry, identifier: [...entry.identifier, { value: '1045782368' }] } : entry;
      const sent = selfContainedClaim(bundle(c, held, 'http://x/Organization/1045782368'), 1);
      expect(errors(sent), reference).toEqual([
        { field: 'provider.reference', message: expect.stringMatching(/in its Bundle, naming NPI 1045782368.*has NPI 1196382455.*not for tpa to guess/) },
      ]);
    }
    // The entry holding the NPI the reference names: read.
    const c = claim();
    c.provider = { reference: 'http://x/Organization/1045782368' };
    const same = { ...entry, identifier: [{ system: NPI, value: '1045782368' }] };
    expect(parseClaim(selfContainedClaim(bundle(c, same, 'http://x/Organization/1045782368'), 1)).providerNpi).toBe('1045782368');
  });

  it('a conditional patient reference naming a Patient entry whose member id is another is refused naming both, not rewritten to the entry’s member', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=urn:x|MBR-1001' };
    // Alone, the reference names MBR-1001.
    expect(parseClaim(c).memberId).toBe('MBR-1001');
    const patient = { resourceType: 'Patient', id: 'p', identifier: [{ system: 'urn:x', value: 'MBR-1001' }, typed('MB', 'MBR-1002')] };
    const sent = selfContainedClaim(bundle(c, patient), 1);
    expect(errors(sent)).toEqual([
      {
        field: 'patient.reference',
        message: expect.stringMatching(/"Patient\?identifier=urn:x\|MBR-1001" in its Bundle, naming member "MBR-1001".*is member "MBR-1002"/),
      },
    ]);
    // The Patient whose member id is the one the reference names: read, as that member.
    patient.identifier[1] = typed('MB', 'MBR-1001');
    expect(parseClaim(selfContainedClaim(bundle(c, patient), 1)).memberId).toBe('MBR-1001');
  });

  it('a conditional patient reference by the hospital’s medical record number (MR) finds the patient, whose member number is the member', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=http://hosp.example/mrn|MRN-55' };
    const patient = {
      resourceType: 'Patient',
      id: 'p',
      identifier: [{ ...typed('MR', 'MRN-55'), system: 'http://hosp.example/mrn' }, typed('MB', 'MBR-1003')],
    };
    expect(parseClaim(selfContainedClaim(bundle(c, patient), 1)).memberId).toBe('MBR-1003');
    // Found by an identifier not typed a medical record number, its value is read as alone: refused.
    patient.identifier[0] = { system: 'http://hosp.example/mrn', value: 'MRN-55' } as never;
    expect(errors(selfContainedClaim(bundle(c, patient), 1))).toEqual([expect.objectContaining({ field: 'patient.reference' })]);
  });

  it('a Patient with a member number (MB) and CARIN’s unique member id (um) of another value is the member of its MB; two MBs still refused', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', 'MBR-1003'), typed('um', 'U-99')] }];
    c.patient = { reference: '#p' };
    expect(parseClaim(c).memberId).toBe('MBR-1003');
    c.contained[0].identifier.push(typed('MB', 'MBR-1002'));
    expect(errors(c)).toEqual([expect.objectContaining({ message: expect.stringMatching(/holds several member ids/) })]);
  });
});

describe('tpa’s own mark (urn:tpa:fhir:bundle-reference) and the parties a Bundle’s Claim reaches through its Coverage and insurer', () => {
  const MARK = 'urn:tpa:fhir:bundle-reference';
  const P2 = {
    fullUrl: 'urn:uuid:77777777-2222-4222-8222-222222222222',
    resource: { resourceType: 'Patient', id: 'p2', identifier: [typed('MB', 'MBR-1002')] },
  };
  const inBundle = (c: Json, ...entries: Json[]) => ({
    resourceType: 'Bundle',
    type: 'collection',
    entry: [{ fullUrl: 'urn:uuid:11111111-1111-4111-8111-111111111111', resource: c }, ...entries],
  });

  it('a sender’s mark on a Bundle Claim does not get it past the check: the Bundle reader refuses it, and the parser reads every mark', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=urn:x|MBR-1003', extension: [{ url: MARK, valueString: 'Patient/MBR-1002' }] };
    const patient = { resource: { resourceType: 'Patient', id: 'p', identifier: [{ system: 'urn:x', value: 'MBR-1003' }, typed('MB', 'MBR-1002')] } };
    const b = inBundle(c, patient);
    const origins = new Map<number, number>();
    const sent = selfContainedClaim(b, 0, undefined, origins);
    // The Bundle reader: the Claim carries tpa's own mark, so it is not read.
    expect(ownMarkProblem(b, 0, origins)).toMatch(/entry\[0\] carries an extension urn:tpa:fhir:bundle-reference: that is tpa's own mark/);
    // The parser, given the claim anyway: tpa's mark (the conditional reference) is read beside the sender's, and refused.
    expect(errors(sent)).toEqual([
      {
        field: 'patient.reference',
        message: expect.stringMatching(/"Patient\?identifier=urn:x\|MBR-1003" in its Bundle, naming member "MBR-1003".*is member "MBR-1002"/),
      },
    ]);
    // Without the sender's mark: no problem with the Bundle, and the same refusal.
    delete c.patient.extension;
    expect(ownMarkProblem(inBundle(c, patient), 0)).toBeUndefined();
    expect(errors(selfContainedClaim(inBundle(c, patient), 0)).map((e) => e.field)).toEqual(['patient.reference']);
    // A mark on an entry the Claim brings in is a mark too.
    const marked = { resource: { ...patient.resource, extension: [{ url: MARK, valueString: 'x' }] } };
    const from = new Map<number, number>();
    selfContainedClaim(inBundle(c, marked), 0, undefined, from);
    expect(ownMarkProblem(inBundle(c, marked), 0, from)).toMatch(/^entry\[1\] carries/);
  });

  it('Organization/<NPI> naming an entry of another NPI, with a sender’s agreeing mark first: the Bundle reader refuses it, the parser refuses tpa’s mark', () => {
    const c = claim();
    c.provider = { reference: 'Organization/1196382455', extension: [{ url: MARK, valueString: 'Organization/1045782368' }] };
    const org = {
      fullUrl: 'http://x/Organization/1196382455',
      resource: { resourceType: 'Organization', id: '1196382455', identifier: [{ system: NPI, value: '1045782368' }] },
    };
    expect(ownMarkProblem(inBundle(c, org), 0)).toContain("tpa's own mark");
    expect(errors(selfContainedClaim(inBundle(c, org), 0))).toEqual([
      { field: 'provider.reference', message: expect.stringMatching(/"Organization\/1196382455" in its Bundle, naming NPI 1196382455.*has NPI 1045782368/) },
    ]);
  });

  it('a claim sent straight with marks: every mark is read, one that disagrees refuses it; marks that agree change nothing', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MB', 'MBR-1002')] }];
    c.patient = {
      reference: '#p',
      extension: [
        { url: MARK, valueString: 'Patient/MBR-1002' },
        { url: MARK, valueString: 'Patient?identifier=urn:x|MBR-1003' },
      ],
    };
    expect(errors(c)).toEqual([
      { field: 'patient.reference', message: expect.stringMatching(/naming member "MBR-1003".*contained\[0\].*is member "MBR-1002"/) },
    ]);
    c.patient.extension.pop();
    expect(parseClaim(c).memberId).toBe('MBR-1002');
    // On a lone reference, a mark naming another member than the claim's is refused too.
    const lone = claim();
    lone.patient = { reference: 'Patient/MBR-1001', extension: [{ url: MARK, valueString: 'Patient/MBR-1002' }] };
    expect(errors(lone)).toEqual([
      { field: 'patient.reference', message: expect.stringMatching(/naming member "MBR-1002".*the claim's patient is member "MBR-1001"/) },
    ]);
    // A provider: the second mark names another NPI than the contained Organization's.
    const p = claim();
    p.contained = [{ resourceType: 'Organization', id: 'o', identifier: [{ system: NPI, value: '1045782368' }] }];
    p.provider = {
      reference: '#o',
      extension: [
        { url: MARK, valueString: 'Organization/1045782368' },
        { url: MARK, valueString: 'Organization/1196382455' },
      ],
    };
    expect(errors(p)).toEqual([{ field: 'provider.reference', message: expect.stringMatching(/naming NPI 1196382455.*has NPI 1045782368/) }]);
    p.provider = { reference: 'Organization/1045782368', extension: [{ url: MARK, valueString: 'Organization/1196382455' }] };
    expect(errors(p)).toEqual([{ field: 'provider.reference', message: expect.stringMatching(/naming NPI 1196382455.*is NPI 1045782368/) }]);
    p.provider.extension[0].valueString = 'Organization/1045782368';
    expect(parseClaim(p).providerNpi).toBe('1045782368');
  });

  it('a contained Coverage whose beneficiary is the Bundle’s Patient entry of another member: refused naming both', () => {
    const c = claim();
    c.contained = [
      { resourceType: 'Coverage', id: 'cv', status: 'active', beneficiary: { reference: P2.fullUrl }, payor: [{ reference: 'Organization/PAYER-ACME' }] },
    ];
    c.insurance[0].coverage = { reference: '#cv' };
    expect(errors(selfContainedClaim(inBundle(c, P2), 0))).toEqual([
      { field: 'contained[0].beneficiary.reference', message: expect.stringMatching(/names member "MBR-1002", but the claim's patient is member "MBR-1001"/) },
    ]);
    // The Patient entry of the claim's member: read.
    const p1 = { fullUrl: P2.fullUrl, resource: { ...P2.resource, identifier: [typed('MB', 'MBR-1001')] } };
    expect(parseClaim(selfContainedClaim(inBundle(c, p1), 0)).memberId).toBe('MBR-1001');
  });

  it('a Coverage entry of the Bundle (by urn:uuid or Coverage/<id>) covering another member: brought in and refused naming both', () => {
    const coverage = (beneficiary: Json) => ({
      fullUrl: 'urn:uuid:44444444-2222-4222-8222-222222222222',
      resource: {
        resourceType: 'Coverage',
        id: 'cov1',
        status: 'active',
        identifier: [typed('MB', 'MBR-1002')],
        subscriberId: 'MBR-1002',
        beneficiary,
        payor: [{ reference: 'Organization/PAYER-ACME' }],
      },
    });
    for (const reference of ['urn:uuid:44444444-2222-4222-8222-222222222222', 'Coverage/cov1']) {
      const c = claim();
      c.insurance[0].coverage = { reference };
      expect(errors(selfContainedClaim(inBundle(c, coverage({ reference: 'Patient/MBR-1002' })), 0)), reference).toEqual([
        {
          field: 'contained[0].beneficiary.reference',
          message: expect.stringMatching(/names member "MBR-1002", but the claim's patient is member "MBR-1001"/),
        },
      ]);
      // Its beneficiary an entry of the Bundle: brought in too, and compared.
      expect(
        errors(selfContainedClaim(inBundle(c, coverage({ reference: P2.fullUrl }), P2), 0)).map((e) => e.field),
        reference,
      ).toEqual(['contained[0].beneficiary.reference']);
      expect(parseClaim(selfContainedClaim(inBundle(c, coverage({ reference: 'Patient/MBR-1001' })), 0)).memberId).toBe('MBR-1001');
    }
  });

  it('the Bundle’s insurer entry naming another payer than the identifier beside it: refused naming both, as the contained one is', () => {
    const c = claim();
    c.insurer = { reference: 'urn:uuid:55555555-2222-4222-8222-222222222222', identifier: { value: 'PAYER-ACME' } };
    const payer = (id: string) => ({
      fullUrl: 'urn:uuid:55555555-2222-4222-8222-222222222222',
      resource: { resourceType: 'Organization', id: 'payer', identifier: [{ value: id }], name: 'A plan' },
    });
    expect(errors(selfContainedClaim(inBundle(c, payer('PAYER-OTHER')), 0))).toEqual([
      {
        field: 'insurer.identifier.value',
        message: expect.stringMatching(/is "PAYER-ACME", but the Organization insurer.reference points to \(contained\[0\]\) names payer "PAYER-OTHER"/),
      },
    ]);
    expect(parseClaim(selfContainedClaim(inBundle(c, payer('PAYER-ACME')), 0)).insurerIdentifier).toBe('PAYER-ACME');
  });

  it('an insurer or a Coverage’s beneficiary referring to nothing, or to another kind of resource, is refused at its reference, as a patient’s is', () => {
    for (const reference of [
      'urn:uuid:55555555-2222-4222-8222-222222222222',
      'urn:oid:2.16.840.1',
      '#nothing',
      'Patient/PAYER-OTHER',
      'Practitioner?identifier=urn:x|PAYER-ACME',
    ]) {
      for (const identifier of [{ identifier: { value: 'PAYER-ACME' } }, {}]) {
        const c = claim();
        c.insurer = { reference, ...identifier };
        expect(errors(c), reference).toEqual([{ field: 'insurer.reference', message: expect.stringMatching(/points to|must be Organization\/<payer id>/) }]);
      }
    }
    for (const reference of ['urn:uuid:55555555-2222-4222-8222-222222222222', 'urn:oid:2.16.840.1', '#nothing', 'Organization/MBR-1001']) {
      for (const identifier of [{ identifier: { value: 'MBR-1001' } }, {}]) {
        const c = claim();
        c.contained = [{ resourceType: 'Coverage', id: 'cv', status: 'active', beneficiary: { reference, ...identifier } }];
        c.insurance[0].coverage = { reference: '#cv' };
        expect(errors(c), reference).toEqual([
          { field: 'contained[0].beneficiary.reference', message: expect.stringMatching(/points to|must be Patient\/<member id>/) },
        ]);
      }
    }
    // A beneficiary's reference and identifier naming two members: refused naming the one that is not the claim's.
    const c = claim();
    c.contained = [{ resourceType: 'Coverage', id: 'cv', status: 'active', beneficiary: { reference: 'Patient/MBR-1002', identifier: { value: 'MBR-1001' } } }];
    c.insurance[0].coverage = { reference: '#cv' };
    expect(errors(c)).toEqual([{ field: 'contained[0].beneficiary.reference', message: expect.stringContaining('names member "MBR-1002"') }]);
    // What reads still reads: Organization/PAYER-ACME, a beneficiary Patient/<the member> or #<contained Patient>.
    c.contained[0].beneficiary.reference = 'Patient/MBR-1001';
    c.insurer = { reference: 'Organization/PAYER-ACME', identifier: { value: 'PAYER-ACME' } };
    expect(parseClaim(c).memberId).toBe('MBR-1001');
  });
});

describe('a practitioner’s role, the NPI’s OID and a medical record number name a party too', () => {
  it('a care-team PractitionerRole (contained or a Bundle entry) whose practitioner is another NPI than the identifier beside it: refused naming both', () => {
    const role = (practitioner: Json) => ({ resourceType: 'PractitionerRole', id: 'r', practitioner });
    for (const practitioner of [{ reference: 'Practitioner/1196382455' }, { identifier: { system: NPI, value: '1196382455' } }]) {
      const c = claim();
      c.contained = [role(practitioner)];
      c.careTeam[0].provider = { reference: '#r', identifier: { system: NPI, value: '1045782368' } };
      expect(errors(c), JSON.stringify(practitioner)).toEqual([
        {
          field: expect.stringMatching(/^contained\[0\]\.practitioner\.(reference|identifier\.value)$/),
          message: expect.stringMatching(/names NPI 1196382455, but careTeam\[0\]\.provider is NPI 1045782368/),
        },
      ]);
      // As a Bundle entry, brought in and refused the same way.
      const b = claim();
      b.careTeam[0].provider = { reference: 'urn:uuid:66666666-2222-4222-8222-222222222222', identifier: { system: NPI, value: '1045782368' } };
      const bundle = {
        resourceType: 'Bundle',
        type: 'collection',
        entry: [{ resource: b }, { fullUrl: 'urn:uuid:66666666-2222-4222-8222-222222222222', resource: role(practitioner) }],
      };
      expect(errors(selfContainedClaim(bundle, 0)).map((e) => e.message)).toEqual([expect.stringContaining('names NPI 1196382455')]);
    }
    const c = claim();
    c.contained = [role({ reference: 'Practitioner/1045782368' })];
    c.careTeam[0].provider = { reference: '#r', identifier: { system: NPI, value: '1045782368' } };
    expect(parseClaim(c).careTeam[0]!.npi).toBe('1045782368');
  });

  it('a provider identifier of the NPI’s OID (urn:oid:2.16.840.1.113883.4.6) is an NPI: beside Organization/<another NPI> it is refused naming both', () => {
    const c = claim();
    c.provider = { reference: 'Organization/1045782368', identifier: { system: 'urn:oid:2.16.840.1.113883.4.6', value: '1196382455' } };
    expect(errors(c)).toEqual([
      {
        field: 'provider.identifier.value',
        message: expect.stringMatching(/is NPI 1196382455, but provider.reference "Organization\/1045782368" names NPI 1045782368/),
      },
    ]);
    c.provider.identifier.value = '1045782368';
    expect(parseClaim(c).providerNpi).toBe('1045782368');
  });

  it('a Patient’s medical record number (MR) is never its member id: [MR MBR-1002, untyped MBR-1003] reads as MBR-1003', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p', identifier: [typed('MR', 'MBR-1002'), { value: 'MBR-1003' }] }];
    c.patient = { reference: '#p' };
    expect(parseClaim(c).memberId).toBe('MBR-1003');
    // Beside an identifier naming the medical record number, it is refused naming both.
    c.patient.identifier = { value: 'MBR-1002' };
    expect(errors(c)).toEqual([{ field: 'patient.identifier.value', message: expect.stringMatching(/"MBR-1002".*names member "MBR-1003"/) }]);
  });
});

/** An 837's claims, read as the CLI reads them. */
const file = (segments: string[]) => interchange([transaction({ st02: '0001', type: 'professional', claims: [segments] })]);

describe('an 837 that names a party twice', () => {
  it('a component separator inside NM109 (a member id, an NPI, a payer id) is refused naming its parts, never cut to its first', async () => {
    const member = await convert(file(professionalClaim({ clm01: 'C1', member: 'MBR-1003:MBR-1002' })));
    expect(member[0]!.problems).toContainEqual({
      segment: 'NM1*IL',
      message: expect.stringMatching(/member id \(NM109\) holds a component separator.*"MBR-1003", "MBR-1002"/),
    });
    const payer = await convert(file(professionalClaim({ clm01: 'C2', payer: 'PAYER-ACME:PAYER-OTHER' })));
    expect(payer[0]!.problems).toContainEqual({
      segment: 'NM1*PR',
      message: expect.stringMatching(/payer's id \(NM109\) holds a component separator.*"PAYER-ACME", "PAYER-OTHER"/),
    });
    const segments = professionalClaim({ clm01: 'C3' });
    segments[segments.indexOf('NM1*82*1*MORGAN*ALICE****XX*1045782368')] = 'NM1*82*1*MORGAN*ALICE****XX*1045782368:1196382455';
    const [rendering] = await convert(file(segments));
    expect(rendering!.problems).toContainEqual({
      segment: 'NM1*82',
      message: expect.stringMatching(/NPI \(NM109\) holds a component separator.*"1045782368", "1196382455"/),
    });
    // One part, it is read.
    expect((await convert(file(professionalClaim({ clm01: 'C4' }))))[0]!.problems).toEqual([]);
  });

  it('a second payer (NM1*PR) in the subscriber loop is refused, whatever it names', async () => {
    const segments = professionalClaim({ clm01: 'P1' });
    segments.splice(segments.indexOf('NM1*PR*2*ACME HEALTH PLAN*****PI*PAYER-ACME') + 1, 0, 'NM1*PR*2*OTHER PLAN*****PI*PAYER-OTHER');
    const [c] = await convert(file(segments));
    expect(c!.problems).toContainEqual({ segment: 'NM1*PR', message: expect.stringMatching(/a second NM1\*PR in the subscriber loop/) });
  });

  it('a second rendering provider (2310B) on the claim naming another NPI is refused naming both; the same NPI again is one provider', async () => {
    const [c] = await convert(file(professionalClaim({ clm01: 'R1', extra: ['NM1*82*1*OKAFOR*ANA****XX*1196382455'] })));
    expect(c!.problems).toEqual([
      { segment: 'NM1*82', message: expect.stringMatching(/second rendering provider.*NPI 1196382455.*first names NPI 1045782368/) },
    ]);
    const [same] = await convert(file(professionalClaim({ clm01: 'R2', extra: ['NM1*82*1*MORGAN*ALICE****XX*1045782368'] })));
    expect(same!.problems).toEqual([]);
    expect((same!.claim as Json).careTeam).toHaveLength(1);
  });

  it('a second rendering provider (2420A) on one line, or a second service facility (2310C), naming another NPI is refused', async () => {
    const line = professionalClaim({ clm01: 'L1' });
    line.splice(line.findIndex((s) => s.startsWith('DTP*472')) + 1, 0, 'NM1*82*1*MORGAN*ALICE****XX*1045782368', 'NM1*82*1*OKAFOR*ANA****XX*1196382455');
    const [c] = await convert(file(line));
    expect(c!.problems).toEqual([{ segment: 'SV1 #1, NM1*82', message: expect.stringMatching(/on service line 1: NPI 1196382455.*NPI 1045782368/) }]);
    const facility = professionalClaim({ clm01: 'F1', extra: ['NM1*77*2*RIVERSIDE*****XX*1234567893', 'NM1*77*2*ELSEWHERE*****XX*1196382455'] });
    const [f] = await convert(file(facility));
    expect(f!.problems).toEqual([{ segment: 'NM1*77', message: expect.stringMatching(/second service facility provider.*1196382455.*1234567893/) }]);
  });

  it('a subscriber loop that says the subscriber is not the patient (SBR02 not 18) and names no patient is refused: the member would be another person', async () => {
    for (const sbr02 of ['', '01']) {
      const segments = professionalClaim({ clm01: 'S1' }).map((s) => (s.startsWith('SBR*P*18*') ? s.replace('SBR*P*18*', `SBR*P*${sbr02}*`) : s));
      const [c] = await convert(file(segments));
      expect(c!.problems).toEqual([
        { segment: 'SBR', message: expect.stringMatching(/^SBR02 is .*not 18 \(self\): the subscriber MBR-1001 is not the patient/) },
      ]);
    }
    // The subscriber who is the patient (SBR02 18), as every claim above: read.
    const [self] = await convert(file(professionalClaim({ clm01: 'S2' })));
    expect(self!.problems).toEqual([]);
  });

  it('a patient (NM1*QC) named beside the subscriber outside a patient loop, or inside the claim, is refused naming both', async () => {
    const segments = professionalClaim({ clm01: 'Q1', member: 'MBR-1003' });
    segments.splice(segments.indexOf('NM1*IL*1*DOE*JANE****MI*MBR-1003') + 1, 0, 'NM1*QC*1*DOE*JANE****MI*MBR-1001');
    const [c] = await convert(file(segments));
    expect(c!.problems).toEqual([
      { segment: 'NM1*QC', message: expect.stringMatching(/NM1\*QC: JANE DOE, NM109 MBR-1001.*beside the subscriber MBR-1003.*not for tpa to guess/) },
    ]);
    const [inside] = await convert(file(professionalClaim({ clm01: 'Q2', member: 'MBR-1003', extra: ['NM1*QC*1*DOE*JANE****MI*MBR-1001'] })));
    expect(inside!.problems).toEqual([{ segment: 'NM1*QC', message: expect.stringMatching(/NM1\*QC inside the claim.*a patient begins its own loop/) }]);
  });

  it('a coverage identifier typed as a member id names the claim’s member or the claim is refused naming both; claim convert writes it so typed', async () => {
    const c = claim();
    c.insurance = [{ sequence: 1, focal: true, coverage: { identifier: { type: { coding: [{ system: V2, code: 'MB' }] }, value: 'MBR-1002' } } }];
    expect(errors(c)).toEqual([
      { field: 'insurance[0].coverage.identifier.value', message: expect.stringMatching(/"MBR-1002" \(typed MB\).*member "MBR-1001"/) },
    ]);
    c.insurance[0].coverage.identifier.value = 'MBR-1001';
    expect(parseClaim(c).memberId).toBe('MBR-1001');
    // Untyped, a coverage's identifier is its policy's number, not a member id: not compared.
    c.insurance[0].coverage.identifier = { value: 'POL-77' };
    expect(parseClaim(c).memberId).toBe('MBR-1001');
    // claim convert marks the coverage's identifier a member number: an edit of it is caught.
    const [x] = await convert(file(professionalClaim({ clm01: 'C1', member: 'MBR-1003' })));
    const converted = x!.claim as Json;
    expect(converted.insurance[0].coverage.identifier).toEqual({ type: { coding: [{ system: V2, code: 'MB' }] }, value: 'MBR-1003' });
    converted.insurance[0].coverage.identifier.value = 'MBR-1002';
    expect(errors(converted)).toEqual([{ field: 'insurance[0].coverage.identifier.value', message: expect.stringContaining('"MBR-1002"') }]);
  });

  it('the FHIR Claim of an 837 names its member and providers once each, in agreement: the parser reads them as the 837 does', async () => {
    for (const member of ['MBR-1003', 'JS00111223333', 'A B/7']) {
      const [c] = await convert(file(professionalClaim({ clm01: 'M1', member })));
      const claim = c!.claim as Json;
      expect(c!.problems).toEqual([]);
      // The reference, when the id can be one, and the identifier say the same member.
      if (claim.patient.reference !== undefined) expect(claim.patient.reference).toBe(`Patient/${member}`);
      expect(claim.patient.identifier.value).toBe(member);
      expect(parseClaim(claim)).toMatchObject({ memberId: member, providerNpi: '1234567893', insurerIdentifier: 'PAYER-ACME' });
    }
  });
});
