// Claims for the line-rule tests: the claim template, with each line's code, date, charge and
// care-team member stated. The claim's total, billable period and created date follow the lines.
import { claimTemplate } from '../../src/domain/claim-template.js';
import { NPI_SYSTEM } from '../../src/domain/fhir-claim.js';
import { centsToAmount, parseCents } from '../../src/domain/money.js';

export interface LineSpec {
  code: string;
  date: string;
  /** The line charge in USD as text ("0.53"); the template's typical charge when absent. */
  charge?: string;
  /** The careTeam sequence the line names (1-based). */
  careTeam?: number;
  quantity?: number;
  /** The line's procedure modifiers (`item[].modifier`). */
  modifiers?: string[];
}

export interface ClaimSpec {
  npi?: string;
  patient?: string;
  lines: LineSpec[];
  /** Replaces the care team: the NPI and role code of each member, in sequence order. */
  careTeam?: { npi: string; role: string }[];
  created?: string;
  preauthorization?: string;
}

type Json = Record<string, any>;

export function claimOf(spec: ClaimSpec): Json {
  const dates = spec.lines.map((l) => l.date).sort();
  const claim = claimTemplate({
    type: 'professional',
    npi: spec.npi,
    patient: spec.patient,
    cpt: spec.lines.map((l) => l.code),
    serviceDate: dates.at(-1)!,
  }) as Json;
  let totalCents = 0;
  claim.item = spec.lines.map((line, i) => {
    const item = { ...(claim.item as Json[])[i] } as Json;
    item.sequence = i + 1;
    item.servicedDate = line.date;
    const quantity = line.quantity ?? 1;
    item.quantity = { value: quantity };
    const unitCents = line.charge === undefined ? parseCents(String(item.unitPrice.value))! : parseCents(line.charge)!;
    item.unitPrice = { value: centsToAmount(unitCents), currency: 'USD' };
    item.net = { value: centsToAmount(unitCents * quantity), currency: 'USD' };
    totalCents += unitCents * quantity;
    if (line.careTeam !== undefined) item.careTeamSequence = [line.careTeam];
    if (line.modifiers) item.modifier = line.modifiers.map((code) => ({ coding: [{ code }] }));
    return item;
  });
  claim.total = { value: centsToAmount(totalCents), currency: 'USD' };
  claim.billablePeriod = { start: dates[0], end: dates.at(-1) };
  claim.created = spec.created ?? dates.at(-1);
  if (spec.careTeam) {
    claim.careTeam = spec.careTeam.map((m, i) => ({
      sequence: i + 1,
      provider: { identifier: { system: NPI_SYSTEM, value: m.npi } },
      role: { coding: [{ code: m.role }] },
    }));
    for (const item of claim.item as Json[]) if (!item.careTeamSequence || item.careTeamSequence[0] > spec.careTeam.length) item.careTeamSequence = [1];
  }
  if (spec.preauthorization) {
    claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: spec.preauthorization }];
  }
  return claim;
}

const DISTINCT_CODES = ['45378', '45380', '43235'];
const DISTINCT_MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];

/**
 * Claim `i` of a batch: Dr. Morgan's professional claim, distinct for every i (code, member and
 * service date from 2026-01-01 on, twelve a day), all approved.
 */
export function distinctClaim(i: number): Json {
  const perDay = DISTINCT_CODES.length * DISTINCT_MEMBERS.length;
  const day = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / perDay) * 86_400_000).toISOString().slice(0, 10);
  return claimTemplate({
    type: 'professional',
    npi: '1045782368',
    cpt: [DISTINCT_CODES[i % DISTINCT_CODES.length]!],
    patient: DISTINCT_MEMBERS[Math.floor(i / DISTINCT_CODES.length) % DISTINCT_MEMBERS.length]!,
    serviceDate: day,
  }) as Json;
}
