// The providers registry: who the plan knows, in which role and network group, and whether each
// holds a direct contract (which stands for valid banking details with the processor).
import type { ProviderRole } from '../../domain/fhir-claim.js';
import type { Db } from './db.js';
import { perSchemaVersion } from './reference.js';

export interface ProviderRow {
  npi: string;
  name: string;
  role: ProviderRole;
  group_id: string;
  facility_npi: string | null;
}

export function providerByNpi(db: Db, npi: string): ProviderRow | undefined {
  return db.prepare('SELECT * FROM providers WHERE npi = ?').get(npi) as ProviderRow | undefined;
}

/** Whether the provider holds a direct contract (any). */
export function holdsContract(db: Db, npi: string): boolean {
  return db.prepare('SELECT 1 FROM contracts WHERE npi = ? LIMIT 1').pluck().get(npi) !== undefined;
}

export interface ProviderFacts {
  role: ProviderRole;
  groupId: string;
  /** Holds a direct contract (any): stands for valid banking details with the processor. */
  payable: boolean;
}

/**
 * The providers registry with whether each holds a contract, per connection. Providers and
 * contracts are only ever added by a migration's seed, so it is kept as store/reference.ts keeps
 * the plan's names: a claim then costs one pragma read instead of a query.
 */
export const providerRegistry = perSchemaVersion((db): ReadonlyMap<string, ProviderFacts> => {
  const rows = db.prepare('SELECT npi, role, group_id, EXISTS (SELECT 1 FROM contracts c WHERE c.npi = p.npi) AS payable FROM providers p').all() as {
    npi: string;
    role: ProviderRole;
    group_id: string;
    payable: number;
  }[];
  return new Map(rows.map((r) => [r.npi, { role: r.role, groupId: r.group_id, payable: r.payable === 1 }]));
});

/** Every provider, by network group, role and NPI (`tpa local fixtures`). */
export function allProviders(db: Db): unknown[] {
  return db.prepare('SELECT npi, name, role, group_id, facility_npi FROM providers ORDER BY group_id, role, npi').all();
}
