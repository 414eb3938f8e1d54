// Corrected and void claims (docs/money-funding.md "Corrected and void claims"): a replacement
// (Claim.related prior; an 837's CLM05-3 7 with REF*F8) supersedes the claim it names before
// funding and is adjudicated as a new claim, never as its duplicate; a void (Claim.status
// cancelled with a prior) closes it and makes no encounter; after funding both are refused naming
// the transfer. Every view agrees: funding, the claim response, the ledger, the audit chain.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { RELATED_CLAIM_RELATIONSHIP_SYSTEM } from '../../src/domain/fhir-claim.js';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';

const MON = '2026-03-02T10:00:00Z';
const TUE = '2026-03-03T10:00:00Z';
const SUBMIT = '/tpa-api/v1/claims/submit/';
/** Lakeside Orthopedic: its 27447 needs a preauthorization. */
const LAKESIDE = '1450827369';
const APPROVE = '/tpa-api/v1/funding/approve/';
type Body = Record<string, any>;

const home = useEngineHome(beforeEach, afterEach);

const claim = (o: Partial<Parameters<typeof claimTemplate>[0]> = {}): Body =>
  claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02', ...o }) as Body;

/** The claim as a correction of `prior` (a payer's claim number): a replacement, or a void (cancelled). */
function correcting(prior: string, kind: 'replacement' | 'void', base: Body = claim()): Body {
  return {
    ...base,
    ...(kind === 'void' ? { status: 'cancelled' } : {}),
    related: [{ claim: { identifier: { value: prior } }, relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code: 'prior' }] } }],
  };
}

const detailOf = (e: ReturnType<typeof home.at>, id: string) => call(e, 'GET', `/tpa-api/v1/ledger/entries/${id}/`).body as Body;
const benefitOf = (d: Body) => d.financial_summary.payer_responsibility.total as number;

function submitted(e: ReturnType<typeof home.at>, body: Body): Body {
  const ack = call(e, 'POST', SUBMIT, body);
  expect(ack.status, JSON.stringify(ack.body)).toBe(201);
  return ack.body as Body;
}

describe('a replacement before funding', () => {
  it('supersedes the claim it names (by encounter id), is adjudicated as a new claim and not as its duplicate, and only it is funded', () => {
    const mon = home.at(MON, '0');
    const original = submitted(mon, claim());
    const before = detailOf(mon, original.external_claim_id);
    expect(before.encounter.status).toBe('ADJUDICATED');

    const ack = submitted(mon, correcting(original.external_claim_id, 'replacement'));
    expect(ack.external_claim_id).not.toBe(original.external_claim_id);
    const replacement = detailOf(mon, ack.external_claim_id);
    // Not a duplicate of the claim it replaces, and with the deductible the original had taken given back.
    expect(replacement.encounter.status).toBe('ADJUDICATED');
    expect(benefitOf(replacement)).toBe(benefitOf(before));
    expect(replacement.financial_summary.deductible).toEqual(before.financial_summary.deductible);
    expect(replacement.encounter.replaces).toBe(original.external_claim_id);

    const old = detailOf(mon, original.external_claim_id);
    expect(old.encounter).toMatchObject({ status: 'SUPERSEDED', replaced_by: ack.external_claim_id });
    expect(old.entries.at(-1)).toMatchObject({ type: 'REPLACED', reference: ack.external_claim_id });
    // Nothing is owed on it, and it has no settlement, nor ever will.
    expect(old.financial_summary.balance).toMatchObject({ running_balance: 0, status: 'SUPERSEDED' });
    const settlement = call(mon, 'GET', `/tpa-api/v1/settlement/${original.external_claim_id}/`);
    expect(settlement).toMatchObject({ status: 404, body: { error: 'no_settlement', message: expect.stringContaining('replaced by a corrected claim') } });
    expect(replacement.entries.map((e: Body) => e.type)).toContain('REPLACES');
    // The original's claim response says it is closed; its submission is answered, not pending.
    const answer = call(mon, 'GET', `/tpa-api/v1/claims/${original.submission_id}/response/`);
    expect(answer).toMatchObject({ status: 200, body: { status: 'SUPERSEDED', replaced_by: ack.external_claim_id } });

    // The ledger's status filter finds each by its status.
    const superseded = call(mon, 'GET', '/tpa-api/v1/ledger/entries/?status=SUPERSEDED').body as Body;
    expect(superseded.results.map((r: Body) => r.encounter_id)).toEqual([original.external_claim_id]);
    const payable = call(mon, 'GET', '/tpa-api/v1/ledger/entries/?status=ADJUDICATED').body as Body;
    expect(payable.results.map((r: Body) => r.encounter_id)).toEqual([ack.external_claim_id]);

    // The superseded claim is never funded; the replacement is, once.
    const refused = call(mon, 'POST', APPROVE, { encounter_id: original.external_claim_id, amount: benefitOf(before), authorization_code: 'AUTH-CORR-0001' });
    expect(refused).toMatchObject({ status: 400, body: { reason: 'CLAIM_NOT_ADJUDICATED' } });
    const funded = call(mon, 'POST', APPROVE, { encounter_id: ack.external_claim_id, amount: benefitOf(replacement), authorization_code: 'AUTH-CORR-0002' });
    expect(funded.status).toBe(200);

    expect(mon.auditVerify()).toMatchObject({ whole: true });
    expect(mon.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });

  it('names the claim by its ENC number too, and supersedes a claim whose adjudication is not revealed yet, which then stays superseded', () => {
    const slow = home.at(MON, '3s');
    const original = submitted(slow, claim());
    const number = detailOf(slow, original.external_claim_id).encounter.encounter_number as string;
    const ack = submitted(slow, correcting(number, 'replacement'));
    const later = home.at(TUE, '3s');
    expect(detailOf(later, original.external_claim_id).encounter.status).toBe('SUPERSEDED');
    expect(detailOf(later, ack.external_claim_id).encounter.status).toBe('ADJUDICATED');
    expect(later.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });

  it('a closed claim owes nothing whatever it was before: a denied claim replaced, one never adjudicated replaced and one voided have a running balance of 0.00, not null', () => {
    const at = home.at('2026-07-20T10:00:00Z', '0');
    const lapsed = claim({ patient: 'MBR-1005', serviceDate: '2026-07-15' });
    const denied = submitted(at, lapsed);
    expect(detailOf(at, denied.external_claim_id).encounter.status).toBe('DENIED');
    expect(detailOf(at, denied.external_claim_id).financial_summary.balance.running_balance).toBeNull();
    submitted(at, correcting(denied.external_claim_id, 'replacement', claim({ patient: 'MBR-1005', serviceDate: '2026-06-01' })));
    expect(detailOf(at, denied.external_claim_id).financial_summary.balance).toEqual({ running_balance: 0, status: 'SUPERSEDED' });
    const deniedAgain = submitted(at, claim({ patient: 'MBR-1005', serviceDate: '2026-07-16' }));
    submitted(at, correcting(deniedAgain.external_claim_id, 'void', claim({ patient: 'MBR-1005', serviceDate: '2026-07-16' })));
    expect(detailOf(at, deniedAgain.external_claim_id).financial_summary.balance).toEqual({ running_balance: 0, status: 'VOIDED' });
    // Replaced before its adjudication is revealed (SUBMITTED): closed, owing nothing, then and after.
    const slow = home.at(MON, '3s');
    const original = submitted(slow, claim());
    submitted(slow, correcting(original.external_claim_id, 'replacement'));
    expect(detailOf(slow, original.external_claim_id).financial_summary.balance).toEqual({ running_balance: 0, status: 'SUPERSEDED' });
    expect(detailOf(home.at(TUE, '3s'), original.external_claim_id).financial_summary.balance).toEqual({ running_balance: 0, status: 'SUPERSEDED' });
  });

  it('replaces a pended claim (the replacement with its preauthorization): the original is SUPERSEDED, not a pended claim sent again', () => {
    const mon = home.at('2026-12-01T10:00:00Z', '0');
    const knee = (preauthorization?: string) =>
      claimOf({ npi: LAKESIDE, patient: 'MBR-1003', preauthorization, lines: [{ code: '27447', date: '2026-11-02', charge: '100.00' }] });
    const original = submitted(mon, knee());
    expect(detailOf(mon, original.external_claim_id).encounter.status).toBe('PENDED');
    const ack = submitted(mon, correcting(original.external_claim_id, 'replacement', knee('PA-2026-1102')));
    const old = detailOf(mon, original.external_claim_id);
    expect(old.encounter).toMatchObject({ status: 'SUPERSEDED', replaced_by: ack.external_claim_id });
    expect(old.encounter.superseded_by).toBeUndefined();
    const replacement = detailOf(mon, ack.external_claim_id);
    expect(replacement.encounter.status).toBe('ADJUDICATED');
    expect(replacement.encounter.supersedes).toBeUndefined();
    expect(mon.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });

  it('refuses a replacement of a claim already superseded, of an unknown claim and of another member’s claim, naming it; nothing is written', () => {
    const mon = home.at(MON, '0');
    const original = submitted(mon, claim());
    const number = detailOf(mon, original.external_claim_id).encounter.encounter_number as string;
    const first = submitted(mon, correcting(original.external_claim_id, 'replacement'));

    const again = call(mon, 'POST', SUBMIT, correcting(number, 'replacement'));
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.body)).toMatch(new RegExp(`${number}.*already superseded by ${first.external_claim_id}`));

    const unknown = call(mon, 'POST', SUBMIT, correcting('ENC-2026-999999', 'replacement'));
    expect(unknown.status).toBe(400);
    expect((unknown.body as Body).errors[0]).toMatchObject({
      field: 'related[0].claim.identifier.value',
      message: expect.stringMatching(/ENC-2026-999999.*no claim/),
    });

    const other = call(mon, 'POST', SUBMIT, correcting(first.external_claim_id, 'replacement', claim({ patient: 'MBR-1003' })));
    expect(other.status).toBe(400);
    expect(JSON.stringify(other.body)).toMatch(/not member MBR-1003’s claim/);

    const all = call(mon, 'GET', '/tpa-api/v1/ledger/entries/').body as Body;
    expect(all.results).toHaveLength(2);
    expect(mon.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });
});

describe('a void before funding', () => {
  it('closes the claim it names (VOIDED, never funded), makes no encounter, and frees its lines: the same claim sent again is no duplicate', () => {
    const mon = home.at(MON, '0');
    const original = submitted(mon, claim());
    const before = detailOf(mon, original.external_claim_id);
    const ack = submitted(mon, correcting(original.external_claim_id, 'void'));
    expect(ack).toMatchObject({ status: 'VOIDED', external_claim_id: original.external_claim_id, submission_id: original.submission_id });

    const voided = detailOf(mon, original.external_claim_id);
    expect(voided.encounter.status).toBe('VOIDED');
    expect(voided.entries.at(-1)).toMatchObject({ type: 'VOIDED' });
    expect((call(mon, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).results).toHaveLength(1);
    expect(call(mon, 'GET', `/tpa-api/v1/claims/${original.submission_id}/response/`).body).toMatchObject({ status: 'VOIDED' });
    const refused = call(mon, 'POST', APPROVE, { encounter_id: original.external_claim_id, amount: benefitOf(before), authorization_code: 'AUTH-VOID-0001' });
    expect(refused).toMatchObject({ status: 400, body: { reason: 'CLAIM_NOT_ADJUDICATED' } });

    // A void of a void is refused; a new original claim of the same services is paid as before.
    const twice = call(mon, 'POST', SUBMIT, correcting(original.external_claim_id, 'void'));
    expect(twice.status).toBe(400);
    expect(JSON.stringify(twice.body)).toMatch(/already voided/);
    const fresh = submitted(mon, claim());
    const after = detailOf(mon, fresh.external_claim_id);
    expect(after.encounter.status).toBe('ADJUDICATED');
    expect(benefitOf(after)).toBe(benefitOf(before));
    expect(mon.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });
});

describe('a correction after a transfer that moved nothing that stays', () => {
  it('a claim whose transfer failed, or came back refunded, is owed again and may be replaced; the chain replays to SUPERSEDED', () => {
    const mon = home.at(MON, '0');
    const failed = submitted(mon, claim());
    const refunded = submitted(mon, claim({ patient: 'MBR-1003' }));
    for (const [i, c] of [failed, refunded].entries()) {
      const amount = benefitOf(detailOf(mon, c.external_claim_id));
      expect(call(mon, 'POST', APPROVE, { encounter_id: c.external_claim_id, amount, authorization_code: `AUTH-AGAIN-000${i}` }).status).toBe(200);
    }
    mon.simulate('settlement-failure', failed.external_claim_id);
    const wed = home.at('2026-03-04T12:00:00Z', '0');
    call(wed, 'GET', `/tpa-api/v1/settlement/${refunded.external_claim_id}/`);
    wed.simulate('refund', refunded.external_claim_id);
    for (const [c, patient] of [
      [failed, 'MBR-1002'],
      [refunded, 'MBR-1003'],
    ] as const) {
      expect(detailOf(wed, c.external_claim_id).encounter.status).toBe('ADJUDICATED');
      const ack = submitted(wed, correcting(c.external_claim_id, 'replacement', claim({ patient })));
      expect(detailOf(wed, c.external_claim_id).encounter).toMatchObject({ status: 'SUPERSEDED', replaced_by: ack.external_claim_id });
    }
    expect(wed.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });
});

describe('a correction after funding', () => {
  it('is refused, naming the funded transfer and that recovery of paid money is not done by tpa yet; the claim stays funded', () => {
    const mon = home.at(MON, '0');
    const original = submitted(mon, claim());
    const before = detailOf(mon, original.external_claim_id);
    const funded = call(mon, 'POST', APPROVE, { encounter_id: original.external_claim_id, amount: benefitOf(before), authorization_code: 'AUTH-FUND-0001' });
    expect(funded.status).toBe(200);
    const transfer = (funded.body as Body).processor_transfer_id as string;
    for (const kind of ['replacement', 'void'] as const) {
      const r = call(mon, 'POST', SUBMIT, correcting(original.external_claim_id, kind));
      expect(r.status).toBe(400);
      expect((r.body as Body).errors[0].message).toMatch(new RegExp(`transfer ${transfer}.*recovery of paid money is not done by tpa yet`));
    }
    expect(detailOf(mon, original.external_claim_id).encounter.status).toBe('FUNDED');
    expect((call(mon, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).results).toHaveLength(1);
  });
});

describe('a claim closed after a transfer that moved nothing that stays', () => {
  it('has no settlement (404 no_settlement naming SUPERSEDED and its replacement, the transfer kept as history), and funding it is refused as closed, not as denied or not yet adjudicated', () => {
    const mon = home.at(MON, '0');
    const refunded = submitted(mon, claim({ patient: 'MBR-1003' }));
    const never = submitted(mon, claim());
    const amount = benefitOf(detailOf(mon, refunded.external_claim_id));
    expect(call(mon, 'POST', APPROVE, { encounter_id: refunded.external_claim_id, amount, authorization_code: 'AUTH-CLOSED-0001' }).status).toBe(200);
    const wed = home.at('2026-03-04T12:00:00Z', '0');
    call(wed, 'GET', `/tpa-api/v1/settlement/${refunded.external_claim_id}/`);
    wed.simulate('refund', refunded.external_claim_id);
    const replacement = submitted(wed, correcting(refunded.external_claim_id, 'replacement', claim({ patient: 'MBR-1003' })));
    submitted(wed, correcting(never.external_claim_id, 'void'));

    const s = call(wed, 'GET', `/tpa-api/v1/settlement/${refunded.external_claim_id}/`);
    expect(s.status).toBe(404);
    expect(s.body).toMatchObject({ error: 'no_settlement', status: 'SUPERSEDED', replaced_by: replacement.external_claim_id, history: { status: 'REFUNDED' } });
    expect((s.body as Body).message).toMatch(new RegExp(`SUPERSEDED \\(replaced by a corrected claim, ${replacement.external_claim_id}\\).*nothing to fund`));
    expect((s.body as Body).message).not.toMatch(/owed again|anew/);

    for (const [c, closed] of [
      [refunded, 'SUPERSEDED'],
      [never, 'VOIDED'],
    ] as const) {
      const r = call(wed, 'POST', APPROVE, { encounter_id: c.external_claim_id, amount, authorization_code: 'AUTH-CLOSED-0002' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_state', reason: 'CLAIM_NOT_ADJUDICATED', status: closed });
      expect((r.body as Body).message).toMatch(new RegExp(`${closed}.*nothing to fund`));
      expect((r.body as Body).message).not.toMatch(/denied|not adjudicated yet|not yet/);
    }
    expect(wed.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0 });
  });
});

describe('a replacement of a pended claim already sent again', () => {
  it('is refused naming the claim that sent it again; nothing is written', () => {
    const mon = home.at('2026-12-01T10:00:00Z', '0');
    const knee = (preauthorization?: string) =>
      claimOf({ npi: LAKESIDE, patient: 'MBR-1003', preauthorization, lines: [{ code: '27447', date: '2026-11-02', charge: '100.00' }] });
    const original = submitted(mon, knee());
    const resent = submitted(mon, knee('PA-2026-1102'));
    expect(detailOf(mon, original.external_claim_id).encounter).toMatchObject({ status: 'PENDED', superseded_by: resent.external_claim_id });
    const r = call(mon, 'POST', SUBMIT, correcting(original.external_claim_id, 'replacement', knee('PA-2026-1102')));
    expect(r.status).toBe(400);
    expect((r.body as Body).errors[0].message).toMatch(new RegExp(`already superseded by claim ENC-\\d{4}-\\d{6} \\(${resent.external_claim_id}\\)`));
    expect((call(mon, 'GET', '/tpa-api/v1/ledger/entries/').body as Body).results).toHaveLength(2);
  });
});

describe('a replacement of a claim that opened a bundle episode', () => {
  it('is priced as the episode’s first part again: the parts later claims had included in the episode it opened leave with it, and a void frees it alike', () => {
    // Lakeside's PACKAGE bundle: 97161 on 2 November opens the episode, on 9 November is included in it.
    const at = '2026-12-05T10:00:00Z';
    const e = home.at(at, '0');
    const first = claimOf({ npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-11-02', charge: '500.00' }] });
    const a = submitted(e, first);
    const part = (id: string) => (detailOf(e, id).service_lines as Body[]).map((l) => [l.status, l.allowed_amount]);
    expect(part(a.external_claim_id)).toEqual([['ALLOWED', 500]]);
    const c = submitted(e, claimOf({ npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date: '2026-11-09', charge: '200.00' }] }));
    expect(part(c.external_claim_id)[0]![0]).toBe('BUNDLED');
    // The replacement is judged as if the original had never been paid: it opens the episode again
    // and is allowed the bundle's share, never 0.00 against a part included only because of the original.
    const r = submitted(e, correcting(a.external_claim_id, 'replacement', first));
    expect(part(r.external_claim_id)).toEqual([['ALLOWED', 500]]);
    // The later claim keeps its adjudication (not readjudicated).
    expect(part(c.external_claim_id)[0]![0]).toBe('BUNDLED');
    // A void of the replacement frees the episode the same way: the claim sent anew opens it.
    submitted(e, correcting(r.external_claim_id, 'void', first));
    const again = submitted(e, first);
    expect(part(again.external_claim_id)).toEqual([['ALLOWED', 500]]);
  });
});
