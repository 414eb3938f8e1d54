// The line-by-line money rules through the real CLI process: every money rule applies to each line
// on its own date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);

type Body = Record<string, any>;
const run = (args: string[], clock: string) => home.run(args, { TPA_CLOCK: clock });

function file(claim: Body): string {
  const path = join(home.dir, `claim-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(claim));
  return path;
}

/**
 * `tpa claim submit FILE -o json`, then `tpa claim poll` (adjudication is immediate here, so this
 * is what `--wait` gives, without its first two-second pause) on the engine clock `clock`.
 */
async function submit(clock: string, spec: ClaimSpec | Body, ...extra: string[]) {
  return send(clock, spec, [], extra);
}

/** The same claim once more, on purpose (--again: tpa refuses a claim it sent before otherwise). */
async function submitAgain(clock: string, spec: ClaimSpec | Body) {
  return send(clock, spec, ['--again'], []);
}

async function send(clock: string, spec: ClaimSpec | Body, submitArgs: string[], extra: string[]) {
  const claim = 'lines' in spec ? claimOf(spec as ClaimSpec) : spec;
  const ack = await run(['claim', 'submit', file(claim), '-o', 'json', ...submitArgs], clock);
  if (ack.code !== 0) return { ...ack, body: ack.stdout ? ack.json<Body>() : {} };
  const r = await run(['claim', 'poll', ack.json<Body>().submission_id, '-o', 'json', ...extra], clock);
  return { ...r, body: r.json<Body>() };
}

async function lines(clock: string, encounterId: string): Promise<Body[]> {
  const r = await run(['ledger', 'show', encounterId, '-o', 'json'], clock);
  expect(r.code).toBe(0);
  return r.json<Body>().service_lines as Body[];
}

describe('tpa claim submit applies the rules line by line', () => {
  it('the line after coverage ended is denied CARC-27; the covered line is paid', async () => {
    const clock = '2026-08-01T10:00:00Z';
    const r = await submit(clock, {
      patient: 'MBR-1005',
      lines: [
        { code: '45378', date: '2026-06-30' },
        { code: '43235', date: '2026-07-20' },
      ],
    });
    expect(r.code).toBe(0);
    expect(r.body).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 425 } });
    expect((await lines(clock, r.body.external_claim_id)).map((l) => [l.status, l.denial_code])).toEqual([
      ['ALLOWED', null],
      ['DENIED', 'CARC-27'],
    ]);
  });

  it('the line after the contract ended is not paid; alone it exits 3 no_active_contract', async () => {
    const clock = '2026-03-01T10:00:00Z';
    const both = await submit(clock, {
      npi: '1673904821',
      lines: [
        { code: '70553', date: '2025-12-31' },
        { code: '70553', date: '2026-02-20' },
      ],
    });
    expect(both.body).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 900 } });
    const alone = await submit(clock, { npi: '1673904821', lines: [{ code: '70553', date: '2026-02-20' }] });
    expect(alone.code).toBe(3);
    expect(alone.body.error).toBe('no_active_contract');
  });

  it('a service in the future exits 2 naming the line, and nothing is recorded', async () => {
    const clock = '2026-03-02T10:00:00Z';
    const r = await submit(clock, { lines: [{ code: '45378', date: '2030-01-01' }], created: '2026-03-02' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('item[0].servicedDate');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const ledger = await run(['ledger', 'list', '-o', 'json'], clock);
    expect(ledger.json<Body>().count).toBe(0);
    const validate = await run(['claim', 'validate', file(claimOf({ lines: [{ code: '45378', date: '2026-03-02' }], created: '2026-03-01' }))], clock);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain('item[0].servicedDate');
  });

  it('45378 twice on one day is paid once, and again later not at all', async () => {
    const clock = '2026-03-02T10:00:00Z';
    const spec = {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '45378', date: '2026-03-02' },
      ],
    };
    const first = await submit(clock, spec);
    expect(first.body).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 425 } });
    const again = await submitAgain(clock, spec);
    expect(again.body).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('a single procedure of a DOUBLE_HEADER is allowed half the bundle rate, not all of it', async () => {
    const r = await submit('2026-08-01T10:00:00Z', { npi: '1582736496', lines: [{ code: '29880', date: '2026-07-01' }] });
    expect(r.body).toMatchObject({ disposition: 'APPROVED', adjudication: { allowed_amount: 1950 } });
  });

  it('a care-team NPI the plan does not know exits 2 naming the entry', async () => {
    const r = await submit('2026-03-02T10:00:00Z', {
      npi: '1234567893',
      careTeam: [{ npi: '1111111112', role: 'anesthesiologist' }],
      lines: [{ code: '00811', date: '2026-03-02', careTeam: 1 }],
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('careTeam[0].provider');
  });

  it('the deductible starts again in January', async () => {
    const clock = '2026-01-15T10:00:00Z';
    const december = await submit(clock, { patient: 'MBR-1001', lines: [{ code: '45378', date: '2025-12-15' }] });
    expect(december.body.adjudication.deductible_applied).toBe(400);
    const january = await submit(clock, { patient: 'MBR-1001', lines: [{ code: '45378', date: '2026-01-10' }] });
    expect(january.body.adjudication.deductible_applied).toBe(400);
  });

  it('validate and submit refuse a net that is not quantity × unitPrice, and a total that is not the lines', async () => {
    const claim = claimOf({ lines: [{ code: '45378', date: '2026-03-02' }] });
    Object.assign(claim.item[0], { quantity: { value: 3 }, unitPrice: { value: 100, currency: 'USD' }, net: { value: 1000, currency: 'USD' } });
    claim.total = { value: 1, currency: 'USD' };
    const v = await run(['claim', 'validate', file(claim)], '2026-03-02T10:00:00Z');
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('item[0].net.value');
    claim.item[0].net.value = 300;
    const s = await submit('2026-03-02T10:00:00Z', claim);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('total.value');
  });

  it('999 lines at 20% coinsurance cost the member the claim-level 255.19', async () => {
    const codes = ['45378', '45380', '43235', '00811', '00731', '88305'];
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
    const spec = {
      npi: '1234567893',
      patient: 'MBR-1003',
      // The facility's own lines (each code of the template would otherwise name its care-team provider).
      careTeam: [{ npi: '1234567893', role: 'facility' }],
      // Six lines a day, 167 visits: the first of each day (30.00) takes that visit's 25.00 copay, the others are 0.53.
      lines: Array.from({ length: 999 }, (_, i) => ({ code: codes[i % 6]!, date: day(Math.floor(i / 6)), charge: i % 6 === 0 ? '30.00' : '0.53' })),
    };
    const r = await submit('2026-07-01T10:00:00Z', spec);
    // (5,450.96 − 4,175.00) × 20% = 255.192 → 255.19 (line by line: 258.52)
    expect(r.body.adjudication).toMatchObject({ allowed_amount: 5450.96, copay_applied: 4175, coinsurance_applied: 255.19, patient_responsibility: 4430.19 });
  });

  it('the raw ClaimResponse lists the coinsurance of each item', async () => {
    const r = await submit('2026-03-02T10:00:00Z', { npi: '1196382455', lines: [{ code: '00811', date: '2026-03-02' }] }, '--raw');
    const codes = (r.body.claim_response.item[0].adjudication as Body[]).map((a) => a.category.coding[0].code);
    expect(codes).toEqual(['submitted', 'allowable', 'copay', 'deductible', 'coinsurance', 'benefit']);
  });
});

describe('payees, fee kinds, anesthesia included, case rates, 0.00 lines', () => {
  const clock = '2026-03-02T10:00:00Z';
  const DAY = '2026-03-02';
  /** A claim whose lines without a care-team member are the billing provider's own. */
  const own = (spec: ClaimSpec): Body => {
    const claim = claimOf(spec);
    (claim.item as Body[]).forEach((item, i) => {
      if (spec.lines[i]!.careTeam === undefined) delete item.careTeamSequence;
    });
    return claim;
  };

  it('seven payees of one 45380: the facility and the surgeon are paid, each at its own rate; the rest are not', async () => {
    const careTeam = ['1045782368', '1196382455', '1329475804', '1582736496', '1728493051', '1673904821'].map((npi) => ({ npi, role: 'surgeon' }));
    const r = await submit(
      clock,
      own({
        npi: '1234567893',
        careTeam,
        lines: [{ code: '45380', date: DAY }, ...[1, 2, 3, 4, 5, 6].map((n) => ({ code: '45380', date: DAY, careTeam: n }))],
      }),
    );
    expect(r.code).toBe(0);
    expect(r.body).toMatchObject({ disposition: 'PARTIAL_APPROVAL', adjudication: { allowed_amount: 2160, benefit_amount: 1708 } });
    expect((await lines(clock, r.body.external_claim_id)).map((l) => [l.provider_npi, l.status, l.denial_code, l.allowed_amount])).toEqual([
      ['1234567893', 'ALLOWED', null, 1650],
      ['1045782368', 'ALLOWED', null, 510],
      ['1196382455', 'NOT_COVERED', 'CARC-96', 0],
      ['1329475804', 'NOT_COVERED', 'CARC-96', 0],
      ['1582736496', 'DENIED', 'CARC-B7', 0],
      ['1728493051', 'DENIED', 'CARC-B7', 0],
      ['1673904821', 'DENIED', 'CARC-B7', 0],
    ]);
    // Billed by an NPI the plan does not know, the same care team is paid nothing: exit 3, no_active_contract.
    const unknown = await submit(clock, own({ npi: '1111111112', careTeam, lines: [1, 2, 3, 4].map((n) => ({ code: '45380', date: DAY, careTeam: n })) }));
    expect(unknown.code).toBe(3);
    expect(unknown.body).toMatchObject({ error: 'no_active_contract', provider_npi: '1111111112' });
    // The surgeon's own claim and the facility's, on another member's day, both pay.
    const facility = await submit(clock, own({ npi: '1234567893', patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] }));
    const surgeon = await submit(clock, own({ npi: '1045782368', patient: 'MBR-1001', lines: [{ code: '45380', date: DAY }] }));
    expect([facility.body.adjudication.allowed_amount, surgeon.body.adjudication.allowed_amount]).toEqual([1650, 510]);
  });

  it('an anesthesia claim for a member and day whose anesthesia the facility’s rate includes is bundled', async () => {
    const at = '2026-08-01T10:00:00Z';
    const knee = await submit(at, own({ npi: '1450827369', lines: [{ code: '27447', date: '2026-07-01' }], preauthorization: 'PA-22' }));
    expect(knee.body.adjudication.allowed_amount).toBe(9500);
    const anesthesia = await submit(at, own({ npi: '1196382455', lines: [{ code: '00811', date: '2026-07-01' }] }));
    expect(anesthesia.body).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
    // Anesthesia first (another member): the including line is allowed its price less what the anesthesia was paid.
    const first = await submit(at, own({ npi: '1196382455', patient: 'MBR-1001', lines: [{ code: '00811', date: '2026-07-02' }] }));
    expect(first.body.adjudication.allowed_amount).toBe(765);
    const after = await submit(at, own({ npi: '1450827369', patient: 'MBR-1001', lines: [{ code: '27447', date: '2026-07-02' }], preauthorization: 'PA-23' }));
    expect(after.body).toMatchObject({ disposition: 'APPROVED', adjudication: { allowed_amount: 8735 } });
  });

  it('a case rate billed with quantity 3 is allowed once', async () => {
    const r = await submit(clock, own({ npi: '1045782368', lines: [{ code: '45378', date: DAY, charge: '1800.00', quantity: 3 }] }));
    expect(r.body.adjudication.allowed_amount).toBe(425);
  });

  it('a 0.00 line does not make the real claim for the service a duplicate', async () => {
    const zero = await submit(clock, own({ npi: '1045782368', lines: [{ code: '45378', date: DAY, charge: '0.00' }] }));
    expect(zero.body).toMatchObject({ disposition: 'APPROVED', adjudication: { allowed_amount: 0 } });
    const real = await submit(clock, own({ npi: '1045782368', lines: [{ code: '45378', date: DAY }] }));
    expect(real.body).toMatchObject({ disposition: 'APPROVED', adjudication: { allowed_amount: 425 } });
  });
});
