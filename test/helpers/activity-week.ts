// A week of a TPA's work on the embedded engine, for `tpa activity` and the period options: claims
// submitted on Monday (three adjudicated, one pended, one denied as a duplicate) plus one for a
// service long before; two approvals on Monday; one transfer fails on Tuesday while the other
// arrives; Wednesday the arrived one is refunded and two encounters are funded. Each step runs
// at its own engine time (TPA_CLOCK).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { formatCents } from '../../src/domain/money.js';
import { runTpa } from './cli.js';
import { cents } from './values.js';

export const MON = '2026-03-02T10:00:00Z';
export const MON_LATER = '2026-03-02T11:00:00Z';
export const TUE = '2026-03-03T09:00:00Z';
export const WED = '2026-03-04T12:00:00Z';
export const THU = '2026-03-05T09:00:00Z';
/** The service date of the claim sent on Monday for a service 102 days before (beyond the default lookback of 90). */
export const OLD_SERVICE = '2025-11-20';

export interface Week {
  /** Funded Monday, arrived Tuesday, refunded Wednesday. */
  a: string;
  /** Funded Monday, failed Tuesday, funded again Wednesday. */
  b: string;
  /** Funded Wednesday. */
  c: string;
  /** The benefit of each, in cents. */
  benefit: Record<string, number>;
}

export async function buildWeek(home: string): Promise<Week> {
  const at = async (clock: string, args: string[]) => {
    const r = await runTpa(args, { home, env: { TPA_CLOCK: clock } });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const claims = [
    claimTemplate({ type: 'institutional', npi: '1234567893', cpt: ['45380', '00811', '88305'], patient: 'MBR-1002', serviceDate: '2026-02-23' }),
    claimTemplate({ type: 'institutional', npi: '1234567893', cpt: ['45380', '00811', '88305'], patient: 'MBR-1003', serviceDate: '2026-02-24' }),
    claimTemplate({ type: 'institutional', npi: '1234567893', cpt: ['45380', '00811', '88305'], patient: 'MBR-1004', serviceDate: '2026-02-25' }),
    claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1001', serviceDate: '2026-02-26' }),
  ];
  claims.push(claims[0]!);
  claims.push(claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1004', serviceDate: OLD_SERVICE }));
  writeFileSync(join(home, 'week.ndjson'), `${claims.map((x) => JSON.stringify(x)).join('\n')}\n`);
  await at(MON, ['claim', 'submit', 'week.ndjson', '-o', 'ndjson']);
  const entries = (await at(MON, ['ledger', 'list', '--all', '-o', 'ndjson'])).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { encounter_id: string; service_date: string; status: string; financial_summary: { benefit_amount: number | null } });
  const on = (date: string) => entries.find((e) => e.service_date === date && e.status === 'ADJUDICATED')!.encounter_id;
  const [a, b, c] = [on('2026-02-23'), on('2026-02-24'), on('2026-02-25')];
  const benefit: Record<string, number> = {};
  for (const e of entries) if (e.financial_summary.benefit_amount !== null) benefit[e.encounter_id] = cents(e.financial_summary.benefit_amount);
  for (const id of [a, b, c]) expect(benefit[id], 'a benefit to fund').toBeGreaterThan(0);
  const fund = (clock: string, id: string, code: string) =>
    at(clock, ['fund', 'approve', id, '--amount', formatCents(benefit[id]!), '--auth-code', code, '--yes']);
  await fund(MON_LATER, a, 'AUTH-20260302-WEEK-0001');
  await fund(MON_LATER, b, 'AUTH-20260302-WEEK-0002');
  await at(TUE, ['local', 'simulate', 'settlement-failure', b]);
  await at(WED, ['local', 'simulate', 'refund', a]);
  await fund(WED, b, 'AUTH-20260304-WEEK-0001');
  await fund(WED, c, 'AUTH-20260304-WEEK-0002');
  return { a, b, c, benefit };
}
