// `npm run mutate`: StrykerJS over the money and access rules (stryker.config.mjs), then the score
// of each file against the targets of docs/development.md "Mutation testing". Fails (exit 1) when a file is
// under its target, or when a mutant survives inside a region marked in the source with
//   // mutation: no survivors (<what>)   …   // mutation: end
// (the scope table, the fee, the split, the duplicate rule, exactly-once funding, the retry rule).
// By default the money rules (stryker.config.mjs MONEY_SCOPE), incrementally: Stryker keeps each
// run's results in test/mutation/incremental.json (committed) and tests only the mutants of what
// changed since. --all: every rule of the old scope (ALL_SCOPE), with its own results file under
// reports/. Other arguments go to Stryker (e.g. --mutate src/domain/money.ts to look at one file,
// which keeps its results apart so as not to shrink the committed ones; --force to test every
// mutant again).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const REPORT = 'reports/mutation/mutation.json';
const OVERALL = 85;
const TARGETS = { 'src/domain/money.ts': 95, 'src/domain/adjudication.ts': 95, 'src/domain/contract-rates.ts': 95, 'src/domain/settlement.ts': 95 };

rmSync(REPORT, { force: true });
const started = Date.now();
// StrykerJS is not a dependency of the project: a large part of the install (docs/numbers-history.md "Install"), for a run
// made by hand before a release. These pinned versions are added to node_modules the first time
// (without touching package.json or the lockfile; the next npm ci takes them away again).
// 10 or later: the runner before it filtered a mutant's tests by names joined as Vitest 4 joined
// them, which Vitest 5 does not match, so a mutant ran no test nested in a describe and survived.
const STRYKER = ['@stryker-mutator/core@10.1.1', '@stryker-mutator/vitest-runner@10.1.1'];
const installed = (spec) => {
  const at = spec.lastIndexOf('@');
  const file = `node_modules/${spec.slice(0, at)}/package.json`;
  return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).version === spec.slice(at + 1);
};
if (!STRYKER.every(installed)) {
  console.log(`installing ${STRYKER.join(' and ')} for this run (not saved)…`);
  const install = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', ...STRYKER], { stdio: 'inherit' });
  if (install.status !== 0) {
    console.error('could not install StrykerJS');
    process.exit(1);
  }
}
const all = process.argv.includes('--all');
const args = process.argv.slice(2).filter((a) => a !== '--all');
const one = args.includes('--mutate') ? ['--incrementalFile', 'reports/stryker-incremental-one.json'] : [];
const env = { ...process.env, TPA_MUTATE_SCOPE: all ? 'all' : 'money' };
const run = spawnSync('npx', ['stryker', 'run', ...args, ...one], { stdio: 'inherit', env });
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
if (run.status !== 0 || !existsSync(REPORT)) {
  console.error(`stryker failed (exit ${run.status})`);
  process.exit(1);
}

const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const DETECTED = new Set(['Killed', 'Timeout']);
const MISSED = new Set(['Survived', 'NoCoverage']);
const score = (d, m) => (d + m === 0 ? 100 : (100 * d) / (d + m));
const problems = [];
const rows = [];
let detected = 0;
let missed = 0;

for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const d = mutants.filter((m) => DETECTED.has(m.status)).length;
  const m = mutants.filter((x) => MISSED.has(x.status)).length;
  detected += d;
  missed += m;
  const s = score(d, m);
  const target = TARGETS[file];
  rows.push([
    file,
    s.toFixed(1),
    String(d),
    String(mutants.filter((x) => x.status === 'Survived').length),
    String(mutants.filter((x) => x.status === 'NoCoverage').length),
    target ? `≥ ${target}` : '',
  ]);
  if (target && s < target) problems.push(`${file}: ${s.toFixed(1)}% is under its target of ${target}%`);
  // Regions that must have no surviving mutant.
  const lines = source.split('\n');
  let region;
  lines.forEach((text, i) => {
    const open = /\/\/ mutation: no survivors \((.+)\)/.exec(text);
    if (open) region = { what: open[1], from: i + 1 };
    else if (region && /\/\/ mutation: end/.test(text)) {
      const to = i + 1;
      for (const x of mutants) {
        if (MISSED.has(x.status) && x.location.start.line >= region.from && x.location.start.line <= to) {
          problems.push(`${file}:${x.location.start.line}: a mutant survives in ${region.what}: ${x.mutatorName} → ${JSON.stringify(x.replacement ?? '')}`);
        }
      }
      region = undefined;
    }
  });
}

const overall = score(detected, missed);
const header = ['file', 'score %', 'killed', 'survived', 'no cover', 'target'];
const table = [header, ...rows, ['all files', overall.toFixed(1), String(detected), '', '', `≥ ${OVERALL}`]];
const widths = header.map((_, c) => Math.max(...table.map((r) => r[c].length)));
console.log('');
for (const r of table) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
if (overall < OVERALL && !process.argv.includes('--mutate')) problems.push(`overall ${overall.toFixed(1)}% is under its target of ${OVERALL}%`);
console.log(`\nmutation score ${overall.toFixed(1)}% in ${minutes} min (${all ? 'all rules' : 'money scope'})`);
for (const p of problems) console.error(`✗ ${p}`);
process.exit(problems.length > 0 ? 1 : 0);
