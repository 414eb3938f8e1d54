// The seeded reference data as `tpa local fixtures` shows it, read from the database (so that it
// also shows what later changes, e.g. deductible met so far).
import { planYearOf } from '../../domain/adjudication.js';
import { centsToAmount } from '../../domain/money.js';
import { builderInstancesWithStatus, catalogVersions } from '../store/builder.js';
import { allContracts, ratesInForceOn } from '../store/contracts.js';
import type { Db } from '../store/db.js';
import { deductibleMetIn, membersWithPlans } from '../store/members.js';
import { allProviders } from '../store/providers.js';
import { allCptCodes } from '../store/reference.js';

/** `today`: the engine clock's date, whose plan year the deductible met so far is shown for. */
export function fixtures(db: Db, today: string): Record<string, unknown> {
  const providers = allProviders(db);
  const contracts = allContracts(db).map((c) => {
    // The rates in force today, or on the contract's first (last) day when it starts later (ended).
    const effective = c.effective_date;
    const termination = c.termination_date;
    const on = today < effective ? effective : termination !== null && today > termination ? termination : today;
    const codes = ratesInForceOn(db, c.id, on);
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
      negotiated_bundle_rate: c.bundle_rate_cents === null ? null : centsToAmount(c.bundle_rate_cents),
      medicare_multiplier: c.medicare_multiplier === null ? null : Number(c.medicare_multiplier),
      anesthesia_included: c.anesthesia_included === 1,
      codes: codes.map((r) => ({
        cpt_code: r.cpt_code,
        negotiated_rate: r.negotiated_rate_cents === null ? null : centsToAmount(r.negotiated_rate_cents),
        requires_preauthorization: r.requires_preauth === 1,
      })),
    };
  });
  const members = membersWithPlans(db).map((m) => {
    const planYear = planYearOf(today, m.plan_year_start);
    const met = deductibleMetIn(db, m.member_id, planYear);
    return {
      member_id: m.member_id,
      name: m.name,
      dob: m.dob,
      // A dependent's subscriber: a 2000C patient of this subscriber is found among their dependents.
      subscriber_id: m.subscriber_id,
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
  const cpt_codes = allCptCodes(db);
  const builder_instances = builderInstancesWithStatus(db);
  const catalog_versions = catalogVersions(db);
  return { providers, contracts, members, cpt_codes, builder_instances, catalog_versions };
}
