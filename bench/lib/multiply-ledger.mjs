// `node bench/lib/multiply-ledger.mjs <data dir> <factor>`: a ledger `factor` times as large in a
// minute, from one built and funded through the engine's request path (build-ledger.mjs,
// fund-ledger.mjs): each encounter, its history, its providers, its transfers and their payouts
// copied factor - 1 times with new ids, inside the engine's own tables (its triggers keep the
// ledger's counts). A ledger of a million built through the request path takes most of an hour on
// two cores; the copies have the same service dates, statuses, amounts and transfer times as their
// originals, so each month holds `factor` times the money. What reads it (listings, reports) cannot
// tell a copy from a claim. The ids' first hex digit (0 in ids the engine makes before 2059) says
// the copy: enc_01a2… becomes enc_11a2…, enc_21a2…. Encounter numbers and AEOB references, which
// no index keeps unique, are a copy's original's.
import Database from 'better-sqlite3';
import { join } from 'node:path';

const [dir, factorText] = [process.argv[2], process.argv[3]];
const factor = Number(factorText);
if (!dir || !Number.isInteger(factor) || factor < 2 || factor > 10) throw new Error('usage: multiply-ledger.mjs <data dir> <factor 2..10>');

/** The columns that carry an id, and where its first hex digit (or an encounter number's first digit) is. */
const ID_COLUMNS = {
  encounters: { id: 5, ledger_id: 5, submission_id: 5, claim_response_id: 4, processor_trace_id: 4 },
  history_entries: { encounter_id: 5 },
  encounter_providers: { encounter_id: 5 },
  settlements: { id: 5, encounter_id: 5, processor_transfer_id: 4 },
  payouts: { settlement_id: 5, processor_payout_id: 4 },
};
/** Each table's original rows: those whose key's digit is 0. */
const KEY = { encounters: 'id', history_entries: 'encounter_id', encounter_providers: 'encounter_id', settlements: 'id', payouts: 'settlement_id' };

const db = new Database(join(dir, 'local.sqlite'));
db.pragma('journal_mode = WAL');
const copy = (table, k) => {
  const columns = db
    .prepare(`PRAGMA table_info(${table})`)
    .all()
    .map((c) => c.name);
  const at = ID_COLUMNS[table];
  const expr = (c) => (at[c] ? `substr(${c}, 1, ${at[c] - 1}) || '${k}' || substr(${c}, ${at[c] + 1})` : c);
  const where = `substr(${KEY[table]}, ${at[KEY[table]]}, 1) = '0'`;
  return db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.map(expr).join(', ')} FROM ${table} WHERE ${where}`).run().changes;
};
const original = db.prepare("SELECT COUNT(*) FROM encounters WHERE substr(id, 5, 1) = '0'").pluck().get();
const over = db.prepare("SELECT COUNT(*) FROM encounters WHERE substr(id, 5, 1) <> '0'").pluck().get();
if (over > 0) throw new Error(`${over} encounters are copies already (or ids of another kind): nothing copied`);
for (let k = 1; k < factor; k++) {
  db.transaction(() => {
    for (const table of Object.keys(ID_COLUMNS)) copy(table, k);
  })();
}
db.pragma('wal_checkpoint(TRUNCATE)');
db.close();
console.log(JSON.stringify({ encounters: original * factor }));
