// `npm test`: build, type-check, the main suite, then the keychain suite inside a D-Bus session with
// a Secret Service unlocked for it (a fresh keyring under a temporary XDG_DATA_HOME). Prints one
// closing line, "N passed, N failed", over both suites.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const work = mkdtempSync(join(tmpdir(), 'tpa-test-'));
const run = (cmd, args, options = {}) => spawnSync(cmd, args, { stdio: 'inherit', ...options }).status ?? 1;
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
// A suite counts as failed if vitest failed, whatever its counts say (a file that fails to load
// has no failed test, only a failed suite).
const report = (file, status) => {
  const r = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { numPassedTests: 0, numFailedTests: 0, success: false };
  const broken = status !== 0 || r.success === false || (r.numFailedTestSuites ?? 0) > 0;
  return { passed: r.numPassedTests, failed: r.numFailedTests + (broken && r.numFailedTests === 0 ? 1 : 0) };
};
const extra = process.argv.slice(2);

try {
  if (run(process.execPath, ['scripts/build.mjs']) !== 0 || run('npx', ['tsc', '--noEmit']) !== 0) {
    process.exitCode = 1;
    throw new Error('the build or the type check failed');
  }
  // The completion tests run the scripts in the real shells (test/cli/completion/shells.test.ts).
  if (!['zsh', 'fish'].every(has) && process.getuid?.() === 0 && has('apt-get')) {
    console.log('installing zsh and fish for the completion tests…');
    run('sh', ['-c', 'apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null']);
  }
  // The benches' instruction counts (bench/lib/instructions.mjs) run valgrind, and a test checks them.
  if (!has('valgrind') && process.getuid?.() === 0 && has('apt-get')) {
    console.log('installing valgrind for the bench reference test…');
    run('sh', ['-c', 'apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null']);
  }
  const mainReport = join(work, 'main.json');
  const mainStatus = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${mainReport}`, ...extra]);

  // The keychain suite needs a Secret Service: gnome-keyring, libsecret-tools (secret-tool) and dbus.
  const tools = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
  if (!tools.every(has) && process.getuid?.() === 0 && has('apt-get')) {
    console.log('installing gnome-keyring, libsecret-tools and dbus for the keychain tests…');
    run('sh', [
      '-c',
      'apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnome-keyring libsecret-tools dbus dbus-x11 >/dev/null',
    ]);
  }
  const keychainReport = join(work, 'keychain.json');
  let keychainStatus = 1;
  if (tools.every(has)) {
    const keyring = join(work, 'xdg-data');
    const vitest = [
      'npx',
      'vitest',
      'run',
      '--config',
      'vitest.keychain.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile=${keychainReport}`,
      ...extra,
    ].join(' ');
    keychainStatus = run(
      'dbus-run-session',
      ['--', 'sh', '-c', `echo -n tpa-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && ${vitest}`],
      {
        env: { ...process.env, XDG_DATA_HOME: keyring },
      },
    );
  } else {
    console.error(`the keychain tests need ${tools.join(', ')} (Debian: apt-get install gnome-keyring libsecret-tools dbus)`);
  }
  const results = [report(mainReport, mainStatus), report(keychainReport, keychainStatus)];
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
} catch (err) {
  console.error(err.message);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
