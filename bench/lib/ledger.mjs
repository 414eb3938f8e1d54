// Shared by the benchmarks: the engine bundled from src/ (no build needed), distinct single-line
// claims over the seeded GRP-1001 contracts, and a ledger of N encounters built through the
// engine's own request path (POST /claims/submit/, adjudicated by the engine, nothing inserted
// behind its back).
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { storagePragmas, traceWrites } from './floor.mjs';
import { underValgrind } from './instructions.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Bundles the engine and the claim template into a temporary folder; returns their modules. */
export async function loadEngine() {
  const work = mkdtempSync(join(tmpdir(), 'tpa-bench-bundle-'));
  // The bundle lives outside the project; native addons stay external and resolve through this link.
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  await build({
    entryPoints: { engine: join(root, 'src/engine/engine.ts'), template: join(root, 'src/domain/claim-template.ts') },
    outdir: join(work, 'bundle'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'better-sqlite3-multiple-ciphers', '@napi-rs/keyring'],
    banner: { js: "import { createRequire as __tpaCreateRequire } from 'node:module'; const require = __tpaCreateRequire(import.meta.url);" },
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const { Engine } = await import(pathToFileURL(join(work, 'bundle/engine.mjs')).href);
  const { claimTemplate } = await import(pathToFileURL(join(work, 'bundle/template.mjs')).href);
  return { Engine, claimTemplate, work };
}

// Each (NPI, code) below gives one distinct claim per member and day (a line is a duplicate of a
// paid one with the same member, payee, code and service date). The facility bills institutionally
// (its own facility-fee line only); the others professionally.
const KINDS = [
  ...['45378', '45380', '43235', '00811', '00731', '88305'].map((cpt) => ({ type: 'institutional', npi: '1234567893', cpt })),
  ...['45378', '45380', '43235'].map((cpt) => ({ type: 'professional', npi: '1045782368', cpt })),
  ...['00811', '00731'].map((cpt) => ({ type: 'professional', npi: '1196382455', cpt })),
  ...['88305', '88312'].map((cpt) => ({ type: 'professional', npi: '1329475804', cpt })),
];
const MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];
const PER_DAY = KINDS.length * MEMBERS.length;
const FIRST_DAY = Date.UTC(2025, 0, 1);

/** The engine clock for a ledger of `n` claims: the day after the last service date, at noon. */
export function clockFor(n) {
  const days = Math.ceil(n / PER_DAY);
  return new Date(FIRST_DAY + days * 86_400_000 + 12 * 3_600_000).toISOString().replace('.000', '');
}

/** The JSON body of claim `i`: distinct for every i, service dates from 2025-01-01 on. */
export function claimBody(claimTemplate, i) {
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
}

/**
 * Institutional claim `i` as `tpa claim template --type institutional` prints it (the facility fee,
 * the surgeon's professional fee, anesthesia and pathology: four payees), cut in turn to its first
 * 1, 2, 3 and 4 lines; one claim per member and day from 2025-01-01, so that no line repeats a paid
 * one. At most INSTITUTIONAL_PER_DAY × 516 fit before INSTITUTIONAL_CLOCK.
 */
export function institutionalBody(claimTemplate, i) {
  const patient = MEMBERS[i % MEMBERS.length];
  const serviceDate = new Date(FIRST_DAY + Math.floor(i / MEMBERS.length) * 86_400_000).toISOString().slice(0, 10);
  const claim = claimTemplate({ type: 'institutional', patient, serviceDate });
  const lines = 1 + (i % 4);
  claim.item = claim.item.slice(0, lines);
  claim.total = { ...claim.total, value: Math.round(claim.item.reduce((sum, item) => sum + Math.round(item.net.value * 100), 0)) / 100 };
  return JSON.stringify(claim);
}
export const INSTITUTIONAL_PER_DAY = MEMBERS.length;
export const INSTITUTIONAL_CLOCK = '2026-06-01T12:00:00Z';

const SUBMIT = { method: 'POST', path: '/tpa-api/v1/claims/submit/', headers: { 'content-type': 'application/fhir+json' } };

/** Submits one claim body to an open engine; throws unless it is accepted (201). */
export function submitOne(engine, body, headers) {
  const res = engine.handle({ ...SUBMIT, ...(headers ? { headers: { ...SUBMIT.headers, ...headers } } : {}), query: new URLSearchParams(), body });
  if (res.status !== 201) throw new Error(`claim: ${res.status} ${JSON.stringify(res.body)}\n${body}`);
  return res;
}

/**
 * What one claim writes (bench/lib/floor.mjs traceWrites) and the engine's storage pragmas, from
 * `sample` claims `body(0)`, `body(1)`, … on a scratch engine with `clock` in `dir`, so that the
 * floor writes what the measured claims write.
 */
export function claimFootprint(Engine, dir, clock, body, { sample = 500, headers } = {}) {
  const engine = Engine.open({ dataDir: dir, env: { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' } });
  // `headers(i)`: more headers for claim i (a batch sends each claim with its Idempotency-Key).
  const submit = (i) => submitOne(engine, body(i), headers?.(i));
  try {
    // The first claims after the seed fill the counters' first rows: trace from the 51st on.
    for (let i = 0; i < 50; i++) submit(i);
    const footprint = traceWrites(engine.db, sample, (i) => submit(50 + i));
    return { footprint, pragmas: storagePragmas(engine.db) };
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Submits claims `from` to `to - 1` to an open engine; returns the cumulative engine seconds after
 * each claim (only the engine's work is timed: bodies are built between the timed calls).
 */
export function submitClaims(engine, claimTemplate, from, to) {
  const elapsed = new Float64Array(to - from);
  let total = 0n;
  const headers = { 'content-type': 'application/fhir+json' };
  for (let i = from; i < to; i++) {
    const body = claimBody(claimTemplate, i);
    const start = process.hrtime.bigint();
    const res = engine.handle({ method: 'POST', path: '/tpa-api/v1/claims/submit/', query: new URLSearchParams(), headers, body });
    total += process.hrtime.bigint() - start;
    if (res.status !== 201) throw new Error(`claim ${i + 1}: ${res.status} ${JSON.stringify(res.body)}\n${body}`);
    elapsed[i - from] = Number(total) / 1e9;
  }
  return elapsed;
}

/** Builds a ledger of `n` encounters in `dataDir` in a child process (build-ledger.mjs). */
export function buildLedger(dataDir, n) {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('./build-ledger.mjs', import.meta.url)), dataDir, String(n)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`building a ledger of ${n} failed (exit ${r.status})`);
}

/** Opens an engine on `dataDir` with the clock for `n` claims and no adjudication delay. */
export function openEngine(Engine, dataDir, n) {
  return Engine.open({ dataDir, env: { TPA_CLOCK: clockFor(n), TPA_ADJUDICATION_DELAY: '0' } });
}

export const fmt = (x) => Math.round(x).toLocaleString('en-US');

export const TPA_BIN = fileURLToPath(new URL('../../bin/tpa', import.meta.url));

/**
 * Starts `tpa local serve --port 0 --no-rate-limit` with `env` (its TPA_HOME the data dir) and a new
 * key; returns its URL, the key, its process id, and `stop()`. `counted`: under valgrind
 * (bench/lib/instructions.mjs underValgrind), and `stop()` then returns the server's instructions
 * (undefined when nothing is counted).
 */
export async function startServer(env, { counted = false } = {}) {
  const key = spawnSync(process.execPath, [TPA_BIN, 'local', 'keys', 'create'], { env, encoding: 'utf8' }).stdout.trim();
  const args = [TPA_BIN, 'local', 'serve', '--port', '0', '--no-rate-limit'];
  const valgrind = counted ? underValgrind(process.execPath, args) : undefined;
  const server = spawn(valgrind?.command ?? process.execPath, valgrind?.args ?? args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
    server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
    return valgrind?.count();
  };
  return { url, key, stop, pid: server.pid };
}

/** `tpa auth login --env sandbox` with `key` to the server at `url`, in the client's `env` (its TPA_HOME). */
export function loginSandbox(url, key, env) {
  const login = spawnSync(process.execPath, [TPA_BIN, 'auth', 'login', '--env', 'sandbox', '--base-url', url, '--with-key-stdin'], {
    env,
    input: key,
    encoding: 'utf8',
  });
  if (login.status !== 0) throw new Error(`auth login: ${login.stderr}`);
}

/** CPU seconds (user and system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function processCpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime and stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * A bare Node.js HTTP server (node:http, no tpa code) on loopback that reads each request's body and
 * answers `body` (a JSON text), the reference a request rate of `tpa local serve` is read against:
 * what this machine's Node serves at all, in the same run. Returns its URL and `stop()`.
 */
export async function startBareServer(body) {
  const source = `const b = process.env.TPA_BENCH_BODY; const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => { r.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(b) }); r.end(b); }); });
    s.keepAliveTimeout = 5000; s.listen(0, '127.0.0.1', () => console.log(s.address().port)); process.on('SIGTERM', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', source], { env: { ...process.env, TPA_BENCH_BODY: body }, stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`the bare server exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

const RSS_HOOK = fileURLToPath(new URL('../rss-hook.mjs', import.meta.url));

/**
 * Runs node with `args` to completion with stdout counted (never kept); returns wall seconds, stdout
 * lines, peak RSS in MB and CPU seconds (user and system; the child's own resource usage) and
 * stderr. `work` is a folder for the RSS file.
 */
export function runNode(args, env, work, what = `node ${args.join(' ')}`) {
  const rssFile = join(work, `rss-${Math.random().toString(16).slice(2)}`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, ...args], {
      env: { ...env, TPA_BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (d) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0) return reject(new Error(`${what} exited ${code}: ${err}`));
      const [rssKb, userUs, systemUs] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
      resolve({ seconds, lines, stderr: err, rssMb: rssKb / 1024, cpuSeconds: (userUs + systemUs) / 1e6 });
    });
  });
}

/** runNode of the CLI (bin/tpa with `args`). */
export function runCli(args, env, work) {
  return runNode([TPA_BIN, ...args], env, work, `tpa ${args.join(' ')}`);
}
