// Batches: 10,000 claims from one NDJSON file submitted by one `tpa claim submit` to the
// embedded engine (target ≥ 2,000 claims/s end to end, start-up included, peak RSS ≤ 100 MB) and to
// `tpa local serve --no-rate-limit` with the default concurrency (≥ 1,000 claims/s); then a
// payment run of 1,000 encounters in-process (≤ 5 s, start-up, selection and review included).
// Read as ratios: the batch over HTTP against the in-process batch of the same run (≥ 85%:
// the in-process batch runs before and after the HTTP one, and the HTTP rate is read against their
// mean), and the in-process rate against its floor (≥ 35%; bench/lib/floor.mjs: better-sqlite3 alone
// committing what one batch claim writes, its Idempotency-Key included, before and after, one
// transaction a claim). Claims sent together share one commit on both sides (group commit,
// src/engine/group-commit.ts). The CPU each side spends per claim is printed beside (the client's
// and the server's from their own usage): a figure that moves neither with the disk nor with
// SQLite's speed on another machine.
// Beside both ratios, the CPU-bound reference (the table's lines, TABLE batch-in-process-vs-floor and
// batch-serve-vs-in-process): the instructions a batch claim costs, counted by valgrind between 300
// and 1,000 claims (BENCH_COUNT_CLAIMS) in-process, over local serve (the client and the server each
// counted, summed) and in a floor transaction (bench/lib/claim-instructions.mjs).
// BENCH_CLAIMS changes the batch size. Prints the figures; exits 1 if a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { againstFloorText, CLAIMS_COUNTED, floorInstructions, thousands } from './lib/claim-instructions.mjs';
import { floorLine, floorRate } from './lib/floor.mjs';
import { instructions, notCounted, perUnit, valgrindAvailable } from './lib/instructions.mjs';
import { claimBody, claimFootprint, clockFor, fmt, loadEngine, loginSandbox, processCpuSeconds, runCli, startServer, TPA_BIN as bin } from './lib/ledger.mjs';
import { tableLine, targets } from './lib/targets.mjs';

const N = Number(process.env.BENCH_CLAIMS ?? 10_000);
const RUN = 1000;
const HTTP_TARGET = 85; // % of the in-process batch in the same run
const FLOOR_TARGET = 35; // % of the floor, in-process
if (valgrindAvailable() && N < CLAIMS_COUNTED[1])
  throw new Error(`BENCH_CLAIMS must be at least BENCH_COUNT_CLAIMS (${CLAIMS_COUNTED[1]}): the counts take the batch's first claims`);
const { Engine, claimTemplate, work } = await loadEngine();
const { figure, finish } = targets(62, 30);

/**
 * Instructions of one `tpa claim submit` of the first `n` claims of `lines`: in-process, and over a
 * local serve started for it (the client's and the server's, the server's start and login included).
 */
async function countBatch(lines, n, base) {
  const file = join(work, `count-${n}.ndjson`);
  writeFileSync(file, `${lines.slice(0, n).join('\n')}\n`);
  const home = (name) => {
    const dir = join(work, `count-${name}-${n}`);
    mkdirSync(dir);
    return { ...base, TPA_HOME: dir };
  };
  const submit = ['claim', 'submit', file, '-o', 'ndjson'];
  const inProcess = instructions(process.execPath, [bin, ...submit, '--journal', join(work, `count-local-${n}.journal`)], { env: home('local') });
  const server = await startServer(home('served'), { counted: true });
  const clientEnv = home('client');
  let client;
  let served;
  try {
    loginSandbox(server.url, server.key, clientEnv);
    client = instructions(process.execPath, [bin, ...submit, '--profile', 'sandbox', '--journal', join(work, `count-http-${n}.journal`)], { env: clientEnv });
  } finally {
    served = await server.stop();
  }
  return { inProcess, client, server: served };
}

/** The references of both ratios: instructions a claim, CLAIMS_COUNTED[0] + 1 to CLAIMS_COUNTED[1], against the floor's a transaction. */
async function batchReferences(lines, base, footprint) {
  if (!valgrindAvailable()) return { floor: notCounted(), served: notCounted() };
  const [a, b] = [await countBatch(lines, CLAIMS_COUNTED[0], base), await countBatch(lines, CLAIMS_COUNTED[1], base)];
  const per = (k) => perUnit(a[k], b[k], ...CLAIMS_COUNTED);
  const [inProcess, client, server] = [per('inProcess'), per('client'), per('server')];
  return {
    floor: againstFloorText(floorInstructions(footprint, work, CLAIMS_COUNTED), inProcess, 'tpa claim submit in-process', CLAIMS_COUNTED),
    served: `instructions ${Math.floor((inProcess / (client + server)) * 100)}% (in-process ${thousands(inProcess)} / client ${thousands(client)} + server ${thousands(server)} a claim, claims ${CLAIMS_COUNTED[0] + 1} to ${CLAIMS_COUNTED[1]}; client and server run side by side, so the time ratio may pass it)`,
  };
}

try {
  const file = join(work, 'claims.ndjson');
  const lines = [];
  for (let i = 0; i < N; i++) lines.push(claimBody(claimTemplate, i));
  writeFileSync(file, `${lines.join('\n')}\n`);
  const base = { ...process.env, TPA_CLOCK: clockFor(N), TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
  delete base.TPA_PROFILE;
  console.log(`claim batches: ${fmt(N)} distinct claims in one NDJSON file; payment run of ${fmt(RUN)} encounters`);

  // What one batch claim writes: the claim, and its Idempotency-Key with the answer to replay.
  const footprint = claimFootprint(Engine, join(work, 'trace'), clockFor(N), (i) => claimBody(claimTemplate, i), {
    headers: (i) => ({ 'idempotency-key': `bench-${i}` }),
  });
  const floors = [];
  // The floor's CPU a transaction (this process's own usage): beside the wall-clock ratio, one that
  // holds on a machine whose other work takes the cores (a batch's CPU a claim against it).
  const floorCpu = [];
  const floor = () => {
    const transactions = Math.min(N, 5000);
    const before = process.cpuUsage();
    floors.push(floorRate({ ...footprint, dir: work, transactions }).rate);
    const used = process.cpuUsage(before);
    floorCpu.push((used.user + used.system) / transactions);
  };
  floorRate({ ...footprint, dir: work, transactions: 1000 }); // warm-up

  // In-process, before and after the batch over HTTP (each on a new data dir), so that both see the load of the moment.
  const inProcessRun = async (name) => {
    const local = join(work, name);
    mkdirSync(local);
    const r = await runCli(['claim', 'submit', file, '-o', 'ndjson', '--journal', join(work, `${name}.journal`)], { ...base, TPA_HOME: local }, work);
    if (r.lines !== N) throw new Error(`claim submit printed ${r.lines} lines for ${N} claims: ${r.stderr}`);
    return r;
  };
  floor();
  const first = await inProcessRun('local');
  const env = { ...base, TPA_HOME: join(work, 'local') };
  const rate = N / first.seconds;
  figure(
    `tpa claim submit, ${fmt(N)} claims, embedded engine`,
    `${fmt(rate)}/s (${first.seconds.toFixed(2)} s), ${first.rssMb.toFixed(0)} MB`,
    '≥ 2,000/s, ≤ 100 MB',
    rate >= 2000 && first.rssMb <= 100,
  );

  // Over HTTP, from local serve without rate limits, with the default concurrency.
  const served = join(work, 'served');
  const client = join(work, 'client');
  mkdirSync(served);
  mkdirSync(client);
  const server = await startServer({ ...base, TPA_HOME: served });
  let http;
  let serverCpu;
  try {
    loginSandbox(server.url, server.key, { ...base, TPA_HOME: client });
    const cpuBefore = processCpuSeconds(server.pid);
    http = await runCli(
      ['claim', 'submit', file, '-o', 'ndjson', '--profile', 'sandbox', '--journal', join(work, 'http.journal')],
      { ...base, TPA_HOME: client },
      work,
    );
    const cpuAfter = processCpuSeconds(server.pid);
    serverCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    if (http.lines !== N) throw new Error(`claim submit over HTTP printed ${http.lines} lines for ${N} claims: ${http.stderr}`);
    const httpRate = N / http.seconds;
    figure(
      `tpa claim submit, ${fmt(N)} claims, local serve (concurrency 10)`,
      `${fmt(httpRate)}/s (${http.seconds.toFixed(2)} s), ${http.rssMb.toFixed(0)} MB`,
      '≥ 1,000/s',
      httpRate >= 1000,
    );
  } finally {
    await server.stop();
  }
  const second = await inProcessRun('local-again');
  floor();

  // The ratios of the same run.
  const inProcessRate = (2 * N) / (first.seconds + second.seconds);
  const httpRate = N / http.seconds;
  const ratio = (httpRate / inProcessRate) * 100;
  figure(
    `  over HTTP against in-process (${fmt(N / first.seconds)}/s before, ${fmt(N / second.seconds)}/s after)`,
    `${Math.floor(ratio)}% (${fmt(httpRate)} of ${fmt(inProcessRate)}/s)`,
    `≥ ${HTTP_TARGET}%`,
    ratio >= HTTP_TARGET,
  );
  const us = (seconds) => `${fmt((seconds / N) * 1e6)} µs`;
  console.log(
    `  CPU a claim: in-process ${us((first.cpuSeconds + second.cpuSeconds) / 2)}; over HTTP client ${us(http.cpuSeconds)}${serverCpu === undefined ? '' : ` + server ${us(serverCpu)}`} (start-up included)`,
  );
  const inFloor = floorLine('claims/s', inProcessRate, { rate: floors.reduce((a, b) => a + b, 0) / floors.length });
  figure(
    `  in-process against floor (${floors.map(fmt).join(' and ')} tx/s before and after)`,
    `${Math.floor(inFloor.percent)}% (${fmt(inProcessRate)} claims/s)`,
    `≥ ${FLOOR_TARGET}%`,
    inFloor.percent >= FLOOR_TARGET,
  );
  const claimCpuUs = (((first.cpuSeconds + second.cpuSeconds) / 2) * 1e6) / N;
  const floorCpuUs = floorCpu.reduce((a, b) => a + b, 0) / floorCpu.length;
  console.log(
    `    by CPU: ${Math.floor((floorCpuUs / claimCpuUs) * 100)}% (the floor's ${fmt(floorCpuUs)} µs a transaction against ${fmt(claimCpuUs)} µs a claim, start-up included; no target)`,
  );

  // A payment run of 1,000 encounters, in-process, on the ledger the first batch built.
  const dry = spawnSync(process.execPath, [bin, 'fund', 'run', '--dry-run', '--limit', String(RUN), '-o', 'json'], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (dry.status !== 0) throw new Error(`fund run --dry-run: ${dry.stderr}`);
  const review = JSON.parse(dry.stdout);
  if (review.count !== RUN) throw new Error(`only ${review.count} encounters to fund`);
  const run = await runCli(
    ['fund', 'run', '--limit', String(RUN), '--auth-code-prefix', 'AUTH-BENCH', '--expect-total', review.total, '--yes', '-o', 'ndjson'],
    env,
    work,
  );
  if (run.lines !== RUN) throw new Error(`fund run printed ${run.lines} lines: ${run.stderr}`);
  figure(`tpa fund run, ${fmt(RUN)} encounters, embedded engine`, `${run.seconds.toFixed(2)} s, ${run.rssMb.toFixed(0)} MB`, '≤ 5 s', run.seconds <= 5);

  const references = await batchReferences(lines, base, footprint);
  console.log(`  counted, in-process against floor: ${references.floor}`);
  console.log(`  counted, over HTTP against in-process: ${references.served}`);
  tableLine('batch-in-process-vs-floor', `${Math.floor(inFloor.percent)}%`, `>=${FLOOR_TARGET}%`, inFloor.percent >= FLOOR_TARGET, references.floor);
  tableLine('batch-serve-vs-in-process', `${Math.floor(ratio)}%`, `>=${HTTP_TARGET}%`, ratio >= HTTP_TARGET, references.served);

  finish();
} finally {
  rmSync(work, { recursive: true, force: true });
}
