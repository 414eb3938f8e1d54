// The money rules line by line, through the real engine on a real SQLite file: sequences of claims for the
// seeded members and contracts, with lines on dates that straddle coverage, contract dates and
// calendar years, repeated codes, care teams and bundles split across claims. After each sequence
// every encounter is read back (claim response and ledger detail) and checked against the rules
// (docs/money-rules.md "Money rules, line by line"); expectations come from the seed, not from the engine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { databaseFile } from '../../src/engine/engine.js';
import { SEED_CONTRACTS, SEED_MEMBERS, SEED_PLANS, SEED_PROVIDERS } from '../../src/engine/store/seed.js';
import { MAX_LINE_CHARGE_CENTS } from '../../src/domain/fhir-claim.js';
import { formatCents } from '../../src/domain/money.js';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { call, engineAt, useEngineHome } from '../helpers/engine.js';
import { cents as centsOf } from '../helpers/values.js';

const home = useEngineHome(beforeEach, afterEach);
const SUBMIT = '/tpa-api/v1/claims/submit/';
/** The engine clock: every service date below is in the past. */
const CLOCK = '2027-02-01T10:00:00Z';
const TODAY = CLOCK.slice(0, 10);
type Body = Record<string, any>;

/** An amount of the service's JSON (a number, never text) in cents. */
const cents = (v: unknown) => {
  expect(typeof v).toBe('number');
  return centsOf(v);
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** round(value × num / den), halves away from zero, in exact integers (all ≥ 0). */
const roundDiv = (value: number, num: number, den: number) => Number((BigInt(value) * BigInt(num) * 2n + BigInt(den)) / (2n * BigInt(den)));
const DAY_MS = 86_400_000;
const dayOf = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const SPAN: Record<string, number> = { SINGLE: 1, DOUBLE_HEADER: 1, PACKAGE: 90 };

const VALLEY = '1859362703'; // known to the plan, no contract: paid through the billing provider
/** Billing providers, the codes their claims use (one the contract never covers) and their care teams. */
const SCENARIOS = [
  {
    npi: '1045782368',
    codes: ['45378', '45380', '43235', '99213'],
    careTeam: [
      { npi: '1045782368', role: 'surgeon' },
      { npi: VALLEY, role: 'surgeon' },
    ],
  },
  {
    npi: '1234567893',
    codes: ['45378', '45380', '43235', '00811', '88305', '99213'],
    careTeam: [
      { npi: '1045782368', role: 'surgeon' },
      { npi: '1196382455', role: 'anesthesiologist' },
      { npi: VALLEY, role: 'surgeon' },
    ],
  },
  {
    npi: '1450827369',
    codes: ['27447', '01402', '97161', '99213'],
    careTeam: [
      { npi: '1582736496', role: 'surgeon' },
      { npi: VALLEY, role: 'surgeon' },
    ],
  },
  { npi: '1450827369', codes: ['27447', '01402', '97161'], careTeam: [{ npi: '1450827369', role: 'facility' }] },
  {
    npi: '1582736496',
    codes: ['29881', '29880', '99213'],
    careTeam: [
      { npi: '1582736496', role: 'surgeon' },
      { npi: VALLEY, role: 'surgeon' },
    ],
  },
  { npi: '1582736496', codes: ['29881', '29880'], careTeam: [{ npi: '1582736496', role: 'surgeon' }] },
  {
    npi: '1673904821',
    codes: ['70553', '99213'],
    careTeam: [
      { npi: '1673904821', role: 'facility' },
      { npi: VALLEY, role: 'surgeon' },
    ],
  },
  { npi: '1728493051', codes: ['66984', '99213'], careTeam: [{ npi: '1728493051', role: 'surgeon' }] },
  { npi: '1196382455', codes: ['00811', '00731', '99213'], careTeam: [{ npi: '1196382455', role: 'anesthesiologist' }] },
  { npi: '1329475804', codes: ['88305', '88312'], careTeam: [{ npi: '1329475804', role: 'pathologist' }] },
  // Payees: one service named to every kind of payee, of the facility's group and of others.
  {
    npi: '1234567893',
    codes: ['45380', '45378', '00811', '88305'],
    careTeam: [
      { npi: '1045782368', role: 'surgeon' },
      { npi: '1196382455', role: 'anesthesiologist' },
      { npi: '1329475804', role: 'pathologist' },
      { npi: '1582736496', role: 'surgeon' },
      { npi: '1728493051', role: 'surgeon' },
      { npi: '1673904821', role: 'surgeon' },
    ],
  },
] as const;
const CONTRACTED = new Set(SEED_CONTRACTS.map((c) => c.npi));
const MEMBERS = SEED_MEMBERS.map((m) => m.memberId);

const BOUNDARY_DATES = ['2024-12-31', '2025-01-01', '2025-12-31', '2026-01-01', '2026-06-30', '2026-07-01', '2026-09-28', '2026-12-31', '2027-01-01', TODAY];
const clampDate = (day: number) => dateOf(Math.min(dayOf(TODAY), Math.max(dayOf('2024-12-01'), day)));
const arbDate = fc.oneof(fc.constantFrom(...BOUNDARY_DATES), fc.integer({ min: dayOf('2024-12-01'), max: dayOf(TODAY) }).map(dateOf));
const arbUnit = fc.oneof(
  fc.integer({ min: 1, max: 99 }),
  fc.integer({ min: 100, max: 600_000 }),
  fc.integer({ min: 1, max: MAX_LINE_CHARGE_CENTS }),
  fc.constant(MAX_LINE_CHARGE_CENTS),
);
const arbLine = fc.record({
  code: fc.nat(9),
  /** A date of its own, or one of the sequence's few dates, so that claims meet on dates and episodes. */
  date: fc.oneof(arbDate, fc.nat(3), fc.nat(3), fc.nat(3)),
  unit: arbUnit,
  quantity: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 3 })),
  careTeam: fc.nat(6),
});
const arbClaim = fc.record({
  // Often the bundles, and the anesthesia group with the package whose rate includes anesthesia.
  scenario: fc.oneof(fc.nat(SCENARIOS.length - 1), fc.constantFrom(2, 3, 4, 5), fc.constantFrom(2, 3, 8)),
  member: fc.oneof(fc.nat(1), fc.nat(1), fc.nat(MEMBERS.length - 1)),
  lines: fc.array(arbLine, { minLength: 1, maxLength: 5 }),
  preauthorized: fc.oneof(fc.constant(true), fc.constant(true), fc.boolean()),
});
const arbSequence = fc.record({
  members: fc.tuple(fc.constantFrom(...MEMBERS), fc.constantFrom(...MEMBERS)),
  dates: fc
    .tuple(arbDate, fc.array(fc.oneof(fc.constant(0), fc.integer({ min: -100, max: 100 })), { minLength: 3, maxLength: 3 }))
    .map(([d, offsets]) => [d, ...offsets.map((o) => clampDate(dayOf(d) + o))]),
  claims: fc.array(arbClaim, { minLength: 1, maxLength: 6 }),
});
type Sequence = typeof arbSequence extends fc.Arbitrary<infer T> ? T : never;

interface PlannedLine {
  code: string;
  date: string;
  unitCents: number;
  quantity: number;
  /** careTeam sequence named by the line, 0 for none (the billing provider's own line). */
  careTeam: number;
  /** Who must be paid for the line: the named provider when it holds a contract, else the billing provider. */
  payee: string;
  /** The line's fee kind: the role of the provider who rendered it (the named one, else the billing provider), whoever is paid. */
  kind: string;
  /** An anesthesia fee: rendered by an anesthesia provider or paid to one. */
  anesthesia: boolean;
  /** The payee is the billing provider, or holds a contract in force that day in the billing provider's group. */
  eligible: boolean;
}
interface Planned {
  npi: string;
  member: string;
  lines: PlannedLine[];
  claim: Body;
}

function plan(seq: Sequence): Planned[] {
  return seq.claims.map((c) => {
    const scenario = SCENARIOS[c.scenario]!;
    const member = c.member < 2 ? seq.members[c.member]! : MEMBERS[c.member]!;
    const lines = c.lines.map((l): PlannedLine => {
      const quantity = l.quantity;
      const unitCents = Math.min(l.unit, Math.floor(MAX_LINE_CHARGE_CENTS / quantity));
      const careTeam = l.careTeam > scenario.careTeam.length ? 0 : l.careTeam;
      const own = careTeam === 0 ? scenario.npi : scenario.careTeam[careTeam - 1]!.npi;
      const payee = own === scenario.npi || CONTRACTED.has(own) ? own : scenario.npi;
      const date = typeof l.date === 'number' ? seq.dates[l.date]! : l.date;
      const group = providerOf(scenario.npi).groupId;
      return {
        code: scenario.codes[l.code % scenario.codes.length]!,
        date,
        unitCents,
        quantity,
        careTeam,
        payee,
        kind: providerOf(own).role,
        anesthesia: providerOf(own).role === 'ANESTHESIA' || providerOf(payee).role === 'ANESTHESIA',
        eligible: payee === scenario.npi || SEED_CONTRACTS.some((c) => c.npi === payee && c.groupId === group && inForce(c, date)),
      };
    });
    const spec: ClaimSpec = {
      npi: scenario.npi,
      patient: member,
      careTeam: scenario.careTeam.map((m) => ({ ...m })),
      lines: lines.map((l) => ({
        code: l.code,
        date: l.date,
        charge: formatCents(l.unitCents),
        quantity: l.quantity,
        careTeam: l.careTeam === 0 ? undefined : l.careTeam,
      })),
      preauthorization: c.preauthorized ? 'PA-2027-0001' : undefined,
    };
    const claim = claimOf(spec);
    // A line naming no care-team member is the billing provider's own.
    (claim.item as Body[]).forEach((item, i) => {
      if (lines[i]!.careTeam === 0) delete item.careTeamSequence;
    });
    return { npi: scenario.npi, member, lines, claim };
  });
}

const memberOf = (id: string) => SEED_MEMBERS.find((m) => m.memberId === id)!;
const providerOf = (npi: string) => SEED_PROVIDERS.find((p) => p.npi === npi)!;
const inForce = (c: (typeof SEED_CONTRACTS)[number], date: string) => c.effective <= date && (c.termination === null || c.termination >= date);
const planOf = (id: string) => SEED_PLANS.find((p) => p.id === memberOf(id).planId)!;
const covered = (member: string, date: string) => {
  const m = memberOf(member);
  return date >= m.coverageStart && (m.coverageEnd === null || date <= m.coverageEnd);
};
/**
 * The contract pricing a line: its payee's own seeded contract in force on the line's date, in the
 * billing provider's group, covering the code (none for a payee that may not be paid).
 */
const contractFor = (billing: string, l: PlannedLine) =>
  l.eligible
    ? SEED_CONTRACTS.find((c) => c.npi === l.payee && c.groupId === providerOf(billing).groupId && inForce(c, l.date) && l.code in c.codes)
    : undefined;
/** Equal shares of a bundle rate over its codes (sorted), the cents left over to the first codes. */
const bundleShare = (c: (typeof SEED_CONTRACTS)[number], code: string) => {
  const codes = Object.keys(c.codes).sort();
  const base = Math.floor(c.bundleRateCents! / codes.length);
  return base + (codes.indexOf(code) < c.bundleRateCents! - base * codes.length ? 1 : 0);
};

interface Recorded {
  planned: Planned;
  encounterId: string;
  response: Body;
  detail: Body;
}
interface PaidRow {
  encounter_id: string;
  sequence: number;
  member_id: string;
  provider_npi: string;
  cpt_code: string;
  service_date: string;
  contract_id: string;
  episode_start: string | null;
  fee_kind: string;
  allowed_cents: number;
  includes_anesthesia: number;
  anesthesia_deducted_cents: number;
}

/** How often each outcome was reached, across the runs. */
const seen: Record<string, number> = {};
const tally = (k: string) => (seen[k] = (seen[k] ?? 0) + 1);

let runs = 0;
function runSequence(seq: Sequence): void {
  const dir = join(home.dir, `run-${runs++}`);
  mkdirSync(dir);
  const engine = engineAt(dir, CLOCK, '0');
  try {
    const recorded: Recorded[] = [];
    for (const planned of plan(seq)) {
      const ack = call(engine, 'POST', SUBMIT, planned.claim);
      if (ack.status === 404) {
        // No line of the claim has a contract on its date: the contract's no_active_contract.
        expect((ack.body as Body).error).toBe('no_active_contract');
        for (const l of planned.lines) expect(contractFor(planned.npi, l)).toBeUndefined();
        tally('404');
        continue;
      }
      expect(ack.status, JSON.stringify(ack.body)).toBe(201);
      expect(planned.lines.some((l) => contractFor(planned.npi, l) !== undefined)).toBe(true);
      const { submission_id: submissionId, external_claim_id: encounterId } = ack.body as Body;
      recorded.push({ planned, encounterId, response: { submissionId }, detail: {} });
    }
    for (const r of recorded) {
      const response = call(engine, 'GET', `/tpa-api/v1/claims/${r.response.submissionId}/response/`);
      expect(response.status).toBe(200);
      r.response = response.body as Body;
      const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${r.encounterId}/`);
      expect(detail.status).toBe(200);
      r.detail = detail.body as Body;
    }
    const db = new Database(databaseFile(dir), { readonly: true });
    let paidRows: PaidRow[];
    try {
      paidRows = db.prepare('SELECT * FROM paid_lines WHERE included = 0').all() as PaidRow[];
    } finally {
      db.close();
    }
    checkSequence(recorded, paidRows);
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkSequence(recorded: Recorded[], paidRows: PaidRow[]): void {
  /** Every ALLOWED line across the encounters, in submission order. */
  const allowedLines: { r: Recorded; index: number; line: PlannedLine; allowed: number; deductible: number; copay: number }[] = [];
  /** Member and day whose anesthesia a paid line included, by the index of the claim that paid it. */
  const includedDays = new Map<string, number>();
  /** Deductible applied so far per member and calendar year (the seeded plans' plan year). */
  const metSoFar = new Map<string, number>();
  /** Copay taken so far per visit: member, billing provider, date of service. */
  const copaySoFar = new Map<string, number>();
  // The seeded figure is what every plan year starts with.
  const metBefore = (member: string, _year: string) => memberOf(member).deductibleMetCents;

  for (const r of recorded) {
    const { planned, response, detail } = r;
    const fs = detail.financial_summary as Body;
    const lines = detail.service_lines as Body[];
    const benefits = planOf(planned.member);
    expect(lines.length).toBe(planned.lines.length);
    expect(response.external_claim_id).toBe(r.encounterId);
    expect(response.status).toBe('ADJUDICATED');
    const disposition = response.disposition as string;
    tally(disposition);

    // What the deductible met before this claim was, for the plan year of its service date.
    const serviceDate = planned.lines.map((l) => l.date).sort()[0]!;
    const year = serviceDate.slice(0, 4);
    expect(detail.encounter.service_date).toBe(serviceDate);
    expect(cents(fs.deductible.plan_deductible)).toBe(benefits.deductibleCents);
    expect(cents(fs.deductible.deductible_met_prior)).toBe(
      Math.min(benefits.deductibleCents, metBefore(planned.member, year) + (metSoFar.get(`${planned.member}|${year}`) ?? 0)),
    );

    lines.forEach((l, i) => {
      const p = planned.lines[i]!;
      expect([l.sequence, l.cpt_code, l.quantity]).toEqual([i + 1, p.code, p.quantity]);
      expect(cents(l.submitted_charge)).toBe(p.unitCents * p.quantity);
      expect(l.provider_npi).toBe(p.payee);
      tally(`line:${l.status}:${l.denial_code}`);
    });
    expect(cents(fs.submitted_charges)).toBe(sum(planned.lines.map((l) => l.unitCents * l.quantity)));

    if (disposition === 'PENDING_REVIEW' || disposition === 'DENIED') {
      // Nothing adjudicated: no amounts, and nothing paid or counted toward the deductible.
      expect(response.adjudication).toBeUndefined();
      expect(fs.allowed_amount).toBeNull();
      for (const l of lines) {
        expect(l.allowed_amount).toBeNull();
        expect(l.benefit_amount).toBeNull();
        if (disposition === 'PENDING_REVIEW') expect(l.status).toBe('PENDED');
        else expect(l.status).not.toBe('ALLOWED');
      }
      if (disposition === 'PENDING_REVIEW') {
        expect(response.pend_reason).toBe('MISSING_PREAUTHORIZATION');
        expect(planned.claim.supportingInfo).toBeUndefined();
      } else {
        expect(response.denial_code).toBe(lines.find((l) => l.denial_code !== null)?.denial_code);
      }
    } else {
      expect(['APPROVED', 'PARTIAL_APPROVAL']).toContain(disposition);
      const line = (l: Body) => ({
        allowed: cents(l.allowed_amount),
        deductible: cents(l.deductible_applied),
        copay: cents(l.copay_applied),
        coinsurance: cents(l.coinsurance_applied),
        patient: cents(l.patient_responsibility),
        benefit: cents(l.benefit_amount),
        charge: cents(l.submitted_charge),
      });
      const amounts = lines.map(line);
      // allowed = benefit + patient responsibility, to the cent, on every line and in total.
      amounts.forEach((a, i) => {
        for (const v of Object.values(a)) expect(v).toBeGreaterThanOrEqual(0);
        expect(a.allowed).toBe(a.benefit + a.patient);
        expect(a.patient).toBe(a.copay + a.deductible + a.coinsurance);
        expect(a.allowed).toBeLessThanOrEqual(a.charge);
        if (lines[i]!.status !== 'ALLOWED') expect(a.allowed + a.patient + a.benefit).toBe(0);
      });
      const total = (k: keyof ReturnType<typeof line>) => sum(amounts.map((a) => a[k]));
      const t = {
        allowed: cents(fs.allowed_amount),
        deductible: cents(fs.deductible.deductible_applied),
        copay: cents(fs.copay.copay_applied),
        coinsurance: cents(fs.coinsurance.coinsurance_applied),
        patient: cents(fs.patient_responsibility.total),
        benefit: cents(fs.payer_responsibility.total),
      };
      expect(t).toEqual({
        allowed: total('allowed'),
        deductible: total('deductible'),
        copay: total('copay'),
        coinsurance: total('coinsurance'),
        patient: total('patient'),
        benefit: total('benefit'),
      });
      expect(t.allowed).toBe(t.benefit + t.patient);
      expect(cents(fs.patient_responsibility.non_covered)).toBe(0);
      expect(t.patient).toBe(t.copay + t.deductible + t.coinsurance);
      expect(cents(fs.adjustments.contractual_adjustment)).toBe(cents(fs.submitted_charges) - t.allowed);
      const adj = response.adjudication as Body;
      expect({
        allowed: cents(adj.allowed_amount),
        deductible: cents(adj.deductible_applied),
        copay: cents(adj.copay_applied),
        coinsurance: cents(adj.coinsurance_applied),
        patient: cents(adj.patient_responsibility),
        benefit: cents(adj.benefit_amount),
      }).toEqual(t);
      expect(cents(adj.total_charges)).toBe(cents(fs.submitted_charges));
      // The copay once per visit (member, billing provider, date), whatever claims came before;
      // coinsurance on the claim's total after copay and deductible.
      for (const day of new Set(planned.lines.map((l) => l.date))) {
        const visit = `${planned.member}|${planned.npi}|${day}`;
        const onDay = lines.filter((_, i) => planned.lines[i]!.date === day);
        const allowedThatDay = sum(onDay.map((l) => cents(l.allowed_amount)));
        const copayThatDay = sum(onDay.map((l) => cents(l.copay_applied)));
        expect(copayThatDay).toBe(Math.min(Math.max(0, benefits.copayCents - (copaySoFar.get(visit) ?? 0)), allowedThatDay));
        copaySoFar.set(visit, (copaySoFar.get(visit) ?? 0) + copayThatDay);
      }
      expect(t.coinsurance).toBe(roundDiv(t.allowed - t.copay - t.deductible, benefits.coinsurancePercent, 100));
      expect(disposition).toBe(lines.every((l) => l.status === 'ALLOWED') ? 'APPROVED' : 'PARTIAL_APPROVAL');

      // Prices by contract, on the ALLOWED lines.
      const allowedIdx = lines.map((_, i) => i).filter((i) => lines[i]!.status === 'ALLOWED');
      const byContract = new Map<string, number[]>();
      for (const i of allowedIdx) {
        const p = planned.lines[i]!;
        const c = contractFor(planned.npi, p)!;
        byContract.set(c.id, [...(byContract.get(c.id) ?? []), i]);
        // FLAT_RATE per unit; CASE_RATE per case, whatever the quantity.
        if (c.rateType === 'FLAT_RATE') expect(amounts[i]!.allowed).toBe(Math.min(amounts[i]!.charge, c.codes[p.code]![0]! * p.quantity));
        if (c.rateType === 'CASE_RATE') expect(amounts[i]!.allowed).toBe(Math.min(amounts[i]!.charge, c.codes[p.code]![0]!));
        if (c.rateType === 'CASE_RATE' && p.quantity > 1) tally('caseQuantity');
        if (c.anesthesiaIncluded && !p.anesthesia && amounts[i]!.allowed > 0) {
          const day = `${planned.member}|${p.date}`;
          if (!includedDays.has(day)) includedDays.set(day, recorded.indexOf(r));
        }
      }
      for (const [id, idx] of byContract) {
        const c = SEED_CONTRACTS.find((x) => x.id === id)!;
        if (c.rateType !== 'PERCENT_OF_CHARGES') continue;
        const [whole, frac = ''] = c.multiplier!.split('.');
        const den = 10 ** frac.length;
        const charges = sum(idx.map((i) => amounts[i]!.charge));
        expect(sum(idx.map((i) => amounts[i]!.allowed))).toBe(Math.min(charges, roundDiv(charges, Number(whole) * den + Number(frac || '0'), den)));
      }
      for (const i of allowedIdx) {
        const a = amounts[i]!;
        allowedLines.push({ r, index: i, line: planned.lines[i]!, allowed: a.allowed, deductible: a.deductible, copay: a.copay });
        const key = `${planned.member}|${planned.lines[i]!.date.slice(0, 4)}`;
        metSoFar.set(key, (metSoFar.get(key) ?? 0) + a.deductible);
      }
      if (lines.some((l) => l.status === 'ALLOWED') && new Set(allowedIdx.map((i) => planned.lines[i]!.date.slice(0, 4))).size > 1) tally('multiYear');
      if (t.deductible > 0) tally('deductible');
    }

    // Each line on its own date: coverage first, then a payee that may be paid, then its contract covering the code that day.
    lines.forEach((l, i) => {
      const p = planned.lines[i]!;
      if (disposition === 'PENDING_REVIEW') return;
      const m = memberOf(planned.member);
      if (p.date < m.coverageStart) expect([l.status, l.denial_code]).toEqual(['DENIED', 'CARC-26']);
      else if (m.coverageEnd !== null && p.date > m.coverageEnd) expect([l.status, l.denial_code]).toEqual(['DENIED', 'CARC-27']);
      else if (!p.eligible) expect([l.status, l.denial_code]).toEqual(['DENIED', 'CARC-B7']);
      else if (!contractFor(planned.npi, p)) expect([l.status, l.denial_code]).toEqual(['NOT_COVERED', 'CARC-96']);
      else
        expect([
          ['ALLOWED', null],
          ['DENIED', 'CARC-18'],
          ['BUNDLED', 'CARC-97'],
        ]).toContainEqual([l.status, l.denial_code]);
      if (l.status === 'ALLOWED') {
        expect(covered(planned.member, p.date)).toBe(true);
        expect(contractFor(planned.npi, p)).toBeDefined();
      }
    });
  }

  // Anesthesia included: no anesthesia fee is paid for a member and day whose anesthesia a line
  // paid on an earlier claim, or on the same one, included.
  recorded.forEach((r, k) => {
    (r.detail.service_lines as Body[]).forEach((l, i) => {
      const p = r.planned.lines[i]!;
      if (!p.anesthesia) return;
      const included = includedDays.get(`${r.planned.member}|${p.date}`);
      if (l.status === 'ALLOWED') expect(included === undefined || included > k, `anesthesia paid on ${p.date} though included`).toBe(true);
      if (l.status === 'BUNDLED' && included !== undefined && included <= k) tally('anesthesia:bundled');
    });
  });
  if (paidRows.some((row) => row.anesthesia_deducted_cents > 0)) tally('anesthesia:deducted');

  // The paid lines the engine keeps (the days included in an episode apart) are exactly the ALLOWED
  // lines allowed more than 0.00 (or whose
  // price went to anesthesia paid before, or a bundle part whose episode was paid), as the ledger shows them.
  const rowKey = (encounter: string, sequence: number) => `${encounter}#${sequence}`;
  const rowOf = new Map(paidRows.map((r) => [rowKey(r.encounter_id, r.sequence), r]));
  // A bundle part allowed 0.00 counts when its episode's parts on its claim were allowed more in all.
  const paidLines = allowedLines.filter((a) => {
    const row = rowOf.get(rowKey(a.r.encounterId, a.index + 1));
    return a.allowed > 0 || (row !== undefined && (row.anesthesia_deducted_cents > 0 || row.episode_start !== null));
  });
  if (paidLines.some((a) => a.allowed === 0 && contractFor(a.r.planned.npi, a.line)?.rateType === 'BUNDLE')) tally('bundle-zero-part');
  expect(paidRows.map((r) => rowKey(r.encounter_id, r.sequence)).sort()).toEqual(paidLines.map((a) => rowKey(a.r.encounterId, a.index + 1)).sort());
  for (const a of paidLines) {
    const row = rowOf.get(rowKey(a.r.encounterId, a.index + 1))!;
    expect([row.member_id, row.provider_npi, row.fee_kind, row.cpt_code, row.service_date, row.allowed_cents]).toEqual([
      a.r.planned.member,
      a.line.payee,
      a.line.kind,
      a.line.code,
      a.line.date,
      a.allowed,
    ]);
  }

  // No (member, fee kind, code, date) is paid twice; every duplicate denial repeats a line paid before.
  const paidKey = (member: string, l: PlannedLine) => `${member}|${l.kind}|${l.code}|${l.date}`;
  const keys = paidLines.map((a) => paidKey(a.r.planned.member, a.line));
  expect(new Set(keys).size).toBe(keys.length);
  recorded.forEach((r, k) => {
    (r.detail.service_lines as Body[]).forEach((l, i) => {
      if (l.denial_code !== 'CARC-18') return;
      const key = paidKey(r.planned.member, r.planned.lines[i]!);
      const before = paidLines.some((a) => recorded.indexOf(a.r) < k && paidKey(a.r.planned.member, a.line) === key);
      const earlierInClaim = (r.detail.service_lines as Body[])
        .slice(0, i)
        .some((e, j) => ['ALLOWED', 'BUNDLED'].includes(e.status) && paidKey(r.planned.member, r.planned.lines[j]!) === key);
      expect(before || earlierInClaim, `duplicate ${key} repeats nothing paid`).toBe(true);
    });
  });

  // Bundles: per episode, never more than the bundle rate (nor than the shares of its parts).
  const allowedOf = new Map(allowedLines.map((a) => [rowKey(a.r.encounterId, a.index + 1), a.allowed]));
  const episodes = new Map<string, PaidRow[]>();
  for (const row of paidRows) {
    const c = SEED_CONTRACTS.find((x) => x.id === row.contract_id)!;
    if (c.rateType !== 'BUNDLE') {
      expect(row.episode_start).toBeNull();
      continue;
    }
    expect(row.episode_start).not.toBeNull();
    expect(Math.abs(dayOf(row.service_date) - dayOf(row.episode_start!))).toBeLessThan(SPAN[c.bundleType!]!);
    const k = `${row.member_id}|${row.contract_id}|${row.episode_start}`;
    episodes.set(k, [...(episodes.get(k) ?? []), row]);
  }
  for (const [k, rows] of episodes) {
    const c = SEED_CONTRACTS.find((x) => x.id === rows[0]!.contract_id)!;
    const total = sum(rows.map((r) => allowedOf.get(rowKey(r.encounter_id, r.sequence))!));
    expect(total, `episode ${k}`).toBeLessThanOrEqual(c.bundleRateCents!);
    const codes = new Set(rows.map((r) => r.cpt_code));
    expect(total).toBeLessThanOrEqual(sum([...codes].map((code) => bundleShare(c, code))));
    // A part is paid once per episode: a later claim's line of a part already paid is BUNDLED.
    for (const code of codes) expect(new Set(rows.filter((r) => r.cpt_code === code).map((r) => r.encounter_id)).size).toBe(1);
    // An episode holds days fewer than a span after its earliest day, whatever order its claims came in.
    const days = rows.map((r) => dayOf(r.service_date));
    expect(Math.max(...days) - Math.min(...days), `episode ${k}`).toBeLessThan(SPAN[c.bundleType!]!);
    tally(codes.size > 1 ? 'episode:several-parts' : 'episode');
    if (new Set(rows.map((r) => r.encounter_id)).size > 1) tally('episode:across-claims');
  }
  // A DOUBLE_HEADER is one day: per member and day, never more than its rate.
  const haddad = SEED_CONTRACTS.find((c) => c.bundleType === 'DOUBLE_HEADER')!;
  const perDay = new Map<string, number>();
  for (const a of allowedLines) {
    if (contractFor(a.r.planned.npi, a.line)?.id !== haddad.id) continue;
    const k = `${a.r.planned.member}|${a.line.date}`;
    perDay.set(k, (perDay.get(k) ?? 0) + a.allowed);
  }
  for (const [k, v] of perDay) expect(v, k).toBeLessThanOrEqual(haddad.bundleRateCents!);

  // Deductible per member and plan year across all encounters: what was left of it, and all of that when the lines allow it.
  const byYear = new Map<string, { deductible: number; demand: number }>();
  for (const a of allowedLines) {
    const k = `${a.r.planned.member}|${a.line.date.slice(0, 4)}`;
    const y = byYear.get(k) ?? { deductible: 0, demand: 0 };
    y.deductible += a.deductible;
    y.demand += a.allowed - a.copay;
    byYear.set(k, y);
  }
  for (const [k, y] of byYear) {
    const [member, year] = k.split('|') as [string, string];
    const left = Math.max(0, planOf(member).deductibleCents - metBefore(member, year));
    expect(y.deductible, k).toBeLessThanOrEqual(left);
    expect(y.deductible, k).toBe(Math.min(left, y.demand));
  }
}

describe('line rules through the engine: properties', () => {
  it('sequences of claims keep every line rule across encounters', () => {
    fc.assert(fc.property(arbSequence, runSequence), { numRuns: 300 });
    // The generator reaches every outcome the rules name (no property holds vacuously).
    for (const k of [
      '404',
      'APPROVED',
      'PARTIAL_APPROVAL',
      'DENIED',
      'PENDING_REVIEW',
      'line:ALLOWED:null',
      'line:DENIED:CARC-26',
      'line:DENIED:CARC-27',
      'line:DENIED:CARC-18',
      'line:NOT_COVERED:CARC-96',
      'line:BUNDLED:CARC-97',
      'line:DENIED:CARC-B7',
      'caseQuantity',
      'bundle-zero-part',
      'anesthesia:bundled',
      'episode:several-parts',
      'episode:across-claims',
      'multiYear',
      'deductible',
    ]) {
      expect(seen[k] ?? 0, k).toBeGreaterThan(0);
    }
  });
});
