// The claims and their floor as processes of their own, for valgrind to count (bench/lib/instructions.mjs):
//   node bench/lib/count-claims.mjs engine <bundle dir> <data dir> <clock> <bodies.ndjson>
// submits each claim of the file to the engine bundled by loadEngine (bench/lib/ledger.mjs) in
// <bundle dir>, opened on <data dir> with the clock and no adjudication delay (the bodies are built
// by the bench beforehand, as its timed runs build them outside the timing);
//   node bench/lib/count-claims.mjs floor <footprint.json> <dir> <n>
// commits n of the floor's transactions (bench/lib/floor.mjs openFloor; the JSON holds claimFootprint's
// footprint and pragmas). The counts are read at two sizes, so that the start-up cancels (perUnit).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openFloor } from './floor.mjs';
import { submitOne } from './ledger.mjs';

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'engine') {
  const [bundle, dataDir, clock, file] = rest;
  const { Engine } = await import(pathToFileURL(join(bundle, 'engine.mjs')).href);
  const engine = Engine.open({ dataDir, env: { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' } });
  try {
    for (const body of readFileSync(file, 'utf8').split('\n')) if (body) submitOne(engine, body);
  } finally {
    engine.close();
  }
} else if (mode === 'floor') {
  const [file, dir, n] = rest;
  const floor = openFloor({ ...JSON.parse(readFileSync(file, 'utf8')), dir });
  try {
    floor.commit(Number(n));
  } finally {
    floor.close();
  }
} else {
  throw new Error('usage: count-claims.mjs engine <bundle dir> <data dir> <clock> <bodies.ndjson> | floor <footprint.json> <dir> <n>');
}
