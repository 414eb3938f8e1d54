// Instructions a process runs, counted by valgrind (cachegrind, no cache simulation): a CPU-bound
// reference printed beside a time ratio, so that a figure means the same on any machine and under any
// load (time on a shared machine moves with the other work; a count of instructions does not).
// Hardware counters (`perf stat`) would be quicker, but virtual machines often have none; valgrind
// runs anywhere it is installed, about 30 to 50 times slower than the process alone, so the benches
// count small sizes (each says which). V8's code is generated at run time: valgrind must watch the
// heap for code it writes (`--smc-check=all-non-file`), else it runs stale translations and crashes.
// Only the process started is counted (its threads included: V8's compiler and GC helpers), not
// processes it starts in turn: a client and its server are counted each on its own (underValgrind).
// BENCH_INSTRUCTIONS=0 counts nothing (a quick run): every bench prints notCounted() in their place.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let found;

/** Whether instructions are counted in this run: BENCH_INSTRUCTIONS is not 0 and valgrind can be run here (checked once). */
export function valgrindAvailable() {
  if (process.env.BENCH_INSTRUCTIONS === '0') return false;
  found ??= spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
  return found;
}

/** What a bench prints where a count would be when none was made. */
export function notCounted() {
  return process.env.BENCH_INSTRUCTIONS === '0' ? 'instructions: not counted (BENCH_INSTRUCTIONS=0)' : 'instructions: valgrind not installed';
}

/**
 * `command args` as a command line under cachegrind, for a process the bench starts itself (a
 * server it stops later): spawn `command` with `args`, and once the process has exited, `count()`
 * returns its instructions (and removes the count's file; `discard()` removes it uncounted). Undefined when nothing is counted.
 */
export function underValgrind(command, args) {
  if (!valgrindAvailable()) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'tpa-bench-valgrind-'));
  const out = join(dir, 'cachegrind.out');
  return {
    command: 'valgrind',
    args: ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', `--cachegrind-out-file=${out}`, '--log-file=/dev/null', command, ...args],
    count() {
      try {
        return summaryOf(readFileSync(out, 'utf8'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    discard: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs `command` with `args` under cachegrind `runs` times and returns the median count of
 * instructions (a number), or undefined when valgrind is not installed. `env`, `cwd` and `input` as
 * for spawnSync; stdout is discarded. Throws when the command exits with another status than 0.
 */
export function instructions(command, args, { env = process.env, cwd, input, runs = 1 } = {}) {
  if (!valgrindAvailable()) return undefined;
  const counts = [];
  for (let i = 0; i < runs; i++) {
    const run = underValgrind(command, args);
    const r = spawnSync(run.command, run.args, {
      env,
      cwd,
      input,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) {
      run.discard();
      throw new Error(`${command} ${args.join(' ')} under valgrind exited ${r.status}: ${String(r.stderr).slice(-2000)}`);
    }
    counts.push(run.count());
  }
  counts.sort((a, b) => a - b);
  return counts[Math.floor(counts.length / 2)];
}

/** The total of a cachegrind output file: its `summary:` line (instructions, with --cache-sim=no). */
export function summaryOf(text) {
  const m = /^summary:\s+(\d+)/m.exec(text);
  if (!m) throw new Error('cachegrind wrote no summary line');
  return Number(m[1]);
}

/** A count in millions, one decimal: 95.8M. */
export const millions = (n) => `${(n / 1e6).toFixed(1)}M`;

/** Instructions a unit costs without the start-up: the counts at two sizes, their difference over the units between. */
export const perUnit = (atSmall, atLarge, small, large) => (atLarge - atSmall) / (large - small);
