// The audit head kept outside the database: `tpa local audit head` prints it, fund
// releases print it after they move money, and `audit verify --expect-head` catches what the chain
// alone cannot: records rewritten with sqlite and every hash after them recomputed.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditHash, type StoredAudit } from '../../src/domain/audit.js';
import { databaseFile } from '../../src/engine/engine.js';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { ndjson } from '../helpers/values.js';

const env = { TPA_CLOCK: '2026-03-02T10:00:00Z' };
const home = useTpaHome(beforeEach, afterEach, env);
type Head = { seq: number; hash: string };

/** What an attacker with the data directory does: change a record, then recompute every hash from it on. */
function rewrite(dir: string, change: (data: Record<string, any>) => void, type: string): void {
  const db = new Database(databaseFile(dir));
  db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete');
  const records = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as StoredAudit[];
  const at = records.findIndex((r) => r.type === type);
  expect(at).toBeGreaterThanOrEqual(0);
  let prev = records[at]!.prev_hash;
  const update = db.prepare('UPDATE audit_log SET data_json = ?, prev_hash = ?, hash = ? WHERE seq = ?');
  for (const r of records.slice(at)) {
    const data = JSON.parse(r.data_json) as Record<string, any>;
    if (r.seq === records[at]!.seq) change(data);
    const hash = auditHash(prev, { seq: r.seq, at: r.at, type: r.type, subject: r.subject, data, actor: r.actor });
    update.run(JSON.stringify(data), prev, hash, r.seq);
    prev = hash;
  }
  db.close();
}

describe('the audit head kept outside the database', () => {
  it('fund approve prints the head after the release; a rewrite with every hash recomputed passes plain verify and fails --expect-head', async () => {
    const enc = await adjudicatedEncounter(home.run, home.dir);
    const approved = await home.run(['fund', 'approve', enc.id, '--amount', enc.amount, '--auth-code', 'AUTH-ANCHOR-0001', '--yes', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    const anchored = approved.json<{ audit_head: Head }>().audit_head;
    const head = await home.run(['local', 'audit', 'head', '-o', 'json']);
    expect(head.code, head.stderr).toBe(0);
    expect(head.json()).toEqual(anchored);
    expect(anchored).toEqual({ seq: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const list = await home.run(['local', 'audit', 'list', '-o', 'json']);
    expect(list.json<{ actor: string }[]>().map((r) => r.actor)).toEqual(Array(anchored.seq).fill('local:local'));

    // Later records extend the anchored head: it still verifies.
    await adjudicatedEncounter(home.run, home.dir, { template: ['--type', 'institutional', '--patient', 'MBR-1001'] });
    const extended = await home.run(['local', 'audit', 'verify', '--expect-head', anchored.hash, '-o', 'json']);
    expect(extended.code, extended.stderr).toBe(0);
    expect(extended.json()).toMatchObject({ whole: true, count: anchored.seq + 1, expected_head: anchored.hash });

    // The transfer made 100.00 larger in the chain, every hash after recomputed.
    rewrite(home.dir, (d) => (d.transfer_amount_cents += 10000), 'FUNDING_APPROVED');
    const plain = await home.run(['local', 'audit', 'verify', '-o', 'json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.json()).toMatchObject({ whole: true, count: anchored.seq + 1 });
    const caught = await home.run(['local', 'audit', 'verify', '--expect-head', anchored.hash, '-o', 'json']);
    expect(caught.code).toBe(4);
    expect(caught.json()).toMatchObject({ whole: false, verified: anchored.seq + 1, expected_head: anchored.hash });
    expect(caught.stderr).toContain(`no record has the expected head ${anchored.hash}`);
    expect(JSON.parse(caught.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { exit_code: 4, code: 'audit_head_missing' } });
    const deep = await home.run(['local', 'audit', 'verify', '--deep', '--expect-head', anchored.hash]);
    expect(deep.code).toBe(4);
  });

  it('a head cut back past the anchor fails --expect-head; a malformed hash is a usage error', async () => {
    await adjudicatedEncounter(home.run, home.dir);
    await adjudicatedEncounter(home.run, home.dir, { template: ['--type', 'institutional', '--patient', 'MBR-1003'] });
    const head = (await home.run(['local', 'audit', 'head', '-o', 'json'])).json<Head>();
    expect(head.seq).toBe(2);
    const table = await home.run(['local', 'audit', 'head']);
    expect(table.stdout).toContain(head.hash);
    const db = new Database(databaseFile(home.dir));
    db.exec('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 2');
    db.close();
    expect((await home.run(['local', 'audit', 'verify'])).code).toBe(0);
    const cut = await home.run(['local', 'audit', 'verify', '--expect-head', head.hash]);
    expect(cut.code).toBe(4);
    expect(cut.stderr).toMatch(/rewritten .* or cut back/);
    for (const bad of ['abc', head.hash.toUpperCase(), `${head.hash}0`]) {
      const r = await home.run(['local', 'audit', 'verify', '--expect-head', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain('--expect-head');
    }
  });

  it('fund run prints the head after its releases: a line of its summary, and a field of each approval it sent', async () => {
    for (const patient of ['MBR-1001', 'MBR-1002'])
      await adjudicatedEncounter(home.run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
    const review = await home.run(['fund', 'run', '--dry-run', '-o', 'json']);
    expect(review.code, review.stderr).toBe(0);
    const total = review.json<{ total: string }>().total;
    const r = await home.run(['fund', 'run', '--auth-code-prefix', 'AUTH-20260302-ANCHOR', '--expect-total', String(total), '--yes', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson<{ status: string; audit_head: Head }>(r.stdout);
    expect(rows.map((o) => o.status)).toEqual(['APPROVED', 'APPROVED']);
    expect(rows[1]!.audit_head.seq).toBeGreaterThan(rows[0]!.audit_head.seq);
    const head = (await home.run(['local', 'audit', 'head', '-o', 'json'])).json<Head>();
    expect(rows[1]!.audit_head).toEqual(head);
    expect(r.stderr).toMatch(new RegExp(`Audit head\\s+record ${head.seq} ${head.hash}`));
  });
});
