// The local engine's seed, copied by hand from `tpa local fixtures -o json` and the fixtures table of
// docs/local.md, so that the reference model owes nothing to the engine's code: providers with
// their registry role and group, contracts with their rate types and rates, members with their plan
// benefits. Amounts in cents.

export type Role = 'FACILITY' | 'SURGEON' | 'ANESTHESIA' | 'PATHOLOGY';
export type RateType = 'FLAT_RATE' | 'CASE_RATE' | 'PERCENT_OF_CHARGES' | 'BUNDLE';

export interface Provider {
  npi: string;
  name: string;
  role: Role;
  group: string;
}

/** A rate for one code, in force from `from` to `to` (inclusive; null: open). */
export interface Rate {
  code: string;
  /** FLAT_RATE and CASE_RATE: the negotiated rate; null for PERCENT_OF_CHARGES and BUNDLE. */
  cents: number | null;
  from: string;
  to: string | null;
  preauthorization: boolean;
}

export interface Contract {
  id: string;
  number: string;
  npi: string;
  group: string;
  effective: string;
  termination: string | null;
  rateType: RateType;
  bundleType: 'SINGLE' | 'DOUBLE_HEADER' | 'PACKAGE' | null;
  bundleCents: number | null;
  /** PERCENT_OF_CHARGES: the multiplier in hundredths (0.85 → 85). */
  percent: number | null;
  anesthesiaIncluded: boolean;
  rates: Rate[];
}

export interface Member {
  id: string;
  deductibleCents: number;
  /** What every plan year starts with (docs/local.md "The local engine's fixtures": the amounts met). */
  metCents: number;
  copayCents: number;
  coinsurancePercent: number;
  coverageStart: string;
  coverageEnd: string | null;
}

export const RIVERSIDE = '1234567893';
export const MORGAN = '1045782368';
export const SUMMIT_ANESTHESIA = '1196382455';
export const CLEARVIEW = '1329475804';
export const VALLEY = '1859362703';
export const LAKESIDE = '1450827369';
export const HADDAD = '1582736496';
export const NORTHGATE = '1673904821';
export const HARBOR = '1728493051';
export const SUMMIT_ASC = '1902847361';

export const PROVIDERS: readonly Provider[] = [
  { npi: SUMMIT_ANESTHESIA, name: 'Summit Anesthesia Associates', role: 'ANESTHESIA', group: 'GRP-1001' },
  { npi: RIVERSIDE, name: 'Riverside Surgery Center', role: 'FACILITY', group: 'GRP-1001' },
  { npi: CLEARVIEW, name: 'Clearview Pathology Lab', role: 'PATHOLOGY', group: 'GRP-1001' },
  { npi: MORGAN, name: 'Dr. Alice Morgan, Riverside GI', role: 'SURGEON', group: 'GRP-1001' },
  { npi: VALLEY, name: 'Valley Family Clinic (no contract)', role: 'SURGEON', group: 'GRP-1001' },
  { npi: LAKESIDE, name: 'Lakeside Orthopedic Hospital', role: 'FACILITY', group: 'GRP-2002' },
  { npi: HADDAD, name: 'Dr. Omar Haddad, Lakeside Orthopedics', role: 'SURGEON', group: 'GRP-2002' },
  { npi: NORTHGATE, name: 'Northgate Imaging Center', role: 'FACILITY', group: 'GRP-3003' },
  { npi: HARBOR, name: 'Harbor Eye Institute', role: 'SURGEON', group: 'GRP-3003' },
  { npi: SUMMIT_ASC, name: 'Summit Ambulatory Surgery Center', role: 'FACILITY', group: 'GRP-4004' },
];

const seeded = (from: string, code: string, cents: number | null, preauthorization = false): Rate => ({ code, cents, from, to: null, preauthorization });

/** The seeded contracts; `rates` are the seed's, in force from the contract's effective date. */
export function seededContracts(): Contract[] {
  const y25 = '2025-01-01';
  return [
    {
      id: 'ctr_0d4c8a2e6b9f1357',
      number: 'DC-2024-0107',
      npi: NORTHGATE,
      group: 'GRP-3003',
      effective: '2024-01-01',
      termination: '2025-12-31',
      rateType: 'FLAT_RATE',
      bundleType: null,
      bundleCents: null,
      percent: null,
      anesthesiaIncluded: false,
      rates: [seeded('2024-01-01', '70553', 90000)],
    },
    {
      id: 'ctr_4f9a2c71e8b3d605',
      number: 'DC-2026-0001',
      npi: RIVERSIDE,
      group: 'GRP-1001',
      effective: y25,
      termination: null,
      rateType: 'FLAT_RATE',
      bundleType: null,
      bundleCents: null,
      percent: null,
      anesthesiaIncluded: false,
      rates: [
        seeded(y25, '00731', 42000),
        seeded(y25, '00811', 48000),
        seeded(y25, '43235', 120000),
        seeded(y25, '45378', 145000),
        seeded(y25, '45380', 165000),
        seeded(y25, '88305', 9500),
      ],
    },
    {
      id: 'ctr_8d21b5e09f4c7a13',
      number: 'DC-2026-0002',
      npi: MORGAN,
      group: 'GRP-1001',
      effective: y25,
      termination: null,
      rateType: 'CASE_RATE',
      bundleType: 'SINGLE',
      bundleCents: null,
      percent: null,
      anesthesiaIncluded: false,
      rates: [seeded(y25, '43235', 38000), seeded(y25, '45378', 42500), seeded(y25, '45380', 51000)],
    },
    {
      id: 'ctr_2b7e6d0c3a9f8154',
      number: 'DC-2026-0003',
      npi: SUMMIT_ANESTHESIA,
      group: 'GRP-1001',
      effective: y25,
      termination: null,
      rateType: 'PERCENT_OF_CHARGES',
      bundleType: null,
      bundleCents: null,
      percent: 85,
      anesthesiaIncluded: true,
      rates: [seeded(y25, '00731', null), seeded(y25, '00811', null)],
    },
    {
      id: 'ctr_c3e1a8f5047d92b6',
      number: 'DC-2026-0004',
      npi: CLEARVIEW,
      group: 'GRP-1001',
      effective: y25,
      termination: null,
      rateType: 'PERCENT_OF_CHARGES',
      bundleType: null,
      bundleCents: null,
      percent: 70,
      anesthesiaIncluded: false,
      rates: [seeded(y25, '88305', null), seeded(y25, '88312', null)],
    },
    {
      id: 'ctr_5a0f9e3d6c2b7184',
      number: 'DC-2026-0005',
      npi: LAKESIDE,
      group: 'GRP-2002',
      effective: y25,
      termination: null,
      rateType: 'BUNDLE',
      bundleType: 'PACKAGE',
      bundleCents: 2850000,
      percent: null,
      anesthesiaIncluded: true,
      rates: [seeded(y25, '01402', null), seeded(y25, '27447', null, true), seeded(y25, '97161', null)],
    },
    {
      id: 'ctr_9e6b1d4a7f3c0258',
      number: 'DC-2026-0006',
      npi: HADDAD,
      group: 'GRP-2002',
      effective: y25,
      termination: null,
      rateType: 'BUNDLE',
      bundleType: 'DOUBLE_HEADER',
      bundleCents: 390000,
      percent: null,
      anesthesiaIncluded: false,
      rates: [seeded(y25, '29880', null), seeded(y25, '29881', null, true)],
    },
    {
      id: 'ctr_6e2d9b4f1a7c3058',
      number: 'DC-2026-0101',
      npi: SUMMIT_ASC,
      group: 'GRP-4004',
      effective: y25,
      termination: null,
      rateType: 'CASE_RATE',
      bundleType: 'SINGLE',
      bundleCents: null,
      percent: null,
      anesthesiaIncluded: true,
      rates: [],
    },
    {
      id: 'ctr_7b3f0e8c1d5a9246',
      number: 'DC-2027-0001',
      npi: HARBOR,
      group: 'GRP-3003',
      effective: '2027-01-01',
      termination: null,
      rateType: 'CASE_RATE',
      bundleType: 'SINGLE',
      bundleCents: null,
      percent: null,
      anesthesiaIncluded: false,
      rates: [seeded('2027-01-01', '66984', 185000)],
    },
  ];
}

export const MEMBERS: readonly Member[] = [
  { id: 'MBR-1001', deductibleCents: 50000, metCents: 0, copayCents: 2500, coinsurancePercent: 20, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1002', deductibleCents: 200000, metCents: 150000, copayCents: 4000, coinsurancePercent: 30, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1003', deductibleCents: 50000, metCents: 50000, copayCents: 2500, coinsurancePercent: 20, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1004', deductibleCents: 300000, metCents: 0, copayCents: 0, coinsurancePercent: 10, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1005', deductibleCents: 200000, metCents: 0, copayCents: 4000, coinsurancePercent: 30, coverageStart: '2025-01-01', coverageEnd: '2026-06-30' },
  // A family on Acme Gold: a subscriber and two dependents, each a member with a deductible of their own.
  { id: 'MBR-1006', deductibleCents: 50000, metCents: 0, copayCents: 2500, coinsurancePercent: 20, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1007', deductibleCents: 50000, metCents: 0, copayCents: 2500, coinsurancePercent: 20, coverageStart: '2025-01-01', coverageEnd: null },
  { id: 'MBR-1008', deductibleCents: 50000, metCents: 0, copayCents: 2500, coinsurancePercent: 20, coverageStart: '2025-01-01', coverageEnd: null },
];

/** Codes no contract rates (a line of one is NOT_COVERED, or makes the claim 404 alone). */
export const UNCONTRACTED = ['99213'];

export const provider = (npi: string): Provider => {
  const p = PROVIDERS.find((x) => x.npi === npi);
  if (!p) throw new Error(`no provider ${npi} in the fixtures`);
  return p;
};

export const member = (id: string): Member => {
  const m = MEMBERS.find((x) => x.id === id);
  if (!m) throw new Error(`no member ${id} in the fixtures`);
  return m;
};
