// The engine and the ledger at volume, on ledgers of 10,000 and 100,000 encounters built
// through the engine's own request path in a temporary TPA_HOME:
// - claims accepted and adjudicated per second, in-process, over the 100,000 (first and last 10,000);
// - one ledger page at offset 90,000 against the page at offset 0 (in-process, never the same page
//   twice, so the read cache never answers);
// - `tpa ledger list --all -o ndjson` at 10,000 and 100,000 (wall time, ratio to `node -e 0`, peak RSS
//   of the child from its own resource usage);
// - the same listing over HTTP from `tpa local serve --no-rate-limit` at 100,000.
// The claims' rate is read against its floor too (bench/lib/floor.mjs): better-sqlite3
// alone committing what one of these claims writes, with the engine's pragmas, on the same disk, in
// slices paired with the claims' (a fifth as many transactions as claims), target ≥ 45%.
// - encryption at rest: claims/s and a deep ledger page on an encrypted database against a plain one,
//   both filled in the same run in alternating slices, target ≤ 15% cost (BENCH_CIPHER_CLAIMS, default 20,000).
// Prints one line per figure with its target; exits 1 when a target is missed.
// BENCH_LEDGER=20000 builds a smaller "large" ledger for a quick look (targets still printed).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { floorLine, floorRate, openFloor } from './lib/floor.mjs';
import { claimBody, claimFootprint, clockFor, fmt, loadEngine, openEngine, loginSandbox, runCli as run, startServer, submitClaims } from './lib/ledger.mjs';
import { targets } from './lib/targets.mjs';

const LARGE = Number(process.env.BENCH_LEDGER ?? 100_000);
const SMALL = 10_000;
if (!Number.isInteger(LARGE) || LARGE < 2 * SMALL) throw new Error(`BENCH_LEDGER must be a whole number of at least ${2 * SMALL}`);
const CLOCK = clockFor(LARGE);
const FLOOR_TARGET = 45; // % of the floor
const FLOOR_SHARE = 0.2; // floor transactions per claim
const SLICE = 5000; // claims between two slices of the floor
const CIPHER_CLAIMS = Number(process.env.BENCH_CIPHER_CLAIMS ?? 20_000); // claims into each of the plain and encrypted databases
const CIPHER_SLICE = 2000; // claims into one before the other

const { Engine, claimTemplate, work } = await loadEngine();
const large = join(work, 'large');
const small = join(work, 'small');
const runCli = (args, env) => run(args, env, work);
const { figure, finish } = targets(58, 34);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

try {
  console.log(`engine at volume: ledgers of ${fmt(SMALL)} and ${fmt(LARGE)} encounters built through POST /claims/submit/ (clock ${CLOCK}, delay 0)`);

  // Claims per second, in-process, over the whole large ledger; the small ledger is a copy of its first 10,000.
  // Every SLICE claims follow a slice of the floor's transactions.
  const single = claimFootprint(Engine, join(work, 'trace'), CLOCK, (i) => claimBody(claimTemplate, i));
  floorRate({ ...single, dir: work, transactions: 1000 }); // warm-up
  const floorDb = openFloor({ ...single, dir: work });
  let floorSeconds = 0;
  let floorTransactions = 0;
  const submitInSlices = (engine, from, to) => {
    const elapsed = new Float64Array(to - from);
    let offset = 0;
    for (let start = from; start < to; start += SLICE) {
      const end = Math.min(to, start + SLICE);
      const n = Math.max(1, Math.round((end - start) * FLOOR_SHARE));
      floorSeconds += floorDb.commit(n);
      floorTransactions += n;
      const part = submitClaims(engine, claimTemplate, start, end);
      for (let i = 0; i < part.length; i++) elapsed[start - from + i] = offset + part[i];
      offset += part[part.length - 1];
    }
    return elapsed;
  };
  let engine = openEngine(Engine, large, LARGE);
  let firstPart;
  let rest;
  try {
    firstPart = submitInSlices(engine, 0, SMALL);
    engine.close();
    cpSync(large, small, { recursive: true });
    engine = openEngine(Engine, large, LARGE);
    rest = submitInSlices(engine, SMALL, LARGE);
  } finally {
    floorDb.close();
  }
  const seconds = firstPart[SMALL - 1] + rest[LARGE - SMALL - 1];
  const firstRate = SMALL / firstPart[SMALL - 1];
  const lastRate = SMALL / (rest[LARGE - SMALL - 1] - (LARGE - 2 * SMALL > 0 ? rest[LARGE - 2 * SMALL - 1] : 0));
  const counts = engine.db.prepare('SELECT status, COUNT(*) AS n FROM encounters GROUP BY status').all();
  if (engine.db.prepare('SELECT COUNT(*) FROM encounters WHERE completed_at IS NOT NULL').pluck().get() !== LARGE)
    throw new Error('not every claim was adjudicated');
  console.log(`  ledger: ${counts.map((c) => `${c.status} ${fmt(c.n)}`).join(', ')}`);
  figure(
    `claims accepted and adjudicated, in-process, over ${fmt(LARGE)}`,
    `${fmt(LARGE / seconds)}/s (${seconds.toFixed(1)} s)`,
    '≥ 5,000/s',
    LARGE / seconds >= 5000,
  );
  figure(`  first ${fmt(SMALL)} and last ${fmt(SMALL)}`, `${fmt(firstRate)}/s and ${fmt(lastRate)}/s`, 'last no slower than first', lastRate >= firstRate);
  const floorRatio = floorLine('claims/s', LARGE / seconds, { rate: floorTransactions / floorSeconds });
  figure(
    `  against floor (${fmt(floorTransactions)} transactions in slices between the claims)`,
    `${Math.floor(floorRatio.percent)}% of ${fmt(floorTransactions / floorSeconds)} tx/s`,
    `≥ ${FLOOR_TARGET}%`,
    floorRatio.percent >= FLOOR_TARGET,
  );

  // A deep page against the first one: distinct offsets, so every request runs its queries.
  const page = (offset) => {
    const start = process.hrtime.bigint();
    const res = engine.handle({
      method: 'GET',
      path: '/tpa-api/v1/ledger/entries/',
      query: new URLSearchParams({ limit: '20', offset: String(offset) }),
      headers: {},
      body: undefined,
    });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (res.status !== 200 || res.body.results.length !== 20) throw new Error(`page at ${offset}: ${res.status}`);
    return ms;
  };
  const deep = LARGE - SMALL;
  for (let i = 0; i < 50; i++) page(1000 + i); // warm-up
  const shallow = [];
  const deeper = [];
  for (let i = 0; i < 200; i++) {
    shallow.push(page(i));
    deeper.push(page(deep + i));
  }
  const ratio = median(deeper) / median(shallow);
  figure(
    `one ledger page at offset ${fmt(deep)} vs offset 0 (in-process)`,
    `${median(deeper).toFixed(3)} ms vs ${median(shallow).toFixed(3)} ms (${ratio.toFixed(2)}×)`,
    '≤ 2×',
    ratio <= 2,
  );
  engine.close();

  // Encryption at rest: the same claims into a plain and an encrypted database
  // (SQLCipher's AES-256-CBC format, engine/store/cipher.ts), in alternating slices so both see the same
  // machine; then deep ledger pages on each. Target: encryption costs at most 15%.
  {
    const n = CIPHER_CLAIMS;
    const clock = clockFor(n);
    const key = randomBytes(32);
    const env = { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' };
    const plainEngine = Engine.open({ dataDir: join(work, 'cipher-plain'), env });
    const encryptedEngine = Engine.open({ dataDir: join(work, 'cipher-encrypted'), env, databaseKey: key, createEncrypted: true });
    try {
      // Wall time and the process's CPU time per slice: on a shared machine the wall time carries
      // other processes' load, the CPU time only what encryption adds, and the target is read on it.
      let plainSeconds = 0;
      let encryptedSeconds = 0;
      let plainCpu = 0;
      let encryptedCpu = 0;
      const cpuSeconds = (fn) => {
        const before = process.cpuUsage();
        const elapsed = fn();
        const used = process.cpuUsage(before);
        return [elapsed[elapsed.length - 1], (used.user + used.system) / 1e6];
      };
      for (let start = 0; start < n; start += CIPHER_SLICE) {
        const end = Math.min(n, start + CIPHER_SLICE);
        const [p, pc] = cpuSeconds(() => submitClaims(plainEngine, claimTemplate, start, end));
        const [e, ec] = cpuSeconds(() => submitClaims(encryptedEngine, claimTemplate, start, end));
        plainSeconds += p;
        encryptedSeconds += e;
        plainCpu += pc;
        encryptedCpu += ec;
      }
      const claimCost = (1 - plainSeconds / encryptedSeconds) * 100;
      const cpuCost = (1 - plainCpu / encryptedCpu) * 100;
      figure(
        `claims/s, encrypted vs plain database (${fmt(n)} each, same slices)`,
        `${fmt(n / encryptedSeconds)}/s vs ${fmt(n / plainSeconds)}/s (${claimCost.toFixed(1)}% wall, ${cpuCost.toFixed(1)}% CPU)`,
        '≤ 15% CPU cost',
        cpuCost <= 15,
      );
      const pageOn = (e, offset) => {
        const start = process.hrtime.bigint();
        const res = e.handle({
          method: 'GET',
          path: '/tpa-api/v1/ledger/entries/',
          query: new URLSearchParams({ limit: '20', offset: String(offset) }),
          headers: {},
          body: undefined,
        });
        if (res.status !== 200 || res.body.results.length !== 20) throw new Error(`page at ${offset}: ${res.status}`);
        return Number(process.hrtime.bigint() - start) / 1e6;
      };
      const plainPages = [];
      const encryptedPages = [];
      for (let i = 0; i < 50; i++) pageOn(plainEngine, 500 + i), pageOn(encryptedEngine, 500 + i); // warm-up
      for (let i = 0; i < 200; i++) {
        plainPages.push(pageOn(plainEngine, n - 1000 + i));
        encryptedPages.push(pageOn(encryptedEngine, n - 1000 + i));
      }
      const pageCost = (median(encryptedPages) / median(plainPages) - 1) * 100;
      figure(
        `one ledger page at offset ${fmt(n - 1000)}, encrypted vs plain`,
        `${median(encryptedPages).toFixed(3)} ms vs ${median(plainPages).toFixed(3)} ms (${pageCost.toFixed(1)}% cost)`,
        '≤ 15% cost',
        pageCost <= 15,
      );
    } finally {
      plainEngine.close();
      encryptedEngine.close();
    }
  }

  // The CLI listing, in-process, at both sizes.
  const base = { ...process.env, TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
  delete base.TPA_PROFILE;
  const node = [];
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    node.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  const nodeSeconds = median(node);
  const listing = {};
  for (const [name, home, n] of [
    ['10k', small, SMALL],
    ['large', large, LARGE],
  ]) {
    const r = await runCli(['ledger', 'list', '--all', '-o', 'ndjson'], { ...base, TPA_HOME: home });
    if (r.lines !== n) throw new Error(`ledger list --all printed ${r.lines} lines for ${n} encounters`);
    listing[name] = r;
  }
  const s = listing['10k'];
  const l = listing.large;
  figure(
    `tpa ledger list --all -o ndjson, ${fmt(SMALL)} encounters`,
    `${s.seconds.toFixed(2)} s (${(s.seconds / nodeSeconds).toFixed(0)}× node -e 0), ${s.rssMb.toFixed(0)} MB`,
    '≤ 1.5 s, ≤ 80 MB',
    s.seconds <= 1.5 && s.rssMb <= 80,
  );
  figure(
    `tpa ledger list --all -o ndjson, ${fmt(LARGE)} encounters`,
    `${l.seconds.toFixed(2)} s (${(l.seconds / nodeSeconds).toFixed(0)}× node -e 0), ${l.rssMb.toFixed(0)} MB`,
    '≤ 10 s, ≤ 80 MB, RSS within 10% of 10,000',
    l.seconds <= 10 && l.rssMb <= 80 && l.rssMb <= s.rssMb * 1.1,
  );

  // The finance desk's report over the whole large ledger, in-process.
  const report = await runCli(['settlement', 'report', '--from', '2000-01-01', '--to', '2100-12-31', '-o', 'json'], { ...base, TPA_HOME: large });
  figure(`tpa settlement report, ${fmt(LARGE)} encounters`, `${report.seconds.toFixed(2)} s, ${report.rssMb.toFixed(0)} MB`, '≤ 10 s', report.seconds <= 10);

  // The same listing over HTTP from local serve.
  const { url, key, stop } = await startServer({ ...base, TPA_HOME: large });
  try {
    const client = mkdtempSync(join(tmpdir(), 'tpa-bench-client-'));
    loginSandbox(url, key, { ...base, TPA_HOME: client });
    const r = await runCli(['ledger', 'list', '--all', '-o', 'ndjson', '--profile', 'sandbox'], { ...base, TPA_HOME: client });
    if (r.lines !== LARGE) throw new Error(`ledger list --all over HTTP printed ${r.lines} lines for ${LARGE} encounters`);
    figure(
      `tpa ledger list --all -o ndjson over HTTP (local serve), ${fmt(LARGE)}`,
      `${r.seconds.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`,
      '≤ 30 s',
      r.seconds <= 30,
    );
    rmSync(client, { recursive: true, force: true });
  } finally {
    await stop();
  }
  finish();
} finally {
  rmSync(work, { recursive: true, force: true });
}
