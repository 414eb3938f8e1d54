// `node bench/lib/build-ledger.mjs <data dir> <n>`: a ledger of n encounters built through the
// engine's request path (as ledger.mjs's submitClaims), in a process of its own, so that a benchmark
// which then measures a server from its own process (autocannon) keeps that process light.
import { rmSync } from 'node:fs';
import { loadEngine, openEngine, submitClaims } from './ledger.mjs';

const [dir, n] = [process.argv[2], Number(process.argv[3])];
if (!dir || !Number.isInteger(n) || n < 1) throw new Error('usage: build-ledger.mjs <data dir> <n>');
const { Engine, claimTemplate, work } = await loadEngine();
try {
  const engine = openEngine(Engine, dir, n);
  submitClaims(engine, claimTemplate, 0, n);
  engine.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
