// Shared by the benches: each figure printed beside its target, and the exit code from them all.

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
