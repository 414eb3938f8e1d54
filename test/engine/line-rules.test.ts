// Paid when it must not be: every rule applies to each line on its own service date, through the
// real engine on a real SQLite file. Each test failed on the engine before these rules.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { databaseFile } from '../../src/engine/engine.js';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { type Adjudicated, adjudicateOn, call, useEngineHome } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

const home = useEngineHome(beforeEach, afterEach);

type Body = Record<string, any>;

/** Submits a claim on an engine whose clock is `clock` (no adjudication delay) and reads the result. */
function adjudicate(clock: string, spec: ClaimSpec | Body): Adjudicated {
  return adjudicateOn(home.at(clock, '0'), 'lines' in spec ? claimOf(spec as ClaimSpec) : spec);
}

const lineStatuses = (a: Adjudicated) => (a.detail.service_lines as Body[]).map((l) => l.status);
const lineAllowed = (a: Adjudicated) => (a.detail.service_lines as Body[]).map((l) => l.allowed_amount);

describe('coverage and contract dates apply to each line', () => {
  it('a line after the member coverage ended is denied CARC-27 while the covered line is paid', () => {
    const a = adjudicate('2026-08-01T10:00:00Z', {
      patient: 'MBR-1005',
      lines: [
        { code: '45378', date: '2026-06-30' },
        { code: '43235', date: '2026-07-20' },
      ],
    });
    expect(a.response.disposition).toBe('PARTIAL_APPROVAL');
    expect(lineStatuses(a)).toEqual(['ALLOWED', 'DENIED']);
    expect(a.detail.service_lines[1]).toMatchObject({ allowed_amount: 0, benefit_amount: 0, denial_code: 'CARC-27' });
    expect(a.response.adjudication.allowed_amount).toBe(425);
  });

  it('a line after the contract terminated is not paid at the expired rate; that line alone is 404', () => {
    const both = adjudicate('2026-03-01T10:00:00Z', {
      npi: '1673904821',
      lines: [
        { code: '70553', date: '2025-12-31' },
        { code: '70553', date: '2026-02-20' },
      ],
    });
    expect(both.response.disposition).toBe('PARTIAL_APPROVAL');
    expect(lineAllowed(both)).toEqual([900, 0]);
    expect(both.detail.service_lines[1]).toMatchObject({ status: 'NOT_COVERED', denial_code: 'CARC-96' });
    const alone = adjudicate('2026-03-01T10:00:00Z', { npi: '1673904821', lines: [{ code: '70553', date: '2026-02-20' }] });
    expect(alone.status).toBe(404);
    expect(alone.response.error).toBe('no_active_contract');
  });
});

describe('services not yet rendered', () => {
  it('a line billed as a period reaching past the coverage is refused, not paid on its first day', () => {
    // MBR-1005's coverage ended 2026-06-30: a period from that day to a later one was priced and paid
    // on its start alone. The same claim as a one-day period is checked on that day.
    const claim = claimOf({ patient: 'MBR-1005', lines: [{ code: '45378', date: '2026-06-30' }], created: '2026-07-25' }) as Body;
    delete claim.item[0].servicedDate;
    claim.item[0].servicedPeriod = { start: '2026-06-30', end: '2026-07-20' };
    const refused = adjudicate('2026-08-01T10:00:00Z', claim);
    expect(refused.status).toBe(400);
    expect((refused.response.errors as Body[]).map((e) => e.field)).toEqual(['item[0].servicedPeriod.end']);
    claim.item[0].servicedPeriod = { start: '2026-07-20', end: '2026-07-20' };
    const oneDay = adjudicate('2026-08-01T10:00:00Z', claim);
    expect(lineStatuses(oneDay)).toEqual(['DENIED']);
    expect(oneDay.detail.service_lines[0]).toMatchObject({ denial_code: 'CARC-27' });
  });

  it('refuses a service date after today on the engine clock, naming the line', () => {
    const a = adjudicate('2026-03-02T10:00:00Z', { lines: [{ code: '45378', date: '2030-01-01' }], created: '2026-03-02' });
    expect(a.status).toBe(400);
    expect((a.response.errors as Body[]).map((e) => e.field)).toEqual(['item[0].servicedDate']);
  });

  it('refuses a service date after the claim was created, and a created date in the future', () => {
    const after = adjudicate('2026-03-02T10:00:00Z', { lines: [{ code: '45378', date: '2026-03-02' }], created: '2026-03-01' });
    expect(after.status).toBe(400);
    expect((after.response.errors as Body[]).map((e) => e.field)).toEqual(['item[0].servicedDate']);
    const future = adjudicate('2026-03-02T10:00:00Z', { lines: [{ code: '45378', date: '2026-03-01' }], created: '2026-03-05' });
    expect((future.response.errors as Body[]).map((e) => e.field)).toEqual(['created']);
  });
});

describe('a line already paid is a duplicate line', () => {
  const at = '2026-03-02T10:00:00Z';
  it('the same code twice on one day pays once, on one claim or across claims', () => {
    const twice = adjudicate(at, {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '45378', date: '2026-03-02' },
      ],
    });
    expect(twice.response.disposition).toBe('PARTIAL_APPROVAL');
    expect(lineStatuses(twice)).toEqual(['ALLOWED', 'DENIED']);
    expect(twice.response.adjudication.allowed_amount).toBe(425);
    const again = adjudicate(at, {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '45378', date: '2026-03-02' },
      ],
    });
    expect(again.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    expect(again.response.denial_reason).toContain(twice.encounterId);
  });

  it('the same codes in another order are the same services', () => {
    adjudicate(at, {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '43235', date: '2026-03-02' },
      ],
    });
    const reordered = adjudicate(at, {
      lines: [
        { code: '43235', date: '2026-03-02' },
        { code: '45378', date: '2026-03-02' },
      ],
    });
    expect(reordered.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it('a paid line among new ones is denied and the rest adjudicated', () => {
    adjudicate(at, { lines: [{ code: '45378', date: '2026-03-02' }] });
    const mixed = adjudicate(at, {
      lines: [
        { code: '45378', date: '2026-03-02' },
        { code: '43235', date: '2026-03-02' },
      ],
    });
    expect(mixed.response.disposition).toBe('PARTIAL_APPROVAL');
    expect(lineStatuses(mixed)).toEqual(['DENIED', 'ALLOWED']);
    expect(mixed.response.adjudication.allowed_amount).toBe(380);
  });

  it('the same code for two providers on one day is two services (facility fee and professional fee)', () => {
    const a = adjudicate(at, {
      npi: '1234567893',
      careTeam: [{ npi: '1045782368', role: 'surgeon' }],
      lines: [
        { code: '45380', date: '2026-03-02', careTeam: 1 },
        { code: '45380', date: '2026-03-02', careTeam: 1 },
      ],
    });
    expect(lineStatuses(a)).toEqual(['ALLOWED', 'DENIED']);
    // The institutional template bills the first code twice: the facility fee and the surgeon's fee.
    const institutional = adjudicate(at, claimTemplate({ type: 'institutional', serviceDate: '2026-03-01' }));
    expect(institutional.response.disposition).toBe('APPROVED');
  });
});

describe('a bundle is paid once per episode', () => {
  const at = '2026-08-01T10:00:00Z';
  const haddad = '1582736496';
  const lakeside = '1450827369';

  it('one procedure of a DOUBLE_HEADER is allowed its share, and the two together never more than the bundle rate', () => {
    const first = adjudicate(at, { npi: haddad, lines: [{ code: '29880', date: '2026-07-01' }] });
    expect(first.response.adjudication.allowed_amount).toBe(1950);
    const second = adjudicate(at, { npi: haddad, lines: [{ code: '29881', date: '2026-07-01' }], preauthorization: 'PA-1' });
    expect(second.response.adjudication.allowed_amount).toBe(1950);
    const third = adjudicate(at, { npi: haddad, lines: [{ code: '29880', date: '2026-07-01' }] });
    expect(third.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    const both = adjudicate(at, {
      npi: haddad,
      lines: [
        { code: '29880', date: '2026-07-02' },
        { code: '29881', date: '2026-07-02' },
      ],
      preauthorization: 'PA-2',
    });
    expect(both.response.adjudication.allowed_amount).toBe(3900);
  });

  it('parts of a PACKAGE billed later in the episode are included in the package rate', () => {
    const pkg = adjudicate(at, {
      npi: lakeside,
      lines: [
        { code: '27447', date: '2026-06-01' },
        // Each part charged at least its share: the complete package is allowed the whole rate.
        { code: '01402', date: '2026-06-01', charge: '9500.00' },
        { code: '97161', date: '2026-06-01', charge: '9500.00' },
      ],
      preauthorization: 'PA-3',
    });
    expect(pkg.response.adjudication.allowed_amount).toBe(28500);
    const sameDay = adjudicate(at, { npi: lakeside, lines: [{ code: '97161', date: '2026-06-01' }] });
    expect(sameDay.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    const later = adjudicate(at, { npi: lakeside, lines: [{ code: '97161', date: '2026-06-11' }] });
    expect(later.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
    expect(later.detail.service_lines[0]).toMatchObject({ status: 'BUNDLED', allowed_amount: null });
    // Before the package's first day, within the episode span: the same episode.
    const before = adjudicate(at, { npi: lakeside, lines: [{ code: '97161', date: '2026-05-20' }] });
    expect(before.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-97' });
  });

  it('a new episode starts after the span, and a part billed alone gets at most its share', () => {
    adjudicate('2026-12-01T10:00:00Z', { npi: lakeside, lines: [{ code: '97161', date: '2026-06-01' }] });
    const next = adjudicate('2026-12-01T10:00:00Z', { npi: lakeside, lines: [{ code: '97161', date: '2026-09-15' }] });
    expect(next.response.disposition).toBe('APPROVED');
    expect(next.response.adjudication.allowed_amount).toBe(300);
    const knee = adjudicate('2026-12-01T10:00:00Z', { npi: lakeside, lines: [{ code: '27447', date: '2026-09-16' }], preauthorization: 'PA-4' });
    expect(knee.response.adjudication.allowed_amount).toBe(9500);
  });
});

describe('payouts go to known providers, in their own roles', () => {
  const at = '2026-03-02T10:00:00Z';
  it('a care-team NPI the plan does not know is refused naming the care-team entry', () => {
    const a = adjudicate(at, {
      npi: '1234567893',
      careTeam: [
        { npi: '1045782368', role: 'surgeon' },
        { npi: '1111111112', role: 'anesthesiologist' },
      ],
      lines: [
        { code: '45378', date: '2026-03-02', careTeam: 1 },
        { code: '00811', date: '2026-03-02', careTeam: 2 },
      ],
    });
    expect(a.status).toBe(400);
    expect(a.response.errors).toEqual([{ field: 'careTeam[1].provider', message: expect.stringContaining('1111111112') }]);
  });

  it('a provider without banking details is paid through the billing provider; roles are the payees’ own', () => {
    const a = adjudicate(at, {
      npi: '1234567893',
      careTeam: [
        { npi: '1859362703', role: 'surgeon' },
        { npi: '1234567893', role: 'anesthesiologist' },
      ],
      lines: [
        { code: '45378', date: '2026-03-02', careTeam: 1 },
        { code: '00811', date: '2026-03-02', careTeam: 2 },
      ],
    });
    expect(a.status).toBe(201);
    const payees = (a.detail.service_lines as Body[]).map((l) => [l.provider_npi, l.provider_role]);
    expect(payees).toEqual([
      ['1234567893', 'FACILITY'],
      ['1234567893', 'FACILITY'],
    ]);
    const engine = home.at('2026-03-02T10:01:00Z', '0');
    const funded = call(engine, 'POST', '/tpa-api/v1/funding/approve/', {
      encounter_id: a.encounterId,
      amount: a.response.adjudication.benefit_amount,
      authorization_code: 'AUTH-20260302-ACME-0001',
    });
    expect(funded.status).toBe(200);
    const settlement = call(engine, 'GET', `/tpa-api/v1/settlement/${a.encounterId}/`).body as Body;
    expect((settlement.payouts as Body[]).map((p) => [p.provider_npi, p.provider_role])).toEqual([['1234567893', 'FACILITY']]);
  });
});

describe('a line cannot be paid twice to one party by naming another', () => {
  it('a service performed by a provider without banking details, paid to the billing surgeon, is a duplicate of the surgeon’s own', () => {
    const at = '2026-03-02T10:00:00Z';
    adjudicate(at, { lines: [{ code: '45378', date: '2026-03-02' }] });
    const renamed = adjudicate(at, { careTeam: [{ npi: '1859362703', role: 'surgeon' }], lines: [{ code: '45378', date: '2026-03-02', careTeam: 1 }] });
    expect(renamed.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });
});

describe('a database from before line-level rules keeps its meaning (migration 7)', () => {
  it('paid lines and the deductible met are carried over, so old claims are still duplicates', () => {
    const at = '2026-03-02T10:00:00Z';
    const first = adjudicate(at, { patient: 'MBR-1001', lines: [{ code: '45378', date: '2026-03-02' }] });
    expect(first.response.adjudication.deductible_applied).toBe(400);
    // Back to schema 6, as an older tpa left it: no paid lines, the deductible met on the member
    // (and none of migration 8's ledger counts and listing index).
    const db = new Database(databaseFile(home.dir));
    db.exec(`DROP TRIGGER ledger_count_insert; DROP TRIGGER ledger_count_provider; DROP TRIGGER ledger_count_status;
      DROP TABLE ledger_days; DROP TABLE ledger_months; DROP INDEX encounters_listing;
      CREATE INDEX encounters_by_status ON encounters (status, service_date DESC, submitted_at DESC, id);
      CREATE INDEX encounters_by_order ON encounters (service_date DESC, submitted_at DESC, id);
      DROP TABLE paid_lines; DROP TABLE member_deductibles; ALTER TABLE plans DROP COLUMN plan_year_start;
      CREATE INDEX encounters_by_fingerprint ON encounters (fingerprint);
      ALTER TABLE encounters DROP COLUMN aeob_missing; DROP TABLE audit_log;
      DELETE FROM settings WHERE key IN ('contracts_generation', 'recorded_until'); DROP TRIGGER recorded_until_revealed;
      ALTER TABLE contract_rate_records DROP COLUMN effective_date;
      DROP TRIGGER contracts_generation_insert; DROP TRIGGER contracts_generation_update; DROP TRIGGER contracts_generation_delete;
      DROP TRIGGER contract_rates_generation_insert; DROP TRIGGER contract_rates_generation_update; DROP TRIGGER contract_rates_generation_delete;
      DROP INDEX api_keys_by_lineage; ALTER TABLE api_keys DROP COLUMN parent_id; ALTER TABLE api_keys DROP COLUMN revoked_at; DROP TABLE oauth_clients;
      ALTER TABLE oauth_tokens DROP COLUMN revoked_at;
      DROP INDEX members_by_subscriber; ALTER TABLE members DROP COLUMN subscriber_id; DROP TABLE payer_profiles;
      UPDATE members SET deductible_met_cents = 40000 WHERE member_id = 'MBR-1001'; PRAGMA user_version = 6;`);
    db.close();
    const again = adjudicate(at, { patient: 'MBR-1001', lines: [{ code: '45378', date: '2026-03-02' }] });
    expect(again.response).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
    const next = adjudicate(at, { patient: 'MBR-1001', lines: [{ code: '43235', date: '2026-03-02' }] });
    expect(next.response.adjudication.deductible_applied).toBe(100);
  });
});

describe('the deductible resets each plan year', () => {
  it('a January claim starts the new year with nothing met', () => {
    const december = adjudicate('2026-01-15T10:00:00Z', { patient: 'MBR-1001', lines: [{ code: '45378', date: '2025-12-15' }] });
    expect(december.response.adjudication.deductible_applied).toBe(400);
    const january = adjudicate('2026-01-15T10:00:00Z', { patient: 'MBR-1001', lines: [{ code: '45378', date: '2026-01-10' }] });
    expect(january.response.adjudication.deductible_applied).toBe(400);
    expect(january.detail.financial_summary.deductible.deductible_met_prior).toBe(0);
    const laterJanuary = adjudicate('2026-01-15T10:00:00Z', { patient: 'MBR-1001', lines: [{ code: '43235', date: '2026-01-12' }] });
    expect(laterJanuary.response.adjudication.deductible_applied).toBe(100);
    expect(laterJanuary.detail.financial_summary.deductible.deductible_met_prior).toBe(400);
  });

  it('the fixtures’ deductible met is what every plan year starts with, whatever the engine clock', () => {
    for (const date of ['2025-06-02', '2026-03-02']) {
      const a = adjudicate('2026-03-02T10:00:00Z', { patient: 'MBR-1003', lines: [{ code: '45378', date }] });
      expect(a.response.adjudication.deductible_applied).toBe(0);
      expect(a.detail.financial_summary.deductible.deductible_met_prior).toBe(500);
    }
    const fixtures = home.at('2027-05-01T10:00:00Z').fixtures() as { members: { member_id: string; deductible_met: number }[] };
    expect(fixtures.members.find((m) => m.member_id === 'MBR-1002')!.deductible_met).toBe(1500);
  });

  it('a claim straddling the new year applies each line to its own plan year', () => {
    const a = adjudicate('2026-01-15T10:00:00Z', {
      patient: 'MBR-1001',
      lines: [
        { code: '45378', date: '2025-12-31' },
        { code: '43235', date: '2026-01-02' },
      ],
    });
    // Two visits, a copay each: 425 − 25 → 400 of 2025's deductible; 380 − 25 → 355 of 2026's.
    expect((a.detail.service_lines as Body[]).map((l) => l.deductible_applied)).toEqual([400, 355]);
  });
});

describe('line amounts must agree', () => {
  const at = '2026-03-02T10:00:00Z';
  it('quantity × unitPrice that is not the net is refused naming the line', () => {
    const claim = claimOf({ lines: [{ code: '45378', date: '2026-03-02' }] });
    Object.assign(claim.item[0], { quantity: { value: 3 }, unitPrice: { value: 100, currency: 'USD' }, net: { value: 1000, currency: 'USD' } });
    claim.total = { value: 1000, currency: 'USD' };
    const a = adjudicate(at, claim);
    expect(a.status).toBe(400);
    expect((a.response.errors as Body[]).map((e) => e.field)).toEqual(['item[0].net.value']);
  });

  it('a claim total that differs from its lines, or is not in USD, is refused', () => {
    const claim = claimOf({ lines: [{ code: '45378', date: '2026-03-02', charge: '900.00' }] });
    claim.total = { value: 1, currency: 'USD' };
    expect((adjudicate(at, claim).response.errors as Body[]).map((e) => e.field)).toEqual(['total.value']);
    claim.total = { value: 900, currency: 'EUR' };
    expect((adjudicate(at, claim).response.errors as Body[]).map((e) => e.field)).toEqual(['total.currency']);
  });

  it('item.factor is part of the charge', () => {
    const claim = claimOf({ lines: [{ code: '45378', date: '2026-03-02', charge: '300.00' }] });
    claim.item[0].factor = 0.5;
    delete claim.item[0].net;
    claim.total = { value: 150, currency: 'USD' };
    expect(adjudicate(at, claim).response.adjudication.total_charges).toBe(150);
  });
});

describe('percentages are taken on totals, cents allocated to lines', () => {
  it('999 lines of 0.53 at 20% coinsurance cost the member the claim-level figure', () => {
    const codes = ['45378', '45380', '43235', '00811', '00731', '88305'];
    // Six lines a day, 167 visits: the first line of each day (30.00) takes that visit's 25.00 copay.
    const lines = Array.from({ length: 999 }, (_, i) => ({ code: codes[i % 6]!, date: dayOf2026(Math.floor(i / 6)), charge: i % 6 === 0 ? '30.00' : '0.53' }));
    // The facility's own lines (each code of the template would otherwise name its care-team provider).
    const careTeam = [{ npi: '1234567893', role: 'facility' }];
    const a = adjudicate('2026-07-01T10:00:00Z', { npi: '1234567893', patient: 'MBR-1003', careTeam, lines });
    const adj = a.response.adjudication as Body;
    // 167 × 30.00 + 832 × 0.53
    expect(adj.allowed_amount).toBe(5450.96);
    expect(adj.copay_applied).toBe(4175);
    // (5,450.96 − 4,175.00) × 20% = 255.192 → 255.19 (line by line: 167 × 1.00 + 832 × 0.11 = 258.52)
    expect(adj.coinsurance_applied).toBe(255.19);
    expect(cents(adj.patient_responsibility)).toBe(417500 + 25519);
    const sum = (key: string) => (a.detail.service_lines as Body[]).reduce((s, l) => s + cents(l[key]), 0);
    expect(sum('coinsurance_applied')).toBe(25519);
    expect(sum('allowed_amount')).toBe(545096);
  });

  it('999 lines of 0.03 at 85% of charges are allowed 85% of the total', () => {
    const lines = Array.from({ length: 999 }, (_, i) => ({ code: i % 2 === 0 ? '00811' : '00731', date: dayOf2026(Math.floor(i / 2) - 320), charge: '0.03' }));
    const a = adjudicate('2026-07-01T10:00:00Z', { npi: '1196382455', patient: 'MBR-1003', lines });
    expect(a.response.adjudication.allowed_amount).toBe(25.47);
  });
});

describe('the raw ClaimResponse shows every part of the member share', () => {
  it('item adjudications carry coinsurance, and allowable = copay + deductible + coinsurance + benefit', () => {
    const a = adjudicate('2026-03-02T10:00:00Z', { patient: 'MBR-1003', lines: [{ code: '00811', date: '2026-03-02' }], npi: '1196382455' });
    const item = (a.response.claim_response.item as Body[])[0]!;
    const amount = (code: string) => cents((item.adjudication as Body[]).find((x) => x.category.coding[0].code === code)!.amount.value);
    expect(amount('coinsurance')).toBeGreaterThan(0);
    expect(amount('allowable')).toBe(amount('copay') + amount('deductible') + amount('coinsurance') + amount('benefit'));
  });
});

function dayOf2026(offset: number): string {
  return new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
}
