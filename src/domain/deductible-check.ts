// The deductible a member has met per plan year, derived from the claims that count
// (docs/money-rules.md "Deductibles"): each allowed line's deductible in the plan year of its own
// service date. A restore compares the accumulators a backup holds with it (docs/local-data.md "Backups").
import { planYearOf } from './adjudication.js';

interface Line {
  status?: string;
  serviceDate?: string;
  deductibleCents?: number;
}

/** The first accumulator that is not the sum its claims give, described; undefined when all are. */
export function deductibleDisagreement(
  claims: Iterable<{ member_id: string; outcome_json: string; plan_year_start: string }>,
  held: readonly { member_id: string; plan_year: string; met_cents: number }[],
): string | undefined {
  const derived = new Map<string, number>();
  for (const c of claims) {
    let lines: Line[] = [];
    try {
      lines = ((JSON.parse(c.outcome_json) as { lines?: Line[] }).lines ?? []) as Line[];
    } catch {
      lines = [];
    }
    for (const line of lines) {
      if (line.status !== 'ALLOWED' || typeof line.serviceDate !== 'string' || !(Number(line.deductibleCents) > 0)) continue;
      const key = `${c.member_id}\u0000${planYearOf(line.serviceDate, c.plan_year_start)}`;
      derived.set(key, (derived.get(key) ?? 0) + Number(line.deductibleCents));
    }
  }
  const seen = new Set<string>();
  for (const row of held) {
    const key = `${row.member_id}\u0000${row.plan_year}`;
    seen.add(key);
    const want = derived.get(key) ?? 0;
    if (row.met_cents !== want) return `member ${row.member_id}, plan year ${row.plan_year}: ${row.met_cents} cents met, its claims give ${want}`;
  }
  for (const [key, want] of derived) {
    if (seen.has(key) || want === 0) continue;
    const [member, year] = key.split('\u0000');
    return `member ${member}, plan year ${year}: no deductible met recorded, its claims give ${want} cents`;
  }
  return undefined;
}
