// Test-only preload (node --import) for the interrupt tests: it holds a long job in the middle of
// its work without ever giving the event loop a turn, as the embedded engine's synchronous SQLite
// does. Active only with TPA_TEST_HOLD_DIR: before the write transaction number TPA_TEST_HOLD_AT
// (BEGIN IMMEDIATE, the ones that record a claim or a fund release; 5 by default) it writes the
// marker `held-<pid>` there and the line "tpa-test: held" on stderr (for a terminal test to wait
// on), then blocks the thread until the file `go` exists. A signal sent meanwhile (kill -INT, or
// Ctrl-C on its terminal) is pending when the job goes on: whether the job then stops is what the
// tests look at. Nothing in src/ knows about it: it patches better-sqlite3 in the child process only.
import { createRequire } from 'node:module';
import { existsSync, realpathSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(new URL('../../package.json', import.meta.url));
const Database = require('better-sqlite3');
// The bundle takes the copy loaded here by the path it names (node_modules/better-sqlite3/…);
// require keys its cache by the real path, which differs when node_modules is a symbolic link.
const linked = join(fileURLToPath(new URL('../../node_modules/better-sqlite3/', import.meta.url)));
const loaded = require.resolve('better-sqlite3');
const alias = join(linked, relative(realpathSync(linked), loaded));
if (alias !== loaded) require.cache[alias] = require.cache[loaded];
const dir = process.env.TPA_TEST_HOLD_DIR;
const at = Number(process.env.TPA_TEST_HOLD_AT ?? 5);
const tick = new Int32Array(new SharedArrayBuffer(4));
const original = Database.prototype.transaction;
let writes = 0;

if (dir) {
  Database.prototype.transaction = function (fn) {
    const tx = original.call(this, fn);
    const wrapped = function (...args) {
      return tx.apply(this, args);
    };
    wrapped.deferred = tx.deferred;
    wrapped.exclusive = tx.exclusive;
    wrapped.immediate = function (...args) {
      writes += 1;
      if (writes === at) {
        writeFileSync(join(dir, `held-${process.pid}`), '');
        writeSync(2, 'tpa-test: held\n');
        while (!existsSync(join(dir, 'go'))) Atomics.wait(tick, 0, 0, 2);
      }
      return tx.immediate.apply(this, args);
    };
    return wrapped;
  };
}
