// Shared by the benches: each figure printed beside its target, and the exit code from them all;
// and the lines of the table of record, which bench/table.mjs gathers at the end of `npm run bench`.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `figure` prints a line (name and value padded to the bench's columns) and keeps whether its target was met; `finish` prints the tally and sets the exit code (1 when one was missed). */
export function targets(namePad, valuePad) {
  const results = [];
  return {
    figure(name, value, target, met) {
      results.push(met);
      console.log(`  ${name.padEnd(namePad)} ${value.padEnd(valuePad)} target ${target}: ${met ? 'ok' : 'MISSED'}`);
    },
    finish() {
      const missed = results.filter((ok) => !ok).length;
      console.log(`  ${missed === 0 ? 'every target met' : `${missed} target(s) MISSED`}`);
      process.exitCode = missed === 0 ? 0 : 1;
    },
  };
}

/** Where the TABLE lines of one `npm run bench` are gathered (reports/ is not committed). */
export const TABLE_FILE = process.env.TPA_BENCH_TABLE ?? join(fileURLToPath(new URL('../..', import.meta.url)), 'reports', 'bench-table.txt');

/**
 * One figure of the table (bench/table.mjs has the format and the keys): printed on stdout as
 * `TABLE <key> <value> <target> <ok|MISSED> <reference…>` and appended to TABLE_FILE. `key`, `value`
 * and `target` hold no spaces (`1.27x`, `<=1.3x`, `48%`, `>=45%`, `96MB`, `<=120MB`); `reference`
 * is free text to the end of the line: the CPU-bound reference beside a time ratio (instructions) and
 * the size it was counted at.
 */
export function tableLine(key, value, target, met, reference = '') {
  for (const [name, field] of Object.entries({ key, value, target })) {
    if (/\s/.test(field) || field === '') throw new Error(`TABLE ${name} must be one word: ${JSON.stringify(field)}`);
  }
  const line = `TABLE ${key} ${value} ${target} ${met ? 'ok' : 'MISSED'}${reference ? ` ${reference}` : ''}`;
  console.log(line);
  mkdirSync(dirname(TABLE_FILE), { recursive: true });
  appendFileSync(TABLE_FILE, `${line}\n`);
}
