// FHIR as other systems write it: references the way transaction Bundles and other
// systems write them, messages that say what is missing, the diagnosis coding system, and care-team
// roles by their codes. The parser (domain/fhir-claim.ts) and the Bundle reader (domain/fhir-bundle.ts).
import { describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { BundleIndex, selfContainedClaim } from '../../src/domain/fhir-bundle.js';
import { parseClaim } from '../../src/domain/fhir-claim.js';

type Json = Record<string, any>;
const NPI = 'http://hl7.org/fhir/sid/us-npi';
const ICD10CM = 'http://hl7.org/fhir/sid/icd-10-cm';
const ICD10 = 'http://hl7.org/fhir/sid/icd-10';
const ICD9 = 'http://hl7.org/fhir/sid/icd-9-cm';
const ROLE = 'http://terminology.hl7.org/CodeSystem/claimcareteamrole';

/** Dr. Morgan's professional claim for MBR-1001 on `date`. */
const claim = (date = '2025-06-02'): Json => claimTemplate({ type: 'professional', serviceDate: date, patient: 'MBR-1001', cpt: ['45378'] }) as Json;

function errors(value: unknown): { field: string; message: string }[] {
  try {
    parseClaim(value, { today: '2026-06-30' });
  } catch (e) {
    return (e as { errors: { field: string; message: string }[] }).errors;
  }
  return [];
}

const withDiagnosis = (c: Json, coding: Json[]): Json => ({ ...c, diagnosis: [{ sequence: 1, diagnosisCodeableConcept: { coding } }] });

describe('references other systems write', () => {
  it('a provider given as a conditional reference by NPI is read as that NPI (not "has no NPI identifier")', () => {
    const c = claim();
    c.provider = { reference: `Practitioner?identifier=${NPI}|1045782368` };
    c.careTeam[0].provider = { reference: `Practitioner?identifier=${encodeURIComponent(`${NPI}|1045782368`)}` };
    const parsed = parseClaim(c);
    expect(parsed.providerNpi).toBe('1045782368');
    expect(parsed.careTeam.map((m) => m.npi)).toEqual(['1045782368']);
  });

  it('a conditional reference by another identifier says the NPI is missing, naming what it has', () => {
    const c = claim();
    c.provider = { reference: 'Organization?identifier=https://github.com/synthetichealth/synthea|dd406540' };
    expect(errors(c)).toEqual([
      {
        field: 'provider.reference',
        message: `names Organization by identifier https://github.com/synthetichealth/synthea|dd406540, not by NPI: the NPI (system ${NPI}) is missing`,
      },
    ]);
  });

  it('a conditional reference to the member (Patient?identifier=<system>|<member id>) is read as the member id', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=https://plan.example/member-id|MBR-1002' };
    expect(parseClaim(c).memberId).toBe('MBR-1002');
  });

  it('a contained Patient without an identifier: the member identifier is missing (not "must be Patient/<member id>")', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'pat1', name: [{ family: 'Doe' }] }];
    c.patient = { reference: '#pat1' };
    expect(errors(c)).toEqual([
      { field: 'contained[0].identifier', message: 'is missing: the member id (the Patient "pat1" the claim\'s patient points to has no identifier)' },
    ]);
  });

  it('a urn:uuid reference that nothing resolves says so, not "must be Patient/<member id>"', () => {
    const c = claim();
    c.patient = { reference: 'urn:uuid:d5582579-7193-4866-5560-a01e723b6552' };
    expect(errors(c)).toEqual([
      {
        field: 'patient.reference',
        message:
          'points to "urn:uuid:d5582579-7193-4866-5560-a01e723b6552", which is neither contained in the claim nor an entry of its Bundle: the member id is missing',
      },
    ]);
  });
});

describe('periods with only an end', () => {
  it('a servicedPeriod with only an end is that day (not "start: must be a date")', () => {
    const c = claim();
    delete c.item[0].servicedDate;
    c.item[0].servicedPeriod = { end: '2025-06-02T10:30:00-04:00' };
    expect(errors(c)).toEqual([]);
    expect(parseClaim(c).lines[0]!.serviceDate).toBe('2025-06-02');
  });

  it('a billablePeriod with only an end dates the lines that have no date of their own', () => {
    const c = claim();
    delete c.item[0].servicedDate;
    c.billablePeriod = { end: '2025-06-01' };
    const parsed = parseClaim(c);
    expect(parsed.lines[0]!.serviceDate).toBe('2025-06-01');
    expect(parsed.billablePeriod).toEqual({ start: null, end: '2025-06-01' });
  });
});

describe('the diagnosis coding system', () => {
  it('an ICD-10-CM code under the ICD-10-CM or the ICD-10 system is checked as ICD-10', () => {
    for (const system of [ICD10CM, ICD10]) {
      expect(parseClaim(withDiagnosis(claim(), [{ system, code: 'Z12.11' }])).diagnosisCodes).toEqual(['Z12.11']);
      expect(errors(withDiagnosis(claim(), [{ system, code: '211.3' }]))).toEqual([
        { field: 'diagnosis[0].diagnosisCodeableConcept.coding[0].code', message: 'must be an ICD-10 code such as K63.5 (got "211.3")' },
      ]);
    }
  });

  it('the ICD-10 coding is chosen among several, wherever it stands', () => {
    const c = withDiagnosis(claim(), [
      { system: 'http://snomed.info/sct', code: '15777000' },
      { system: ICD10CM, code: 'R73.03' },
    ]);
    expect(parseClaim(c).diagnosisCodes).toEqual(['R73.03']);
  });

  it('ICD-9 is refused for a service from 2015-10-01 with that reason, even a code that looks like ICD-10 (V76.51)', () => {
    expect(errors(withDiagnosis(claim('2025-06-02'), [{ system: ICD9, code: 'V76.51' }]))).toEqual([
      {
        field: 'diagnosis[0].diagnosisCodeableConcept.coding[0].system',
        message: `is ICD-9-CM (code "V76.51"), which is not accepted for services from 2015-10-01 (this one is 2025-06-02): code the diagnosis in ICD-10-CM (${ICD10CM})`,
      },
    ]);
  });

  it('ICD-9 codes, numeric or V, are accepted for a service before 2015-10-01', () => {
    expect(parseClaim(withDiagnosis(claim('2014-03-03'), [{ system: ICD9, code: 'V76.51' }])).diagnosisCodes).toEqual(['V76.51']);
    expect(parseClaim(withDiagnosis(claim('2014-03-03'), [{ system: ICD9, code: '211.3' }])).diagnosisCodes).toEqual(['211.3']);
    expect(parseClaim(withDiagnosis(claim('2014-03-03'), [{ system: ICD9, code: 'V7651' }])).diagnosisCodes).toEqual(['V7651']);
    expect(errors(withDiagnosis(claim('2014-03-03'), [{ system: ICD9, code: 'K63.5' }]))).toEqual([
      { field: 'diagnosis[0].diagnosisCodeableConcept.coding[0].code', message: 'must be an ICD-9-CM code such as 211.3 or V76.51 (got "K63.5")' },
    ]);
  });

  it('a claim with one service before 2015-10-01 and one after is coded in ICD-10: ICD-9 is refused', () => {
    const c = withDiagnosis(claim('2015-10-01'), [{ system: ICD9, code: '211.3' }]);
    c.item.push({ ...c.item[0], sequence: 2, servicedDate: '2015-09-30' });
    delete c.total;
    expect(errors(c).map((e) => e.field)).toEqual(['diagnosis[0].diagnosisCodeableConcept.coding[0].system']);
  });
});

describe('care-team roles by their codes', () => {
  const roleOf = (code: string, system?: string) => {
    const c = claim();
    c.careTeam[0].role = { coding: [{ ...(system ? { system } : {}), code }] };
    return parseClaim(c).careTeam[0]!.role;
  };

  it('"primary" (a primary care practitioner) is not SURGEON: none of the roles paid, the registry decides', () => {
    expect(roleOf('primary', ROLE)).toBeNull();
    for (const code of ['assist', 'supervisor', 'other']) expect(roleOf(code, ROLE)).toBeNull();
  });

  it('the codes of the roles paid are read as those roles, and no pattern on the word is', () => {
    expect(roleOf('surgeon', ROLE)).toBe('SURGEON');
    expect(roleOf('anesthesiologist')).toBe('ANESTHESIA');
    expect(roleOf('pathologist')).toBe('PATHOLOGY');
    expect(roleOf('FACILITY')).toBe('FACILITY');
    expect(roleOf('lab-assistant')).toBeNull();
    expect(roleOf('neurosurgery-resident')).toBeNull();
  });
});

describe('a Claim inside a Bundle is made self-contained', () => {
  const bundle = (c: Json, extra: Json[] = []): Json => ({
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [
      {
        fullUrl: 'urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001',
        resource: {
          resourceType: 'Patient',
          id: '0b7c3e5e-6d1a-4c8e-9f3e-000000000001',
          text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Jane</div>' },
          identifier: [
            { system: 'https://github.com/synthetichealth/synthea', value: 'e1f3' },
            { type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] }, system: 'https://plan.example', value: 'MBR-1002' },
          ],
        },
        request: { method: 'POST', url: 'Patient' },
      },
      {
        fullUrl: 'https://ehr.example/fhir/Practitioner/77',
        resource: { resourceType: 'Practitioner', id: '77', identifier: [{ system: NPI, value: '1196382455' }] },
      },
      { resource: { resourceType: 'Organization', id: 'org-9', name: 'Riverside', identifier: [{ system: NPI, value: '1234567893' }] } },
      ...extra,
      { fullUrl: 'https://ehr.example/fhir/Claim/c1', resource: c, request: { method: 'POST', url: 'Claim' } },
    ],
  });

  it('urn:uuid, relative and type/id references become contained copies pointed at as #id', () => {
    const c = claim();
    c.patient = { reference: 'urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001', display: 'Jane' };
    c.provider = { reference: 'Organization/org-9' };
    c.careTeam[0].provider = { reference: 'Practitioner/77' };
    const b = bundle(c);
    const out = selfContainedClaim(b, b.entry.length - 1) as Json;
    expect(out.patient).toEqual({ reference: '#0b7c3e5e-6d1a-4c8e-9f3e-000000000001', display: 'Jane' });
    expect(out.provider).toEqual({ reference: '#org-9' });
    expect(out.careTeam[0].provider).toEqual({ reference: '#77' });
    expect(out.contained.map((r: Json) => [r.resourceType, r.id])).toEqual([
      ['Patient', '0b7c3e5e-6d1a-4c8e-9f3e-000000000001'],
      ['Organization', 'org-9'],
      ['Practitioner', '77'],
    ]);
    // The narrative is not copied; the Bundle itself is not changed.
    expect(out.contained[0].text).toBeUndefined();
    expect(b.entry.at(-1).resource.patient.reference).toBe('urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001');
    const parsed = parseClaim(out);
    expect([parsed.memberId, parsed.providerNpi, parsed.careTeam[0]!.npi]).toEqual(['MBR-1002', '1234567893', '1196382455']);
  });

  it('a conditional reference resolves to the entry holding the identifier; one to nothing is left for the parser', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=https://plan.example|MBR-1002' };
    c.careTeam[0].provider = { reference: `Practitioner?identifier=${NPI}|1045782368` };
    const b = bundle(c);
    const out = selfContainedClaim(b, b.entry.length - 1) as Json;
    expect(out.patient.reference).toBe('#0b7c3e5e-6d1a-4c8e-9f3e-000000000001');
    expect(out.careTeam[0].provider.reference).toBe(`Practitioner?identifier=${NPI}|1045782368`);
    const parsed = parseClaim(out);
    expect([parsed.memberId, parsed.careTeam[0]!.npi]).toEqual(['MBR-1002', '1045782368']);
    // By another of the Patient's identifiers (Synthea's id): the reference names member "e1f3", as
    // it does in a lone Claim, and the entry it finds member MBR-1002; neither is chosen.
    c.patient = { reference: 'Patient?identifier=https://github.com/synthetichealth/synthea|e1f3' };
    const b2 = bundle(c);
    expect(() => parseClaim(selfContainedClaim(b2, b2.entry.length - 1))).toThrow(/patient\.reference: .*naming member "e1f3".*is member "MBR-1002"/);
  });

  it('Patient/<id> naming a Patient entry is that entry: its identifier is the member id, its id when it has none', () => {
    const c = claim();
    c.patient = { reference: 'Patient/PatientEx1' };
    const b = bundle(c, [{ resource: { resourceType: 'Patient', id: 'PatientEx1', identifier: [{ system: 'https://plan.example', value: 'MBR-1003' }] } }]);
    expect(parseClaim(selfContainedClaim(b, b.entry.length - 1)).memberId).toBe('MBR-1003');
    const bare = claim();
    bare.patient = { reference: 'Patient/MBR-1001' };
    const b2 = bundle(bare, [{ resource: { resourceType: 'Patient', id: 'MBR-1001', name: [{ family: 'Doe' }] } }]);
    expect(selfContainedClaim(b2, b2.entry.length - 1)).toEqual(bare);
    expect(parseClaim(bare).memberId).toBe('MBR-1001');
  });

  it('the shapes read before stay as they were: Patient/<member id> with no entry, #id, an identifier, Organization/<NPI>', () => {
    const c = claim();
    c.patient = { reference: 'Patient/MBR-1001' };
    c.provider = { reference: 'Organization/1234567893' };
    c.careTeam[0].provider = { identifier: { system: NPI, value: '1045782368' } };
    c.contained = [{ resourceType: 'Organization', id: 'o', identifier: [{ system: NPI, value: '1234567893' }] }];
    const b = bundle(c);
    const out = selfContainedClaim(b, b.entry.length - 1) as Json;
    expect(out).toEqual(c);
    expect(parseClaim(out).memberId).toBe('MBR-1001');
  });

  it('a contained id already taken is not reused: the copy gets one of its own', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Organization', id: 'org-9', identifier: [{ system: NPI, value: '1234567893' }] }];
    c.careTeam[0].provider = { reference: 'urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001' };
    c.patient = { reference: 'urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001' };
    const b = bundle(c);
    b.entry[0].resource.id = 'org-9';
    const out = selfContainedClaim(b, b.entry.length - 1) as Json;
    expect(out.contained.map((r: Json) => r.id)).toEqual(['org-9', 'ref1']);
    expect([out.patient.reference, out.careTeam[0].provider.reference]).toEqual(['#ref1', '#ref1']);
  });

  it('where each contained copy came from is the index’s, not a walk of the entries for each copy (a Bundle of many Claims)', () => {
    const c = claim();
    c.patient = { reference: 'urn:uuid:0b7c3e5e-6d1a-4c8e-9f3e-000000000001' };
    c.provider = { reference: 'Organization/org-9' };
    c.careTeam[0].provider = { reference: 'Practitioner/77' };
    const b = bundle(c);
    const index = new BundleIndex(b);
    // The entries, watched: a search of them for each copy made is quadratic in a Bundle of many Claims.
    let searches = 0;
    b.entry = new Proxy(b.entry, {
      get(target, key, receiver) {
        if (key === 'findIndex' || key === 'indexOf' || key === 'find') searches++;
        return Reflect.get(target, key, receiver);
      },
    });
    const origins = new Map<number, number>();
    selfContainedClaim(b, b.entry.length - 1, index, origins);
    expect([...origins]).toEqual([
      [0, 0],
      [1, 2],
      [2, 1],
    ]);
    expect(searches).toBe(0);
  });
});

describe('references that disagree are refused, never one of them chosen', () => {
  const MB = (value: string) => ({ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] }, value });

  it('a reference to a Patient whose member id is not the reference’s own identifier: both named', () => {
    const c = claim();
    c.contained = [{ resourceType: 'Patient', id: 'p1', identifier: [{ system: 'urn:x', value: 'MBR-1003' }] }];
    c.patient = { reference: '#p1', identifier: { value: 'MBR-1001' } };
    expect(errors(c)).toEqual([{ field: 'patient.identifier.value', message: expect.stringMatching(/"MBR-1001".*"MBR-1003"/) }]);
    // Made self-contained from a Bundle (urn:uuid), the same.
    const b = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { fullUrl: 'urn:uuid:p1', resource: c.contained[0] },
        { resource: { ...c, contained: undefined, patient: { reference: 'urn:uuid:p1', identifier: { value: 'MBR-1001' } } } },
      ],
    };
    expect(errors(selfContainedClaim(b, 1))).toEqual([{ field: 'patient.identifier.value', message: expect.stringMatching(/"MBR-1001".*"MBR-1003"/) }]);
    // Agreeing, it is read.
    c.patient.identifier.value = 'MBR-1003';
    expect(parseClaim(c).memberId).toBe('MBR-1003');
  });

  it('a Patient with two different member ids (MB), or several untyped identifiers and none typed, is refused as ambiguous', () => {
    const c = claim();
    c.patient = { reference: '#p1' };
    c.contained = [{ resourceType: 'Patient', id: 'p1', identifier: [MB('MBR-1003'), MB('MBR-1001')] }];
    expect(errors(c)).toEqual([{ field: 'contained[0].identifier', message: expect.stringMatching(/several member ids.*"MBR-1003".*"MBR-1001"/) }]);
    c.contained[0].identifier = [
      { system: 'urn:x', value: 'MBR-1003' },
      { system: 'urn:y', value: 'MBR-1001' },
    ];
    expect(errors(c)).toEqual([{ field: 'contained[0].identifier', message: expect.stringMatching(/"MBR-1003".*"MBR-1001"/) }]);
    // One MB beside other identifiers (Synthea's, an MR): the MB, as before; the same MB twice is one.
    c.contained[0].identifier = [{ system: 'urn:synthea', value: 'e1f3' }, MB('MBR-1002'), MB('MBR-1002')];
    expect(parseClaim(c).memberId).toBe('MBR-1002');
  });

  it('a conditional reference by one NPI with an identifier naming another NPI is refused, naming both', () => {
    const c = claim();
    c.provider = { reference: `Practitioner?identifier=${NPI}|1234567893`, identifier: { system: NPI, value: '1045782368' } };
    expect(errors(c)).toEqual([{ field: 'provider.identifier.value', message: expect.stringMatching(/1045782368.*1234567893/) }]);
    c.provider.identifier.value = '1234567893';
    expect(parseClaim(c).providerNpi).toBe('1234567893');
  });

  it('a conditional reference with several identifiers (a comma: "or" in FHIR search) is refused as ambiguous', () => {
    const c = claim();
    c.patient = { reference: 'Patient?identifier=a|MBR-1002,b|MBR-1001' };
    expect(errors(c)).toEqual([{ field: 'patient.reference', message: expect.stringMatching(/several identifiers.*or/) }]);
    c.patient = { reference: 'Patient?identifier=a|MBR\\,1002' };
    expect(errors(c).map((e) => e.field)).not.toContain('patient.reference');
  });
});

describe('contained resources', () => {
  it('two contained resources of one id are refused: a reference to it would be either member', () => {
    const c = claim();
    const patient = (member: string) => ({ resourceType: 'Patient', id: 'p', identifier: [{ value: member }] });
    const value = { ...c, patient: { reference: '#p' }, contained: [...((c.contained as Json[] | undefined) ?? []), patient('MBR-1001'), patient('MBR-1003')] };
    expect(errors(value)).toEqual(
      expect.arrayContaining([
        { field: expect.stringMatching(/^contained\[\d+\]\.id$/), message: expect.stringContaining('"p" is the id of an earlier contained resource too') },
      ]),
    );
  });
});
