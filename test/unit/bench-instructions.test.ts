// The benches' CPU-bound reference (bench/lib/instructions.mjs): instructions counted by valgrind
// beside a time ratio, for a process run to its end and for one the bench stops (a server); none
// counted with BENCH_INSTRUCTIONS=0, and the text printed in their place says so.
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
// @ts-expect-error: a bench module, plain JavaScript
import { instructions, notCounted, perUnit, underValgrind } from '../../bench/lib/instructions.mjs';

const before = process.env.BENCH_INSTRUCTIONS;
afterEach(() => {
  if (before === undefined) delete process.env.BENCH_INSTRUCTIONS;
  else process.env.BENCH_INSTRUCTIONS = before;
});

it('BENCH_INSTRUCTIONS=0 counts nothing, and the text in place of a count says why', () => {
  process.env.BENCH_INSTRUCTIONS = '0';
  expect(instructions(process.execPath, ['-e', '0'])).toBeUndefined();
  expect(underValgrind(process.execPath, ['-e', '0'])).toBeUndefined();
  expect(notCounted()).toBe('instructions: not counted (BENCH_INSTRUCTIONS=0)');
});

it('perUnit leaves the start-up out: the difference of two counts over the units between', () => {
  expect(perUnit(1_000_000, 1_600_000, 150, 300)).toBe(4000);
});

it('counts a process the bench stops with SIGTERM, as it stops a server', { timeout: 180_000 }, async () => {
  delete process.env.BENCH_INSTRUCTIONS;
  const run = underValgrind(process.execPath, ['-e', "process.once('SIGTERM', () => process.exit(0)); console.log('up'); setInterval(() => {}, 1000);"]);
  const child = spawn(run.command, run.args, { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  // Node alone runs tens of millions of instructions before its first line.
  expect(run.count()).toBeGreaterThan(10_000_000);
});
