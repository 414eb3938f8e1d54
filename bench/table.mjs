// The table of record (the figures and targets of the performance work) in one place, run last by
// `npm run bench`: every row with its value, target and verdict as the benches measured them in
// this run, each with its CPU-bound reference where the bench gives one. Exits 1 when a row missed its target or was not measured.
//
// How a bench adds a row: it calls tableLine(key, value, target, met, reference) of
// bench/lib/targets.mjs, which prints the line on stdout and appends it to reports/bench-table.txt
// (TPA_BENCH_TABLE names another file). `npm run bench` empties that file before the first bench.
// The line, one a figure:
//
//   TABLE <key> <value> <target> <ok|MISSED> <reference…>
//
// key, value and target are single words (no spaces): value and target as printed (`1.27x`,
// `<=1.3x`, `48%`, `>=45%`, `96MB`, `<=120MB`); ok or MISSED is the bench's own verdict; the rest of
// the line is free text (instructions beside a time ratio, the size they were counted at). The keys
// are those of ROWS below; a key printed twice keeps its last line. `node bench/table.mjs <files…>`
// reads TABLE lines from other files instead (a saved `npm run bench | tee bench.log`).
import { existsSync, readFileSync } from 'node:fs';
import { TABLE_FILE } from './lib/targets.mjs';

/** The table of record: key, what it measures, the bench that prints it, and the target. */
export const ROWS = [
  ['claims-single-vs-floor', 'single-line claims through the engine / SQLite floor', 'bench/adjudication.mjs', '>=45%'],
  ['batch-in-process-vs-floor', '10,000-claim batch in-process / floor', 'bench/batch.mjs', '>=35%'],
  ['batch-serve-vs-in-process', 'the same batch over local serve / in-process', 'bench/batch.mjs', '>=85%'],
  ['report-peak-100k', 'settlement report peak memory, 100,000 encounters', 'bench/periods.mjs', '<=120MB'],
  ['report-peak-1m', 'settlement report peak memory, 1,000,000 encounters', 'bench/periods.mjs', '<=120MB'],
  ['activity-vs-ledger-list', 'tpa activity / ledger list over the same entries', 'bench/activity.mjs', '<=2x'],
  ['ledger-ndjson-vs-plain-read', 'ledger list --all -o ndjson / plain better-sqlite3 read, 1,000,000, CPU', 'bench/listing.mjs', '<=2x'],
  ['lookup-blind-vs-node', 'tpa lookup blind / node -e 0', 'bench/startup.mjs', '<=1.3x'],
];

/** The TABLE lines of `text`, by key (the last line of a key wins). */
export function tableLines(text) {
  const found = new Map();
  for (const line of text.split('\n')) {
    const m = /^TABLE (\S+) (\S+) (\S+) (ok|MISSED)(?: (.*))?$/.exec(line.trimEnd());
    if (m) found.set(m[1], { value: m[2], target: m[3], verdict: m[4], reference: m[5] ?? '' });
  }
  return found;
}

const files = process.argv.length > 2 ? process.argv.slice(2) : [TABLE_FILE];
const text = files.map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : '')).join('\n');
const found = tableLines(text);
let missed = 0;
console.log(`the table of record (${files.join(', ')})`);
for (const [key, title, bench, target] of ROWS) {
  const row = found.get(key);
  if (!row) missed++;
  else if (row.verdict !== 'ok') missed++;
  const shown = row
    ? `${row.value.padStart(8)}  target ${row.target.padEnd(8)} ${row.verdict}`
    : `       -  target ${target.padEnd(8)} not measured (${bench} printed no TABLE ${key} line)`;
  console.log(`  ${title.padEnd(72)} ${shown}${row?.reference ? `  [${row.reference}]` : ''}`);
}
for (const key of found.keys()) if (!ROWS.some(([k]) => k === key)) console.log(`  (a TABLE line of no row: ${key})`);
console.log(`  ${missed === 0 ? 'every row met' : `${missed} row(s) missed or not measured`}`);
process.exitCode = missed === 0 ? 0 : 1;
