import Database from 'better-sqlite3';
const db = new Database(process.argv[2] ?? '/tmp/l20k/local.sqlite', { readonly: true });
db.pragma('cache_size = -32768'); if (process.env.MMAP) db.pragma('mmap_size = ' + process.env.MMAP);
const N = db.prepare('SELECT max(rowid) FROM encounters').pluck().get();
const LIST_COLUMNS = `e.id, e.ledger_id, e.encounter_number, e.provider_npi, e.service_date, e.status, e.completed_at, e.disposition, e.first_cpt_code,
  e.charge_cents, e.allowed_cents, e.deductible_cents, e.copay_cents, e.coinsurance_cents, e.patient_cents, e.benefit_cents, e.progression_json,
  c.description AS cpt_description,
  COALESCE(pr.name, json_extract(e.claim_json, '$.providerName'), 'NPI ' || e.provider_npi) AS provider_name, pr.role AS provider_role,
  pl.payer_id, pl.payer_name`;
const LIST_JOINS = `LEFT JOIN cpt_codes c ON c.code = e.first_cpt_code
  LEFT JOIN providers pr ON pr.npi = e.provider_npi
  LEFT JOIN members m ON m.member_id = e.member_id
  LEFT JOIN plans pl ON pl.id = m.plan_id`;
let seed = 1;
const ids = () => JSON.stringify(Array.from({ length: 20 }, (_, i) => 1 + ((seed++ * 7919) % (N - 1))));
const q = (label, sql, raw) => { const st = db.prepare(sql); if (raw) st.raw(true); const t = process.hrtime.bigint(); for (let i = 0; i < 3000; i++) st.all(ids()); console.log(label.padEnd(30), (Number(process.hrtime.bigint() - t) / 1e3 / 3000).toFixed(1), 'µs'); };
q('rowid only', 'SELECT e.rowid FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))');
q('id only', 'SELECT e.id FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))');
q('status', 'SELECT e.status, e.progression_json FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))');
q('full', `SELECT e.rowid, ${LIST_COLUMNS} FROM encounters e ${LIST_JOINS} WHERE e.rowid IN (SELECT value FROM json_each(?))`);
q('full raw', `SELECT e.rowid, ${LIST_COLUMNS} FROM encounters e ${LIST_JOINS} WHERE e.rowid IN (SELECT value FROM json_each(?))`, true);
q('no joins', `SELECT e.rowid, e.id, e.ledger_id, e.encounter_number, e.provider_npi, e.service_date, e.status, e.completed_at, e.disposition, e.first_cpt_code,
  e.charge_cents, e.allowed_cents, e.deductible_cents, e.copay_cents, e.coinsurance_cents, e.patient_cents, e.benefit_cents, e.progression_json FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))`);
q('json_object', `SELECT json_object('id', e.id, 'l', e.ledger_id, 'n', e.encounter_number, 'p', e.provider_npi, 's', e.service_date, 'st', e.status, 'c', e.completed_at, 'd', e.disposition, 'f', e.first_cpt_code,
  'a', e.charge_cents, 'b', e.allowed_cents, 'x', e.deductible_cents, 'y', e.copay_cents, 'z', e.coinsurance_cents, 'q', e.patient_cents, 'r', e.benefit_cents, 'pr', json(e.progression_json)) FROM encounters e WHERE e.rowid IN (SELECT value FROM json_each(?))`);
console.log(db.prepare("SELECT AVG(length(claim_json)), AVG(length(outcome_json)), AVG(length(benefits_json)), AVG(length(progression_json)) FROM encounters").get());
console.log(db.prepare("PRAGMA page_size").get());
