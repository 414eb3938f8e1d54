// Claims accepted and adjudicated per second by the embedded engine, in-process (no HTTP): N
// claims (BENCH_CLAIMS, default 10,000) through POST /claims/submit/ on a fresh data dir, clock
// frozen, adjudication delay 0, then every adjudication completed. The engine and the claim
// template are bundled from src/ with esbuild on the fly, so no build is needed. Prints the
// figures, and the rate over the first and last 10% to show whether it slows as the ledger grows.
// Exits 1 if a claim is refused or left incomplete; the throughput target is reported only.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const N = Number(process.env.BENCH_CLAIMS ?? 10_000);
const TARGET = 5000; // claims/s, set by a later issue; not enforced yet
const CLOCK = '2026-06-01T12:00:00Z';
const root = fileURLToPath(new URL('..', import.meta.url));

if (!Number.isInteger(N) || N < 10) throw new Error(`BENCH_CLAIMS must be a whole number of at least 10 (got "${process.env.BENCH_CLAIMS}")`);

// Single-line claims over the seeded GRP-1001 contracts, none needing preauthorization. A line is
// a duplicate of a paid one with the same member, payee, code and service date, so each (NPI,
// code) below gives one distinct claim per member and day. The facility bills institutionally (its own
// facility-fee line only); the others professionally.
const KINDS = [
  ...['45378', '45380', '43235', '00811', '00731', '88305'].map((cpt) => ({ type: 'institutional', npi: '1234567893', cpt })),
  ...['45378', '45380', '43235'].map((cpt) => ({ type: 'professional', npi: '1045782368', cpt })),
  ...['00811', '00731'].map((cpt) => ({ type: 'professional', npi: '1196382455', cpt })),
  ...['88305', '88312'].map((cpt) => ({ type: 'professional', npi: '1329475804', cpt })),
];
const MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];
const FIRST_DAY = Date.UTC(2025, 0, 1);
const LAST_DAY = Date.UTC(2026, 4, 31);
const PER_DAY = KINDS.length * MEMBERS.length;
const capacity = PER_DAY * ((LAST_DAY - FIRST_DAY) / 86_400_000 + 1);
if (N > capacity) throw new Error(`BENCH_CLAIMS=${N}: at most ${capacity} distinct claims fit between 2025-01-01 and 2026-05-31`);

const work = mkdtempSync(join(tmpdir(), 'tpa-bench-adjudication-'));
try {
  // The bundle lives outside the project; native addons stay external and resolve through this link.
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  await build({
    entryPoints: { engine: join(root, 'src/engine/engine.ts'), template: join(root, 'src/cli/claim-template.ts') },
    outdir: join(work, 'bundle'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', '@napi-rs/keyring'],
    banner: { js: "import { createRequire as __tpaCreateRequire } from 'node:module'; const require = __tpaCreateRequire(import.meta.url);" },
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const { Engine } = await import(pathToFileURL(join(work, 'bundle/engine.mjs')).href);
  const { claimTemplate } = await import(pathToFileURL(join(work, 'bundle/template.mjs')).href);

  const claimBody = (i) => {
    const kind = KINDS[i % KINDS.length];
    const patient = MEMBERS[Math.floor(i / KINDS.length) % MEMBERS.length];
    const serviceDate = new Date(FIRST_DAY + Math.floor(i / PER_DAY) * 86_400_000).toISOString().slice(0, 10);
    const claim = claimTemplate({ type: kind.type, npi: kind.npi, cpt: [kind.cpt], patient, serviceDate });
    if (kind.type === 'institutional') {
      // The template adds the surgeon's professional fee as a second line: keep the facility fee only.
      claim.item = claim.item.slice(0, 1);
      claim.total = { ...claim.total, value: claim.item[0].net.value };
    }
    return JSON.stringify(claim);
  };

  const engine = Engine.open({ dataDir: join(work, 'data'), env: { TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0' } });
  const call = (method, path, body, headers = {}) => {
    const url = new URL(path, 'http://local');
    return engine.handle({ method, path: url.pathname, query: url.searchParams, headers, body });
  };
  try {
    // Only the engine's work is timed: the bodies are built between the timed calls. With a delay
    // of 0 each request first completes the adjudications due (the previous claim's), so submission
    // i+1 pays for completing claim i; one ledger request at the end completes the last one.
    const elapsed = new Float64Array(N); // cumulative engine seconds after claim i
    let total = 0n;
    const wallStart = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      const body = claimBody(i);
      const start = process.hrtime.bigint();
      const res = call('POST', '/tpa-api/v1/claims/submit/', body, { 'content-type': 'application/fhir+json' });
      total += process.hrtime.bigint() - start;
      if (res.status !== 201) throw new Error(`claim ${i + 1} of ${N}: ${res.status} ${JSON.stringify(res.body)}\n${body}`);
      elapsed[i] = Number(total) / 1e9;
    }
    const start = process.hrtime.bigint();
    const page = call('GET', '/tpa-api/v1/ledger/entries/?limit=1');
    total += process.hrtime.bigint() - start;
    if (page.status !== 200) throw new Error(`ledger: ${page.status} ${JSON.stringify(page.body)}`);
    const seconds = Number(total) / 1e9;
    const wall = Number(process.hrtime.bigint() - wallStart) / 1e9;

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
    console.log(`  engine time:     ${seconds.toFixed(2)} s (submits plus the final completing request; body building excluded; ${wall.toFixed(2)} s wall with it)`);
    console.log(`  overall:         ${fmt(rate)} claims/s`);
    console.log(`  ${`first ${tenth}:`.padEnd(17)}${fmt(firstRate)} claims/s`);
    console.log(`  ${`last ${tenth}:`.padEnd(17)}${fmt(lastRate)} claims/s (${((lastRate / firstRate) * 100).toFixed(0)}% of the first)`);
    console.log(`  peak RSS:        ${rssMb.toFixed(0)} MB`);
    console.log(`  target:          ≥ ${fmt(TARGET)} claims/s (not enforced yet): ${rate >= TARGET ? 'met' : 'not met'}`);
    console.log(
      `adjudication: ${N} claims in ${seconds.toFixed(1)} s, ${fmt(rate)} claims/s (first ${tenth}: ${fmt(firstRate)}/s, last ${tenth}: ${fmt(lastRate)}/s), peak RSS ${rssMb.toFixed(0)} MB`,
    );
  } finally {
    engine.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
