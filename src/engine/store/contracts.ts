// Contract queries shared by the lookups and claim adjudication.
import type { BundleType, ContractTerms, RateType } from '../../domain/adjudication.js';
import { parseRatio } from '../../domain/money.js';
import type { Db } from './db.js';

export interface ContractRow {
  id: string;
  contract_number: string;
  npi: string;
  group_id: string;
  effective_date: string;
  termination_date: string | null;
  network_tier: string;
  rate_type: RateType;
  medicare_multiplier: string | null;
  bundle_type: BundleType | null;
  bundle_rate_cents: number | null;
  anesthesia_included: number;
}

export interface ContractRateRow {
  cpt_code: string;
  negotiated_rate_cents: number | null;
  requires_preauth: number;
}

const ACTIVE_ON = `effective_date <= @date AND (termination_date IS NULL OR termination_date >= @date)`;

export function contractById(db: Db, id: string): ContractRow | undefined {
  return db.prepare('SELECT * FROM contracts WHERE id = ?').get(id) as ContractRow | undefined;
}

export function isActiveOn(contract: ContractRow, date: string): boolean {
  return contract.effective_date <= date && (contract.termination_date === null || contract.termination_date >= date);
}

/** Active contracts of a provider (and group, when given) on a date, with their rates and the requested codes each covers. */
export function activeContractsFor(
  db: Db,
  npi: string,
  date: string,
  codes: readonly string[],
  groupId?: string,
): { contract: ContractRow; covered: string[]; rates: ContractRateRow[] }[] {
  const contracts = db
    .prepare(`SELECT * FROM contracts WHERE npi = @npi AND (@group IS NULL OR group_id = @group) AND ${ACTIVE_ON} ORDER BY effective_date DESC, id`)
    .all({ npi, group: groupId ?? null, date }) as ContractRow[];
  return contracts.map((contract) => {
    const rates = contractRates(db, contract.id);
    const rated = new Set(rates.map((r) => r.cpt_code));
    return { contract, covered: codes.filter((c) => rated.has(c)), rates };
  });
}

export function contractRates(db: Db, contractId: string): ContractRateRow[] {
  return db.prepare('SELECT cpt_code, negotiated_rate_cents, requires_preauth FROM contract_rates WHERE contract_id = ? ORDER BY cpt_code').all(contractId) as ContractRateRow[];
}

export function contractTerms(db: Db, contract: ContractRow, rates: readonly ContractRateRow[] = contractRates(db, contract.id)): ContractTerms {
  const codes = new Map(
    rates.map((r) => [r.cpt_code, { negotiatedRateCents: r.negotiated_rate_cents, requiresPreauth: r.requires_preauth === 1 }]),
  );
  return {
    id: contract.id,
    rateType: contract.rate_type,
    multiplier: contract.medicare_multiplier === null ? null : parseRatio(contract.medicare_multiplier) ?? null,
    bundleType: contract.bundle_type,
    bundleRateCents: contract.bundle_rate_cents,
    codes,
  };
}
