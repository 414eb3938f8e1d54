// A job that goes through a whole ledger allocates page after page of short-lived rows. V8 sizes
// its heap for throughput: left alone, the young generation doubles as objects survive its
// collections and the old generation grows by a factor, so a long listing peaks well above a short
// one although it holds no more at any time (docs/numbers-history.md "Memory"). These
// two heuristics are read at each collection, so they can be set once the process runs (a flag on
// the command line would cost every command's start-up: V8 refuses its code cache then).
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * Before a long job: the young generation keeps its first size, the old one grows `growingPercent`
 * (10%) at a time. A conversion that streams and keeps nothing takes 5: 100,000 claims of an 837
 * peaked at 100 to 102 MB with 10, 96 to 97 MB with 5, in the same time (docs/numbers.md).
 * With `youngMb`, the young generation may first grow up to that many MB a semi-space, then keeps
 * its size: a listing allocates a page's rows and their text between two collections, and a young
 * generation of 1 MB promoted part of every page, collected again in the old one (a quarter of a
 * listing's CPU); 2 MB took a listing of 100,000 entries about 0.9× the CPU at the same peak
 * (docs/numbers.md "The listing and the lookup at their floors").
 */
export function keepHeapFlat(growingPercent = 10, youngMb = 0): void {
  if (youngMb > 0) capYoungGeneration(youngMb);
  else setFlagsFromString('--semi-space-growth-factor=1');
  // Asked twice in one job (an 837's first reading, then the batch), the smaller step holds.
  flatPercent = Math.min(flatPercent, growingPercent);
  setFlagsFromString(`--heap-growing-percent=${flatPercent}`);
}
let flatPercent = Number.POSITIVE_INFINITY;

/**
 * Before a long X12 job (claim submit, validate and convert of an 837): no optimizing compiler
 * (TurboFan) from here on; Maglev, V8's faster-compiling tier, compiles what is hot. TurboFan's
 * compilations of the X12 reader's and the claim path's large functions took 10 to 15 MB of
 * compiler memory, outside the heap, that stayed resident to the end of the run (docs/numbers.md
 * "After the X12 pass"); the code Maglev makes costs these jobs little time. Read at each decision
 * to optimize, so it can be set once the process runs.
 */
export function keepCompilerSmall(): void {
  setFlagsFromString('--no-turbofan');
}

/**
 * For a long-lived server (`local serve`): the young generation grows as its load needs, up to
 * `semiSpaceMb` a semi-space and no further, and the old one 10% at a time. Left alone, under many
 * connections at once V8 grows the young generation far beyond what throughput needs, most of it for
 * a burst of malformed requests (docs/numbers-history.md "Memory"). `--max-semi-space-size` is read only when the heap
 * is set up, so the growth factor (read at each collection) is switched after each one: 2 while the
 * young generation is below its cap (V8 also shrinks it when the server idles), 1 once it is there.
 * Returns a function that stops watching.
 */
export function holdServerHeap(semiSpaceMb: number): () => void {
  setFlagsFromString('--heap-growing-percent=10');
  return capYoungGeneration(semiSpaceMb);
}

/**
 * The young generation grows as V8 sees fit up to `semiSpaceMb` a semi-space and no further: the
 * growth factor (read at each collection) is 2 below the cap and 1 at it, switched after each
 * collection. Returns a function that stops watching.
 */
function capYoungGeneration(semiSpaceMb: number): () => void {
  const cap = semiSpaceMb * 1024 * 1024;
  let factor = 0;
  const adjust = () => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (!young) return;
    // What a semi-space holds (allocated plus what is left before the next collection) is a little
    // under its size, which doubles: three quarters of the cap tells the cap from half of it.
    const wanted = young.space_used_size + young.space_available_size >= cap * 0.75 ? 1 : 2;
    if (wanted !== factor) setFlagsFromString(`--semi-space-growth-factor=${(factor = wanted)}`);
  };
  const observer = new PerformanceObserver(adjust);
  observer.observe({ entryTypes: ['gc'] });
  adjust();
  return () => observer.disconnect();
}
