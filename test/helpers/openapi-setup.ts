// Every test's exchanges fit docs/openapi.yaml (docs/development.md "The contract checked"): a server
// started in this process (`local serve` in-process) is observed here, one started as a child by
// test/helpers/server.ts reports through its stderr; any mismatch fails the test it happened in.
import { afterAll, afterEach } from 'vitest';
import { Contract, mismatches, type ObservedExchange } from './openapi.js';

let contract: Contract | undefined;
(globalThis as Record<symbol, unknown>)[Symbol.for('tpa.server.observe')] = (exchange: ObservedExchange) => {
  contract ??= Contract.load();
  mismatches.push(...contract.check(exchange));
};

function failOnMismatches(): void {
  const found = mismatches.splice(0);
  if (found.length > 0) throw new Error(`what crossed the wire does not fit docs/openapi.yaml:\n${[...new Set(found)].join('\n')}`);
}

afterEach(failOnMismatches);
afterAll(failOnMismatches);
