// The connection type and its write transactions: kept apart from db.ts (which opens and migrates
// the file, reading the engine clock to date its seeds) so that the clock can know whether a write
// transaction is open without importing what imports it.
import type Database from 'better-sqlite3';

export type Db = Database.Database;

const writers = new WeakMap<Db, Database.Transaction<(fn: () => unknown) => unknown>>();

/**
 * Runs `fn` in one write transaction (BEGIN IMMEDIATE: the write lock first, so a busy database is
 * waited for before anything is read), or in a savepoint inside one already open. The transaction
 * function is made once per connection: better-sqlite3 builds a new one, with its four variants,
 * each time `db.transaction` is called, which cost a request more than some of its queries.
 */
export function inWriteTransaction<T>(db: Db, fn: () => T): T {
  let run = writers.get(db);
  if (!run) {
    run = db.transaction((body: () => unknown) => body());
    writers.set(db, run);
  }
  const state = writeStates.get(db) ?? { serial: 0, active: false };
  writeStates.set(db, state);
  const outer = state.active;
  state.serial += 1;
  state.active = true;
  try {
    return run.immediate(fn) as T;
  } finally {
    // A nested call ends its savepoint, not the transaction: the outer one is no longer known by
    // its number, so nothing is taken for known in it any more.
    state.active = false;
    if (outer) state.serial += 1;
  }
}

const writeStates = new WeakMap<Db, { serial: number; active: boolean }>();

/**
 * The number of the write transaction `inWriteTransaction` runs now on this connection, null outside
 * one. Inside it no other connection writes, so what it read once stays read (clock.ts heldClock).
 */
export function writeTransactionSerial(db: Db): number | null {
  const state = writeStates.get(db);
  return state?.active ? state.serial : null;
}

/** What a discarded transaction computed, carried out through its rollback. */
class Discarded {
  constructor(readonly value: unknown) {}
}

/**
 * Runs `fn` in a write transaction that is always rolled back, and gives back what it returned: a
 * rule applied as it would be, with nothing kept (`claim validate` on the embedded engine). An error
 * of `fn` is thrown as it is, after the rollback too.
 */
export function inDiscardedTransaction<T>(db: Db, fn: () => T): T {
  try {
    inWriteTransaction(db, () => {
      throw new Discarded(fn());
    });
  } catch (err) {
    if (err instanceof Discarded) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: a discarded transaction always throws');
}
