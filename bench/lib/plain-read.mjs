// `node bench/lib/plain-read.mjs <database>`: the floor of `tpa ledger list --all`: better-sqlite3
// alone reading every encounter's list columns (src/engine/store/ledger.ts LIST_COLUMNS, the
// superseding claim's subquery included) in the listing's order, through its index, as arrays, with a
// CLI command's page cache; no output. Prints the number of rows on stderr.
import { createRequire } from 'node:module';

const Database = createRequire(import.meta.url)('better-sqlite3');
const db = new Database(process.argv[2], { readonly: true });
db.pragma('cache_size = -4096');
const rows = db
  .prepare(
    `SELECT e.id, e.ledger_id, e.encounter_number, e.provider_npi, e.member_id, e.service_date, e.status, e.completed_at, e.disposition, e.first_cpt_code,
      e.charge_cents, e.allowed_cents, e.deductible_cents, e.copay_cents, e.coinsurance_cents, e.patient_cents, e.benefit_cents, e.progression_json,
      CASE WHEN e.status = 'PENDED' THEN (SELECT h.reference FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'SUPERSEDED') END
    FROM encounters e INDEXED BY encounters_listing ORDER BY e.service_date DESC, e.submitted_at DESC, e.id`,
  )
  .raw(true);
let n = 0;
for (const _ of rows.iterate()) n++;
db.close();
process.stderr.write(`${n}\n`);
