// X12 837 in: `tpa claim convert` (the built CLI, spawned) of an 837P of 10,000 claims
// (target ≤ 2 s, start-up included, ≤ 100 MB peak RSS) and of 100,000 (≤ 100 MB: memory stays
// flat), and `tpa claim submit` of the 10,000 to the embedded engine (≤ 100 MB), beside the
// submit of the same claims as NDJSON (converted first). Beside each, the same run's floor: the
// file's segments read by x12-parser alone (a node process that only tokenizes, as the conversion's
// second reading does), and `node -e 0` (time and peak RSS). The file is written in transaction sets
// of 5,000 claims (the implementation guide's recommended largest), with the seed's members and
// providers. BENCH_X12_CLAIMS changes the first size (the second is ten times it).
// BENCH_X12_AGAINST=<another tpa's bin/tpa> (the release before, built beside) runs each tpa figure
// with it too, in turns (this one, then it, BENCH_X12_ROUNDS times, 1 by default), and prints it
// beside. Prints the figures; exits 1 if a target is missed.
import { spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, runNode, TPA_BIN } from './lib/ledger.mjs';

const N = Number(process.env.BENCH_X12_CLAIMS ?? 10_000);
const AGAINST = process.env.BENCH_X12_AGAINST;
const ROUNDS = Number(process.env.BENCH_X12_ROUNDS ?? 1);
// After the bench file's last service date (2025-12-26) and its BHT04 (2025-12-31).
const CLOCK = '2026-01-10T12:00:00Z';
const SIZES = [N, N * 10];
const PER_TRANSACTION = 5000;
const PARSER = fileURLToPath(new URL('../node_modules/x12-parser/dist/cjs/index.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tpa-bench-x12-'));
const results = [];
const figure = (name, value, target, met) => {
  results.push(met);
  console.log(`  ${name.padEnd(58)} ${value.padEnd(34)} target ${target}: ${met ? 'ok' : 'MISSED'}`);
};

const MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];
const CODES = [
  ['45378', '1800'],
  ['45380', '2400'],
  ['43235', '1500'],
];

/** An 837P of `n` claims (a line each), written as it is made. */
async function write837(path, n) {
  const out = createWriteStream(path);
  const put = (text) => (out.write(text) ? undefined : new Promise((r) => out.once('drain', r)));
  await put('ISA*00*          *00*          *ZZ*BENCHSENDER    *ZZ*TPA            *250115*1200*^*00501*000000001*0*P*:~\n');
  await put('GS*HC*BENCHSENDER*TPA*20250115*1200*1*X*005010X222A1~\n');
  let transactions = 0;
  for (let first = 0; first < n; first += PER_TRANSACTION) {
    transactions++;
    const st02 = String(transactions).padStart(4, '0');
    const segments = [
      `ST*837*${st02}*005010X222A1`,
      'BHT*0019*00*0123*20251231*1200*CH',
      'NM1*41*2*BENCH CLEARINGHOUSE*****46*BENCH1',
      'PER*IC*OPS*TE*5555550100',
      'NM1*40*2*ACME HEALTH PLAN*****46*PAYER-ACME',
      'HL*1**20*1',
      'NM1*85*2*RIVERSIDE SURGERY CENTER*****XX*1234567893',
      'N3*1 RIVER RD',
      'N4*SPRINGFIELD*IL*62701',
      'REF*EI*123456789',
    ];
    let hl = 1;
    let flushed = 0;
    for (let i = first; i < Math.min(n, first + PER_TRANSACTION); i++) {
      const [cpt, charge] = CODES[i % CODES.length];
      const day = new Date(Date.UTC(2025, 0, 1) + (i % 360) * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
      hl++;
      segments.push(
        `HL*${hl}*1*22*0`,
        'SBR*P*18*GRP-1001******CI',
        `NM1*IL*1*MEMBER*PLAN****MI*${MEMBERS[i % MEMBERS.length]}`,
        'DMG*D8*19840312*F',
        'NM1*PR*2*ACME HEALTH PLAN*****PI*PAYER-ACME',
        `CLM*BENCH${i}*${charge}***11:B:1*Y*A*Y*Y`,
        'HI*ABK:K635*ABF:Z1211',
        'NM1*82*1*MORGAN*ALICE****XX*1045782368',
        'LX*1',
        `SV1*HC:${cpt}*${charge}*UN*1***1:2`,
        `DTP*472*D8*${day}`,
      );
      if (segments.length > 2000) {
        flushed += segments.length;
        await put(`${segments.splice(0).join('~\n')}~\n`);
      }
    }
    // SE01 counts the transaction's segments, ST to SE: those written already, those left, the SE.
    segments.push(`SE*${flushed + segments.length + 1}*${st02}`);
    await put(`${segments.join('~\n')}~\n`);
  }
  await put(`GE*${transactions}*1~\nIEA*1*000000001~\n`);
  await new Promise((r) => out.end(r));
}

/** Runs node with `args`, stdout counted and dropped; wall seconds, peak RSS (MB) from the child's own usage, lines. */
const run = (args, env = {}) => runNode(args, { ...process.env, ...env }, work);

const TOKENIZE = `const { createReadStream } = require('node:fs'); const { X12parser } = require(${JSON.stringify(PARSER)});
(async () => { let n = 0; for await (const s of createReadStream(process.argv[1], { highWaterMark: 16384 }).pipe(new X12parser('utf8'))) n++; console.log(n); })();`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A new TPA_HOME for one run of a tpa (a submit goes to a new data directory each time). */
let homes = 0;
const tpaEnv = () => {
  const home = join(work, `home-${++homes}`);
  mkdirSync(home);
  return { TPA_HOME: home, TPA_KEYRING: 'off', TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0', TPA_PROFILE: undefined };
};
const tpas = AGAINST
  ? [
      ['this', TPA_BIN],
      ['before', AGAINST],
    ]
  : [['this', TPA_BIN]];

/** `args` run by each tpa in turns, ROUNDS times; each tpa's runs (each checked to print `lines` lines). */
async function inTurns(args, lines) {
  const runs = Object.fromEntries(tpas.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, bin] of tpas) {
      const env = tpaEnv();
      const r = await run([bin, ...args(env)], env);
      if (r.lines !== lines) throw new Error(`${name}: tpa ${args(env).join(' ')} printed ${r.lines} lines of ${lines}: ${r.stderr.slice(0, 2000)}`);
      runs[name].push(r);
    }
  return runs;
}
const range = (xs, f, unit) => {
  const v = xs.map(f).sort((a, b) => a - b);
  return v[0] === v.at(-1) ? `${v[0]}${unit}` : `${v[0]} to ${v.at(-1)}${unit}`;
};
const said = (rs) => `${range(rs, (r) => r.seconds.toFixed(2), ' s')}, ${range(rs, (r) => Math.round(r.rssMb), ' MB')}`;
const before = (runs) => (AGAINST ? `; before: ${said(runs.before)}` : '');
const worst = (rs) => Math.max(...rs.map((r) => r.rssMb));

try {
  console.log(
    `X12 837 in: tpa claim convert of an 837P of ${fmt(SIZES[0])} and ${fmt(SIZES[1])} claims (transaction sets of ${fmt(PER_TRANSACTION)}), tpa claim submit of ${fmt(SIZES[0])}${AGAINST ? `; beside each, ${AGAINST}` : ''}`,
  );
  const bares = [await run(['-e', '0']), await run(['-e', '0']), await run(['-e', '0'])];
  const bare = median(bares.map((b) => b.seconds));
  const bareMb = median(bares.map((b) => b.rssMb));
  console.log(`  node -e 0: ${bare.toFixed(2)} s, ${bareMb.toFixed(0)} MB`);
  for (const n of SIZES) {
    const file = join(work, `claims-${n}.837`);
    await write837(file, n);
    const mb = statSync(file).size / 1024 / 1024;
    for (const [, bin] of tpas) await run([bin, '--version'], tpaEnv()); // warm-up: the OS file cache, the compile cache
    const floor = await run(['-e', TOKENIZE, file]);
    const runs = await inTurns(() => ['claim', 'convert', file, '-o', 'ndjson'], n);
    const convert = runs.this;
    const seconds = Math.max(...convert.map((r) => r.seconds));
    const beside = `(floor: x12-parser alone ${floor.seconds.toFixed(2)} s, ${floor.rssMb.toFixed(0)} MB; ${(median(convert.map((r) => r.seconds)) / floor.seconds).toFixed(1)}×; node -e 0 ${bare.toFixed(2)} s, ${bareMb.toFixed(0)} MB)`;
    console.log(`  ${fmt(n)} claims, ${mb.toFixed(1)} MB of X12 ${beside}`);
    if (n === SIZES[0])
      figure(`tpa claim convert, ${fmt(n)} claims`, `${said(convert)}${before(runs)}`, '≤ 2 s, ≤ 100 MB', seconds <= 2 && worst(convert) <= 100);
    else figure(`tpa claim convert, ${fmt(n)} claims`, `${said(convert)}${before(runs)}`, '≤ 100 MB (flat)', worst(convert) <= 100);
    if (n === SIZES[0]) {
      // The same claims as NDJSON, as this tpa converts them: the batch without X12.
      const ndjson = join(work, `claims-${n}.ndjson`);
      const out = openSync(ndjson, 'w');
      const converted = spawnSync(process.execPath, [TPA_BIN, 'claim', 'convert', file], {
        env: { ...process.env, ...tpaEnv() },
        stdio: ['ignore', out, 'pipe'],
      });
      closeSync(out);
      if (converted.status !== 0) throw new Error(`claim convert: ${converted.stderr}`);
      const submit = (path) => (env) => ['claim', 'submit', path, '-o', 'ndjson', '--journal', join(env.TPA_HOME, 'batch.journal')];
      const x12 = await inTurns(submit(file), n);
      const plain = await inTurns(submit(ndjson), n);
      figure(`tpa claim submit, ${fmt(n)} claims of an 837P, embedded engine`, `${said(x12.this)}${before(x12)}`, '≤ 100 MB', worst(x12.this) <= 100);
      console.log(`  the same claims as NDJSON: ${said(plain.this)}${before(plain)} (no target)`);
      rmSync(ndjson);
    }
    rmSync(file);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(results.every(Boolean) ? 0 : 1);
