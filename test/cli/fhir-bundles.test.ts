// FHIR as other systems write it: a Claim in a transaction Bundle whose patient is a
// urn:uuid entry and whose providers are conditional references (Synthea's shape) is read and sent as
// a self-contained claim; `claim validate` and `claim submit` take the same inputs (a Bundle file, a
// Bundle on an NDJSON line, a compact Bundle on stdin) and give the same errors for each claim.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { ndjson } from '../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const NPI = 'http://hl7.org/fhir/sid/us-npi';
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());
const run = (args: string[], input?: string) => runTpa(args, { home, env, input });

const PATIENT_URN = 'urn:uuid:5d6a2b1e-2c41-4a8e-9b53-6f0d1c2e3a41';

/** Claim `i`, written as Synthea writes one in a transaction Bundle: the patient by urn:uuid, the providers by conditional reference. */
function syntheaShaped(i: number): Row {
  const c = distinctClaim(i) as Row;
  c.patient = { reference: PATIENT_URN, display: 'Jane Doe' };
  c.provider = { reference: `Practitioner?identifier=${NPI}|1045782368`, display: 'Dr. Alice Morgan' };
  c.careTeam = [
    {
      sequence: 1,
      provider: { reference: `Practitioner?identifier=${NPI}|1045782368` },
      role: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claimcareteamrole', code: 'primary', display: 'Primary Care Practitioner' }] },
    },
  ];
  return c;
}

function transaction(claims: Row[], patientIdentifier: Row[] | null = [{ system: 'https://plan.example/member-id', value: 'MBR-1001' }]): Row {
  return {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [
      {
        fullUrl: PATIENT_URN,
        resource: {
          resourceType: 'Patient',
          id: PATIENT_URN.slice(9),
          ...(patientIdentifier ? { identifier: patientIdentifier } : {}),
          name: [{ family: 'Doe' }],
        },
        request: { method: 'POST', url: 'Patient' },
      },
      ...claims.map((c, k) => ({ fullUrl: `urn:uuid:00000000-0000-4000-8000-00000000000${k}`, resource: c, request: { method: 'POST', url: 'Claim' } })),
    ],
  };
}

describe('a Claim in a transaction Bundle, as Synthea writes it', () => {
  it('is valid, and is sent self-contained: the Patient entry it points to is the member (not "must be Patient/<member id>")', async () => {
    writeFileSync(join(home, 'synthea.json'), JSON.stringify(transaction([syntheaShaped(0)]), null, 2));
    const v = await run(['claim', 'validate', 'synthea.json', '-o', 'json']);
    expect(v.code, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ valid: true, provider_npi: '1045782368', member_id: 'MBR-1001' });
    const dry = await run(['claim', 'submit', 'synthea.json', '--dry-run', '-o', 'ndjson']);
    expect(dry.code, dry.stderr).toBe(0);
    const [sent] = ndjson(dry.stdout);
    expect(sent!.patient).toEqual({ reference: `#${PATIENT_URN.slice(9)}`, display: 'Jane Doe' });
    expect(sent!.contained).toEqual([
      {
        resourceType: 'Patient',
        id: PATIENT_URN.slice(9),
        identifier: [{ system: 'https://plan.example/member-id', value: 'MBR-1001' }],
        name: [{ family: 'Doe' }],
      },
    ]);
    const s = await run(['claim', 'submit', 'synthea.json', '-p', 'local', '-o', 'json']);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ status: 'ACKNOWLEDGED' });
  });

  it('a Patient entry without an identifier: the member identifier is missing, said at the entry the claim points to', async () => {
    writeFileSync(join(home, 'no-id.json'), JSON.stringify(transaction([syntheaShaped(0)], null), null, 2));
    const v = await run(['claim', 'validate', 'no-id.json']);
    expect(v.code).toBe(2);
    // Placed in the Patient entry (its line in the file), since that is where the identifier is missing.
    const text = JSON.stringify(transaction([syntheaShaped(0)], null), null, 2).split('\n');
    const patientLine = text.findIndex((l) => l.includes('"resourceType": "Patient"')) + 1;
    const error = JSON.parse(v.stderr.trim().split('\n').at(-1)!).error;
    expect(error.details).toEqual([
      {
        field: 'contained[0].identifier',
        message: 'is missing: the member id (the Patient "5d6a2b1e-2c41-4a8e-9b53-6f0d1c2e3a41" the claim\'s patient points to has no identifier)',
        line: patientLine - 1,
        column: 19,
      },
    ]);
    expect(error.message).toContain(`no-id.json:${patientLine - 1}:19 (entry[1]): contained[0].identifier: is missing: the member id`);
    expect(v.stderr).not.toMatch(/must be Patient\/<member id>/);
  });
});

describe('claim validate and claim submit: the same inputs, the same errors', () => {
  it('a Bundle file, a Bundle on an NDJSON line and a compact Bundle on stdin: each claim valid or refused alike by both', async () => {
    mkdirSync(join(home, 'in'));
    const noMember = syntheaShaped(1);
    noMember.patient = { reference: 'urn:uuid:99999999-0000-4000-8000-000000000000' };
    const icd9 = syntheaShaped(2);
    icd9.diagnosis = [{ sequence: 1, diagnosisCodeableConcept: { coding: [{ system: 'http://hl7.org/fhir/sid/icd-9-cm', code: 'V76.51' }] } }];
    writeFileSync(join(home, 'in', 'bundle.json'), JSON.stringify(transaction([syntheaShaped(0), noMember, icd9]), null, 2));
    writeFileSync(join(home, 'in', 'lines.ndjson'), `${JSON.stringify(distinctClaim(3))}\n${JSON.stringify(transaction([syntheaShaped(4)]))}\n`);
    const stdin = `${JSON.stringify(transaction([syntheaShaped(5)]))}\n`;
    const paths = ['in/bundle.json', 'in/lines.ndjson', '-'];

    const v = await run(['claim', 'validate', ...paths, '-o', 'ndjson'], stdin);
    expect(v.code, v.stderr).toBe(2);
    const checked = ndjson(v.stdout).map((o: Row) => ({ source: o.source, ok: o.valid, errors: o.errors }));
    const s = await run(['claim', 'submit', ...paths, '-p', 'local', '--journal', join(home, 'j.ndjson'), '-o', 'ndjson'], stdin);
    expect(s.code, s.stderr).toBe(2);
    const sent = ndjson(s.stdout).map((o: Row) => ({ source: o.source, ok: o.status === 'ACKNOWLEDGED', errors: o.errors }));
    const bySource = (rows: Row[]) => [...rows].sort((a, b) => a.source.localeCompare(b.source));
    expect(bySource(sent)).toEqual(bySource(checked));

    expect(checked.map((o) => [o.source, o.ok])).toEqual([
      ['in/bundle.json#entry[1]', true],
      ['in/bundle.json#entry[2]', false],
      ['in/bundle.json#entry[3]', false],
      ['in/lines.ndjson:1', true],
      ['in/lines.ndjson:2#entry[1]', true],
      ['stdin:1#entry[1]', true],
    ]);
    expect(checked[1]!.errors.map((e: Row) => e.field)).toEqual(['patient.reference']);
    expect(checked[2]!.errors.map((e: Row) => e.field)).toEqual(['diagnosis[0].diagnosisCodeableConcept.coding[0].system']);
    expect(checked[2]!.errors[0].message).toMatch(/^is ICD-9-CM \(code "V76\.51"\), which is not accepted for services from 2015-10-01/);
    // Placed in the file: the line of the field in the Bundle's own text.
    expect(checked[2]!.errors[0].line).toBeGreaterThan(1);
    expect(v.stderr).toMatch(/^in\/bundle\.json:\d+:\d+ \(entry\[3\]\): diagnosis\[0\]/m);
  });
});

describe('a Bundle whose entries share a fullUrl', () => {
  it('is refused by validate and by submit, naming the fullUrl: a reference to it could mean either entry', async () => {
    const b = transaction([syntheaShaped(0)]);
    b.entry.splice(1, 0, { fullUrl: PATIENT_URN, resource: { resourceType: 'Patient', identifier: [{ value: 'MBR-1003' }] } });
    writeFileSync(join(home, 'dup.json'), JSON.stringify(b, null, 2));
    for (const args of [
      ['claim', 'validate', 'dup.json'],
      ['claim', 'submit', 'dup.json', '-p', 'local', '--dry-run'],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('2 entries have the fullUrl');
      expect(r.stderr.replaceAll('\\"', '"')).toContain(`"${PATIENT_URN}" (entry[0], entry[1]): a fullUrl names one entry`);
    }
  });

  it('a urn:uuid in another letter case is the same fullUrl: refused, never one of the two chosen', async () => {
    const b = transaction([syntheaShaped(0)]);
    const upper = PATIENT_URN.replace(/^urn:uuid:/, 'URN:UUID:')
      .toUpperCase()
      .replace('URN:UUID:', 'urn:uuid:');
    expect(upper).not.toBe(PATIENT_URN);
    b.entry.splice(1, 0, { fullUrl: upper, resource: { resourceType: 'Patient', identifier: [{ value: 'MBR-1003' }] } });
    writeFileSync(join(home, 'dup-case.json'), JSON.stringify(b, null, 2));
    const r = await run(['claim', 'validate', 'dup-case.json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('2 entries have the fullUrl');
  });
});
