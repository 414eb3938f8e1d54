// The 835 writer (src/domain/x12-835.ts) and the transactions of a transfer (src/jobs/remit.ts),
// re-read by node-x12: delimiters in names, denied lines with a patient share, a payee paid nothing,
// the CARC mapping, amounts as X12 decimals from cents.
import { describe, expect, it } from 'vitest';
import { remitTransactions, type FoundTransfer } from '../../src/jobs/remit.js';
import type { LedgerDetail, LedgerServiceLine, Payout, SettlementTransfer } from '../../src/client/types.js';
import { carcOf, type RemitLine, type RemitTransaction, write835, x12Amount, x12Text } from '../../src/domain/x12-835.js';
import type { TpaError } from '../../src/errors.js';
import { centsToJson } from '../../src/domain/money.js';
import { checked835 } from '../helpers/x12-835-check.js';
import { tr3Problems } from '../helpers/x12-835-tr3.js';

/** The sandbox payer's profile (migration 26), as the writer and the ledger detail carry it. */
const PAYER = {
  name: 'Acme Health Plan',
  id: 'PAYER-ACME',
  taxId: '990000001',
  address: { line1: '100 Sandbox Way', line2: 'Suite 400', city: 'Springfield', state: 'IL', postalCode: '62701' },
  contact: { name: 'Acme Health Plan EDI Support', phone: '8005550100', email: 'edi@acme-health.example', url: null },
};
const DETAIL_PAYER = {
  name: 'Acme Health Plan',
  id: 'PAYER-ACME',
  tax_id: '990000001',
  address: { line1: '100 Sandbox Way', line2: 'Suite 400', city: 'Springfield', state: 'IL', postal_code: '62701' },
  technical_contact: { name: 'Acme Health Plan EDI Support', phone: '8005550100', email: 'edi@acme-health.example', url: null },
};

const ENVELOPE = { controlNumber: 42, sender: 'PAYER-ACME', receiver: '1234567893', createdAt: '2026-03-04T10:00:00Z' };

const allowedLine = (over: Partial<RemitLine> = {}): RemitLine => ({
  sequence: 1,
  cptCode: '45380',
  serviceDate: '2026-03-02',
  units: 1,
  chargeCents: 240_000,
  allowedCents: 165_000,
  deductibleCents: 50_000,
  coinsuranceCents: 22_500,
  copayCents: 2_500,
  patientCents: 75_000,
  paidCents: 90_000,
  status: 'ALLOWED',
  denialCode: null,
  ...over,
});

const payment = (over: Partial<RemitTransaction> = {}): RemitTransaction => ({
  kind: 'payment',
  transferId: 'tr_1',
  payer: PAYER,
  payee: { npi: '1234567893', name: 'Riverside Surgery Center' },
  claimId: 'ENC-2026-000001',
  encounterId: 'enc_1',
  patient: { memberId: 'MBR-1001', name: 'Jane Doe' },
  receivedDate: '2026-03-02',
  lines: [allowedLine()],
  paymentCents: 90_000,
  feeCents: 2_010,
  payoutId: 'po_1',
  refundId: null,
  productionDate: '2026-03-02',
  effectiveDate: '2026-03-03',
  ...over,
});

describe('x12-835 writer', () => {
  it('amounts are X12 decimals written from cents: no trailing zeros, sign kept', () => {
    expect([0, 5, 50, 100, 12_340, 12_345, -500, -1].map(x12Amount)).toEqual(['0', '0.05', '0.5', '1', '123.4', '123.45', '-5', '-0.01']);
    expect(() => x12Amount(0.1)).toThrow();
  });

  it("maps tpa's denial codes to CARCs", () => {
    expect(carcOf('CARC-96', 'NOT_COVERED')).toBe('96');
    expect(carcOf('CARC-B7', 'DENIED')).toBe('B7');
    expect(carcOf('CARC-18', 'DENIED')).toBe('18');
    expect(carcOf('97', 'BUNDLED')).toBe('97');
    expect(carcOf(null, 'BUNDLED')).toBe('97');
    expect(carcOf('not a code at all', 'DENIED')).toBe('96');
  });

  it('screens X12 delimiters (~ * : ^), control characters and accents out of names: the file still parses to the same segments', () => {
    expect(x12Text('Dr. Zoë ~Smith*: ^Clinic\n\u0007')).toBe('Dr. Zoe Smith Clinic');
    const text = write835(
      [
        payment({
          payee: { npi: '1234567893', name: 'Riverside~Surgery*Center:^ LLC' },
          payer: { ...PAYER, name: 'Acme*Health~Plan', id: 'PAYER^ACME' },
          patient: { memberId: 'MBR:1001', name: 'Jane~Doe*Smith' },
          claimId: 'PAT*1~2',
        }),
      ],
      { ...ENVELOPE, sender: 'PAYER^ACME' },
    );
    const { transactions } = checked835(text);
    const t = transactions[0]!;
    expect(t.payee).toEqual(['N1', 'PE', 'Riverside Surgery Center LLC', 'XX', '1234567893']);
    expect(t.segments).toContainEqual(['N1', 'PR', 'Acme Health Plan']);
    expect(t.segments).toContainEqual(['NM1', 'QC', '1', 'Smith', 'Jane Doe', '', '', '', 'MI', 'MBR 1001']);
    expect(t.claims[0]!.clp[1]).toBe('PAT 1 2');
    // Every segment of the transaction, no more: nothing split a segment or an element.
    expect(t.segments.map((s) => s[0]).join(' ')).toBe('BPR TRN DTM N1 N3 N4 REF PER N1 LX CLP NM1 DTM SVC DTM CAS CAS REF AMT PLB');
    expect(text.split('\n')[0]).toHaveLength(106);
  });

  it('a denied line with a patient share: CO for the rest of the charge, PR for the share, both under its CARC; a claim all denied is CLP02 4', () => {
    const denied = allowedLine({
      sequence: 2,
      cptCode: '99213',
      chargeCents: 18_000,
      allowedCents: 0,
      deductibleCents: 0,
      coinsuranceCents: 0,
      copayCents: 0,
      patientCents: 3_000,
      paidCents: 0,
      status: 'NOT_COVERED',
      denialCode: 'CARC-96',
    });
    const partly = checked835(write835([payment({ lines: [allowedLine(), denied] })], ENVELOPE)).transactions[0]!;
    expect(partly.segments).toContainEqual(['CAS', 'CO', '96', '150']);
    expect(partly.segments).toContainEqual(['CAS', 'PR', '96', '30']);
    expect(partly.claims[0]!.clp.slice(2, 6)).toEqual(['1', '2580', '900', '780']);
    const none = checked835(write835([payment({ kind: 'notice', lines: [denied], paymentCents: 0, feeCents: 0, payoutId: null })], ENVELOPE)).transactions[0]!;
    expect(none.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
    expect(none.claims[0]!.clp.slice(2, 5)).toEqual(['4', '180', '0']);
    expect(none.segments.some((s) => s[0] === 'PLB')).toBe(false);
  });

  it('refuses to write what would not balance: lines that do not pay the payout', () => {
    expect(() => write835([payment({ paymentCents: 90_001 })], ENVELOPE)).toThrow(/would not balance/);
    expect(() => write835([], ENVELOPE)).toThrow();
  });

  it('envelopes count right over several transactions: ST02 0001…, SE01, GE01, IEA02 = ISA13', () => {
    const text = write835([payment(), payment({ payee: { npi: '1045782368', name: 'Dr. Alice Morgan' } })], ENVELOPE);
    const { transactions } = checked835(text);
    expect(transactions).toHaveLength(2);
    expect(text.split('\n')[0]).toMatch(/\*00501\*000000042\*0\*P\*:~$/);
    expect(text).toContain('\nST*835*0002*005010X221A1~\n');
    expect(text.trimEnd().endsWith('GE*2*42~\nIEA*1*000000042~')).toBe(true);
  });
});

const line = (over: Partial<LedgerServiceLine>): LedgerServiceLine => ({
  sequence: 1,
  cpt_code: '45380',
  cpt_description: '',
  quantity: 1,
  submitted_charge: 2400,
  allowed_amount: 1650,
  deductible_applied: 500,
  copay_applied: 25,
  coinsurance_applied: 225,
  patient_responsibility: 750,
  benefit_amount: 900,
  status: 'ALLOWED',
  denial_code: null,
  provider_npi: '1234567893',
  provider_name: 'Riverside Surgery Center',
  ...over,
});

const payout = (over: Partial<Payout>): Payout => ({
  sequence: 1,
  provider_npi: '1234567893',
  provider_name: 'Riverside Surgery Center',
  provider_role: 'FACILITY',
  processor_payout_id: 'po_1',
  amount: 900,
  payout_status: 'COMPLETED',
  payout_date: '2026-03-02T10:00:00Z',
  expected_arrival: '2026-03-03T10:00:00Z',
  processor_fee: 20.1,
  net_to_provider: 879.9,
  ...over,
});

function found(lines: LedgerServiceLine[], payouts: Payout[], status = 'COMPLETED'): FoundTransfer {
  const transfer = {
    settlement_id: 'stl_1',
    encounter_id: 'enc_1',
    processor_transfer_id: 'tr_1',
    status,
    total_amount: 900,
    payouts,
    reconciliation_status: 'MATCHED',
    aeob_match: null,
    initiated_at: '2026-03-02T10:00:00Z',
    completed_at: '2026-03-03T10:00:00Z',
    failed_at: status === 'FAILED' ? '2026-03-02T11:00:00Z' : null,
    refund_details: null,
    disputes: [],
  } satisfies SettlementTransfer;
  const detail = {
    encounter: {
      id: 'enc_1',
      encounter_number: 'ENC-2026-000001',
      status: 'RECONCILED',
      service_date: '2026-03-02',
      submission_date: '2026-03-02',
      patient: { member_id: 'MBR-1001', name: 'Jane Doe', dob: null },
      provider: { npi: '1234567893', name: 'Riverside Surgery Center', role: 'FACILITY', facility_npi: null, facility_name: null },
      payer: DETAIL_PAYER,
    },
    entries: [],
    financial_summary: {},
    service_lines: lines,
    reconciliation: {
      claim_match_status: 'MATCHED',
      aeob_reference: null,
      processor_trace_id: 'tr_1',
      settlement_record_id: 'stl_1',
      external_claim_id: 'enc_1',
    },
  } satisfies LedgerDetail;
  return { transfer, detail };
}

describe('remitTransactions', () => {
  const surgeonDenied = line({
    sequence: 2,
    submitted_charge: 650,
    allowed_amount: 0,
    deductible_applied: 0,
    copay_applied: 0,
    coinsurance_applied: 0,
    patient_responsibility: 0,
    benefit_amount: 0,
    status: 'DENIED',
    denial_code: 'CARC-B7',
    provider_npi: '1045782368',
    provider_name: 'Dr. Alice Morgan',
  });

  it('tells a provider of the lines whom the transfer pays nothing: a notice (BPR H) with its denied line under CO-B7', () => {
    const r = remitTransactions(found([line({}), surgeonDenied], [payout({})]), new Map());
    expect(r.transactions.map((t) => [t.kind, t.payee.npi])).toEqual([
      ['payment', '1234567893'],
      ['notice', '1045782368'],
    ]);
    const { transactions } = checked835(write835(r.transactions, ENVELOPE));
    expect(transactions[1]!.segments).toContainEqual(['CAS', 'CO', 'B7', '650']);
    expect(transactions[1]!.claims[0]!.clp[2]).toBe('4');
  });

  it('a notice has a trace of its own (TRN02 <transfer>-NOTICE), and a refund reverses it with the payment: CLP02 22, every amount negated, BPR H 0.00, TRN02 <refund>-NOTICE', () => {
    // Dr. Morgan's line paid nothing: the deductible took it all (patient responsibility 510.00).
    const deductible = line({
      sequence: 2,
      submitted_charge: 650,
      allowed_amount: 510,
      deductible_applied: 510,
      copay_applied: 0,
      coinsurance_applied: 0,
      patient_responsibility: 510,
      benefit_amount: 0,
      provider_npi: '1045782368',
      provider_name: 'Dr. Alice Morgan',
    });
    const paid = checked835(write835(remitTransactions(found([line({}), deductible], [payout({})]), new Map()).transactions, ENVELOPE)).transactions;
    expect(paid.map((t) => [t.payee[4], t.bpr[1], t.trn[1], t.trn[2]])).toEqual([
      ['1234567893', 'I', '1', 'tr_1'],
      ['1045782368', 'H', '1', 'tr_1-NOTICE'],
    ]);
    expect(paid[1]!.claims[0]!.clp.slice(2, 6)).toEqual(['1', '650', '0', '510']);
    const f = found([line({}), deductible], [payout({})], 'REFUNDED');
    f.transfer.refund_details = { refund_id: 're_9', amount: 879.9, reason: 'returned', refunded_at: '2026-04-06T10:00:00Z' };
    const r = remitTransactions(f, new Map());
    expect(r.transactions.map((t) => [t.kind, t.payee.npi, t.transferId])).toEqual([
      ['reversal', '1234567893', 're_9'],
      ['notice', '1045782368', 're_9-NOTICE'],
    ]);
    const [, notice] = checked835(write835(r.transactions, ENVELOPE)).transactions;
    expect(notice!.bpr.slice(1, 3)).toEqual(['H', '0']);
    expect(notice!.claims[0]!.clp.slice(2, 6)).toEqual(['22', '-650', '0', '-510']);
    expect(notice!.segments).toContainEqual(['CAS', 'PR', '1', '-510']);
    expect(notice!.segments.find((s) => s[0] === 'PLB')).toBeUndefined();
    // --npi <the notice's payee>: its reversal alone, dated the refund's day.
    expect(remitTransactions(f, new Map(), '1045782368').transactions.map((t) => [t.kind, t.reverses, t.productionDate])).toEqual([
      ['notice', true, '2026-04-06'],
    ]);
  });

  it('takes CLP01 from the CLM01 map, and the one payee for lines that do not name their provider', () => {
    const r = remitTransactions(found([line({ provider_npi: undefined })], [payout({})]), new Map([['enc_1', 'PATIENT123']]));
    expect(r.transactions[0]).toMatchObject({ claimId: 'PATIENT123', payee: { npi: '1234567893' }, feeCents: 2010, paymentCents: 90_000 });
  });

  it('refuses a payout its lines do not add up to (exit 4), lines without providers under several payouts, and says why a FAILED transfer has none', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as TpaError;
      }
      throw new Error('did not throw');
    };
    expect(err(() => remitTransactions(found([line({})], [payout({ amount: 901 })]), new Map()))).toMatchObject({
      exitCode: 4,
      message: expect.stringMatching(/pays 1234567893 901\.00 but the benefit of its lines is 900\.00/),
    });
    expect(
      err(() => remitTransactions(found([line({ provider_npi: undefined })], [payout({}), payout({ sequence: 2, provider_npi: '1045782368' })]), new Map()))
        .exitCode,
    ).toBe(4);
    const failed = remitTransactions(found([line({})], [payout({})], 'FAILED'), new Map());
    expect(failed.transactions).toEqual([]);
    expect(failed.none?.why).toMatch(/FAILED on 2026-03-02: no money moved/);
  });
});

describe('review of the 835', () => {
  const thrown = (f: () => unknown): Error & { kind?: string; exitCode?: number } => {
    try {
      f();
    } catch (e) {
      return e as Error;
    }
    throw new Error('did not throw');
  };

  it("writes each line's own service date in DTM*472 (the ledger's service_date), the encounter's when a service does not send it", () => {
    const lines = [line({ service_date: '2006-10-03' }), line({ sequence: 2, cpt_code: '99213', service_date: undefined })];
    const r = remitTransactions(found(lines, [payout({ amount: 1800 })]), new Map());
    const { transactions } = checked835(write835(r.transactions, ENVELOPE));
    expect(transactions[0]!.claims[0]!.lines.map((l) => l.dtm472)).toEqual(['20061003', '20260302']);
  });

  it('refuses text that would break the file out of a remote-shaped body: a date with X12 after it, a sequence that is not a number', () => {
    const dated = found([line({})], [payout({})]);
    (dated.detail.encounter as Record<string, unknown>).submission_date = '2026-01-01~ISA*00*';
    const r1 = remitTransactions(dated, new Map());
    const e1 = thrown(() => write835(r1.transactions, ENVELOPE));
    expect(e1.message).toMatch(/submission date is not a date \(YYYY-MM-DD\): "2026-01-01~ISA\*00\*"/);
    expect(e1.kind).toBe('unusable');
    const body = JSON.parse(JSON.stringify(found([line({})], [payout({})]))) as FoundTransfer;
    (body.detail.service_lines[0] as unknown as Record<string, unknown>).sequence = '1~X';
    const r2 = remitTransactions(body, new Map());
    const e2 = thrown(() => write835(r2.transactions, ENVELOPE));
    expect(e2.message).toMatch(/sequence is not a whole number: "1~X"/);
    expect(thrown(() => write835([payment({ lines: [allowedLine({ units: -1 })] })], ENVELOPE)).message).toMatch(/units of line 1 is not a quantity: -1/);
    expect(thrown(() => write835([payment({ lines: [allowedLine({ units: 1e21 })] })], ENVELOPE)).kind).toBe('unusable');
    expect(thrown(() => write835([payment({ lines: [allowedLine({ units: 0.000001 })] })], ENVELOPE)).kind).toBe('unusable');
    // Decimal units (drug and time units) are written as sent, SVC05 being a decimal.
    const decimal = checked835(write835([payment({ lines: [allowedLine({ units: 1.5 })] })], ENVELOPE)).transactions[0]!;
    expect(decimal.claims[0]!.lines[0]!.svc[5]).toBe('1.5');
    expect(thrown(() => write835([payment({ lines: [allowedLine({ serviceDate: '2026-03-02T00:00:00Z' })] })], ENVELOPE)).kind).toBe('unusable');
  });

  it("refuses a line whose benefit is not its allowed amount less the patient's share: the line would not balance", () => {
    // allowed 1,650.00 − patient 750.00 = 900.00, but the service says the benefit is 950.00.
    const r = remitTransactions(found([line({ benefit_amount: 950 })], [payout({ amount: 950 })]), new Map());
    const e = thrown(() => write835(r.transactions, ENVELOPE));
    expect(e.kind).toBe('unbalanced');
    expect(e.message).toMatch(/line 1 \(45380\) of enc_1 does not balance: charge 2400 less adjustments 1500 is not its payment 950/);
  });

  it('refuses a transfer that pays nothing to a provider whose lines have a benefit, rather than leave the money out', () => {
    const owed = line({ sequence: 2, provider_npi: '1045782368', provider_name: 'Dr. Alice Morgan' });
    const e = thrown(() => remitTransactions(found([line({}), owed], [payout({})]), new Map()));
    expect(e.exitCode).toBe(4);
    expect(e.message).toMatch(/pays nothing to 1045782368, whose lines have a benefit of 900\.00/);
  });

  it('x12Amount is money.ts centsToJson, refusing what is not whole cents', () => {
    for (const c of [0, 5, -5, 10, 12340, -500, 100, 123456789, -99]) expect(x12Amount(c)).toBe(centsToJson(c));
    expect(thrown(() => x12Amount(1.5)).kind).toBe('unusable');
  });
});

describe('a refunded transfer', () => {
  const refunded = (amount: number): FoundTransfer => {
    const f = found([line({})], [payout({})], 'REFUNDED');
    f.transfer.refund_details = { refund_id: 're_1', amount, reason: 'returned', refunded_at: '2026-04-06T10:00:00Z' };
    return f;
  };

  it("is its payment when asked (the period it was paid in), else its reversal, whose PLB 72 must be the refund's amount", () => {
    expect(remitTransactions({ ...refunded(879.9), as: 'payment' }, new Map()).transactions.map((t) => t.kind)).toEqual(['payment']);
    const r = remitTransactions(refunded(879.9), new Map());
    expect(r.transactions.map((t) => [t.kind, t.productionDate])).toEqual([['reversal', '2026-04-06']]);
    let error: (Error & { exitCode?: number }) | undefined;
    try {
      remitTransactions(refunded(900), new Map());
    } catch (e) {
      error = e as Error;
    }
    expect(error?.exitCode).toBe(4);
    expect(error?.message).toMatch(/its refund is 900\.00 but its payouts' net is 879\.90/);
  });
});

describe('a line whose price had anesthesia paid elsewhere taken off', () => {
  it('adjusts that part under CO-97 (included in another payment) and the rest of the reduction under CO-45, balanced', () => {
    // Charged 10,000.00, priced 9,500.00, allowed 8,735.00 once the 765.00 anesthesia paid on another claim is taken off.
    const line = allowedLine({
      cptCode: '27447',
      chargeCents: 1_000_000,
      allowedCents: 873_500,
      deductibleCents: 0,
      coinsuranceCents: 0,
      copayCents: 0,
      patientCents: 0,
      paidCents: 873_500,
      includedElsewhereCents: 76_500,
    });
    const text = write835([payment({ lines: [line], paymentCents: 873_500, feeCents: 19_247 })], ENVELOPE);
    expect(text).toContain('CAS*CO*97*765**45*500~');
    expect(text).not.toContain('CAS*CO*45*1265');
    checked835(text);
  });
});

describe('the 835 a posting system expects', () => {
  it("loop 1000A holds the payer's address (N3, N4) and technical contact (PER*BL); TRN03 and BPR10 are 1 and its EIN", () => {
    const t = checked835(write835([payment()], ENVELOPE)).transactions[0]!;
    expect(t.trn).toEqual(['TRN', '1', 'tr_1', '1990000001']);
    expect(t.bpr[10]).toBe('1990000001');
    const payer = t.segments.slice(
      t.segments.findIndex((s) => s[0] === 'N1' && s[1] === 'PR'),
      t.segments.findIndex((s) => s[0] === 'N1' && s[1] === 'PE'),
    );
    expect(payer).toEqual([
      ['N1', 'PR', 'Acme Health Plan'],
      ['N3', '100 Sandbox Way', 'Suite 400'],
      ['N4', 'Springfield', 'IL', '62701'],
      ['REF', '2U', 'PAYER-ACME'],
      ['PER', 'BL', 'Acme Health Plan EDI Support', 'TE', '8005550100', 'EM', 'edi@acme-health.example'],
    ]);
  });

  it('a payer the service gives no profile of: no N3/N4/PER*BL and TRN03 its id, which the TR3 check names; a tax id that is not nine digits is refused', () => {
    const text = write835([payment({ payer: { name: 'Other Plan', id: 'PAYER-OTHER' } })], ENVELOPE);
    expect(text).toContain('TRN*1*tr_1*PAYER-OTHE~');
    expect(text).not.toMatch(/^N3\*/m);
    expect(tr3Problems(text, { allowMissingBankAccounts: true })).toEqual([
      'ST 0001: TRN*1 (segment 3) TRN03 must be 1 and the payer\'s nine-digit EIN, is "PAYER-OTHE"',
      "ST 0001: the payer's address (loop 1000A) (N3) is missing before segment 6 (REF)",
      "ST 0001: the payer's city, state and ZIP (loop 1000A) (N4) is missing before segment 6 (REF)",
      "ST 0001: the payer's technical contact (loop 1000A PER*BL) is missing",
    ]);
    expect(() => write835([payment({ payer: { ...PAYER, taxId: '12-34' } })], ENVELOPE)).toThrow(/tax id is not nine digits/);
  });

  it('an institutional claim: CLP08/CLP09 its type of bill, SVC04 the revenue code, NU:<revenue> for a line without a procedure code, LQ*HE its remark codes', () => {
    const lines = [
      allowedLine({ revenueCode: '0305' }),
      allowedLine({
        sequence: 2,
        cptCode: '',
        revenueCode: '0250',
        chargeCents: 4_000,
        allowedCents: 0,
        deductibleCents: 0,
        coinsuranceCents: 0,
        copayCents: 0,
        patientCents: 0,
        paidCents: 0,
        status: 'DENIED',
        denialCode: 'CARC-96',
        remarkCodes: ['N130', 'M15'],
      }),
    ];
    const text = write835([payment({ lines, facilityTypeCode: '14', claimFrequencyCode: '1' })], ENVELOPE);
    const t = checked835(text).transactions[0]!;
    expect(t.claims[0]!.clp.slice(6)).toEqual(['CI', 'enc_1', '14', '1']);
    expect(t.claims[0]!.lines.map((l) => l.svc.slice(1))).toEqual([
      ['HC:45380', '2400', '900', '0305', '1'],
      ['NU:0250', '40', '0', '', '1'],
    ]);
    // LQ*HE after the line's CAS, REF and AMT, as loop 2110 orders them.
    const second = t.segments.slice(t.segments.findIndex((s) => s[0] === 'SVC' && s[1] === 'NU:0250'));
    expect(second.map((s) => s.slice(0, 2).join('*'))).toEqual(['SVC*NU:0250', 'DTM*472', 'CAS*CO', 'REF*6R', 'LQ*HE', 'LQ*HE', 'PLB*1234567893']);
    expect(second.filter((s) => s[0] === 'LQ')).toEqual([
      ['LQ', 'HE', 'N130'],
      ['LQ', 'HE', 'M15'],
    ]);
    // A professional claim has neither: CLP ends at CLP07.
    expect(checked835(write835([payment()], ENVELOPE)).transactions[0]!.claims[0]!.clp).toHaveLength(8);
    expect(() => write835([payment({ lines: [allowedLine({ remarkCodes: ['N1~X'] })] })], ENVELOPE)).toThrow(/remark code of line 1 is not one/);
  });
});

describe('the billing provider of a claim its lines were paid to others for', () => {
  const BILLING = '1003000126';
  const surgeon = (over: Partial<LedgerServiceLine>) =>
    line({ provider_npi: '1045782368', provider_name: 'Dr. Alice Morgan', line_control_number: 'A1', ...over });
  const billedElsewhere = () => {
    const f = found(
      [
        surgeon({}),
        line({
          sequence: 2,
          cpt_code: '99213',
          submitted_charge: 180,
          allowed_amount: 100,
          deductible_applied: 0,
          copay_applied: 0,
          coinsurance_applied: 0,
          patient_responsibility: 0,
          benefit_amount: 100,
          line_control_number: 'A2',
        }),
      ],
      [
        payout({ provider_npi: '1045782368', provider_name: 'Dr. Alice Morgan' }),
        payout({ sequence: 2, amount: 100, processor_fee: 2.2, net_to_provider: 97.8 }),
      ],
    );
    f.transfer.total_amount = 1000;
    f.detail.encounter.provider = { npi: BILLING, name: 'Valley Billing Group', role: 'GROUP', facility_npi: null, facility_name: null };
    f.detail.encounter.patient_control_number = 'CLM-77';
    return f;
  };

  it('gets an informational copy (BPR H, 0.00) of the whole claim: its CLM01, every line with REF*HPI naming its payee, a PLB CS per payee; the payees their own', () => {
    const r = remitTransactions(billedElsewhere(), new Map());
    expect(r.transactions.map((t) => [t.kind, t.payee.npi])).toEqual([
      ['payment', '1045782368'],
      ['payment', '1234567893'],
      ['copy', BILLING],
    ]);
    const copy = checked835(write835(r.transactions, ENVELOPE)).transactions[2]!;
    expect(copy.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
    expect(copy.payee).toEqual(['N1', 'PE', 'Valley Billing Group', 'XX', BILLING]);
    expect(copy.claims[0]!.clp.slice(1, 5)).toEqual(['CLM-77', '1', '2580', '1000']);
    expect(copy.segments.filter((s) => s[0] === 'REF' && (s[1] === '6R' || s[1] === 'HPI'))).toEqual([
      ['REF', '6R', 'A1'],
      ['REF', 'HPI', '1045782368'],
      ['REF', '6R', 'A2'],
      ['REF', 'HPI', '1234567893'],
    ]);
    expect(copy.segments.find((s) => s[0] === 'PLB')).toEqual(['PLB', BILLING, '20261231', 'CS:1045782368', '900', 'CS:1234567893', '100']);
  });

  it('has a trace of its own (TRN02 <transfer>-INFO), and a refund reverses it: CLP02 22, every amount negated, each PLB CS given back, balanced at 0', () => {
    const paid = checked835(write835(remitTransactions(billedElsewhere(), new Map()).transactions, ENVELOPE)).transactions;
    expect(paid.map((t) => t.trn[2])).toEqual(['tr_1', 'tr_1', 'tr_1-INFO']);
    const f = billedElsewhere();
    f.transfer.status = 'REFUNDED';
    f.transfer.refund_details = { refund_id: 're_9', amount: 977.7, reason: 'returned', refunded_at: '2026-04-06T10:00:00Z' };
    const r = remitTransactions(f, new Map());
    expect(r.transactions.map((t) => [t.kind, t.payee.npi])).toEqual([
      ['reversal', '1045782368'],
      ['reversal', '1234567893'],
      ['copy', BILLING],
    ]);
    const [, , copy] = checked835(write835(r.transactions, ENVELOPE)).transactions;
    expect(copy!.trn[2]).toBe('re_9-INFO');
    expect(copy!.bpr.slice(1, 3)).toEqual(['H', '0']);
    expect(copy!.claims[0]!.clp.slice(1, 5)).toEqual(['CLM-77', '22', '-2580', '-1000']);
    expect(copy!.segments.find((s) => s[0] === 'PLB')).toEqual(['PLB', BILLING, '20261231', 'CS:1045782368', '-900', 'CS:1234567893', '-100']);
    expect(remitTransactions(f, new Map(), BILLING).transactions.map((t) => [t.kind, t.productionDate])).toEqual([['copy', '2026-04-06']]);
  });

  it('--npi <billing> selects the copy alone; a billing provider that is a payee of a line gets its own transaction and no copy', () => {
    expect(remitTransactions(billedElsewhere(), new Map(), BILLING).transactions.map((t) => t.kind)).toEqual(['copy']);
    const own = billedElsewhere();
    own.detail.encounter.provider.npi = '1234567893';
    expect(remitTransactions(own, new Map()).transactions.map((t) => t.kind)).toEqual(['payment', 'payment']);
  });
});

describe('units as sent', () => {
  it("a ledger line's decimal quantity (drug or time units) is SVC05 as sent, never rounded or taken as 1", () => {
    const r = remitTransactions(found([line({ quantity: 2.5 })], [payout({})]), new Map());
    const t = checked835(write835(r.transactions, ENVELOPE)).transactions[0]!;
    expect(t.claims[0]!.lines.map((l) => l.svc[5])).toEqual(['2.5']);
  });
});
