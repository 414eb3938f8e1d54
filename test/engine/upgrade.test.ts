// Upgrades keep data: databases written by earlier releases, each through that release's
// own engine (scripts/upgrade-fixture.mjs: the first landed release, 050532c, schema 5; the second,
// 0f08aaf, schema 7), with claims paid, denied for coverage and as a duplicate, and fund approvals
// settled and reconciled, are opened by this release. It migrates them forward and answers every
// request the old release answered with the same status and the same fields and values (it may add
// fields the old one did not have; asToday lists the two forms changed on purpose since).
import Database from 'better-sqlite3';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/engine/store/db.js';
import { claimOf } from '../helpers/claims.js';
import { tpa } from '../helpers/cli.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

interface Fixture {
  release: string;
  schema_version: number;
  clock: string;
  answers: { method: string; path: string; status: number; body: unknown }[];
}

/**
 * The first release's answers in today's form where a later release changed the form on purpose
 * (the data stays the same, and every other field is compared as it was):
 * - b2b1b79 lists coinsurance as its own adjudication category in a ClaimResponse's lines (FHIR
 *   C4BB): the raw resource is left out, its amounts are compared through `adjudication`;
 * - 72c5649: a denied or pended claim has no adjudication, so its amounts, lines' amounts and
 *   processor trace are null (docs/money-funding.md "The ledger"), where the first release said 0 or a trace id.
 * Returns the answer to expect and how many of its fields became null.
 */
function asToday(name: string, body: unknown): { expected: unknown; nulled: number } {
  if (name !== 'first-release' || body === null || typeof body !== 'object') return { expected: body, nulled: 0 };
  const expected = structuredClone(body) as Record<string, unknown>;
  delete expected.claim_response;
  let nulled = 0;
  const nullLeaves = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(nullLeaves);
    // The plan's terms and what was met before stay: only what adjudication decides is null.
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, /^plan_|_met_prior$/.test(k) ? v : nullLeaves(v)]));
    if (typeof node === 'number' || (typeof node === 'string' && node.startsWith('tr_'))) nulled++;
    return typeof node === 'number' || (typeof node === 'string' && node.startsWith('tr_')) ? null : node;
  };
  const unadjudicated = (status: unknown) => status === 'DENIED' || status === 'PENDED';
  const entries = Array.isArray(expected.results) ? (expected.results as Record<string, unknown>[]) : [];
  for (const row of entries) {
    const summary = row.financial_summary as Record<string, unknown>;
    // The charges stay: only what adjudication decides is null.
    if (unadjudicated(row.status)) row.financial_summary = { ...(nullLeaves(summary) as object), charges: summary.charges };
  }
  const encounter = expected.encounter as Record<string, unknown> | undefined;
  if (encounter && unadjudicated(encounter.status)) {
    const summary = expected.financial_summary as Record<string, unknown>;
    expected.financial_summary = { ...(nullLeaves(summary) as object), submitted_charges: summary.submitted_charges, service_date: summary.service_date };
    expected.service_lines = (expected.service_lines as Record<string, unknown>[]).map((l) => ({
      ...l,
      ...Object.fromEntries(
        ['allowed_amount', 'deductible_applied', 'copay_applied', 'coinsurance_applied', 'patient_responsibility', 'benefit_amount'].map((k) => [
          k,
          nullLeaves(l[k]),
        ]),
      ),
    }));
    const reconciliation = expected.reconciliation as Record<string, unknown>;
    expected.reconciliation = { ...reconciliation, processor_trace_id: nullLeaves(reconciliation.processor_trace_id) };
  }
  return { expected, nulled };
}

const fixtureDir = join(__dirname, '../fixtures/upgrade');
const load = (name: string) => JSON.parse(readFileSync(join(fixtureDir, `${name}.json`), 'utf8')) as Fixture;

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

/** A copy of the fixture database as a data dir's local.sqlite; returns its schema version as found. */
function install(name: string): number {
  copyFileSync(join(fixtureDir, `${name}.sqlite`), join(home.dir, 'local.sqlite'));
  const db = new Database(join(home.dir, 'local.sqlite'), { readonly: true });
  const version = db.pragma('user_version', { simple: true }) as number;
  db.close();
  return version;
}

describe.each(['first-release', 'second-release'])('a database written by an earlier release (%s)', (name) => {
  const fixture = load(name);

  it('is migrated to the current schema and answers as the old release did', () => {
    expect(install(name)).toBe(fixture.schema_version);
    expect(fixture.schema_version).toBeLessThan(SCHEMA_VERSION);
    const engine = engineAt(home.dir, fixture.clock, '0');
    try {
      expect(engine.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(engine.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(fixture.answers.length).toBeGreaterThanOrEqual(5);
      let nulled = 0;
      for (const old of fixture.answers) {
        const now = call(engine, old.method, old.path);
        expect(now.status, `${old.method} ${old.path}`).toBe(old.status);
        const today = asToday(name, old.body);
        nulled += today.nulled;
        expect(now.body, `${old.method} ${old.path}`).toMatchObject(today.expected as object);
      }
      // The first release's denied encounters are where the form changed; the second's answers are compared as they were.
      if (name === 'first-release') expect(nulled).toBeGreaterThan(0);
      else expect(nulled).toBe(0);
      // The migrated ledger goes on: the audit chain (begun after the upgrade) verifies.
      expect(engine.auditVerify()).toMatchObject({ whole: true });
      // Its rows from before the chain recorded payouts are checked as far as the chain knows them:
      // the tables agree, nothing made before is flagged for want of a record.
      expect(engine.auditVerifyDeep()).toMatchObject({ whole: true, disagreementCount: 0, disagreements: [] });
    } finally {
      engine.close();
    }
  });

  it('a visit whose copay an old claim took costs no second copay on a claim sent after the upgrade', () => {
    install(name);
    // Both releases paid MBR-1003's 43235 from 1045782368 on 2026-08-05, copay 25.00 taken; the
    // same visit's next line (45378, another code: no duplicate) takes none.
    const engine = engineAt(home.dir, fixture.clock, '0');
    try {
      const claim = claimOf({ npi: '1045782368', patient: 'MBR-1003', lines: [{ code: '45378', date: '2026-08-05' }] });
      const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim);
      expect(ack.status, JSON.stringify(ack.body)).toBe(201);
      const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(ack.body as { external_claim_id: string }).external_claim_id}/`).body as {
        service_lines: { status: string; allowed_amount: number; copay_applied: number }[];
      };
      expect(detail.service_lines).toMatchObject([{ status: 'ALLOWED', copay_applied: 0 }]);
      expect(detail.service_lines[0]!.allowed_amount).toBeGreaterThan(0);
      // Another date of the same provider is another visit: its copay is taken.
      const next = call(
        engine,
        'POST',
        '/tpa-api/v1/claims/submit/',
        claimOf({ npi: '1045782368', patient: 'MBR-1003', lines: [{ code: '45378', date: '2026-08-06' }] }),
      );
      expect(next.status).toBe(201);
      const other = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(next.body as { external_claim_id: string }).external_claim_id}/`).body as {
        service_lines: { copay_applied: number }[];
      };
      expect(other.service_lines).toMatchObject([{ copay_applied: 25 }]);
    } finally {
      engine.close();
    }
  });

  it('the CLI opens it as it is (no reset, no prompt) and lists what the old release wrote', async () => {
    install(name);
    const r = await tpa(['ledger', 'list', '-p', 'local', '-o', 'json', '--all'], { home: home.dir, env: { TPA_CLOCK: fixture.clock } });
    expect(r.code, r.stderr).toBe(0);
    const submitted = fixture.answers.filter((a) => a.path.includes('/claims/')).map((a) => (a.body as { external_claim_id: string }).external_claim_id);
    expect((JSON.parse(r.stdout) as { encounter_id: string }[]).map((e) => e.encounter_id).sort()).toEqual([...new Set(submitted)].sort());
  });
});
