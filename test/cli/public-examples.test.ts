// FHIR files no one here wrote (test/fixtures/public/README.md says where each is from),
// through `tpa claim validate` and, where it makes sense, `tpa claim submit` against the local
// engine. Each is accepted or refused for a reason the service's contract gives, asserted here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const dir = join(import.meta.dirname, '..', 'fixtures', 'public');
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

/**
 * `claim validate <file> -o json`: the exit code, stderr, and the claim's errors (one claim refused
 * is the error's details, each a field and a message), or undefined when there was no claim to check.
 */
async function validate(file: string) {
  const r = await runTpa(['claim', 'validate', join(dir, file), '-o', 'json'], { home, env });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const error = last.startsWith('{') ? (JSON.parse(last).error as Row) : undefined;
  const errors = error?.details ? (error.details as Row[]).map((e) => `${e.field}: ${e.message}`) : undefined;
  return { code: r.code, errors, message: error?.message as string | undefined, stderr: r.stderr };
}

const NPI_MISSING = 'is missing: an NPI identifier (system http://hl7.org/fhir/sid/us-npi)';

/**
 * Public Claims (HL7's R4 examples, a Da Vinci PAS request Bundle): each refused by `claim validate`
 * with exactly these reasons, a field and a message each, all of them things docs/api-routes.md
 * "POST /v1/claims/submit/" asks for and the file does not give.
 */
const claims: Record<string, { why: string; errors: string[] }> = {
  'hl7-r4-claim-professional.json': {
    why: 'no NPI on the provider or the care team, a local service code instead of CPT, a diagnosis that is not ICD-10',
    errors: [
      `provider.identifier: ${NPI_MISSING}`,
      `careTeam[0].provider.identifier: ${NPI_MISSING}`,
      'item[0].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://hl7.org/fhir/ex-serviceproduct "exam"',
      'diagnosis[0].diagnosisCodeableConcept.coding[0].code: must be an ICD-10 code such as K63.5 (got "654456")',
    ],
  },
  'hl7-r4-claim-institutional.json': {
    why: 'as the professional one, and an institutional line without a revenue code',
    errors: [
      `provider.identifier: ${NPI_MISSING}`,
      `careTeam[0].provider.identifier: ${NPI_MISSING}`,
      'item[0].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://hl7.org/fhir/ex-serviceproduct "exam"',
      'item[0].revenue.coding: is required on institutional claims: a 4-digit revenue code',
      'diagnosis[0].diagnosisCodeableConcept.coding[0].code: must be an ICD-10 code such as K63.5 (got "654456")',
    ],
  },
  'hl7-r4-claim-cms1500-medical.json': {
    why: 'its CPT code and ICD-10 diagnoses pass; no NPI, a contained Patient without a member id, no revenue code',
    errors: [
      `provider.identifier: ${NPI_MISSING}`,
      'contained[0].identifier: is missing: the member id (the Patient "patient-1" the claim\'s patient points to has no identifier)',
      `careTeam[0].provider.identifier: ${NPI_MISSING}`,
      'item[0].revenue.coding: is required on institutional claims: a 4-digit revenue code',
    ],
  },
  'hl7-r4-claim-oral-contained.json': {
    why: 'an oral (dental) claim; its contained patient and providers are followed and found without identifiers',
    errors: [
      'type.coding[0].code: must be professional or institutional (got "oral")',
      `provider.identifier: ${NPI_MISSING}, on the reference or on the contained Organization "org-org" it points to`,
      'contained[3].identifier: is missing: the member id (the Patient "patient-1" the claim\'s patient points to has no identifier)',
      `careTeam[0].provider.identifier: ${NPI_MISSING}, on the reference or on the contained Practitioner "provider-1" it points to`,
      'item[0].productOrService.coding[0].code: must be a 5-digit CPT code (got "1200")',
      'diagnosis[0].diagnosisCodeableConcept.coding[0].code: must be an ICD-10 code such as K63.5 (got "123456")',
    ],
  },
  'hl7-r4-claim-pharmacy-medication.json': {
    why: 'a pharmacy claim for an RxNorm drug counted in tablets, no NPI, a diagnosis that is not ICD-10',
    errors: [
      'type.coding[0].code: must be professional or institutional (got "pharmacy")',
      `provider.identifier: ${NPI_MISSING}`,
      `careTeam[0].provider.identifier: ${NPI_MISSING}`,
      'item[0].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://www.nlm.nih.gov/research/umls/rxnorm "562721"',
      'item[0].quantity.code: is UCUM "TAB": a quantity is a count of services (1) or minutes of anesthesia (min, one service), not another unit',
      'diagnosis[0].diagnosisCodeableConcept.coding[0].code: must be an ICD-10 code such as K63.5 (got "654456")',
    ],
  },
  'davinci-pas-referral-bundle.json': {
    why: "a prior-authorization request (use preauthorization), its referring practitioner's NPI 9 digits, an X12 service type instead of CPT, no service date or charge",
    errors: [
      'use: must be "claim" for a claim to adjudicate (got "preauthorization")',
      'contained[2].identifier[0].value: must be a 10-digit string (got "987654321")',
      'item[0].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://codesystem.x12.org/005010/1365 "3"',
      'item[0].servicedDate: is missing (and the claim has no billablePeriod to take it from)',
      'item[0].net: is required: the line charge (net, or unitPrice with quantity)',
    ],
  },
};

describe('public examples', () => {
  it('every file in test/fixtures/public is named in its README with a source and a license', () => {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toEqual(expect.arrayContaining(['synthea-transaction-claim.json', 'bluebutton-patient-search.json', ...Object.keys(claims)]));
    for (const f of files)
      expect(readme).toMatch(
        new RegExp(
          `\`${f.replace('.', '\\.')}\` \\| \\[[^\\]]+\\]\\(https://github\\.com/[^)]+\\) \`[^\`]+\` at \`[0-9a-f]{40}\`.*\\| (Apache-2\\.0|CC0-1\\.0)`,
        ),
      );
  });

  it('Synthea: its urn:uuid patient resolves; refused for no NPI, SNOMED CT instead of CPT, no revenue codes, no charges', async () => {
    const r = await validate('synthea-transaction-claim.json');
    expect(r.code).toBe(2);
    expect(r.message).toMatch(/synthea-transaction-claim\.json#entry\[2\] is not a valid claim/);
    expect(r.stderr).toMatch(/1 Patient, 1 Condition not submitted/);
    expect(r.errors).toEqual([
      'provider.reference: names Organization by identifier https://github.com/synthetichealth/synthea|dd406540-fa97-3a90-858e-0a0ea61cf07b, not by NPI: the NPI (system http://hl7.org/fhir/sid/us-npi) is missing',
      'item[0].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://snomed.info/sct "162673000"',
      'item[0].revenue.coding: is required on institutional claims: a 4-digit revenue code',
      'item[0].net: is required: the line charge (net, or unitPrice with quantity)',
      'item[1].productOrService.coding: has no CPT coding (system http://www.ama-assn.org/go/cpt); it has http://snomed.info/sct "15777000"',
      'item[1].revenue.coding: is required on institutional claims: a 4-digit revenue code',
      'item[1].net: is required: the line charge (net, or unitPrice with quantity)',
    ]);
    // The patient (urn:uuid, a Patient entry of the Bundle) and the diagnosis (a reference) are not among the reasons.
    expect(r.errors!.join('\n')).not.toMatch(/patient|diagnosis/);
  });

  it('Synthea: claim submit refuses it alike and sends nothing', async () => {
    const r = await runTpa(['claim', 'submit', join(dir, 'synthea-transaction-claim.json'), '-p', 'local', '-o', 'json'], { home, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/provider\.reference: names Organization by identifier/);
    const ledger = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home, env });
    expect(ledger.stdout.trim()).toBe('');
  });

  for (const [file, type] of [
    ['carin-bb-eob-professional.json', 'ExplanationOfBenefit'],
    ['carin-bb-patient.json', 'Patient'],
    ['bluebutton-eob-carrier.json', 'ExplanationOfBenefit'],
  ] as const) {
    it(`${file}: refused, a${type === 'Patient' ? '' : 'n'} ${type} is not a Claim`, async () => {
      const r = await validate(file);
      expect(r.code).toBe(2);
      expect(r.errors).toEqual([`resourceType: must be "Claim" (got "${type}")`]);
    });
  }

  it('bluebutton-patient-search.json: a Bundle without a Claim entry, its Patient named and skipped; exit 2', async () => {
    const r = await validate('bluebutton-patient-search.json');
    expect(r.code).toBe(2);
    expect(r.errors).toBeUndefined();
    expect(r.stderr).toMatch(/1 Patient not submitted \(only the Bundle's Claim entries are; the others are read for what the Claims reference\)/);
    expect(r.stderr).toMatch(/no claim in .*bluebutton-patient-search\.json/);
  });
  for (const [file, { why, errors }] of Object.entries(claims)) {
    it(`${file}: refused with exactly its reasons (${why})`, async () => {
      const r = await validate(file);
      expect(r.code).toBe(2);
      expect(r.errors).toEqual(errors);
    });
  }

  it('HL7 R4 cms1500-medical: claim submit refuses it with the reasons claim validate gives and sends nothing', async () => {
    const r = await runTpa(['claim', 'submit', join(dir, 'hl7-r4-claim-cms1500-medical.json'), '-p', 'local', '-o', 'json'], { home, env });
    expect(r.code).toBe(2);
    const last = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error as Row;
    expect((last.details as Row[]).map((e) => `${e.field}: ${e.message}`)).toEqual(claims['hl7-r4-claim-cms1500-medical.json']!.errors);
    const ledger = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home, env });
    expect(ledger.stdout.trim()).toBe('');
  });

  it('Da Vinci PAS Bundle: relative references resolve to its entries; the bad NPI is located in the Practitioner entry; submit refuses alike', async () => {
    const file = 'davinci-pas-referral-bundle.json';
    const r = await validate(file);
    expect(r.message).toMatch(/davinci-pas-referral-bundle\.json#entry\[0\] is not a valid claim/);
    expect(r.stderr).toMatch(/2 Organization, 1 Coverage, 1 Patient, 1 ServiceRequest, 1 Practitioner not submitted/);
    // Patient/SubscriberExample and Organization/UMOExample (its NPI 8189991234) are entries of the Bundle: not among the reasons.
    expect(r.errors!.join('\n')).not.toMatch(/patient|provider/);
    // The 9-digit NPI is reported at its line in the file, inside the Practitioner entry careTeam[0] points to.
    const at = /davinci-pas-referral-bundle\.json:(\d+):\d+ \(entry\[0\]\): contained\[2\]/.exec(r.stderr);
    expect(at).not.toBeNull();
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    expect(lines[Number(at![1]) - 1]).toContain('"987654321"');
    const practitionerAt = lines.findIndex((l) => l.includes('"fullUrl": "https://prior-auth.davinci.hl7.org/fhir/Practitioner/ReferralPractitionerExample"'));
    expect(practitionerAt).toBeGreaterThan(-1);
    expect(Number(at![1]) - 1).toBeGreaterThan(practitionerAt);
    const submit = await runTpa(['claim', 'submit', join(dir, file), '-p', 'local', '-o', 'json'], { home, env });
    expect(submit.code).toBe(2);
    const refused = JSON.parse(submit.stderr.trim().split('\n').at(-1)!).error as Row;
    expect((refused.details as Row[]).map((e) => `${e.field}: ${e.message}`)).toEqual(claims[file]!.errors);
    const ledger = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home, env });
    expect(ledger.stdout.trim()).toBe('');
  });
});
