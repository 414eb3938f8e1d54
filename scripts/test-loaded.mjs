// `npm run test:loaded`: the suite on a busy machine. Keeps every core busy with a CPU hog (one
// spinning Node process a core, as a second suite or a build beside it would), runs `npm test`
// three times in a row (TPA_LOADED_RUNS=<n> for another count), prints each run's wall time and
// result, and stops the hogs and the suite whatever happens (Ctrl-C included). Exit status 0 only
// if every run passed.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const runs = Number(process.env.TPA_LOADED_RUNS ?? 3);
const hogs = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
let suite;
const stop = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
  // The suite runs in a process group of its own: its servers and CLI processes stop with it.
  if (suite && suite.exitCode === null && suite.signalCode === null) {
    try {
      process.kill(-suite.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
};
process.on('exit', stop);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stop();
    process.exit(130);
  });
}

console.log(`${hogs.length} CPU hog(s) running; npm test ${runs} time(s)`);
const results = [];
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  suite = spawn(process.execPath, ['scripts/test.mjs', ...process.argv.slice(2)], { stdio: 'inherit', detached: true });
  const status = await new Promise((resolve) => suite.on('close', (code) => resolve(code)));
  const seconds = Math.round((Date.now() - started) / 1000);
  results.push({ run: i, seconds, passed: status === 0 });
  console.log(`loaded run ${i}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds} s`);
}
stop();
console.log(results.map((r) => `run ${r.run}: ${r.passed ? 'passed' : 'FAILED'}, ${r.seconds} s`).join('; '));
process.exitCode = results.every((r) => r.passed) ? 0 : 1;
