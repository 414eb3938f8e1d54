// Lines tpa reads but does not price (docs/money-rules.md "Lines tpa does not price"): a HCPCS Level
// II code (a drug, a supply) and an institutional revenue code without a procedure code are
// adjudicated and DENIED (CARC-96 with a remark code), and the claim's contracted lines are priced
// and paid; a claim of such lines alone is DENIED, with nothing to fund. Decimal quantities and
// minutes of anesthesia are priced by the rules of "Quantity". Through the route table, on a real
// SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { type Adjudicated, adjudicateOn, call, useEngineHome } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;

const HCPCS = 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets';
const CPT = 'http://www.ama-assn.org/go/cpt';
const REVENUE = 'https://www.nubc.org/CodeSystem/RevenueCodes';
const RIVERSIDE = '1234567893';
const CLOCK = '2026-03-10T10:00:00Z';

function adjudicate(claim: ClaimSpec | Body, clock = CLOCK): Adjudicated {
  return adjudicateOn(home.at(clock, '0'), 'lines' in claim ? claimOf(claim as ClaimSpec) : claim);
}

/** A professional claim whose lines `codes` name, each with its coding; the ones given as [system, code]. */
function withCodings(spec: ClaimSpec, codings: Record<number, { system?: string; code: string }>): Body {
  const claim = claimOf(spec) as Body;
  for (const [i, coding] of Object.entries(codings)) claim.item[Number(i)].productOrService = { coding: [coding] };
  return claim;
}

/** allowed = benefit + patient responsibility on every line and in total, to the cent. */
function expectBalanced(a: Adjudicated): void {
  const lines = a.detail.service_lines as Body[];
  for (const l of lines) expect(cents(l.allowed_amount)).toBe(cents(l.benefit_amount) + cents(l.patient_responsibility));
  const sum = (k: string) => lines.reduce((s, l) => s + cents(l[k]), 0);
  expect(cents(a.response.adjudication.allowed_amount)).toBe(sum('allowed_amount'));
  expect(cents(a.response.adjudication.benefit_amount)).toBe(sum('benefit_amount'));
  expect(cents(a.response.adjudication.patient_responsibility)).toBe(sum('patient_responsibility'));
  expect(cents(a.response.adjudication.allowed_amount)).toBe(
    cents(a.response.adjudication.benefit_amount) + cents(a.response.adjudication.patient_responsibility),
  );
}

describe('a line tpa cannot price is denied, and the claim adjudicated', () => {
  it('a HCPCS Level II drug and supply beside a contracted line: the contracted line is paid, each HCPCS line DENIED CARC-96 with N130', () => {
    const claim = withCodings(
      {
        lines: [
          { code: '45378', date: '2026-03-02' },
          { code: '45378', date: '2026-03-02', charge: '20.00' },
          { code: '45378', date: '2026-03-02', charge: '15.00' },
        ],
      },
      { 1: { system: HCPCS, code: 'J3490' }, 2: { system: CPT, code: 'A4550' } },
    );
    const a = adjudicate(claim);
    expect(a.status).toBe(201);
    expect(a.response.disposition).toBe('PARTIAL_APPROVAL');
    const lines = a.detail.service_lines as Body[];
    expect(lines.map((l) => [l.cpt_code, l.status, l.denial_code, l.remark_codes ?? null])).toEqual([
      ['45378', 'ALLOWED', null, null],
      ['J3490', 'DENIED', 'CARC-96', ['N130']],
      ['A4550', 'DENIED', 'CARC-96', ['N130']],
    ]);
    // The contracted line is priced as it would be alone (Morgan's case rate, 425.00).
    expect(lines[0]).toMatchObject({ allowed_amount: 425 });
    expect(lines[1]).toMatchObject({ allowed_amount: 0, benefit_amount: 0, patient_responsibility: 0, cpt_description: 'HCPCS J3490' });
    expectBalanced(a);
    // The ClaimResponse says each denied item's reason (CARC 96) on its allowable.
    const items = a.response.claim_response.item as Body[];
    const allowable = items[1]!.adjudication.find((x: Body) => x.category.coding[0].code === 'allowable');
    expect(allowable.reason.coding[0]).toMatchObject({ code: '96' });
    expect(allowable.amount.value).toBe(0);
  });

  it('an institutional revenue-code-only line (room and board 0120) is DENIED CARC-96 with M51; cpt_code null, revenue_code kept', () => {
    const claim = claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }) as Body;
    claim.item.push({
      sequence: 5,
      revenue: { coding: [{ system: REVENUE, code: '0120' }] },
      productOrService: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/data-absent-reason', code: 'not-applicable' }] },
      servicedDate: '2026-03-02',
      quantity: { value: 2 },
      net: { value: 1600, currency: 'USD' },
    });
    claim.total.value += 1600;
    const a = adjudicate(claim);
    expect(a.status).toBe(201);
    expect(a.response.disposition).toBe('PARTIAL_APPROVAL');
    const room = (a.detail.service_lines as Body[])[4]!;
    expect(room).toMatchObject({
      cpt_code: null,
      revenue_code: '0120',
      cpt_description: 'Revenue code 0120',
      status: 'DENIED',
      denial_code: 'CARC-96',
      remark_codes: ['M51'],
      allowed_amount: 0,
      quantity: 2,
    });
    expect((a.detail.service_lines as Body[]).slice(0, 4).map((l) => l.status)).not.toContain('DENIED');
    expectBalanced(a);
  });

  it('a claim of HCPCS lines alone is DENIED (not 404), its first line’s reason the claim’s, and has nothing to fund', () => {
    const engine = home.at(CLOCK, '0');
    const claim = withCodings({ npi: RIVERSIDE, lines: [{ code: '45378', date: '2026-03-02', charge: '20.00' }] }, { 0: { system: HCPCS, code: 'J3490' } });
    const a = adjudicateOn(engine, claim);
    expect(a.status).toBe(201);
    expect(a.response).toMatchObject({
      disposition: 'DENIED',
      denial_code: 'CARC-96',
      denial_reason: 'Non-covered charge: the plan’s contracts rate CPT codes, not HCPCS Level II codes (drugs, supplies)',
    });
    expect(a.detail.service_lines[0]).toMatchObject({ status: 'DENIED', denial_code: 'CARC-96', remark_codes: ['N130'] });
    const fund = call(engine, 'POST', '/tpa-api/v1/funding/approve/', {
      encounter_id: a.encounterId,
      amount: 1,
      authorization_code: 'AUTH-20260310-ACME-0001',
    });
    expect(fund.status).toBe(400);
    expect(fund.body).toMatchObject({ reason: 'CLAIM_DENIED' });
  });

  it('the ledger list names an encounter by its first procedure code: past a room-and-board first line, a HCPCS code as HCPCS', () => {
    const engine = home.at(CLOCK, '0');
    const room = claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }) as Body;
    room.item.unshift({
      sequence: 9,
      revenue: { coding: [{ system: REVENUE, code: '0120' }] },
      servicedDate: '2026-03-02',
      quantity: { value: 1 },
      net: { value: 800, currency: 'USD' },
    });
    room.total.value += 800;
    const a = adjudicateOn(engine, room);
    const drug = adjudicateOn(
      engine,
      withCodings({ npi: RIVERSIDE, lines: [{ code: '45378', date: '2026-03-02', charge: '20.00' }] }, { 0: { system: HCPCS, code: 'J3490' } }),
    );
    const list = (call(engine, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).results as Body[];
    const item = (id: string) => list.find((r) => r.encounter_id === id)!;
    expect(item(a.encounterId)).toMatchObject({ ssp_code: '45380' });
    expect(item(drug.encounterId)).toMatchObject({ ssp_code: 'J3490', ssp_name: 'HCPCS J3490' });
  });

  it('a claim of HCPCS lines alone from a billing provider without a contract in force that day is still the 404 no_active_contract', () => {
    // Northgate's contract ended on 2025-12-31.
    const claim = withCodings(
      { npi: '1673904821', careTeam: [{ npi: '1673904821', role: 'primary' }], lines: [{ code: '45378', date: '2026-03-02', charge: '20.00' }] },
      { 0: { system: HCPCS, code: 'J3490' } },
    );
    const a = adjudicate(claim);
    expect(a.status).toBe(404);
    expect(a.response.error).toBe('no_active_contract');
  });

  it('funding the partial claim releases the contracted line’s benefit alone', () => {
    const engine = home.at(CLOCK, '0');
    const claim = withCodings(
      {
        lines: [
          { code: '45378', date: '2026-03-02' },
          { code: '45378', date: '2026-03-02', charge: '20.00' },
        ],
      },
      { 1: { system: HCPCS, code: 'J3490' } },
    );
    const a = adjudicateOn(engine, claim);
    const benefit = a.response.adjudication.benefit_amount;
    expect(benefit).toBe(a.detail.service_lines[0].benefit_amount);
    const fund = call(engine, 'POST', '/tpa-api/v1/funding/approve/', {
      encounter_id: a.encounterId,
      amount: benefit,
      authorization_code: 'AUTH-20260310-ACME-0001',
    });
    expect(fund.status).toBe(200);
  });

  it('a denied HCPCS line is never paid: twice on a claim both are CARC-96 (not a duplicate), and again on a later claim still CARC-96', () => {
    const engine = home.at(CLOCK, '0');
    const spec: ClaimSpec = {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '45378', date: '2026-03-02', charge: '20.00' },
        { code: '45378', date: '2026-03-02', charge: '20.00' },
      ],
    };
    const first = adjudicateOn(engine, withCodings(spec, { 1: { system: HCPCS, code: 'J3490' }, 2: { system: HCPCS, code: 'J3490' } }));
    expect((first.detail.service_lines as Body[]).map((l) => l.denial_code)).toEqual([null, 'CARC-96', 'CARC-96']);
    const again = adjudicateOn(engine, withCodings({ lines: [spec.lines[1]!] }, { 0: { system: HCPCS, code: 'J3490' } }));
    expect(again.detail.service_lines[0]).toMatchObject({ status: 'DENIED', denial_code: 'CARC-96' });
  });

  it('beside a bundle: the HCPCS line is no part of the episode, the bundle part is paid its share once', () => {
    const engine = home.at(CLOCK, '0');
    const LAKESIDE = '1450827369';
    const spec: ClaimSpec = {
      npi: LAKESIDE,
      careTeam: [{ npi: LAKESIDE, role: 'facility' }],
      lines: [
        { code: '97161', date: '2026-03-02', charge: '12000.00' },
        { code: '97161', date: '2026-03-02', charge: '20.00' },
      ],
    };
    const first = adjudicateOn(engine, withCodings(spec, { 1: { system: HCPCS, code: 'A4550' } }));
    // 28,500.00 over three parts: 9,500.00 for 97161.
    expect((first.detail.service_lines as Body[]).map((l) => [l.cpt_code, l.status, l.denial_code, l.allowed_amount])).toEqual([
      ['97161', 'ALLOWED', null, 9500],
      ['A4550', 'DENIED', 'CARC-96', 0],
    ]);
    const again = adjudicateOn(
      engine,
      withCodings({ ...spec, lines: [{ code: '97161', date: '2026-03-03', charge: '12000.00' }, spec.lines[1]!] }, { 1: { system: HCPCS, code: 'A4550' } }),
    );
    expect((again.detail.service_lines as Body[]).map((l) => [l.status, l.denial_code])).toEqual([
      ['BUNDLED', 'CARC-97'],
      ['DENIED', 'CARC-96'],
    ]);
  });

  it('coverage comes first: a HCPCS line after the member’s coverage ended is CARC-27', () => {
    const claim = withCodings(
      { patient: 'MBR-1005', lines: [{ code: '45378', date: '2026-07-20', charge: '20.00' }] },
      { 0: { system: HCPCS, code: 'J3490' } },
    );
    const a = adjudicate(claim, '2026-08-01T10:00:00Z');
    expect(a.detail.service_lines[0]).toMatchObject({ status: 'DENIED', denial_code: 'CARC-27' });
    expect(a.detail.service_lines[0].remark_codes).toBeUndefined();
  });

  it('a code tpa cannot read at all is still refused, naming it', () => {
    const claim = withCodings({ lines: [{ code: '45378', date: '2026-03-02' }] }, { 0: { system: HCPCS, code: 'ZZ-9' } });
    const a = adjudicate(claim);
    expect(a.status).toBe(400);
    expect((a.response.errors as Body[]).map((e) => e.field)).toEqual(['item[0].productOrService.coding[0].code']);
  });
});

describe('quantity: decimal units and minutes, as each rate type prices them', () => {
  const riverside = { npi: RIVERSIDE, careTeam: [{ npi: RIVERSIDE, role: 'facility' }] };
  /** Riverside's FLAT_RATE 88305 (95.00 a unit) billed at `quantity` units for 200.00. */
  const flat = (quantity: Body) => {
    const claim = claimOf({ ...riverside, lines: [{ code: '88305', date: '2026-03-02' }] }) as Body;
    claim.item[0].quantity = quantity;
    delete claim.item[0].unitPrice;
    claim.item[0].net = { value: 200, currency: 'USD' };
    claim.total = { value: 200, currency: 'USD' };
    return adjudicate(claim);
  };

  it.each([
    [1.5, 142.5],
    // 95.00 × 1.003 = 95.285: half up to 95.29 (banker's rounding would give 95.28).
    [1.003, 95.29],
    // 95.00 × 1.005 = 95.475: 95.48.
    [1.005, 95.48],
    [0.001, 0.1],
  ])('a FLAT_RATE line of %s units is allowed the rate × the units, rounded once half up to the cent (%s)', (q, allowed) => {
    const a = flat({ value: q });
    expect(a.status).toBe(201);
    expect(a.detail.service_lines[0]).toMatchObject({ quantity: q, allowed_amount: allowed });
    expect(a.detail.service_lines[0].unit_of_measure).toBeUndefined();
    expectBalanced(a);
  });

  it('a FLAT_RATE is never more than the charge, whatever the units', () => {
    expect(flat({ value: 2.5 }).detail.service_lines[0].allowed_amount).toBe(200);
  });

  it('minutes of anesthesia (UCUM min) are kept as sent with unit MJ and priced as one service', () => {
    const claim = claimOf({ ...riverside, lines: [{ code: '00811', date: '2026-03-02' }] }) as Body;
    claim.item[0].quantity = { value: 60, system: 'http://unitsofmeasure.org', code: 'min' };
    claim.item[0].unitPrice = { value: 30, currency: 'USD' };
    claim.item[0].net = { value: 1800, currency: 'USD' };
    claim.total = { value: 1800, currency: 'USD' };
    const a = adjudicate(claim);
    expect(a.detail.service_lines[0]).toMatchObject({ quantity: 60, unit_of_measure: 'MJ', allowed_amount: 480 });
    expectBalanced(a);
  });

  it('a CASE_RATE is the rate once whatever the decimal units; PERCENT_OF_CHARGES is taken on the charge', () => {
    const caseRate = claimOf({ lines: [{ code: '45378', date: '2026-03-02' }] }) as Body;
    caseRate.item[0].quantity = { value: 2.5 };
    delete caseRate.item[0].unitPrice;
    caseRate.item[0].net = { value: 2000, currency: 'USD' };
    caseRate.total = { value: 2000, currency: 'USD' };
    expect(adjudicate(caseRate).detail.service_lines[0]).toMatchObject({ quantity: 2.5, allowed_amount: 425 });
    const percent = claimOf({ npi: '1329475804', lines: [{ code: '88305', date: '2026-03-02' }] }) as Body;
    percent.item[0].quantity = { value: 1.5 };
    percent.item[0].unitPrice = { value: 100.01, currency: 'USD' };
    // 1.5 × 100.01 = 150.015: net 150.02 (half up); 70% of it is 105.014: 105.01.
    percent.item[0].net = { value: 150.02, currency: 'USD' };
    percent.total = { value: 150.02, currency: 'USD' };
    const p = adjudicate(percent);
    expect(p.detail.service_lines[0]).toMatchObject({ quantity: 1.5, submitted_charge: 150.02, allowed_amount: 105.01 });
    expectBalanced(p);
  });
});
