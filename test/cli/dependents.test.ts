// A dependent patient (an 837's loop 2000C) is paid under the dependent's own member id, found among
// the members enrolled under the subscriber by name and date of birth (docs/x12.md "A dependent
// patient"), in-process on the local engine and over `tpa local serve`: one found, none, several,
// and a claim whose member id and dependent disagree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TpaHome, useTpaHome } from '../helpers/cli.js';
import { login, type Served, serve } from '../helpers/server.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';

type Row = Record<string, any>;

/** An 837P of one claim of a dependent of `subscriber` (HL 22 with a child HL 23: PAT, NM1*QC, DMG). */
function dependent837(o: { clm01: string; isa13: string; subscriber?: string; name: [string, string]; dob: string; qcId?: string }): string {
  const [, , , pr, ...rest] = professionalClaim({ clm01: o.clm01 });
  const claim = [
    'HL*2*1*22*1',
    'SBR*P**GRP-1001******CI',
    `NM1*IL*1*RIVERA*DANIEL****MI*${o.subscriber ?? 'MBR-1006'}`,
    pr!,
    'HL*3*2*23*0',
    'PAT*19',
    `NM1*QC*1*${o.name[0]}*${o.name[1]}${o.qcId ? `****MI*${o.qcId}` : ''}`,
    `DMG*D8*${o.dob}*F`,
    ...rest,
  ];
  return interchange([transaction({ st02: '0001', type: 'professional', claims: [claim] })], { isa13: o.isa13 });
}

/**
 * A FHIR Claim whose patient is a dependent: the contained Patient RIVERA, SOFIA, born 2012-06-18 (member
 * MBR-1008 under subscriber MBR-1006), beneficiary of the focal contained Coverage; `patient` as given.
 */
function dependentClaim(patient: Row = { reference: '#patient' }): Row {
  return {
    resourceType: 'Claim',
    contained: [
      { resourceType: 'Patient', id: 'patient', name: [{ family: 'RIVERA', given: ['SOFIA'] }], birthDate: '2012-06-18' },
      {
        resourceType: 'Coverage',
        id: 'coverage',
        status: 'active',
        subscriberId: 'MBR-1006',
        beneficiary: { reference: '#patient' },
        relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'child' }] },
        payor: [{ reference: 'Organization/PAYER-ACME' }],
      },
    ],
    status: 'active',
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
    use: 'claim',
    patient,
    created: '2026-12-02',
    insurer: { reference: 'Organization/PAYER-ACME' },
    provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1045782368' } },
    insurance: [{ sequence: 1, focal: true, coverage: { reference: '#coverage' } }],
    item: [
      {
        sequence: 1,
        productOrService: { coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '43235' }] },
        servicedDate: '2026-12-02',
        net: { value: 1200, currency: 'USD' },
      },
    ],
    total: { value: 1200, currency: 'USD' },
  };
}

/** The engine's refusal of a claim that names `member` beside the dependent MBR-1008. */
const namesBoth = (member: string) =>
  `names member "${member}", but the dependent it names (RIVERA, SOFIA, born 2012-06-18, of subscriber MBR-1006) is member MBR-1008: which member the claim is for is not for tpa to guess`;

/** The errors of a refused claim, as field and message: the engine's (on stdout) or the reader's (on stderr). */
function errorsOf(r: { stdout: string; stderr: string }): Row[] {
  const errors: Row[] = r.stdout.trim() !== '' ? JSON.parse(r.stdout.trim()).errors : JSON.parse(r.stderr).error.details;
  return errors.map((e) => ({ field: e.field, message: e.message }));
}

/** The reader's refusal of a claim that names the subscriber MBR-1006 beside his dependent. */
const namesSubscriber =
  'names member "MBR-1006", the subscriber of the dependent it names (RIVERA, SOFIA, born 2012-06-18, child of MBR-1006): which member the claim is for is not for tpa to guess';

function cases(transport: string, setUp: (home: TpaHome) => Promise<Served | undefined>) {
  describe(`a dependent patient (loop 2000C), ${transport}`, () => {
    const home = useTpaHome(beforeAll, afterAll);
    let server: Served | undefined;
    beforeAll(async () => {
      server = await setUp(home);
    });
    afterAll(async () => {
      await server?.stop();
    });

    const submit = async (name: string, text: string) => {
      const file = join(home.dir, name);
      writeFileSync(file, text);
      return home.run(['claim', 'submit', file, '--wait', '-o', 'ndjson']);
    };

    it('is paid under the dependent enrolled under the subscriber with that name and date of birth: their member id, their deductible', async () => {
      // Names are compared without case; a middle initial sent and none enrolled is no difference.
      const r = await submit('one.837', dependent837({ clm01: 'DEP-ONE', isa13: '000000001', name: ['Rivera', 'SOFIA*A'], dob: '20120618' }));
      expect(r.code, r.stderr).toBe(0);
      const outcome = JSON.parse(r.stdout.trim()) as Row;
      expect(outcome).toMatchObject({ status: 'ACKNOWLEDGED', disposition: 'APPROVED' });
      const ledger = await home.run(['ledger', 'show', outcome.external_claim_id, '-o', 'json']);
      expect(ledger.json<Row>().encounter.patient).toEqual({ member_id: 'MBR-1008', name: 'Sofia Rivera', dob: '2012-06-18', subscriber_id: 'MBR-1006' });
      const shown = await home.run(['ledger', 'show', outcome.external_claim_id, '-o', 'table']);
      expect(shown.stdout).toMatch(/Sofia Rivera \(MBR-1008, born 2012-06-18; dependent of MBR-1006\)/);
      // The deductible is the dependent's: hers is applied, and the subscriber's own claim of the same
      // service meets none of it before him (met prior 0), his deductible applied as hers was.
      const hers = ledger.json<Row>().financial_summary.deductible;
      expect(hers).toEqual({ plan_deductible: 500, deductible_met_prior: 0, deductible_applied: expect.any(Number) });
      expect(Number(hers.deductible_applied)).toBeGreaterThan(0);
      const own = await submit(
        'own.837',
        interchange([transaction({ st02: '0001', type: 'professional', claims: [professionalClaim({ clm01: 'SUB-OWN', member: 'MBR-1006' })] })], {
          isa13: '000000007',
        }),
      );
      expect(own.code, own.stderr).toBe(0);
      const his = await home.run(['ledger', 'show', (JSON.parse(own.stdout.trim()) as Row).external_claim_id, '-o', 'json']);
      expect(his.json<Row>().encounter.patient).toEqual({ member_id: 'MBR-1006', name: 'Daniel Rivera', dob: '1980-02-14' });
      expect(his.json<Row>().financial_summary.deductible).toEqual(hers);
    });

    it('claim validate says the dependent as sent (no member id until the engine finds them)', async () => {
      const file = join(home.dir, 'validate.837');
      writeFileSync(file, dependent837({ clm01: 'DEP-VAL', isa13: '000000008', name: ['RIVERA', 'SOFIA'], dob: '20120618' }));
      const json = await home.run(['claim', 'validate', file, '-o', 'json']);
      expect(json.code, json.stderr).toBe(0);
      expect(json.json<Row[]>()[0]).toMatchObject({
        valid: true,
        member_id: null,
        dependent: { subscriber_id: 'MBR-1006', family: 'RIVERA', given: ['SOFIA'], birth_date: '2012-06-18' },
      });
      // Its FHIR form (claim convert), one claim: the table names the member as sent.
      const converted = await home.run(['claim', 'convert', file]);
      expect(converted.code, converted.stderr).toBe(0);
      writeFileSync(join(home.dir, 'validate.json'), converted.stdout);
      const table = await home.run(['claim', 'validate', join(home.dir, 'validate.json'), '-o', 'table']);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/Member\s+RIVERA, SOFIA, born 2012-06-18, dependent of MBR-1006/);
    });

    it('none enrolled under the subscriber matching: refused, naming the subscriber and the patient as sent; nothing recorded', async () => {
      const r = await submit('none.837', dependent837({ clm01: 'DEP-NONE', isa13: '000000002', name: ['RIVERA', 'SOFIA'], dob: '20120619' }));
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({
        status: 'FAILED',
        errors: [
          {
            field: 'patient',
            message:
              "is RIVERA, SOFIA, born 2012-06-19, a dependent of subscriber MBR-1006, and no dependent enrolled under MBR-1006 has that name and date of birth: the claim is not paid as anyone's",
          },
        ],
      });
      const unknown = await submit(
        'nosub.837',
        dependent837({ clm01: 'DEP-NOSUB', isa13: '000000003', subscriber: 'MBR-9999', name: ['RIVERA', 'SOFIA'], dob: '20120618' }),
      );
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toContain('no member \\"MBR-9999\\" is enrolled with the plan');
      // The subscriber's dependents are the only ones looked at: another family's member is no match.
      const other = await submit('other.837', dependent837({ clm01: 'DEP-OTHER', isa13: '000000004', name: ['DOE', 'JANE'], dob: '19840312' }));
      expect(other.code).toBe(2);
      expect(other.stdout).toContain('no dependent enrolled under MBR-1006 has that name and date of birth');
      // Nothing recorded: the ledger holds the two claims paid above, and these three are not in it.
      const entries = (await home.run(['ledger', 'list', '--all', '-o', 'json'])).json<Row[]>();
      expect(entries).toHaveLength(2);
    });

    it('a member id sent for the patient that is not the dependent found: refused, naming both', async () => {
      const r = await submit(
        'disagree.837',
        dependent837({ clm01: 'DEP-DIS', isa13: '000000005', name: ['RIVERA', 'SOFIA'], dob: '20120618', qcId: 'MBR-1007' }),
      );
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout.trim()).errors).toEqual([
        {
          field: 'patient',
          segment: 'NM1*QC',
          message:
            'names member "MBR-1007", but the dependent it names (RIVERA, SOFIA, born 2012-06-18, of subscriber MBR-1006) is member MBR-1008: which member the claim is for is not for tpa to guess',
        },
      ]);
    });

    it('a FHIR claim whose patient names another member than its dependent (the unrelated MBR-1003, the subscriber MBR-1006): refused by claim validate and claim submit, naming both; nothing recorded', async () => {
      const before = (await home.run(['ledger', 'list', '--all', '-o', 'json'])).json<Row[]>().length;
      // The subscriber is never his own dependent: refused by the reader, on any profile. Another member
      // is refused by the engine: claim validate asks it on the local profile (over HTTP the server refuses it).
      for (const [member, message, engine] of [
        ['MBR-1003', namesBoth('MBR-1003'), true],
        ['MBR-1006', namesSubscriber, false],
      ] as const) {
        const file = join(home.dir, `names-${member}.json`);
        writeFileSync(file, JSON.stringify(dependentClaim({ reference: `Patient/${member}` })));
        if (!engine || !server) {
          const checked = await home.run(['claim', 'validate', file, '-o', 'json']);
          expect(checked.code).toBe(2);
          expect(checked.stderr).toContain(JSON.stringify(message).slice(1, -1));
        }
        const r = await home.run(['claim', 'submit', file, '--wait', '-o', 'ndjson']);
        expect(r.code).toBe(2);
        expect(errorsOf(r)).toEqual([{ field: 'patient', message }]);
      }
      expect((await home.run(['ledger', 'list', '--all', '-o', 'json'])).json<Row[]>()).toHaveLength(before);
      // Naming the dependent both ways (her member id and her name and birth date) is one reading: paid as hers.
      const both = join(home.dir, 'names-both.json');
      writeFileSync(both, JSON.stringify(dependentClaim({ reference: 'Patient/MBR-1008' })));
      const r = await home.run(['claim', 'submit', both, '--wait', '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      const ledger = await home.run(['ledger', 'show', (JSON.parse(r.stdout.trim()) as Row).external_claim_id, '-o', 'json']);
      expect(ledger.json<Row>().encounter.patient).toMatchObject({ member_id: 'MBR-1008', subscriber_id: 'MBR-1006' });
    });

    it('several dependents of that name and date of birth: refused, naming their member ids', async () => {
      // A second Sofia Rivera born the same day under the same subscriber (twins named apart by a middle name).
      const db = new Database(join(home.dir, 'local.sqlite'));
      try {
        db.prepare(
          "INSERT INTO members (member_id, name, dob, plan_id, coverage_start, coverage_end, deductible_met_cents, subscriber_id) VALUES ('MBR-1099', 'Sofia B. Rivera', '2012-06-18', 'PLAN-GOLD', '2025-01-01', NULL, 0, 'MBR-1006')",
        ).run();
      } finally {
        db.close();
      }
      const r = await submit('several.837', dependent837({ clm01: 'DEP-SEV', isa13: '000000006', name: ['RIVERA', 'SOFIA'], dob: '20120618' }));
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout.trim()).errors[0].message).toBe(
        'is RIVERA, SOFIA, born 2012-06-18, a dependent of subscriber MBR-1006, and several dependents enrolled under MBR-1006 have that name and date of birth (MBR-1008, MBR-1099): which one is not for tpa to guess',
      );
    });
  });
}

cases('in-process on the local engine', async () => undefined);
cases('over tpa local serve (HTTP)', async (home) => {
  const server = await serve(home.dir);
  await login(home.dir, server.url);
  return server;
});

describe('a FHIR claim whose patient is a dependent, every spelling of another member beside her, in-process on the local engine', () => {
  const home = useTpaHome(beforeAll, afterAll);
  const MB = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] };

  /** claim validate and claim submit of one claim (or Bundle): both refuse it, with the same errors. */
  const refused = async (name: string, claim: Row) => {
    const file = join(home.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(claim));
    const checked = await home.run(['claim', 'validate', file, '-o', 'json']);
    expect(checked.code, checked.stdout).toBe(2);
    const r = await home.run(['claim', 'submit', file, '--wait', '-o', 'ndjson']);
    expect(r.code, r.stdout).toBe(2);
    const errors = errorsOf(r);
    for (const e of errors) expect(checked.stderr).toContain(JSON.stringify(e.message).slice(1, -1));
    return errors;
  };

  it.each([
    ['an identifier alone', { identifier: { value: 'MBR-1003' } }],
    ['an identifier beside the reference to the contained dependent', { reference: '#patient', identifier: { value: 'MBR-1003' } }],
    ['an absolute URL', { reference: 'https://fhir.example.org/r4/Patient/MBR-1003' }],
    ['a conditional reference', { reference: 'Patient?identifier=http://example.org/member|MBR-1003' }],
  ])('patient names MBR-1003 by %s: refused naming both', async (_how, patient) => {
    expect(await refused(`spelling-${_how.replaceAll(' ', '-')}`, dependentClaim(patient))).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
  });

  it('another contained Patient (MBR-1003) as patient, the dependent as the Coverage’s beneficiary: refused naming both', async () => {
    const claim = dependentClaim({ reference: '#other' });
    claim.contained.push({ resourceType: 'Patient', id: 'other', identifier: [{ value: 'MBR-1003' }], name: [{ family: 'CHEN', given: ['ROBERT'] }] });
    expect(await refused('two-patients', claim)).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
  });

  it('two contained dependents, each the beneficiary of a Coverage: refused by the reader, naming both', async () => {
    const claim = dependentClaim();
    claim.contained.push(
      { resourceType: 'Patient', id: 'wife', name: [{ family: 'RIVERA', given: ['ELENA'] }], birthDate: '1982-09-03' },
      { ...claim.contained[1], id: 'coverage2', beneficiary: { reference: '#wife' } },
    );
    claim.insurance.push({ sequence: 2, focal: false, coverage: { reference: '#coverage2' } });
    expect(await refused('two-dependents', claim)).toEqual([
      {
        field: 'contained[3].beneficiary.reference',
        message:
          "names the dependent RIVERA, ELENA, born 1982-09-03 of subscriber MBR-1006 (the Coverage of insurance[1]), but the claim's patient is the dependent RIVERA, SOFIA, born 2012-06-18 of subscriber MBR-1006: which patient the claim is for is not for tpa to guess",
      },
    ]);
  });

  it('the patient is the contained dependent, and a Coverage names another member (beneficiary identifier, a second Coverage, a typed coverage identifier): refused naming both', async () => {
    const byIdentifier = dependentClaim();
    byIdentifier.contained[1].beneficiary = { reference: '#patient', identifier: { value: 'MBR-1003' } };
    expect(await refused('beneficiary-identifier', byIdentifier)).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
    const second = dependentClaim();
    second.contained.push({
      resourceType: 'Coverage',
      id: 'other',
      status: 'active',
      beneficiary: { reference: 'Patient/MBR-1003' },
      payor: [{ display: 'Acme' }],
    });
    second.insurance.push({ sequence: 2, focal: false, coverage: { reference: '#other' } });
    expect(await refused('second-coverage', second)).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
    const typed = dependentClaim();
    typed.insurance[0].coverage.identifier = { type: MB, value: 'MBR-1003' };
    expect(await refused('typed-coverage-identifier', typed)).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
    // The subscriber named there instead is refused by the reader: he is never his own dependent.
    typed.insurance[0].coverage.identifier = { type: MB, value: 'MBR-1006' };
    expect(await refused('typed-coverage-subscriber', typed)).toEqual([{ field: 'patient', message: namesSubscriber }]);
  });

  it('the patient is the contained dependent, and the Coverage’s beneficiary is another member: refused', async () => {
    const claim = dependentClaim();
    claim.contained[1].beneficiary = { reference: 'Patient/MBR-1003' };
    const errors = await refused('beneficiary-elsewhere', claim);
    expect(errors).toEqual([
      {
        field: 'contained[0].identifier',
        message:
          'is missing: the member id (the Patient "patient" the claim\'s patient points to has no identifier): the Coverage of insurance[0] (subscriber MBR-1006) covers "Patient/MBR-1003", not this Patient, so it is no dependent of that subscriber either',
      },
    ]);
  });

  it('a Bundle whose Claim names a Patient entry (MBR-1003) and whose Coverage entry covers the dependent: refused naming both', async () => {
    const claim = dependentClaim({ reference: 'urn:uuid:00000000-0000-4000-8000-0000000000a1' });
    const [dependent, coverage] = claim.contained;
    claim.contained = undefined;
    claim.insurance[0].coverage = { reference: 'urn:uuid:00000000-0000-4000-8000-0000000000c1' };
    const bundle = {
      resourceType: 'Bundle',
      type: 'collection',
      entry: [
        {
          fullUrl: 'urn:uuid:00000000-0000-4000-8000-0000000000a1',
          resource: { resourceType: 'Patient', id: 'a1', identifier: [{ value: 'MBR-1003' }], name: [{ family: 'CHEN', given: ['ROBERT'] }] },
        },
        { fullUrl: 'urn:uuid:00000000-0000-4000-8000-0000000000b1', resource: { ...dependent, id: 'b1' } },
        {
          fullUrl: 'urn:uuid:00000000-0000-4000-8000-0000000000c1',
          resource: { ...coverage, id: 'c1', beneficiary: { reference: 'urn:uuid:00000000-0000-4000-8000-0000000000b1' } },
        },
        { fullUrl: 'urn:uuid:00000000-0000-4000-8000-0000000000d1', resource: claim },
      ],
    };
    expect(await refused('bundle', bundle)).toEqual([{ field: 'patient', message: namesBoth('MBR-1003') }]);
    // Nothing recorded by any of these.
    expect((await home.run(['ledger', 'list', '--all', '-o', 'json'])).json<Row[]>()).toHaveLength(0);
  });
});
