// A claim naming one party twice in disagreement, through the CLI in-process and over a real `tpa
// local serve` on the same data: `claim validate` and `claim submit` show both fields and both values
// and send nothing; sent anyway (`tpa api` sends what it is given), the service answers 400 naming
// both; nothing is recorded on either side. A Bundle whose Organization/<NPI> names an entry holding
// another NPI, and a claim or Bundle giving a key twice in one object, are refused the same way.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimFile } from '../helpers/encounters.js';
import { useServedSides } from '../helpers/server.js';

type Body = Record<string, any>;
const home = useServedSides(beforeEach, afterEach, '2026-04-06T10:00:00Z');
const { local, remote } = home;
const NPI = 'http://hl7.org/fhir/sid/us-npi';
const TEMPLATE = ['--type', 'professional', '--npi', '1045782368', '--cpt', '45378', '--patient', 'MBR-1001', '--service-date', '2026-04-06'];

const ATTACKS: { name: string; edit: (c: Body) => void; field: string; both: string[] }[] = [
  {
    name: 'patient.reference Patient/MBR-1002 with identifier MBR-1001',
    edit: (c) => (c.patient = { reference: 'Patient/MBR-1002', identifier: { value: 'MBR-1001' } }),
    field: 'patient.identifier.value',
    both: ['"MBR-1001"', 'patient.reference "Patient/MBR-1002"', 'member "MBR-1002"'],
  },
  {
    name: 'provider.reference Organization/1045782368 with NPI identifier 1196382455',
    edit: (c) => (c.provider = { reference: 'Organization/1045782368', identifier: { system: NPI, value: '1196382455' } }),
    field: 'provider.identifier.value',
    both: ['NPI 1196382455', 'provider.reference "Organization/1045782368"', 'NPI 1045782368'],
  },
  {
    name: 'patient.reference Patient/MBR-1002/ (a trailing slash: unreadable) with identifier MBR-1001',
    edit: (c) => (c.patient = { reference: 'Patient/MBR-1002/', identifier: { value: 'MBR-1001' } }),
    field: 'patient.reference',
    both: ['must be Patient/<member id>', '"Patient/MBR-1002/"'],
  },
  {
    name: 'provider.reference https://fhir.example/Organization/1196382455 with NPI identifier 1045782368',
    edit: (c) => (c.provider = { reference: 'https://fhir.example/Organization/1196382455', identifier: { system: NPI, value: '1045782368' } }),
    field: 'provider.identifier.value',
    both: ['NPI 1045782368', 'provider.reference "https://fhir.example/Organization/1196382455"', 'NPI 1196382455'],
  },
];

const count = async (side: typeof local) => {
  const r = await side(['ledger', 'list', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<Body>().count as number;
};

describe('a party named twice in disagreement is refused naming both, on both transports', () => {
  for (const attack of ATTACKS) {
    it(`${attack.name}: claim validate and claim submit show both, tpa api gets 400 naming both, nothing recorded`, async () => {
      const file = await claimFile(local, home.dir, { template: TEMPLATE, edit: attack.edit });
      for (const [name, side] of [
        ['in-process', local],
        ['over local serve', remote],
      ] as const) {
        for (const command of ['validate', 'submit']) {
          const r = await side(['claim', command, file]);
          expect(r.code, `${name} ${command}: ${r.stdout}${r.stderr}`).toBe(2);
          // The error as a program reads it (stderr is not a terminal): the field, and a message naming both.
          const details = (JSON.parse(r.stderr) as Body).error.details as { field: string; message: string }[];
          expect(details.map((d) => d.field)).toEqual([attack.field]);
          for (const part of attack.both) expect(details[0]!.message, `${name} ${command}`).toContain(part);
        }
        // Sent as it is, past the CLI's own check: the service refuses it.
        const sent = await side(['api', 'POST', '/tpa-api/v1/claims/submit/', '-d', `@${file}`]);
        expect(sent.code, `${name}: ${sent.stdout}${sent.stderr}`).not.toBe(0);
        const said = sent.stdout + sent.stderr;
        expect(said).toMatch(new RegExp(`"field": ?"${attack.field.replace(/\./g, '\\.')}"`));
        for (const part of attack.both) expect(said, name).toContain(part.replace(/"/g, '\\"'));
        expect(await count(side)).toBe(0);
      }
    });
  }

  it('a claim or a Bundle naming its patient twice as two keys: refused naming the key on both transports, nothing recorded', async () => {
    const file = await claimFile(local, home.dir, { template: TEMPLATE });
    const text = readFileSync(file, 'utf8');
    const twice = text.replace(/"patient": \{\s*"reference": "Patient\/MBR-1001"\s*\}/, (m) => `${m}, "patient": { "reference": "Patient/MBR-1002" }`);
    expect(twice).toContain('MBR-1002');
    writeFileSync(file, twice);
    const bundle = join(home.dir, 'twice-bundle.json');
    writeFileSync(bundle, `{"resourceType":"Bundle","type":"collection","entry":[{"resource":${twice}}]}`);
    for (const side of [local, remote]) {
      for (const command of ['validate', 'submit']) {
        const r = await side(['claim', command, file]);
        expect(r.code, r.stdout + r.stderr).toBe(2);
        const details = (JSON.parse(r.stderr) as Body).error.details as { field: string; message: string }[];
        expect(details.map((d) => [d.field, d.message.slice(0, 32)])).toEqual([['patient', 'is given twice in one object: on']]);
      }
      const b = await side(['claim', 'submit', bundle]);
      expect(b.code, b.stdout + b.stderr).toBe(2);
      expect(b.stderr).toContain('entry[0].resource.patient is given twice in one object of the Bundle');
      // tpa api refuses it before sending (what it would confirm is not what a service may read);
      // the service's own 400 is the engine's (test/engine/party-agreement.test.ts).
      const sent = await side(['api', 'POST', '/tpa-api/v1/claims/submit/', '-d', `@${file}`]);
      expect(sent.code, sent.stdout + sent.stderr).toBe(2);
      expect(sent.stdout + sent.stderr).toMatch(/--data gives the key patient twice in one object/);
    }
    expect(await count(local)).toBe(0);
  });

  it('a Bundle whose Organization/<NPI> names an entry holding another NPI: refused naming both; agreeing, it is sent', async () => {
    const file = await claimFile(local, home.dir, { template: TEMPLATE, edit: (c) => (c.provider = { reference: 'Organization/1045782368' }) });
    const c = JSON.parse(readFileSync(file, 'utf8')) as Body;
    const bundle = (npi: string) => ({
      resourceType: 'Bundle',
      type: 'collection',
      entry: [{ resource: { resourceType: 'Organization', id: '1045782368', identifier: [{ system: NPI, value: npi }] } }, { resource: c }],
    });
    const path = join(home.dir, 'bundle.json');
    writeFileSync(path, JSON.stringify(bundle('1196382455')));
    for (const side of [local, remote]) {
      const r = await side(['claim', 'submit', path]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      // A note of the entries not submitted, then the error.
      const details = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as Body).error.details as { field: string; message: string }[];
      expect(details).toEqual([
        {
          field: 'provider.reference',
          message: expect.stringMatching(/Organization\/1045782368.*NPI 1045782368.*NPI 1196382455/),
          line: expect.any(Number),
          column: expect.any(Number),
        },
      ]);
    }
    expect(await count(remote)).toBe(0);
    writeFileSync(path, JSON.stringify(bundle('1045782368')));
    const sent = await remote(['claim', 'submit', path, '-o', 'json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(await count(local)).toBe(1);
  });

  it('a Bundle whose conditional patient reference, or absolute Organization/<NPI>, names an entry of another party: refused naming both on both transports, nothing recorded', async () => {
    const file = await claimFile(local, home.dir, {
      template: TEMPLATE,
      edit: (c) => {
        c.patient = { reference: 'Patient?identifier=urn:x|MBR-1001' };
        c.provider = { reference: 'Organization/1045782368' };
      },
    });
    const c = JSON.parse(readFileSync(file, 'utf8')) as Body;
    const V2 = 'http://terminology.hl7.org/CodeSystem/v2-0203';
    const patient = (mb: string) => ({
      fullUrl: 'http://x/Patient/p',
      resource: {
        resourceType: 'Patient',
        id: 'p',
        identifier: [
          { system: 'urn:x', value: 'MBR-1001' },
          { type: { coding: [{ system: V2, code: 'MB' }] }, value: mb },
        ],
      },
    });
    const organization = (npi: string) => ({
      fullUrl: 'http://x/Organization/1045782368',
      resource: { resourceType: 'Organization', id: '1045782368', identifier: [{ system: NPI, value: npi }] },
    });
    const path = join(home.dir, 'parties-bundle.json');
    const cases: { entries: Body[]; reference: [string, string]; field: string; message: RegExp }[] = [
      {
        entries: [patient('MBR-1002'), organization('1045782368')],
        reference: ['patient', 'Patient?identifier=urn:x|MBR-1001'],
        field: 'patient.reference',
        message: /naming member "MBR-1001".*is member "MBR-1002"/,
      },
      {
        entries: [patient('MBR-1001'), organization('1196382455')],
        reference: ['provider', 'http://x/Organization/1045782368'],
        field: 'provider.reference',
        message: /"http:\/\/x\/Organization\/1045782368" in its Bundle, naming NPI 1045782368.*NPI 1196382455/,
      },
    ];
    for (const t of cases) {
      const claim = structuredClone(c);
      claim[t.reference[0]].reference = t.reference[1];
      writeFileSync(path, JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: [...t.entries, { resource: claim }] }));
      for (const [name, side] of [
        ['in-process', local],
        ['over local serve', remote],
      ] as const) {
        for (const command of ['validate', 'submit']) {
          const r = await side(['claim', command, path]);
          expect(r.code, `${name} ${command}: ${r.stdout}${r.stderr}`).toBe(2);
          const details = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as Body).error.details as { field: string; message: string }[];
          expect(details.map((d) => d.field)).toEqual([t.field]);
          expect(details[0]!.message, `${name} ${command}`).toMatch(t.message);
        }
      }
      expect(await count(local)).toBe(0);
    }
    // Every party agreeing, the same Bundle is sent, for the member and the provider both name.
    writeFileSync(
      path,
      JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: [patient('MBR-1001'), organization('1045782368'), { resource: c }] }),
    );
    const sent = await remote(['claim', 'submit', path, '-o', 'json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(await count(local)).toBe(1);
  });

  it('a Bundle whose Claim carries a sender’s urn:tpa:fhir:bundle-reference, or reaches another member or payer through its Coverage or insurer entry: refused on both transports, nothing recorded', async () => {
    const file = await claimFile(local, home.dir, { template: TEMPLATE });
    const c = JSON.parse(readFileSync(file, 'utf8')) as Body;
    const V2 = 'http://terminology.hl7.org/CodeSystem/v2-0203';
    const MB = (value: string) => ({ type: { coding: [{ system: V2, code: 'MB' }] }, value });
    const P2 = { fullUrl: 'urn:uuid:77777777-2222-4222-8222-222222222222', resource: { resourceType: 'Patient', id: 'p2', identifier: [MB('MBR-1002')] } };
    const bundle = (claim: Body, ...entries: Body[]) => ({
      resourceType: 'Bundle',
      type: 'collection',
      entry: [{ fullUrl: 'urn:uuid:11111111-1111-4111-8111-111111111111', resource: claim }, ...entries],
    });
    const planted = structuredClone(c);
    planted.patient = {
      reference: 'Patient?identifier=urn:x|MBR-1003',
      extension: [{ url: 'urn:tpa:fhir:bundle-reference', valueString: 'Patient/MBR-1002' }],
    };
    const beneficiary = structuredClone(c);
    beneficiary.contained = [{ resourceType: 'Coverage', id: 'cv', status: 'active', beneficiary: { reference: P2.fullUrl } }];
    beneficiary.insurance[0].coverage = { reference: '#cv' };
    const coverage = structuredClone(c);
    coverage.insurance[0].coverage = { reference: 'urn:uuid:44444444-2222-4222-8222-222222222222' };
    const insurer = structuredClone(c);
    insurer.insurer = { reference: 'urn:uuid:55555555-2222-4222-8222-222222222222', identifier: { value: 'PAYER-ACME' } };
    const cases: { name: string; bundle: Body; field: string; message: RegExp }[] = [
      {
        name: 'a sender’s mark',
        bundle: bundle(planted, { resource: { resourceType: 'Patient', id: 'p', identifier: [{ system: 'urn:x', value: 'MBR-1003' }, MB('MBR-1002')] } }),
        field: '',
        message: /entry\[0\] carries an extension urn:tpa:fhir:bundle-reference: that is tpa's own mark/,
      },
      {
        name: 'a contained Coverage whose beneficiary is the Patient entry of MBR-1002',
        bundle: bundle(beneficiary, P2),
        field: 'contained[0].beneficiary.reference',
        message: /names member "MBR-1002", but the claim's patient is member "MBR-1001"/,
      },
      {
        name: 'a Coverage entry for MBR-1002',
        bundle: bundle(coverage, {
          fullUrl: 'urn:uuid:44444444-2222-4222-8222-222222222222',
          resource: {
            resourceType: 'Coverage',
            id: 'cov1',
            status: 'active',
            identifier: [MB('MBR-1002')],
            subscriberId: 'MBR-1002',
            beneficiary: { reference: 'Patient/MBR-1002' },
          },
        }),
        field: 'contained[0].beneficiary.reference',
        message: /names member "MBR-1002", but the claim's patient is member "MBR-1001"/,
      },
      {
        name: 'an insurer entry of PAYER-OTHER beside identifier PAYER-ACME',
        bundle: bundle(insurer, {
          fullUrl: 'urn:uuid:55555555-2222-4222-8222-222222222222',
          resource: { resourceType: 'Organization', id: 'payer', identifier: [{ value: 'PAYER-OTHER' }] },
        }),
        field: 'insurer.identifier.value',
        message: /is "PAYER-ACME", but the Organization insurer.reference points to .* names payer "PAYER-OTHER"/,
      },
    ];
    const path = join(home.dir, 'reach-bundle.json');
    for (const t of cases) {
      writeFileSync(path, JSON.stringify(t.bundle));
      for (const [name, side] of [
        ['in-process', local],
        ['over local serve', remote],
      ] as const) {
        for (const command of ['validate', 'submit']) {
          const r = await side(['claim', command, path]);
          expect(r.code, `${t.name} ${name} ${command}: ${r.stdout}${r.stderr}`).toBe(2);
          const details = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as Body).error.details as { field: string; message: string }[];
          expect(
            details.map((d) => d.field),
            `${t.name} ${name} ${command}`,
          ).toEqual([t.field]);
          expect(details[0]!.message, `${t.name} ${name} ${command}`).toMatch(t.message);
        }
      }
    }
    expect(await count(local)).toBe(0);
    // The same Bundles naming one member and one payer throughout are sent.
    P2.resource.identifier = [MB('MBR-1001')];
    writeFileSync(path, JSON.stringify(bundle(beneficiary, P2)));
    const sent = await remote(['claim', 'submit', path, '-o', 'json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(await count(local)).toBe(1);
  });
});
