// Claims accepted and adjudicated per second by the embedded engine, in-process (no HTTP): N
// claims (BENCH_CLAIMS, default 10,000) through POST /claims/submit/ on a fresh data dir, clock
// frozen, adjudication delay 0, then every adjudication completed. The engine and the claim
// template are bundled from src/ with esbuild on the fly, so no build is needed. Prints the
// figures, and the rate over the first and last 10% to show whether it slows as the ledger grows.
// Each rate is read against its floor (bench/lib/floor.mjs): better-sqlite3 alone
// committing, on the same disk and with the engine's pragmas, transactions that write what one of
// these claims writes (traced on a scratch engine first), in ten slices paired with the claims'. Targets: single-line claims ≥ 45% of their floor; then M multi-line institutional claims
// (BENCH_MULTI_CLAIMS, default 2,000: the template's default lines, four payees, cut in turn to 1 to
// 4 lines) ≥ 35% of theirs.
// Beside the single-line ratio, the CPU-bound reference: the instructions of a claim and of a floor
// transaction, counted by valgrind between 300 and 1,000 claims (BENCH_COUNT_CLAIMS;
// bench/lib/claim-instructions.mjs), and the table's line (TABLE claims-single-vs-floor).
// Exits 1 if a claim is refused or left incomplete; the throughput targets are reported only.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { againstFloorText, CLAIMS_COUNTED, engineInstructions, floorInstructions } from './lib/claim-instructions.mjs';
import { bytesPerUnit, describeFootprint, floorLine, pairedFloor, rowsPerUnit } from './lib/floor.mjs';
import { claimBody as body, claimFootprint, INSTITUTIONAL_CLOCK, INSTITUTIONAL_PER_DAY, institutionalBody, loadEngine, submitOne } from './lib/ledger.mjs';
import { tableLine } from './lib/targets.mjs';

const N = Number(process.env.BENCH_CLAIMS ?? 10_000);
const TARGET = 5000; // claims/s (bench/engine.mjs checks it over 100,000)
const M = Number(process.env.BENCH_MULTI_CLAIMS ?? 2000);
const FLOOR_TARGET = 45; // % of the floor, single-line claims
const MULTI_FLOOR_TARGET = 35; // % of the floor, multi-line institutional claims
const CLOCK = '2026-06-01T12:00:00Z';

if (!Number.isInteger(N) || N < 10) throw new Error(`BENCH_CLAIMS must be a whole number of at least 10 (got "${process.env.BENCH_CLAIMS}")`);
// Distinct single-line claims from 2025-01-01 (bench/lib/ledger.mjs), 52 a day, all before the clock.
if (N > 52 * 516) throw new Error(`BENCH_CLAIMS=${N}: at most ${52 * 516} distinct claims fit between 2025-01-01 and 2026-05-31`);
if (!Number.isInteger(M) || M < 10 || M > INSTITUTIONAL_PER_DAY * 516)
  throw new Error(`BENCH_MULTI_CLAIMS must be a whole number from 10 to ${INSTITUTIONAL_PER_DAY * 516}`);

const { Engine, claimTemplate, work } = await loadEngine();
try {
  const claimBody = (i) => body(claimTemplate, i);
  const single = claimFootprint(Engine, join(work, 'trace-single'), CLOCK, claimBody);
  let singleRatio;

  const engine = Engine.open({ dataDir: join(work, 'data'), env: { TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0' } });
  const call = (method, path, body, headers = {}) => {
    const url = new URL(path, 'http://local');
    return engine.handle({ method, path: url.pathname, query: url.searchParams, headers, body });
  };
  try {
    // Only the engine's work is timed: the bodies are built between the timed calls. With a delay
    // of 0 a claim is adjudicated in its own submission; the ledger request at the end checks that.
    const elapsed = new Float64Array(N); // cumulative engine seconds after claim i
    let total = 0n;
    // The floor is measured in ten slices, each just before a tenth of the claims.
    let wallTotal = 0n;
    const { floor } = pairedFloor({ ...single, dir: work }, N, (from, to) => {
      const before = total;
      const wallStart = process.hrtime.bigint();
      for (let i = from; i < to; i++) {
        const body = claimBody(i);
        const start = process.hrtime.bigint();
        const res = call('POST', '/tpa-api/v1/claims/submit/', body, { 'content-type': 'application/fhir+json' });
        total += process.hrtime.bigint() - start;
        if (res.status !== 201) throw new Error(`claim ${i + 1} of ${N}: ${res.status} ${JSON.stringify(res.body)}\n${body}`);
        elapsed[i] = Number(total) / 1e9;
      }
      wallTotal += process.hrtime.bigint() - wallStart;
      return Number(total - before) / 1e9;
    });
    const start = process.hrtime.bigint();
    const page = call('GET', '/tpa-api/v1/ledger/entries/?limit=1');
    total += process.hrtime.bigint() - start;
    wallTotal += process.hrtime.bigint() - start;
    if (page.status !== 200) throw new Error(`ledger: ${page.status} ${JSON.stringify(page.body)}`);
    const seconds = Number(total) / 1e9;
    const wall = Number(wallTotal) / 1e9;

    const counts = engine.db.prepare('SELECT status, COUNT(*) AS n FROM encounters GROUP BY status ORDER BY status').all();
    const done = engine.db.prepare('SELECT COUNT(*) FROM encounters WHERE completed_at IS NOT NULL').pluck().get();
    const all = engine.db.prepare('SELECT COUNT(*) FROM encounters').pluck().get();
    if (all !== N || done !== N) throw new Error(`expected ${N} completed encounters, found ${done} completed of ${all}`);
    const denied = counts.find((c) => c.status === 'DENIED')?.n ?? 0;
    const pended = counts.find((c) => c.status === 'PENDED')?.n ?? 0;
    if (denied + pended > 0) throw new Error(`expected every claim adjudicated, got ${counts.map((c) => `${c.status} ${c.n}`).join(', ')}`);

    const tenth = Math.floor(N / 10);
    const firstRate = tenth / elapsed[tenth - 1];
    const lastRate = tenth / (elapsed[N - 1] - elapsed[N - 1 - tenth]);
    const rate = N / seconds;
    const rssMb = process.resourceUsage().maxRSS / 1024;
    const fmt = (x) => Math.round(x).toLocaleString('en-US');
    console.log(`adjudication, in-process engine, ${N} single-line claims, clock ${CLOCK}, delay 0`);
    console.log(`  claims:          ${N} submitted (all 201), ${done} adjudicated (${counts.map((c) => `${c.status} ${c.n}`).join(', ')})`);
    console.log(
      `  engine time:     ${seconds.toFixed(2)} s (submits plus the final completing request; body building excluded; ${wall.toFixed(2)} s wall with it)`,
    );
    console.log(`  overall:         ${fmt(rate)} claims/s`);
    console.log(`  ${`first ${tenth}:`.padEnd(17)}${fmt(firstRate)} claims/s`);
    console.log(`  ${`last ${tenth}:`.padEnd(17)}${fmt(lastRate)} claims/s (${((lastRate / firstRate) * 100).toFixed(0)}% of the first)`);
    console.log(`  peak RSS:        ${rssMb.toFixed(0)} MB`);
    console.log(`  target:          ≥ ${fmt(TARGET)} claims/s (not enforced yet): ${rate >= TARGET ? 'met' : 'not met'}`);
    const ratio = floorLine('claims/s', rate, floor, FLOOR_TARGET);
    console.log(
      `  one claim writes ${rowsPerUnit(single.footprint).toFixed(1)} rows, ${fmt(bytesPerUnit(single.footprint))} bytes: ${describeFootprint(single.footprint)}`,
    );
    console.log(`  ${ratio.detail}`);
    console.log(`  against floor:   ${ratio.text}`);
    singleRatio = ratio;
    console.log(
      `adjudication: ${N} claims in ${seconds.toFixed(1)} s, ${fmt(rate)} claims/s (first ${tenth}: ${fmt(firstRate)}/s, last ${tenth}: ${fmt(lastRate)}/s), peak RSS ${rssMb.toFixed(0)} MB`,
    );
  } finally {
    engine.close();
  }
  const reference = againstFloorText(
    floorInstructions(single, work, CLAIMS_COUNTED),
    engineInstructions({ work, clock: CLOCK, body: claimBody, sizes: CLAIMS_COUNTED }),
    'engine',
    CLAIMS_COUNTED,
  );
  console.log(`  counted:         ${reference}`);
  tableLine('claims-single-vs-floor', `${Math.floor(singleRatio.percent)}%`, `>=${FLOOR_TARGET}%`, singleRatio.met, reference);

  // Multi-line institutional claims, on a data dir of their own.
  const multiBody = (i) => institutionalBody(claimTemplate, i);
  const multi = claimFootprint(Engine, join(work, 'trace-multi'), INSTITUTIONAL_CLOCK, multiBody);
  const bodies = Array.from({ length: M }, (_, i) => multiBody(i));
  const multiEngine = Engine.open({ dataDir: join(work, 'multi'), env: { TPA_CLOCK: INSTITUTIONAL_CLOCK, TPA_ADJUDICATION_DELAY: '0' } });
  try {
    const { seconds, floor } = pairedFloor({ ...multi, dir: work }, M, (from, to) => {
      const start = process.hrtime.bigint();
      for (let i = from; i < to; i++) submitOne(multiEngine, bodies[i]);
      return Number(process.hrtime.bigint() - start) / 1e9;
    });
    const counts = multiEngine.db.prepare('SELECT status, COUNT(*) AS n FROM encounters GROUP BY status ORDER BY status').all();
    if (counts.length !== 1 || counts[0].status !== 'ADJUDICATED' || counts[0].n !== M)
      throw new Error(`expected ${M} adjudicated multi-line claims, got ${counts.map((c) => `${c.status} ${c.n}`).join(', ')}`);
    const rate = M / seconds;
    const ratio = floorLine('claims/s', rate, floor, MULTI_FLOOR_TARGET);
    const fmt = (x) => Math.round(x).toLocaleString('en-US');
    console.log(
      `adjudication, in-process engine, ${M} institutional claims of 1 to 4 lines (the template's default lines, four payees), clock ${INSTITUTIONAL_CLOCK}, delay 0`,
    );
    console.log(`  overall:         ${fmt(rate)} claims/s (${seconds.toFixed(2)} s, all ADJUDICATED)`);
    console.log(
      `  one claim writes ${rowsPerUnit(multi.footprint).toFixed(1)} rows, ${fmt(bytesPerUnit(multi.footprint))} bytes: ${describeFootprint(multi.footprint)}`,
    );
    console.log(`  ${ratio.detail}`);
    console.log(`  against floor:   ${ratio.text}`);
  } finally {
    multiEngine.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
