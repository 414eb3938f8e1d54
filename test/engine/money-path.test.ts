import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { Engine } from '../../src/engine/engine.js';
import { call, useEngineHome } from '../helpers/engine.js';
import { cents } from '../helpers/values.js';

// Monday 2 March 2026; adjudication takes 3 s.
const MON = '2026-03-02T10:00:00Z';
const MON_LATER = '2026-03-02T10:00:05Z';
const APPROVE = '/tpa-api/v1/funding/approve/';

const home = useEngineHome(beforeEach, afterEach);
const at = (clock: string) => home.at(clock);

function submit(clock: string, options: Partial<Parameters<typeof claimTemplate>[0]> = {}): string {
  const claim = claimTemplate({ type: 'institutional', serviceDate: clock.slice(0, 10), ...options });
  const ack = call(at(clock), 'POST', '/tpa-api/v1/claims/submit/', claim);
  expect(ack.status).toBe(201);
  return (ack.body as { external_claim_id: string }).external_claim_id;
}

const approve = (engine: Engine, encounterId: string, amount: unknown, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call(engine, 'POST', APPROVE, { encounter_id: encounterId, amount, authorization_code: 'AUTH-20260302-ACME-0001', ...extra }, headers);

describe('funding approval', () => {
  it('refuses an encounter that is not adjudicated yet with 400 CLAIM_NOT_ADJUDICATED', () => {
    const id = submit(MON);
    const res = approve(at(MON), id, 2460);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'CLAIM_NOT_ADJUDICATED', encounter_id: id, error: expect.any(String), message: expect.any(String) });
  });

  it('answers 409 with the expected and submitted amounts when the amount differs from the benefit', () => {
    const id = submit(MON);
    const res = approve(at(MON_LATER), id, 2460.01);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'amount_mismatch', expected_amount: 2460, submitted_amount: 2460.01, message: expect.any(String) });
  });

  it('answers 404 for an unknown encounter and 400 errors[] for bad fields', () => {
    expect(approve(at(MON), 'enc_nope', 10)).toMatchObject({ status: 404, body: { encounter_id: 'enc_nope' } });
    const bad = call(at(MON), 'POST', APPROVE, { encounter_id: 'enc_x', amount: 10.005, notes: 'x'.repeat(501) });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['amount', 'authorization_code', 'notes']);
    for (const amount of [-5, 0, '10.00', null]) {
      expect((approve(at(MON), 'enc_x', amount).body as { errors: { field: string }[] }).errors[0]!.field, String(amount)).toBe('amount');
    }
  });

  it('approves once: 200 with the transfer, then 400 duplicate naming the first transfer', () => {
    const id = submit(MON);
    const engine = at(MON_LATER);
    const first = approve(engine, id, 2460, { notes: 'monthly batch' });
    expect(first.status).toBe(200);
    const body = first.body as Record<string, string>;
    expect(body).toMatchObject({ status: 'APPROVED', estimated_arrival: '2026-03-03T10:00:05Z' });
    expect(body.processor_transfer_id).toMatch(/^tr_/);
    expect(body.settlement_record_id).toMatch(/^stl_/);
    const again = approve(engine, id, 2460);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ previous_processor_transfer_id: body.processor_transfer_id, encounter_id: id });
  });

  it('replays the first approval for the same Idempotency-Key and body', () => {
    const id = submit(MON);
    const engine = at(MON_LATER);
    const first = approve(engine, id, 2460, {}, { 'idempotency-key': 'fund-1' });
    const replay = approve(engine, id, 2460, {}, { 'idempotency-key': 'fund-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses a denied claim and a pended one', () => {
    submit(MON);
    const duplicate = submit(MON);
    expect(approve(at(MON_LATER), duplicate, 2460).body).toMatchObject({ reason: 'CLAIM_DENIED' });
    const pended = submit(MON, { type: 'professional', npi: '1582736496', cpt: ['29881'] });
    expect(approve(at(MON_LATER), pended, 1).body).toMatchObject({ reason: 'CLAIM_NOT_ADJUDICATED' });
  });

  it('refuses to fund a claim whose benefit is 0.00: nothing to fund', () => {
    const id = submit(MON, { type: 'professional', patient: 'MBR-1001' }); // all of it goes to the deductible
    const res = approve(at(MON_LATER), id, 1);
    expect(res).toMatchObject({ status: 400, body: { reason: 'NOTHING_TO_FUND' } });
    expect(call(at(MON_LATER), 'GET', `/tpa-api/v1/settlement/${id}/`).body).toMatchObject({
      status: 'PENDING',
      message: expect.stringMatching(/nothing to fund/),
    });
  });

  it('counts T+1 in business days: a Friday approval arrives on Monday', () => {
    const id = submit('2026-03-06T15:00:00Z');
    expect(approve(at('2026-03-06T15:00:05Z'), id, 2460).body).toMatchObject({ estimated_arrival: '2026-03-09T15:00:05Z' });
  });
});

describe('settlement', () => {
  it('answers 202 PENDING before funding, saying whether adjudication is complete', () => {
    const id = submit(MON);
    expect(call(at(MON), 'GET', `/tpa-api/v1/settlement/${id}/`)).toMatchObject({
      status: 202,
      body: { encounter_id: id, status: 'PENDING', adjudication_complete: false, funding_approved: false },
    });
    expect(call(at(MON_LATER), 'GET', `/tpa-api/v1/settlement/${id}/`).body).toMatchObject({ adjudication_complete: true, funding_approved: false });
    expect(call(at(MON), 'GET', '/tpa-api/v1/settlement/enc_nope/').status).toBe(404);
  });

  it('pays each care-team provider in proportion to the benefit of their lines, fees and nets to the cent', () => {
    const id = submit(MON);
    approve(at(MON_LATER), id, 2460);
    const res = call(at(MON_LATER), 'GET', `/tpa-api/v1/settlement/${id}/`);
    expect(res.status).toBe(200);
    const s = res.body as {
      status: string;
      total_amount: number;
      payouts: Record<string, unknown>[];
      reconciliation_status: string;
      aeob_match: unknown;
      refund_details: unknown;
      disputes: unknown[];
    };
    expect(s).toMatchObject({
      status: 'INITIATED',
      total_amount: 2460,
      reconciliation_status: 'PENDING',
      aeob_match: null,
      refund_details: null,
      disputes: [],
    });
    // Benefit by line: facility fee 1,300.00, surgeon 408.00, anesthesia 612.00, pathology 140.00.
    expect(s.payouts.map((p) => [p.provider_role, p.provider_npi, p.amount, p.payout_status])).toEqual([
      ['FACILITY', '1234567893', 1300, 'PENDING'],
      ['SURGEON', '1045782368', 408, 'PENDING'],
      ['ANESTHESIA', '1196382455', 612, 'PENDING'],
      ['PATHOLOGY', '1329475804', 140, 'PENDING'],
    ]);
    expect(s.payouts.reduce((sum, p) => sum + cents(p.amount), 0)).toBe(246000);
    for (const p of s.payouts) {
      const fee = Math.round((cents(p.amount) * 22) / 1000) + 30;
      expect(cents(p.processor_fee)).toBe(fee);
      expect(cents(p.net_to_provider)).toBe(cents(p.amount) - fee);
    }
  });

  it('completes at the estimated arrival, reconciles EXACT against the AEOB, and the ledger moves to RECONCILED', () => {
    const id = submit(MON);
    approve(at(MON_LATER), id, 2460);
    const next = at('2026-03-03T10:00:05Z');
    const s = call(next, 'GET', `/tpa-api/v1/settlement/${id}/`).body as Record<string, unknown>;
    expect(s).toMatchObject({
      status: 'COMPLETED',
      completed_at: '2026-03-03T10:00:05Z',
      reconciliation_status: 'MATCHED',
      aeob_match: { match_status: 'EXACT', variance: 0, aeob_amount: 2460, settlement_amount: 2460, aeob_reference: expect.stringMatching(/^AEOB-/) },
    });
    expect((s.payouts as { payout_status: string }[]).every((p) => p.payout_status === 'COMPLETED')).toBe(true);
    const detail = call(next, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Record<string, any>;
    expect(detail.entries.map((e: { type: string }) => e.type)).toEqual([
      'SUBMISSION',
      'VALIDATION',
      'ADJUDICATION',
      'FUNDING_APPROVED',
      'SETTLEMENT_INITIATED',
      'SETTLEMENT_COMPLETED',
      'RECONCILIATION',
    ]);
    const refs = Object.fromEntries(detail.entries.map((e: { type: string; reference: string }) => [e.type, e.reference]));
    expect(refs.FUNDING_APPROVED).toBe('AUTH-20260302-ACME-0001');
    expect(refs.SETTLEMENT_INITIATED).toBe(s.processor_transfer_id);
    expect(refs.SETTLEMENT_COMPLETED).toBe(s.settlement_id);
    expect(refs.RECONCILIATION).toBe((s.aeob_match as { aeob_reference: string }).aeob_reference);
    expect(detail.entries[3].financial_impact).toEqual({ transfer_amount: 2460 });
    expect(detail.entries[5].financial_impact).toEqual({ settled_amount: 2460 });
    expect(detail.reconciliation).toMatchObject({ claim_match_status: 'MATCHED', settlement_record_id: s.settlement_id, external_claim_id: id });
    expect(detail.financial_summary.balance).toEqual({ running_balance: 0, status: 'SETTLED' });
    const list = call(next, 'GET', '/tpa-api/v1/ledger/entries/').body as { results: { status: string; status_progression: { status: string }[] }[] };
    expect(list.results[0]!.status).toBe('RECONCILED');
    expect(list.results[0]!.status_progression.map((p) => p.status)).toEqual(['SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'FUNDED', 'RECONCILED']);
  });
});

describe('the ledger', () => {
  it('keeps allowed = patient responsibility + payer responsibility to the cent in the detail, on every line too', () => {
    const id = submit(MON);
    const d = call(at(MON_LATER), 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Record<string, any>;
    const f = d.financial_summary;
    expect(cents(f.allowed_amount)).toBe(cents(f.patient_responsibility.total) + cents(f.payer_responsibility.total));
    expect(cents(f.submitted_charges) - cents(f.adjustments.contractual_adjustment)).toBe(cents(f.allowed_amount));
    for (const line of d.service_lines) expect(cents(line.allowed_amount)).toBe(cents(line.benefit_amount) + cents(line.patient_responsibility));
    expect(d.encounter).toMatchObject({
      patient: { member_id: 'MBR-1003', name: 'Maria Garcia' },
      provider: { npi: '1234567893', role: 'FACILITY' },
      payer: { id: 'PAYER-ACME' },
    });
    expect(f.deductible).toEqual({ plan_deductible: 500, deductible_met_prior: 500, deductible_applied: 0 });
  });

  it('shows null amounts before adjudication', () => {
    const id = submit(MON);
    const list = call(at(MON), 'GET', '/tpa-api/v1/ledger/entries/').body as {
      results: { encounter_id: string; financial_summary: Record<string, unknown> }[];
    };
    const item = list.results.find((r) => r.encounter_id === id)!;
    expect(item.financial_summary).toMatchObject({ charges: 4200, allowed_amount: null, benefit_amount: null });
  });

  it('filters by each status, by date and by any provider on the encounter, and pages with next and previous', () => {
    const funded = submit(MON);
    submit(MON); // a duplicate: DENIED
    submit(MON, { type: 'professional', npi: '1582736496', cpt: ['29881'] }); // PENDED
    submit(MON, { type: 'professional', cpt: ['43235'] }); // ADJUDICATED
    approve(at(MON_LATER), funded, 2460);
    const slow = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON_LATER, TPA_ADJUDICATION_DELAY: '1h' } });
    home.track(slow);
    call(slow, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'professional', cpt: ['45380'], serviceDate: '2026-03-01' })); // PROCESSING
    const e = at(MON_LATER);
    const statuses = (q: string) => (call(e, 'GET', `/tpa-api/v1/ledger/entries/${q}`).body as { results: { status: string }[] }).results.map((r) => r.status);
    expect(statuses('?status=FUNDED')).toEqual(['FUNDED']);
    expect(statuses('?status=DENIED')).toEqual(['DENIED']);
    expect(statuses('?status=PENDED')).toEqual(['PENDED']);
    expect(statuses('?status=ADJUDICATED')).toEqual(['ADJUDICATED']);
    expect(statuses('?status=PROCESSING')).toEqual(['PROCESSING']);
    expect(statuses('?status=SUBMITTED')).toEqual(['PROCESSING']); // not yet adjudicated
    expect(statuses('?status=RECONCILED')).toEqual([]);
    expect(statuses('?start_date=2026-03-01&end_date=2026-03-01')).toEqual(['PROCESSING']);
    // The anesthesia group is on the institutional encounters' care team, not their billing provider.
    expect(statuses('?provider_npi=1196382455').sort()).toEqual(['DENIED', 'FUNDED']);

    const page1 = call(e, 'GET', '/tpa-api/v1/ledger/entries/?limit=2').body as { count: number; next: string; previous: null; results: unknown[] };
    expect(page1).toMatchObject({ count: 5, previous: null });
    expect(page1.results).toHaveLength(2);
    expect(page1.next).toBe('/tpa-api/v1/ledger/entries/?limit=2&offset=2');
    const page3 = call(e, 'GET', '/tpa-api/v1/ledger/entries/?limit=2&offset=4').body as { next: null; previous: string; results: unknown[] };
    expect(page3.results).toHaveLength(1);
    expect(page3.next).toBeNull();
    expect(page3.previous).toBe('/tpa-api/v1/ledger/entries/?limit=2&offset=2');
  });

  it('a cached ledger page changes as soon as this or another process writes', () => {
    const reader = at(MON_LATER);
    const count = () => (call(reader, 'GET', '/tpa-api/v1/ledger/entries/').body as { count: number }).count;
    expect(count()).toBe(0);
    submit(MON); // another engine (connection) writes
    expect(count()).toBe(1);
    call(reader, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'professional', serviceDate: '2026-03-02' })); // this one writes
    expect(count()).toBe(2);
    expect(count()).toBe(2);
  });

  it('answers 400 errors[] for a limit outside 1..100, a bad status, date or NPI, and 404 for an unknown encounter', () => {
    const e = at(MON);
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'status=PAID', 'start_date=2026-13-01', 'provider_npi=123']) {
      const res = call(e, 'GET', `/tpa-api/v1/ledger/entries/?${q}`);
      expect(res.status, q).toBe(400);
      expect((res.body as { errors: { field: string }[] }).errors[0]!.field).toBe(q.split('=')[0]);
    }
    expect(call(e, 'GET', '/tpa-api/v1/ledger/entries/enc_nope/')).toMatchObject({ status: 404, body: { encounter_id: 'enc_nope' } });
  });
});

describe('sandbox scenarios and the stored clock', () => {
  it('simulates a failed transfer, a refund and an AEOB variance', () => {
    const failing = submit(MON);
    // Visits of their own (the copay is per visit: member, billing provider, date of service).
    const refunded = submit(MON, { cpt: ['45378'], serviceDate: '2026-03-01' });
    const varying = submit(MON, { cpt: ['43235'], serviceDate: '2026-02-28' });
    const e = at(MON_LATER);
    for (const [id, amount] of [
      [failing, 2460],
      [refunded, 1480],
      [varying, 1244],
    ] as const)
      expect(approve(e, id, amount).status, id).toBe(200);
    expect(e.simulate('settlement-failure', failing)).toMatchObject({ status: 'FAILED', payouts: [{ payout_status: 'FAILED' }, {}, {}, {}] });
    expect(() => e.simulate('refund', refunded)).toThrow(/COMPLETED/);
    const next = at('2026-03-04T00:00:00Z');
    const r = next.simulate('refund', refunded) as {
      status: string;
      refund_details: Record<string, unknown>;
      payouts: { payout_status: string; net_to_provider: number }[];
    };
    expect(r.status).toBe('REFUNDED');
    const netCents = r.payouts.reduce((sum, p) => sum + cents(p.net_to_provider), 0);
    expect(r.refund_details).toMatchObject({
      refund_id: expect.stringMatching(/^re_/),
      amount: netCents / 100,
      gross_amount: 1480,
      reason: expect.any(String),
      refunded_at: '2026-03-04T00:00:00Z',
    });
    expect(r.payouts.every((p) => p.payout_status === 'RETURNED')).toBe(true);
    const v = next.simulate('aeob-variance', varying) as Record<string, unknown>;
    expect(v).toMatchObject({ reconciliation_status: 'UNMATCHED', aeob_match: { match_status: 'VARIANCE', variance: 12.34, aeob_amount: 1231.66 } });
  });

  it('stores the clock for every later command: set, advance and back to real time', () => {
    const first = Engine.open({ dataDir: home.dir, env: {} });
    home.track(first);
    expect(first.setClock('2026-03-02T10:00:00Z')).toMatchObject({ now: '2026-03-02T10:00:00Z', source: 'frozen' });
    first.advanceClock(90 * 60_000);
    const second = Engine.open({ dataDir: home.dir, env: {} });
    home.track(second);
    expect(second.clock()).toMatchObject({ now: '2026-03-02T11:30:00Z', source: 'frozen' });
    expect(second.realClock().source).toBe('real');
    const advanced = second.advanceClock(2 * 86_400_000);
    expect(advanced.source).toBe('offset');
    expect(Date.parse(advanced.now) - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
    const overridden = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON } });
    home.track(overridden);
    expect(overridden.clock()).toMatchObject({ now: MON, source: 'TPA_CLOCK' });
    expect(() => overridden.advanceClock(1000)).toThrow(/TPA_CLOCK/);
  });
});
