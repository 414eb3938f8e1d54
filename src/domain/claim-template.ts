// Builds the FHIR R4 Claim that `tpa claim template` prints: valid, and matched to the seeded
// contracts so that it can be submitted as it is.
import { CLAIM_TYPE_SYSTEM, CPT_SYSTEM, ICD10_SYSTEM, NPI_SYSTEM, type ProviderRole, REVENUE_SYSTEM } from './fhir-claim.js';
import { centsToAmount } from './money.js';

export interface TemplateOptions {
  type: 'professional' | 'institutional';
  npi?: string;
  cpt?: string[];
  patient?: string;
  serviceDate: string;
  /** Professional: the billing provider's role on the care team (default SURGEON). */
  role?: ProviderRole;
  /** The billed charge of every service line, in cents (default: a typical charge for its code). */
  chargeCents?: number;
}

/**
 * The care-team role of each provider role, as claimcareteamrole codes it (primary, assist,
 * supervisor, other: it has no surgeon or anesthesiologist), with the role in words as its text.
 * The engine pays each provider in its contracted role, from its registry.
 */
export const CARE_TEAM_ROLE_CODE: Record<ProviderRole, string> = {
  FACILITY: 'other',
  SURGEON: 'primary',
  ANESTHESIA: 'other',
  PATHOLOGY: 'other',
};

/** Typical billed charges (cents) for the seeded codes, so that contracts price below charges. */
const TYPICAL_CHARGE: Record<string, number> = {
  '45378': 180000,
  '45380': 240000,
  '43235': 150000,
  '00811': 90000,
  '00731': 80000,
  '88305': 25000,
  '88312': 12000,
  '27447': 3400000,
  '01402': 250000,
  '97161': 30000,
  '29881': 450000,
  '29880': 520000,
  '70553': 210000,
  '66984': 260000,
  '99213': 18000,
  '64721': 380000,
};
const REVENUE_FOR: Record<string, string> = { '00811': '0370', '00731': '0370', '01402': '0370', '88305': '0310', '88312': '0310', '97161': '0420' };
const ROLE_FOR: Record<string, { npi: string; role: ProviderRole }> = {
  '00811': { npi: '1196382455', role: 'ANESTHESIA' },
  '00731': { npi: '1196382455', role: 'ANESTHESIA' },
  '88305': { npi: '1329475804', role: 'PATHOLOGY' },
  '88312': { npi: '1329475804', role: 'PATHOLOGY' },
};
const SURGEON_NPI = '1045782368';
const FACILITY_NPI = '1234567893';

/** The surgeon's professional fee for a procedure billed on an institutional claim. */
const PROFESSIONAL_CHARGE: Record<string, number> = { '45380': 65000, '45378': 55000, '43235': 45000, '27447': 520000, '29881': 180000 };

/**
 * Professional: one line per code, performed by the billing surgeon (or the anesthesia or
 * pathology group the code calls for). Institutional: an encounter billed by the facility; the
 * first code is billed twice, as the facility fee (the facility's own line, no care team) and as
 * the surgeon's professional fee, and anesthesia and pathology codes name their groups.
 */
export function claimTemplate(o: TemplateOptions): Record<string, unknown> {
  const institutional = o.type === 'institutional';
  const npi = o.npi ?? (institutional ? FACILITY_NPI : SURGEON_NPI);
  const codes = o.cpt && o.cpt.length > 0 ? o.cpt : institutional ? ['45380', '00811', '88305'] : ['45378'];
  const careTeam: { npi: string; role: ProviderRole }[] = [{ npi: institutional ? SURGEON_NPI : npi, role: institutional ? 'SURGEON' : (o.role ?? 'SURGEON') }];
  const careTeamSequence = (code: string): number => {
    const member = ROLE_FOR[code] ?? careTeam[0]!;
    let index = careTeam.findIndex((m) => m.npi === member.npi);
    if (index < 0) index = careTeam.push(member) - 1;
    return index + 1;
  };
  const lines: { code: string; charge: number; revenue: string; careTeam: number | null }[] = codes.map((code) => ({
    code,
    charge: o.chargeCents ?? TYPICAL_CHARGE[code] ?? 50000,
    revenue: REVENUE_FOR[code] ?? '0750',
    careTeam: careTeamSequence(code),
  }));
  if (institutional) {
    const primary = lines[0]!;
    lines.splice(1, 0, {
      code: primary.code,
      charge: o.chargeCents ?? PROFESSIONAL_CHARGE[primary.code] ?? Math.round(primary.charge * 0.3),
      revenue: '0960',
      careTeam: primary.careTeam,
    });
    primary.careTeam = null;
  }
  const items = lines.map((line, i) => ({
    sequence: i + 1,
    ...(line.careTeam === null ? {} : { careTeamSequence: [line.careTeam] }),
    ...(institutional ? { revenue: { coding: [{ system: REVENUE_SYSTEM, code: line.revenue }] } } : {}),
    productOrService: { coding: [{ system: CPT_SYSTEM, code: line.code }] },
    servicedDate: o.serviceDate,
    quantity: { value: 1 },
    unitPrice: { value: centsToAmount(line.charge), currency: 'USD' },
    net: { value: centsToAmount(line.charge), currency: 'USD' },
  }));
  return {
    resourceType: 'Claim',
    status: 'active',
    type: { coding: [{ system: CLAIM_TYPE_SYSTEM, code: o.type }] },
    use: 'claim',
    patient: { reference: `Patient/${o.patient ?? 'MBR-1003'}` },
    billablePeriod: { start: o.serviceDate, end: o.serviceDate },
    created: o.serviceDate,
    provider: { reference: `Organization/${npi}`, identifier: { system: NPI_SYSTEM, value: npi } },
    priority: { coding: [{ code: 'normal' }] },
    insurer: { reference: 'Organization/PAYER-ACME' },
    careTeam: careTeam.map((m, i) => ({
      sequence: i + 1,
      provider: { identifier: { system: NPI_SYSTEM, value: m.npi } },
      role: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claimcareteamrole', code: CARE_TEAM_ROLE_CODE[m.role] }], text: m.role.toLowerCase() },
    })),
    diagnosis: [{ sequence: 1, diagnosisCodeableConcept: { coding: [{ system: ICD10_SYSTEM, code: 'Z12.11' }] } }],
    insurance: [{ sequence: 1, focal: true, coverage: { reference: 'Coverage/COV-1' } }],
    item: items,
    total: { value: centsToAmount(lines.reduce((sum, line) => sum + line.charge, 0)), currency: 'USD' },
  };
}
