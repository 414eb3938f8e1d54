// Throughput of `tpa local serve --no-rate-limit` (target: at least 3,000 requests/s for a ledger
// page with p99 under 50 ms on this 2-core machine): 50 connections for 10 s from autocannon on
// loopback, for a blind lookup and a ledger page of 20 entries. Then pages of 20 never
// seen before, a different offset for every request, on a ledger of 100,000 encounters built
// through the engine (BENCH_LEDGER to change the size): at least 3,000 requests/s with p99 at most
// 20 ms, the read cache bypassed by construction, after 2 s of the same traffic to warm the server.
// Each rate is printed beside a reference of the same run: a bare Node.js HTTP server
// (node:http, no tpa code) answering the same bytes to the same load, for as long.
// Prints the figures; exits 1 if a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildLedger, clockFor, fmt, startBareServer, startServer, TPA_BIN as bin } from './lib/ledger.mjs';

/** autocannon against a bare node:http server answering `body`: the reference rate of the same run. */
async function bareRate(body, connections, duration) {
  const bare = await startBareServer(body);
  try {
    const result = await new Promise((resolve, reject) =>
      autocannon({ url: `${bare.url}/`, connections, duration }, (err, r) => (err ? reject(err) : resolve(r))),
    );
    return result.requests.average;
  } finally {
    await bare.stop();
  }
}

const home = mkdtempSync(join(tmpdir(), 'tpa-bench-server-'));
const env = { ...process.env, TPA_HOME: home, TPA_ADJUDICATION_DELAY: '0' };
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

const { url, key, stop } = await startServer(env);
const headers = { 'x-api-key': key, 'content-type': 'application/json' };

try {
  // A ledger worth paging: 300 claims for members and dates that do not repeat.
  const template = JSON.parse(spawnSync(process.execPath, [bin, 'claim', 'template', '--type', 'institutional'], { env, encoding: 'utf8' }).stdout);
  for (let i = 0; i < 300; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    for (const item of template.item) item.servicedDate = day;
    template.patient.reference = `Patient/MBR-100${1 + (i % 4)}`;
    const res = await fetch(`${url}/tpa-api/v1/claims/submit/`, { method: 'POST', headers, body: JSON.stringify(template) });
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
  }

  const run = (title, opts) =>
    new Promise((resolve, reject) =>
      autocannon(
        {
          url: `${url}${opts.path}`,
          method: opts.method ?? 'GET',
          headers,
          body: opts.body,
          connections: CONNECTIONS,
          duration: DURATION,
          ...(opts.requests ? { requests: opts.requests } : {}),
        },
        (err, result) => (err ? reject(err) : resolve({ title, result })),
      ),
    );
  // Pages the read cache has not seen: a random offset and page size for every request.
  let n = 0;
  const varied = [{ setupRequest: (req) => ({ ...req, path: `/tpa-api/v1/ledger/entries/?limit=${1 + (n % 100)}&offset=${(n++ * 7) % 300}` }) }];
  const results = [
    await run('blind lookup (POST)', {
      path: '/tpa-api/v1/contract-lookup/blind/',
      method: 'POST',
      body: JSON.stringify({ npi: '1045782368', group_id: 'GRP-1001', cpt_codes: ['45378'] }),
    }),
    await run('ledger page of 20 (GET)', { path: '/tpa-api/v1/ledger/entries/?limit=20' }),
    await run('ledger page, filtered (GET)', { path: '/tpa-api/v1/ledger/entries/?status=ADJUDICATED&provider_npi=1196382455&limit=20' }),
    await run('ledger pages, all different', { path: '/tpa-api/v1/ledger/entries/', requests: varied }),
  ];
  const pageBody = await (await fetch(`${url}/tpa-api/v1/ledger/entries/?limit=20`, { headers })).text();
  const reference = await bareRate(pageBody, CONNECTIONS, DURATION);
  console.log(`tpa local serve --no-rate-limit, ${CONNECTIONS} connections, ${DURATION}s each, 300 encounters in the ledger`);
  let missed = false;
  for (const { title, result } of results) {
    const rps = result.requests.average;
    const errors = result.errors + result.non2xx;
    console.log(
      `  ${title.padEnd(30)} ${rps.toFixed(0).padStart(6)} req/s = ${Math.floor((rps / reference) * 100)
        .toString()
        .padStart(
          2,
        )}% of bare node:http   p50 ${String(result.latency.p50).padStart(3)} ms   p99 ${String(result.latency.p99).padStart(3)} ms   ${errors} errors`,
    );
    if (title.startsWith('ledger page of 20') && (rps < 3000 || result.latency.p99 >= 50 || errors > 0)) missed = true;
  }
  console.log(`  target: ledger page ≥ 3,000 req/s with p99 < 50 ms: ${missed ? 'MISSED' : 'ok'}`);
  console.log('  (a page is answered from the read cache until the ledger changes; "all different" shows the uncached cost)');
  console.log(`  reference: a bare node:http server answering the page's ${fmt(Buffer.byteLength(pageBody))} bytes, same load: ${fmt(reference)} req/s`);
  process.exitCode = missed ? 1 : 0;
} finally {
  await stop();
  rmSync(home, { recursive: true, force: true });
}

// Uncached pages of 20 on a large ledger.
const LARGE = Number(process.env.BENCH_LEDGER ?? 100_000);
const work = mkdtempSync(join(tmpdir(), 'tpa-bench-server-large-'));
try {
  buildLedger(work, LARGE);
  const big = await startServer({ ...env, TPA_HOME: work, TPA_CLOCK: clockFor(LARGE) });
  try {
    // A different offset for every request (a stride prime to the ledger size), so no page repeats
    // within the run and the read cache never answers.
    // The stride is prime to LARGE - 20, so the offsets repeat only after that many requests.
    let k = 0;
    const requests = [{ setupRequest: (req) => ({ ...req, path: `/tpa-api/v1/ledger/entries/?limit=20&offset=${(k++ * 7919) % (LARGE - 20)}` }) }];
    const pages = (seconds) =>
      new Promise((resolve, reject) =>
        autocannon(
          { url: `${big.url}/tpa-api/v1/ledger/entries/`, headers: { 'x-api-key': big.key }, connections: CONNECTIONS, duration: seconds, requests },
          (err, r) => (err ? reject(err) : resolve(r)),
        ),
      );
    // A server in operation is warm: 2 s of the same traffic first, not counted (its first requests
    // compile the code and read the indexes from disk). The sequence of offsets goes on from there,
    // so the counted pages are still never seen before.
    await pages(2);
    const result = await pages(DURATION);
    if (k > LARGE - 20) throw new Error(`the offsets repeated (${k} requests for ${LARGE - 20} offsets)`);
    const rps = result.requests.average;
    const errors = result.errors + result.non2xx;
    const ok = rps >= 3000 && result.latency.p99 <= 20 && errors === 0;
    const pageBody = await (await fetch(`${big.url}/tpa-api/v1/ledger/entries/?limit=20&offset=${LARGE - 40}`, { headers: { 'x-api-key': big.key } })).text();
    const reference = await bareRate(pageBody, CONNECTIONS, DURATION);
    console.log(`tpa local serve --no-rate-limit, ${CONNECTIONS} connections, ${DURATION}s after 2s of warm-up, ${fmt(LARGE)} encounters in the ledger`);
    console.log(
      `  ledger pages of 20, never seen before ${rps.toFixed(0).padStart(6)} req/s = ${Math.floor((rps / reference) * 100)}% of bare node:http (${fmt(reference)} req/s for the same ${fmt(Buffer.byteLength(pageBody))} bytes)   p50 ${String(result.latency.p50).padStart(3)} ms   p99 ${String(result.latency.p99).padStart(3)} ms   ${errors} errors`,
    );
    console.log(`  target: ≥ 3,000 req/s with p99 ≤ 20 ms, uncached: ${ok ? 'ok' : 'MISSED'}`);
    if (!ok) process.exitCode = 1;
  } finally {
    await big.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
