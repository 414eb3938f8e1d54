// Test-only preload (node --import) for the exactly-once funding test: it holds every fund
// approval's transaction at a barrier, after the transaction has begun and read the settlements,
// until the test creates the file `go` in TPA_TEST_BARRIER_DIR. Processes whose transactions can
// overlap (BEGIN DEFERRED) then all stand inside at once with the same snapshot; with BEGIN
// IMMEDIATE only one can be inside and the others wait for the write lock. So that the test can see
// that they wait (rather than guess it from the time passed), the transaction begins with no busy
// timeout: a BEGIN refused as busy writes `blocked-<pid>` and is tried again every 2 ms, as SQLite's
// own busy wait would (inside, the usual busy timeout applies). Markers: `begin-<pid>` when an
// approval starts its transaction, `blocked-<pid>` when it found the write lock taken,
// `inside-<pid>` once inside. Nothing in src/ knows about it: it patches better-sqlite3 in the child
// process only, and keeps whatever mode (DEFERRED, IMMEDIATE) the code chose.
import { createRequire } from 'node:module';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(new URL('../../package.json', import.meta.url));
const Database = require('better-sqlite3');
const dir = process.env.TPA_TEST_BARRIER_DIR;
const tick = new Int32Array(new SharedArrayBuffer(4));
const original = Database.prototype.transaction;

Database.prototype.transaction = function (fn) {
  // The funding decision's transaction is the one that names its idempotency scope.
  if (!dir || !String(fn).includes('funding.approve')) return original.call(this, fn);
  const db = this;
  let entered = false;
  let timeout = 0;
  const tx = original.call(this, function (...args) {
    entered = true;
    db.pragma(`busy_timeout = ${timeout}`);
    db.prepare('SELECT COUNT(*) FROM settlements').get();
    writeFileSync(join(dir, `inside-${process.pid}`), '');
    while (!existsSync(join(dir, 'go'))) Atomics.wait(tick, 0, 0, 2);
    return fn.apply(this, args);
  });
  const held = (run) =>
    function (...args) {
      writeFileSync(join(dir, `begin-${process.pid}`), '');
      timeout = db.pragma('busy_timeout', { simple: true });
      for (let blocked = false; ; ) {
        entered = false;
        db.pragma('busy_timeout = 0');
        try {
          return run.apply(this, args);
        } catch (err) {
          // Busy at BEGIN: another process holds the write lock. Anything later is the code's own.
          if (entered || err.code !== 'SQLITE_BUSY') throw err;
          if (!blocked) writeFileSync(join(dir, `blocked-${process.pid}`), '');
          blocked = true;
          Atomics.wait(tick, 0, 0, 2);
        } finally {
          db.pragma(`busy_timeout = ${timeout}`);
        }
      }
    };
  const wrapped = held(tx);
  for (const mode of ['deferred', 'immediate', 'exclusive']) wrapped[mode] = held(tx[mode]);
  return wrapped;
};
