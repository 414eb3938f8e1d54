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

export function contractById(db: Db, id: string): ContractRow | undefined {
  return db.prepare('SELECT * FROM contracts WHERE id = ?').get(id) as ContractRow | undefined;
}

export function isActiveOn(contract: ContractRow, date: string): boolean {
  return contract.effective_date <= date && (contract.termination_date === null || contract.termination_date >= date);
}

interface ProviderContract {
  contract: ContractRow;
  rates: ContractRateRow[];
  rated: Set<string>;
}

/**
 * A provider's contracts with their rates, newest first, per connection. They change only when a
 * contract or its rates do (a finalized rate schedule), which moves the counter that migration 13's
 * triggers keep: one small read instead of two queries for every claim. Read inside the claim's
 * transaction, the counter and the cache agree with what the transaction sees.
 */
const providerContracts = new WeakMap<Db, { generation: string; byNpi: Map<string, readonly ProviderContract[]> }>();

function contractsOfProvider(db: Db, npi: string): readonly ProviderContract[] {
  const generation = db.prepare("SELECT value FROM settings WHERE key = 'contracts_generation'").pluck().get() as string;
  let cache = providerContracts.get(db);
  if (!cache || cache.generation !== generation) {
    cache = { generation, byNpi: new Map() };
    providerContracts.set(db, cache);
  }
  let contracts = cache.byNpi.get(npi);
  if (!contracts) {
    const rows = db.prepare('SELECT * FROM contracts WHERE npi = ? ORDER BY effective_date DESC, id').all(npi) as ContractRow[];
    contracts = rows.map((contract) => {
      const rates = contractRates(db, contract.id);
      return { contract, rates, rated: new Set(rates.map((r) => r.cpt_code)) };
    });
    cache.byNpi.set(npi, contracts);
  }
  return contracts;
}

/** Active contracts of a provider (and group, when given) on a date, with their rates and the requested codes each covers. */
export function activeContractsFor(
  db: Db,
  npi: string,
  date: string,
  codes: readonly string[],
  groupId?: string,
): { contract: ContractRow; covered: string[]; rates: ContractRateRow[] }[] {
  return contractsOfProvider(db, npi)
    .filter((c) => ((groupId ?? null) === null || c.contract.group_id === groupId) && isActiveOn(c.contract, date))
    .map((c) => ({ contract: c.contract, covered: codes.filter((code) => c.rated.has(code)), rates: c.rates }));
}

export function contractRates(db: Db, contractId: string): ContractRateRow[] {
  return db
    .prepare('SELECT cpt_code, negotiated_rate_cents, requires_preauth FROM contract_rates WHERE contract_id = ? ORDER BY cpt_code')
    .all(contractId) as ContractRateRow[];
}

export function contractTerms(db: Db, contract: ContractRow, rates: readonly ContractRateRow[] = contractRates(db, contract.id)): ContractTerms {
  const codes = new Map(rates.map((r) => [r.cpt_code, { negotiatedRateCents: r.negotiated_rate_cents, requiresPreauth: r.requires_preauth === 1 }]));
  return {
    id: contract.id,
    rateType: contract.rate_type,
    multiplier: contract.medicare_multiplier === null ? null : (parseRatio(contract.medicare_multiplier) ?? null),
    bundleType: contract.bundle_type,
    bundleRateCents: contract.bundle_rate_cents,
    codes,
  };
}
