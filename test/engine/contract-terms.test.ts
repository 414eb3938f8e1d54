// A contract's terms are built once per set of rates in force: a claim reuses them while the
// contract and its rates stay as they are, and gets new ones once they change.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { activeContractsFor, contractTerms } from '../../src/engine/store/contracts.js';
import { engineAt, tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
let engine: Engine;
beforeEach(() => {
  home = tempDir();
  engine = engineAt(home.dir, '2026-03-02T10:00:00Z', '0');
});
afterEach(() => {
  engine.close();
  home.remove();
});

const inForce = () => activeContractsFor(engine.db, '1234567893', '2026-03-02', ['45378'])[0]!;

it('the same rates in force give the same terms; a changed rate gives new terms with the new amount', () => {
  const first = inForce();
  const terms = contractTerms(first.contract, first.rates);
  expect(terms.codes.get('45378')?.negotiatedRateCents).toBeGreaterThan(0);
  const again = inForce();
  expect(again.rates).toBe(first.rates);
  expect(contractTerms(again.contract, again.rates)).toBe(terms);
  // Another writer changes the rate: the contracts are read again, and their terms built anew.
  engine.db.prepare("UPDATE contract_rates SET negotiated_rate_cents = 123456 WHERE contract_id = ? AND cpt_code = '45378'").run(first.contract.id);
  const changed = inForce();
  expect(changed.rates).not.toBe(first.rates);
  const newTerms = contractTerms(changed.contract, changed.rates);
  expect(newTerms).not.toBe(terms);
  expect(newTerms.codes.get('45378')?.negotiatedRateCents).toBe(123456);
});
