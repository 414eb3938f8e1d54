// Money across claims: a PACKAGE episode whatever order its claims arrive in, and the copay per
// visit whatever the provider's packing of visits into claims (docs/money-rules.md "Bundles",
// "What arrival order may change" and "The copay per visit"), through the engine on a real SQLite file.
import { describe, expect, it } from 'vitest';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

const SUBMIT = '/tpa-api/v1/claims/submit/';
type Body = Record<string, any>;

const LAKESIDE = '1450827369';
// Lakeside Orthopedic's PACKAGE: 28,500.00 over 01402, 27447 and 97161 (9,500.00 a part), 90 days.
const PACKAGE_CLAIMS: Record<string, ClaimSpec> = {
  may: { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-05-01', charge: '10000.00' }] },
  march: { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '01402', date: '2026-03-15', charge: '10000.00' }] },
  july: { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-07-25', charge: '10000.00' }] },
};

/** Submits claims in order on a fresh engine home (no adjudication delay); the service lines of each, as the ledger answers them. */
function submitAll(specs: ClaimSpec[], clock = '2026-08-01T10:00:00Z'): Body[][] {
  const dir = tempDir();
  const engine = engineAt(dir.dir, clock, '0');
  try {
    return specs.map((spec) => {
      const ack = call(engine, 'POST', SUBMIT, claimOf(spec));
      expect(ack.status).toBe(201);
      const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(ack.body as Body).external_claim_id}/`).body as Body;
      return detail.service_lines as Body[];
    });
  } finally {
    engine.close();
    dir.remove();
  }
}

/** A field of every line, added up in cents (an amount with more than two decimals fails). */
const totalCents = (lines: Body[][], field: string) => lines.flat().reduce((sum, l) => sum + cents(l[field] ?? 0), 0);

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('a PACKAGE episode starts on its earliest day, whatever order its claims arrive in', () => {
  it('May, then March (joins the episode, which then starts 03-15), then July (132 days after 03-15: a new episode) pays 28,500.00, as date order does', () => {
    const { may, march, july } = PACKAGE_CLAIMS;
    const lines = submitAll([may!, march!, july!]);
    expect(lines.map((l) => [l[0]!.status, l[0]!.allowed_amount])).toEqual([
      ['ALLOWED', 9500],
      ['ALLOWED', 9500],
      ['ALLOWED', 9500],
    ]);
    expect(totalCents(lines, 'allowed_amount')).toBe(2_850_000);
    expect(totalCents(submitAll([march!, may!, july!]), 'allowed_amount')).toBe(2_850_000);
  });

  it('a late earlier day whose part is included (BUNDLED) still moves the start: July, 132 days after it, opens an episode of its own', () => {
    // May bills two parts; March's 01402 arrives after May's and is included in the episode, which
    // then starts 03-15: July's 01402 lies beyond its span and is paid in a new episode, as in date order.
    const mayTwo: ClaimSpec = {
      npi: LAKESIDE,
      patient: 'MBR-1003',
      preauthorization: 'PA-2026-0501',
      lines: [
        { code: '01402', date: '2026-05-01', charge: '12000.00' },
        { code: '27447', date: '2026-05-01', charge: '12000.00' },
      ],
    };
    const march01402 = PACKAGE_CLAIMS.march!;
    const july01402: ClaimSpec = { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '01402', date: '2026-07-25', charge: '12000.00' }] };
    const late = submitAll([mayTwo, march01402, july01402]);
    expect(late.map((claim) => claim.map((l) => [l.status, l.allowed_amount]))).toEqual([
      [
        ['ALLOWED', 9500],
        ['ALLOWED', 9500],
      ],
      [['BUNDLED', null]],
      [['ALLOWED', 9500]],
    ]);
    expect(totalCents(late, 'allowed_amount')).toBe(totalCents(submitAll([march01402, mayTwo, july01402]), 'allowed_amount'));
  });

  it('every order: never more than date order; less only where May and July shared an episode before March arrived', () => {
    const totals: Record<string, number> = {};
    for (const order of permutations(Object.keys(PACKAGE_CLAIMS))) {
      totals[order.join(',')] = totalCents(submitAll(order.map((n) => PACKAGE_CLAIMS[n]!)), 'allowed_amount');
    }
    // In date order March and May are one episode (47 days) and July another (132 days after
    // March): three parts. May and July alone are one episode (85 days), July's 97161 included in
    // May's; March, arriving after both, cannot join them (the episode would span 132 days) and
    // opens its own: what was adjudicated is not priced again (docs/money-rules.md "What arrival
    // order may change").
    expect(totals).toEqual({
      'may,march,july': 2_850_000,
      'may,july,march': 1_900_000,
      'march,may,july': 2_850_000,
      'march,july,may': 2_850_000,
      'july,may,march': 1_900_000,
      'july,march,may': 2_850_000,
    });
  });
});

// Ben Kildare Service (9876543213, of the IG examples): 99213 at 32.00, 99214 at 28.00. MBR-1003 (Gold:
// copay 25.00, deductible met, coinsurance 20%).
const OFFICE = '9876543213';
const visit = (code: string, date: string) => ({ code, date, charge: '100.00' });

describe('the copay is per visit (member, billing provider, date of service), whatever the packing into claims', () => {
  const member = (lines: Body[][]) => ({ copay: totalCents(lines, 'copay_applied'), patient: totalCents(lines, 'patient_responsibility') });

  it('two visits on one claim cost two copays, as on two claims', () => {
    const one = submitAll([{ npi: OFFICE, patient: 'MBR-1003', lines: [visit('99213', '2026-11-02'), visit('99214', '2026-11-09')] }], '2026-12-01T10:00:00Z');
    expect(one[0]!.map((l) => l.copay_applied)).toEqual([25, 25]);
    const two = submitAll(
      [
        { npi: OFFICE, patient: 'MBR-1003', lines: [visit('99213', '2026-11-02')] },
        { npi: OFFICE, patient: 'MBR-1003', lines: [visit('99214', '2026-11-09')] },
      ],
      '2026-12-01T10:00:00Z',
    );
    expect(member(one)).toEqual(member(two));
    expect(member(two).copay).toBe(5000);
  });

  it('one visit split over two claims costs one copay, as on one claim', () => {
    const split = submitAll(
      [
        { npi: OFFICE, patient: 'MBR-1003', lines: [visit('99213', '2026-11-02')] },
        { npi: OFFICE, patient: 'MBR-1003', lines: [visit('99214', '2026-11-02')] },
      ],
      '2026-12-01T10:00:00Z',
    );
    expect(split.map((lines) => lines[0]!.copay_applied)).toEqual([25, 0]);
    const packed = submitAll(
      [{ npi: OFFICE, patient: 'MBR-1003', lines: [visit('99213', '2026-11-02'), visit('99214', '2026-11-02')] }],
      '2026-12-01T10:00:00Z',
    );
    expect(member(split)).toEqual(member(packed));
    expect(member(packed).copay).toBe(2500);
  });

  it('a visit whose first claim took less than the copay takes the rest on the next; a pended claim took none', () => {
    // 20.00 charged: allowed 20.00, copay 20.00 of 25.00; the visit's next claim takes the 5.00 left.
    const partial = submitAll(
      [
        { npi: OFFICE, patient: 'MBR-1003', lines: [{ code: '99213', date: '2026-11-02', charge: '20.00' }] },
        { npi: OFFICE, patient: 'MBR-1003', lines: [visit('99214', '2026-11-02')] },
      ],
      '2026-12-01T10:00:00Z',
    );
    expect(partial.map((lines) => lines[0]!.copay_applied)).toEqual([20, 5]);
    // A pended claim took no copay: the visit's next claim takes it (Lakeside's 27447 needs a preauthorization).
    const pended = submitAll(
      [
        { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '27447', date: '2026-11-02', charge: '100.00' }] },
        { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-11-02', charge: '100.00' }] },
      ],
      '2026-12-01T10:00:00Z',
    );
    expect(pended[0]![0]).toMatchObject({ status: 'PENDED', copay_applied: null });
    expect(pended[1]![0]!.copay_applied).toBe(25);
  });
});

describe('a bundle part pays the same whatever the packing into claims: each part its own share once, capped by the charge of the line carrying it', () => {
  /** What a line pays, for comparing one claim with several: code, date, status, reason and the money. */
  const CLOCK = '2026-12-05T10:00:00Z';
  // A claim whose every line is included is DENIED and shows no amounts: 0.00 either way.
  const money = (l: Body) => [
    l.cpt_code,
    l.service_date,
    l.status,
    ...['allowed_amount', 'deductible_applied', 'copay_applied', 'coinsurance_applied', 'benefit_amount'].map((f) => l[f] ?? 0),
  ];
  const packings = (npi: string, patient: string, lines: ClaimSpec['lines'], preauthorization?: string) => {
    const one = submitAll([{ npi, patient, lines, preauthorization }], CLOCK).flat();
    const apart = submitAll(
      lines.map((l) => ({ npi, patient, lines: [l], preauthorization })),
      CLOCK,
    ).flat();
    return { one, apart };
  };

  it('one PACKAGE part on two days: one claim as two claims (500.00, then BUNDLED), not 9,500.00 spread by charge', () => {
    const { one, apart } = packings(LAKESIDE, 'MBR-1003', [
      { code: '97161', date: '2026-11-02', charge: '500.00' },
      { code: '97161', date: '2026-11-09', charge: '20000.00' },
    ]);
    expect(one.map((l) => [l.status, l.allowed_amount])).toEqual([
      ['ALLOWED', 500],
      ['BUNDLED', 0],
    ]);
    expect(one.map(money)).toEqual(apart.map(money));
  });

  it('across a plan year end (MBR-1004): the deductible does not move with the packing', () => {
    const { one, apart } = packings(LAKESIDE, 'MBR-1004', [
      { code: '97161', date: '2025-12-28', charge: '12000.00' },
      { code: '97161', date: '2026-01-04', charge: '12000.00' },
    ]);
    expect(one.map((l) => l.status)).toEqual(['ALLOWED', 'BUNDLED']);
    expect(one.map(money)).toEqual(apart.map(money));
  });

  it("DOUBLE_HEADER: an under-charged part's unused share goes to no other part (1,950.00 + 400.00 on one claim as on two)", () => {
    const { one, apart } = packings(
      '1582736496',
      'MBR-1003',
      [
        { code: '29881', date: '2026-11-02', charge: '3500.00' },
        { code: '29880', date: '2026-11-02', charge: '400.00' },
      ],
      'PA-2026-1102',
    );
    expect(one.map((l) => l.allowed_amount)).toEqual([1950, 400]);
    expect(one.map(money)).toEqual(apart.map(money));
  });

  it('PACKAGE 27447 (20,000.00) and 97161 (500.00) 17 days apart: 9,500.00 + 500.00 on one claim as on two', () => {
    const { one, apart } = packings(
      LAKESIDE,
      'MBR-1003',
      [
        { code: '27447', date: '2026-11-02', charge: '20000.00' },
        { code: '97161', date: '2026-11-19', charge: '500.00' },
      ],
      'PA-2026-1102',
    );
    expect(one.map((l) => l.allowed_amount)).toEqual([9500, 500]);
    expect(one.map(money)).toEqual(apart.map(money));
  });

  it('a complete bundle whose parts are each charged at least their share is still allowed the whole rate', () => {
    const { one, apart } = packings(
      LAKESIDE,
      'MBR-1003',
      [
        { code: '01402', date: '2026-11-02', charge: '12000.00' },
        { code: '27447', date: '2026-11-02', charge: '12000.00' },
        { code: '97161', date: '2026-11-20', charge: '9500.00' },
      ],
      'PA-2026-1102',
    );
    expect(totalCents([one], 'allowed_amount')).toBe(2_850_000);
    expect(one.map(money)).toEqual(apart.map(money));
  });

  it('a second line of the part the same day is included (BUNDLED) whatever its distinct-service modifier; its plain repeat is a duplicate (CARC-18)', () => {
    const { one, apart } = packings(LAKESIDE, 'MBR-1003', [
      { code: '97161', date: '2026-11-02', charge: '500.00' },
      { code: '97161', date: '2026-11-02', charge: '700.00', modifiers: ['59'] },
      { code: '97161', date: '2026-11-02', charge: '800.00' },
    ]);
    expect(one.map((l) => [l.status, l.allowed_amount])).toEqual([
      ['ALLOWED', 500],
      ['BUNDLED', 0],
      ['DENIED', 0],
    ]);
    expect(one.map(money)).toEqual(apart.map(money));
  });
});

describe('a package day BUNDLED into its paid episode includes that day\'s anesthesia (docs/money-rules.md "Anesthesia included")', () => {
  const SUMMIT = '1196382455'; // anesthesia, 85% of charges: 00811 charged 900.00 is allowed 765.00
  const nov02: ClaimSpec = { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-11-02', charge: '20000.00' }] };
  const nov09: ClaimSpec = { npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-11-09', charge: '20000.00' }] };
  const anesthesia: ClaimSpec = { npi: SUMMIT, patient: 'MBR-1003', lines: [{ code: '00811', date: '2026-11-09', charge: '900.00' }] };
  const statuses = (claims: Body[][]) => claims.map((claim) => claim.map((l) => [l.status, l.allowed_amount]));

  it('in date order the anesthesia after the BUNDLED day is BUNDLED (CARC-97): 9,500.00 in all, as with the anesthesia first', () => {
    // A repeat of the 9th's line after the anesthesia is still BUNDLED into the episode: the day
    // kept for the anesthesia is no paid line, so nothing is a duplicate of it.
    const dated = submitAll([nov02, nov09, anesthesia, nov09], '2026-12-01T10:00:00Z');
    expect(statuses(dated)).toEqual([[['ALLOWED', 9500]], [['BUNDLED', null]], [['BUNDLED', null]], [['BUNDLED', null]]]);
    expect(dated.map((claim) => claim[0]!.denial_code)).toEqual([null, 'CARC-97', 'CARC-97', 'CARC-97']);
    expect(totalCents(dated, 'allowed_amount')).toBe(950_000);
    // The anesthesia first is taken off the line that carries the part (the 9th's, arriving before the 2nd's).
    expect(totalCents(submitAll([anesthesia, nov09, nov02], '2026-12-01T10:00:00Z'), 'allowed_amount')).toBe(950_000);
    // What adjudicated cannot be undone: between the part carried on the 2nd and the 9th's line, the anesthesia is paid.
    expect(totalCents(submitAll([nov02, anesthesia, nov09], '2026-12-01T10:00:00Z'), 'allowed_amount')).toBe(1_026_500);
    expect(totalCents(submitAll([anesthesia, nov02, nov09], '2026-12-01T10:00:00Z'), 'allowed_amount')).toBe(1_026_500);
  });
});
