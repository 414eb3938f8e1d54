// Test-only preload (node --import) of a `tpa local serve` started by test/helpers/server.ts: it
// installs the server's process observer (src/server/server.ts PROCESS_OBSERVER), which checks every
// exchange against docs/openapi.yaml (test/helpers/openapi.ts) and writes each mismatch to stderr as
// one line after MISMATCH_MARK: where and which rule, never a value. The test process reads those
// lines and fails the test (test/helpers/openapi-setup.ts). Nothing in src/ loads this file.
import { Contract, MISMATCH_MARK } from './openapi.ts';

let contract;
globalThis[Symbol.for('tpa.server.observe')] = (exchange) => {
  try {
    // TPA_TEST_OPENAPI_FILE: another document, for the test that a mismatch is reported.
    contract ??= Contract.load(process.env.TPA_TEST_OPENAPI_FILE || undefined);
    for (const mismatch of contract.check(exchange)) process.stderr.write(`${MISMATCH_MARK}${mismatch}\n`);
  } catch (err) {
    process.stderr.write(`${MISMATCH_MARK}${exchange.method} ${exchange.route}: the check failed: ${err.message}\n`);
  }
};
