// Instructions a claim costs through the engine, and a transaction of its floor, counted by valgrind
// (bench/lib/instructions.mjs) in processes of their own (bench/lib/count-claims.mjs) at two small
// sizes: the difference between the two is the cost of the claims between, the start-up left out,
// which is what a rate over thousands of claims is made of. The CPU-bound reference printed beside
// a claim rate read against its floor: the floor's instructions a transaction over the claim's is the
// same share as the rates', but counted, so a loaded or another machine does not move it (the
// floor's time also holds the disk's: its count holds none of it).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instructions, notCounted, perUnit, valgrindAvailable } from './instructions.mjs';

const COUNT = fileURLToPath(new URL('./count-claims.mjs', import.meta.url));

/**
 * The two sizes claims are counted at: 300, past the first claims' compiling, and BENCH_COUNT_CLAIMS
 * (1,000). Between 150 and 300 a claim's count moved by a fifth from run to run (V8 compiles on
 * threads of its own, counted with the process, at moments that vary).
 */
export const CLAIMS_COUNTED = [300, Number(process.env.BENCH_COUNT_CLAIMS ?? 1000)];
if (!Number.isInteger(CLAIMS_COUNTED[1]) || CLAIMS_COUNTED[1] <= 300) throw new Error('BENCH_COUNT_CLAIMS must be a whole number over 300');

/** Instructions a claim `body(i)` costs in the engine bundled in `work` (loadEngine), claims small + 1 to large. */
export function engineInstructions({ work, clock, body, sizes: [small, large] }) {
  if (!valgrindAvailable()) return undefined;
  const [a, b] = [small, large].map((n) => {
    const dir = join(work, `count-engine-${n}`);
    mkdirSync(dir);
    const file = join(dir, 'bodies.ndjson');
    writeFileSync(file, `${Array.from({ length: n }, (_, i) => body(i)).join('\n')}\n`);
    try {
      return instructions(process.execPath, [COUNT, 'engine', join(work, 'bundle'), join(dir, 'data'), clock, file]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return perUnit(a, b, small, large);
}

/**
 * Instructions a transaction of the floor of `footprint` (claimFootprint's footprint and pragmas)
 * costs, transactions small + 1 to large; each count the median of 3 (cheap: a transaction is a
 * sixth of a claim), since one moved a floor transaction's figure by a third between two runs.
 */
export function floorInstructions({ footprint, pragmas }, work, [small, large]) {
  if (!valgrindAvailable()) return undefined;
  const dir = join(work, 'count-floor');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'footprint.json');
  writeFileSync(file, JSON.stringify({ footprint, pragmas }));
  try {
    const [a, b] = [small, large].map((n) => instructions(process.execPath, [COUNT, 'floor', file, dir, String(n)], { runs: 3 }));
    return perUnit(a, b, small, large);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A count in thousands: 412k. */
export const thousands = (n) => `${Math.round(n / 1000).toLocaleString('en-US')}k`;

/** The reference's text: "instructions 27% (floor 412k / engine 1,520k a claim, claims 151 to 300)". */
export function againstFloorText(floor, claim, what, [small, large]) {
  if (floor === undefined || claim === undefined) return notCounted();
  return `instructions ${Math.floor((floor / claim) * 100)}% (floor ${thousands(floor)} / ${what} ${thousands(claim)} a claim, claims ${small + 1} to ${large})`;
}
