// The plan's reference data a ledger page names: each provider's name and role, each member's payer,
// each code's description. They are a few dozen rows that only a migration's seed writes, so a
// connection keeps them in memory: read through four joins they cost a page eight index seeks a
// row (docs/numbers.md "Ledger pages"). They are read again when the schema
// version moves (a newer tpa migrating the file under a running server brings its seeds with it).
import type { Db } from './db.js';

/**
 * The names a page shows, each also as the JSON text a page writes (quoted and escaped once, when
 * read): `name` and the like for a page built as values, `nameJson` and the like for one written as text.
 */
export interface Reference {
  providers: ReadonlyMap<string, { name: string; role: string | null; nameJson: string; roleJson: string }>;
  payers: ReadonlyMap<string, { name: string; id: string; nameJson: string; idJson: string }>;
  cptDescriptions: ReadonlyMap<string, { description: string; json: string }>;
}

/**
 * `load` made once per connection and kept: for data only a migration's seed writes, read again
 * when the schema version moves (one pragma read a call instead of the queries).
 */
export function perSchemaVersion<T>(load: (db: Db) => T): (db: Db) => T {
  const kept = new WeakMap<Db, { version: number; value: T }>();
  return (db) => {
    const version = db.prepare('PRAGMA user_version').pluck().get() as number;
    const cached = kept.get(db);
    if (cached?.version === version) return cached.value;
    const value = load(db);
    kept.set(db, { version, value });
    return value;
  };
}

export const reference = perSchemaVersion((db): Reference => {
  const providers = db.prepare('SELECT npi, name, role FROM providers').all() as { npi: string; name: string; role: string | null }[];
  const payers = db.prepare('SELECT m.member_id, p.payer_id, p.payer_name FROM members m LEFT JOIN plans p ON p.id = m.plan_id').all() as {
    member_id: string;
    payer_id: string | null;
    payer_name: string | null;
  }[];
  const codes = db.prepare('SELECT code, description FROM cpt_codes').all() as { code: string; description: string }[];
  const reference: Reference = {
    providers: new Map(providers.map((p) => [p.npi, { name: p.name, role: p.role, nameJson: JSON.stringify(p.name), roleJson: JSON.stringify(p.role) }])),
    payers: new Map(
      payers.map((m) => {
        const name = m.payer_name ?? 'Unknown payer';
        const id = m.payer_id ?? 'UNKNOWN';
        return [m.member_id, { name, id, nameJson: JSON.stringify(name), idJson: JSON.stringify(id) }];
      }),
    ),
    cptDescriptions: new Map(codes.map((c) => [c.code, { description: c.description, json: JSON.stringify(c.description) }])),
  };
  return reference;
});

/** Every code with its description (`tpa local fixtures`). */
export function allCptCodes(db: Db): unknown[] {
  return db.prepare('SELECT code, description FROM cpt_codes ORDER BY code').all();
}
