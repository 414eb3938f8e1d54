// Claims per CPU-second of engines built from several source trees, in one process: each tree's
// engine is bundled from its src/ with esbuild (as bench/lib/ledger.mjs does), opened on a data dir
// of its own, and given the same claims (BENCH_CLAIMS, default 6,000; BENCH_MULTI=1 for the
// institutional claims of 1 to 4 lines) in turns of 250, the order alternating. The process's user +
// system CPU time is counted per engine: on a machine that other work loads, wall-clock rates move
// from run to run, CPU time in one process much less. Usage, from the project folder:
//   git worktree add /tmp/old <commit> && ln -s "$PWD/node_modules" /tmp/old/node_modules
//   node bench/claims-cpu.mjs . /tmp/old
import { build } from 'esbuild';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { claimBody, INSTITUTIONAL_CLOCK, institutionalBody } from './lib/ledger.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const trees = process.argv.slice(2).map((t) => resolve(t));
const N = Number(process.env.BENCH_CLAIMS ?? 6000);
const TURN = 250;
const multi = process.env.BENCH_MULTI === '1';
if (trees.length === 0) throw new Error('name the source trees to compare: node bench/claims-cpu.mjs . /tmp/old');

async function open(tree, k) {
  const work = mkdtempSync(join(tmpdir(), `tpa-bench-cpu-${k}-`));
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  await build({
    entryPoints: { engine: join(tree, 'src/engine/engine.ts') },
    outdir: join(work, 'bundle'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'better-sqlite3-multiple-ciphers', '@napi-rs/keyring'],
    banner: { js: "import { createRequire as __tpaCreateRequire } from 'node:module'; const require = __tpaCreateRequire(import.meta.url);" },
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const { Engine } = await import(pathToFileURL(join(work, 'bundle/engine.mjs')).href);
  const clock = multi ? INSTITUTIONAL_CLOCK : '2026-06-01T12:00:00Z';
  const engine = Engine.open({ dataDir: join(work, 'data'), env: { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' } });
  return { tree, engine, work, cpu: 0 };
}

const engines = [];
for (const [k, tree] of trees.entries()) engines.push(await open(tree, k));
// The bodies come from this tree's claim template, the same for every engine.
const templateDir = mkdtempSync(join(tmpdir(), 'tpa-bench-cpu-template-'));
await build({
  entryPoints: [join(root, 'src/domain/claim-template.ts')],
  outfile: join(templateDir, 'template.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
});
const { claimTemplate } = await import(pathToFileURL(join(templateDir, 'template.mjs')).href);
rmSync(templateDir, { recursive: true, force: true });
const bodies = Array.from({ length: N }, (_, i) => (multi ? institutionalBody(claimTemplate, i) : claimBody(claimTemplate, i)));
const submit = { method: 'POST', path: '/tpa-api/v1/claims/submit/', headers: { 'content-type': 'application/fhir+json' }, query: new URLSearchParams() };
try {
  for (let from = 0, turn = 0; from < N; from += TURN, turn++) {
    for (const e of turn % 2 ? [...engines].reverse() : engines) {
      const before = process.cpuUsage();
      for (let i = from; i < Math.min(N, from + TURN); i++) {
        const res = e.engine.handle({ ...submit, body: bodies[i] });
        if (res.status !== 201) throw new Error(`${e.tree}, claim ${i + 1}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      const used = process.cpuUsage(before);
      e.cpu += (used.user + used.system) / 1e6;
    }
  }
  const fmt = (x) => Math.round(x).toLocaleString('en-US');
  console.log(`${N} ${multi ? 'institutional claims of 1 to 4 lines' : 'single-line claims'} per engine, CPU time in one process`);
  for (const e of engines)
    console.log(`  ${e.tree}: ${fmt(N / e.cpu)} claims per CPU-second (${e.cpu.toFixed(2)} s), ${(engines[0].cpu / e.cpu).toFixed(2)}× the first`);
} finally {
  for (const e of engines) {
    e.engine.close();
    rmSync(e.work, { recursive: true, force: true });
  }
}
