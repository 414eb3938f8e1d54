// A job that goes through a whole ledger allocates page after page of short-lived rows. V8 sizes
// its heap for throughput: left alone, the young generation doubles up to 32 MB as objects survive
// its collections and the old generation grows by a factor, so a listing of 100,000 rows peaks
// some 25 MB above one of 10,000 although it holds no more at any time (bench/engine.mjs). These
// two heuristics are read at each collection, so they can be set once the process runs (a flag on
// the command line would cost every command's start-up: V8 refuses its code cache then).
import { setFlagsFromString } from 'node:v8';

/** Before a long job: the young generation keeps its first size, the old one grows 10% at a time. */
export function keepHeapFlat(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=10');
}
