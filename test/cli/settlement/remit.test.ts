// tpa settlement remit (X12 835 out): encounters adjudicated with deductible, copay and
// coinsurance, a partly denied claim and a four-provider encounter are funded and settled, and the
// 835 written for their transfers is re-read by node-x12 and checked for the guide's balancing.
// Failed transfers write nothing, refunded ones a reversal; CLP01 is the CLM01 of a claim the
// journals say came in an 837.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../../src/engine/engine.js';
import { useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';
import { login, serve } from '../../helpers/server.js';
import { cents } from '../../helpers/values.js';
import { checked835, x12Cents } from '../../helpers/x12-835-check.js';

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

beforeEach(async () => {
  // Monday 2 March 2026: the transfers arrive on Tuesday.
  expect((await run(['local', 'clock', 'set', '2026-03-02T10:00:00Z'])).code).toBe(0);
});

/** An adjudicated, funded encounter; its id, number, funding answer and ledger detail. */
async function funded(template: string[]) {
  const e = await adjudicatedEncounter(run, home.dir, { template });
  const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', `AUTH-${e.id.slice(-6)}`, '--yes', '-o', 'json']);
  expect(f.code, f.stderr).toBe(0);
  const detail = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>();
  return { id: e.id, number: detail.encounter.encounter_number as string, transfer: f.json<Body>().processor_transfer_id as string, detail };
}

const settle = async () => expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);
const settlement = async (id: string) => (await run(['settlement', 'show', id, '-o', 'json'])).json<Body>();

describe('settlement remit: a COMPLETED transfer', () => {
  it('writes one balanced transaction per payee of a four-provider encounter (FACILITY, SURGEON, …) with deductible, copay and coinsurance', async () => {
    // MBR-1001 (Gold: deductible 500.00, copay 25.00, 20% coinsurance), nothing met yet.
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const s = await settlement(e.id);
    expect(s.status).toBe('COMPLETED');
    const r = await run(['settlement', 'remit', e.id]);
    expect(r.code, r.stderr).toBe(0);
    const { transactions } = checked835(r.stdout);
    expect(transactions.map((t) => t.payee[4])).toEqual(s.payouts.map((p: Body) => p.provider_npi));
    expect(transactions.map((t) => t.payee.slice(1, 4))).toEqual(s.payouts.map((p: Body) => ['PE', p.provider_name, 'XX']));
    for (const [i, t] of transactions.entries()) {
      const p = s.payouts[i];
      // BPR02 is what reaches the provider's bank: the payout less the processor's fee (PLB CS).
      expect(t.bpr.slice(1, 5)).toEqual(['I', t.bpr[2], 'C', 'ACH']);
      expect(x12Cents(t.bpr[2]!)).toBe(cents(p.net_to_provider));
      expect(t.plbCents).toBe(cents(p.processor_fee));
      expect(t.segments.find((x) => x[0] === 'PLB')).toEqual(['PLB', p.provider_npi, '20261231', `CS:${p.processor_payout_id}`, expect.any(String)]);
      expect(t.bpr[16]).toBe('20260303');
      expect(t.trn).toEqual(['TRN', '1', e.transfer, '1990000001']);
      expect(t.claims).toHaveLength(1);
      expect(t.claims[0]!.clp.slice(1, 3)).toEqual([e.number, '1']);
      expect(t.claims[0]!.clp[7]).toBe(e.id);
      expect(x12Cents(t.claims[0]!.clp[4]!)).toBe(cents(p.amount));
      expect(t.claims[0]!.lines.every((l) => l.dtm472 === '20260302')).toBe(true);
    }
    expect(r.stdout).toContain('N1*PR*Acme Health Plan~');
    // The facility's line carries the deductible, the copay and its coinsurance, each under PR.
    const facility = transactions[0]!.segments;
    const line1 = e.detail.service_lines[0];
    expect(facility).toContainEqual(['SVC', `HC:${line1.cpt_code}`, String(line1.submitted_charge), String(line1.benefit_amount), line1.revenue_code, '1']);
    expect(facility).toContainEqual(['CAS', 'CO', '45', String(line1.submitted_charge - line1.allowed_amount)]);
    expect(facility).toContainEqual([
      'CAS',
      'PR',
      '1',
      String(line1.deductible_applied),
      '',
      '2',
      String(line1.coinsurance_applied),
      '',
      '3',
      String(line1.copay_applied),
    ]);
    expect(line1.deductible_applied).toBeGreaterThan(0);
    expect(line1.copay_applied).toBeGreaterThan(0);
  });

  it('remits a partly denied claim: the not-covered line under CO with its CARC (96), paid 0', async () => {
    // MBR-1003 arrives with the deductible met: the covered line pays.
    const e = await funded(['--type', 'professional', '--npi', '1045782368', '--cpt', '45380', '99213', '--patient', 'MBR-1003']);
    const denied = e.detail.service_lines.find((l: Body) => l.status === 'NOT_COVERED');
    expect(denied).toMatchObject({ denial_code: 'CARC-96' });
    await settle();
    const r = await run(['settlement', 'remit', e.number]);
    expect(r.code, r.stderr).toBe(0);
    const { transactions } = checked835(r.stdout);
    expect(transactions).toHaveLength(1);
    const claim = transactions[0]!.claims[0]!;
    expect(claim.lines).toHaveLength(2);
    expect(claim.lines[1]!.svc).toEqual(['SVC', 'HC:99213', String(denied.submitted_charge), '0', '', '1']);
    expect(transactions[0]!.segments).toContainEqual(['CAS', 'CO', '96', String(denied.submitted_charge)]);
    expect(claim.clp[2]).toBe('1');
  });

  it('the same transfer by its processor transfer id, --npi keeping one payee; --out writes the file and will not overwrite it without --force', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const out = join(home.dir, 'remit.835');
    const first = await run(['settlement', 'remit', e.transfer, '--npi', '1045782368', '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const written = readFileSync(out, 'utf8');
    const { transactions, interchange } = checked835(written);
    expect(transactions.map((t) => t.payee[4])).toEqual(['1045782368']);
    const control = interchange.header.elements[12]!.value;
    const again = await run(['settlement', 'remit', e.transfer, '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists.*--force/s);
    expect(readFileSync(out, 'utf8')).toBe(written);
    const forced = await run(['settlement', 'remit', e.transfer, '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const replaced = checked835(readFileSync(out, 'utf8'));
    expect(replaced.transactions).toHaveLength(4);
    // Each file its own interchange control number.
    expect(replaced.interchange.header.elements[12]!.value).not.toBe(control);
    const missing = await run(['settlement', 'remit', e.transfer, '--npi', '1859362703']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
  });
});

describe('settlement remit --out into a folder that is not there', () => {
  it('says which folder is missing, names no temporary file, exits 2 and writes nothing', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    for (const out of [join(home.dir, 'no-such-folder', 'x.835'), join(home.dir, 'no-such-folder', 'deeper', 'x.835')]) {
      const r = await run(['settlement', 'remit', e.id, '--out', out]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toContain(`cannot write ${out}: the folder ${join(out, '..')} does not exist; nothing was written`);
      expect(r.stderr).not.toMatch(/\.tmp\b|ENOENT|x\.835\.\d/);
    }
    writeFileSync(join(home.dir, 'a-file'), 'x');
    const notFolder = await run(['settlement', 'remit', e.id, '--out', join(home.dir, 'a-file', 'x.835')]);
    expect(notFolder.code).toBe(2);
    expect(notFolder.stderr).toContain(`${join(home.dir, 'a-file')} is not a folder`);
  });
});

describe('settlement remit: failed and refunded transfers', () => {
  it('a FAILED transfer writes nothing: exit 4, why on stderr, no file', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    expect((await run(['local', 'simulate', 'settlement-failure', e.id])).code).toBe(0);
    const out = join(home.dir, 'failed.835');
    const r = await run(['settlement', 'remit', e.id, '--out', out]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/FAILED on 2026-03-02: no money moved, so there is nothing to remit; no 835 written/);
    expect(existsSync(out)).toBe(false);
  });

  it('a transfer still in transit writes nothing yet: exit 7', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    const r = await run(['settlement', 'remit', e.id]);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/INITIATED: its 835 is written once the transfer is COMPLETED/);
  });

  it('a REFUNDED transfer writes a reversal: CLP02 22 with negated amounts, BPR01 H for 0, PLB 72 and CS balancing it', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const paid = checked835((await run(['settlement', 'remit', e.id])).stdout);
    expect((await run(['local', 'simulate', 'refund', e.id])).code).toBe(0);
    const s = await settlement(e.id);
    expect(s.status).toBe('REFUNDED');
    const r = await run(['settlement', 'remit', e.transfer]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/was refunded on 2026-03-04: this is its reversal; its payment is in the 835 of the period it was paid in/);
    const { transactions } = checked835(r.stdout);
    expect(transactions).toHaveLength(4);
    for (const [i, t] of transactions.entries()) {
      const p = s.payouts[i];
      expect(t.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
      const claim = t.claims[0]!;
      const original = paid.transactions[i]!.claims[0]!;
      expect(claim.clp[2]).toBe('22');
      for (const k of [3, 4, 5]) expect(x12Cents(claim.clp[k]!)).toBe(-x12Cents(original.clp[k]!));
      const plb = t.segments.find((x) => x[0] === 'PLB')!;
      expect(plb[3]).toBe(`72:${s.refund_details.refund_id}`);
      // What the payee gave back: its net; the fee it bore comes back to it under CS.
      expect(x12Cents(plb[4]!)).toBe(-cents(p.net_to_provider));
      expect(plb[5]).toBe(`CS:${p.processor_payout_id}`);
      expect(x12Cents(plb[6]!)).toBe(-cents(p.processor_fee));
    }
  });
});

describe('settlement remit: an encounter that pays nothing', () => {
  it('a denied encounter gets a notice: BPR H 0.00, CLP02 4, each line under CO with its CARC, balanced', async () => {
    const first = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001'] });
    // The same claim again: denied as a duplicate of the first (CARC 18).
    const again = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001'] });
    expect(first.response.disposition).toBe('APPROVED');
    expect(again.response.disposition).toBe('DENIED');
    const r = await run(['settlement', 'remit', again.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/was denied: no transfer follows; this 835 is a notice/);
    const { transactions } = checked835(r.stdout);
    expect(transactions).toHaveLength(1);
    const [t] = transactions as [(typeof transactions)[number]];
    expect(t.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
    const detail = (await run(['ledger', 'show', again.id, '-o', 'json'])).json<Body>();
    expect(t.trn).toEqual(['TRN', '1', detail.reconciliation.aeob_reference, '1990000001']);
    expect(t.claims).toHaveLength(1);
    const clp = t.claims[0]!.clp;
    expect(clp[2]).toBe('4');
    expect(x12Cents(clp[4]!)).toBe(0);
    const cas = t.segments.filter((x) => x[0] === 'CAS');
    expect(cas.length).toBeGreaterThan(0);
    expect(cas.every((x) => x[1] === 'CO' && x[2] === '18')).toBe(true);
  });

  it('an error never reaches stdout, which holds only X12: an unknown encounter in JSON mode exits 3 with stdout empty', async () => {
    const r = await run(['settlement', 'remit', 'enc_0123456789abcdef0123', '-o', 'json']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { exit_code: 3 } });
  });
});

describe('settlement remit --from --to', () => {
  it('writes the transfers that arrived in the period, not a failed one (it never arrived), and nothing for an empty period', async () => {
    const a = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    const b = await funded(['--type', 'professional', '--npi', '1045782368', '--cpt', '45380', '99213', '--patient', 'MBR-1003']);
    const c = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003', '--service-date', '2026-02-27']);
    expect((await run(['local', 'simulate', 'settlement-failure', c.id])).code).toBe(0);
    await settle();
    const r = await run(['settlement', 'remit', '--from', '2026-03-01', '--to', '2026-03-31']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(c.transfer);
    const { transactions } = checked835(r.stdout);
    expect(transactions.map((t) => t.trn[2])).toEqual([a.transfer, a.transfer, a.transfer, a.transfer, b.transfer]);
    const surgeon = await run(['settlement', 'remit', '--from', '2026-03-01', '--to', '2026-03-31', '--npi', '1045782368']);
    expect(checked835(surgeon.stdout).transactions.map((t) => [t.trn[2], t.payee[4]])).toEqual([
      [a.transfer, '1045782368'],
      [b.transfer, '1045782368'],
    ]);
    const none = await run(['settlement', 'remit', '--from', '2026-02-01', '--to', '2026-02-28']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/no 835 written: no transfer arrived \(was paid\) or was refunded from 2026-02-01 to 2026-02-28/);
    expect((await run(['settlement', 'remit', a.id, '--from', '2026-03-01'])).code).toBe(2);
    expect((await run(['settlement', 'remit', '--from', '2026-03-01'])).code).toBe(2);
  });
});

describe('settlement remit: CLP01 from the claim journals', () => {
  it('is the CLM01 of a claim an 837 sent (its sending and acknowledged records), else the encounter number', async () => {
    const a = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003']);
    const b = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003', '--service-date', '2026-02-27']);
    await settle();
    const claim = 'x12:SUBMITTERID:000000123:0001:PATIENT*123';
    const dir = join(home.dir, 'journals');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'claims-0123456789abcdef.ndjson'),
      [
        { type: 'batch', version: 2, started_at: '2026-03-02T09:00:00Z' },
        { type: 'sending', claim, source: 'in.837', sha256: 'x', idempotency_key: 'k1', clm01: 'PATIENT*123', at: '2026-03-02T09:00:00Z' },
        { type: 'acknowledged', claim, submission_id: 'sub_1', external_claim_id: a.id, at: '2026-03-02T09:00:01Z' },
      ]
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
    const ra = await run(['settlement', 'remit', a.id]);
    expect(ra.code, ra.stderr).toBe(0);
    // The * of the CLM01 would split the element: it is screened to a space.
    expect(checked835(ra.stdout).transactions[0]!.claims[0]!.clp.slice(1, 3)).toEqual(['PATIENT 123', '1']);
    const rb = await run(['settlement', 'remit', b.id]);
    expect(checked835(rb.stdout).transactions[0]!.claims[0]!.clp[1]).toBe(b.number);
  });
});

describe('settlement remit: CLP01 kept by the service', () => {
  it("is the claim's identifier urn:tpa:x12:clm01, which the ledger detail returns as patient_control_number, with no journal on this machine", async () => {
    const e = await adjudicatedEncounter(run, home.dir, {
      template: ['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003'],
      edit: (claim) => {
        claim.identifier = [{ system: 'urn:tpa:x12:clm01', value: 'PATIENT123' }];
      },
    });
    const detail = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>();
    expect(detail.encounter.patient_control_number).toBe('PATIENT123');
    const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-PCN', '--yes']);
    expect(f.code, f.stderr).toBe(0);
    await settle();
    const r = await run(['settlement', 'remit', e.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(checked835(r.stdout).transactions[0]!.claims[0]!.clp.slice(1, 3)).toEqual(['PATIENT123', '1']);
  });
});

describe('settlement remit over the wire', () => {
  it('writes the same 835 from a remote service (tpa local serve) as from the embedded engine, but for the control numbers', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const local = await run(['settlement', 'remit', e.number]);
    expect(local.code, local.stderr).toBe(0);
    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const remote = await run(['settlement', 'remit', e.number, '-p', 'sandbox']);
      expect(remote.code, remote.stderr).toBe(0);
      checked835(remote.stdout);
      const body = (text: string) => text.split('\n').filter((l) => !/^(ISA|GS|GE|IEA)\*/.test(l));
      expect(body(remote.stdout)).toEqual(body(local.stdout));
      expect(body(local.stdout).filter((l) => l.startsWith('ST*'))).toHaveLength(4);
    } finally {
      await server.stop();
    }
  });
});

describe('settlement remit: review', () => {
  it("refuses a ledger whose line benefit is not allowed less the patient's share: exit 4, the line named, no file", async () => {
    const e = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003']);
    await settle();
    // The stored outcome says the member owes 1.00 more of line 1 than allowed − benefit leaves.
    const db = new Database(databaseFile(home.dir));
    try {
      const row = db.prepare('SELECT outcome_json FROM encounters WHERE id = ?').get(e.id) as { outcome_json: string };
      const outcome = JSON.parse(row.outcome_json);
      outcome.lines[0].patientResponsibilityCents += 100;
      db.prepare('UPDATE encounters SET outcome_json = ? WHERE id = ?').run(JSON.stringify(outcome), e.id);
    } finally {
      db.close();
    }
    const out = join(home.dir, 'broken.835');
    const r = await run(['settlement', 'remit', e.id, '--out', out]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/line 1 \(\d{5}\) of enc_\w+ does not balance: charge [\d.]+ less adjustments [\d.]+ is not its payment [\d.]+/);
    expect(r.stderr).toContain('no 835 written');
    expect(existsSync(out)).toBe(false);
  });

  it('--out never removes a file it did not make, even one named as its temporary file once was', async () => {
    const e = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003']);
    await settle();
    const out = join(home.dir, 'e.835');
    const theirs = `${out}.${process.pid}.tmp`;
    writeFileSync(theirs, "not tpa's");
    const r = await run(['settlement', 'remit', e.id, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    checked835(readFileSync(out, 'utf8'));
    expect(readFileSync(theirs, 'utf8')).toBe("not tpa's");
  });

  it('a payment refunded the next month: its payment in the month it was paid, its reversal in the month of the refund', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    expect((await run(['local', 'clock', 'set', '2026-04-06T10:00:00Z'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'refund', e.id])).code).toBe(0);
    const s = await settlement(e.id);
    expect(s.status).toBe('REFUNDED');
    const march = await run(['settlement', 'remit', '--from', '2026-03-01', '--to', '2026-03-31']);
    expect(march.code, march.stderr).toBe(0);
    const paid = checked835(march.stdout).transactions;
    expect(paid).toHaveLength(4);
    for (const [i, t] of paid.entries()) {
      expect(t.trn[2]).toBe(e.transfer);
      expect(t.bpr[1]).toBe('I');
      expect(x12Cents(t.bpr[2]!)).toBe(cents(s.payouts[i].net_to_provider));
      expect(t.claims[0]!.clp[2]).toBe('1');
    }
    const april = await run(['settlement', 'remit', '--from', '2026-04-01', '--to', '2026-04-30']);
    expect(april.code, april.stderr).toBe(0);
    const reversed = checked835(april.stdout).transactions;
    expect(reversed).toHaveLength(4);
    for (const [i, t] of reversed.entries()) {
      // The reversal's own trace, the refund's: never the payment's, which a posting system would take it for a copy of.
      expect(t.trn[2]).toBe(s.refund_details.refund_id);
      expect(t.trn[2]).not.toBe(e.transfer);
      expect(t.bpr.slice(1, 3)).toEqual(['H', '0']);
      expect(t.claims[0]!.clp[2]).toBe('22');
      expect(x12Cents(t.claims[0]!.clp[4]!)).toBe(-x12Cents(paid[i]!.claims[0]!.clp[4]!));
      expect(t.segments.find((x) => x[0] === 'DTM' && x[1] === '405')).toEqual(['DTM', '405', '20260406']);
    }
    // Between the two, nothing was paid or refunded.
    const none = await run(['settlement', 'remit', '--from', '2026-03-10', '--to', '2026-03-31']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
  });
});

describe('settlement remit: anesthesia included in another payment', () => {
  it("Lakeside's knee replacement after Summit's anesthesia: the 765.00 taken off is CO-97, the contract's reduction CO-45, balanced", async () => {
    const day = '2026-03-02';
    const preauth = (claim: Body) => {
      claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-34' }];
    };
    // Summit's anesthesia first (765.00), then Lakeside's knee replacement, whose package rate includes it.
    const anesthesia = await adjudicatedEncounter(run, home.dir, { template: ['--npi', '1196382455', '--cpt', '00811', '--service-date', day] });
    expect(cents(anesthesia.response.adjudication.allowed_amount)).toBe(76500);
    const e = await adjudicatedEncounter(run, home.dir, { template: ['--npi', '1450827369', '--cpt', '27447', '--service-date', day], edit: preauth });
    const line = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>().service_lines[0];
    expect(line).toMatchObject({ cpt_code: '27447', status: 'ALLOWED', allowed_amount: 8735, anesthesia_deducted: 765 });
    const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-KNEE', '--yes']);
    expect(f.code, f.stderr).toBe(0);
    await settle();
    const r = await run(['settlement', 'remit', e.id]);
    expect(r.code, r.stderr).toBe(0);
    const { transactions } = checked835(r.stdout);
    expect(transactions).toHaveLength(1);
    const segments = transactions[0]!.segments;
    const svc = segments.findIndex((s) => s[0] === 'SVC' && s[1] === 'HC:27447');
    const cas = segments.slice(svc + 1).find((s) => s[0] === 'CAS' && s[1] === 'CO')!;
    const charge = x12Cents(segments[svc]![2]!);
    // CO-97 765.00 (included in another payment), then the contract's own reduction of the charge to its 9,500.00 price.
    expect(cas.slice(0, 4)).toEqual(['CAS', 'CO', '97', '765']);
    expect(cas.slice(5)).toEqual(['45', expect.any(String)]);
    expect(x12Cents(cas[6]!)).toBe(charge - 950000);
    // Over the wire (tpa local serve) the ledger carries the deduction too: the same CO-97.
    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const remote = await run(['settlement', 'remit', e.id, '-p', 'sandbox']);
      expect(remote.code, remote.stderr).toBe(0);
      const body = (text: string) => text.split('\n').filter((l) => !/^(ISA|GS|GE|IEA)\*/.test(l));
      expect(body(remote.stdout)).toEqual(body(r.stdout));
      expect(checked835(remote.stdout).transactions[0]!.segments.filter((s) => s[0] === 'CAS' && s[2] === '97')).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});

describe('settlement remit: the billing provider of a claim whose lines were paid to others', () => {
  /** Riverside Surgery Center bills a colonoscopy its surgeon rendered: the surgeon, contracted, is paid directly. */
  const billedForSurgeon = (claim: Body) => {
    claim.careTeam = [
      {
        sequence: 1,
        provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1045782368' } },
        role: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claimcareteamrole', code: 'primary' }] },
      },
    ];
    for (const item of claim.item as Body[]) item.careTeamSequence = [1];
  };

  const copyOf = (text: string) => {
    const { transactions } = checked835(text);
    return transactions;
  };

  it('gets an informational copy (BPR H 0.00) with every line, each REF*HPI its payee, and a PLB CS for what the payee was paid; --npi <billing> selects it; in-process and over local serve', async () => {
    const e = await adjudicatedEncounter(run, home.dir, {
      template: ['--type', 'professional', '--npi', '1234567893', '--cpt', '45380', '--patient', 'MBR-1003', '--service-date', '2026-03-02'],
      edit: billedForSurgeon,
    });
    const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-COPY', '--yes']);
    expect(f.code, f.stderr).toBe(0);
    await settle();
    const s = await settlement(e.id);
    expect(s.payouts.map((p: Body) => p.provider_npi)).toEqual(['1045782368']);
    const check = (text: string) => {
      const [payment, copy] = copyOf(text) as [ReturnType<typeof copyOf>[number], ReturnType<typeof copyOf>[number]];
      expect(payment.payee[4]).toBe('1045782368');
      expect(payment.bpr[1]).toBe('I');
      expect(copy.payee).toEqual(['N1', 'PE', 'Riverside Surgery Center', 'XX', '1234567893']);
      expect(copy.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
      // A trace of its own: information, never taken for the payee's payment.
      expect(payment.trn[2]).toBe(s.processor_transfer_id);
      expect(copy.trn[2]).toBe(`${s.processor_transfer_id}-INFO`);
      expect(copy.claims[0]!.clp.slice(3, 5)).toEqual(payment.claims[0]!.clp.slice(3, 5));
      expect(copy.segments).toContainEqual(['REF', 'HPI', '1045782368']);
      expect(copy.segments.find((x) => x[0] === 'PLB')).toEqual(['PLB', '1234567893', '20261231', 'CS:1045782368', payment.claims[0]!.clp[4]]);
    };
    const local = await run(['settlement', 'remit', e.id]);
    expect(local.code, local.stderr).toBe(0);
    check(local.stdout);
    const billing = await run(['settlement', 'remit', e.id, '--npi', '1234567893']);
    expect(copyOf(billing.stdout).map((t) => [t.payee[4], t.bpr[1]])).toEqual([['1234567893', 'H']]);

    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const r = await run(['settlement', 'remit', e.id, '-p', 'sandbox']);
      expect(r.code, r.stderr).toBe(0);
      check(r.stdout);
    } finally {
      await server.stop();
    }
  });
  it('a refund reverses the copy too: CLP02 22 negated, PLB CS given back, BPR H 0.00, its own trace; the period file never shares a trace between copy and payment; in-process and over local serve', async () => {
    const e = await adjudicatedEncounter(run, home.dir, {
      template: ['--type', 'professional', '--npi', '1234567893', '--cpt', '45380', '--patient', 'MBR-1003', '--service-date', '2026-03-02'],
      edit: billedForSurgeon,
    });
    const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-COPY-REV', '--yes']);
    expect(f.code, f.stderr).toBe(0);
    await settle();
    const paid = copyOf((await run(['settlement', 'remit', e.id])).stdout);
    expect((await run(['local', 'simulate', 'refund', e.id])).code).toBe(0);
    const s = await settlement(e.id);
    expect(s.status).toBe('REFUNDED');
    const check = (text: string) => {
      const [reversal, copy] = copyOf(text) as [ReturnType<typeof copyOf>[number], ReturnType<typeof copyOf>[number]];
      expect(reversal.payee[4]).toBe('1045782368');
      expect(reversal.claims[0]!.clp[2]).toBe('22');
      expect(copy.payee[4]).toBe('1234567893');
      expect(copy.bpr.slice(1, 5)).toEqual(['H', '0', 'C', 'NON']);
      expect(copy.trn[2]).toBe(`${s.refund_details.refund_id}-INFO`);
      expect(copy.trn[2]).not.toBe(reversal.trn[2]);
      const clp = copy.claims[0]!.clp;
      expect(clp[2]).toBe('22');
      for (const k of [3, 4, 5]) expect(x12Cents(clp[k]!)).toBe(-x12Cents(paid[1]!.claims[0]!.clp[k]!));
      expect(copy.segments.find((x) => x[0] === 'PLB')).toEqual(['PLB', '1234567893', '20261231', 'CS:1045782368', `-${paid[0]!.claims[0]!.clp[4]}`]);
    };
    const local = await run(['settlement', 'remit', e.id]);
    expect(local.code, local.stderr).toBe(0);
    check(local.stdout);
    const billing = await run(['settlement', 'remit', e.id, '--npi', '1234567893']);
    expect(billing.code, billing.stderr).toBe(0);
    expect(copyOf(billing.stdout).map((t) => [t.payee[4], t.claims[0]!.clp[2]])).toEqual([['1234567893', '22']]);
    // The month's file, addressed to the payees: every transaction's trace is its own.
    const month = await run(['settlement', 'remit', '--from', '2026-03-01', '--to', '2026-03-31']);
    expect(month.code, month.stderr).toBe(0);
    const traces = copyOf(month.stdout).map((t) => t.trn[2]);
    expect(traces.length).toBeGreaterThanOrEqual(4);
    expect(new Set(traces).size).toBe(traces.length);

    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const r = await run(['settlement', 'remit', e.id, '-p', 'sandbox']);
      expect(r.code, r.stderr).toBe(0);
      check(r.stdout);
    } finally {
      await server.stop();
    }
  });
});

describe('settlement remit: a payer without a profile', () => {
  it('still writes the 835, TRN03 the payer id, without N3/N4/PER*BL, and says on stderr what the guide requires and the file lacks', async () => {
    const e = await funded(['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003']);
    await settle();
    const db = new Database(databaseFile(home.dir));
    try {
      db.prepare("DELETE FROM payer_profiles WHERE payer_id = 'PAYER-ACME'").run();
    } finally {
      db.close();
    }
    const detail = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>();
    expect(detail.encounter.payer).toEqual({ name: 'Acme Health Plan', id: 'PAYER-ACME', tax_id: null, address: null, technical_contact: null });
    const r = await run(['settlement', 'remit', e.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`TRN*1*${e.transfer}*PAYER-ACME~`);
    expect(r.stdout).not.toMatch(/^(N3|N4|PER)\*/m);
    expect(r.stderr).toContain(
      'the service gives no address (N3, N4), technical contact (PER*BL), tax id (TRN03 is its id instead) of payer PAYER-ACME: the 835 lacks what the guide requires there',
    );
  });
});

describe('settlement remit: a payee paid nothing on a claim paid to others', () => {
  /** Riverside bills a colonoscopy (Dr. Morgan, paid nothing: the deductible) with pathology (Clearview, paid). */
  const claim837 = () =>
    [
      'ISA*00*          *00*          *ZZ*SUBMITTER1     *ZZ*PAYER-ACME     *260302*1000*^*00501*400000001*0*P*:',
      'GS*HC*SUBMITTER1*PAYER-ACME*20260302*1000*41*X*005010X222A1',
      'ST*837*0001*005010X222A1',
      'BHT*0019*00*NOTICE1*20260302*1000*CH',
      'NM1*41*2*SUBMITTER ONE*****46*SUBMITTER1',
      'NM1*40*2*ACME HEALTH PLAN*****46*PAYER-ACME',
      'HL*1**20*1',
      'NM1*85*2*RIVERSIDE SURGERY CENTER*****XX*1234567893',
      'N3*1 RIVER RD',
      'N4*SPRINGFIELD*IL*62701',
      'REF*EI*123456789',
      'HL*2*1*22*0',
      'SBR*P*18*******CI',
      'NM1*IL*1*PARK*LINDA****MI*MBR-1001',
      'NM1*PR*2*ACME HEALTH PLAN*****PI*PAYER-ACME',
      'CLM*CP1*900***11:B:1*Y*A*Y*Y',
      'HI*ABK:Z1211',
      'NM1*82*1*MORGAN*ALICE****XX*1045782368',
      'LX*1',
      'SV1*HC:45380*650*UN*1***1',
      'DTP*472*D8*20260302',
      'LX*2',
      'SV1*HC:88305*250*UN*1***1',
      'DTP*472*D8*20260302',
      'NM1*82*2*CLEARVIEW PATHOLOGY LAB*****XX*1329475804',
      'SE*24*0001',
      'GE*1*41',
      'IEA*1*400000001',
    ]
      .map((segment) => `${segment}~\n`)
      .join('');

  it('a refund reverses the notice too (CLP02 22, amounts negated, BPR H 0.00), each notice with a trace of its own; per encounter and in a period with --npi; in-process and over local serve', async () => {
    const file = join(home.dir, 'notice.837');
    writeFileSync(file, claim837());
    const sub = await run(['claim', 'submit', file, '--wait', '-o', 'json']);
    expect(sub.code, sub.stderr).toBe(0);
    const id = (sub.json<Body[]>()[0]!.external_claim_id as string) ?? '';
    expect(id).toMatch(/^enc_/);
    const detail = (await run(['ledger', 'show', id, '-o', 'json'])).json<Body>();
    const benefit = (detail.service_lines as Body[]).reduce((sum, l) => sum + cents(l.benefit_amount), 0);
    const f = await run(['fund', 'approve', id, '--amount', (benefit / 100).toFixed(2), '--auth-code', 'AUTH-NOTICE', '--yes', '-o', 'json']);
    expect(f.code, f.stderr).toBe(0);
    await settle();
    const s0 = await settlement(id);
    expect(s0.payouts.map((p: Body) => p.provider_npi)).toEqual(['1329475804']);
    const MORGAN = '1045782368';
    const paid = checked835((await run(['settlement', 'remit', id])).stdout).transactions;
    const notice = paid.find((t) => t.payee[4] === MORGAN)!;
    expect(notice.bpr.slice(1, 3)).toEqual(['H', '0']);
    // A trace of its own: the payment's TRN02 belongs to the money sent to Clearview.
    expect(notice.trn.slice(1, 3)).toEqual(['1', `${s0.processor_transfer_id}-NOTICE`]);
    expect(paid.map((t) => t.trn[2])).toContain(s0.processor_transfer_id);
    const told = notice.claims[0]!.clp;
    expect(x12Cents(told[5]!)).toBeGreaterThan(0);

    expect((await run(['local', 'simulate', 'refund', id])).code).toBe(0);
    expect((await run(['local', 'clock', 'advance', '1d'])).code).toBe(0);
    const s = await settlement(id);
    expect(s.status).toBe('REFUNDED');
    const checkReversed = (text: string) => {
      const txs = checked835(text).transactions;
      const reversed = txs.filter((t) => t.payee[4] === MORGAN);
      expect(reversed.length).toBe(1);
      const r = reversed[0]!;
      expect(r.bpr.slice(1, 3)).toEqual(['H', '0']);
      expect(r.trn.slice(1, 3)).toEqual(['1', `${s.refund_details.refund_id}-NOTICE`]);
      const clp = r.claims[0]!.clp;
      expect(clp[2]).toBe('22');
      for (const k of [3, 4, 5]) expect(x12Cents(clp[k]!) + x12Cents(told[k]!), `CLP0${k} negated`).toBe(0);
      // Every trace in the file its own.
      const traces = txs.map((t) => t.trn[2]);
      expect(new Set(traces).size).toBe(traces.length);
      return txs;
    };
    const all = await run(['settlement', 'remit', id]);
    expect(all.code, all.stderr).toBe(0);
    // The paid payee's reversal, the notice's and the billing provider's copy: all three told alike.
    expect(checkReversed(all.stdout).map((t) => [t.payee[4], t.claims[0]!.clp[2]])).toEqual([
      ['1329475804', '22'],
      [MORGAN, '22'],
      ['1234567893', '22'],
    ]);
    const one = await run(['settlement', 'remit', id, '--npi', MORGAN]);
    expect(one.code, one.stderr).toBe(0);
    expect(checkReversed(one.stdout).length).toBe(1);
    const month = ['settlement', 'remit', '--from', '2026-03-04', '--to', '2026-03-31', '--npi', MORGAN];
    const period = await run(month);
    expect(period.code, period.stderr).toBe(0);
    expect(checkReversed(period.stdout).map((t) => t.claims[0]!.clp[2])).toEqual(['22']);

    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const r = await run(['settlement', 'remit', id, '--npi', MORGAN, '-p', 'sandbox']);
      expect(r.code, r.stderr).toBe(0);
      checkReversed(r.stdout);
      const p = await run([...month, '-p', 'sandbox']);
      expect(p.code, p.stderr).toBe(0);
      expect(checkReversed(p.stdout).map((t) => t.claims[0]!.clp[2])).toEqual(['22']);
    } finally {
      await server.stop();
    }
  });
});
