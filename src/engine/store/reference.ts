// The plan's reference data a ledger page names: each provider's name and role, each member's payer,
// each code's description. They are a few dozen rows that only a migration's seed writes, so a
// connection keeps them in memory: read through four joins they cost a page eight index seeks a
// row (docs/numbers-history.md "Ledger pages"). They are read again when the schema
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
  /** Each payer's profile by payer id (migration 26): what the 835's loop 1000A and TRN03 need. */
  payerProfiles: ReadonlyMap<string, PayerProfile>;
}

/** A payer's profile: its tax id, address and technical contact, each null when not configured. */
export interface PayerProfile {
  tax_id: string | null;
  address: { line1: string; line2: string | null; city: string; state: string; postal_code: string } | null;
  technical_contact: { name: string | null; phone: string | null; email: string | null; url: string | null } | null;
}

interface PayerProfileRow {
  payer_id: string;
  tax_id: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  contact_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
  contact_url: string | null;
}

/** A profile row as the ledger detail gives it: an address only when it is whole, a contact only with a way to reach it. */
function payerProfile(r: PayerProfileRow): PayerProfile {
  return {
    tax_id: r.tax_id,
    address:
      r.address_line1 && r.city && r.state && r.postal_code
        ? { line1: r.address_line1, line2: r.address_line2, city: r.city, state: r.state, postal_code: r.postal_code }
        : null,
    technical_contact:
      r.contact_phone || r.contact_email || r.contact_url ? { name: r.contact_name, phone: r.contact_phone, email: r.contact_email, url: r.contact_url } : null,
  };
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
  const profiles = db.prepare('SELECT * FROM payer_profiles').all() as PayerProfileRow[];
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
    payerProfiles: new Map(profiles.map((r) => [r.payer_id, payerProfile(r)])),
  };
  return reference;
});

/** Every code with its description (`tpa local fixtures`). */
export function allCptCodes(db: Db): unknown[] {
  return db.prepare('SELECT code, description FROM cpt_codes ORDER BY code').all();
}
