// Parsed claims for the pure adjudication tests: each line's fields default to a one-unit 45378 on
// 2026-03-02 charged 1,000.00 (or to `lineDefaults`), the claim's to a professional claim of
// Dr. Morgan for MBR-1 created that day; the total follows the lines.
import type { ClaimLine, ParsedClaim } from '../../src/domain/fhir-claim.js';

export function parsedClaim(lines: Partial<ClaimLine>[], extra: Partial<ParsedClaim> = {}, lineDefaults: Partial<ClaimLine> = {}): ParsedClaim {
  const full = lines.map((l, i) => ({
    sequence: i + 1,
    cptCode: '45378',
    revenueCode: null,
    serviceDate: '2026-03-02',
    quantity: 1,
    chargeCents: 100000,
    careTeamSequences: [],
    ...lineDefaults,
    ...l,
  }));
  return {
    type: 'professional',
    providerNpi: '1045782368',
    providerName: null,
    memberId: 'MBR-1',
    created: '2026-03-02',
    billablePeriod: { start: null, end: null },
    insurerReference: null,
    lines: full,
    careTeam: [],
    diagnosisCodes: [],
    preauthorizations: [],
    totalChargeCents: full.reduce((s, l) => s + l.chargeCents, 0),
    ...extra,
  };
}
