// Node's built-in node:sqlite against better-sqlite3, the engine's driver, on the same work, disk and
// Node (docs/numbers.md "node:sqlite against better-sqlite3"): what a single executable without the
// native addon would cost. Each figure is node:sqlite's as a ratio to better-sqlite3's, the floor
// of the same run, each driver in its own process, in paired rounds (medians):
//  - writes: N claim-like transactions (an encounter row of ~400 bytes with two indexes, and three
//    line rows), with the engine's pragmas (1 KiB pages, WAL, synchronous NORMAL, 8 MB of cache,
//    a checkpoint every 16 MB);
//  - point lookups by key (a prepared statement, random keys of a 100,000-row table), the lookup's
//    own read;
//  - a streaming read of 1,000,000 ledger-like rows (a statement iterated, nine columns a row), the
//    floor of `tpa ledger list --all`, as objects (with peak RSS) and as arrays;
//  - start-up: a process that opens the database and runs one query, against `node -e 0`.
// node:sqlite has no encryption: an encrypted database stays with better-sqlite3-multiple-ciphers.
// No target: the figures decide, and are recorded. BENCH_DRIVER_CLAIMS (20,000),
// BENCH_DRIVER_LOOKUPS (200,000), BENCH_DRIVER_ROWS (1,000,000), BENCH_DRIVER_ROUNDS (start-up, 31).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLAIMS = Number(process.env.BENCH_DRIVER_CLAIMS ?? 20_000);
const LOOKUPS = Number(process.env.BENCH_DRIVER_LOOKUPS ?? 200_000);
const ROWS = Number(process.env.BENCH_DRIVER_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_DRIVER_ROUNDS ?? 31);
const LOOKUP_ROWS = 100_000;
/** Paired rounds of each throughput figure (medians): the machine's other work moves single runs. */
const PAIRS = 5;
const DRIVERS = ['better-sqlite3', 'node:sqlite'];
const self = fileURLToPath(import.meta.url);

/** A connection of either driver, behind the few calls the bench makes. */
async function open(driver, file) {
  if (driver === 'node:sqlite') {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    const arrays = (sql) => {
      const statement = db.prepare(sql);
      statement.setReturnArrays(true);
      return statement;
    };
    return { exec: (sql) => db.exec(sql), prepare: (sql) => db.prepare(sql), arrays, close: () => db.close() };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  return { exec: (sql) => db.exec(sql), prepare: (sql) => db.prepare(sql), arrays: (sql) => db.prepare(sql).raw(true), close: () => db.close() };
}

/** The engine's pragmas (src/engine/store/db.ts): 1 KiB pages, WAL, NORMAL, 8 MB of cache, a checkpoint every 16 MB. */
function enginePragmas(db) {
  db.exec('PRAGMA page_size = 1024; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON; PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 16384');
}

const SCHEMA = `
  CREATE TABLE encounters (id TEXT PRIMARY KEY, member TEXT NOT NULL, npi TEXT NOT NULL, status TEXT NOT NULL,
    charge_cents INTEGER NOT NULL, allowed_cents INTEGER NOT NULL, benefit_cents INTEGER NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL);
  CREATE INDEX encounters_member ON encounters (member, created_at);
  CREATE INDEX encounters_status ON encounters (status, created_at);
  CREATE TABLE lines (encounter_id TEXT NOT NULL REFERENCES encounters (id), n INTEGER NOT NULL, cpt TEXT NOT NULL,
    charge_cents INTEGER NOT NULL, allowed_cents INTEGER NOT NULL, PRIMARY KEY (encounter_id, n)) WITHOUT ROWID;`;

const body = 'x'.repeat(300);
const id = (i) => `enc_${i.toString(16).padStart(20, '0')}`;

/** Claim-like transactions, each committed alone: claims per second. */
async function writes(driver, dir) {
  // A new file each round: every round writes into the same empty b-trees.
  const file = join(dir, `writes-${process.pid}.sqlite`);
  const db = await open(driver, file);
  enginePragmas(db);
  db.exec(SCHEMA);
  const [begin, commit] = [db.prepare('BEGIN'), db.prepare('COMMIT')];
  const enc = db.prepare('INSERT INTO encounters VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const line = db.prepare('INSERT INTO lines VALUES (?, ?, ?, ?, ?)');
  const start = process.hrtime.bigint();
  for (let i = 0; i < CLAIMS; i++) {
    begin.run();
    enc.run(id(i), `M${i % 5000}`, '1234567893', 'ADJUDICATED', 132_000, 32_200, 10_335, `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`, body);
    for (let n = 1; n <= 3; n++) line.run(id(i), n, String(45378 + n), 44_000, 10_733);
    commit.run();
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return CLAIMS / seconds;
}

/** Builds the shared read database once (better-sqlite3): LOOKUP_ROWS encounters and ROWS ledger rows. */
async function prepareReads(file) {
  const db = await open('better-sqlite3', file);
  enginePragmas(db);
  db.exec(SCHEMA);
  db.exec(`CREATE TABLE ledger (rowid INTEGER PRIMARY KEY, encounter_id TEXT NOT NULL, kind TEXT NOT NULL, amount_cents INTEGER NOT NULL,
    member TEXT NOT NULL, npi TEXT NOT NULL, cpt TEXT NOT NULL, status TEXT NOT NULL, service_date TEXT NOT NULL, created_at TEXT NOT NULL)`);
  const enc = db.prepare('INSERT INTO encounters VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const entry = db.prepare('INSERT INTO ledger VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  db.exec('BEGIN');
  for (let i = 0; i < LOOKUP_ROWS; i++) enc.run(id(i), `M${i % 5000}`, '1234567893', 'ADJUDICATED', 132_000, 32_200, 10_335, '2026-11-26', body);
  for (let i = 0; i < ROWS; i++)
    entry.run(id(i), 'benefit', 10_335 + (i % 100), `M${i % 5000}`, '1234567893', '45378', 'FUNDED', '2026-11-20', '2026-11-26T10:00:00Z');
  db.exec('COMMIT');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Point lookups by key: lookups per second. */
async function lookups(driver, file) {
  const db = await open(driver, file);
  enginePragmas(db);
  const get = db.prepare('SELECT id, status, allowed_cents, benefit_cents FROM encounters WHERE id = ?');
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % LOOKUP_ROWS;
  for (let i = 0; i < 10_000; i++) get.get(id(next())); // warm
  let found = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < LOOKUPS; i++) if (get.get(id(next()))) found++;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (found !== LOOKUPS) throw new Error(`${driver}: ${found} of ${LOOKUPS} lookups found their row`);
  db.close();
  return LOOKUPS / seconds;
}

/** Every ledger row, streamed (iterated), as objects or as arrays: rows per second, and the process's peak RSS. */
async function stream(driver, file, arrays = false) {
  const db = await open(driver, file);
  enginePragmas(db);
  const sql = 'SELECT encounter_id, kind, amount_cents, member, npi, cpt, status, service_date, created_at FROM ledger ORDER BY rowid';
  const all = arrays ? db.arrays(sql) : db.prepare(sql);
  let rows = 0;
  let cents = 0;
  const start = process.hrtime.bigint();
  for (const row of all.iterate()) {
    rows++;
    cents += arrays ? row[2] + row[0].length + row[8].length : row.amount_cents + row.encounter_id.length + row.created_at.length;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (rows !== ROWS || cents <= 0) throw new Error(`${driver}: streamed ${rows} of ${ROWS} rows`);
  db.close();
  return { rate: rows / seconds, rssMb: process.resourceUsage().maxRSS / 1024 };
}

/** A child process's figure: the bench runs each driver's work in a process of its own. */
function child(task, driver, arg) {
  const r = spawnSync(process.execPath, [self, '--child', task, driver, arg], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${task} with ${driver} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** Wall milliseconds of a process, once. */
function wall(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Start-up: open the database, one query, exit; paired rounds against `node -e 0`. */
function startup(file) {
  const programs = {
    'node -e 0': ['-e', '0'],
    'better-sqlite3': [
      '-e',
      `const D = require('better-sqlite3'); new D(${JSON.stringify(file)}).prepare('SELECT count(*) FROM encounters WHERE id = ?').get('x')`,
    ],
    'node:sqlite': [
      '-e',
      `const { DatabaseSync } = require('node:sqlite'); new DatabaseSync(${JSON.stringify(file)}).prepare('SELECT count(*) FROM encounters WHERE id = ?').get('x')`,
    ],
  };
  const times = Object.fromEntries(Object.keys(programs).map((k) => [k, []]));
  for (const args of Object.values(programs)) wall(args); // warm the page cache
  for (let round = 0; round < ROUNDS; round++) for (const [name, args] of Object.entries(programs)) times[name].push(wall(args));
  // Each round's ratio to the same round's `node -e 0`: the machine's other work moves both alike.
  const ratio = (name) => median(times[name].map((t, i) => t / times['node -e 0'][i]));
  return Object.fromEntries(Object.keys(programs).map((k) => [k, { ms: median(times[k]), ratio: ratio(k) }]));
}

if (process.argv[2] === '--child') {
  const [task, driver, arg] = process.argv.slice(3);
  const run = { writes, lookups, stream, arrays: (driver, file) => stream(driver, file, true) }[task];
  process.stdout.write(JSON.stringify(await run(driver, arg)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tpa-bench-driver-'));
  try {
    const readFile = join(dir, 'reads.sqlite');
    console.log(`node:sqlite against better-sqlite3 on Node ${process.version} (each driver in its own process; ratio = node:sqlite / better-sqlite3)`);
    const line = (what, a, b, unit) =>
      console.log(`  ${what.padEnd(44)} better-sqlite3 ${fmt(a).padStart(9)} ${unit}   node:sqlite ${fmt(b).padStart(9)} ${unit}   ${(b / a).toFixed(2)}×`);
    const w = Object.fromEntries(DRIVERS.map((d) => [d, []]));
    for (let round = 0; round < PAIRS; round++) for (const d of DRIVERS) w[d].push(child('writes', d, dir));
    line(`${fmt(CLAIMS)} claim-like transactions`, median(w['better-sqlite3']), median(w['node:sqlite']), 'claims/s');
    await prepareReads(readFile);
    const l = Object.fromEntries(DRIVERS.map((d) => [d, []]));
    for (let round = 0; round < PAIRS; round++) for (const d of DRIVERS) l[d].push(child('lookups', d, readFile));
    line(`${fmt(LOOKUPS)} point lookups by key`, median(l['better-sqlite3']), median(l['node:sqlite']), 'gets/s');
    const s = Object.fromEntries(DRIVERS.map((d) => [d, []]));
    for (let round = 0; round < PAIRS; round++) for (const d of DRIVERS) s[d].push(child('stream', d, readFile));
    const rate = (d) => median(s[d].map((x) => x.rate));
    const rss = (d) => median(s[d].map((x) => x.rssMb));
    line(`${fmt(ROWS)} rows streamed, as objects`, rate('better-sqlite3'), rate('node:sqlite'), 'rows/s');
    line('  peak RSS of that process', rss('better-sqlite3'), rss('node:sqlite'), 'MB');
    const a = Object.fromEntries(DRIVERS.map((d) => [d, []]));
    for (let round = 0; round < PAIRS; round++) for (const d of DRIVERS) a[d].push(child('arrays', d, readFile).rate);
    line(`${fmt(ROWS)} rows streamed, as arrays`, median(a['better-sqlite3']), median(a['node:sqlite']), 'rows/s');
    const t = startup(readFile);
    console.log(`  start-up: open, one query, exit (${ROUNDS} paired rounds, medians; node -e 0 ${t['node -e 0'].ms.toFixed(1)} ms)`);
    for (const d of DRIVERS) console.log(`    ${d.padEnd(16)} ${t[d].ms.toFixed(1).padStart(6)} ms   ${t[d].ratio.toFixed(2)}× node -e 0`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
