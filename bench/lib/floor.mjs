// The floor a throughput figure is read against: what a minimal writer of the same data
// costs on this machine, on this disk, in this run. traceWrites() finds what a unit of work (one
// claim) writes — rows inserted and updated per table, the bytes of each row and of each of its
// index entries — by running it on a scratch engine with counting TEMP triggers and reading the
// b-trees' sizes before and after (dbstat). floorRate() then commits transactions with better-sqlite3
// alone that write the same: as many rows of the same size into as many b-trees, each table beside
// the same number of indexes, and the same number of rows updated in place, with the pragmas read
// from the engine's own connection (page size, journal mode, synchronous, page cache, memory map,
// WAL checkpoint). Keys go at the right edge of their b-trees, the cheapest placement: a writer
// cannot do better, so the floor is what a claim would cost if everything but SQLite's own work
// were free, and a claim's rate as a share of it is what the engine adds on top. Deleted rows are
// counted but not written by the floor (a claim deletes none).
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/** The pragmas of an open connection that decide what a commit costs. */
export function storagePragmas(db) {
  const get = (name) => db.pragma(name, { simple: true });
  return {
    page_size: get('page_size'),
    journal_mode: get('journal_mode'),
    synchronous: get('synchronous'),
    cache_size: get('cache_size'),
    mmap_size: get('mmap_size'),
    wal_autocheckpoint: get('wal_autocheckpoint'),
  };
}

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** Per b-tree: cells (rows or index entries) and payload bytes, leaf and overflow pages. */
function btreeSizes(db) {
  const rows = db
    .prepare(
      `SELECT d.name, s.type, s.tbl_name,
         SUM(CASE WHEN d.pagetype = 'leaf' OR (d.pagetype = 'internal' AND s.type = 'index') THEN d.ncell ELSE 0 END) AS cells,
         SUM(CASE WHEN d.pagetype IN ('leaf', 'overflow') OR s.type = 'index' THEN d.payload ELSE 0 END) AS bytes
       FROM dbstat d JOIN sqlite_schema s ON s.name = d.name GROUP BY d.name`,
    )
    .all();
  return new Map(rows.map((r) => [r.name, r]));
}

/**
 * Runs `work(i)` for i in [0, n) on `db` (each call one unit, its own transaction) and returns what
 * one unit writes on average: per table, rows inserted and updated, the bytes of a row, and the
 * bytes of each index entry its rows add. Not timed: the triggers slow the work.
 */
export function traceWrites(db, n, work) {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all();
  db.exec('CREATE TEMP TABLE floor_trace (tbl TEXT NOT NULL, op TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tbl, op)) WITHOUT ROWID');
  for (const t of tables) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(
        `CREATE TEMP TRIGGER "floor_trace_${t}_${op}" AFTER ${op} ON main."${t}" BEGIN
           INSERT INTO floor_trace VALUES ('${t}', '${op}', 1) ON CONFLICT DO UPDATE SET n = n + 1;
         END`,
      );
    }
  }
  const before = btreeSizes(db);
  for (let i = 0; i < n; i++) work(i);
  const after = btreeSizes(db);
  const ops = db.prepare('SELECT tbl, op, n FROM floor_trace').all();
  for (const t of tables) for (const op of ['INSERT', 'UPDATE', 'DELETE']) db.exec(`DROP TRIGGER temp."floor_trace_${t}_${op}"`);
  db.exec('DROP TABLE temp.floor_trace');

  const perUnit = (x) => x / n;
  const result = [];
  for (const t of tables) {
    const count = (op) => perUnit(ops.find((o) => o.tbl === t && o.op === op)?.n ?? 0);
    const inserts = count('INSERT');
    const updates = count('UPDATE');
    const deletes = count('DELETE');
    if (inserts + updates + deletes === 0) continue;
    const grow = (name) => {
      const a = after.get(name) ?? { cells: 0, bytes: 0 };
      const b = before.get(name) ?? { cells: 0, bytes: 0 };
      return { cells: a.cells - b.cells, bytes: a.bytes - b.bytes };
    };
    const withoutRowid = /\bWITHOUT\s+ROWID\b/i.test(db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(t));
    const own = grow(t);
    // The indexes that gained entries (a partial index whose rows the work leaves out gains none).
    const indexes = [];
    for (const [name, s] of after) {
      if (s.type !== 'index' || s.tbl_name !== t || name === t) continue;
      const g = grow(name);
      if (g.cells > 0) indexes.push({ name, bytes: Math.round(g.bytes / g.cells), perRow: g.cells / n / Math.max(inserts, 1e-9) });
    }
    result.push({
      table: t,
      withoutRowid,
      inserts,
      updates,
      deletes,
      rowBytes: own.cells > 0 ? Math.round(own.bytes / own.cells) : 0,
      indexes,
    });
  }
  return result;
}

/** Rows a unit writes in all (inserted, updated, deleted), the figure printed beside the floor. */
export function rowsPerUnit(footprint) {
  return footprint.reduce((sum, t) => sum + t.inserts + t.updates + t.deletes, 0);
}

/** Bytes a unit inserts (rows and their index entries). */
export function bytesPerUnit(footprint) {
  return footprint.reduce((sum, t) => sum + t.inserts * (t.rowBytes + t.indexes.reduce((s, i) => s + i.bytes * i.perRow, 0)), 0);
}

/**
 * One line naming what a unit writes, per table: rows inserted with their size and the indexes
 * beside, rows updated (~) and deleted (-), e.g. "history_entries +3 × 165 B, ledger_days ~2.59".
 */
export function describeFootprint(footprint) {
  const n = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  return footprint
    .map((t) => {
      const parts = [];
      if (t.inserts)
        parts.push(`+${n(t.inserts)} × ${t.rowBytes} B${t.indexes.length ? ` (${t.indexes.length} index${t.indexes.length > 1 ? 'es' : ''})` : ''}`);
      if (t.updates) parts.push(`~${n(t.updates)}`);
      if (t.deletes) parts.push(`-${n(t.deletes)}`);
      return `${t.table} ${parts.join(' ')}`;
    })
    .join(', ');
}

/** A key of `bytes` bytes that sorts after every earlier one (the right edge of its b-tree). */
function edgeKey(i, bytes) {
  const head = i.toString(16).padStart(12, '0');
  return bytes <= head.length ? head : head + 'x'.repeat(bytes - head.length);
}

/**
 * A new database in `dir` with `pragmas` whose `commit(n)` commits n transactions, each writing what
 * one unit of `footprint` writes, and returns their wall seconds (the set-up excluded). Fractional
 * rows per unit (a line that some claims have) are spread over the transactions so that the totals
 * match. `close()` removes the database.
 */
export function openFloor({ footprint, pragmas, dir }) {
  const file = join(dir, 'floor.sqlite');
  for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
  const db = new Database(file);
  const remove = () => {
    db.close();
    for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
  };
  try {
    db.pragma(`page_size = ${pragmas.page_size}`);
    db.pragma(`journal_mode = ${pragmas.journal_mode}`);
    db.pragma(`synchronous = ${SYNCHRONOUS[pragmas.synchronous] ?? pragmas.synchronous}`);
    db.pragma(`cache_size = ${pragmas.cache_size}`);
    if (pragmas.mmap_size) db.pragma(`mmap_size = ${pragmas.mmap_size}`);
    db.pragma(`wal_autocheckpoint = ${pragmas.wal_autocheckpoint}`);

    const writers = footprint.map((t, ti) => {
      const name = `t${ti}`;
      const cols = t.indexes.map((_, j) => `x${j}`);
      const key = t.withoutRowid ? 'k TEXT PRIMARY KEY' : 'k INTEGER PRIMARY KEY';
      db.exec(`CREATE TABLE ${name} (${[key, 'v BLOB', ...cols.map((c) => `${c} TEXT`)].join(', ')})${t.withoutRowid ? ' WITHOUT ROWID' : ''}`);
      cols.forEach((c) => db.exec(`CREATE INDEX ${name}_${c} ON ${name} (${c})`));
      // A row's bytes less its key and index columns, stored as one value.
      const keyBytes = t.withoutRowid ? 16 : 0;
      const value = Buffer.alloc(Math.max(0, t.rowBytes - keyBytes), 0x61);
      const insert = db.prepare(`INSERT INTO ${name} VALUES (${['?', '?', ...cols.map(() => '?')].join(', ')})`);
      // Rows updated in place: a small table of counters, as many as the unit updates, cycled.
      const counters = Math.max(1, Math.ceil(t.updates)) * 64;
      let update;
      if (t.updates > 0) {
        db.exec(`CREATE TABLE ${name}_u (k INTEGER PRIMARY KEY, n INTEGER NOT NULL, v BLOB)`);
        const fill = db.prepare(`INSERT INTO ${name}_u VALUES (?, 0, ?)`);
        const pad = Buffer.alloc(Math.max(0, t.rowBytes - 8), 0x62);
        db.transaction(() => {
          for (let k = 0; k < counters; k++) fill.run(k, pad);
        })();
        update = db.prepare(`UPDATE ${name}_u SET n = n + 1 WHERE k = ?`);
      }
      let inserted = 0;
      let updated = 0;
      let nextKey = 0;
      let nextCounter = 0;
      return (tx) => {
        // Whole rows per transaction, the fractions carried to the next.
        const ins = Math.floor(t.inserts * (tx + 1)) - inserted;
        for (let r = 0; r < ins; r++) {
          const k = nextKey++;
          insert.run(t.withoutRowid ? edgeKey(k, keyBytes) : k, value, ...t.indexes.map((ix) => edgeKey(k, ix.bytes)));
        }
        inserted += ins;
        const upd = Math.floor(t.updates * (tx + 1)) - updated;
        for (let r = 0; r < upd; r++) update.run(nextCounter++ % counters);
        updated += upd;
      };
    });
    const commit = db.transaction((tx) => {
      for (const w of writers) w(tx);
    });
    let done = 0;
    return {
      commit(transactions) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < transactions; i++) commit.immediate(done++);
        return Number(process.hrtime.bigint() - start) / 1e9;
      },
      close: remove,
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Commits `transactions` floor transactions in a new database; returns their rate and seconds. */
export function floorRate({ footprint, pragmas, dir, transactions }) {
  const floor = openFloor({ footprint, pragmas, dir });
  try {
    const seconds = floor.commit(transactions);
    return { rate: transactions / seconds, seconds };
  } finally {
    floor.close();
  }
}

/**
 * The floor paired with a measured run: `run(from, to)` does units [from, to) and returns their
 * seconds; it is called in `chunks` slices, each right after the floor commits as many transactions
 * (`share` of as many, for long runs), so that whatever load the machine carries meanwhile weighs on
 * both alike (the figures are read as a ratio). A warm-up of the floor comes first. Returns the
 * run's seconds and the floor's rate.
 */
export function pairedFloor({ footprint, pragmas, dir }, units, run, { chunks = 10, share = 1 } = {}) {
  floorRate({ footprint, pragmas, dir, transactions: Math.min(1000, units) });
  const floor = openFloor({ footprint, pragmas, dir });
  let floorSeconds = 0;
  let transactions = 0;
  let seconds = 0;
  try {
    for (let c = 0; c < chunks; c++) {
      const from = Math.floor((units * c) / chunks);
      const to = Math.floor((units * (c + 1)) / chunks);
      const n = Math.max(1, Math.round((to - from) * share));
      floorSeconds += floor.commit(n);
      transactions += n;
      seconds += run(from, to);
    }
  } finally {
    floor.close();
  }
  return { seconds, floor: { rate: transactions / floorSeconds, seconds: floorSeconds, transactions, chunks } };
}

const fmt = (x) => Math.round(x).toLocaleString('en-US');

/**
 * The line that reads a rate against its floor, e.g.
 * "claims/s 3,400 = 52% of floor 6,500 tx/s (target ≥ 50%): met".
 */
export function floorLine(unit, rate, floor, targetPercent) {
  const percent = (rate / floor.rate) * 100;
  const met = percent >= targetPercent;
  const target = targetPercent === undefined ? '' : ` (target ≥ ${targetPercent}%): ${met ? 'met' : 'missed'}`;
  return {
    met: targetPercent === undefined || met,
    percent,
    // Rounded down, so that a figure printed at the target meets it.
    text: `${unit} ${fmt(rate)} = ${Math.floor(percent)}% of floor ${fmt(floor.rate)} tx/s${target}`,
    detail: `floor: better-sqlite3 alone, ${fmt(floor.transactions)} transactions in ${floor.chunks} slices, each just before a slice of the claims`,
  };
}
