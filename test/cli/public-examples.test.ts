// Issue 26: FHIR files no one here wrote (test/fixtures/public/README.md says where each is from),
// through `tpa claim validate` and, where it makes sense, `tpa claim submit` against the local
// engine. Each is accepted or refused for a reason the service's contract gives, asserted here.
import { readFileSync } from 'node:fs';
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

describe('public examples', () => {
  it('every file in test/fixtures/public is named in its README with a source and a license', () => {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const files = [
      'synthea-transaction-claim.json',
      'carin-bb-eob-professional.json',
      'carin-bb-patient.json',
      'bluebutton-eob-carrier.json',
      'bluebutton-patient-search.json',
    ];
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
    expect(r.stderr).toMatch(/1 Patient, 1 Condition ignored/);
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
    expect(r.stderr).toMatch(/1 Patient ignored \(only the Bundle's Claim entries are submitted\)/);
    expect(r.stderr).toMatch(/no claim in .*bluebutton-patient-search\.json/);
  });
});
