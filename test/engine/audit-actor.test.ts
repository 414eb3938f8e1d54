// Who acted, in each audit record: the API key's id (never the key), the OAuth client,
// the local profile of the CLI on the embedded engine, or the engine for what its clock made due.
// The actor is inside the record's hash; records made before actors were recorded keep theirs.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { databaseFile, Engine } from '../../src/engine/engine.js';
import type { KeyRecord } from '../../src/engine/services/keys.js';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';
import { SEEDS } from '../../src/engine/store/seed.js';
import { call, tempDir, useEngineHome } from '../helpers/engine.js';

const MON = '2026-03-02T10:00:00Z';
const WED = '2026-03-04T12:00:00Z';
type Body = Record<string, any>;
const home = useEngineHome(beforeEach, afterEach);

const request = (method: string, path: string, body?: unknown) => ({
  method,
  path,
  query: new URLSearchParams(),
  headers: {},
  body: body === undefined ? undefined : JSON.stringify(body),
});

function approveAll(e: Engine, id: string, code: string, key?: KeyRecord) {
  const detail = e.handle(request('GET', `/tpa-api/v1/ledger/entries/${id}/`), { key }).body as Body;
  return e.handle(
    request('POST', '/tpa-api/v1/funding/approve/', {
      encounter_id: id,
      amount: detail.financial_summary.payer_responsibility.total,
      authorization_code: code,
    }),
    { key },
  );
}

describe('the actor of each audit record', () => {
  it('is the API key id, the OAuth client, the local profile, or the engine for what the clock made due', () => {
    const mon = home.track(Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON, TPA_ADJUDICATION_DELAY: '0' }, actor: 'local:ops' }));
    const { apiKey, record: key } = mon.createKey('sandbox', ['claim_pricing', 'fund_release', 'ledger_access']);
    // Through the route table as the HTTP server calls it, with the caller's key.
    const ack = mon.handle(
      request('POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02' })),
      {
        key,
      },
    ).body as Body;
    expect(approveAll(mon, ack.external_claim_id, 'AUTH-ACTOR-0001', key).status).toBe(200);
    // OAuth over mutual TLS: the token stands for its client.
    const cert = { fingerprint: 'AA:BB', commonName: 'acme-tpa' };
    mon.registerClient('acme-tpa', ['claim_pricing']);
    const token = mon.issueToken(request('POST', '/oauth2/token', { grant_type: 'client_credentials', client_id: 'acme-tpa', scopes: ['claim_pricing'] }), cert)
      .body as Body;
    const caller = mon.authenticate({ bearer: token.access_token, certificate: cert });
    expect('key' in caller).toBe(true);
    if (!('key' in caller)) return;
    mon.handle(request('POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1003', serviceDate: '2026-03-02' })), {
      key: caller.key,
    });
    // In-process, with no key: the local profile the engine was opened for.
    const local = call(mon, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'professional', patient: 'MBR-1001', serviceDate: '2026-03-02' }))
      .body as Body;
    // The transfer arrives on Wednesday: the engine's doing, whoever's request moved the clock.
    const wed = home.track(Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: WED }, actor: 'local:ops' }));
    wed.handle(request('GET', `/tpa-api/v1/settlement/${ack.external_claim_id}/`), { key });

    const records = [...wed.auditList({})].map((r) => [r.type, r.subject, r.actor]);
    const byKey = `api_key:${key.id}`;
    expect(records).toEqual([
      ['KEY_CREATED', key.id, 'local:ops'],
      ['SUBMISSION', ack.external_claim_id, byKey],
      ['FUNDING_APPROVED', ack.external_claim_id, byKey],
      ['SETTLEMENT_INITIATED', ack.external_claim_id, byKey],
      ['PAYOUT', ack.external_claim_id, byKey],
      ['PAYOUT', ack.external_claim_id, byKey],
      ['PAYOUT', ack.external_claim_id, byKey],
      ['PAYOUT', ack.external_claim_id, byKey],
      ['CLIENT_REGISTERED', 'acme-tpa', 'local:ops'],
      ['SUBMISSION', expect.any(String), 'oauth:acme-tpa'],
      ['SUBMISSION', local.external_claim_id, 'local:ops'],
      ['SETTLEMENT_COMPLETED', ack.external_claim_id, 'engine'],
      ['RECONCILIATION', ack.external_claim_id, 'engine'],
    ]);
    // The key itself is nowhere in the log.
    const all = JSON.stringify([...wed.auditList({})]);
    expect(all).not.toContain(apiKey);
    expect(all).not.toContain(apiKey.slice(-12));
    expect(wed.auditVerify()).toMatchObject({ whole: true, count: 13 });
  });

  it('is inside the hash: changed, or removed, the chain breaks at that record', () => {
    const mon = home.at(MON, '0');
    for (const patient of ['MBR-1002', 'MBR-1003'])
      call(mon, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient, serviceDate: '2026-03-02' }));
    mon.close();
    for (const sql of [`UPDATE audit_log SET actor = 'api_key:key_someone_else' WHERE seq = 2`, 'UPDATE audit_log SET actor = NULL WHERE seq = 2']) {
      const db = new Database(databaseFile(home.dir));
      db.exec(`DROP TRIGGER IF EXISTS audit_log_no_update; ${sql}`);
      db.close();
      const e = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: MON } });
      expect(e.auditVerify(), sql).toMatchObject({ whole: false, seq: 2, reason: expect.stringMatching(/edited/) });
      e.close();
      const fix = new Database(databaseFile(home.dir));
      fix.exec(`UPDATE audit_log SET actor = 'local' WHERE seq = 2`);
      fix.close();
    }
  });

  it('leaves the records made before it as they were: no actor, the same hash, and the chain goes on after them', () => {
    // A database of the schema before actors (every migration before the one adding them), with two
    // records made by that release: hashed over seq, at, type, subject and data only.
    const dir = tempDir();
    try {
      const db = new Database(databaseFile(dir.dir));
      db.pragma('journal_mode = WAL');
      const actors = MIGRATIONS.findIndex((sql) => sql.includes('ADD COLUMN actor'));
      expect(actors).toBeGreaterThan(0);
      for (let v = 0; v < actors; v++) {
        db.exec(MIGRATIONS[v]!);
        SEEDS[v]?.(db, () => new Date(MON));
      }
      db.pragma(`user_version = ${actors}`);
      expect((db.prepare('PRAGMA table_info(audit_log)').all() as { name: string }[]).map((c) => c.name)).not.toContain('actor');
      // The release before's hash, written out here rather than taken from src/domain/audit.ts.
      const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
      let prev = '0'.repeat(64);
      for (const [seq, subject] of [
        [1, 'key_old1'],
        [2, 'key_old2'],
      ] as const) {
        const content = `{"at":"${MON}","data":{"environment":"sandbox"},"seq":${seq},"subject":"${subject}","type":"KEY_CREATED"}`;
        const hash = sha(`${prev}\n${content}`);
        db.prepare('INSERT INTO audit_log (seq, at, type, subject, data_json, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          seq,
          MON,
          'KEY_CREATED',
          subject,
          '{"environment":"sandbox"}',
          prev,
          hash,
        );
        prev = hash;
      }
      db.close();
      const e = Engine.open({ dataDir: dir.dir, env: { TPA_CLOCK: MON, TPA_ADJUDICATION_DELAY: '0' }, actor: 'local:ops' });
      try {
        expect(e.auditVerify()).toEqual({ whole: true, count: 2, head: prev });
        call(e, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02' }));
        const records = [...e.auditList({})];
        expect(records.map((r) => [r.seq, r.actor])).toEqual([
          [1, null],
          [2, null],
          [3, 'local:ops'],
        ]);
        expect(records[1]!.hash).toBe(prev);
        expect(records[2]!.prev_hash).toBe(prev);
        expect(e.auditVerify()).toMatchObject({ whole: true, count: 3 });
      } finally {
        e.close();
      }
    } finally {
      dir.remove();
    }
  });

  it('answers a fund release with the audit head after it, and nothing else with it', () => {
    const mon = home.at(MON, '0');
    const ack = call(mon, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-03-02' }))
      .body as Body;
    const before = mon.auditHead();
    const approved = approveAll(mon, ack.external_claim_id, 'AUTH-HEAD-0001');
    expect(approved.status).toBe(200);
    const head = mon.auditHead();
    expect(head.seq).toBeGreaterThan(before.seq);
    expect(approved.headers['x-audit-head']).toBe(`${head.seq} ${head.hash}`);
    expect(mon.auditVerify()).toEqual({ whole: true, count: head.seq, head: head.hash });
    // A refused release (already funded) and any other answer carry none.
    expect(approveAll(mon, ack.external_claim_id, 'AUTH-HEAD-0002').headers['x-audit-head']).toBeUndefined();
    expect(call(mon, 'GET', `/tpa-api/v1/ledger/entries/${ack.external_claim_id}/`).headers['x-audit-head']).toBeUndefined();
  });
});
