// The read cache (src/engine/read-cache.ts): a page is kept only when it is asked for a second time,
// and nothing kept outlives a change of the data.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);

const page = (engine: Engine, query: string) =>
  engine.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/', query: new URLSearchParams(query), headers: {}, body: undefined }, { text: true });
const submit = (engine: Engine, date: string) =>
  expect(
    call(engine, 'POST', '/tpa-api/v1/claims/submit/', claimOf({ npi: '1045782368', patient: 'MBR-1001', lines: [{ code: '45378', date }] }), {
      'content-type': 'application/fhir+json',
    }).status,
  ).toBe(201);

describe('the read cache', () => {
  it('keeps a page from its second request on, and forgets it when the ledger changes', () => {
    const engine = home.at('2026-06-20T12:00:00Z', '0');
    submit(engine, '2026-06-01');
    const first = page(engine, 'limit=5');
    const second = page(engine, 'limit=5');
    const third = page(engine, 'limit=5');
    // The first answer is not kept (a page asked for once would only fill the cache); the second is.
    expect(second.body).not.toBe(first.body);
    expect(third.body).toBe(second.body);
    // Another page is computed on its own.
    expect(page(engine, 'limit=6').body).not.toBe(third.body);
    submit(engine, '2026-06-02');
    const after = page(engine, 'limit=5');
    expect(after.body).not.toBe(third.body);
    expect(JSON.parse((after.body as { text: string }).text).count).toBe(2);
  });
});
