// Start-up cost of tpa against bare Node on the same Node (targets: `tpa --help` ≤ 1.1× `node -e 0`,
// `tpa lookup blind` on the embedded engine ≤ 1.3×). Paired runs: each round runs `node -e 0` and
// then every command, and a command's ratio is the median over the rounds of its time over that
// round's `node -e 0`, so that machine noise hits both sides of each ratio alike. The median wall
// times are printed beside, and for the lookup and `--help` the ratio of their instructions to
// `node -e 0`'s, counted by valgrind (bench/lib/instructions.mjs; the median of BENCH_STARTUP_COUNTS
// runs, 3: V8 sets up its hash seed in a number of instructions that varies by a few million), the
// CPU-bound reference that a busy or another machine does not move. Prints the figures; exits 1 if
// a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instructions, millions, notCounted } from './lib/instructions.mjs';
import { tableLine } from './lib/targets.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const bin = fileURLToPath(new URL('../bin/tpa', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'tpa-bench-'));
const env = { ...process.env, TPA_HOME: home };
const lookup = ['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-o', 'json'];

const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'tpa --version': [process.execPath, [bin, '--version']],
  'tpa --help': [process.execPath, [bin, '--help']],
  'tpa lookup blind -o json': [process.execPath, [bin, ...lookup]],
};

// Warm-up: seeds the local database and the OS file cache.
for (const [cmd, args] of Object.values(cases)) spawnSync(cmd, args, { env });

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, [cmd, args]] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    // stdout is a pipe, as when a script reads tpa's output.
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    times[name].push(ms);
  }
}
const COUNTS = Number(process.env.BENCH_STARTUP_COUNTS ?? 3);
const counted = {};
for (const name of ['node -e 0', 'tpa --help', 'tpa lookup blind -o json']) {
  const [cmd, args] = cases[name];
  counted[name] = instructions(cmd, args, { env, runs: COUNTS });
}
rmSync(home, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const targets = { 'tpa --help': 1.1, 'tpa lookup blind -o json': 1.3 };
let missed = false;
console.log(`startup, ${RUNS} paired rounds (node -e 0, then each command), on ${process.execPath} ${process.version}`);
for (const name of Object.keys(cases)) {
  const m = median(times[name]);
  const ratio = median(times[name].map((ms, i) => ms / times['node -e 0'][i]));
  const target = targets[name];
  const verdict = target ? (ratio <= target ? `met (target ≤ ${target}×)` : `MISSED (target ≤ ${target}×)`) : '';
  if (target && ratio > target) missed = true;
  const ins = counted[name];
  const reference = ins === undefined ? '' : `  instructions ${millions(ins)}${name === 'node -e 0' ? '' : `, ${(ins / counted['node -e 0']).toFixed(2)}×`}`;
  console.log(`  ${name.padEnd(26)} ${m.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}× node -e 0  ${verdict}${reference}`);
  if (name === 'tpa lookup blind -o json')
    tableLine(
      'lookup-blind-vs-node',
      `${ratio.toFixed(2)}x`,
      `<=${target}x`,
      ratio <= target,
      ins === undefined ? notCounted() : `instructions ${(ins / counted['node -e 0']).toFixed(2)}x (${millions(ins)} / ${millions(counted['node -e 0'])})`,
    );
}
process.exitCode = missed ? 1 : 0;
