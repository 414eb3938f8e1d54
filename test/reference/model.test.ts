// The reference model on cases worked out by hand from the rules, so that the model is checked
// against the rules themselves as well as against the engine.
import { describe, expect, it } from 'vitest';
import type { ClaimFigures, Event, LineEvent } from './events.js';
import { CLEARVIEW, HADDAD, HARBOR, LAKESIDE, MORGAN, NORTHGATE, RIVERSIDE, SUMMIT_ANESTHESIA, VALLEY } from './fixtures.js';
import { allocate, arrival, divRound, Model } from './model.js';

const claim = (billing: string, member: string, lines: Partial<LineEvent>[], preauthorization = true): Event => ({
  kind: 'claim',
  billing,
  member,
  preauthorization,
  lines: lines.map((l) => ({ code: '45378', date: '2026-03-02', unitCents: 100000, quantity: 1, ...l })),
});

function run(start: string, events: Event[]) {
  const outcome = Model.run({ start, events });
  return { ...outcome, claims: outcome.answers.filter((a): a is ClaimFigures => 'lines' in a || a.http === 404) as ClaimFigures[] };
}
const MARCH = '2026-03-06T15:00:00Z';
const line = (c: ClaimFigures, i: number) => c.lines![i]!;

describe('the reference model, by hand', () => {
  it('pays the facility fee and the surgeon fee of one procedure, each at its own rate; a third is a duplicate', () => {
    const { claims } = run(MARCH, [
      claim(RIVERSIDE, 'MBR-1003', [
        { code: '45380', unitCents: 240000 },
        { code: '45380', unitCents: 65000, careTeam: MORGAN },
        { code: '45378', unitCents: 200000, careTeam: VALLEY },
      ]),
      claim(MORGAN, 'MBR-1003', [{ code: '45380', unitCents: 65000 }]),
    ]);
    const [first, second] = claims;
    expect(first!.lines!.map((l) => [l.status, l.allowed, l.payee])).toEqual([
      ['ALLOWED', 165000, RIVERSIDE],
      ['ALLOWED', 51000, MORGAN],
      // Valley Family Clinic holds no contract: paid through the billing provider, at its rate.
      ['ALLOWED', 145000, RIVERSIDE],
    ]);
    // MBR-1003: deductible met, copay 25.00 on the first line, 20% of the rest.
    expect([first!.copay, first!.deductible, first!.coinsurance]).toEqual([2500, 0, divRound((361000 - 2500) * 20, 100)]);
    expect(second).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('counts a line paid through the billing provider as its renderer’s fee: Valley’s surgeon fee beside the facility’s own', () => {
    // Valley (a surgeon, no contract) first, at Riverside's rate; Riverside's own 45380 is another fee;
    // Morgan's 45380 is a second surgeon's fee for the procedure: the duplicate.
    const { claims } = run(MARCH, [
      claim(RIVERSIDE, 'MBR-1003', [{ code: '45380', unitCents: 65000, careTeam: VALLEY }]),
      claim(RIVERSIDE, 'MBR-1003', [{ code: '45380', unitCents: 240000 }]),
      claim(MORGAN, 'MBR-1003', [{ code: '45380', unitCents: 65000 }]),
    ]);
    expect(claims.map((c) => c.lines!.map((l) => [l.status, l.denial_code, l.allowed, l.payee]))).toEqual([
      [['ALLOWED', null, 65000, RIVERSIDE]],
      [['ALLOWED', null, 165000, RIVERSIDE]],
      [['DENIED', 'CARC-18', null, MORGAN]],
    ]);
  });

  it('counts a line paid to an anesthesia group as anesthesia, whoever rendered it', () => {
    const { claims } = run('2026-08-03T09:00:00Z', [
      claim(LAKESIDE, 'MBR-1003', [{ code: '27447', date: '2026-07-01', unitCents: 4500000 }]),
      claim(SUMMIT_ANESTHESIA, 'MBR-1003', [{ code: '00811', date: '2026-07-01', unitCents: 90000, careTeam: VALLEY }]),
    ]);
    expect(claims[1]!.lines!.map((l) => [l.status, l.denial_code])).toEqual([['BUNDLED', 'CARC-97']]);
  });

  it('denies CARC-B7 a payee without a contract in force in the claim’s group on the line’s date', () => {
    const { claims } = run('2027-01-04T09:00:00Z', [
      claim(RIVERSIDE, 'MBR-1003', [
        { code: '45378', date: '2027-01-02' },
        { code: '29881', date: '2027-01-02', careTeam: HADDAD },
        { code: '66984', date: '2027-01-02', careTeam: HARBOR },
        { code: '70553', date: '2027-01-02', careTeam: NORTHGATE },
        { code: '99213', date: '2027-01-02', careTeam: CLEARVIEW },
      ]),
    ]);
    expect(claims[0]!.lines!.map((l) => [l.status, l.denial_code])).toEqual([
      ['ALLOWED', null],
      ['DENIED', 'CARC-B7'],
      ['DENIED', 'CARC-B7'],
      ['DENIED', 'CARC-B7'],
      // Clearview holds a contract in force in GRP-1001 that does not rate the code.
      ['NOT_COVERED', 'CARC-96'],
    ]);
  });

  it('prices a case rate once per case and a flat rate per unit, both capped at the charge', () => {
    const { claims } = run(MARCH, [
      claim(MORGAN, 'MBR-1003', [{ code: '45378', unitCents: 50000, quantity: 3 }]),
      claim(RIVERSIDE, 'MBR-1003', [{ code: '88305', unitCents: 5000, quantity: 3, date: '2026-03-03' }]),
      claim(RIVERSIDE, 'MBR-1003', [{ code: '88305', unitCents: 9000, quantity: 3, date: '2026-03-04' }]),
    ]);
    expect(claims.map((c) => line(c, 0).allowed)).toEqual([42500, 15000, 27000]);
  });

  it('prices decimal units: the flat rate × the units rounded half up once; the charge is the unit price × the units, rounded the same way', () => {
    const { claims } = run(MARCH, [
      // 95.00 × 1.003 = 95.285: 95.29; the charge 200.00 × 1.003 = 200.60.
      claim(RIVERSIDE, 'MBR-1003', [{ code: '88305', unitCents: 20000, quantity: 1.003 }]),
      // 95.00 × 1.5 = 142.50, under its charge 0.03 × 1.5 = 0.045: 0.05, so 0.05.
      claim(RIVERSIDE, 'MBR-1003', [{ code: '88305', unitCents: 3, quantity: 1.5, date: '2026-03-03' }]),
    ]);
    expect(claims.map((c) => line(c, 0).allowed)).toEqual([9529, 5]);
    expect(claims.map((c) => line(c, 0).allowed)).toEqual(claims.map((c) => line(c, 0).benefit! + line(c, 0).patient!));
  });

  it('denies a HCPCS Level II line CARC-96 beside the paid line; alone, the claim is DENIED when the billing provider has a contract that day, else 404', () => {
    const { claims } = run(MARCH, [
      claim(MORGAN, 'MBR-1003', [{ code: '45378' }, { code: 'J3490', unitCents: 2000 }]),
      claim(MORGAN, 'MBR-1003', [{ code: 'A4550', unitCents: 1500, date: '2026-03-03' }]),
      claim(NORTHGATE, 'MBR-1003', [{ code: 'J3490', unitCents: 2000 }]),
    ]);
    expect(claims[0]!.disposition).toBe('PARTIAL_APPROVAL');
    expect(claims[0]!.lines!.map((l) => [l.status, l.denial_code, l.allowed])).toEqual([
      ['ALLOWED', null, 42500],
      ['DENIED', 'CARC-96', 0],
    ]);
    expect(claims[1]).toMatchObject({ http: 201, disposition: 'DENIED', denial_code: 'CARC-96' });
    expect(claims[2]).toEqual({ http: 404 });
  });

  it('pays anesthesia once for a day whose facility rate includes it, whichever claim comes first', () => {
    const anesthesia = (code: string) => claim(RIVERSIDE, 'MBR-1003', [{ code, unitCents: 100000, careTeam: SUMMIT_ANESTHESIA }]);
    const knee = claim(LAKESIDE, 'MBR-1003', [{ code: '27447', unitCents: 2000000 }]);
    // Anesthesia first: 85% of 1,000.00; the knee's part (28,500.00 / 3) then gives up 850.00.
    const first = run(MARCH, [anesthesia('00811'), knee, anesthesia('00731')]).claims;
    expect(line(first[0]!, 0)).toMatchObject({ status: 'ALLOWED', allowed: 85000 });
    expect(line(first[1]!, 0)).toMatchObject({ status: 'ALLOWED', denial_code: null, allowed: 950000 - 85000 });
    expect(first[2]).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
    // The knee first: the anesthesia of that member and day is bundled.
    const later = run(MARCH, [knee, anesthesia('00811')]).claims;
    expect(line(later[0]!, 0).allowed).toBe(950000);
    expect(line(later[1]!, 0)).toMatchObject({ status: 'BUNDLED', denial_code: 'CARC-97' });
  });

  it('bundles a DOUBLE_HEADER: half the rate a procedure, the second claim of the day the other half', () => {
    const { claims } = run(MARCH, [
      claim(HADDAD, 'MBR-1003', [{ code: '29881', unitCents: 300000 }]),
      claim(HADDAD, 'MBR-1003', [
        { code: '29880', unitCents: 300000 },
        { code: '29881', unitCents: 300000 },
      ]),
    ]);
    expect(line(claims[0]!, 0).allowed).toBe(195000);
    expect(claims[1]!.lines!.map((l) => [l.status, l.allowed])).toEqual([
      ['ALLOWED', 195000],
      ['DENIED', 0],
    ]);
  });

  it('never counts a 0.00 line as paid: the same service later is no duplicate', () => {
    const { claims } = run(MARCH, [claim(RIVERSIDE, 'MBR-1003', [{ unitCents: 0 }]), claim(RIVERSIDE, 'MBR-1003', [{ unitCents: 100000 }])]);
    expect(line(claims[0]!, 0)).toMatchObject({ status: 'ALLOWED', allowed: 0 });
    expect(line(claims[1]!, 0)).toMatchObject({ status: 'ALLOWED', allowed: 100000 });
  });

  it('takes each line’s deductible in its own plan year', () => {
    const { claims } = run('2027-01-04T09:00:00Z', [
      claim(RIVERSIDE, 'MBR-1001', [{ date: '2026-12-31', unitCents: 30000 }]),
      claim(RIVERSIDE, 'MBR-1001', [
        { date: '2026-12-30', code: '43235', unitCents: 100000 },
        { date: '2027-01-02', unitCents: 100000 },
      ]),
    ]);
    // 2026: 275.00 of 500.00 after the copay, then 225.00 left; 2027 starts again at 500.00.
    expect(claims[0]!.deductible).toBe(27500);
    expect(claims[1]!.lines!.map((l) => l.deductible)).toEqual([50000 - 27500, 50000]);
  });

  it('pends a claim whose code needs a preauthorization it does not carry', () => {
    const { claims, encounters } = run(MARCH, [claim(LAKESIDE, 'MBR-1003', [{ code: '27447' }], false)]);
    expect(claims[0]).toMatchObject({ disposition: 'PENDING_REVIEW', benefit: null });
    expect(encounters[0]).toMatchObject({ ledger_status: 'PENDED', balance_status: 'PENDED' });
  });

  it('charges 2.2% rounded half away from zero + 0.30 a payout, never above the payout', () => {
    expect([Model.fee(2500), Model.fee(2273), Model.fee(125), Model.fee(10)]).toEqual([55 + 30, 50 + 30, 3 + 30, 10]);
  });

  it('shares by largest remainder, the earlier line on a tie', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(10089, Array(3).fill(53))).toEqual([3363, 3363, 3363]);
    expect(allocate(5, [0, 0])).toEqual([0, 0]);
  });

  it('settles T+1 business day: a Friday transfer arrives on Monday', () => {
    expect(new Date(arrival(Date.parse('2026-03-06T15:00:00Z'))).toISOString()).toBe('2026-03-09T15:00:00.000Z');
    expect(new Date(arrival(Date.parse('2026-03-03T15:00:00Z'))).toISOString()).toBe('2026-03-04T15:00:00.000Z');
  });

  it('funds each payee its lines’ benefit, fails, refunds and reports the money', () => {
    const { answers, encounters, report } = run(MARCH, [
      claim(RIVERSIDE, 'MBR-1003', [
        { code: '45380', unitCents: 240000 },
        { code: '45380', unitCents: 65000, careTeam: MORGAN },
      ]),
      { kind: 'fund', claim: 0 },
      { kind: 'simulate', scenario: 'settlement-failure', claim: 0 },
      { kind: 'fund', claim: 0 },
      { kind: 'advance', hours: 72 },
      { kind: 'simulate', scenario: 'refund', claim: 0 },
      { kind: 'fund', claim: 0 },
    ]);
    expect(answers.slice(1).map((a) => a.http)).toEqual([200, 200, 200, 200, 200, 200]);
    // Facility 1,650.00 - 25.00 copay, 20%: 1,300.00; surgeon 510.00, 20%: 408.00.
    const [failed, refunded, current] = encounters[0]!.transfers;
    // (Payouts are listed by payee NPI.)
    expect(current!.payouts.map((p) => [p.npi, p.amount, p.fee, p.net])).toEqual([
      [MORGAN, 40800, 898 + 30, 40800 - 928],
      [RIVERSIDE, 130000, 2860 + 30, 130000 - 2890],
    ]);
    expect([failed!.status, refunded!.status, current!.status]).toEqual(['FAILED', 'REFUNDED', 'INITIATED']);
    expect(refunded!.refund).toEqual({ amount: 170800 - 2890 - 928, gross: 170800, fees_not_returned: 2890 + 928 });
    expect(report!.money).toMatchObject({ funded: 2 * 170800, in_transit: 170800, failed: 170800, refunded: 170800, processor_fees: 2890 + 928 });
  });

  it('starts a PACKAGE episode on its earliest day, whatever order its claims arrive in', () => {
    const part = (code: string, date: string) => claim(LAKESIDE, 'MBR-1003', [{ code, date, unitCents: 1000000 }]);
    const may = part('97161', '2026-05-01');
    const march = part('01402', '2026-03-15');
    const july = part('97161', '2026-07-25');
    const allowed = (events: Event[]) => run('2026-08-01T10:00:00Z', events).claims.map((c) => c.allowed);
    // March joins May's episode, which then starts on 15 March; July, 132 days after it, opens another.
    expect(allowed([may, march, july])).toEqual([950000, 950000, 950000]);
    expect(allowed([march, may, july])).toEqual([950000, 950000, 950000]);
    // May and July (85 days apart) share an episode before March arrives: March cannot join it.
    expect(allowed([may, july, march])).toEqual([950000, null, 950000]);
    expect(run('2026-08-01T10:00:00Z', [may, july, march]).claims[1]).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
  });

  it('takes the copay once per visit: member, billing provider, date of service', () => {
    const visit = (lines: Partial<LineEvent>[]) => claim(RIVERSIDE, 'MBR-1003', lines);
    const copays = (events: Event[]) => run(MARCH, events).claims.map((c) => c.lines!.map((l) => l.copay));
    expect(copays([visit([{ code: '45378' }, { code: '45380', date: '2026-03-03' }])])).toEqual([[2500, 2500]]);
    expect(copays([visit([{ code: '45378' }]), visit([{ code: '45380' }])])).toEqual([[2500], [0]]);
    // Another provider's claim the same day is another visit.
    expect(copays([visit([{ code: '45378' }]), claim(MORGAN, 'MBR-1003', [{ code: '45380' }])])).toEqual([[2500], [2500]]);
  });
});
