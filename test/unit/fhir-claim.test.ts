// FHIR R4 Claim parsing (docs/api-routes.md "POST /v1/claims/submit/"): what other systems send that must be
// accepted, what must be rejected with the exact path of the problem, and money as exact cents.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { type FieldError, ValidationError } from '../../src/domain/errors.js';
import { MAX_CLAIM_BYTES, NPI_SYSTEM, parseClaim, parseClaimText } from '../../src/domain/fhir-claim.js';

/** A claim as loaded from a fixture; tests change it freely. */
type Claim = Record<string, any>;

const fixtureText = (name: string): string => readFileSync(new URL(`../fixtures/claims/${name}.json`, import.meta.url), 'utf8');
/** A fresh copy of a fixture for each call, so tests can change it. */
const fixture = (name: 'professional' | 'institutional' | 'other-system'): Claim => JSON.parse(fixtureText(name)) as Claim;

/** The errors of the ValidationError that `run` throws; fails the test if it throws nothing else. */
function errorsOf(run: () => unknown): FieldError[] {
  let thrown: unknown;
  try {
    run();
  } catch (err) {
    thrown = err;
  }
  if (thrown === undefined) throw new Error('expected a ValidationError, but the claim was accepted');
  expect(thrown).toBeInstanceOf(ValidationError);
  return (thrown as ValidationError).errors;
}
const fieldsOf = (run: () => unknown): string[] => errorsOf(run).map((e) => e.field);
const rejectFields = (claim: unknown): string[] => fieldsOf(() => parseClaim(claim));

describe('professional claims', () => {
  it('a professional claim is read with its care team, lines, diagnoses and total in cents', () => {
    const parsed = parseClaim(fixture('professional'));
    expect(parsed).toEqual({
      type: 'professional',
      providerNpi: '1045782368',
      providerName: 'Lakeside Surgical Group',
      memberId: 'MBR-1003',
      created: '2024-03-06',
      billablePeriod: { start: '2024-03-05', end: '2024-03-05' },
      insurerReference: 'Organization/PAYER-ACME',
      lines: [
        { sequence: 1, cptCode: '45378', revenueCode: null, serviceDate: '2024-03-05', quantity: 1, chargeCents: 180000, careTeamSequences: [1] },
        { sequence: 2, cptCode: '00811', revenueCode: null, serviceDate: '2024-03-05', quantity: 1, chargeCents: 123456, careTeamSequences: [2] },
      ],
      careTeam: [
        { sequence: 1, npi: '1045782368', name: null, role: 'SURGEON' },
        { sequence: 2, npi: '1196382455', name: null, role: 'ANESTHESIA' },
      ],
      diagnosisCodes: ['Z12.11'],
      preauthorizations: [],
      totalChargeCents: 303456,
    });
  });

  it('the claim file text parses to the same result as the JSON object', () => {
    expect(parseClaimText(fixtureText('professional'))).toEqual(parseClaim(fixture('professional')));
  });

  it('the claims that `tpa claim template` builds are accepted as they are', () => {
    const professional = parseClaim(claimTemplate({ type: 'professional', serviceDate: '2024-06-01' }));
    expect(professional.type).toBe('professional');
    expect(professional.providerNpi).toBe('1045782368');
    expect(professional.lines.map((l) => l.cptCode)).toEqual(['45378']);
    const institutional = parseClaim(claimTemplate({ type: 'institutional', serviceDate: '2024-06-01' }));
    expect(institutional.type).toBe('institutional');
    expect(institutional.lines.map((l) => [l.cptCode, l.revenueCode])).toEqual([
      ['45380', '0750'],
      ['45380', '0960'],
      ['00811', '0370'],
      ['88305', '0310'],
    ]);
    // claimcareteamrole codes name none of the roles paid: each provider is paid in its contracted role (the registry's).
    expect(institutional.careTeam.map((m) => [m.npi, m.role])).toEqual([
      ['1045782368', null],
      ['1196382455', null],
      ['1329475804', null],
    ]);
  });

  it('a careTeamSequence referring to a missing careTeam entry is rejected at its index', () => {
    const claim = fixture('professional');
    claim.item[1].careTeamSequence = [2, 7];
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['item[1].careTeamSequence[1]']);
    expect(errors[0]!.message).toContain('7');
  });

  it('a careTeamSequence on a claim without any careTeam is rejected', () => {
    const claim = fixture('professional');
    delete claim.careTeam;
    expect(rejectFields(claim)).toEqual(['item[0].careTeamSequence[0]', 'item[1].careTeamSequence[0]']);
  });

  it('a care team entry with a bad NPI is reported once, at its own path, not again on the lines that use it', () => {
    const claim = fixture('professional');
    claim.careTeam[1].provider.identifier.value = '1234567890';
    expect(rejectFields(claim)).toEqual(['careTeam[1].provider.identifier.value']);
  });

  it('a claim without careTeam or careTeamSequence is read with an empty care team', () => {
    const claim = fixture('professional');
    delete claim.careTeam;
    for (const item of claim.item) delete item.careTeamSequence;
    const parsed = parseClaim(claim);
    expect(parsed.careTeam).toEqual([]);
    expect(parsed.lines.map((l) => l.careTeamSequences)).toEqual([[], []]);
  });
});

describe('institutional claims', () => {
  it('an institutional claim is read with a revenue code on every line', () => {
    const parsed = parseClaim(fixture('institutional'));
    expect(parsed.type).toBe('institutional');
    expect(parsed.providerNpi).toBe('1234567893');
    expect(parsed.created).toBe('2024-04-11');
    expect(parsed.lines).toEqual([
      { sequence: 1, cptCode: '45380', revenueCode: '0750', serviceDate: '2024-04-10', quantity: 1, chargeCents: 240000, careTeamSequences: [1] },
      { sequence: 2, cptCode: '00811', revenueCode: '0370', serviceDate: '2024-04-10', quantity: 1, chargeCents: 90000, careTeamSequences: [2] },
      { sequence: 3, cptCode: '88305', revenueCode: '0310', serviceDate: '2024-04-10', quantity: 1, chargeCents: 25050, careTeamSequences: [3] },
    ]);
    expect(parsed.careTeam.map((m) => [m.npi, m.role])).toEqual([
      ['1045782368', 'SURGEON'],
      ['1196382455', 'ANESTHESIA'],
      ['1329475804', 'PATHOLOGY'],
    ]);
    expect(parsed.diagnosisCodes).toEqual(['K63.5']);
    expect(parsed.totalChargeCents).toBe(240000 + 90000 + 25050);
  });

  it('an institutional line without a revenue code is rejected at item[i].revenue.coding', () => {
    const claim = fixture('institutional');
    delete claim.item[1].revenue;
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['item[1].revenue.coding']);
    expect(errors[0]!.message).toMatch(/institutional/);
  });

  it('an institutional line with an empty revenue coding list is rejected at item[i].revenue.coding', () => {
    const claim = fixture('institutional');
    claim.item[2].revenue = { coding: [] };
    expect(rejectFields(claim)).toEqual(['item[2].revenue.coding']);
  });

  it('a revenue code that is not 4 digits is rejected at its coding', () => {
    const claim = fixture('institutional');
    claim.item[0].revenue.coding[0].code = '750';
    expect(rejectFields(claim)).toEqual(['item[0].revenue.coding[0].code']);
  });

  it('the same lines without revenue codes are accepted on a professional claim', () => {
    const claim = fixture('institutional');
    claim.type.coding[0].code = 'professional';
    for (const item of claim.item) delete item.revenue;
    expect(parseClaim(claim).lines.map((l) => l.revenueCode)).toEqual([null, null, null]);
  });

  it('a claim type that is neither professional nor institutional is rejected at type.coding[0].code', () => {
    const claim = fixture('institutional');
    claim.type.coding = [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'pharmacy' }];
    expect(rejectFields(claim)).toEqual(['type.coding[0].code']);
  });
});

describe('shapes other systems send are accepted', () => {
  it('a provider given as a reference to a contained Organization takes its NPI and name from there', () => {
    const parsed = parseClaim(fixture('other-system'));
    expect(parsed.providerNpi).toBe('1234567893');
    expect(parsed.providerName).toBe('Riverside Ambulatory Surgery Center');
  });

  it('a provider given as a reference to a contained Practitioner is accepted', () => {
    const claim = fixture('other-system');
    claim.provider = { reference: '#pr1' };
    const parsed = parseClaim(claim);
    expect(parsed.providerNpi).toBe('1045782368');
    expect(parsed.providerName).toBe('Ana Okafor');
  });

  it('a care team member given as a reference to a contained Practitioner is read with NPI and name; role primary names none of the roles paid', () => {
    expect(parseClaim(fixture('other-system')).careTeam).toEqual([{ sequence: 1, npi: '1045782368', name: 'Ana Okafor', role: null }]);
  });

  it('a patient given as a contained Patient takes the member id from its identifier', () => {
    expect(parseClaim(fixture('other-system')).memberId).toBe('MBR-2040');
  });

  it('a patient given by identifier without a reference is accepted', () => {
    const claim = fixture('professional');
    claim.patient = { identifier: { system: 'https://acme-health.example/member-id', value: 'MBR-3300' } };
    expect(parseClaim(claim).memberId).toBe('MBR-3300');
  });

  it('a patient given as an absolute URL reference is accepted', () => {
    const claim = fixture('professional');
    claim.patient = { reference: 'https://ehr.example.org/fhir/Patient/MBR-1003' };
    expect(parseClaim(claim).memberId).toBe('MBR-1003');
  });

  it('a provider with an NPI identifier but no reference is accepted', () => {
    const claim = fixture('professional');
    claim.provider = { identifier: { system: NPI_SYSTEM, value: '1329475804' } };
    const parsed = parseClaim(claim);
    expect(parsed.providerNpi).toBe('1329475804');
    expect(parsed.providerName).toBeNull();
  });

  it.each(['Organization', 'Practitioner', 'PractitionerRole'])('a provider given only as the literal reference %s/<valid NPI> is accepted', (kind) => {
    const claim = fixture('professional');
    claim.provider = { reference: `${kind}/1234567893` };
    expect(parseClaim(claim).providerNpi).toBe('1234567893');
  });

  it('a provider with a non-NPI identifier and a literal NPI reference takes the NPI from the reference', () => {
    const claim = fixture('professional');
    claim.provider = { reference: 'Organization/1196382455', identifier: { system: 'urn:oid:2.16.840.1.113883.4.4', value: '12-3456789' } };
    expect(parseClaim(claim).providerNpi).toBe('1196382455');
  });

  it('CPT codings without a system are accepted', () => {
    const claim = fixture('professional');
    for (const item of claim.item) delete item.productOrService.coding[0].system;
    expect(parseClaim(claim).lines.map((l) => l.cptCode)).toEqual(['45378', '00811']);
  });

  it('an HCPCS coding first and the CPT coding second yields the CPT code', () => {
    expect(parseClaim(fixture('other-system')).lines[0]!.cptCode).toBe('45378');
  });

  it('a local chargemaster coding first and a system-less CPT coding second yields the CPT code', () => {
    expect(parseClaim(fixture('other-system')).lines[1]!.cptCode).toBe('88305');
  });

  it('the claim type is found in a later type coding', () => {
    expect(parseClaim(fixture('other-system')).type).toBe('professional');
  });

  it('extra unknown elements (meta, text, extension, vendor fields) are ignored', () => {
    const claim = fixture('professional');
    claim.x_vendorTrackingNumber = 'TRK-1';
    claim.extension = [{ url: 'https://ehr.example.org/ext', valueBoolean: true }];
    claim._created = { extension: [{ url: 'https://ehr.example.org/tz', valueString: 'America/Chicago' }] };
    claim.item[0].extension = [{ url: 'https://ehr.example.org/line', valueString: 'x' }];
    claim.item[0].productOrService.coding[0].display = 'Colonoscopy';
    claim.item[0].somethingNew = { nested: [1, 2, 3] };
    expect(parseClaim(claim)).toEqual(parseClaim(fixture('professional')));
  });

  it("a line's modifiers are kept, upper case and in order, and its sender's line control number with them", () => {
    const claim = fixture('professional');
    claim.item[0].modifier = [
      {
        coding: [
          { system: 'urn:other', code: 'ZZZ' },
          { system: 'http://www.ama-assn.org/go/cpt', code: '59' },
        ],
      },
      { coding: [{ code: 'xs' }] },
    ];
    claim.item[0].extension = [{ url: 'urn:tpa:x12:ref6r', valueString: ' LINE-0001 ' }];
    const line = parseClaim(claim).lines[0]!;
    expect(line.modifiers).toEqual(['59', 'XS']);
    expect(line.lineControlNumber).toBe('LINE-0001');
    expect(parseClaim(fixture('professional')).lines[0]).not.toHaveProperty('modifiers');
  });

  it('a modifier that is not two letters or digits, or a fifth modifier, is refused naming it', () => {
    const bad = fixture('professional');
    bad.item[0].modifier = [{ coding: [{ code: '591' }] }];
    expect(fieldsOf(() => parseClaim(bad))).toEqual(['item[0].modifier[0].coding[0].code']);
    const many = fixture('professional');
    many.item[0].modifier = ['59', '76', '26', 'TC', 'LT'].map((code) => ({ coding: [{ code }] }));
    expect(fieldsOf(() => parseClaim(many))).toEqual(['item[0].modifier']);
    const long = fixture('professional');
    long.item[0].extension = [{ url: 'urn:tpa:x12:ref6r', valueString: 'x'.repeat(51) }];
    expect(fieldsOf(() => parseClaim(long))).toEqual(['item[0].extension[0].valueString']);
    // The 835's delimiters would change the number written back (REF*6R): refused, never rewritten.
    const delimited = fixture('professional');
    delimited.item[0].extension = [{ url: 'urn:tpa:x12:ref6r', valueString: 'A*B:1' }];
    expect(errorsOf(() => parseClaim(delimited))).toEqual([{ field: 'item[0].extension[0].valueString', message: expect.stringContaining('"*", ":"') }]);
  });

  it('a decimal quantity (at most 3 decimals) is kept as sent, and net = quantity × unitPrice is checked on it to the cent', () => {
    const claim = fixture('professional');
    claim.item = [{ ...claim.item[0], quantity: { value: 1.5 }, unitPrice: { value: 100.01, currency: 'USD' } }];
    delete claim.item[0].net;
    delete claim.total;
    // 1.5 × 100.01 = 150.015: rounded half away from zero to 150.02.
    expect(parseClaim(claim).lines[0]).toMatchObject({ quantity: 1.5, chargeCents: 15002 });
    expect(parseClaim(claim).lines[0]!.unitOfMeasure).toBeUndefined();
    claim.item[0].quantity = { value: 0.125 };
    expect(parseClaim(claim).lines[0]).toMatchObject({ quantity: 0.125, chargeCents: 1250 });
  });

  it('a quantity in minutes is kept as sent, unit MJ (net checked on the minutes sent); another UCUM unit that is not a count is refused', () => {
    const minutes = (quantity: Record<string, unknown>) => {
      const claim = fixture('professional');
      claim.item = [
        { ...claim.item[0], quantity: { value: 60, ...quantity }, unitPrice: { value: 30, currency: 'USD' }, net: { value: 1800, currency: 'USD' } },
      ];
      delete claim.total;
      return claim;
    };
    for (const q of [{ system: 'http://unitsofmeasure.org', code: 'min', unit: 'min' }, { code: 'min' }, { unit: 'minutes' }, { unit: 'Min' }]) {
      expect(parseClaim(minutes(q)).lines[0]).toMatchObject({ quantity: 60, unitOfMeasure: 'MJ', chargeCents: 180000 });
    }
    for (const q of [{ system: 'http://unitsofmeasure.org', code: '1' }, { code: '{visit}' }, { unit: 'each' }, { system: 'urn:other', code: 'h' }]) {
      const line = parseClaim(minutes(q)).lines[0]!;
      expect(line).toMatchObject({ quantity: 60, chargeCents: 180000 });
      expect(line.unitOfMeasure).toBeUndefined();
    }
    expect(errorsOf(() => parseClaim(minutes({ system: 'http://unitsofmeasure.org', code: 'h' })))).toEqual([
      { field: 'item[0].quantity.code', message: expect.stringContaining('is UCUM "h"') },
    ]);
    expect(fieldsOf(() => parseClaim(minutes({ code: 'd' })))).toEqual(['item[0].quantity.code']);
    // A unit in minutes whose code says a count (or another system's code) is refused, never priced as 60 services.
    for (const q of [
      { system: 'http://unitsofmeasure.org', code: '1', unit: 'min' },
      { code: '{minutes}', unit: 'minutes' },
      { system: 'urn:other', code: 'MJ', unit: 'min' },
    ]) {
      expect(errorsOf(() => parseClaim(minutes(q)))).toEqual([
        { field: 'item[0].quantity.unit', message: expect.stringContaining('minutes of anesthesia are code min') },
      ]);
    }
    // The net = quantity × unitPrice check reads the minutes sent.
    const wrong = minutes({ code: 'min' });
    wrong.item[0].net.value = 30;
    expect(fieldsOf(() => parseClaim(wrong))).toEqual(['item[0].net.value']);
  });

  it('a second line control number on one item is refused naming it, never one of the two kept', () => {
    const twice = fixture('professional');
    twice.item[0].extension = [
      { url: 'urn:tpa:x12:ref6r', valueString: 'AAA' },
      { url: 'urn:tpa:x12:ref6r', valueString: 'BBB' },
    ];
    expect(errorsOf(() => parseClaim(twice))).toEqual([{ field: 'item[0].extension[1]', message: expect.stringContaining('one line control number') }]);
    // Another extension beside one line control number is not a second one.
    const other = fixture('professional');
    other.item[0].extension = [
      { url: 'urn:example:other', valueString: 'x' },
      { url: 'urn:tpa:x12:ref6r', valueString: 'AAA' },
    ];
    expect(parseClaim(other).lines[0]!.lineControlNumber).toBe('AAA');
  });

  it('a claim whose status is not active is refused naming status; an absent status is read as active', () => {
    for (const status of ['cancelled', 'entered-in-error', 'draft', 'unknown', 5]) {
      const claim = { ...fixture('professional'), status };
      const err = (() => {
        try {
          parseClaim(claim);
        } catch (e) {
          return e as ValidationError;
        }
        throw new Error(`status ${String(status)} was accepted`);
      })();
      expect(err.errors).toEqual([{ field: 'status', message: expect.stringContaining('only active claims are adjudicated') }]);
    }
    const absent = fixture('professional');
    delete absent.status;
    expect(parseClaim(absent)).toEqual(parseClaim(fixture('professional')));
  });

  it('a care team with two entries of one sequence is refused at the second', () => {
    const claim = fixture('professional');
    claim.careTeam = [
      { sequence: 1, provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' } } },
      { sequence: 1, provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1245319599' } } },
    ];
    for (const item of claim.item) item.careTeamSequence = [1];
    expect(fieldsOf(() => parseClaim(claim))).toEqual(['careTeam[1].sequence']);
  });

  it('a line with unitPrice and quantity but no net is charged unitPrice × quantity', () => {
    const line = parseClaim(fixture('other-system')).lines[1]!;
    expect(line.quantity).toBe(2);
    expect(line.chargeCents).toBe(25100);
  });

  it('a line without quantity counts as one unit', () => {
    const claim = fixture('professional');
    delete claim.item[0].quantity;
    delete claim.item[0].net;
    expect(parseClaim(claim).lines[0]).toMatchObject({ quantity: 1, chargeCents: 180000 });
  });

  it('a line without servicedDate takes billablePeriod.start', () => {
    const claim = fixture('professional');
    delete claim.item[0].servicedDate;
    claim.billablePeriod = { start: '2024-03-04', end: '2024-03-05' };
    expect(parseClaim(claim).lines[0]!.serviceDate).toBe('2024-03-04');
  });

  it('a line with servicedPeriod instead of servicedDate takes its date from the period', () => {
    const claim = fixture('professional');
    delete claim.billablePeriod;
    delete claim.item[0].servicedDate;
    claim.item[0].servicedPeriod = { start: '2024-03-02', end: '2024-03-02' };
    expect(parseClaim(claim).lines[0]!.serviceDate).toBe('2024-03-02');
    claim.item[0].servicedPeriod = { start: '2024-03-02' };
    expect(parseClaim(claim).lines[0]!.serviceDate).toBe('2024-03-02');
  });

  it('a line period of several days, or one ending before it starts, is refused: its later days would be checked against nothing', () => {
    // Coverage, the contract's and the rate's dates and duplicates are all checked on the line's one
    // date: a period reaching past the coverage's end, or re-billing a day already paid, was paid.
    const claim = fixture('professional');
    delete claim.item[0].servicedDate;
    claim.item[0].servicedPeriod = { start: '2024-03-02', end: '2024-03-03' };
    expect(fieldsOf(() => parseClaim(claim))).toEqual(['item[0].servicedPeriod.end']);
    claim.item[0].servicedPeriod = { start: '2024-03-02', end: '2024-02-20' };
    expect(fieldsOf(() => parseClaim(claim))).toEqual(['item[0].servicedPeriod.end']);
  });

  it('a blank preauthorization reference is no preauthorization', () => {
    const claim = fixture('professional');
    claim.insurance = [{ sequence: 1, focal: true, preAuthRef: [' ', '\t', 'PA-1'] }];
    claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'prior-auth' }] }, valueString: '  ' }];
    expect(parseClaim(claim).preauthorizations).toEqual(['PA-1']);
  });

  it('a servicedDate given as a dateTime is read as its date', () => {
    const claim = fixture('professional');
    claim.item[0].servicedDate = '2024-03-05T14:20:00-05:00';
    expect(parseClaim(claim).lines[0]!.serviceDate).toBe('2024-03-05');
  });

  it('preauthorizations are read from supportingInfo (valueString, valueReference) and insurance[].preAuthRef, other categories ignored', () => {
    expect(parseClaim(fixture('other-system')).preauthorizations).toEqual(['PA-2024-0001', 'ClaimResponse/PA-77', 'AUTH-9001']);
  });

  it('a preauthorization in supportingInfo given as valueReference.identifier or valueIdentifier is read', () => {
    const claim = fixture('professional');
    claim.supportingInfo = [
      { sequence: 1, category: { coding: [{ code: 'prior-auth' }] }, valueReference: { identifier: { value: 'PA-11' } } },
      { sequence: 2, category: { coding: [{ code: 'preauthorization' }] }, valueIdentifier: { value: 'PA-12' } },
    ];
    expect(parseClaim(claim).preauthorizations).toEqual(['PA-11', 'PA-12']);
  });

  it('a diagnosis given by reference instead of a code is accepted', () => {
    const claim = fixture('professional');
    claim.diagnosis.push({ sequence: 2, diagnosisReference: { reference: 'Condition/c1' } });
    expect(parseClaim(claim).diagnosisCodes).toEqual(['Z12.11']);
  });
});

describe('what is rejected, with the field named', () => {
  it('a provider without an NPI identifier is rejected at provider.identifier', () => {
    const claim = fixture('professional');
    claim.provider = { identifier: { system: 'urn:oid:2.16.840.1.113883.4.4', value: '12-3456789' } };
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['provider.identifier']);
    expect(errors[0]!.message).toContain(NPI_SYSTEM);
  });

  it('a provider referring to a contained Organization without an NPI is rejected at provider.identifier', () => {
    const claim = fixture('other-system');
    claim.contained[0].identifier = [{ system: 'urn:oid:2.16.840.1.113883.4.4', value: '12-3456789' }];
    expect(rejectFields(claim)).toEqual(['provider.identifier']);
  });

  it('a provider referring to a contained resource the claim does not hold is rejected at provider.reference', () => {
    const claim = fixture('other-system');
    claim.provider = { reference: '#org9' };
    expect(rejectFields(claim)).toEqual(['provider.reference']);
  });

  it('a missing provider is rejected at provider', () => {
    const claim = fixture('professional');
    delete claim.provider;
    expect(rejectFields(claim)).toEqual(['provider']);
  });

  it('a provider NPI that fails the check digit is rejected at provider.identifier.value', () => {
    const claim = fixture('professional');
    claim.provider.identifier.value = '1234567890';
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['provider.identifier.value']);
    expect(errors[0]!.message).toMatch(/check digit/);
  });

  it.each(['123456789', '12345678931', '12345678a3', ''])('a provider NPI "%s" that is not 10 digits is rejected at provider.identifier.value', (npi) => {
    const claim = fixture('professional');
    claim.provider.identifier.value = npi;
    expect(rejectFields(claim)).toEqual(['provider.identifier.value']);
  });

  it('an NPI failing the check digit inside a contained Organization is rejected at its contained path', () => {
    const claim = fixture('other-system');
    claim.contained[0].identifier[1].value = '1234567890';
    expect(rejectFields(claim)).toEqual(['contained[0].identifier[1].value']);
  });

  it('a literal Organization/<NPI> reference whose NPI fails the check digit is not taken as an NPI', () => {
    const claim = fixture('professional');
    claim.provider = { reference: 'Organization/1234567890' };
    expect(rejectFields(claim)).toEqual(['provider.identifier']);
  });

  it('a CPT code of four digits is rejected at its path', () => {
    const claim = fixture('professional');
    claim.item[1].productOrService.coding[0].code = '4537';
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['item[1].productOrService.coding[0].code']);
    expect(errors[0]!.message).toContain('4537');
  });

  it.each(['453781', '4537A', ' 45378', 45378])('a CPT code %j that is not a 5-digit string is rejected at the CPT coding index', (code) => {
    const claim = fixture('other-system');
    claim.item[0].productOrService.coding[1].code = code;
    expect(rejectFields(claim)).toEqual(['item[0].productOrService.coding[1].code']);
  });

  it('a line with only an HCPCS Level II coding is read, unpriced (the engine denies it); a HCPCS coding that is no code is rejected', () => {
    const claim = fixture('other-system');
    claim.item[0].productOrService.coding = [{ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: 'G0121' }];
    expect(parseClaim(claim).lines[0]).toMatchObject({ cptCode: 'G0121', unpriced: 'HCPCS_LEVEL_II' });
    // HCPCS Level I is CPT: priced as CPT.
    claim.item[0].productOrService.coding = [{ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: '45378' }];
    expect(parseClaim(claim).lines[0]!.unpriced).toBeUndefined();
    for (const code of ['W1234', 'J349', 'j3490', 'J34900', '']) {
      claim.item[0].productOrService.coding = [{ system: 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code }];
      expect(rejectFields(claim)).toEqual(['item[0].productOrService.coding[0].code']);
    }
  });

  it('a HCPCS Level II code under the CPT system, or with no system, is read unpriced; other non-CPT codes stay refused', () => {
    const claim = fixture('professional');
    claim.item[0].productOrService.coding = [{ system: 'http://www.ama-assn.org/go/cpt', code: 'J3490' }];
    expect(parseClaim(claim).lines[0]).toMatchObject({ cptCode: 'J3490', unpriced: 'HCPCS_LEVEL_II' });
    claim.item[0].productOrService.coding = [{ code: 'A4550' }];
    expect(parseClaim(claim).lines[0]).toMatchObject({ cptCode: 'A4550', unpriced: 'HCPCS_LEVEL_II' });
    claim.item[0].productOrService.coding = [{ system: 'http://www.ama-assn.org/go/cpt', code: '0075T' }];
    expect(rejectFields(claim)).toEqual(['item[0].productOrService.coding[0].code']);
  });

  it('an institutional item with a revenue code and no procedure code is a revenue-code-only line, unpriced', () => {
    const base = fixture('institutional');
    for (const productOrService of [
      undefined,
      { text: 'Room and board' },
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/data-absent-reason', code: 'not-applicable' }] },
    ]) {
      const claim = structuredClone(base);
      if (productOrService === undefined) delete claim.item[0].productOrService;
      else claim.item[0].productOrService = productOrService;
      claim.item[0].revenue = { coding: [{ system: 'https://www.nubc.org/CodeSystem/RevenueCodes', code: '0120' }] };
      expect(parseClaim(claim).lines[0]).toMatchObject({ cptCode: '', revenueCode: '0120', unpriced: 'REVENUE_CODE_ONLY' });
    }
    // Without a revenue code, a procedure code is required.
    const claim = structuredClone(base);
    delete claim.item[0].productOrService;
    delete claim.item[0].revenue;
    expect(rejectFields(claim)).toContain('item[0].productOrService.coding');
  });

  it.each(['2024-02-30', '03/05/2024', '2024-3-5', '2024-03-05T25:00:00Z', '2024-03-05 10:00', ''])(
    'a servicedDate "%s" is rejected at item[i].servicedDate',
    (date) => {
      const claim = fixture('professional');
      claim.item[1].servicedDate = date;
      expect(rejectFields(claim)).toEqual(['item[1].servicedDate']);
    },
  );

  it('a line with no servicedDate and no billablePeriod is rejected at item[i].servicedDate', () => {
    const claim = fixture('professional');
    delete claim.billablePeriod;
    delete claim.item[0].servicedDate;
    expect(rejectFields(claim)).toEqual(['item[0].servicedDate']);
  });

  it('a negative charge is rejected at item[i].net.value', () => {
    const claim = fixture('professional');
    claim.item[1].net.value = -10;
    expect(rejectFields(claim)).toEqual(['item[1].net.value']);
  });

  it('a charge with three decimals is rejected at item[i].net.value, not rounded', () => {
    const claim = fixture('professional');
    claim.item[0].net.value = 1800.125;
    expect(rejectFields(claim)).toEqual(['item[0].net.value']);
  });

  it.each([['"1800.00"'], ['null'], ['true']])('a charge given as %s instead of a number is rejected at item[i].net.value', (json) => {
    const claim = fixture('professional');
    claim.item[0].net.value = JSON.parse(json) as unknown;
    expect(rejectFields(claim)).toEqual(['item[0].net.value']);
  });

  it('a unitPrice with three decimals on a line without net is rejected at item[i].unitPrice.value', () => {
    const claim = fixture('professional');
    delete claim.item[0].net;
    claim.item[0].unitPrice.value = 10.005;
    expect(rejectFields(claim)).toEqual(['item[0].unitPrice.value']);
  });

  it('a charge in a currency other than USD is rejected at item[i].net.currency', () => {
    const claim = fixture('professional');
    claim.item[1].net.currency = 'EUR';
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['item[1].net.currency']);
    expect(errors[0]!.message).toContain('EUR');
  });

  it('a line with neither net nor unitPrice is rejected at item[i].net', () => {
    const claim = fixture('professional');
    delete claim.item[0].net;
    delete claim.item[0].unitPrice;
    expect(rejectFields(claim)).toEqual(['item[0].net']);
  });

  it.each([0, 1.0005, 0.0001, 9999.001, 10000, -1, '2', Number.NaN])('a quantity of %s is rejected at item[i].quantity.value', (q) => {
    const claim = fixture('professional');
    claim.item[0].quantity.value = q;
    expect(rejectFields(claim)).toEqual(['item[0].quantity.value']);
  });

  it.each([1.5, 1.005, 0.001, 9999, 2])('a quantity of %s is kept as sent (at most three decimals)', (q) => {
    const claim = fixture('professional');
    claim.item[0].quantity = { value: q };
    delete claim.item[0].unitPrice;
    expect(parseClaim(claim).lines[0]!.quantity).toBe(q);
  });

  it('net = quantity × unitPrice is checked on a decimal quantity, rounded once half up to the cent', () => {
    const claim = fixture('professional');
    delete claim.total;
    claim.item = [{ ...claim.item[0], quantity: { value: 1.005 }, unitPrice: { value: 100.01, currency: 'USD' } }];
    delete claim.item[0].net;
    // 1.005 × 100.01 = 100.51005: 100.51.
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(10051);
    claim.item[0].quantity = { value: 1.5 };
    claim.item[0].unitPrice = { value: 0.03, currency: 'USD' };
    // 1.5 × 0.03 = 0.045: half up, 0.05.
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(5);
    claim.item[0].net = { value: 0.04, currency: 'USD' };
    expect(errorsOf(() => parseClaim(claim))).toEqual([{ field: 'item[0].net.value', message: expect.stringContaining('quantity 1.5 × unitPrice') }]);
  });

  it('an empty item list is rejected at item', () => {
    const claim = fixture('professional');
    claim.item = [];
    expect(rejectFields(claim)).toEqual(['item']);
  });

  it('a claim without item is rejected at item', () => {
    const claim = fixture('professional');
    delete claim.item;
    expect(rejectFields(claim)).toEqual(['item']);
  });

  it('a duplicate item sequence is reported at the index of the repeating item, even after a rejected line', () => {
    const claim = fixture('professional');
    const third = structuredClone(claim.item[1]);
    claim.item[0].productOrService.coding[0].code = '4537';
    claim.item.push(third); // item[1] and item[2] both have sequence 2
    expect(rejectFields(claim)).toEqual(['item[0].productOrService.coding[0].code', 'item[2].sequence']);
  });

  it('a duplicate item sequence on otherwise valid lines is rejected at the second one', () => {
    const claim = fixture('professional');
    claim.item[1].sequence = 1;
    expect(rejectFields(claim)).toEqual(['item[1].sequence']);
  });

  it('a wrong resourceType is rejected at resourceType', () => {
    const claim = fixture('professional');
    claim.resourceType = 'ExplanationOfBenefit';
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors).toEqual([{ field: 'resourceType', message: 'must be "Claim" (got "ExplanationOfBenefit")' }]);
  });

  it('a missing resourceType is rejected at resourceType', () => {
    const claim = fixture('professional');
    delete claim.resourceType;
    expect(rejectFields(claim)).toEqual(['resourceType']);
  });

  it('a use other than claim is rejected at use', () => {
    const claim = fixture('professional');
    claim.use = 'predetermination';
    expect(rejectFields(claim)).toEqual(['use']);
  });

  it('a missing or malformed created date is rejected at created', () => {
    const missing = fixture('professional');
    delete missing.created;
    expect(rejectFields(missing)).toEqual(['created']);
    const bad = fixture('professional');
    bad.created = '2024-13-01';
    expect(rejectFields(bad)).toEqual(['created']);
  });

  it('a billablePeriod ending before it starts is rejected at billablePeriod.end', () => {
    const claim = fixture('professional');
    claim.billablePeriod = { start: '2024-03-05', end: '2024-03-01' };
    expect(rejectFields(claim)).toEqual(['billablePeriod.end']);
  });

  it('a patient reference that is not Patient/<member id> is rejected at patient.reference', () => {
    const claim = fixture('professional');
    claim.patient = { reference: 'Group/G1' };
    expect(rejectFields(claim)).toEqual(['patient.reference']);
  });

  it('a diagnosis code that is not ICD-10 is rejected at its coding', () => {
    const claim = fixture('professional');
    claim.diagnosis[0].diagnosisCodeableConcept.coding[0].code = '211.3';
    expect(rejectFields(claim)).toEqual(['diagnosis[0].diagnosisCodeableConcept.coding[0].code']);
  });

  it('text that is not JSON is rejected as one file-level error', () => {
    const errors = errorsOf(() => parseClaimText('{"resourceType": "Claim",'));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe('');
    expect(errors[0]!.message).toMatch(/not valid JSON/);
  });

  it.each(['', '   \n\t  '])('empty text %j is rejected as an empty claim file', (text) => {
    expect(errorsOf(() => parseClaimText(text))).toEqual([{ field: '', message: 'claim file is empty' }]);
  });

  it('text over 5 MiB is refused before parsing', () => {
    const text = ' '.repeat(MAX_CLAIM_BYTES + 1);
    const errors = errorsOf(() => parseClaimText(text));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe('');
    expect(errors[0]!.message).toMatch(/larger than 5 MiB/);
  });

  it('the 5 MiB limit counts UTF-8 bytes, not characters', () => {
    const text = 'é'.repeat(MAX_CLAIM_BYTES / 2 + 1); // fewer characters than the limit, more bytes
    expect(text.length).toBeLessThan(MAX_CLAIM_BYTES);
    expect(errorsOf(() => parseClaimText(text))[0]!.message).toMatch(/larger than 5 MiB/);
  });

  it('a valid claim of exactly 5 MiB is still accepted', () => {
    const body = fixtureText('professional');
    const text = body + ' '.repeat(MAX_CLAIM_BYTES - Buffer.byteLength(body, 'utf8'));
    expect(Buffer.byteLength(text, 'utf8')).toBe(MAX_CLAIM_BYTES);
    expect(parseClaimText(text).providerNpi).toBe('1045782368');
  });

  it('a claim file that starts with a UTF-8 byte-order mark is read', () => {
    expect(parseClaimText(`\uFEFF${fixtureText('professional')}`).providerNpi).toBe('1045782368');
  });

  it.each([
    ['a JSON array', '[{"resourceType":"Claim"}]'],
    ['JSON null', 'null'],
    ['a JSON string', '"Claim"'],
    ['a JSON number', '42'],
  ])('%s instead of an object is rejected as not a JSON object', (_label, text) => {
    expect(errorsOf(() => parseClaimText(text))).toEqual([{ field: '', message: 'a FHIR Claim must be a JSON object' }]);
  });

  it('parseClaim given a non-object is rejected the same way', () => {
    expect(fieldsOf(() => parseClaim([fixture('professional')]))).toEqual(['']);
    expect(fieldsOf(() => parseClaim(undefined))).toEqual(['']);
  });

  it('several problems are all reported together in one ValidationError', () => {
    const claim = fixture('professional');
    claim.provider.identifier.value = '1234567890';
    claim.created = 'yesterday';
    claim.item[0].productOrService.coding[0].code = '4537';
    claim.item[0].servicedDate = '2024-02-30';
    claim.item[1].net = { value: 0.1 + 0.2, currency: 'USD' };
    claim.item[1].careTeamSequence = [9];
    let thrown: unknown;
    try {
      parseClaim(claim);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    const error = thrown as ValidationError;
    expect(error.errors.map((e) => e.field)).toEqual([
      'provider.identifier.value',
      'created',
      'item[0].productOrService.coding[0].code',
      'item[0].servicedDate',
      'item[1].net.value',
      'item[1].careTeamSequence[0]',
    ]);
    for (const e of error.errors) expect(error.message).toContain(`${e.field}: ${e.message}`);
  });

  it('problems are reported on every failing line, not only the first', () => {
    const claim = fixture('institutional');
    delete claim.item[0].revenue;
    claim.item[1].net.currency = 'CAD';
    claim.item[2].productOrService.coding[0].code = '8830';
    expect(rejectFields(claim)).toEqual(['item[0].revenue.coding', 'item[1].net.currency', 'item[2].productOrService.coding[0].code']);
  });
});

describe('amounts are exact integer cents', () => {
  it.each([
    [0, 0],
    [0.1, 10],
    [0.01, 1],
    [12.3, 1230],
    [19.99, 1999],
    [1234.56, 123456],
    [1800, 180000],
    [99999.99, 9999999],
  ])('a net of %s is %s cents', (value, cents) => {
    const claim = fixture('professional');
    claim.item[0].net.value = value;
    delete claim.item[0].unitPrice;
    delete claim.total;
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(cents);
  });

  it('1234.56 from the claim file text is 123456 cents exactly', () => {
    const line = parseClaimText(fixtureText('professional')).lines[1]!;
    expect(line.chargeCents).toBe(123456);
    expect(Number.isInteger(line.chargeCents)).toBe(true);
  });

  it.each([0.1 + 0.2, 1.1 * 3, 1e-7, 1e21])('a float artefact %s is rejected at item[i].net.value, not rounded', (value) => {
    const claim = fixture('professional');
    claim.item[0].net.value = value;
    expect(rejectFields(claim)).toEqual(['item[0].net.value']);
  });

  it('unitPrice × quantity is computed in cents without float error', () => {
    const claim = fixture('professional');
    delete claim.item[0].net;
    claim.item[0].unitPrice = { value: 33.33, currency: 'USD' };
    claim.item[0].quantity = { value: 3 };
    delete claim.item[1].net;
    claim.item[1].unitPrice = { value: 0.1, currency: 'USD' };
    claim.item[1].quantity = { value: 3 };
    delete claim.total;
    const parsed = parseClaim(claim);
    expect(parsed.lines.map((l) => l.chargeCents)).toEqual([9999, 30]);
    expect(parsed.totalChargeCents).toBe(10029);
  });

  it('a net that is not quantity × unitPrice is refused at item[i].net.value, never priced on either', () => {
    const claim = fixture('professional');
    claim.item[0].quantity = { value: 3 };
    claim.item[0].unitPrice = { value: 100, currency: 'USD' };
    claim.item[0].net = { value: 1000, currency: 'USD' };
    const errors = errorsOf(() => parseClaim(claim));
    expect(errors.map((e) => e.field)).toEqual(['item[0].net.value']);
    expect(errors[0]!.message).toContain('300.00');
  });

  it('net = quantity × unitPrice × factor (FHIR R4), to the cent', () => {
    const claim = fixture('professional');
    claim.item[0].quantity = { value: 3 };
    claim.item[0].unitPrice = { value: 100, currency: 'USD' };
    claim.item[0].factor = 0.5;
    claim.item[0].net = { value: 150, currency: 'USD' };
    delete claim.total;
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(15000);
    claim.item[0].net = { value: 300, currency: 'USD' };
    expect(rejectFields(claim)).toEqual(['item[0].net.value']);
    delete claim.item[0].net;
    claim.item[0].factor = 0.333;
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(9990);
    claim.item[0].factor = 0;
    expect(rejectFields(claim)).toEqual(['item[0].factor']);
  });

  it('a claim total that is not the sum of the lines, or not in USD, is refused naming total', () => {
    const claim = fixture('professional');
    claim.item[0].net.value = 0.1;
    claim.item[0].unitPrice.value = 0.1;
    claim.item[1].net.value = 0.2;
    claim.item[1].unitPrice.value = 0.2;
    claim.total = { value: 999, currency: 'USD' };
    expect(rejectFields(claim)).toEqual(['total.value']);
    claim.total = { value: 0.3, currency: 'EUR' };
    expect(rejectFields(claim)).toEqual(['total.currency']);
    claim.total = { value: 0.3, currency: 'USD' };
    const parsed = parseClaim(claim);
    expect(parsed.totalChargeCents).toBe(30);
    expect(parsed.totalChargeCents).toBe(parsed.lines.reduce((sum, l) => sum + l.chargeCents, 0));
  });

  it('a service date after the claim was created, or after today, is refused naming the line', () => {
    const claim = fixture('professional');
    claim.created = '2026-03-01';
    claim.item[1].servicedDate = '2026-03-02';
    expect(rejectFields(claim)).toContain('item[1].servicedDate');
    claim.created = '2030-01-01';
    claim.item[1].servicedDate = '2030-01-01';
    expect(fieldsOf(() => parseClaim(claim, { today: '2026-03-02' }))).toEqual(expect.arrayContaining(['created', 'item[1].servicedDate']));
    expect(parseClaim(claim).lines[1]!.serviceDate).toBe('2030-01-01');
    claim.created = '2026-03-02';
    delete claim.item[1].servicedDate;
    claim.item[1].servicedPeriod = { start: '2026-03-01', end: '2026-03-04' };
    expect(fieldsOf(() => parseClaim(claim, { today: '2026-03-02' }))).toEqual(['item[1].servicedPeriod.end']);
  });

  it('a Money value without a currency is taken as USD', () => {
    const claim = fixture('professional');
    delete claim.item[0].net.currency;
    expect(parseClaim(claim).lines[0]!.chargeCents).toBe(180000);
  });
});
