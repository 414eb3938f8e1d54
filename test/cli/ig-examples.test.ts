// X12's published 837 examples (test/fixtures/public/x12/README.md): the claims they carry, written
// as FHIR by hand, say what the interchanges say, and the local engine's seed holds their members,
// billing providers, contracts and rates (docs/local.md "The local engine's fixtures"), so that each
// is submitted, adjudicated with a benefit, funded and settled.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { IG_EXAMPLES, type IgExample, igText, igX12Mapped, x12Component, x12Segments } from '../helpers/ig-examples.js';
import { cents } from '../helpers/values.js';
import { checked835, x12Cents } from '../helpers/x12-835-check.js';

const require = createRequire(import.meta.url);
const JSONSchemaValidator = require('@asymmetrik/fhir-json-schema-validator') as new () => { validate(resource: unknown, verbose?: boolean): unknown[] };

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

const fhirOf = (example: IgExample): Body => JSON.parse(igText(example.fhir)) as Body;
const contained = (claim: Body, id: string): Body => (claim.contained as Body[]).find((r) => r.id === id)!;
const d8 = (date: string) => `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;

/** What an 837 says about its one claim, read segment by segment (no parser of tpa's). */
function published(example: IgExample) {
  const text = igText(example.x12);
  const c = x12Component(text);
  const segments = x12Segments(text);
  const find = (id: string, q?: string) => segments.find((s) => s[0] === id && (q === undefined || s[1] === q))!;
  const lines: { code: string; charge: string; quantity: string; date: string }[] = [];
  segments.forEach((s, i) => {
    if (s[0] !== 'SV1' && s[0] !== 'SV2') return;
    const procedure = (s[0] === 'SV1' ? s[1]! : s[2]!).split(c);
    const [charge, , quantity] = s[0] === 'SV1' ? s.slice(2, 5) : s.slice(3, 6);
    const date = segments.slice(i + 1).find((t) => t[0] === 'DTP' && t[1] === '472')!;
    lines.push({ code: procedure[1]!, charge: charge!, quantity: quantity!, date: d8(date[3]!) });
  });
  const diagnoses = segments
    .filter((s) => s[0] === 'HI')
    .flatMap((s) => s.slice(1).map((e) => e.split(c)))
    .filter(([qualifier]) => qualifier === 'BK' || qualifier === 'BF')
    .map(([, code]) => code!);
  return {
    clm01: find('CLM')[1],
    total: find('CLM')[2],
    memberId: find('NM1', 'IL')[9],
    payer: find('NM1', 'PR')[9],
    npi: find('NM1', '85')[9],
    billingName: find('NM1', '85')[3],
    created: d8(find('BHT')[4]!),
    lines,
    diagnoses,
    revenueCodes: segments.filter((s) => s[0] === 'SV2').map((s) => s[1]),
    clm05: find('CLM')[5],
    statement: segments
      .find((s) => s[0] === 'DTP' && s[1] === '434')?.[3]
      ?.split('-')
      .map(d8),
  };
}

describe('the FHIR claims written for X12 published 837 examples', () => {
  const validator = new JSONSchemaValidator();

  for (const example of IG_EXAMPLES) {
    it(`${example.fhir} is a valid FHIR R4 Claim saying what ${example.x12} says`, () => {
      const claim = fhirOf(example);
      const x12 = published(example);
      expect(validator.validate(claim, true)).toEqual([]);
      expect(claim.type.coding[0].code).toBe(example.kind);
      expect(claim.identifier).toEqual([{ system: 'urn:tpa:x12:clm01', value: x12.clm01 }]);
      expect(x12.clm01).toBe(example.clm01);
      expect(claim.created).toBe(x12.created);
      expect(cents(claim.total.value)).toBe(cents(Number(x12.total)));
      expect(contained(claim, 'patient').identifier[0].value).toBe(x12.memberId);
      expect(x12.memberId).toBe(example.memberId);
      const billing = contained(claim, 'billing');
      expect(billing.name).toBe(x12.billingName);
      // The one identifier mapped: the published NPI fails the check digit; the seed holds its first nine digits.
      expect(x12.npi).toBe(example.npi.published);
      expect(billing.identifier[0]).toEqual({ system: 'http://hl7.org/fhir/sid/us-npi', value: example.npi.seeded });
      expect(example.npi.seeded.slice(0, 9)).toBe(example.npi.published.slice(0, 9));
      // The payer is mapped too: the engine refuses a claim addressed to a payer that is not the member's plan's.
      expect(x12.payer).toBe(example.payer.published);
      expect(claim.insurer.identifier).toEqual({ value: example.payer.seeded });
      expect(
        (claim.item as Body[]).map((item) => ({
          code: item.productOrService.coding[0].code,
          charge: cents(item.net.value),
          quantity: String(item.quantity.value),
          date: item.servicedDate,
        })),
      ).toEqual(x12.lines.map((l) => ({ ...l, charge: cents(Number(l.charge)) })));
      if (example.kind === 'institutional') {
        expect((claim.item as Body[]).map((item) => item.revenue.coding[0].code)).toEqual(x12.revenueCodes);
        expect([claim.billablePeriod.start, claim.billablePeriod.end]).toEqual(x12.statement);
      } else {
        expect(x12.statement).toBeUndefined();
        expect(claim.billablePeriod).toBeUndefined();
      }
      // HI BK/BF are ICD-9-CM: the codes as published, with the decimal point FHIR writes.
      expect((claim.diagnosis as Body[]).map((d) => d.diagnosisCodeableConcept.coding[0].system)).toEqual(
        x12.diagnoses.map(() => 'http://hl7.org/fhir/sid/icd-9-cm'),
      );
      expect((claim.diagnosis as Body[]).map((d) => d.diagnosisCodeableConcept.coding[0].code.replace('.', ''))).toEqual(x12.diagnoses);
    });
  }

  it('the published interchanges are kept byte for byte; the mapped copy changes the billing NPI, the payer, the 837P’s subscriber id and ISA15 (T, test data, to P) alone', () => {
    /** Segments of `a` that `b` does not hold (as many times as `a` holds them more). */
    const minus = (a: string[], b: string[]) => {
      const left = [...b];
      return a.filter((s) => {
        const i = left.indexOf(s);
        if (i < 0) return true;
        left.splice(i, 1);
        return false;
      });
    };
    const segmentsOf = (text: string) => x12Segments(text).map((s) => s.join('*'));
    const changes: Record<string, { removed: string[]; added: string[] }> = {};
    for (const example of IG_EXAMPLES) {
      const text = igText(example.x12);
      expect(text.startsWith('ISA*')).toBe(true);
      expect(text.endsWith('~')).toBe(true);
      const published = segmentsOf(text);
      const mapped = segmentsOf(igX12Mapped(example));
      // ISA15: the examples are test data (T), sent as production (P); the ISA is otherwise as published.
      expect(published[0]!.split('*')[15]).toBe('T');
      expect(mapped[0]).toBe(
        published[0]!
          .split('*')
          .map((v, i) => (i === 15 ? 'P' : v))
          .join('*'),
      );
      changes[example.kind] = { removed: minus(published.slice(1), mapped.slice(1)).sort(), added: minus(mapped.slice(1), published.slice(1)).sort() };
      expect(example.npi.seeded.slice(0, 9)).toBe(example.npi.published.slice(0, 9));
    }
    // The dependent (loop 2000C) is read as published: only the subscriber's member id is mapped.
    expect(changes.professional).toEqual({
      removed: [
        'NM1*IL*1*SMITH*JANE****MI*JS00111223333',
        'NM1*PR*2*KEY INSURANCE COMPANY*****PI*999996666',
        'NM1*85*2*BEN KILDARE SERVICE*****XX*9876543210',
      ].sort(),
      added: [
        'NM1*IL*1*SMITH*JANE****MI*JS00111223300',
        'NM1*PR*2*KEY INSURANCE COMPANY*****PI*PAYER-ACME',
        'NM1*85*2*BEN KILDARE SERVICE*****XX*9876543213',
      ].sort(),
    });
    expect(changes.institutional).toEqual({
      removed: ['NM1*85*2*JONES HOSPITAL*****XX*9876540809', 'NM1*PR*2*MEDICARE B*****PI*00435'],
      added: ['NM1*85*2*JONES HOSPITAL*****XX*9876540805', 'NM1*PR*2*MEDICARE B*****PI*PAYER-ACME'],
    });
  });

  it('the published 837P as published (but its NPI, and ISA15 P) reads its patient as a dependent (2000C): by name and birth date, under the subscriber’s coverage', async () => {
    const example = IG_EXAMPLES[0]!;
    const published = igText(example.x12).replace(`*XX*${example.npi.published}~`, `*XX*${example.npi.seeded}~`);
    const text = `${published.slice(0, 102)}P${published.slice(103)}`;
    const file = join(home.dir, 'published.837');
    writeFileSync(file, text);
    const r = await run(['claim', 'convert', file]);
    expect(r.code, r.stderr).toBe(0);
    const claim = JSON.parse(r.stdout) as Body;
    expect(new JSONSchemaValidator().validate(claim, true)).toEqual([]);
    expect(claim.patient).toEqual({ reference: '#patient', display: 'TED SMITH' });
    expect(contained(claim, 'patient')).toEqual({
      resourceType: 'Patient',
      id: 'patient',
      name: [{ family: 'SMITH', given: ['TED'] }],
      gender: 'male',
      birthDate: '1973-05-01',
    });
    expect(contained(claim, 'coverage')).toMatchObject({
      resourceType: 'Coverage',
      subscriberId: 'JS00111223333',
      beneficiary: { reference: '#patient' },
      relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'child' }] },
    });
    expect(claim.insurance[0].coverage.reference).toBe('#coverage');
  });
});

/**
 * What the local engine's seed makes of each example: every line priced under the billing
 * provider's contract (allowed = the lesser of charge and rate × quantity), the member on Acme Gold
 * (copay 25.00 a visit, coinsurance 20%) with the deductible met but for 10.00 (Ted Smith, two
 * visits on one claim: two copays) or in full (John Doe).
 */
const EXPECTED: Record<string, { name: string; charge: number; allowed: number; patient: number; benefit: number }> = {
  '26463774': { name: 'Ted Smith', charge: 100, allowed: 79, patient: 63.8, benefit: 15.2 },
  '756048Q': { name: 'John Doe', charge: 89.93, allowed: 70, patient: 34, benefit: 36 },
};

/** The example's FHIR claim submitted, then polled at once (adjudication takes no time in tests). */
async function adjudicated(example: IgExample): Promise<{ ack: { submission_id: string; external_claim_id: string }; response: Body }> {
  const file = join(home.dir, example.fhir);
  writeFileSync(file, JSON.stringify(fhirOf(example)));
  const submitted = await run(['claim', 'submit', file, '-o', 'json']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const ack = submitted.json<{ submission_id: string; external_claim_id: string }>();
  const polled = await run(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json']);
  expect(polled.code, polled.stderr).toBe(0);
  return { ack, response: polled.json<Body>() };
}

describe('X12 published 837 examples on the local engine', () => {
  for (const example of IG_EXAMPLES) {
    it(`${example.x12} (CLM ${example.clm01}) is adjudicated with a benefit, funded and settled`, async () => {
      const { ack, response } = await adjudicated(example);
      const expected = EXPECTED[example.clm01]!;
      expect(response.disposition).toBe('APPROVED');
      const a = response.adjudication as Body;
      expect({
        charge: cents(a.total_charges),
        allowed: cents(a.allowed_amount),
        patient: cents(a.patient_responsibility),
        benefit: cents(a.benefit_amount),
      }).toEqual({
        charge: cents(expected.charge),
        allowed: cents(expected.allowed),
        patient: cents(expected.patient),
        benefit: cents(expected.benefit),
      });
      expect(cents(a.benefit_amount)).toBeGreaterThan(0);

      const amount = expected.benefit.toFixed(2);
      const funded = await run([
        'fund',
        'approve',
        ack.external_claim_id,
        '--amount',
        amount,
        '--auth-code',
        `AUTH-IG-${example.clm01}`,
        '--yes',
        '-o',
        'json',
      ]);
      expect(funded.code, funded.stderr).toBe(0);
      expect(funded.json()).toMatchObject({ status: 'APPROVED' });
      expect((await run(['local', 'clock', 'advance', '3d'])).code).toBe(0);
      const settled = await run(['settlement', 'show', ack.external_claim_id, '-o', 'json']);
      expect(settled.code, settled.stderr).toBe(0);
      const s = settled.json<Body>();
      expect(s.status).toBe('COMPLETED');
      expect(cents(s.total_amount)).toBe(cents(expected.benefit));
      // One payout, to the billing provider: the examples name no other provider tpa can pay.
      expect((s.payouts as Body[]).map((p) => p.provider_npi)).toEqual([example.npi.seeded]);

      const ledger = await run(['ledger', 'show', ack.external_claim_id, '-o', 'json']);
      expect(ledger.code, ledger.stderr).toBe(0);
      expect(ledger.json<Body>().encounter.patient).toMatchObject({ member_id: example.memberId, name: expected.name });
    });
  }
});

describe('the published 837P and 837I as operators get them', () => {
  it('are converted, submitted, adjudicated, funded and settled, and the 835 of each transfer re-reads balanced', async () => {
    const files = IG_EXAMPLES.map((example) => {
      const file = join(home.dir, `${example.clm01}.837`);
      writeFileSync(file, igX12Mapped(example));
      return file;
    });

    // Converted: each 837 is the claim written by hand, line for line.
    for (const [i, example] of IG_EXAMPLES.entries()) {
      const converted = await run(['claim', 'convert', files[i]!]);
      expect(converted.code, converted.stderr).toBe(0);
      const claims = converted.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Body);
      expect(claims).toHaveLength(1);
      const [claim] = claims as [Body];
      const byHand = fhirOf(example);
      expect(claim.identifier).toEqual([{ system: 'urn:tpa:x12:clm01', value: example.clm01 }]);
      expect(claim.type.coding[0].code).toBe(example.kind);
      const lineOf = (item: Body) => ({
        code: item.productOrService.coding.find((c: Body) => /cpt|HCPCS/i.test(c.system))?.code,
        charge: cents(item.net?.value ?? item.unitPrice?.value),
        date: item.servicedDate ?? item.servicedPeriod?.start,
      });
      expect((claim.item as Body[]).map(lineOf)).toEqual((byHand.item as Body[]).map(lineOf));
      expect((claim.item as Body[]).map(lineOf).every((l) => l.code && l.charge > 0 && l.date)).toBe(true);
      expect(cents(claim.total.value)).toBe(cents(byHand.total.value));
    }
    // What the 837I carries and the claim leaves out is said, not dropped: its secondary payer, its
    // attending physician known only by a legacy id.
    const institutional = await run(['claim', 'convert', files[1]!]);
    expect(institutional.stderr).toMatch(/CLM 756048Q, SBR: another payer follows tpa's plan/);
    expect(institutional.stderr).toMatch(/CLM 756048Q, NM1\*71: the attending provider has no NPI/);

    // Submitted through the batch path, adjudicated.
    const submitted = await run(['claim', 'submit', ...files, '--wait', '-o', 'ndjson']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const outcomes = submitted.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Body);
    expect(outcomes.map((o) => [o.status, o.disposition])).toEqual([
      ['ACKNOWLEDGED', 'APPROVED'],
      ['ACKNOWLEDGED', 'APPROVED'],
    ]);
    // The same files again: nothing is sent twice.
    const again = await run(['claim', 'submit', ...files, '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Body).status),
    ).toEqual(['SKIPPED', 'SKIPPED']);

    for (const [i, example] of IG_EXAMPLES.entries()) {
      const outcome = outcomes[i]!;
      const expected = EXPECTED[example.clm01]!;
      expect(cents(outcome.adjudication.benefit_amount)).toBe(cents(expected.benefit));
      const funded = await run([
        'fund',
        'approve',
        outcome.external_claim_id,
        '--amount',
        expected.benefit.toFixed(2),
        '--auth-code',
        `AUTH-X12-${example.clm01}`,
        '--yes',
        '-o',
        'json',
      ]);
      expect(funded.code, funded.stderr).toBe(0);
    }
    expect((await run(['local', 'clock', 'advance', '3d'])).code).toBe(0);

    for (const [i, example] of IG_EXAMPLES.entries()) {
      const outcome = outcomes[i]!;
      const expected = EXPECTED[example.clm01]!;
      const settled = await run(['settlement', 'show', outcome.external_claim_id, '-o', 'json']);
      expect(settled.json<Body>().status).toBe('COMPLETED');
      const payout = settled.json<Body>().payouts[0] as Body;

      // The 835 of the transfer, re-read by a parser that is not tpa's and checked for balance.
      const out = join(home.dir, `${example.clm01}.835`);
      const remit = await run(['settlement', 'remit', outcome.external_claim_id, '--out', out]);
      expect(remit.code, remit.stderr).toBe(0);
      const { transactions } = checked835(readFileSync(out, 'utf8'));
      expect(transactions).toHaveLength(1);
      const [t] = transactions as [(typeof transactions)[number]];
      expect(t.payee).toContain(example.npi.seeded);
      expect(t.trn[2]).toBe(settled.json<Body>().processor_transfer_id);
      expect(t.claims).toHaveLength(1);
      const clp = t.claims[0]!.clp;
      // CLP01 is the 837's CLM01: the provider posts the payment against its own claim.
      expect(clp[1]).toBe(example.clm01);
      expect(x12Cents(clp[3]!)).toBe(cents(expected.charge));
      expect(x12Cents(clp[4]!)).toBe(cents(expected.benefit));
      expect(x12Cents(clp[5]!)).toBe(cents(expected.patient));
      // What the provider's bank receives: the payout net of the processor's fee.
      expect(x12Cents(t.bpr[2]!)).toBe(cents(payout.net_to_provider));
      // Paid under the patient's own member id; a dependent's ledger entry names their subscriber.
      const ledger = await run(['ledger', 'show', outcome.external_claim_id, '-o', 'json']);
      expect(ledger.json<Body>().encounter.patient).toEqual({
        member_id: example.memberId,
        name: expected.name,
        dob: example.kind === 'professional' ? '1973-05-01' : '1926-11-11',
        ...(example.subscriber ? { subscriber_id: example.subscriber.seeded } : {}),
      });
      // The lines come back with their control numbers (REF*6R, else the LX number) and codes as sent.
      const sent = published(example);
      expect(t.claims[0]!.lines.map((l) => l.svc[1])).toEqual(sent.lines.map((l) => `HC:${l.code}`));
      // The examples send no REF*6R: each line is known by its LX number.
      expect(t.segments.filter((x) => x[0] === 'REF' && x[1] === '6R').map((x) => x[2])).toEqual(sent.lines.map((_, n) => String(n + 1)));
      const detail = (await run(['ledger', 'show', outcome.external_claim_id, '-o', 'json'])).json<Body>();
      expect(detail.encounter.payer).toMatchObject({ id: 'PAYER-ACME', tax_id: '990000001', address: { state: 'IL', postal_code: '62701' } });
      if (example.kind === 'institutional') {
        // CLM05-1 and CLM05-3 (14:A:1) come back as CLP08 and CLP09, each SV201 as SVC04.
        const [facility, , frequency] = sent.clm05!.split(':');
        expect(clp.slice(8, 10)).toEqual([facility, frequency]);
        expect(t.claims[0]!.lines.map((l) => l.svc[4])).toEqual(sent.revenueCodes);
        expect(detail.encounter).toMatchObject({ facility_type_code: facility, claim_frequency_code: frequency });
        expect((detail.service_lines as Body[]).map((l) => l.revenue_code)).toEqual(sent.revenueCodes);
      } else {
        expect(clp).toHaveLength(8);
        expect(t.claims[0]!.lines.every((l) => (l.svc[4] ?? '') === '')).toBe(true);
      }
    }
  });
});

describe('a database of an earlier release', () => {
  it('gains the examples’ members, providers and contracts when it is upgraded, and adjudicates them', async () => {
    copyFileSync(fileURLToPath(new URL('../fixtures/upgrade/first-release.sqlite', import.meta.url)), join(home.dir, 'local.sqlite'));
    const fixtures = await run(['local', 'fixtures', '-o', 'json']);
    expect(fixtures.code, fixtures.stderr).toBe(0);
    const f = fixtures.json<{ members: Body[]; providers: Body[]; contracts: Body[] }>();
    for (const example of IG_EXAMPLES) {
      expect(f.members.map((m) => m.member_id)).toContain(example.memberId);
      expect(f.providers.map((p) => p.npi)).toContain(example.npi.seeded);
      expect(f.contracts.filter((c) => c.npi === example.npi.seeded)).toHaveLength(1);
    }
    expect(f.members.map((m) => m.member_id)).toContain('MBR-1001');
    for (const example of IG_EXAMPLES) {
      const { response } = await adjudicated(example);
      expect(response).toMatchObject({ disposition: 'APPROVED', adjudication: { benefit_amount: EXPECTED[example.clm01]!.benefit } });
    }
  });
});
