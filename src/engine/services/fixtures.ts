// The seeded reference data as `tpa local fixtures` shows it, read from the database (so that it
// also shows what later changes, e.g. deductible met so far).
import { planYearOf } from '../../domain/adjudication.js';
import { centsToAmount } from '../../domain/money.js';
import type { Db } from '../store/db.js';

interface MemberFixtureRow {
  member_id: string;
  name: string;
  dob: string;
  coverage_start: string;
  coverage_end: string | null;
  plan_year_start: string;
  deductible_met_cents: number;
  plan_id: string;
  plan_name: string;
  deductible_cents: number;
  copay_cents: number;
  coinsurance_percent: number;
}

/** `today`: the engine clock's date, whose plan year the deductible met so far is shown for. */
export function fixtures(db: Db, today: string): Record<string, unknown> {
  const providers = db.prepare('SELECT npi, name, role, group_id, facility_npi FROM providers ORDER BY group_id, role, npi').all();
  const contracts = (db.prepare('SELECT * FROM contracts ORDER BY contract_number').all() as Record<string, unknown>[]).map((c) => {
    // The rates in force today, or on the contract's first (last) day when it starts later (ended).
    const effective = c.effective_date as string;
    const termination = c.termination_date as string | null;
    const on = today < effective ? effective : termination !== null && today > termination ? termination : today;
    const codes = db
      .prepare(
        `SELECT cpt_code, negotiated_rate_cents, requires_preauth FROM contract_rates
         WHERE contract_id = ? AND effective_from <= ? AND (effective_to IS NULL OR effective_to >= ?) ORDER BY cpt_code`,
      )
      .all(c.id, on, on) as {
      cpt_code: string;
      negotiated_rate_cents: number | null;
      requires_preauth: number;
    }[];
    return {
      contract_id: c.id,
      contract_number: c.contract_number,
      npi: c.npi,
      group_id: c.group_id,
      effective_date: c.effective_date,
      termination_date: c.termination_date,
      network_tier: c.network_tier,
      rate_type: c.rate_type,
      bundle_type: c.bundle_type,
      negotiated_bundle_rate: c.bundle_rate_cents === null ? null : centsToAmount(c.bundle_rate_cents as number),
      medicare_multiplier: c.medicare_multiplier === null ? null : Number(c.medicare_multiplier),
      anesthesia_included: c.anesthesia_included === 1,
      codes: codes.map((r) => ({
        cpt_code: r.cpt_code,
        negotiated_rate: r.negotiated_rate_cents === null ? null : centsToAmount(r.negotiated_rate_cents),
        requires_preauthorization: r.requires_preauth === 1,
      })),
    };
  });
  const members = (
    db
      .prepare(
        `SELECT m.member_id, m.name, m.dob, m.coverage_start, m.coverage_end, m.deductible_met_cents, p.plan_year_start, p.id AS plan_id, p.name AS plan_name,
                p.deductible_cents, p.copay_cents, p.coinsurance_percent
         FROM members m JOIN plans p ON p.id = m.plan_id ORDER BY m.member_id`,
      )
      .all() as MemberFixtureRow[]
  ).map((m) => {
    const planYear = planYearOf(today, m.plan_year_start);
    const met = db.prepare('SELECT met_cents FROM member_deductibles WHERE member_id = ? AND plan_year = ?').pluck().get(m.member_id, planYear) as
      | number
      | undefined;
    return {
      member_id: m.member_id,
      name: m.name,
      dob: m.dob,
      plan_id: m.plan_id,
      plan_name: m.plan_name,
      deductible: centsToAmount(m.deductible_cents),
      plan_year_start: planYear,
      deductible_met: centsToAmount(Math.min(m.deductible_cents, m.deductible_met_cents + (met ?? 0))),
      copay: centsToAmount(m.copay_cents),
      coinsurance_percent: m.coinsurance_percent,
      coverage_start: m.coverage_start,
      coverage_end: m.coverage_end,
    };
  });
  const cpt_codes = db.prepare('SELECT code, description FROM cpt_codes ORDER BY code').all();
  const builder_instances = db
    .prepare(
      `SELECT b.id AS instance_id, b.name, b.contract_id, c.contract_number, c.npi, c.group_id,
              CASE WHEN s.finalized_at IS NOT NULL THEN 'FINALIZED' WHEN s.id IS NOT NULL THEN 'DRAFT' ELSE 'NOT_INITIALIZED' END AS schedule_status
       FROM builder_instances b JOIN contracts c ON c.id = b.contract_id LEFT JOIN rate_schedules s ON s.instance_id = b.id ORDER BY b.id`,
    )
    .all();
  const catalog_versions = db
    .prepare(
      `SELECT version, SUM(level = 'ENCOUNTER' AND active = 1) AS active_encounter_ssps, COUNT(*) AS entries FROM ssp_catalog GROUP BY version ORDER BY version`,
    )
    .all();
  return { providers, contracts, members, cpt_codes, builder_instances, catalog_versions };
}
