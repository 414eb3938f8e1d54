// Test-only preload (node --import) for the restore kill tests: it holds `tpa local restore` just
// before, or just after, the rename that puts the backup in place of the database, or at the start
// of its copy of the backup, so that a test can kill it, or run a command, at exactly that instant.
// Active only with TPA_TEST_RENAME_HOLD_DIR: at the rename onto `local.sqlite` (TPA_TEST_RENAME_HOLD
// is `before` or `after` it), or before the backup is copied to its `.restore.tmp` (`copy`), it
// writes the marker `held-<pid>` there, then blocks the thread until the file `go` exists. Nothing
// in src/ knows about it: it wraps node:fs's renameSync and copyFileSync in the child process only
// (the bundle looks them up at each call).
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const fs = createRequire(import.meta.url)('node:fs');
const dir = process.env.TPA_TEST_RENAME_HOLD_DIR;
const when = process.env.TPA_TEST_RENAME_HOLD ?? 'before';
const tick = new Int32Array(new SharedArrayBuffer(4));

function hold() {
  writeFileSync(join(dir, `held-${process.pid}`), '');
  while (!existsSync(join(dir, 'go'))) Atomics.wait(tick, 0, 0, 2);
}

if (dir) {
  const original = fs.renameSync;
  fs.renameSync = function renameSync(from, to) {
    const onto = basename(String(to)) === 'local.sqlite';
    if (onto && when === 'before') hold();
    const done = original.call(this, from, to);
    if (onto && when === 'after') hold();
    return done;
  };
  const copy = fs.copyFileSync;
  fs.copyFileSync = function copyFileSync(from, to, mode) {
    if (when === 'copy' && String(to).endsWith('.restore.tmp')) hold();
    return copy.call(this, from, to, mode);
  };
}
