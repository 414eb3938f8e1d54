// tpa ledger eob: the member's explanation of benefits of a paid, a partly denied, a denied, a
// deductible-only and a refunded encounter, each an ExplanationOfBenefit valid against the official
// FHIR R4 schema, in its CARIN Blue Button profile, its amounts the ledger's to the cent (allowed =
// benefit + member liability on each item and in the totals); the same from a remote service
// (tpa local serve) as from the embedded engine; --out written whole, 0600.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../../src/engine/engine.js';
import { useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../../helpers/encounters.js';
import { login, serve } from '../../helpers/server.js';
import { cents } from '../../helpers/values.js';

type Body = Record<string, any>;

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };
const validator = new JSONSchemaValidator();

const C4BB = 'http://hl7.org/fhir/us/carin-bb';
const PROFESSIONAL = `${C4BB}/StructureDefinition/C4BB-ExplanationOfBenefit-Professional-NonClinician|2.0.0`;
const OUTPATIENT = `${C4BB}/StructureDefinition/C4BB-ExplanationOfBenefit-Outpatient-Institutional|2.0.0`;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

beforeEach(async () => {
  // Monday 2 March 2026: the transfers arrive on Tuesday.
  expect((await run(['local', 'clock', 'set', '2026-03-02T10:00:00Z'])).code).toBe(0);
});

async function eob(ref: string): Promise<Body> {
  const r = await run(['ledger', 'eob', ref]);
  expect(r.code, r.stderr).toBe(0);
  const resource = r.json<Body>();
  expect(validator.validate(resource, true)).toEqual([]);
  return resource;
}

const detailOf = async (id: string) => (await run(['ledger', 'show', id, '-o', 'json'])).json<Body>();

/** An amount category's value in cents, from an item's adjudication or the totals. */
function amount(list: Body[], code: string): number {
  const found = list.filter((a) => a.category.coding[0].code === code);
  expect(found, code).toHaveLength(1);
  return cents(found[0]!.amount.value);
}

/** Each item's amounts are its ledger line's to the cent, allowed = benefit + member liability; the totals are the ledger's. */
function expectLedgerMoney(resource: Body, detail: Body): void {
  expect(resource.item).toHaveLength(detail.service_lines.length);
  for (const [i, line] of (detail.service_lines as Body[]).entries()) {
    const adj = resource.item[i].adjudication as Body[];
    expect(resource.item[i].sequence).toBe(line.sequence);
    expect(amount(adj, 'submitted')).toBe(cents(line.submitted_charge));
    expect(amount(adj, 'eligible')).toBe(cents(line.allowed_amount ?? 0));
    expect(amount(adj, 'deductible')).toBe(cents(line.deductible_applied ?? 0));
    expect(amount(adj, 'copay')).toBe(cents(line.copay_applied ?? 0));
    expect(amount(adj, 'coinsurance')).toBe(cents(line.coinsurance_applied ?? 0));
    expect(amount(adj, 'memberliability')).toBe(cents(line.patient_responsibility ?? 0));
    expect(amount(adj, 'benefit')).toBe(cents(line.benefit_amount ?? 0));
    expect(amount(adj, 'eligible')).toBe(amount(adj, 'benefit') + amount(adj, 'memberliability'));
  }
  const f = detail.financial_summary;
  const total = resource.total as Body[];
  expect(amount(total, 'submitted')).toBe(cents(f.submitted_charges));
  expect(amount(total, 'eligible')).toBe(cents(f.allowed_amount ?? 0));
  expect(amount(total, 'memberliability')).toBe(cents(f.patient_responsibility.total ?? 0));
  expect(amount(total, 'benefit')).toBe(cents(f.payer_responsibility.total ?? 0));
  expect(amount(total, 'eligible')).toBe(amount(total, 'benefit') + amount(total, 'memberliability'));
  expect(cents(resource.payment.amount.value)).toBe(amount(total, 'benefit'));
}

async function funded(template: string[]) {
  const e = await adjudicatedEncounter(run, home.dir, { template });
  const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', `AUTH-${e.id.slice(-6)}`, '--yes', '-o', 'json']);
  expect(f.code, f.stderr).toBe(0);
  return { id: e.id, transfer: f.json<Body>().processor_transfer_id as string };
}
const settle = async () => expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);

describe('ledger eob', () => {
  it('a paid institutional encounter: the outpatient profile, each line its own, paid to the provider on the day the transfer arrived', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const detail = await detailOf(e.id);
    const r = await eob(detail.encounter.encounter_number);
    expect(r.resourceType).toBe('ExplanationOfBenefit');
    expect(r.meta.profile).toEqual([OUTPATIENT]);
    expect(r.type.coding[0].code).toBe('institutional');
    expect(r.subType.coding[0].code).toBe('outpatient');
    expect(r.outcome).toBe('complete');
    expect(r.identifier[0]).toMatchObject({ type: { coding: [{ code: 'uc' }] }, value: e.id });
    expect(r.patient.identifier.value).toBe('MBR-1001');
    expectLedgerMoney(r, detail);
    // Deductible, copay and coinsurance all fall on this encounter (nothing met yet).
    expect(amount(r.total, 'deductible')).toBeGreaterThan(0);
    expect(amount(r.total, 'copay')).toBeGreaterThan(0);
    expect(amount(r.total, 'paidtoprovider')).toBe(amount(r.total, 'benefit'));
    expect(r.payment).toMatchObject({ type: { coding: [{ code: 'paid' }] }, date: '2026-03-03', identifier: { value: e.transfer } });
    // Four providers, each a care-team member its lines point at; the in-network status once, on the claim.
    expect(r.careTeam.map((c: Body) => c.provider.identifier.value)).toEqual(detail.service_lines.map((l: Body) => l.provider_npi));
    expect(r.item.map((i: Body) => i.careTeamSequence)).toEqual([[1], [2], [3], [4]]);
    expect(r.adjudication).toEqual([expect.objectContaining({ reason: { coding: [expect.objectContaining({ code: 'innetwork' })] } })]);
    // The claim's type and diagnoses, as the ledger detail gives them.
    expect(detail.encounter.claim_type).toBe('institutional');
    expect(detail.encounter.diagnosis_codes.length).toBeGreaterThan(0);
    expect(r.diagnosis.map((d: Body) => d.diagnosisCodeableConcept.coding[0].code)).toEqual(detail.encounter.diagnosis_codes);
    expect(r.diagnosis[0].type[0].coding[0].code).toBe('principal');
    expect(r.processNote).toBeUndefined();
  });

  it('a partly denied professional claim: the denied item shows its CARC (96) under denialreason, paid 0; payment partiallypaid', async () => {
    const e = await adjudicatedEncounter(run, home.dir, {
      template: ['--type', 'professional', '--npi', '1045782368', '--cpt', '45380', '99213', '--patient', 'MBR-1003'],
    });
    const detail = await detailOf(e.id);
    const r = await eob(e.id);
    expect(detail.encounter.claim_type).toBe('professional');
    expect(r.meta.profile).toEqual([PROFESSIONAL]);
    expectLedgerMoney(r, detail);
    const [paid, denied] = r.item as [Body, Body];
    expect(denied.productOrService.coding[0]).toMatchObject({ system: 'http://www.ama-assn.org/go/cpt', code: '99213' });
    const reason = (item: Body) => item.adjudication.find((a: Body) => a.category.coding[0].code === 'denialreason');
    expect(reason(denied).reason.coding[0]).toMatchObject({ system: 'https://x12.org/codes/claim-adjustment-reason-codes', code: '96' });
    expect(reason(paid)).toBeUndefined();
    expect(amount(denied.adjudication, 'benefit')).toBe(0);
    expect(paid.adjudication[0]).toMatchObject({ category: { coding: [{ code: 'benefitpaymentstatus' }] }, reason: { coding: [{ code: 'innetwork' }] } });
    expect(r.payment.type.coding[0].code).toBe('partiallypaid');
    // Adjudicated, not funded yet: nothing paid to the provider so far, and no payment date.
    expect(amount(r.total, 'paidtoprovider')).toBe(0);
    expect(r.payment.date).toBeUndefined();
  });

  it('a denied claim has an EOB too: outcome complete, each item its denial reason (CARC 18), payment denied 0.00', async () => {
    await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001'] });
    const again = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001'] });
    expect(again.response.disposition).toBe('DENIED');
    const detail = await detailOf(again.id);
    const r = await eob(again.id);
    expect(r.outcome).toBe('complete');
    expect(r.disposition).toMatch(/^Claim denied: Exact duplicate/);
    expectLedgerMoney(r, detail);
    for (const item of r.item as Body[]) {
      const reason = item.adjudication.find((a: Body) => a.category.coding[0].code === 'denialreason');
      expect(reason.reason.coding[0]).toMatchObject({ code: '18', display: 'Exact duplicate claim/service' });
      expect(amount(item.adjudication, 'submitted')).toBeGreaterThan(0);
      expect(amount(item.adjudication, 'eligible')).toBe(0);
    }
    expect(r.payment).toEqual({ type: { coding: [expect.objectContaining({ code: 'denied' })] }, amount: { value: 0, currency: 'USD' } });
  });

  it('a claim the deductible and copay take whole: benefit 0.00, paid, every cent the member owes', async () => {
    // MBR-1001 has met nothing of its 500.00 deductible: a 100.00 line is copay 25.00 and deductible 75.00.
    const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001', '--charge', '100.00'] });
    const detail = await detailOf(e.id);
    const r = await eob(e.id);
    expectLedgerMoney(r, detail);
    expect(amount(r.total, 'benefit')).toBe(0);
    expect(amount(r.total, 'deductible')).toBe(7500);
    expect(amount(r.total, 'memberliability')).toBe(10000);
    expect(r.payment.type.coding[0].code).toBe('paid');
    expect(r.payment.amount).toEqual({ value: 0, currency: 'USD' });
  });

  it('a refunded transfer: the benefit is owed again, nothing paid to the provider, no payment date, a note saying so', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    expect((await run(['local', 'simulate', 'refund', e.id])).code).toBe(0);
    const detail = await detailOf(e.id);
    const r = await eob(e.id);
    expectLedgerMoney(r, detail);
    expect(amount(r.total, 'paidtoprovider')).toBe(0);
    expect(amount(r.total, 'benefit')).toBeGreaterThan(0);
    expect(r.payment.date).toBeUndefined();
    expect(r.payment.identifier).toBeUndefined();
    expect(r.processNote[0].text).toMatch(new RegExp(`The payment ${e.transfer} was returned on 2026-03-04: the benefit is owed to the provider again`));
  });

  it('a claim not decided yet has none: exit 7, stdout empty', async () => {
    const file = await claimFile(run, home.dir, { template: ['--type', 'professional'] });
    const s = await run(['claim', 'submit', file, '-o', 'json'], { TPA_ADJUDICATION_DELAY: '600' });
    expect(s.code, s.stderr).toBe(0);
    const r = await run(['ledger', 'eob', s.json<Body>().external_claim_id]);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/is (SUBMITTED|PROCESSING): an explanation of benefits is written once the claim is decided/);
  });

  it('an unknown encounter is exit 3 with stdout empty; --out writes the file whole, 0600, and keeps an existing one unless --force', async () => {
    const unknown = await run(['ledger', 'eob', 'enc_0123456789abcdef0123', '-o', 'json']);
    expect(unknown.code).toBe(3);
    expect(unknown.stdout).toBe('');
    const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1003'] });
    const out = join(home.dir, 'eob.json');
    const first = await run(['ledger', 'eob', e.id, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(validator.validate(JSON.parse(readFileSync(out, 'utf8')), true)).toEqual([]);
    writeFileSync(out, 'kept');
    const again = await run(['ledger', 'eob', e.id, '--out', out]);
    expect(again.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('kept');
    expect((await run(['ledger', 'eob', e.id, '--out', out, '--force'])).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).resourceType).toBe('ExplanationOfBenefit');
    const nowhere = await run(['ledger', 'eob', e.id, '--out', join(home.dir, 'no-such-folder', 'eob.json')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/does not exist; nothing was written/);
    expect(existsSync(join(home.dir, 'no-such-folder'))).toBe(false);
  });
});

describe('ledger eob: review', () => {
  it("refuses a ledger whose line is not allowed = benefit + the member's share: exit 4, the line named, nothing on stdout", async () => {
    const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--npi', '1045782368', '--patient', 'MBR-1003'] });
    expect((await run(['ledger', 'eob', e.id])).code).toBe(0);
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
    const r = await run(['ledger', 'eob', e.id]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/line 1: allowed .* is not benefit .* \+ patient responsibility .*; no explanation of benefits written/);
  });
});

describe('ledger eob over the wire', () => {
  it('writes the same ExplanationOfBenefit from a remote service (tpa local serve) as from the embedded engine', async () => {
    const e = await funded(['--type', 'institutional', '--patient', 'MBR-1001']);
    await settle();
    const local = await run(['ledger', 'eob', e.id]);
    expect(local.code, local.stderr).toBe(0);
    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const remote = await run(['ledger', 'eob', e.id, '-p', 'sandbox']);
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.json()).toEqual(local.json());
      expect(validator.validate(remote.json(), true)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
