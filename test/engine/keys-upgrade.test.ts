// Keys of a database written before contract_build existed (docs/security-access.md "Who may do what"): a
// key that had every scope of the contract (docs/api.md) (the operator's, made without --scopes)
// gains contract_build and keeps changing rate schedules; a narrower key does not; rotated keys
// learn the key they came from.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../src/engine/engine.js';
import { engineAt, tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => (home = tempDir()));
afterEach(() => home.remove());

const CLOCK = '2026-03-02T10:00:00Z';
const keyOf = (n: number) => `sk_sand_${String(n).repeat(56).slice(0, 56)}`;
const ALL = ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'];

describe('upgrading keys', () => {
  it('grants contract_build to the keys with all four service scopes only, and records each rotated key’s parent', () => {
    // The second release's database (schema 7): api_keys without parents or revocation.
    copyFileSync(join(import.meta.dirname, '../fixtures/upgrade/second-release.sqlite'), databaseFile(home.dir));
    const old = new Database(databaseFile(home.dir));
    const insert = old.prepare(
      'INSERT INTO api_keys (id, lineage, key_hash, environment, prefix, last4, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const add = (id: string, lineage: string, n: number, scopes: string[], expires: string | null) =>
      insert.run(
        id,
        lineage,
        createHash('sha256').update(keyOf(n)).digest('hex'),
        'sandbox',
        'sk_sand_',
        keyOf(n).slice(-4),
        JSON.stringify(scopes),
        CLOCK,
        expires,
      );
    add('key_operator', 'key_operator', 1, ALL, null);
    add('key_reader', 'key_reader', 2, ['contract_lookup'], null);
    add('key_three', 'key_three', 3, ['contract_lookup', 'claim_pricing', 'ledger_access'], null);
    // A rotation: key_first was rotated to key_second, then key_second to key_third.
    add('key_first', 'key_first', 4, ALL, '2099-01-01T00:00:00Z');
    add('key_second', 'key_first', 5, ALL, '2099-01-01T00:00:00Z');
    add('key_third', 'key_first', 6, ALL, null);
    old.close();

    const engine = engineAt(home.dir, CLOCK);
    try {
      const listed = Object.fromEntries(engine.listKeys().map((k) => [k.id, { scopes: k.scopes, rotated_from: k.rotated_from, status: k.status }]));
      expect(listed).toEqual({
        key_operator: { scopes: [...ALL, 'contract_build'], rotated_from: null, status: 'active' },
        key_reader: { scopes: ['contract_lookup'], rotated_from: null, status: 'active' },
        key_three: { scopes: ['contract_lookup', 'claim_pricing', 'ledger_access'], rotated_from: null, status: 'active' },
        key_first: { scopes: [...ALL, 'contract_build'], rotated_from: null, status: 'rotated' },
        key_second: { scopes: [...ALL, 'contract_build'], rotated_from: 'key_first', status: 'rotated' },
        key_third: { scopes: [...ALL, 'contract_build'], rotated_from: 'key_second', status: 'active' },
      });
      // The operator's key still initializes a schedule; the reader's does not.
      const init = (n: number) => {
        const caller = engine.authenticate({ apiKey: keyOf(n) });
        return engine.handle(
          { method: 'POST', path: '/api/v1/computable-contracts/builder/BLD-1001/rate-schedule/init/', query: new URLSearchParams(), headers: {}, body: '{}' },
          { key: 'key' in caller ? caller.key : undefined },
        ).status;
      };
      expect(init(1)).toBe(200);
      expect(init(2)).toBe(403);
      expect(init(3)).toBe(403);
    } finally {
      engine.close();
    }
  });
});
