// Payees, fee kinds and what a line may be paid, through the real engine on a real SQLite file: who
// may be paid for a line and under whose contract, one service paid once per fee kind, anesthesia
// included in another rate, case rates and quantity, and 0.00 lines. Each test failed on the engine
// before these rules.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { databaseFile } from '../../src/engine/engine.js';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { NPI_SYSTEM } from '../../src/domain/fhir-claim.js';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { type Adjudicated, adjudicateOn, call, useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
const AT = '2026-03-02T10:00:00Z';
const DAY = '2026-03-02';

type Body = Record<string, any>;

const FACILITY = '1234567893'; // Riverside Surgery Center, GRP-1001, FLAT_RATE 45380 1,650.00
const MORGAN = '1045782368'; // surgeon, GRP-1001, CASE_RATE 45380 510.00
const SUMMIT = '1196382455'; // anesthesia, GRP-1001, 85% of charges (00811, 00731)
const CLEARVIEW = '1329475804'; // pathology, GRP-1001, 70% of charges (88305, 88312)
const HADDAD = '1582736496'; // surgeon of GRP-2002
const HARBOR = '1728493051'; // GRP-3003, contract from 2027
const NORTHGATE = '1673904821'; // GRP-3003, contract ended 2025
const LAKESIDE = '1450827369'; // GRP-2002, BUNDLE PACKAGE whose rate includes anesthesia

/**
 * Submits a claim (no adjudication delay) and reads its response and ledger detail. Lines given
 * without a care-team member are the billing provider's own.
 */
function adjudicate(spec: ClaimSpec | Body, clock = AT): Adjudicated {
  const engine = home.at(clock, '0');
  let claim: Body;
  if ('lines' in spec) {
    const s = spec as ClaimSpec;
    claim = claimOf(s);
    (claim.item as Body[]).forEach((item, i) => {
      if (s.lines[i]!.careTeam === undefined) delete item.careTeamSequence;
    });
  } else claim = spec;
  return adjudicateOn(engine, claim);
}

const lines = (a: Adjudicated) =>
  (a.detail.service_lines as Body[]).map((l) => ({
    npi: l.provider_npi,
    role: l.provider_role,
    status: l.status,
    code: l.denial_code,
    allowed: l.allowed_amount,
  }));

/** A facility's claim: 45380 seven times for one member and day, one line per payee. */
const sevenPayees: ClaimSpec = {
  npi: FACILITY,
  careTeam: [MORGAN, SUMMIT, CLEARVIEW, HADDAD, HARBOR, NORTHGATE].map((npi) => ({ npi, role: 'surgeon' })),
  lines: [{ code: '45380', date: DAY }, ...[1, 2, 3, 4, 5, 6].map((careTeam) => ({ code: '45380', date: DAY, careTeam }))],
};

describe('one service, many payees', () => {
  it('a line is paid only to a payee with a contract in force that day in the claim’s group, under its own contract', () => {
    const a = adjudicate(sevenPayees);
    expect(a.response.disposition).toBe('PARTIAL_APPROVAL');
    expect(lines(a)).toEqual([
      { npi: FACILITY, role: 'FACILITY', status: 'ALLOWED', code: null, allowed: 1650 },
      // The surgeon at her own case rate, not the facility's 1,650.00.
      { npi: MORGAN, role: 'SURGEON', status: 'ALLOWED', code: null, allowed: 510 },
      // In the group, in force, but their contracts do not rate 45380.
      { npi: SUMMIT, role: 'ANESTHESIA', status: 'NOT_COVERED', code: 'CARC-96', allowed: 0 },
      { npi: CLEARVIEW, role: 'PATHOLOGY', status: 'NOT_COVERED', code: 'CARC-96', allowed: 0 },
      // Another group's surgeon, a contract starting in 2027, a contract that ended in 2025.
      { npi: HADDAD, role: 'SURGEON', status: 'DENIED', code: 'CARC-B7', allowed: 0 },
      { npi: HARBOR, role: 'SURGEON', status: 'DENIED', code: 'CARC-B7', allowed: 0 },
      { npi: NORTHGATE, role: 'FACILITY', status: 'DENIED', code: 'CARC-B7', allowed: 0 },
    ]);
    // 2,160.00 allowed, 25.00 copay, 20% coinsurance: 1,708.00, not 9,220.00.
    expect(a.response.adjudication).toMatchObject({ allowed_amount: 2160, benefit_amount: 1708 });
    const reasons = (a.response.claim_response.item as Body[]).map((item) => item.adjudication[1].reason?.coding[0]);
    expect(reasons[4]).toEqual({
      system: 'https://x12.org/codes/claim-adjustment-reason-codes',
      code: 'B7',
      display: 'This provider was not certified/eligible to be paid for this procedure/service on this date of service',
    });

    const engine = home.at('2026-03-02T10:01:00Z', '0');
    const funded = call(engine, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: a.encounterId, amount: 1708, authorization_code: 'AUTH-22-1' });
    expect(funded.status).toBe(200);
    const settlement = call(engine, 'GET', `/tpa-api/v1/settlement/${a.encounterId}/`).body as Body;
    expect((settlement.payouts as Body[]).map((p) => [p.provider_npi, p.provider_role]).sort()).toEqual([
      [MORGAN, 'SURGEON'],
      [FACILITY, 'FACILITY'],
    ]);
  });

  it('the surgeon’s claim and the facility’s for one procedure both pay, each at its own rate, in either order', () => {
    const facility = adjudicate({ npi: FACILITY, lines: [{ code: '45380', date: DAY }] });
    const surgeon = adjudicate({ npi: MORGAN, lines: [{ code: '45380', date: DAY }] });
    expect([facility.response.disposition, surgeon.response.disposition]).toEqual(['APPROVED', 'APPROVED']);
    expect([facility.response.adjudication.allowed_amount, surgeon.response.adjudication.allowed_amount]).toEqual([1650, 510]);

    const surgeonFirst = adjudicate({ npi: MORGAN, patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] });
    const facilityAfter = adjudicate({ npi: FACILITY, patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] });
    expect([surgeonFirst.response.adjudication.allowed_amount, facilityAfter.response.adjudication.allowed_amount]).toEqual([510, 1650]);
  });

  it('each fee is paid once, whichever claim carries it: the surgeon’s fee on the facility’s claim makes her own claim a duplicate', () => {
    adjudicate(sevenPayees);
    const own = adjudicate({ npi: MORGAN, lines: [{ code: '45380', date: DAY }] });
    expect(own.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    // And the other way round: after the surgeon's own claim, the facility's line naming her is the duplicate.
    adjudicate({ npi: MORGAN, patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] });
    const facility = adjudicate({ ...sevenPayees, patient: 'MBR-1001' });
    expect(lines(facility).map((l) => [l.status, l.code])).toEqual([
      ['ALLOWED', null],
      ['DENIED', 'CARC-18'],
      ['NOT_COVERED', 'CARC-96'],
      ['NOT_COVERED', 'CARC-96'],
      ['DENIED', 'CARC-B7'],
      ['DENIED', 'CARC-B7'],
      ['DENIED', 'CARC-B7'],
    ]);
    // The anesthesia and pathology fees are their own kinds: the facility's anesthesia line and Summit's both pay.
    const fac = adjudicate({ npi: FACILITY, lines: [{ code: '00811', date: DAY }] });
    const anesthesia = adjudicate({ npi: SUMMIT, lines: [{ code: '00811', date: DAY }] });
    expect([fac.response.disposition, anesthesia.response.disposition]).toEqual(['APPROVED', 'APPROVED']);
    expect(anesthesia.response.adjudication.allowed_amount).toBe(765);
  });

  it('a billing provider outside the network has no care team the plan pays: 404 (found by the adversarial review)', () => {
    const careTeam = [MORGAN, SUMMIT, HADDAD].map((npi) => ({ npi, role: 'surgeon' }));
    const spec = (npi: string) => ({
      npi,
      careTeam,
      lines: [
        { code: '45380', date: DAY, careTeam: 1 },
        { code: '00811', date: DAY, careTeam: 2 },
        { code: '29881', date: DAY, careTeam: 3 },
      ],
      preauthorization: 'PA-1',
    });
    // An NPI the plan does not know (its check digit is right), and a known provider without a contract.
    for (const billing of ['1111111112', '1859362703']) {
      const a = adjudicate(spec(billing));
      expect(a.status, billing).toBe(404);
      expect(a.response).toMatchObject({ error: 'no_active_contract', provider_npi: billing });
    }
  });

  it('a claim none of whose lines has a payee contract is 404 no_active_contract', () => {
    const a = adjudicate({ npi: FACILITY, careTeam: [{ npi: HADDAD, role: 'surgeon' }], lines: [{ code: '45380', date: DAY, careTeam: 1 }] });
    expect(a.status).toBe(404);
    expect(a.response.error).toBe('no_active_contract');
  });
});

describe('a line’s fee kind is its renderer’s, even paid through the billing provider', () => {
  const VALLEY = '1859362703'; // registry role SURGEON, no contract: paid through the billing provider
  const day = '2026-04-06';
  const at = '2026-04-06T10:00:00Z';
  /** Riverside's institutional claim of the template: 45380 facility fee, 45380 surgeon fee (Morgan), 00811, 88305. */
  const template = (patient: string) => claimTemplate({ type: 'institutional', serviceDate: day, patient }) as Body;
  /** The template's lines that `keep` selects, renumbered, without the total (the service sums the lines). */
  const only = (c: Body, keep: (item: Body) => boolean) => {
    c.item = (c.item as Body[]).filter(keep).map((item, i) => ({ ...item, sequence: i + 1 }));
    delete c.total;
    return c;
  };
  /** Riverside's own facility line for 45380 alone. */
  const facilityFee = (patient: string) => only(template(patient), (item) => item.careTeamSequence === undefined);
  /** The template's surgeon line for 45380 alone, rendered by Valley Family Clinic. */
  const valleyFee = (patient: string) => {
    const c = template(patient);
    c.careTeam = [{ sequence: 1, provider: { identifier: { system: NPI_SYSTEM, value: VALLEY } }, role: { coding: [{ code: 'primary' }] } }];
    return only(c, (item) => item.careTeamSequence?.[0] === 1);
  };

  it('Valley’s surgeon fee, paid to Riverside at Riverside’s rate, and Riverside’s facility fee both pay, in either order', () => {
    for (const [patient, order] of [
      ['MBR-1003', [valleyFee, facilityFee]],
      ['MBR-1001', [facilityFee, valleyFee]],
    ] as const) {
      const [first, second] = order.map((claim) => adjudicate(claim(patient), at));
      const [valley, facility] = order[0] === valleyFee ? [first!, second!] : [second!, first!];
      // Paid to the billing provider and priced under its contract (45380 at 1,650.00, capped at the 650.00 charge).
      expect(lines(valley), patient).toEqual([{ npi: FACILITY, role: 'FACILITY', status: 'ALLOWED', code: null, allowed: 650 }]);
      expect(lines(facility), patient).toEqual([{ npi: FACILITY, role: 'FACILITY', status: 'ALLOWED', code: null, allowed: 1650 }]);
    }
  });

  it('Valley’s line is the procedure’s surgeon fee: a second surgeon’s fee is the duplicate, the facility’s is not', () => {
    // The adversarial review's order: Valley's line, then the whole template claim.
    adjudicate(valleyFee('MBR-1003'), at);
    const whole = adjudicate(template('MBR-1003'), at);
    expect(lines(whole).map((l) => [l.npi, l.status, l.code])).toEqual([
      [FACILITY, 'ALLOWED', null],
      [MORGAN, 'DENIED', 'CARC-18'],
      [SUMMIT, 'ALLOWED', null],
      [CLEARVIEW, 'ALLOWED', null],
    ]);
    // And Morgan's own claim for it after Valley's: the surgeon's fee was paid.
    adjudicate(valleyFee('MBR-1001'), at);
    const own = adjudicate({ npi: MORGAN, patient: 'MBR-1001', lines: [{ code: '45380', date: day }] }, at);
    expect(own.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('a line paid to an anesthesia group is an anesthesia fee, whoever rendered it: included once, including nothing', () => {
    const summitClaim = (patient: string, lines: ClaimSpec['lines']) =>
      adjudicate({ npi: SUMMIT, patient, careTeam: [{ npi: VALLEY, role: 'primary' }], lines }, '2026-08-01T10:00:00Z');
    // Lakeside's knee includes the day's anesthesia: Valley's 00811, paid to Summit, is that anesthesia.
    adjudicate({ npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '27447', date: '2026-07-01' }], preauthorization: 'PA-34' }, '2026-08-01T10:00:00Z');
    const included = summitClaim('MBR-1003', [{ code: '00811', date: '2026-07-01', careTeam: 1 }]);
    expect(lines(included)).toEqual([{ npi: SUMMIT, role: 'ANESTHESIA', status: 'BUNDLED', code: 'CARC-97', allowed: null }]);
    // Summit's own contract is marked as including anesthesia; a line paid under it includes none,
    // so Summit's own 00731 beside Valley's line is paid too.
    const both = summitClaim('MBR-1001', [
      { code: '00811', date: '2026-07-02', careTeam: 1 },
      { code: '00731', date: '2026-07-02' },
    ]);
    expect(lines(both).map((l) => [l.status, l.code])).toEqual([
      ['ALLOWED', null],
      ['ALLOWED', null],
    ]);
    // Paid first, it is the anesthesia Lakeside's including line then deducts: the plan pays it once.
    const first = summitClaim('MBR-1004', [{ code: '00811', date: '2026-07-03', careTeam: 1 }]);
    const paid = lines(first)[0]!.allowed as number;
    expect(paid).toBeGreaterThan(0);
    const knee = adjudicate(
      { npi: LAKESIDE, patient: 'MBR-1004', lines: [{ code: '27447', date: '2026-07-03' }], preauthorization: 'PA-34' },
      '2026-08-01T10:00:00Z',
    );
    expect(lines(knee)[0]).toMatchObject({ status: 'ALLOWED', allowed: 9500 - paid });
  });
});

describe('anesthesia included in another rate is not paid again', () => {
  const at = '2026-08-01T10:00:00Z';
  const day = '2026-07-01';
  const knee = { npi: LAKESIDE, lines: [{ code: '27447', date: day }], preauthorization: 'PA-22' };

  it('after a line whose rate includes anesthesia, the anesthesia claim for that member and day is BUNDLED', () => {
    const facility = adjudicate(knee, at);
    expect(facility.response.adjudication.allowed_amount).toBe(9500);
    const anesthesia = adjudicate({ npi: SUMMIT, lines: [{ code: '00811', date: day }] }, at);
    expect(anesthesia.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
    expect(lines(anesthesia)[0]).toMatchObject({ status: 'BUNDLED', code: 'CARC-97' });
    expect(anesthesia.response.denial_reason).toContain('anesthesia');
    // Another member, or another day, is another anesthesia.
    const otherDay = adjudicate({ npi: SUMMIT, lines: [{ code: '00811', date: '2026-07-02' }] }, at);
    expect(otherDay.response.adjudication.allowed_amount).toBe(765);
  });

  it('when the anesthesia came first, the including line is allowed its price less the anesthesia paid, once', () => {
    const anesthesia = adjudicate({ npi: SUMMIT, lines: [{ code: '00811', date: day }] }, at);
    expect(anesthesia.response.adjudication.allowed_amount).toBe(765);
    const facility = adjudicate(knee, at);
    // The knee's share of the package, 9,500.00, less the 765.00 already paid for the anesthesia.
    expect(lines(facility)[0]).toMatchObject({ status: 'ALLOWED', code: null, allowed: 8735 });
    // A second including line that day deducts only what is left: nothing.
    const therapy = adjudicate({ npi: LAKESIDE, lines: [{ code: '97161', date: day }] }, at);
    expect(therapy.response.adjudication.allowed_amount).toBe(300);
    // And a later anesthesia claim that day is included.
    const again = adjudicate({ npi: SUMMIT, lines: [{ code: '00731', date: day }] }, at);
    expect(again.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
  });
});

describe('a line repeating one bundled at 0.00 on its claim (found by the reference model)', () => {
  it('is bundled for the same reason, not a duplicate of a service that was not paid', () => {
    const day = '2026-07-01';
    const at = '2026-08-01T10:00:00Z';
    // The package's therapy part is billed on the 30th; billed twice more the next day, in the same
    // episode, both lines are parts already billed (CARC-97), neither a duplicate (CARC-18).
    expect(adjudicate({ npi: LAKESIDE, lines: [{ code: '97161', date: '2026-06-30' }] }, at).response.adjudication.allowed_amount).toBe(300);
    const twice = adjudicate(
      {
        npi: LAKESIDE,
        lines: [
          { code: '97161', date: day },
          { code: '97161', date: day },
        ],
      },
      at,
    );
    expect(lines(twice).map((l) => [l.status, l.code])).toEqual([
      ['BUNDLED', 'CARC-97'],
      ['BUNDLED', 'CARC-97'],
    ]);
    // Anesthesia billed twice on the day whose anesthesia the package's paid part includes: both included.
    const anesthesia = adjudicate(
      {
        npi: SUMMIT,
        lines: [
          { code: '00811', date: '2026-06-30' },
          { code: '00811', date: '2026-06-30' },
        ],
      },
      at,
    );
    expect(lines(anesthesia).map((l) => [l.status, l.code])).toEqual([
      ['BUNDLED', 'CARC-97'],
      ['BUNDLED', 'CARC-97'],
    ]);
  });

  it('a bundle part billed twice on one claim for one date is paid once: the second is a duplicate', () => {
    const twice = adjudicate({
      npi: HADDAD,
      lines: [
        { code: '29880', date: '2026-02-02', charge: '5200.00' },
        { code: '29880', date: '2026-02-02', charge: '5200.00' },
      ],
    });
    expect(lines(twice).map((l) => [l.status, l.code, l.allowed])).toEqual([
      ['ALLOWED', null, 1950],
      ['DENIED', 'CARC-18', 0],
    ]);
  });
});

describe('a case rate is per case', () => {
  it('quantity multiplies a flat rate, never a case rate or a bundle', () => {
    const caseRate = adjudicate({ npi: MORGAN, lines: [{ code: '45378', date: DAY, charge: '1800.00', quantity: 3 }] });
    expect(caseRate.response.adjudication.allowed_amount).toBe(425);
    const flat = adjudicate({ npi: FACILITY, lines: [{ code: '45378', date: DAY, charge: '1800.00', quantity: 2 }] });
    expect(flat.response.adjudication.allowed_amount).toBe(2900);
    const bundle = adjudicate({ npi: HADDAD, lines: [{ code: '29880', date: '2026-02-02', charge: '5200.00', quantity: 2 }] });
    expect(bundle.response.adjudication.allowed_amount).toBe(1950);
  });
});

describe('a 0.00 line is not paid', () => {
  it('a line allowed 0.00 makes no later line a duplicate, on a later claim or later in the same claim', () => {
    const zero = adjudicate({ npi: MORGAN, lines: [{ code: '45378', date: DAY, charge: '0.00' }] });
    expect(zero.response.disposition).toBe('APPROVED');
    expect(zero.response.adjudication).toMatchObject({ allowed_amount: 0, benefit_amount: 0 });
    const real = adjudicate({ npi: MORGAN, lines: [{ code: '45378', date: DAY }] });
    expect(real.response).toMatchObject({ disposition: 'APPROVED', adjudication: { allowed_amount: 425 } });
    const sameClaim = adjudicate({
      npi: MORGAN,
      lines: [
        { code: '43235', date: DAY, charge: '0.00' },
        { code: '43235', date: DAY },
      ],
    });
    expect(lines(sameClaim).map((l) => [l.status, l.allowed])).toEqual([
      ['ALLOWED', 0],
      ['ALLOWED', 380],
    ]);
  });
});

describe('paid lines recorded under the payee’s role are carried over to the renderer’s (the migration)', () => {
  it('a surgeon’s line paid to the facility becomes a surgeon’s fee, so the facility’s own fee pays', () => {
    const valley = adjudicate({ npi: FACILITY, careTeam: [{ npi: '1859362703', role: 'surgeon' }], lines: [{ code: '45380', date: DAY, careTeam: 1 }] });
    const morgan = adjudicate({ npi: MORGAN, patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] });
    const index = MIGRATIONS.findIndex((m) => m.includes("json_extract(l.value, '$.careTeamSequences[0]')"));
    expect(index).toBeGreaterThan(0);
    const db = new Database(databaseFile(home.dir));
    try {
      // As an older tpa recorded Valley's line: under its payee's role.
      db.prepare("UPDATE paid_lines SET fee_kind = 'FACILITY' WHERE encounter_id = ?").run(valley.encounterId);
      db.exec(MIGRATIONS[index]!);
      const kinds = db.prepare('SELECT encounter_id, fee_kind FROM paid_lines ORDER BY encounter_id').all();
      expect(kinds).toEqual(
        [
          { encounter_id: valley.encounterId, fee_kind: 'SURGEON' },
          { encounter_id: morgan.encounterId, fee_kind: 'SURGEON' },
        ].sort((a, b) => (a.encounter_id < b.encounter_id ? -1 : 1)),
      );
    } finally {
      db.close();
    }
    const facility = adjudicate({ npi: FACILITY, lines: [{ code: '45380', date: DAY }] });
    expect(lines(facility)).toEqual([{ npi: FACILITY, role: 'FACILITY', status: 'ALLOWED', code: null, allowed: 1650 }]);
  });
});

describe('paid lines recorded before fee kinds are carried over (the migration)', () => {
  it('fills in fee kinds and allowed amounts, and drops the lines allowed 0.00', () => {
    const paid = adjudicate({ npi: MORGAN, lines: [{ code: '45380', date: DAY }] });
    adjudicate({ npi: MORGAN, lines: [{ code: '45378', date: DAY, charge: '0.00' }] });
    const index = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN fee_kind'));
    expect(index).toBeGreaterThan(0);
    const db = new Database(databaseFile(home.dir));
    try {
      // The table as the engine before it kept it, with a 0.00 line that an older engine recorded.
      db.exec(`ALTER TABLE paid_lines DROP COLUMN fee_kind; ALTER TABLE paid_lines DROP COLUMN allowed_cents;
        ALTER TABLE paid_lines DROP COLUMN includes_anesthesia; ALTER TABLE paid_lines DROP COLUMN anesthesia_deducted_cents;`);
      const zero = db
        .prepare("SELECT id FROM encounters WHERE id <> ? AND provider_npi = ? AND first_cpt_code = '45378'")
        .pluck()
        .get(paid.encounterId, MORGAN);
      db.prepare(
        "INSERT INTO paid_lines (member_id, service_date, cpt_code, provider_npi, encounter_id, sequence, contract_id) VALUES ('MBR-1003', ?, '45378', ?, ?, 1, 'ctr_8d21b5e09f4c7a13')",
      ).run(DAY, MORGAN, zero);
      db.exec(MIGRATIONS[index]!);
      expect(db.prepare('SELECT cpt_code, fee_kind, allowed_cents FROM paid_lines').all()).toEqual([
        { cpt_code: '45380', fee_kind: 'SURGEON', allowed_cents: 51000 },
      ]);
    } finally {
      db.close();
    }
  });
});
