// `tpa ledger list --all -o ndjson` against its floor, a plain better-sqlite3 read of the same
// columns of the same ledger (bench/lib/plain-read.mjs), target: at most 2 times its CPU time at
// 1,000,000 encounters (docs/numbers.md "The listing and the lookup at their floors").
// - CPU seconds (user and system, each process's own resource usage) of both, in paired rounds
//   (the plain read, then the listing), the median of the rounds' ratios; wall time and the
//   listing's peak RSS beside;
// - the same two counted in instructions by valgrind (bench/lib/instructions.mjs) on ledgers of
//   10,000 and 20,000 (BENCH_LISTING_SMALL): the CPU-bound reference, the same on any machine; the
//   ratio of the differences is a row's cost without the start-up, what the ratio at 1,000,000 is.
// The ledger is built through the engine's request path (bench/lib/build-ledger.mjs): 1,000,000
// encounters take 7 minutes on a quiet machine (40 under a day of other work) and 4 GB of disk;
// BENCH_LISTING_HOME names a folder already holding one (built by `node bench/lib/build-ledger.mjs
// <folder> <n>`, kept), BENCH_LISTING its size (1,000,000), BENCH_LISTING_ROUNDS the rounds (3).
// Exits 1 when the target is missed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instructions, millions, notCounted } from './lib/instructions.mjs';
import { buildLedger, clockFor, fmt, runCli, runNode, TPA_BIN } from './lib/ledger.mjs';
import { tableLine, targets } from './lib/targets.mjs';

const N = Number(process.env.BENCH_LISTING ?? 1_000_000);
const SMALL = Number(process.env.BENCH_LISTING_SMALL ?? 20_000);
const ROUNDS = Number(process.env.BENCH_LISTING_ROUNDS ?? 3);
const TARGET = 2;
const PLAIN = fileURLToPath(new URL('./lib/plain-read.mjs', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'tpa-bench-listing-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function envOf(home, n) {
  const env = { ...process.env, TPA_HOME: home, TPA_CLOCK: clockFor(n), TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
  delete env.TPA_PROFILE;
  return env;
}
const listing = ['ledger', 'list', '--all', '-o', 'ndjson'];
const { figure, finish } = targets(52, 44);

try {
  const home = process.env.BENCH_LISTING_HOME ?? join(work, 'large');
  if (!process.env.BENCH_LISTING_HOME) {
    console.log(`building a ledger of ${fmt(N)} encounters through the engine (minutes)…`);
    buildLedger(home, N);
  }
  const env = envOf(home, N);
  const database = join(home, 'local.sqlite');
  console.log(`ledger list --all -o ndjson against a plain read of the same columns, ${fmt(N)} encounters, ${ROUNDS} paired rounds`);
  await runNode([PLAIN, database], env, work); // the file into the OS cache
  const ratios = [];
  const plain = [];
  const listed = [];
  for (let i = 0; i < ROUNDS; i++) {
    const p = await runNode([PLAIN, database], env, work);
    const l = await runCli(listing, env, work);
    if (l.lines !== N || Number(p.stderr.trim()) !== N)
      throw new Error(`the listing printed ${l.lines} lines, the plain read read ${p.stderr.trim()} rows, of ${N}`);
    plain.push(p);
    listed.push(l);
    ratios.push(l.cpuSeconds / p.cpuSeconds);
  }
  const ratio = median(ratios);
  const m = (rs, k) => median(rs.map((r) => r[k]));

  // The CPU-bound reference: instructions of both on ledgers of SMALL and SMALL / 2 encounters; the
  // difference between the two sizes is the cost of SMALL / 2 rows without the start-up, which at
  // 1,000,000 rows is what the ratio is made of.
  const [half, whole] = [SMALL / 2, SMALL].map((n) => {
    const dir = join(work, `small-${n}`);
    buildLedger(dir, n);
    const env = envOf(dir, n);
    return {
      listing: instructions(process.execPath, [TPA_BIN, ...listing], { env }),
      plain: instructions(process.execPath, [PLAIN, join(dir, 'local.sqlite')], { env }),
    };
  });
  const reference =
    whole.listing === undefined
      ? notCounted()
      : `instructions per row ${((whole.listing - half.listing) / (whole.plain - half.plain)).toFixed(2)}x, whole runs ${(whole.listing / whole.plain).toFixed(2)}x (${millions(whole.listing)} / ${millions(whole.plain)}) at ${fmt(SMALL)}`;

  figure('plain read (better-sqlite3, same columns)', `${m(plain, 'cpuSeconds').toFixed(2)} s CPU, ${m(plain, 'seconds').toFixed(2)} s`, '(the floor)', true);
  // Its peak RSS is printed; its target is bench/engine.mjs's, at 10,000 and 100,000.
  figure(
    'tpa ledger list --all -o ndjson',
    `${m(listed, 'cpuSeconds').toFixed(2)} s CPU, ${m(listed, 'seconds').toFixed(2)} s, ${m(listed, 'rssMb').toFixed(0)} MB`,
    '(none)',
    true,
  );
  figure('  its CPU against the plain read (median of ratios)', `${ratio.toFixed(2)}×  [${reference}]`, `≤ ${TARGET}×`, ratio <= TARGET);
  tableLine('ledger-ndjson-vs-plain-read', `${ratio.toFixed(2)}x`, `<=${TARGET}x`, ratio <= TARGET, `CPU at ${fmt(N)}; ${reference}`);
  finish();
} finally {
  rmSync(work, { recursive: true, force: true });
}
