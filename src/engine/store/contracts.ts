// Contract queries shared by the lookups and claim adjudication.
import { type BundleType, type ContractTerms, shiftDate } from '../../domain/adjudication.js';
import type { ContractRateType } from '../../domain/contract-rates.js';
import { parseRatio } from '../../domain/money.js';
import type { RateFacts } from '../../domain/audit-deep.js';
import type { Db } from './db.js';

export interface ContractRow {
  id: string;
  contract_number: string;
  npi: string;
  group_id: string;
  effective_date: string;
  termination_date: string | null;
  network_tier: string;
  rate_type: ContractRateType;
  medicare_multiplier: string | null;
  bundle_type: BundleType | null;
  bundle_rate_cents: number | null;
  anesthesia_included: number;
}

export interface ContractRateRow {
  cpt_code: string;
  negotiated_rate_cents: number | null;
  requires_preauth: number;
  /** The rate's effective period (docs/money-rules.md "Rates in force on each date"); null: open. */
  effective_from: string;
  effective_to: string | null;
}

/** Whether a rate is in force on a date (ISO dates compare as text). */
export function rateInForce(rate: ContractRateRow, date: string): boolean {
  return rate.effective_from <= date && (rate.effective_to === null || rate.effective_to >= date);
}

export function contractById(db: Db, id: string): ContractRow | undefined {
  return db.prepare('SELECT * FROM contracts WHERE id = ?').get(id) as ContractRow | undefined;
}

export function isActiveOn(contract: ContractRow, date: string): boolean {
  return contract.effective_date <= date && (contract.termination_date === null || contract.termination_date >= date);
}

/** A contract's rates in force on some dates: the same object for every date with the same rates. */
interface RatesInForce {
  rates: ContractRateRow[];
  rated: Set<string>;
}

interface ProviderContract {
  contract: ContractRow;
  /** Every rate of the contract, all periods. */
  all: ContractRateRow[];
  /** Where the rates change: each rate's first day and the day after its last, sorted. */
  changes: string[];
  /** The rates in force between two changes, by the change that starts the span ('' before the first). */
  spans: Map<string, RatesInForce>;
}

function inForceOn(c: ProviderContract, date: string): RatesInForce {
  // The last change on or before the date names the span (a handful of changes: a linear walk).
  let span = '';
  for (const change of c.changes) {
    if (change > date) break;
    span = change;
  }
  let found = c.spans.get(span);
  if (!found) {
    const rates = c.all.filter((r) => rateInForce(r, date));
    found = { rates, rated: new Set(rates.map((r) => r.cpt_code)) };
    c.spans.set(span, found);
  }
  return found;
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
      const all = contractRates(db, contract.id);
      const changes = [
        ...new Set(all.flatMap((r) => (r.effective_to === null ? [r.effective_from] : [r.effective_from, shiftDate(r.effective_to, 1)]))),
      ].sort();
      return { contract, all, changes, spans: new Map() };
    });
    cache.byNpi.set(npi, contracts);
  }
  return contracts;
}

/**
 * Active contracts of a provider (and group, when given) on a date, each with only its rates in
 * force on that date and the requested codes those rates cover. The rates of one contract on two
 * dates with the same rates are the same array, so a caller may key what it derives by it.
 */
export function activeContractsFor(
  db: Db,
  npi: string,
  date: string,
  codes: readonly string[],
  groupId?: string,
): { contract: ContractRow; covered: string[]; rates: ContractRateRow[] }[] {
  return contractsOfProvider(db, npi)
    .filter((c) => ((groupId ?? null) === null || c.contract.group_id === groupId) && isActiveOn(c.contract, date))
    .map((c) => {
      const inForce = inForceOn(c, date);
      return { contract: c.contract, covered: codes.filter((code) => inForce.rated.has(code)), rates: inForce.rates };
    });
}

/** Every rate of a contract, all periods, by code and then start. */
export function contractRates(db: Db, contractId: string): ContractRateRow[] {
  return db
    .prepare(
      'SELECT cpt_code, negotiated_rate_cents, requires_preauth, effective_from, effective_to FROM contract_rates WHERE contract_id = ? ORDER BY cpt_code, effective_from',
    )
    .all(contractId) as ContractRateRow[];
}

/** The contract's rate for a code in force on a date, if any. */
export function rateOn(db: Db, contractId: string, cptCode: string, date: string): ContractRateRow | undefined {
  return db
    .prepare(
      `SELECT cpt_code, negotiated_rate_cents, requires_preauth, effective_from, effective_to FROM contract_rates
       WHERE contract_id = ? AND cpt_code = ? AND effective_from <= ? AND (effective_to IS NULL OR effective_to >= ?)
       ORDER BY effective_from DESC LIMIT 1`,
    )
    .get(contractId, cptCode, date, date) as ContractRateRow | undefined;
}

/**
 * The terms made from each array of rates in force (activeContractsFor gives the same array for the
 * same contract and rates until a contract changes), so that a claim does not build them again.
 */
const termsOfRates = new WeakMap<readonly ContractRateRow[], { contract: ContractRow; terms: ContractTerms }>();

/** A contract's terms with the rates given (the ones in force on a date: activeContractsFor). */
export function contractTerms(contract: ContractRow, rates: readonly ContractRateRow[]): ContractTerms {
  const known = termsOfRates.get(rates);
  if (known?.contract === contract) return known.terms;
  const terms = buildTerms(contract, rates);
  termsOfRates.set(rates, { contract, terms });
  return terms;
}

function buildTerms(contract: ContractRow, rates: readonly ContractRateRow[]): ContractTerms {
  const codes = new Map(rates.map((r) => [r.cpt_code, { negotiatedRateCents: r.negotiated_rate_cents, requiresPreauth: r.requires_preauth === 1 }]));
  return {
    id: contract.id,
    rateType: contract.rate_type,
    multiplier: contract.medicare_multiplier === null ? null : (parseRatio(contract.medicare_multiplier) ?? null),
    bundleType: contract.bundle_type,
    bundleRateCents: contract.bundle_rate_cents,
    anesthesiaIncluded: contract.anesthesia_included === 1,
    codes,
  };
}

/** Every contract, by number (`tpa local fixtures`). */
export function allContracts(db: Db): ContractRow[] {
  return db.prepare('SELECT * FROM contracts ORDER BY contract_number').all() as ContractRow[];
}

/** A contract's rates in force on a date, by code. */
export function ratesInForceOn(db: Db, contractId: string, date: string): Pick<ContractRateRow, 'cpt_code' | 'negotiated_rate_cents' | 'requires_preauth'>[] {
  return db
    .prepare(
      `SELECT cpt_code, negotiated_rate_cents, requires_preauth FROM contract_rates
         WHERE contract_id = ? AND effective_from <= ? AND (effective_to IS NULL OR effective_to >= ?) ORDER BY cpt_code`,
    )
    .all(contractId, date, date) as Pick<ContractRateRow, 'cpt_code' | 'negotiated_rate_cents' | 'requires_preauth'>[];
}

/** Whether each code of a contract needs preauthorization, its rates oldest first (the latest rate's says last). */
export function preauthorizationsOf(db: Db, contractId: string): { cpt_code: string; requires_preauth: number }[] {
  return db.prepare('SELECT cpt_code, requires_preauth FROM contract_rates WHERE contract_id = ? ORDER BY effective_from').all(contractId) as {
    cpt_code: string;
    requires_preauth: number;
  }[];
}

/** The codes any contract's rate requires preauthorization for. */
export function codesRequiringPreauthorization(db: Db): string[] {
  return db.prepare('SELECT DISTINCT cpt_code FROM contract_rates WHERE requires_preauth = 1').pluck().all() as string[];
}

/** The codes of a contract rated on `date` or later (their rates in force then, or starting after). */
export function codesRatedFrom(db: Db, contractId: string, date: string): string[] {
  return db
    .prepare('SELECT DISTINCT cpt_code FROM contract_rates WHERE contract_id = ? AND (effective_to IS NULL OR effective_to >= ?) ORDER BY cpt_code')
    .pluck()
    .all(contractId, date) as string[];
}

/** Every contract rate, to compare with the schedules the audit chain finalized. */
export function rateAuditFacts(db: Db): Iterable<RateFacts> {
  return db
    .prepare(
      'SELECT contract_id, cpt_code, effective_from, effective_to, negotiated_rate_cents FROM contract_rates ORDER BY contract_id, cpt_code, effective_from',
    )
    .iterate() as Iterable<RateFacts>;
}

/** Removes the contract's rates that would start on `date` or later. */
export function deleteRatesStartingFrom(db: Db, contractId: string, date: string): void {
  db.prepare('DELETE FROM contract_rates WHERE contract_id = ? AND effective_from >= ?').run(contractId, date);
}

/** Ends on `dayBefore` every rate of the contract still in force on `date` or later. */
export function endRatesBefore(db: Db, contractId: string, date: string, dayBefore: string): void {
  db.prepare('UPDATE contract_rates SET effective_to = ? WHERE contract_id = ? AND (effective_to IS NULL OR effective_to >= ?)').run(
    dayBefore,
    contractId,
    date,
  );
}

/** A rate in force from `from` on, open-ended. */
export function insertOpenRate(db: Db, contractId: string, cptCode: string, from: string, rateCents: number, requiresPreauth: number): void {
  db.prepare(
    'INSERT INTO contract_rates (contract_id, cpt_code, effective_from, effective_to, negotiated_rate_cents, requires_preauth) VALUES (?, ?, ?, NULL, ?, ?)',
  ).run(contractId, cptCode, from, rateCents, requiresPreauth);
}

/** The builder's elective and fallback settings, copied to the contract when its schedule is finalized. */
export function setBuilderSettings(db: Db, contractId: string, settingsJson: string): void {
  db.prepare('UPDATE contracts SET builder_settings_json = ? WHERE id = ?').run(settingsJson, contractId);
}
