// Money in time (docs/money-rules.md "Money rules, line by line" and "The engine clock"): rates are
// in force over a period and each line is priced by the rate in force on its own service date; a
// database upgraded from the first release keeps each line's deductible in its own plan year; the
// engine never records an event before one it has recorded.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { Engine } from '../../src/engine/engine.js';
import { sspUuid } from '../../src/engine/store/catalog-seed.js';
import { InvalidInput } from '../../src/engine/errors.js';
import { call, useEngineHome } from '../helpers/engine.js';

type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);
const B = '/api/v1/computable-contracts/builder';
const FULL = '/tpa-api/v1/contract-lookup/full/';
const SURGEON = { npi: '1045782368', group_id: 'GRP-1001' };
const RENEWED = 'ctr_8d21b5e09f4c7a13';

/** A professional claim of the surgeon for one member, its lines on the dates given (the first is the claim's). */
function surgeonClaim(patient: string, lines: { code: string; date: string }[]): Body {
  const claim = claimTemplate({ type: 'professional', patient, cpt: lines.map((l) => l.code), serviceDate: lines[0]!.date }) as Body;
  const last = lines
    .map((l) => l.date)
    .sort()
    .at(-1)!;
  claim.item.forEach((item: Body, i: number) => (item.servicedDate = lines[i]!.date));
  claim.billablePeriod = { start: lines.map((l) => l.date).sort()[0], end: last };
  claim.created = last;
  return claim;
}

/** Submits a claim (the engine adjudicates at once) and answers its response. */
function adjudicated(engine: Engine, claim: Body): { status: number; body: Body } {
  const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim);
  if (ack.status !== 201) return { status: ack.status, body: ack.body as Body };
  const r = call(engine, 'GET', `/tpa-api/v1/claims/${(ack.body as Body).submission_id}/response/`);
  return { status: r.status, body: r.body as Body };
}

function detail(engine: Engine, claim: Body): Body {
  const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim).body as Body;
  return call(engine, 'GET', `/tpa-api/v1/ledger/entries/${ack.external_claim_id}/`).body as Body;
}

/** The renewal of the surgeon's case rates (BLD-1002): colonoscopy at 1,312.50, finalized with `body`. */
function renew(engine: Engine, body: Body = {}): { status: number; body: Body } {
  expect(call(engine, 'POST', `${B}/BLD-1002/rate-schedule/init/`, {}).status).toBe(200);
  const add = call(engine, 'PUT', `${B}/BLD-1002/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'GI-0101'), rate_type: 'CASE_RATE', rate_value: 1312.5 });
  expect(add.status).toBe(200);
  const r = call(engine, 'POST', `${B}/BLD-1002/finalize`, body);
  return { status: r.status, body: r.body as Body };
}

describe('rates in force on a date', () => {
  it("a renewal finalized today takes effect tomorrow: today's and earlier services keep the old rate, later ones, and only its codes, get the new", () => {
    const engine = home.at('2026-04-10T10:00:00Z', '0');
    const before = adjudicated(engine, surgeonClaim('MBR-1003', [{ code: '45378', date: '2026-03-16' }]));
    expect(before.body.adjudication.allowed_amount).toBe(425);
    const todayBefore = adjudicated(engine, surgeonClaim('MBR-1002', [{ code: '45378', date: '2026-04-10' }]));
    expect(todayBefore.body.adjudication.allowed_amount).toBe(425);

    const done = renew(engine);
    expect(done).toMatchObject({ status: 200, body: { status: 'FINALIZED', contract_id: RENEWED, effective_date: '2026-04-11' } });
    // The same March service claimed after the renewal: still 425.00, the rate in force on its date.
    const after = adjudicated(engine, surgeonClaim('MBR-1004', [{ code: '45378', date: '2026-03-16' }]));
    expect(after.body.adjudication.allowed_amount).toBe(425);
    // A service of the finalize day claimed after it: the day's one rate, as the one claimed before.
    const todayAfter = adjudicated(engine, surgeonClaim('MBR-1001', [{ code: '45378', date: '2026-04-10' }]));
    expect(todayAfter.body.adjudication.allowed_amount).toBe(425);
    const tomorrow = home.at('2026-04-11T10:00:00Z', '0');
    const renewed = adjudicated(tomorrow, surgeonClaim('MBR-1002', [{ code: '45378', date: '2026-04-11' }]));
    expect(renewed.body.adjudication.allowed_amount).toBe(1312.5);
    // The schedule is the whole rate set from its date: the upper endoscopy it does not rate stops the day before.
    expect(adjudicated(tomorrow, surgeonClaim('MBR-1003', [{ code: '43235', date: '2026-04-10' }])).body.adjudication.allowed_amount).toBe(380);
    expect(adjudicated(tomorrow, surgeonClaim('MBR-1004', [{ code: '43235', date: '2026-04-11' }]))).toMatchObject({
      status: 404,
      body: { error: 'no_active_contract' },
    });

    const rates = tomorrow.db
      .prepare(
        "SELECT cpt_code, effective_from, effective_to, negotiated_rate_cents FROM contract_rates WHERE contract_id = ? AND cpt_code IN ('45378', '43235') ORDER BY cpt_code, effective_from",
      )
      .all(RENEWED);
    expect(rates).toEqual([
      { cpt_code: '43235', effective_from: '2025-01-01', effective_to: '2026-04-10', negotiated_rate_cents: 38000 },
      { cpt_code: '45378', effective_from: '2025-01-01', effective_to: '2026-04-10', negotiated_rate_cents: 42500 },
      { cpt_code: '45378', effective_from: '2026-04-11', effective_to: null, negotiated_rate_cents: 131250 },
    ]);
    expect(tomorrow.db.prepare('SELECT cpt_code, effective_date FROM contract_rate_records WHERE contract_id = ?').all(RENEWED)).toEqual([
      { cpt_code: '45378', effective_date: '2026-04-11' },
    ]);
  });

  it('two identical colonoscopies of the finalize day, one claimed before the finalize and one after, are priced by one rate', () => {
    const engine = home.at('2026-04-10T10:00:00Z', '0');
    const first = adjudicated(engine, surgeonClaim('MBR-1003', [{ code: '45378', date: '2026-04-10' }]));
    // A finalize from today is retroactive (today's services may be claimed already): refused unless asked for.
    expect(renew(engine, { effective_date: '2026-04-10' })).toMatchObject({
      status: 400,
      body: { errors: [{ field: 'effective_date', message: expect.stringMatching(/is today.*2026-04-11.*allow_retroactive/) }] },
    });
    expect(call(engine, 'POST', `${B}/BLD-1002/finalize`, {}).body).toMatchObject({ status: 'FINALIZED', effective_date: '2026-04-11' });
    const second = adjudicated(engine, surgeonClaim('MBR-1004', [{ code: '45378', date: '2026-04-10' }]));
    expect([first.body.adjudication.allowed_amount, second.body.adjudication.allowed_amount]).toEqual([425, 425]);
  });

  it('a claim straddling the change prices each line at the rate of its own date', () => {
    expect(renew(home.at('2026-04-10T10:00:00Z', '0')).status).toBe(200);
    const engine = home.at('2026-04-11T10:00:00Z', '0');
    const d = detail(
      engine,
      surgeonClaim('MBR-1003', [
        { code: '45378', date: '2026-04-10' },
        { code: '45378', date: '2026-04-11' },
      ]),
    );
    expect((d.service_lines as Body[]).map((l) => l.allowed_amount)).toEqual([425, 1312.5]);
  });

  it('the full lookup answers the rate in force on a date, today by default', () => {
    const engine = home.at('2026-04-10T10:00:00Z', '0');
    expect(renew(engine, { effective_date: '2026-05-01' }).body.effective_date).toBe('2026-05-01');
    const lookup = (extra: Body = {}) => call(engine, 'POST', FULL, { ...SURGEON, contract_id: RENEWED, cpt_code: '45378', ...extra });
    expect(lookup().body).toMatchObject({ negotiated_rate: 425, service_date: '2026-04-10', rate_effective_to: '2026-04-30' });
    expect(lookup({ service_date: '2026-05-01' }).body).toMatchObject({ negotiated_rate: 1312.5, rate_effective_from: '2026-05-01', rate_effective_to: null });
    expect(lookup({ service_date: '2024-12-31' }).status).toBe(404);
    expect(call(engine, 'POST', FULL, { ...SURGEON, contract_id: RENEWED, cpt_code: '43235', service_date: '2026-05-01' })).toMatchObject({
      status: 404,
      body: { error: 'code_not_covered' },
    });
    expect(lookup({ service_date: '2026-02-30' })).toMatchObject({ status: 400, body: { errors: [{ field: 'service_date' }] } });
  });

  it('an effective date before today is refused unless the request says so; one outside the contract never', () => {
    const engine = home.at('2026-04-10T10:00:00Z', '0');
    const refused = renew(engine, { effective_date: '2026-03-01' });
    expect(refused).toMatchObject({
      status: 400,
      body: { errors: [{ field: 'effective_date', message: expect.stringMatching(/before today.*allow_retroactive/) }] },
    });
    const outside = call(engine, 'POST', `${B}/BLD-1002/finalize`, { effective_date: '2024-12-31', allow_retroactive: true });
    expect(outside).toMatchObject({ status: 400, body: { errors: [{ field: 'effective_date', message: expect.stringMatching(/outside the contract/) }] } });
    expect(call(engine, 'POST', `${B}/BLD-1002/finalize`, { allow_retroactive: 'yes' }).status).toBe(400);
    // Nothing was written: the schedule can still be finalized, retroactively when asked.
    const retro = call(engine, 'POST', `${B}/BLD-1002/finalize`, { effective_date: '2026-03-01', allow_retroactive: true });
    expect(retro).toMatchObject({ status: 200, body: { effective_date: '2026-03-01' } });
    expect(adjudicated(engine, surgeonClaim('MBR-1003', [{ code: '45378', date: '2026-03-16' }])).body.adjudication.allowed_amount).toBe(1312.5);
    expect(adjudicated(engine, surgeonClaim('MBR-1004', [{ code: '45378', date: '2026-02-27' }])).body.adjudication.allowed_amount).toBe(425);
  });

  it("the builder's direct contract does not pay a service rendered before its schedule was finalized", () => {
    const engine = home.at('2026-03-02T10:00:00Z', '0');
    call(engine, 'POST', `${B}/BLD-1001/rate-schedule/init/`, {});
    call(engine, 'PUT', `${B}/BLD-1001/rate-schedule/add-ssp/`, { ssp_id: sspUuid('v1.1', 'HD-0401'), rate_type: 'CASE_RATE', rate_value: 2100 });
    expect(call(engine, 'POST', `${B}/BLD-1001/finalize`).body).toMatchObject({ effective_date: '2026-03-03' });
    const claim = (date: string) => {
      const c = claimTemplate({ type: 'institutional', npi: '1902847361', cpt: ['64721'], serviceDate: date }) as Body;
      return c;
    };
    expect(adjudicated(engine, claim('2025-06-02'))).toMatchObject({ status: 404, body: { error: 'no_active_contract' } });
    // Nor one of the finalize day: the rates take effect the next day.
    expect(adjudicated(engine, claim('2026-03-02'))).toMatchObject({ status: 404, body: { error: 'no_active_contract' } });
    // The template's surgeon line names Dr. Morgan of GRP-1001, not of the builder's GRP-4004: she
    // cannot be paid on this claim (CARC-B7), so only the facility's new case rate is allowed.
    expect(adjudicated(home.at('2026-03-03T10:00:00Z', '0'), claim('2026-03-03')).body.adjudication.allowed_amount).toBe(2100);
  });
});

describe('plan years on upgrade', () => {
  it('a first-release database opened in January keeps what claims met last year in last year', () => {
    copyFileSync(join(__dirname, '../fixtures/upgrade/first-release.sqlite'), join(home.dir, 'local.sqlite'));
    const engine = home.at('2027-01-15T10:00:00Z', '0');
    // The first release's claims of August 2026 met MBR-1001's whole deductible and 470.00 of MBR-1002's.
    expect(engine.db.prepare('SELECT member_id, plan_year, met_cents FROM member_deductibles ORDER BY member_id').all()).toEqual([
      { member_id: 'MBR-1001', plan_year: '2026-01-01', met_cents: 50000 },
      { member_id: 'MBR-1002', plan_year: '2026-01-01', met_cents: 47000 },
    ]);
    const members = (engine.fixtures() as { members: Body[] }).members;
    expect(members.find((m) => m.member_id === 'MBR-1001')).toMatchObject({ deductible_met: 0 });
    // 2027 owes its own deductible; late 2026 owes none of it again.
    const january = adjudicated(engine, surgeonClaim('MBR-1001', [{ code: '45378', date: '2027-01-14' }])).body;
    expect(january.adjudication.deductible_applied).toBe(400);
    const december = adjudicated(engine, surgeonClaim('MBR-1001', [{ code: '43235', date: '2026-12-20' }])).body;
    expect(december.adjudication.deductible_applied).toBe(0);
    // MBR-1002: 1,500.00 met before any claim, 470.00 by claims: 30.00 of 2026's left.
    const silver = adjudicated(engine, surgeonClaim('MBR-1002', [{ code: '43235', date: '2026-12-21' }])).body;
    expect(silver.adjudication.deductible_applied).toBe(30);
  });
});

describe('clock moves', () => {
  const open = () => home.track(Engine.open({ dataDir: home.dir, env: { TPA_ADJUDICATION_DELAY: '0' } }));

  it('the stored clock set or advanced to before the latest time recorded is refused, naming that time', () => {
    const engine = open();
    engine.setClock('2026-03-05T10:00:00Z');
    expect(adjudicated(engine, surgeonClaim('MBR-1003', [{ code: '45378', date: '2026-03-05' }])).status).toBe(200);
    expect(() => engine.setClock('2026-03-01T00:00:00Z')).toThrow(InvalidInput);
    expect(() => engine.setClock('2026-03-05T09:59:59Z')).toThrow(
      'the engine has recorded events up to 2026-03-05T10:00:00Z; the clock cannot go back before it (tpa local clock real to use real time)',
    );
    expect(engine.clock()).toMatchObject({ now: '2026-03-05T10:00:00Z', source: 'frozen', recorded_until: '2026-03-05T10:00:00Z' });
    // Another process's clock recorded a later time: advancing this one to before it is refused too.
    const later = home.at('2026-03-06T10:00:00Z', '0');
    expect(adjudicated(later, surgeonClaim('MBR-1004', [{ code: '45378', date: '2026-03-06' }])).status).toBe(200);
    expect(() => engine.advanceClock(3_600_000)).toThrow(/recorded events up to 2026-03-06T10:00:00Z/);
    expect(engine.advanceClock(86_400_000)).toMatchObject({ now: '2026-03-06T10:00:00Z', held: false });
  });

  it('a move records what the new time makes due: forward past an arrival, then back before it, is refused (found by the reference model)', () => {
    const engine = open();
    engine.setClock('2026-03-05T10:00:00Z');
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', surgeonClaim('MBR-1003', [{ code: '45378', date: '2026-03-05' }])).body as Body;
    const amount = (call(engine, 'GET', `/tpa-api/v1/ledger/entries/${ack.external_claim_id}/`).body as Body).financial_summary.payer_responsibility.total;
    const funded = call(engine, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: ack.external_claim_id, amount, authorization_code: 'AUTH-1' });
    expect(funded.status).toBe(200);
    const arrival = (funded.body as Body).estimated_arrival as string;
    // Nothing is read between the two moves: the arrival the first one reached is recorded anyway.
    engine.advanceClock(7 * 86_400_000);
    expect(() => engine.setClock('2026-03-05T12:00:00Z')).toThrow(/recorded events up to/);
    expect(engine.clock().recorded_until! >= arrival.replace(/\.\d+Z$/, 'Z')).toBe(true);
    expect((call(engine, 'GET', `/tpa-api/v1/settlement/${ack.external_claim_id}/`).body as Body).status).toBe('COMPLETED');
  });

  it('a clock earlier than what is recorded is held: a funding never precedes its claim and audit times never run backwards', () => {
    const thursday = home.at('2026-03-05T10:00:00Z', '0');
    const ack = call(thursday, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' })).body as Body;
    // TPA_CLOCK of another process says Monday: its time is held at Thursday's.
    const monday = home.at('2026-03-02T10:00:00Z', '0');
    expect(monday.clock()).toMatchObject({ now: '2026-03-05T10:00:00Z', clock: '2026-03-02T10:00:00Z', held: true });
    const funded = call(monday, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: ack.external_claim_id, amount: 2460, authorization_code: 'AUTH-1' });
    expect(funded.status).toBe(200);
    const settlement = call(monday, 'GET', `/tpa-api/v1/settlement/${ack.external_claim_id}/`).body as Body;
    expect(settlement.initiated_at).toBe('2026-03-05T10:00:00Z');
    const second = call(monday, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'professional', patient: 'MBR-1004', serviceDate: '2026-03-02' }))
      .body as Body;
    const progression = (call(monday, 'GET', `/tpa-api/v1/ledger/entries/${second.external_claim_id}/`).body as Body).entries.map((e: Body) => e.timestamp);
    expect(progression[0]).toBe('2026-03-05T10:00:00Z');
    const times = [...monday.auditList({})].map((r) => r.at);
    expect(times).toEqual([...times].sort());
    expect(times.length).toBeGreaterThanOrEqual(4);
  });
});
