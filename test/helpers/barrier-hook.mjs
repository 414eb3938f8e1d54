// Test-only preload (node --import) for the exactly-once funding test: it holds every fund
// approval's transaction at a barrier, after the transaction has begun and read the settlements,
// until the test creates the file `go` in TPA_TEST_BARRIER_DIR. Processes whose transactions can
// overlap (BEGIN DEFERRED) then all stand inside at once with the same snapshot; with BEGIN
// IMMEDIATE only one can be inside and the others wait for the write lock. Nothing in src/ knows
// about it: it patches better-sqlite3 in the child process only.
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
  writeFileSync(join(dir, `begin-${process.pid}`), '');
  return original.call(this, function (...args) {
    db.prepare('SELECT COUNT(*) FROM settlements').get();
    writeFileSync(join(dir, `inside-${process.pid}`), '');
    while (!existsSync(join(dir, 'go'))) Atomics.wait(tick, 0, 0, 2);
    return fn.apply(this, args);
  });
};
