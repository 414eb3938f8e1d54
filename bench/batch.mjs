// Batches (issue 12): 10,000 claims from one NDJSON file submitted by one `tpa claim submit` to the
// embedded engine (target ≥ 2,000 claims/s end to end, start-up included, peak RSS ≤ 100 MB) and to
// `tpa local serve --no-rate-limit` with the default concurrency (≥ 1,000 claims/s); then a
// payment run of 1,000 encounters in-process (≤ 5 s, start-up, selection and review included).
// BENCH_CLAIMS changes the batch size. Prints the figures; exits 1 if a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimBody, clockFor, fmt, loadEngine, runCli, startServer, TPA_BIN as bin } from './lib/ledger.mjs';

const N = Number(process.env.BENCH_CLAIMS ?? 10_000);
const RUN = 1000;
const { claimTemplate, work } = await loadEngine();
const results = [];
const figure = (name, value, target, met) => {
  results.push(met);
  console.log(`  ${name.padEnd(62)} ${value.padEnd(30)} target ${target}: ${met ? 'ok' : 'MISSED'}`);
};

try {
  const file = join(work, 'claims.ndjson');
  const lines = [];
  for (let i = 0; i < N; i++) lines.push(claimBody(claimTemplate, i));
  writeFileSync(file, `${lines.join('\n')}\n`);
  const base = { ...process.env, TPA_CLOCK: clockFor(N), TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
  delete base.TPA_PROFILE;
  console.log(`claim batches: ${fmt(N)} distinct claims in one NDJSON file; payment run of ${fmt(RUN)} encounters`);

  // In-process.
  const local = join(work, 'local');
  mkdirSync(local);
  const env = { ...base, TPA_HOME: local };
  const inProcess = await runCli(['claim', 'submit', file, '-o', 'ndjson', '--journal', join(work, 'local.journal')], env, work);
  if (inProcess.lines !== N) throw new Error(`claim submit printed ${inProcess.lines} lines for ${N} claims: ${inProcess.stderr}`);
  const rate = N / inProcess.seconds;
  figure(`tpa claim submit, ${fmt(N)} claims, embedded engine`, `${fmt(rate)}/s (${inProcess.seconds.toFixed(2)} s), ${inProcess.rssMb.toFixed(0)} MB`, '≥ 2,000/s, ≤ 100 MB', rate >= 2000 && inProcess.rssMb <= 100);

  // Over HTTP, from local serve without rate limits, with the default concurrency.
  const served = join(work, 'served');
  const client = join(work, 'client');
  mkdirSync(served);
  mkdirSync(client);
  const server = await startServer({ ...base, TPA_HOME: served });
  try {
    const login = spawnSync(process.execPath, [bin, 'auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { env: { ...base, TPA_HOME: client }, input: server.key, encoding: 'utf8' });
    if (login.status !== 0) throw new Error(`auth login: ${login.stderr}`);
    const http = await runCli(['claim', 'submit', file, '-o', 'ndjson', '--profile', 'sandbox', '--journal', join(work, 'http.journal')], { ...base, TPA_HOME: client }, work);
    if (http.lines !== N) throw new Error(`claim submit over HTTP printed ${http.lines} lines for ${N} claims: ${http.stderr}`);
    const httpRate = N / http.seconds;
    figure(`tpa claim submit, ${fmt(N)} claims, local serve (concurrency 10)`, `${fmt(httpRate)}/s (${http.seconds.toFixed(2)} s), ${http.rssMb.toFixed(0)} MB`, '≥ 1,000/s', httpRate >= 1000);
  } finally {
    await server.stop();
  }

  // A payment run of 1,000 encounters, in-process, on the ledger the first batch built.
  const dry = spawnSync(process.execPath, [bin, 'fund', 'run', '--dry-run', '--limit', String(RUN), '-o', 'json'], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (dry.status !== 0) throw new Error(`fund run --dry-run: ${dry.stderr}`);
  const review = JSON.parse(dry.stdout);
  if (review.count !== RUN) throw new Error(`only ${review.count} encounters to fund`);
  const run = await runCli(['fund', 'run', '--limit', String(RUN), '--auth-code-prefix', 'AUTH-BENCH', '--expect-total', review.total, '--yes', '-o', 'ndjson'], env, work);
  if (run.lines !== RUN) throw new Error(`fund run printed ${run.lines} lines: ${run.stderr}`);
  figure(`tpa fund run, ${fmt(RUN)} encounters, embedded engine`, `${run.seconds.toFixed(2)} s, ${run.rssMb.toFixed(0)} MB`, '≤ 5 s', run.seconds <= 5);

  const missed = results.filter((ok) => !ok).length;
  console.log(`  ${missed === 0 ? 'every target met' : `${missed} target(s) MISSED`}`);
  process.exitCode = missed === 0 ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
