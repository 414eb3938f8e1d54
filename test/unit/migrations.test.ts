// A landed migration is never edited (src/engine/store/migrations.ts: "Append, never edit a landed
// one"): a database written by an earlier release has run the old text and will not run it again,
// so an edit would give old and new databases different schemas without either knowing. Before the
// first release, migrations 1, 2 and 4 were edited in place; test/engine/upgrade.test.ts opens
// databases of the first two releases. Adding a migration: append its digest here.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';

const LANDED = [
  '11cf9b02567848ee',
  'c61ed65dd76d1fbe',
  '421df5682da2b0e6',
  'dcfc578ccca669fc',
  '1fbb207cb8c4b0e1',
  '629ea513c0ef14f8',
  '3d43dbc097658953',
  'b6ce04ac732d9e61',
  'a2590c644609b577',
  '52bbfce357b3db3d',
  '4409c0f43086aa53',
  'd545963b6e1c652c',
  '1482acc530547201',
  'ffea3df774e3b64d',
  '7082c9795999c242',
  'c4d6ab9a1206a440',
  '2cf4e024ba9a1abf',
  'fda31e6dfa5f839d',
  'b3b5bbb828de3608',
  'bc4d9c4f4c9339da',
  '317f42fdd69bc72a',
  '3d01fe1ef71b7976',
  'a0cbef55474ef8ff',
  'fa78828f9153b1df',
  // 25 (families).
  'a2165492216d4ebb',
  // 26: the payer's profile.
  'e18589f2cf7b2215',
  // 27: a paid line's copay.
  '5b62f9c83e5f75cd',
];

describe('migrations', () => {
  it('every landed migration is as it landed, and every migration is listed', () => {
    const digests = MIGRATIONS.map((sql) => createHash('sha256').update(sql).digest('hex').slice(0, 16));
    digests.slice(0, LANDED.length).forEach((d, i) => expect(d, `migration ${i + 1} was edited after it landed: add a new migration instead`).toBe(LANDED[i]));
    expect(digests.length, 'a migration was removed').toBeGreaterThanOrEqual(LANDED.length);
    expect(digests.slice(LANDED.length), 'a new migration: append its digest to LANDED').toEqual([]);
  });
});
