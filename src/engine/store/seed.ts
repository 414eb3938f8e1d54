// The local engine's reference data (docs/local.md "The local engine's fixtures"): providers of every role with valid
// NPIs, contracts of every rate type and bundle type, members with plan benefits. Documented by
// `tpa local fixtures` and docs/local.md "The local engine's fixtures"; tests rely on these values, so change them with care.
import type Database from 'better-sqlite3';
import { planYearOf, type Adjudication } from '../../domain/adjudication.js';
import { contractRate, type ContractRateType } from '../../domain/contract-rates.js';
import type { ParsedClaim } from '../../domain/fhir-claim.js';
import { linePayeeNpi } from '../../domain/payee.js';
import { FAMILIES, IG_EXAMPLES, MIGRATIONS, MONEY_IN_TIME } from './migrations.js';
import { CATALOG_VERSIONS, sspUuid } from './catalog-seed.js';

export const SEED_PLANS = [
  {
    id: 'PLAN-GOLD',
    name: 'Acme Gold PPO',
    payerId: 'PAYER-ACME',
    payerName: 'Acme Health Plan',
    deductibleCents: 50000,
    copayCents: 2500,
    coinsurancePercent: 20,
  },
  {
    id: 'PLAN-SILVER',
    name: 'Acme Silver EPO',
    payerId: 'PAYER-ACME',
    payerName: 'Acme Health Plan',
    deductibleCents: 200000,
    copayCents: 4000,
    coinsurancePercent: 30,
  },
  {
    id: 'PLAN-HSA',
    name: 'Acme Bronze HSA',
    payerId: 'PAYER-ACME',
    payerName: 'Acme Health Plan',
    deductibleCents: 300000,
    copayCents: 0,
    coinsurancePercent: 10,
  },
] as const;

export const SEED_MEMBERS = [
  { memberId: 'MBR-1001', name: 'Jane Doe', dob: '1984-03-12', planId: 'PLAN-GOLD', coverageStart: '2025-01-01', coverageEnd: null, deductibleMetCents: 0 },
  {
    memberId: 'MBR-1002',
    name: 'John Smith',
    dob: '1979-11-02',
    planId: 'PLAN-SILVER',
    coverageStart: '2025-01-01',
    coverageEnd: null,
    deductibleMetCents: 150000,
  },
  {
    memberId: 'MBR-1003',
    name: 'Maria Garcia',
    dob: '1990-07-21',
    planId: 'PLAN-GOLD',
    coverageStart: '2025-01-01',
    coverageEnd: null,
    deductibleMetCents: 50000,
  },
  { memberId: 'MBR-1004', name: 'Robert Chen', dob: '1965-01-30', planId: 'PLAN-HSA', coverageStart: '2025-01-01', coverageEnd: null, deductibleMetCents: 0 },
  {
    memberId: 'MBR-1005',
    name: 'Linda Park',
    dob: '1972-05-14',
    planId: 'PLAN-SILVER',
    coverageStart: '2025-01-01',
    coverageEnd: '2026-06-30',
    deductibleMetCents: 0,
  },
] as const;

export const SEED_PROVIDERS = [
  { npi: '1234567893', name: 'Riverside Surgery Center', role: 'FACILITY', groupId: 'GRP-1001', facilityNpi: null },
  { npi: '1045782368', name: 'Dr. Alice Morgan, Riverside GI', role: 'SURGEON', groupId: 'GRP-1001', facilityNpi: '1234567893' },
  { npi: '1196382455', name: 'Summit Anesthesia Associates', role: 'ANESTHESIA', groupId: 'GRP-1001', facilityNpi: '1234567893' },
  { npi: '1329475804', name: 'Clearview Pathology Lab', role: 'PATHOLOGY', groupId: 'GRP-1001', facilityNpi: '1234567893' },
  { npi: '1450827369', name: 'Lakeside Orthopedic Hospital', role: 'FACILITY', groupId: 'GRP-2002', facilityNpi: null },
  { npi: '1582736496', name: 'Dr. Omar Haddad, Lakeside Orthopedics', role: 'SURGEON', groupId: 'GRP-2002', facilityNpi: '1450827369' },
  { npi: '1673904821', name: 'Northgate Imaging Center', role: 'FACILITY', groupId: 'GRP-3003', facilityNpi: null },
  { npi: '1728493051', name: 'Harbor Eye Institute', role: 'SURGEON', groupId: 'GRP-3003', facilityNpi: null },
  { npi: '1859362703', name: 'Valley Family Clinic (no contract)', role: 'SURGEON', groupId: 'GRP-1001', facilityNpi: null },
] as const;

export const SEED_CPT = [
  ['45378', 'Colonoscopy, diagnostic'],
  ['45380', 'Colonoscopy with biopsy'],
  ['43235', 'Upper GI endoscopy, diagnostic'],
  ['00811', 'Anesthesia for lower GI endoscopy'],
  ['00731', 'Anesthesia for upper GI endoscopy'],
  ['88305', 'Surgical pathology, gross and microscopic'],
  ['88312', 'Special stain, group I'],
  ['27447', 'Total knee arthroplasty'],
  ['01402', 'Anesthesia for total knee arthroplasty'],
  ['97161', 'Physical therapy evaluation, low complexity'],
  ['29881', 'Knee arthroscopy with meniscectomy'],
  ['29880', 'Knee arthroscopy with medial and lateral meniscectomy'],
  ['70553', 'MRI brain without and with contrast'],
  ['66984', 'Cataract removal with intraocular lens'],
  ['99213', 'Office visit, established patient, low complexity'],
] as const;

interface SeedContract {
  id: string;
  number: string;
  npi: string;
  groupId: string;
  effective: string;
  termination: string | null;
  tier: string;
  rateType: ContractRateType;
  multiplier: string | null;
  bundleType: string | null;
  bundleRateCents: number | null;
  anesthesiaIncluded: boolean;
  /** cpt code → [negotiated rate in cents or null, requires preauthorization] */
  codes: Record<string, [number | null, boolean]>;
}

export const SEED_CONTRACTS: readonly SeedContract[] = [
  {
    id: 'ctr_4f9a2c71e8b3d605',
    number: 'DC-2026-0001',
    npi: '1234567893',
    groupId: 'GRP-1001',
    effective: '2025-01-01',
    termination: null,
    tier: 'TIER_1',
    rateType: 'FLAT_RATE',
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: {
      '45378': [145000, false],
      '45380': [165000, false],
      '43235': [120000, false],
      '00811': [48000, false],
      '00731': [42000, false],
      '88305': [9500, false],
    },
  },
  {
    id: 'ctr_8d21b5e09f4c7a13',
    number: 'DC-2026-0002',
    npi: '1045782368',
    groupId: 'GRP-1001',
    effective: '2025-01-01',
    termination: null,
    tier: 'TIER_1',
    rateType: 'CASE_RATE',
    multiplier: null,
    bundleType: 'SINGLE',
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '45378': [42500, false], '45380': [51000, false], '43235': [38000, false] },
  },
  {
    id: 'ctr_2b7e6d0c3a9f8154',
    number: 'DC-2026-0003',
    npi: '1196382455',
    groupId: 'GRP-1001',
    effective: '2025-01-01',
    termination: null,
    tier: 'PREFERRED',
    rateType: 'PERCENT_OF_CHARGES',
    multiplier: '0.85',
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: true,
    codes: { '00811': [null, false], '00731': [null, false] },
  },
  {
    id: 'ctr_c3e1a8f5047d92b6',
    number: 'DC-2026-0004',
    npi: '1329475804',
    groupId: 'GRP-1001',
    effective: '2025-01-01',
    termination: null,
    tier: 'TIER_2',
    rateType: 'PERCENT_OF_CHARGES',
    multiplier: '0.7',
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '88305': [null, false], '88312': [null, false] },
  },
  {
    id: 'ctr_5a0f9e3d6c2b7184',
    number: 'DC-2026-0005',
    npi: '1450827369',
    groupId: 'GRP-2002',
    effective: '2025-01-01',
    termination: null,
    tier: 'TIER_1',
    rateType: 'BUNDLE',
    multiplier: null,
    bundleType: 'PACKAGE',
    bundleRateCents: 2850000,
    anesthesiaIncluded: true,
    codes: { '27447': [null, true], '01402': [null, false], '97161': [null, false] },
  },
  {
    id: 'ctr_9e6b1d4a7f3c0258',
    number: 'DC-2026-0006',
    npi: '1582736496',
    groupId: 'GRP-2002',
    effective: '2025-01-01',
    termination: null,
    tier: 'TIER_2',
    rateType: 'BUNDLE',
    multiplier: null,
    bundleType: 'DOUBLE_HEADER',
    bundleRateCents: 390000,
    anesthesiaIncluded: false,
    codes: { '29881': [null, true], '29880': [null, false] },
  },
  {
    id: 'ctr_0d4c8a2e6b9f1357',
    number: 'DC-2024-0107',
    npi: '1673904821',
    groupId: 'GRP-3003',
    effective: '2024-01-01',
    termination: '2025-12-31',
    tier: 'TIER_2',
    rateType: 'FLAT_RATE',
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '70553': [90000, false] },
  },
  {
    id: 'ctr_7b3f0e8c1d5a9246',
    number: 'DC-2027-0001',
    npi: '1728493051',
    groupId: 'GRP-3003',
    effective: '2027-01-01',
    termination: null,
    tier: 'PREFERRED',
    rateType: 'CASE_RATE',
    multiplier: null,
    bundleType: 'SINGLE',
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '66984': [185000, false] },
  },
];

function seedReference(db: Database.Database): void {
  const plan = db.prepare(
    'INSERT INTO plans (id, name, payer_id, payer_name, deductible_cents, copay_cents, coinsurance_percent) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const p of SEED_PLANS) plan.run(p.id, p.name, p.payerId, p.payerName, p.deductibleCents, p.copayCents, p.coinsurancePercent);
  insertReference(db, { members: SEED_MEMBERS, providers: SEED_PROVIDERS, cpt: SEED_CPT, contracts: SEED_CONTRACTS });
}

/** Reference data of the local engine: members, providers, CPT codes, contracts and their rates. */
export interface ReferenceData {
  members: readonly {
    memberId: string;
    name: string;
    dob: string;
    planId: string;
    coverageStart: string;
    coverageEnd: string | null;
    deductibleMetCents: number;
  }[];
  providers: readonly { npi: string; name: string; role: string; groupId: string; facilityNpi: string | null }[];
  cpt: readonly (readonly [string, string])[];
  contracts: readonly SeedContract[];
}

/**
 * Writes reference data. `orIgnore`: rows a database holds already are kept as they are (a later
 * migration's data never fails an upgrade on them). A contract's rates are in force from its
 * effective date, open, once the schema dates them (docs/money-rules.md "Rates in force on each
 * date"); the first migration's rates are undated.
 */
export function insertReference(db: Database.Database, data: ReferenceData, options: { orIgnore?: boolean } = {}): void {
  const insert = options.orIgnore ? 'INSERT OR IGNORE' : 'INSERT';
  const member = db.prepare(
    `${insert} INTO members (member_id, name, dob, plan_id, coverage_start, coverage_end, deductible_met_cents) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const m of data.members) member.run(m.memberId, m.name, m.dob, m.planId, m.coverageStart, m.coverageEnd, m.deductibleMetCents);
  const provider = db.prepare(`${insert} INTO providers (npi, name, role, group_id, facility_npi) VALUES (?, ?, ?, ?, ?)`);
  for (const p of data.providers) provider.run(p.npi, p.name, p.role, p.groupId, p.facilityNpi);
  const cpt = db.prepare(`${insert} INTO cpt_codes (code, description) VALUES (?, ?)`);
  for (const [code, description] of data.cpt) cpt.run(code, description);
  const contract = db.prepare(
    `${insert} INTO contracts (id, contract_number, npi, group_id, effective_date, termination_date, network_tier, rate_type, medicare_multiplier, bundle_type, bundle_rate_cents, anesthesia_included) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const dated = db.prepare("SELECT 1 FROM pragma_table_info('contract_rates') WHERE name = 'effective_from'").get() !== undefined;
  const rate = dated
    ? db.prepare(
        `${insert} INTO contract_rates (contract_id, cpt_code, effective_from, effective_to, negotiated_rate_cents, requires_preauth) VALUES (?, ?, ?, NULL, ?, ?)`,
      )
    : db.prepare(`${insert} INTO contract_rates (contract_id, cpt_code, negotiated_rate_cents, requires_preauth) VALUES (?, ?, ?, ?)`);
  for (const c of data.contracts) {
    contract.run(
      c.id,
      c.number,
      c.npi,
      c.groupId,
      c.effective,
      c.termination,
      c.tier,
      c.rateType,
      c.multiplier,
      c.bundleType,
      c.bundleRateCents,
      c.anesthesiaIncluded ? 1 : 0,
    );
    for (const [code, [rateCents, preauth]] of Object.entries(c.codes))
      if (dated) rate.run(c.id, code, c.effective, rateCents, preauth ? 1 : 0);
      else rate.run(c.id, code, rateCents, preauth ? 1 : 0);
  }
}

/**
 * X12's published 837 examples (005010X222A1 "Commercial Health Insurance", CLM 26463774, and
 * 005010X223A2's institutional claim, CLM 756048Q; test/fixtures/public/x12/README.md): their
 * patients as members, their billing providers, and contracts pricing their codes on their service
 * dates (2006 and 1996), so that the examples are adjudicated as published. tpa has no dependents:
 * a member is the person covered, so the professional claim's patient, Ted Smith, is the member of
 * the id he is claimed under (his mother Jane's subscriber id; the tests send him as the subscriber,
 * as a 2000C patient is refused). The examples' payers (Key Insurance Company, Medicare Part B) are
 * enrolled as Acme Gold, their ids mapped onto PAYER-ACME by the tests; the deductible is met but for 10.00 (Ted
 * Smith) or in full (John Doe). The examples' NPIs are illustrative and fail the NPI check digit:
 * each provider is held under the same first nine digits with the right check digit
 * (docs/local.md "The local engine's fixtures"). Seeded by a migration of their own, so that a
 * database of an earlier release gains them too.
 */
export const IG_EXAMPLE_MEMBERS = [
  {
    memberId: 'JS00111223333',
    name: 'Ted Smith',
    dob: '1973-05-01',
    planId: 'PLAN-GOLD',
    coverageStart: '2006-01-01',
    coverageEnd: null,
    deductibleMetCents: 49000,
  },
  {
    memberId: '030005074A',
    name: 'John Doe',
    dob: '1926-11-11',
    planId: 'PLAN-GOLD',
    coverageStart: '1996-01-01',
    coverageEnd: null,
    deductibleMetCents: 50000,
  },
] as const;

export const IG_EXAMPLE_PROVIDERS = [
  { npi: '9876543213', name: 'Ben Kildare Service', role: 'SURGEON', groupId: 'GRP-5005', facilityNpi: null },
  { npi: '9876540805', name: 'Jones Hospital', role: 'FACILITY', groupId: 'GRP-6006', facilityNpi: null },
] as const;

export const IG_EXAMPLE_CPT = [
  ['87070', 'Bacterial culture, aerobic, with isolate identification'],
  ['99214', 'Office visit, established patient, moderate complexity'],
  ['86663', 'Epstein-Barr virus antibody, early antigen'],
  ['85025', 'Complete blood count with automated differential'],
  ['93005', 'Electrocardiogram, tracing only'],
] as const;

export const IG_EXAMPLE_CONTRACTS: readonly SeedContract[] = [
  {
    id: 'ctr_c33370d5662264c0',
    number: 'DC-2006-0001',
    npi: '9876543213',
    groupId: 'GRP-5005',
    effective: '2006-01-01',
    termination: null,
    tier: 'TIER_1',
    rateType: 'FLAT_RATE',
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '99213': [3200, false], '87070': [1100, false], '99214': [2800, false], '86663': [800, false] },
  },
  {
    id: 'ctr_fd3e71cfbdae4e59',
    number: 'DC-1996-0001',
    npi: '9876540805',
    groupId: 'GRP-6006',
    effective: '1996-01-01',
    termination: null,
    tier: 'TIER_1',
    rateType: 'FLAT_RATE',
    multiplier: null,
    bundleType: null,
    bundleRateCents: null,
    anesthesiaIncluded: false,
    codes: { '85025': [1000, false], '93005': [2000, false] },
  },
];

function seedIgExamples(db: Database.Database): void {
  // OR IGNORE: reference data a database holds already is kept as it is; an upgrade never fails on it.
  insertReference(
    db,
    { members: IG_EXAMPLE_MEMBERS, providers: IG_EXAMPLE_PROVIDERS, cpt: IG_EXAMPLE_CPT, contracts: IG_EXAMPLE_CONTRACTS },
    { orIgnore: true },
  );
}

/**
 * A family: a subscriber and their dependents (a spouse and a child), each a member of their own,
 * with their own member id, deductible and benefits, on the subscriber's plan; `subscriberId` names
 * the subscriber (docs/local.md "The local engine's fixtures"). An 837 names a dependent as the
 * patient (loop 2000C) of the subscriber's member id, by name and date of birth (docs/x12.md "A
 * dependent patient").
 */
export const SEED_FAMILY_MEMBERS = [
  {
    memberId: 'MBR-1006',
    name: 'Daniel Rivera',
    dob: '1980-02-14',
    planId: 'PLAN-GOLD',
    coverageStart: '2025-01-01',
    coverageEnd: null,
    deductibleMetCents: 0,
    subscriberId: null,
  },
  {
    memberId: 'MBR-1007',
    name: 'Elena M. Rivera',
    dob: '1982-09-03',
    planId: 'PLAN-GOLD',
    coverageStart: '2025-01-01',
    coverageEnd: null,
    deductibleMetCents: 0,
    subscriberId: 'MBR-1006',
  },
  {
    memberId: 'MBR-1008',
    name: 'Sofia Rivera',
    dob: '2012-06-18',
    planId: 'PLAN-GOLD',
    coverageStart: '2025-01-01',
    coverageEnd: null,
    deductibleMetCents: 0,
    subscriberId: 'MBR-1006',
  },
] as const;

/**
 * The published 837P example's subscriber, Jane Smith (NM1*IL of loop 2010BA), whose dependent Ted
 * Smith (loop 2000C) the seed held, before tpa read dependents, under the member id the example
 * gives her: a member's id is never changed, so she is enrolled under another id (the tests map the
 * example's NM1*IL NM109 onto it) and Ted Smith, JS00111223333, becomes her dependent.
 */
export const IG_EXAMPLE_SUBSCRIBER = {
  memberId: 'JS00111223300',
  name: 'Jane Smith',
  dob: '1943-05-01',
  planId: 'PLAN-GOLD',
  coverageStart: '2006-01-01',
  coverageEnd: null,
  deductibleMetCents: 0,
  dependents: ['JS00111223333'],
} as const;

function seedFamilies(db: Database.Database): void {
  // OR IGNORE: an upgraded database keeps what it holds; each dependent is named under its subscriber.
  insertReference(db, { members: [...SEED_FAMILY_MEMBERS, IG_EXAMPLE_SUBSCRIBER], providers: [], cpt: [], contracts: [] }, { orIgnore: true });
  const under = db.prepare('UPDATE members SET subscriber_id = ? WHERE member_id = ? AND subscriber_id IS NULL');
  for (const m of SEED_FAMILY_MEMBERS) if (m.subscriberId !== null) under.run(m.subscriberId, m.memberId);
  for (const d of IG_EXAMPLE_SUBSCRIBER.dependents) under.run(IG_EXAMPLE_SUBSCRIBER.memberId, d);
}

export const SEED_BUILDER_INSTANCES = [
  { id: 'BLD-1001', name: 'Summit Ambulatory Surgery Center: 2027 direct contract', contractId: 'ctr_6e2d9b4f1a7c3058' },
  { id: 'BLD-1002', name: 'Riverside GI: surgeon case rates renewal', contractId: 'ctr_8d21b5e09f4c7a13' },
] as const;

function seedBuilder(db: Database.Database): void {
  // The builder's own direct contract: a new ambulatory surgery center whose rates come from its schedule.
  db.prepare('INSERT INTO providers VALUES (?, ?, ?, ?, ?)').run('1902847361', 'Summit Ambulatory Surgery Center', 'FACILITY', 'GRP-4004', null);
  db.prepare(
    'INSERT INTO contracts (id, contract_number, npi, group_id, effective_date, termination_date, network_tier, rate_type, medicare_multiplier, bundle_type, bundle_rate_cents, anesthesia_included) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run('ctr_6e2d9b4f1a7c3058', 'DC-2026-0101', '1902847361', 'GRP-4004', '2025-01-01', null, 'PREFERRED', 'CASE_RATE', null, 'SINGLE', null, 1);
  const cpt = db.prepare('INSERT OR IGNORE INTO cpt_codes VALUES (?, ?)');
  const ssp = db.prepare('INSERT INTO ssp_catalog VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (const [version, entries] of Object.entries(CATALOG_VERSIONS)) {
    for (const e of entries) {
      ssp.run(
        sspUuid(version, e.code),
        version,
        e.code,
        e.name,
        e.level,
        e.medicareRateCents,
        e.baseWeight,
        e.primaryCpt,
        e.requiresAnesthesia ? 1 : 0,
        e.active ? 1 : 0,
      );
      if (e.level === 'ENCOUNTER') cpt.run(e.primaryCpt, e.name);
    }
  }
  const instance = db.prepare('INSERT INTO builder_instances VALUES (?, ?, ?)');
  for (const b of SEED_BUILDER_INSTANCES) instance.run(b.id, b.name, b.contractId);
}

/**
 * Migration 7: `members.deductible_met_cents` becomes what each plan year starts with (the
 * fixtures' figures: MBR-1003 arrives with the deductible met whatever the year, so that the
 * template's claims price the same in any year); what claims added to it on an older database
 * counts for the plan year of each line's own service date, from the stored adjudications (before
 * the money-in-time migration, it was all put in the plan year in force on the engine clock at the
 * upgrade). The lines already paid are recorded from the stored adjudications, so that duplicates
 * and bundle episodes see the claims made before.
 */
function carryOverLineRules(db: Database.Database): void {
  const members = db.prepare('SELECT m.member_id, m.deductible_met_cents FROM members m WHERE m.deductible_met_cents > 0').all() as {
    member_id: string;
    deductible_met_cents: number;
  }[];
  const baseline = db.prepare('UPDATE members SET deductible_met_cents = ? WHERE member_id = ?');
  for (const m of members) {
    baseline.run(Math.min(m.deductible_met_cents, SEED_MEMBERS.find((s) => s.memberId === m.member_id)?.deductibleMetCents ?? 0), m.member_id);
  }
  countDeductiblesFromAdjudications(db);
  // Who is paid for a line (domain/payee.ts): its own provider when it holds a contract.
  // Read before iterating, since no other statement may run while the encounters are iterated.
  const payable = new Set(db.prepare('SELECT DISTINCT npi FROM contracts').pluck().all() as string[]);
  const paid = db.prepare(
    'INSERT INTO paid_lines (encounter_id, sequence, member_id, provider_npi, cpt_code, service_date, contract_id, episode_start) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const encounters = db
    .prepare(
      `SELECT e.id, e.member_id, e.contract_id, c.rate_type, e.claim_json, e.outcome_json FROM encounters e LEFT JOIN contracts c ON c.id = e.contract_id
       WHERE e.disposition NOT IN ('DENIED', 'PENDING_REVIEW')`,
    )
    .iterate() as Iterable<{ id: string; member_id: string; contract_id: string; rate_type: string | null; claim_json: string; outcome_json: string }>;
  const rows: unknown[][] = [];
  for (const e of encounters) {
    const claim = JSON.parse(e.claim_json) as ParsedClaim;
    for (const line of (JSON.parse(e.outcome_json) as Adjudication).lines) {
      const claimLine = claim.lines.find((l) => l.sequence === line.sequence);
      if (line.status !== 'ALLOWED' || !claimLine) continue;
      const payee = linePayeeNpi(claim, claimLine, (npi) => payable.has(npi));
      rows.push([
        e.id,
        line.sequence,
        e.member_id,
        payee,
        line.cptCode,
        claimLine.serviceDate,
        e.contract_id,
        e.rate_type !== null && contractRate(e.rate_type).byEpisode ? claimLine.serviceDate : null,
      ]);
    }
  }
  for (const r of rows) paid.run(...r);
}

/**
 * The deductible met by claims per member and plan year, counted again from the stored
 * adjudications: each accepted claim's (not DENIED, not PENDING_REVIEW) lines, each in the plan year
 * of its own service date (a line of the first release carries no date: its claim line does).
 */
function countDeductiblesFromAdjudications(db: Database.Database): void {
  const met = new Map<string, number>();
  const encounters = db
    .prepare(
      `SELECT e.member_id, e.service_date, e.claim_json, e.outcome_json, p.plan_year_start FROM encounters e
       JOIN members m ON m.member_id = e.member_id JOIN plans p ON p.id = m.plan_id
       WHERE e.disposition NOT IN ('DENIED', 'PENDING_REVIEW')`,
    )
    .iterate() as Iterable<{ member_id: string; service_date: string; claim_json: string; outcome_json: string; plan_year_start: string }>;
  for (const e of encounters) {
    const claim = JSON.parse(e.claim_json) as ParsedClaim;
    for (const line of (JSON.parse(e.outcome_json) as Adjudication).lines) {
      if (!(line.deductibleCents > 0)) continue;
      const date = line.serviceDate ?? claim.lines.find((l) => l.sequence === line.sequence)?.serviceDate ?? e.service_date;
      const key = `${e.member_id}\u0000${planYearOf(date, e.plan_year_start)}`;
      met.set(key, (met.get(key) ?? 0) + line.deductibleCents);
    }
  }
  db.prepare('DELETE FROM member_deductibles').run();
  const insert = db.prepare('INSERT INTO member_deductibles (member_id, plan_year, met_cents) VALUES (?, ?, ?)');
  for (const [key, cents] of met) insert.run(...key.split('\u0000'), cents);
}

/**
 * Data by migration index: what each migration's tables start with (or carry over), given the
 * engine clock when something is dated.
 */
export const SEEDS: Record<number, (db: Database.Database, now: () => Date) => void> = {
  0: seedReference,
  2: seedBuilder,
  6: carryOverLineRules,
  [MIGRATIONS.indexOf(MONEY_IN_TIME)]: countDeductiblesFromAdjudications,
  [MIGRATIONS.indexOf(IG_EXAMPLES)]: seedIgExamples,
  [MIGRATIONS.indexOf(FAMILIES)]: seedFamilies,
};
