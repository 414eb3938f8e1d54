// `npm run test:loaded`: the suite on a busy machine. Keeps every core busy with a CPU hog (one
// spinning Node process a core, as a second suite or a build beside it would), runs `npm test`
// three times in a row (TPA_LOADED_RUNS=<n> for another count), prints each run's wall time and
// result, and stops the hogs whatever happens. Exit status 0 only if every run passed.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const runs = Number(process.env.TPA_LOADED_RUNS ?? 3);
const hogs = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stop = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
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
  const status = spawnSync(process.execPath, ['scripts/test.mjs', ...process.argv.slice(2)], { stdio: 'inherit' }).status;
  results.push({ run: i, seconds: Math.round((Date.now() - started) / 1000), passed: status === 0 });
  console.log(`loaded run ${i}: ${status === 0 ? 'passed' : 'FAILED'} in ${results.at(-1).seconds} s`);
}
stop();
console.log(results.map((r) => `run ${r.run}: ${r.passed ? 'passed' : 'FAILED'}, ${r.seconds} s`).join('; '));
process.exitCode = results.every((r) => r.passed) ? 0 : 1;
