// Ledger pages at any depth: every page of every filter combination equals the same
// slice of the ledger read the slow way, the counts follow every status change, and no query of a
// page walks the rows it skips (EXPLAIN QUERY PLAN, not by eye).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonRow } from '../../src/domain/json-row.js';
import type { Engine } from '../../src/engine/engine.js';
import { readFilters } from '../../src/engine/services/ledger.js';
import { countsQuery, pageQuery, spansOf, PAGE_ROWS_SQL } from '../../src/engine/store/ledger.js';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';
import { DUE_SQL } from '../../src/engine/store/encounters.js';
import { cents } from '../helpers/values.js';

const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;

const NOW = '2026-06-20T12:00:00Z';
const NPIS = ['1045782368', '1196382455', '1329475804'];
const CODES: Record<string, string[]> = { '1045782368': ['45378', '45380', '43235'], '1196382455': ['00811', '00731'], '1329475804': ['88305', '88312'] };
const MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];

/** About 120 encounters over five months, some days crowded, some duplicates (denied), some pended, some funded, some still in adjudication. */
function buildLedger(): Engine {
  const slow = home.at(NOW, '1h');
  const engine = home.at(NOW, '0');
  for (let i = 0; i < 120; i++) {
    const npi = NPIS[i % NPIS.length]!;
    const codes = CODES[npi]!;
    // Crowded days near month ends, so pages cross days and months.
    const month = 1 + (i % 5);
    const day = i % 7 === 0 ? 28 : 1 + ((i * 11) % 27);
    const date = `2026-0${month}-${String(day).padStart(2, '0')}`;
    const claim = claimOf({
      npi,
      patient: MEMBERS[(i >> 2) % MEMBERS.length],
      lines: [{ code: codes[i % codes.length]!, date }],
      ...(i % 17 === 0 ? { preauthorization: undefined } : {}),
    });
    const res = call(i % 9 === 0 ? slow : engine, 'POST', '/tpa-api/v1/claims/submit/', claim, { 'content-type': 'application/fhir+json' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  // Fund a few adjudicated ones: status changes move the counts.
  const adjudicated = (call(engine, 'GET', '/tpa-api/v1/ledger/entries/?status=ADJUDICATED&limit=100').body as Body).results as Body[];
  for (const [n, item] of adjudicated.slice(0, 8).entries()) {
    const amount = item.financial_summary.benefit_amount as number;
    if (!(amount > 0)) continue;
    const res = call(engine, 'POST', '/tpa-api/v1/funding/approve/', { encounter_id: item.encounter_id, amount, authorization_code: `AUTH-20260620-T-${n}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return engine;
}

/** The matching encounter ids, newest first, read the slow way: every row, filtered in JavaScript. */
function reference(engine: Engine, q: Record<string, string>): string[] {
  const rows = engine.db
    .prepare('SELECT id, service_date, submitted_at, status FROM encounters ORDER BY service_date DESC, submitted_at DESC, id')
    .all() as Body[];
  const providers = engine.db.prepare('SELECT encounter_id, npi FROM encounter_providers').all() as Body[];
  const statuses = q.status === 'SUBMITTED' ? ['SUBMITTED', 'PROCESSING'] : q.status ? [q.status] : undefined;
  return rows
    .filter((r) => (!q.start_date || r.service_date >= q.start_date) && (!q.end_date || r.service_date <= q.end_date))
    .filter((r) => !statuses || statuses.includes(r.status))
    .filter((r) => !q.provider_npi || providers.some((p) => p.encounter_id === r.id && p.npi === q.provider_npi))
    .map((r) => r.id as string);
}

const FILTERS: Record<string, string>[] = [];
for (const status of [undefined, 'SUBMITTED', 'PROCESSING', 'ADJUDICATED', 'DENIED', 'FUNDED', 'PENDED'])
  for (const provider_npi of [undefined, '1045782368'])
    for (const range of [
      {},
      { start_date: '2026-02-14' },
      { end_date: '2026-04-09' },
      { start_date: '2026-02-14', end_date: '2026-04-09' },
      { start_date: '2026-03-05', end_date: '2026-03-05' },
    ]) {
      const q: Record<string, string> = { ...(range as Record<string, string>) };
      if (status) q.status = status;
      if (provider_npi) q.provider_npi = provider_npi;
      FILTERS.push(q);
    }

describe('ledger pages at any depth', () => {
  it('every page of every filter combination is the same slice as the slow reading, and count is its length', () => {
    const engine = buildLedger();
    const e = home.at('2026-06-20T12:00:00Z', '0');
    let pagesChecked = 0;
    for (const q of FILTERS) {
      const expected = reference(e, q);
      for (const limit of [1, 7, 20, 100]) {
        for (let offset = 0; offset <= expected.length + 1; offset += limit === 1 ? 13 : limit) {
          const query = new URLSearchParams({ ...q, limit: String(limit), offset: String(offset) });
          const page = call(e, 'GET', `/tpa-api/v1/ledger/entries/?${query}`).body as Body;
          expect(page.count, `${query}`).toBe(expected.length);
          expect(
            (page.results as Body[]).map((r) => r.encounter_id),
            `${query}`,
          ).toEqual(expected.slice(offset, offset + limit));
          pagesChecked++;
        }
      }
    }
    expect(pagesChecked).toBeGreaterThan(400);
    engine.close();
  });

  it('the counts text is summed per day or month, newest first, whatever order its rows come in', () => {
    const inKeyOrder = spansOf('2026-01 4,2026-02 1,2026-02 2,2026-03 0,2026-04 5,2026-04 -5,2026-05 1');
    expect(inKeyOrder).toEqual([
      { key: '2026-05', n: 1 },
      { key: '2026-02', n: 3 },
      { key: '2026-01', n: 4 },
    ]);
    expect(spansOf('2026-02 2,2026-05 1,2026-01 4,2026-04 5,2026-02 1,2026-03 0,2026-04 -5')).toEqual(inKeyOrder);
    expect(spansOf(null)).toEqual([]);
  });

  it('a page written as JSON text is byte for byte what JSON.stringify writes of it, keys in the order of the service, amounts null until adjudicated', () => {
    const engine = buildLedger();
    const ITEM_KEYS = 'id,encounter_id,encounter_number,ssp_code,ssp_name,provider,payer,service_date,status,status_progression,financial_summary';
    const AMOUNT_KEYS =
      'charges,allowed_amount,deductible_applied,copay_applied,coinsurance_applied,patient_responsibility,benefit_amount,payer_responsibility';
    const statuses = new Set<string>();
    for (const offset of [0, 37, 100]) {
      const res = engine.handle(
        {
          method: 'GET',
          path: '/tpa-api/v1/ledger/entries/',
          query: new URLSearchParams({ limit: '100', offset: String(offset) }),
          headers: {},
          body: undefined,
        },
        { text: true },
      );
      const text = (res.body as { text: string }).text;
      expect(typeof text).toBe('string');
      const page = JSON.parse(text) as Body;
      expect(JSON.stringify(page)).toBe(text);
      expect(Object.keys(page).join(',')).toBe('count,next,previous,results');
      for (const item of page.results as Body[]) {
        statuses.add(item.status);
        expect(Object.keys(item).join(',')).toBe(ITEM_KEYS);
        expect(Object.keys(item.provider).join(',')).toBe('npi,name,role');
        expect(Object.keys(item.payer).join(',')).toBe('name,id');
        expect(Object.keys(item.financial_summary).join(',')).toBe(AMOUNT_KEYS);
        expect(item.status_progression.at(-1).status).toBe(item.status);
        const adjudicated = !['SUBMITTED', 'PROCESSING', 'PENDED', 'DENIED'].includes(item.status);
        expect(item.financial_summary.allowed_amount === null, `${item.encounter_id} ${item.status}`).toBe(!adjudicated);
        if (adjudicated)
          expect(cents(item.financial_summary.allowed_amount)).toBe(
            cents(item.financial_summary.benefit_amount) + cents(item.financial_summary.patient_responsibility),
          );
      }
    }
    // Entries still in adjudication (amounts null), adjudicated and funded were all written.
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['ADJUDICATED', 'FUNDED', 'PROCESSING']));
    engine.close();
  });

  it('in-process a page comes as the very values of its JSON text, built from the rows or read back from a page sent before', () => {
    const engine = buildLedger();
    const ask = (q: Record<string, string>, options: { text?: boolean; json?: boolean }) =>
      engine.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/', query: new URLSearchParams(q), headers: {}, body: undefined }, options).body;
    const queries: Record<string, string>[] = [
      { limit: '100' },
      { limit: '100', offset: '37' },
      { status: 'FUNDED' },
      { provider_npi: NPIS[1]!, limit: '7', offset: '3' },
      { offset: '500' },
    ];
    for (const q of queries) {
      const built = ask(q, { json: true });
      // Asked again, the page is kept by the read cache; sent as text, it keeps only its text.
      const text = (ask(q, { text: true }) as { text: string }).text;
      expect(JSON.stringify(built), JSON.stringify(q)).toBe(text);
      expect(ask(q, { json: true })).toEqual(built);
      expect(ask(q, {})).toEqual(built);
    }
    engine.close();
  });

  it('in-process a page asked for its rows as text gives each row as JsonRow: its id, and the text JSON.stringify writes of its values', () => {
    const engine = buildLedger();
    const ask = (q: Record<string, string>, options: { json?: boolean; rowsAsText?: boolean }) =>
      engine.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/', query: new URLSearchParams(q), headers: {}, body: undefined }, options).body as {
        count: number;
        next: string | null;
        previous: string | null;
        results: unknown[];
      };
    const queries: Record<string, string>[] = [
      { limit: '100' },
      { limit: '100', offset: '37' },
      { status: 'FUNDED' },
      { provider_npi: NPIS[1]!, limit: '7', offset: '3' },
      { offset: '500' },
    ];
    for (const q of queries) {
      const values = ask(q, { json: true });
      const texts = ask(q, { json: true, rowsAsText: true });
      expect({ ...texts, results: [] }, JSON.stringify(q)).toEqual({ ...values, results: [] });
      expect(texts.results).toHaveLength(values.results.length);
      texts.results.forEach((row, i) => {
        expect(row).toBeInstanceOf(JsonRow);
        const item = values.results[i] as { encounter_id: string };
        expect((row as JsonRow).id).toBe(item.encounter_id);
        expect((row as JsonRow).text).toBe(JSON.stringify(item));
      });
    }
    // A page the read cache keeps (from its second request on), sent as text before, keeps only its
    // text: it comes as values, the same values.
    const page = { method: 'GET', path: '/tpa-api/v1/ledger/entries/', query: new URLSearchParams({ limit: '9' }), headers: {}, body: undefined };
    for (let i = 0; i < 2; i++) expect(engine.handle(page, { text: true }).status).toBe(200);
    const kept = ask({ limit: '9' }, { json: true, rowsAsText: true });
    expect(kept.results.some((row) => row instanceof JsonRow)).toBe(false);
    expect(kept).toEqual(ask({ limit: '9' }, { json: true }));
    engine.close();
  });

  it('the pages of one read snapshot read the month counts once; outside one, each page reads them', async () => {
    const engine = buildLedger();
    let monthReads = 0;
    const prepare = engine.db.prepare.bind(engine.db);
    engine.db.prepare = ((sql: string) => {
      if (sql.includes('FROM ledger_months')) monthReads++;
      return prepare(sql);
    }) as typeof engine.db.prepare;
    const page = (offset: number) =>
      engine.handle(
        {
          method: 'GET',
          path: '/tpa-api/v1/ledger/entries/',
          query: new URLSearchParams({ limit: '10', offset: String(offset) }),
          headers: {},
          body: undefined,
        },
        { json: true },
      ).body as { results: { encounter_id: string }[] };
    const outside = [0, 10, 20, 30].map((o) => page(o).results.map((r) => r.encounter_id));
    expect(monthReads).toBe(4);
    monthReads = 0;
    const inside = await engine.readSnapshot(async () => [0, 10, 20, 30].map((o) => page(o).results.map((r) => r.encounter_id)));
    expect(monthReads).toBe(1);
    expect(inside).toEqual(outside);
    // Another filter is other counts, read once too.
    monthReads = 0;
    await engine.readSnapshot(async () => {
      for (const status of ['FUNDED', 'FUNDED', 'ADJUDICATED'])
        engine.handle({ method: 'GET', path: '/tpa-api/v1/ledger/entries/', query: new URLSearchParams({ status }), headers: {}, body: undefined });
    });
    expect(monthReads).toBe(2);
    engine.close();
  });

  it('the counts follow adjudication, funding and settlement-failure moves, so a filtered count never drifts', () => {
    const engine = buildLedger();
    // An hour later the slow engine's claims are adjudicated: they leave SUBMITTED/PROCESSING.
    const later = home.at('2026-06-20T13:00:01Z', '0');
    for (const status of ['SUBMITTED', 'ADJUDICATED', 'FUNDED', 'DENIED', 'PENDED']) {
      const page = call(later, 'GET', `/tpa-api/v1/ledger/entries/?status=${status}&limit=100`).body as Body;
      expect(page.count, status).toBe(reference(later, { status }).length);
    }
    expect((call(later, 'GET', '/tpa-api/v1/ledger/entries/?status=SUBMITTED').body as Body).count).toBe(0);
    const funded = (call(later, 'GET', '/tpa-api/v1/ledger/entries/?status=FUNDED').body as Body).results as Body[];
    expect(funded.length).toBeGreaterThan(0);
    later.simulate('settlement-failure', funded[0]!.encounter_id);
    for (const q of [{ status: 'FUNDED' }, { status: 'ADJUDICATED' }, { status: 'FUNDED', provider_npi: funded[0]!.provider.npi as string }] as Record<
      string,
      string
    >[]) {
      expect((call(later, 'GET', `/tpa-api/v1/ledger/entries/?${new URLSearchParams(q)}`).body as Body).count, JSON.stringify(q)).toBe(
        reference(later, q).length,
      );
    }
    // The stored counts equal a recount from the rows, for every scope, status and day.
    const stored = later.db.prepare('SELECT scope, status, day, n FROM ledger_days WHERE n <> 0 ORDER BY 1, 2, 3').all();
    const recount = later.db
      .prepare(
        `SELECT scope, status, day, n FROM (
           SELECT '' AS scope, status, service_date AS day, COUNT(*) AS n FROM encounters GROUP BY status, service_date
           UNION ALL SELECT p.npi, e.status, e.service_date, COUNT(*) FROM encounter_providers p JOIN encounters e ON e.id = p.encounter_id GROUP BY p.npi, e.status, e.service_date)
         ORDER BY 1, 2, 3`,
      )
      .all();
    expect(stored).toEqual(recount);
    engine.close();
  });

  it('no query of a page walks the rows it skips: the plans of every filter combination (EXPLAIN QUERY PLAN)', () => {
    const engine = home.at(NOW, '0');
    const plan = (sql: string, params: Record<string, unknown> | unknown[]) =>
      (engine.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((p) => p.detail);
    for (const q of FILTERS) {
      const f = readFilters(new URLSearchParams(q));
      for (const level of ['month', 'day'] as const) {
        const c = countsQuery(f, level, '2026-01', '2026-06-31');
        const steps = plan(c.sql, c.params);
        // A range of the counts' primary key: a few dozen rows, never a scan.
        expect(steps.join('\n'), `${level} ${JSON.stringify(q)}`).toMatch(
          new RegExp(`SEARCH ledger_${level}s USING PRIMARY KEY \\(scope=\\? AND ${level}>\\? AND ${level}<\\?\\)`),
        );
        // The counts come back as one JSON text: the only scan is of the sub-query's few rows, never a table's.
        expect(steps.join('\n')).not.toMatch(/\bSCAN (?!\(subquery-\d+\))/);
      }
      const p = pageQuery(f, '2026-03-01', '2026-03-05', 3);
      const steps = plan(p.sql, p.params);
      // One narrow index over the page's days, already in order: no sort, no table rows.
      expect(steps[0], JSON.stringify(q)).toBe('SEARCH e USING COVERING INDEX encounters_listing (service_date>? AND service_date<?)');
      expect(steps.join('\n')).not.toMatch(/TEMP B-TREE|\bSCAN\b/);
      if (q.provider_npi) expect(steps.join('\n')).toMatch(/SEARCH p USING PRIMARY KEY \(encounter_id=\? AND npi=\?\)/);
    }
    // What a read request asks before its page: whether anything is due, from the two partial indexes of what is pending.
    expect(plan(DUE_SQL, { now: NOW }).join('\n')).toMatch(
      /SEARCH encounters USING (COVERING )?INDEX encounters_due \(ready_at<\?\)[\s\S]*SEARCH settlements USING (COVERING )?INDEX settlements_due \(estimated_arrival<\?\)/,
    );
    expect(plan(DUE_SQL, { now: NOW }).join('\n')).not.toMatch(/\bSCAN (?!CONSTANT ROW)/);
    expect(plan(PAGE_ROWS_SQL, ['[1,2]']).join('\n')).toMatch(/SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan(PAGE_ROWS_SQL, ['[1,2]']).join('\n')).not.toMatch(/SCAN e\b/);
    // A status change moves one count per scope of the encounter: the trigger seeks each, never scans the counts.
    const trigger = engine.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'ledger_count_status'").pluck().get() as string;
    const updates = trigger.match(/UPDATE ledger_\w+ SET[^;]+/g)!;
    expect(updates).toHaveLength(2);
    for (const update of updates) {
      const literal = update.replace(
        /\b(?:OLD|NEW)\.(\w+)/g,
        (_, column: string) => ({ id: "'enc_x'", service_date: "'2026-03-01'", status: "'ADJUDICATED'" })[column]!,
      );
      const steps = plan(literal, []).join('\n');
      expect(steps, update).toMatch(/SEARCH ledger_\w+ USING PRIMARY KEY \(scope=\? AND (day|month)=\? AND status=\?\)/);
      expect(steps, update).not.toMatch(/SCAN (ledger|encounter)/);
    }
  });
});
