// What `audit verify --deep` expects of the money tables, replayed from audit records alone
// (domain/audit-deep.ts): the payouts' payees and fees, the settlement's status and reconciliation,
// the encounter's status and AEOB; and the rows made before the chain recorded them are let be.
import { describe, expect, it } from 'vitest';
import { auditHash, GENESIS_HASH, type StoredAudit } from '../../src/domain/audit.js';
import {
  checkEncounter,
  checkPayout,
  checkRate,
  checkSettlement,
  describeDisagreement,
  expectedMoney,
  type EncounterFacts,
} from '../../src/domain/audit-deep.js';
import { isDisposition, LEDGER_STATUS_OF_DISPOSITION } from '../../src/domain/ledger.js';

/** A refund's details as the engine stores them (refund_json), for the SETTLEMENT_REFUNDED record of stl_2 below. */
const REFUND = JSON.stringify({
  refund_id: 're_1',
  amount: 590,
  gross_amount: 600,
  fees_not_returned: 10,
  reason: 'returned',
  refunded_at: '2026-03-10T12:00:00Z',
});

function chain(records: [type: string, subject: string, data: Record<string, unknown>][]): StoredAudit[] {
  let prev = GENESIS_HASH;
  return records.map(([type, subject, data], i) => {
    const content = { seq: i + 1, at: '2026-03-02T10:00:00Z', type, subject, data };
    const hash = auditHash(prev, content);
    const r = { ...content, data_json: JSON.stringify(data), prev_hash: prev, hash, actor: null };
    prev = hash;
    return r;
  });
}

const submission = { reference: 'sub_1', disposition: 'APPROVED', charge_cents: 100000, allowed_cents: 80000, patient_cents: 20000, benefit_cents: 60000 };
const initiated = (id: string, attempt: number) => ({
  reference: `tr_${attempt}`,
  settlement_id: id,
  attempt,
  total_cents: 60000,
  authorization_code: `AUTH-${attempt}`,
});
const payout = (id: string, sequence: number, npi: string, amount: number, fee: number) => ({
  settlement_id: id,
  sequence,
  processor_payout_id: `po_${id}_${sequence}`,
  provider_npi: npi,
  provider_role: sequence === 1 ? 'FACILITY' : 'SURGEON',
  amount_cents: amount,
  fee_cents: fee,
  net_cents: amount - fee,
});

const row = (over: Partial<EncounterFacts> = {}): EncounterFacts => ({
  id: 'enc_1',
  covered: 1,
  status: 'ADJUDICATED',
  completed: 1,
  disposition: 'APPROVED',
  charge_cents: 100000,
  allowed_cents: 80000,
  patient_cents: 20000,
  benefit_cents: 60000,
  outcome_charge_cents: 100000,
  outcome_allowed_cents: 80000,
  outcome_patient_cents: 20000,
  outcome_benefit_cents: 60000,
  outcome_lines: '[]',
  outcome_json: '{}',
  aeob_adjustment_cents: 0,
  aeob_missing: 0,
  member_id: 'MBR-1002',
  provider_npi: '1234567893',
  contract_id: 'CTR-1',
  ...over,
});

describe('the money tables as the chain says they must be', () => {
  const records = chain([
    ['SUBMISSION', 'enc_1', submission],
    ['FUNDING_APPROVED', 'enc_1', { reference: 'AUTH-1', transfer_amount_cents: 60000 }],
    ['SETTLEMENT_INITIATED', 'enc_1', initiated('stl_1', 1)],
    ['PAYOUT', 'enc_1', payout('stl_1', 1, '1234567893', 40000, 910)],
    ['PAYOUT', 'enc_1', payout('stl_1', 2, '1045782368', 20000, 470)],
    ['SETTLEMENT_FAILED', 'enc_1', { reference: 'tr_1', failed_amount_cents: 60000, settlement_id: 'stl_1' }],
    ['FUNDING_APPROVED', 'enc_1', { reference: 'AUTH-2', transfer_amount_cents: 60000 }],
    ['SETTLEMENT_INITIATED', 'enc_1', initiated('stl_2', 2)],
    ['PAYOUT', 'enc_1', payout('stl_2', 1, '1234567893', 40000, 910)],
    ['SETTLEMENT_COMPLETED', 'enc_1', { reference: 'stl_2', settlement_id: 'stl_2' }],
    [
      'RECONCILIATION',
      'enc_1',
      { settlement_id: 'stl_2', match_status: 'EXACT', aeob_amount_cents: 60000, variance_cents: 0, reconciliation_status: 'MATCHED' },
    ],
    ['AEOB_VARIANCE', 'enc_1', { aeob_adjustment_cents: -1234, aeob_cents: 58766 }],
    [
      'RECONCILIATION',
      'enc_1',
      { settlement_id: 'stl_2', match_status: 'VARIANCE', aeob_amount_cents: 58766, variance_cents: 1234, reconciliation_status: 'UNMATCHED' },
    ],
    [
      'SETTLEMENT_REFUNDED',
      'enc_1',
      {
        settlement_id: 'stl_2',
        refund_id: 're_1',
        refunded_amount_cents: 59000,
        gross_cents: 60000,
        fees_kept_cents: 1000,
        match_status: 'VARIANCE',
        reconciliation_status: 'UNMATCHED',
      },
    ],
  ]);

  it('a failed transfer keeps no fee; a refunded one returns its payouts; the encounter is owed again', () => {
    const x = expectedMoney(records, 0);
    expect([...x.settlements.get('stl_1')!.payouts.values()].map((p) => [p.payoutStatus, p.feeCents])).toEqual([
      ['FAILED', 0],
      ['FAILED', 0],
    ]);
    const second = x.settlements.get('stl_2')!;
    expect([second.status, second.matchStatus, second.aeobAmountCents, second.reconciliationStatus]).toEqual(['REFUNDED', 'VARIANCE', 58766, 'UNMATCHED']);
    expect(second.payouts.get(1)!.payoutStatus).toBe('RETURNED');
    expect(checkEncounter(row({ aeob_adjustment_cents: -1234 }), x.encounters.get('enc_1'))).toEqual([]);
    expect(checkEncounter(row({ status: 'RECONCILED', aeob_adjustment_cents: -1234 }), x.encounters.get('enc_1'))).toMatchObject([
      { column: 'status', seq: 14 },
    ]);
  });

  it('two finalized schedules: the later ends every rate still in force the day before and rates its own codes from its date', () => {
    const rates = (effective_date: string, list: [string, number][]) => ({
      effective_date,
      rates: list.map(([cpt, allowed_cents]) => ({ cpt, allowed_cents })),
    });
    const x = expectedMoney(
      chain([
        [
          'SCHEDULE_FINALIZED',
          'ctr_1',
          rates('2026-03-05', [
            ['A', 100],
            ['B', 200],
            ['A', 999],
          ]),
        ],
        ['SCHEDULE_FINALIZED', 'ctr_1', rates('2026-04-01', [['A', 150]])],
      ]),
      0,
    ).rates.get('ctr_1')!;
    expect(x.from).toBe('2026-03-05');
    expect(Object.fromEntries([...x.rows].map(([k, r]) => [k, [r.cents, r.to, r.seq]]))).toEqual({
      'A|2026-03-05': [100, '2026-03-31', 1],
      'B|2026-03-05': [200, '2026-03-31', 1],
      'A|2026-04-01': [150, null, 2],
    });
    const rate = (cpt: string, effective_from: string, effective_to: string | null, negotiated_rate_cents: number) =>
      checkRate({ contract_id: 'ctr_1', cpt_code: cpt, effective_from, effective_to, negotiated_rate_cents }, x);
    expect(rate('A', '2026-04-01', null, 150)).toEqual([]);
    expect(rate('B', '2026-03-05', null, 200)).toMatchObject([{ column: 'effective_to', expected: '2026-03-31', found: null, seq: 1 }]);
    expect(rate('A', '2025-01-01', '2026-03-04', 1)).toEqual([]);
  });

  it('names the column, what the row holds and the record that says otherwise', () => {
    const x = expectedMoney(records, 0);
    const d = checkPayout(
      {
        settlement_id: 'stl_1',
        sequence: 2,
        processor_payout_id: 'po_stl_1_2',
        provider_npi: '1234567893',
        provider_role: 'SURGEON',
        amount_cents: 20000,
        fee_cents: 0,
        payout_status: 'FAILED',
      },
      x.settlements.get('stl_1'),
    );
    expect(d).toMatchObject([{ table: 'payouts', column: 'provider_npi', expected: '1045782368', found: '1234567893', seq: 5 }]);
    expect(describeDisagreement(d[0]!)).toBe('payouts stl_1 #2: provider_npi is 1234567893, audit record 5 says 1045782368');
    const s = checkSettlement(
      {
        id: 'stl_2',
        covered: 1,
        encounter_id: 'enc_1',
        attempt: 2,
        processor_transfer_id: 'tr_2',
        status: 'COMPLETED',
        total_amount_cents: 60000,
        authorization_code: 'AUTH-2',
        reconciliation_status: 'UNMATCHED',
        match_status: 'VARIANCE',
        aeob_amount_cents: 58766,
        refund_json: REFUND,
      },
      x.settlements.get('stl_2'),
    );
    expect(s).toMatchObject([{ column: 'status', expected: 'REFUNDED', found: 'COMPLETED', seq: 14 }]);
  });

  it('a refund is checked as the chain recorded it: a forged amount, a deleted refund and one the chain never made are each named', () => {
    const x = expectedMoney(records, 0);
    const stl = (refund_json: string | null, id = 'stl_2') =>
      checkSettlement(
        {
          id,
          covered: 1,
          encounter_id: 'enc_1',
          attempt: id === 'stl_2' ? 2 : 1,
          processor_transfer_id: id === 'stl_2' ? 'tr_2' : 'tr_1',
          status: id === 'stl_2' ? 'REFUNDED' : 'FAILED',
          total_amount_cents: 60000,
          authorization_code: id === 'stl_2' ? 'AUTH-2' : 'AUTH-1',
          reconciliation_status: id === 'stl_2' ? 'UNMATCHED' : 'PENDING',
          match_status: id === 'stl_2' ? 'VARIANCE' : null,
          aeob_amount_cents: id === 'stl_2' ? 58766 : null,
          refund_json,
        },
        x.settlements.get(id),
      );
    expect(stl(REFUND)).toEqual([]);
    const forged = stl(REFUND.replace('"amount":590', '"amount":3'));
    expect(forged).toMatchObject([{ column: 'refund_json amount (cents)', expected: 59000, found: 300, seq: 14 }]);
    expect(describeDisagreement(forged[0]!)).toBe('settlements stl_2: refund_json amount (cents) is 300, audit record 14 says 59000');
    expect(stl(null)).toMatchObject([{ column: 'refund_json', expected: 'a refund', found: null, seq: 14 }]);
    expect(stl(REFUND.replace('"fees_not_returned":10', '"fees_not_returned":0'))).toMatchObject([{ column: 'refund_json fees_not_returned (cents)' }]);
    expect(stl('{not json')).toMatchObject([{ column: 'refund_json', found: 'unreadable JSON' }]);
    expect(stl(REFUND, 'stl_1')).toMatchObject([{ column: 'refund_json', expected: null, found: 'a refund' }]);
  });

  it('rows made before the chain recorded them are let be; one made since without a record is named', () => {
    const x = expectedMoney(records, 0);
    expect(checkEncounter(row({ id: 'enc_old', covered: 0 }), x.encounters.get('enc_old'))).toEqual([]);
    const missing = checkEncounter(row({ id: 'enc_new' }), x.encounters.get('enc_new'));
    expect(missing).toHaveLength(1);
    expect(describeDisagreement(missing[0]!)).toBe('encounters enc_new: the audit chain has no SUBMISSION record of it');
    // Submitted before the chain recorded AEOB changes: its AEOB columns are not held to it.
    const before = expectedMoney(records, 5);
    expect(checkEncounter(row({ aeob_adjustment_cents: 7 }), before.encounters.get('enc_1'))).toEqual([]);
    expect(checkEncounter(row({ aeob_adjustment_cents: 7 }), x.encounters.get('enc_1'))).toMatchObject([{ column: 'aeob_adjustment_cents', found: 7 }]);
  });
});

describe("an encounter's parties as its SUBMISSION recorded them", () => {
  const parties = { member_id: 'MBR-1002', provider_npi: '1234567893', contract_id: 'CTR-1' };
  it('a member, billing provider or contract changed in the row is a disagreement naming the record', () => {
    const x = expectedMoney(chain([['SUBMISSION', 'enc_1', { ...submission, ...parties }]]), 0).encounters.get('enc_1');
    expect(checkEncounter(row(), x)).toEqual([]);
    const moved = checkEncounter(row({ member_id: 'MBR-1003', provider_npi: '1045782368', contract_id: 'CTR-2' }), x);
    expect(moved.map(describeDisagreement)).toEqual([
      'encounters enc_1: member_id is MBR-1003, audit record 1 says MBR-1002',
      'encounters enc_1: provider_npi is 1045782368, audit record 1 says 1234567893',
      'encounters enc_1: contract_id is CTR-2, audit record 1 says CTR-1',
    ]);
  });

  it('a SUBMISSION recorded before the parties were kept leaves them unchecked', () => {
    const x = expectedMoney(chain([['SUBMISSION', 'enc_1', submission]]), 0).encounters.get('enc_1');
    expect(checkEncounter(row({ member_id: 'MBR-1003' }), x)).toEqual([]);
  });
});

describe('the status each disposition leaves, one table for the engine and the audit', () => {
  it('APPROVED and PARTIAL_APPROVAL are ADJUDICATED, DENIED is DENIED, PENDING_REVIEW is PENDED', () => {
    expect(LEDGER_STATUS_OF_DISPOSITION).toEqual({ APPROVED: 'ADJUDICATED', PARTIAL_APPROVAL: 'ADJUDICATED', DENIED: 'DENIED', PENDING_REVIEW: 'PENDED' });
    for (const [disposition, status] of Object.entries(LEDGER_STATUS_OF_DISPOSITION)) {
      const x = expectedMoney(chain([['SUBMISSION', 'enc_1', { ...submission, disposition }]]), 0).encounters.get('enc_1');
      expect(checkEncounter(row({ disposition, status }), x)).toEqual([]);
    }
  });

  it('a disposition tpa never writes leaves no status right, not the status of another', () => {
    expect(isDisposition('toString')).toBe(false);
    const x = expectedMoney(chain([['SUBMISSION', 'enc_1', { ...submission, disposition: 'WITHDRAWN' }]]), 0).encounters.get('enc_1');
    expect(checkEncounter(row({ disposition: 'WITHDRAWN' }), x)).toEqual([
      { table: 'encounters', row: 'enc_1', column: 'status', expected: '', found: 'ADJUDICATED', seq: expect.any(Number) },
    ]);
  });
});
