// The local engine's reference data (src/engine/store/seed.ts): the first migration's seed and the
// IG examples' migration write their members, providers, codes and contracts with one function,
// insertReference; the later one keeps what a database already holds (OR IGNORE).
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IG_EXAMPLE_CONTRACTS, IG_EXAMPLE_CPT, IG_EXAMPLE_MEMBERS, IG_EXAMPLE_PROVIDERS, insertReference } from '../../src/engine/store/seed.js';
import { engineAt, tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

const igData = { members: IG_EXAMPLE_MEMBERS, providers: IG_EXAMPLE_PROVIDERS, cpt: IG_EXAMPLE_CPT, contracts: IG_EXAMPLE_CONTRACTS };

it('insertReference writes reference data; OR IGNORE keeps what is there, without it a row held already is refused', () => {
  const engine = engineAt(home.dir, '2026-06-30T12:00:00Z');
  const db = engine.db as unknown as Database.Database;
  const count = () => db.prepare('SELECT (SELECT COUNT(*) FROM members) + (SELECT COUNT(*) FROM contract_rates) AS n').pluck().get() as number;
  const before = count();
  db.prepare("UPDATE members SET name = 'Edward Smith' WHERE member_id = 'JS00111223333'").run();
  insertReference(db, igData, { orIgnore: true });
  expect(count()).toBe(before);
  expect(db.prepare("SELECT name FROM members WHERE member_id = 'JS00111223333'").pluck().get()).toBe('Edward Smith');
  expect(() => insertReference(db, igData)).toThrow(/UNIQUE|PRIMARY KEY/);
  // The dated rates (effective from the contract's date) as the IG examples' migration wrote them.
  db.prepare('DELETE FROM contract_rates WHERE contract_id = ?').run(IG_EXAMPLE_CONTRACTS[0]!.id);
  insertReference(db, igData, { orIgnore: true });
  expect(db.prepare('SELECT DISTINCT effective_from FROM contract_rates WHERE contract_id = ?').pluck().all(IG_EXAMPLE_CONTRACTS[0]!.id)).toEqual([
    IG_EXAMPLE_CONTRACTS[0]!.effective,
  ]);
  expect(count()).toBe(before);
  engine.close();
});
