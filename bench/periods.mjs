// A period's figures at volume (docs/periods.md "How far back"): complete by default, so a month's
// report, 835s and activity read every entry of the ledger up to the month. On a ledger of
// BENCH_PERIODS encounters (default 100,000) built through the engine's request path
// (bench/lib/build-ledger.mjs: service dates from 2025-01-01, 52 a day) and funded through it over
// BENCH_PERIODS_DAYS days after (default 420, about 14 months: bench/lib/fund-ledger.mjs, with
// failures, funding again and refunds), the month in the middle of the funding:
// - `settlement report --from --to --by funded -o json`,
// - `settlement remit --from --to --out <file>`,
// - `activity --from --to -o json`,
// each in-process and over `tpa local serve --no-rate-limit` (its limits off: the service's own, 100
// ledger pages a minute, would pace 1,000 pages to 10 minutes, which measures the pacing, not tpa),
// beside `ledger list --all -o ndjson` of the same ledger on the same transport in the same run (the
// floor: reading every entry at all). Time and peak RSS of each. Targets, on each transport: within
// 3× the floor's time plus what the per-encounter reads cost (a settlement record for each transfer
// of the month, and for the 835 a ledger detail too) at the floor's own time per page; peak RSS
// within 4× the floor's; the report's own peak RSS ≤ 120 MB (it holds its figures, never the period's
// entries). Then the same ledger copied to BENCH_PERIODS_LARGE encounters (default 1,000,000, a whole
// multiple of BENCH_PERIODS up to 10×; 0 skips it) by bench/lib/multiply-ledger.mjs, and the report
// of the same month, in-process, again ≤ 120 MB: the memory is flat in the ledger's size. Both
// in-process peaks are the table's (TABLE report-peak-100k, report-peak-1m), each beside the peak RSS
// of `node -e 0` (the reference: memory does not move with load as time does; at 100,000 the
// in-process listing's too). Exits 1 when one is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLedger, clockFor, fmt, loginSandbox, runCli, runNode, startServer, TPA_BIN as bin } from './lib/ledger.mjs';
import { tableLine, targets } from './lib/targets.mjs';

const N = Number(process.env.BENCH_PERIODS ?? 100_000);
const DAYS = Number(process.env.BENCH_PERIODS_DAYS ?? 420);
const LARGE = Number(process.env.BENCH_PERIODS_LARGE ?? 1_000_000);
/** The report's peak RSS at any size of ledger. */
const REPORT_RSS_MB = 120;
if (!Number.isInteger(N) || N < 1000) throw new Error('BENCH_PERIODS must be a whole number of at least 1,000');
if (!Number.isInteger(DAYS) || DAYS < 62) throw new Error('BENCH_PERIODS_DAYS must be a whole number of at least 62');
if (LARGE !== 0 && !(Number.isInteger(LARGE / N) && LARGE / N >= 2 && LARGE / N <= 10))
  throw new Error('BENCH_PERIODS_LARGE must be 0 or 2 to 10 times BENCH_PERIODS');
const work = mkdtempSync(join(tmpdir(), 'tpa-bench-periods-'));
const { figure, finish } = targets(62, 34);
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;
/** The peak RSS of `node -e 0` on this Node (MB), measured once: the reference beside the report's. */
let bareNodeMb;
const bareNode = async () => {
  bareNodeMb ??= (await runNode(['-e', '0'], process.env, work)).rssMb;
  return `node -e 0 peak RSS ${bareNodeMb.toFixed(0)}MB`;
};

/** The ledger copied to LARGE encounters, and the report of the same month on it: its peak RSS. */
async function atLarge(home, base, args) {
  const start = process.hrtime.bigint();
  const copied = spawnSync(process.execPath, [fileURLToPath(new URL('./lib/multiply-ledger.mjs', import.meta.url)), home, String(LARGE / N)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (copied.status !== 0) throw new Error(`copying the ledger failed (exit ${copied.status})`);
  console.log(`  the ledger copied to ${fmt(LARGE)} encounters in ${seconds(start).toFixed(0)} s`);
  const r = await runCli(args, { ...base, TPA_HOME: home }, work);
  figure(
    `in-process: settlement report --by funded at ${fmt(LARGE)}`,
    `${r.seconds.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`,
    `≤ ${REPORT_RSS_MB} MB`,
    r.rssMb <= REPORT_RSS_MB,
  );
  tableLine(`report-peak-${LARGE === 1_000_000 ? '1m' : LARGE}`, `${r.rssMb.toFixed(0)}MB`, `<=${REPORT_RSS_MB}MB`, r.rssMb <= REPORT_RSS_MB, await bareNode());
}

try {
  const home = join(work, 'home');
  let start = process.hrtime.bigint();
  buildLedger(home, N);
  const built = seconds(start);
  start = process.hrtime.bigint();
  const funding = spawnSync(process.execPath, [fileURLToPath(new URL('./lib/fund-ledger.mjs', import.meta.url)), home, String(DAYS), clockFor(N)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (funding.status !== 0) throw new Error(`funding the ledger failed (exit ${funding.status})`);
  const funded = JSON.parse(funding.stdout.trim().split('\n').at(-1));
  // The month in the middle of the funding days.
  const mid = new Date(Date.parse(funded.firstDay) + Math.floor(DAYS / 2) * 86_400_000);
  const from = `${mid.toISOString().slice(0, 7)}-01`;
  const to = new Date(Date.UTC(mid.getUTCFullYear(), mid.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
  console.log(
    `periods at volume: ${fmt(N)} encounters (services from 2025-01-01, ${fmt(funded.funded)} funded over ${DAYS} days from ${funded.firstDay}, ` +
      `${fmt(funded.failed)} failed, ${fmt(funded.fundedAgain)} funded again, ${fmt(funded.refunded)} refunded); built in ${built.toFixed(0)} s + ${seconds(start).toFixed(0)} s; the month ${from} to ${to}`,
  );
  const base = { ...process.env, TPA_CLOCK: funded.end, TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
  delete base.TPA_PROFILE;
  delete base.TPA_OUTPUT;
  const out = join(work, 'month.835');
  const commands = (profile) => [
    ['settlement report --by funded', ['settlement', 'report', '--from', from, '--to', to, '--by', 'funded', '-o', 'json', ...profile]],
    ['settlement remit --from --to', ['settlement', 'remit', '--from', from, '--to', to, '--out', out, '--force', ...profile]],
    ['activity --from --to', ['activity', '--from', from, '--to', to, '-o', 'json', ...profile]],
  ];

  // How many transfers the month holds (the report's count, read once, untimed).
  const counted = spawnSync(process.execPath, [bin, ...commands([])[0][1]], { env: { ...base, TPA_HOME: home }, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (counted.status !== 0) throw new Error(`settlement report: ${counted.stderr}`);
  const month = JSON.parse(counted.stdout);
  const transfers = Object.values(month.money.transfers).reduce((a, b) => a + b, 0);
  console.log(`  the month: ${fmt(month.encounters.count)} encounters funded, ${fmt(transfers)} transfers, ${month.money.released} released`);

  /** The floor and the period reads on one transport; each figure against the floor. */
  const measure = async (transport, env, profile) => {
    const floor = await runCli(['ledger', 'list', '--all', '-o', 'ndjson', ...profile], env, work);
    if (floor.lines !== N) throw new Error(`ledger list --all printed ${floor.lines} lines for ${N}`);
    const pages = Math.ceil(N / 100);
    const perRequest = floor.seconds / pages;
    figure(`${transport}: ledger list --all -o ndjson (the floor)`, `${floor.seconds.toFixed(2)} s, ${floor.rssMb.toFixed(0)} MB`, 'reference', true);
    for (const [name, args] of commands(profile)) {
      const r = await runCli(args, env, work);
      if (/partial read/.test(r.stderr)) throw new Error(`${name}: a partial read by default: ${r.stderr}`);
      // Beyond the pages: a settlement record for each transfer of the month (the 835 a ledger detail too).
      const reads = name.startsWith('settlement report') ? transfers : name.startsWith('settlement remit') ? 2 * transfers : 0;
      const limit = 3 * (floor.seconds + reads * perRequest);
      figure(
        `${transport}: ${name}`,
        `${r.seconds.toFixed(2)} s (${(r.seconds / floor.seconds).toFixed(2)}×), ${r.rssMb.toFixed(0)} MB`,
        '≤ 3× (floor + reads), RSS ≤ 4×',
        r.seconds <= limit && r.rssMb <= 4 * floor.rssMb,
      );
      if (!name.startsWith('settlement report')) continue;
      figure(`${transport}: settlement report, peak RSS at ${fmt(N)}`, `${r.rssMb.toFixed(0)} MB`, `≤ ${REPORT_RSS_MB} MB`, r.rssMb <= REPORT_RSS_MB);
      if (transport === 'in-process')
        tableLine(
          `report-peak-${N === 100_000 ? '100k' : N}`,
          `${r.rssMb.toFixed(0)}MB`,
          `<=${REPORT_RSS_MB}MB`,
          r.rssMb <= REPORT_RSS_MB,
          `${await bareNode()}; ledger list --all ${floor.rssMb.toFixed(0)}MB at ${fmt(N)}`,
        );
    }
  };
  await measure('in-process', { ...base, TPA_HOME: home }, []);
  const { url, key, stop } = await startServer({ ...base, TPA_HOME: home });
  try {
    const client = join(work, 'client');
    loginSandbox(url, key, { ...base, TPA_HOME: client });
    await measure('over local serve', { ...base, TPA_HOME: client }, ['--profile', 'sandbox']);
  } finally {
    await stop();
  }
  if (LARGE > 0) await atLarge(home, base, commands([])[0][1]);
  finish();
} finally {
  rmSync(work, { recursive: true, force: true });
}
