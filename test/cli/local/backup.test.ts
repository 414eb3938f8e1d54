// tpa local backup and tpa local restore (docs/local-data.md "Backups"): a backup taken from a running
// `tpa local serve` while claims are written to it over HTTP is a whole, consistent prefix of them;
// a restore is refused while the data directory is served, puts the backup in place once stopped,
// and refuses any file that is not a whole tpa database with nothing replaced.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StoredAudit, verifyChain } from '../../../src/domain/audit.js';
import { SCHEMA_VERSION } from '../../../src/engine/store/db.js';
import { until } from '../../helpers/barrier.js';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa, TPA_BIN, testEnv, tpa, useTpaHome } from '../../helpers/cli.js';
import { databaseContent, tempDir } from '../../helpers/engine.js';
import { createKey, serve } from '../../helpers/server.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };
const RENAME_HOLD = fileURLToPath(new URL('../../helpers/rename-hold.mjs', import.meta.url));
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

interface EncounterRow {
  encounter_number: string;
  allowed_cents: number;
  benefit_cents: number;
  patient_cents: number;
  outcome_json: string;
  entries: number;
}

/**
 * What a backup file holds, read without tpa: SQLite's integrity check, the audit chain walked by the
 * domain's own rule, and every encounter with its amounts, its lines and its history entries.
 */
function readCopy(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      chain: verifyChain(db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as StoredAudit[]),
      submissions: db.prepare(`SELECT count(*) FROM audit_log WHERE type = 'SUBMISSION'`).pluck().get() as number,
      encounters: db
        .prepare(
          `SELECT encounter_number, allowed_cents, benefit_cents, patient_cents, outcome_json,
             (SELECT count(*) FROM history_entries h WHERE h.encounter_id = e.id) AS entries
           FROM encounters e ORDER BY encounter_number`,
        )
        .all() as EncounterRow[],
    };
  } finally {
    db.close();
  }
}

/** Each encounter whole: allowed = benefit + patient responsibility, to the cent, and so for each line, whose amounts add up to the encounter's. */
function expectWhole(encounters: readonly EncounterRow[]): void {
  for (const e of encounters) {
    expect(e.allowed_cents, e.encounter_number).toBe(e.benefit_cents + e.patient_cents);
    const lines = (JSON.parse(e.outcome_json) as { lines: { allowedCents: number; benefitCents: number; patientResponsibilityCents: number }[] }).lines;
    for (const l of lines) expect(l.allowedCents, e.encounter_number).toBe(l.benefitCents + l.patientResponsibilityCents);
    expect(
      lines.reduce((s, l) => s + l.allowedCents, 0),
      e.encounter_number,
    ).toBe(e.allowed_cents);
    expect(
      lines.reduce((s, l) => s + l.benefitCents, 0),
      e.encounter_number,
    ).toBe(e.benefit_cents);
    // SUBMISSION, VALIDATION, ADJUDICATION: the history the claim's transaction wrote.
    expect(e.entries, e.encounter_number).toBeGreaterThanOrEqual(3);
  }
}

/** Claims submitted over HTTP one after another until stopped; `acked` counts the 201s. */
function writeClaims(url: string, key: string) {
  const state = { acked: 0, stop: false, failure: undefined as unknown };
  const done = (async () => {
    for (let i = 0; !state.stop; i++) {
      const res = await fetch(`${url}/tpa-api/v1/claims/submit/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(distinctClaim(i)),
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`claim ${i}: ${res.status}`);
      state.acked++;
    }
  })().catch((err) => {
    state.failure = err;
  });
  return {
    get acked() {
      if (state.failure) throw state.failure;
      return state.acked;
    },
    async stop() {
      state.stop = true;
      await done;
      if (state.failure) throw state.failure;
      return state.acked;
    },
  };
}

describe('backup and restore against a running local serve under writes', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('a backup taken while claims are written over HTTP is whole and a prefix of them; restore is refused while served, then puts it back', async () => {
    let server = await serve(home.dir, ['--no-rate-limit'], CLOCK);
    const key = await createKey(home.dir);
    const writer = writeClaims(server.url, key);
    const file = join(out.dir, 'sandbox.sqlite');
    let copy: ReturnType<typeof readCopy>;
    try {
      await until(() => writer.acked >= 5);
      const before = writer.acked;
      // Another process, as a cron job would run it, while the server commits claim after claim.
      const r = await tpa(['local', 'backup', file, '-o', 'json'], { home: home.dir, env: CLOCK });
      const during = writer.acked - before;
      expect(r.code, r.stderr).toBe(0);
      // The writes went on while the backup ran, and after it.
      expect(during).toBeGreaterThan(0);
      await until(() => writer.acked >= before + during + 3);
      const total = await writer.stop();
      const facts = r.json<{ backup: string; bytes: number; encounters: number; ledger_entries: number; audit_head: string; audit_head_seq: number }>();
      expect(facts.backup).toBe(file);
      expect(facts.bytes).toBe(statSync(file).size);
      expect(mode(file)).toBe(0o600);
      // No temporary file is left beside it, and nothing beside it is needed to open it.
      expect(readdirSync(out.dir).filter((f) => f !== 'sandbox.sqlite' && f !== 'journals')).toEqual([]);

      copy = readCopy(file);
      expect(copy.integrity).toBe('ok');
      expect(copy.chain).toMatchObject({ whole: true, count: facts.audit_head_seq, head: facts.audit_head });
      // A prefix: the first n claims, each whole (claim i is ENC-2026-00000i+1), n between the writes
      // acknowledged before the backup began and all of them.
      const n = copy.encounters.length;
      expect(n).toBe(facts.encounters);
      expect(n).toBeGreaterThanOrEqual(before);
      expect(n).toBeLessThan(total);
      expect(copy.encounters.map((e) => e.encounter_number)).toEqual(Array.from({ length: n }, (_, i) => `ENC-2026-${String(i + 1).padStart(6, '0')}`));
      expect(copy.submissions).toBe(n);
      expectWhole(copy.encounters);

      // Restore is refused while the data directory is served, naming the server.
      const refused = await runTpa(['local', 'restore', file, '--yes'], { home: home.dir, env: CLOCK });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`held by a running \`tpa local serve\` (pid ${server.child.pid}`);
      expect(refused.stderr).toContain('restoring would replace the database under it. Nothing was changed.');
      const page = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'x-api-key': key } });
      expect(((await page.json()) as { count: number }).count).toBe(total);
    } finally {
      await writer.stop().catch(() => undefined);
      await server.stop();
    }

    // Stopped: restored, and served again, the data is the backup's.
    const restored = await runTpa(['local', 'restore', file, '--yes', '-o', 'json'], { home: home.dir, env: CLOCK });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json()).toMatchObject({ restored: file, database: join(home.dir, 'local.sqlite'), encounters: copy.encounters.length });
    const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: home.dir, env: CLOCK });
    expect(deep.code, deep.stderr).toBe(0);
    expect(deep.json()).toMatchObject({ whole: true, count: copy.chain.count, tables_agree: true, checked: { encounters: copy.encounters.length } });
    server = await serve(home.dir, ['--no-rate-limit'], CLOCK);
    try {
      const page = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'x-api-key': key } });
      expect(((await page.json()) as { count: number }).count).toBe(copy.encounters.length);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('tpa local backup', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  async function withClaim(env: Record<string, string> = {}) {
    const claim = join(out.dir, 'claim.json');
    writeFileSync(claim, JSON.stringify(distinctClaim(0)));
    const r = await home.run(['claim', 'submit', claim, '--wait', '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
  }

  it('is written 0600 whatever the umask, and prints the file, its size, its encounters and entries, and the audit head', async () => {
    await withClaim();
    const umask = process.umask(0o000);
    let r: Awaited<ReturnType<typeof home.run>>;
    try {
      r = await home.run(['local', 'backup', join(out.dir, 'b.sqlite'), '-o', 'json']);
    } finally {
      process.umask(umask);
    }
    expect(r.code, r.stderr).toBe(0);
    expect(mode(join(out.dir, 'b.sqlite'))).toBe(0o600);
    const head = (await home.run(['local', 'audit', 'head', '-o', 'json'])).json<{ seq: number; hash: string }>();
    expect(r.json()).toMatchObject({ encounters: 1, ledger_entries: 3, audit_head_seq: head.seq, audit_head: head.hash, encrypted: false });
  });

  it('never writes over a file without --force, nor inside the data directory; with --force it replaces the file', async () => {
    await withClaim();
    const target = join(out.dir, 'b.sqlite');
    writeFileSync(target, 'keep me');
    const kept = await home.run(['local', 'backup', target]);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain(`${target} exists: tpa does not write over it`);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    const inside = await home.run(['local', 'backup', join(home.dir, 'journals', 'b.sqlite')]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`is inside the data directory ${home.dir}`);
    expect(existsSync(join(home.dir, 'journals', 'b.sqlite'))).toBe(false);
    const forced = await home.run(['local', 'backup', target, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readCopy(target).encounters).toHaveLength(1);
    expect(readdirSync(out.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('of an encrypted database stays encrypted under the same key, which is neither in the file nor printed', async () => {
    const dbKey = randomBytes(32).toString('hex');
    const env = { TPA_DB_KEY: dbKey };
    expect((await home.run(['local', 'init', '--encrypt'], env)).code).toBe(0);
    await withClaim(env);
    const target = join(out.dir, 'b.sqlite');
    const r = await home.run(['local', 'backup', target, '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ encrypted: true, encounters: 1 });
    const bytes = readFileSync(target);
    expect(bytes.subarray(0, 16).toString('latin1')).not.toBe('SQLite format 3\0');
    for (const secret of [dbKey, Buffer.from(dbKey, 'hex').toString('base64')]) {
      expect(bytes.includes(Buffer.from(secret, 'latin1'))).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(bytes.includes(Buffer.from(dbKey, 'hex'))).toBe(false);
    // Member data is not in it in plain text.
    expect(bytes.includes(Buffer.from('MBR-1001'))).toBe(false);
    // Restored under the same key into a fresh data directory, it is the database it was.
    const other = tempDir();
    try {
      const restored = await runTpa(['local', 'restore', target, '--yes', '-o', 'json'], { home: other.dir, env });
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.json()).toMatchObject({ encrypted: true, encounters: 1 });
      const verify = await runTpa(['local', 'audit', 'verify', '-o', 'json'], { home: other.dir, env });
      expect(verify.code, verify.stderr).toBe(0);
      // Without the key, it is not opened: exit 5, nothing made.
      const keyless = tempDir();
      try {
        const refused = await runTpa(['local', 'restore', target, '--yes'], { home: keyless.dir });
        expect(refused.code).toBe(5);
        expect(refused.stderr).toContain('is encrypted, and no key was found to open it; nothing was changed');
        expect(existsSync(join(keyless.dir, 'local.sqlite'))).toBe(false);
      } finally {
        keyless.remove();
      }
    } finally {
      other.remove();
    }
  });
});

describe('tpa local restore refuses what is not a whole tpa database, replacing nothing', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  /** A data directory with one claim, and a backup of it; the database made one file so that its bytes can be compared. */
  async function sandboxAndBackup() {
    const claim = join(out.dir, 'claim.json');
    writeFileSync(claim, JSON.stringify(distinctClaim(0)));
    expect((await home.run(['claim', 'submit', claim, '--wait'])).code).toBe(0);
    const backup = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', backup])).code).toBe(0);
    // Then one more claim: the database is no longer the backup.
    const next = join(out.dir, 'next.json');
    writeFileSync(next, JSON.stringify(distinctClaim(1)));
    expect((await home.run(['claim', 'submit', next, '--wait'])).code).toBe(0);
    return backup;
  }

  const cases: [name: string, make: (good: string, bad: string) => void, message: RegExp][] = [
    ['a file that is not SQLite', (_g, bad) => writeFileSync(bad, 'id,amount\n1,100.00\n'), /is not a SQLite database: it is not a tpa backup/],
    [
      'a truncated copy',
      (good, bad) => {
        copyFileSync(good, bad);
        truncateSync(bad, Math.floor(statSync(good).size / 2 / 1024) * 1024);
      },
      /is not a whole SQLite database \(cut short or damaged\)|is damaged: SQLite's integrity check says/,
    ],
    [
      'a SQLite database of another program',
      (_g, bad) => {
        const db = new Database(bad);
        db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('hello')");
        db.close();
      },
      /is a SQLite database but not a tpa one \(no table settings, encounters, history_entries, settlements\)/,
    ],
    [
      'a backup from a newer tpa',
      (good, bad) => {
        copyFileSync(good, bad);
        const db = new Database(bad);
        db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
        db.close();
      },
      new RegExp(`was written by a newer tpa \\(schema version ${SCHEMA_VERSION + 1}; this tpa knows ${SCHEMA_VERSION}\\): upgrade tpa`),
    ],
    [
      'a backup whose audit chain was edited',
      (good, bad) => {
        copyFileSync(good, bad);
        const db = new Database(bad);
        // The triggers that refuse changes are dropped, as one who edits the file would, and put
        // back as they were (the schema is tpa's again: only the chain tells).
        const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'`).all() as {
          name: string;
          sql: string;
        }[];
        for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
        db.prepare(`UPDATE audit_log SET subject = 'enc_forged' WHERE seq = 1`).run();
        for (const t of triggers) db.exec(t.sql);
        db.close();
      },
      /does not hold a whole audit chain: record 1: its content does not match its hash/,
    ],
  ];

  for (const [name, make, message] of cases) {
    it(`${name}: exit 2, a clear message, the database unchanged`, async () => {
      const good = await sandboxAndBackup();
      const bad = join(out.dir, 'bad.sqlite');
      make(good, bad);
      const live = join(home.dir, 'local.sqlite');
      const before = readCopy(live).encounters.length;
      const content = databaseContent(live);
      const r = await home.run(['local', 'restore', bad, '--yes']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(bad);
      noStack(r.stderr);
      expect(databaseContent(live)).toBe(content);
      expect(readCopy(live).encounters).toHaveLength(before);
      expect(readdirSync(home.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });
  }

  it('while another process has the database open (a claim batch, a payment run), exit 4 and nothing replaced', async () => {
    const good = await sandboxAndBackup();
    const live = join(home.dir, 'local.sqlite');
    const content = databaseContent(live);
    const other = new Database(live);
    try {
      other.pragma('journal_mode = WAL');
      other.prepare('SELECT count(*) FROM encounters').pluck().get();
      const r = await home.run(['local', 'restore', good, '--yes']);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('is in use by another tpa process');
      expect(r.stderr).toContain('nothing was changed');
    } finally {
      other.close();
    }
    expect(databaseContent(live)).toBe(content);
    expect(readdirSync(home.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('without --yes and without a terminal it asks for nothing and replaces nothing (exit 2)', async () => {
    const good = await sandboxAndBackup();
    const live = join(home.dir, 'local.sqlite');
    const content = databaseContent(live);
    const r = await home.run(['local', 'restore', good]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pass --yes');
    expect(databaseContent(live)).toBe(content);
  });

  it('a plain backup is not restored into an encrypted data directory (exit 4), which would keep member data in plain text', async () => {
    const good = await sandboxAndBackup();
    const encrypted = tempDir();
    try {
      const env = { TPA_DB_KEY: randomBytes(32).toString('hex') };
      expect((await runTpa(['local', 'init', '--encrypt'], { home: encrypted.dir, env })).code).toBe(0);
      const before = digest(join(encrypted.dir, 'local.sqlite'));
      const r = await runTpa(['local', 'restore', good, '--yes'], { home: encrypted.dir, env });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('is encrypted and');
      expect(r.stderr).toContain('would keep member data in plain text; nothing was changed');
      expect(digest(join(encrypted.dir, 'local.sqlite'))).toBe(before);
    } finally {
      encrypted.remove();
    }
  });
});

describe('a restore killed at any instant (kill -9)', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  /** The audit records the data directory's database holds, opened as every command opens it (exit 0, chain whole). */
  async function records(): Promise<number> {
    const r = await home.run(['local', 'audit', 'verify', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    return r.json<{ count: number }>().count;
  }

  for (const when of ['before', 'after'] as const)
    it(`killed just ${when} the rename that puts the backup in place, the database is the ${when === 'before' ? 'old' : 'new'} one, whole`, async () => {
      const claim = join(out.dir, 'claim.json');
      writeFileSync(claim, JSON.stringify(distinctClaim(0)));
      const backup = join(out.dir, 'backup.sqlite');
      expect((await home.run(['local', 'init'])).code).toBe(0);
      expect((await home.run(['local', 'backup', backup])).code).toBe(0);
      expect((await home.run(['claim', 'submit', claim, '--wait'])).code).toBe(0);
      const old = await records();
      // As a process killed mid-use leaves it: a commit still in the WAL beside the database, which
      // must never be applied to the backup put in its place.
      const live = join(home.dir, 'local.sqlite');
      const db = new Database(live);
      db.pragma('wal_autocheckpoint = 0');
      db.prepare(`INSERT INTO settings (key, value) VALUES ('left-in-wal', '1')`).run();
      const wal = readFileSync(`${live}-wal`);
      db.close();
      writeFileSync(`${live}-wal`, wal, { mode: 0o600 });
      const markers = tempDir();
      try {
        const env = { ...testEnv({ home: home.dir, env: CLOCK }), TPA_TEST_RENAME_HOLD_DIR: markers.dir, TPA_TEST_RENAME_HOLD: when };
        const child = spawn(process.execPath, ['--import', RENAME_HOLD, TPA_BIN, 'local', 'restore', backup, '--yes'], { env, cwd: home.dir, stdio: 'ignore' });
        const exited = new Promise((resolve) => child.on('exit', resolve));
        await until(() => readdirSync(markers.dir).some((f) => f.startsWith('held-')) || child.exitCode !== null);
        expect(child.exitCode).toBe(null);
        child.kill('SIGKILL');
        await exited;
      } finally {
        markers.remove();
      }
      expect(await records()).toBe(when === 'before' ? old : 0);
      expect(readCopy(live).integrity).toBe('ok');
      const leftInWal = () => {
        const copy = new Database(live, { readonly: true });
        try {
          return copy.prepare(`SELECT count(*) FROM settings WHERE key = 'left-in-wal'`).pluck().get();
        } finally {
          copy.close();
        }
      };
      expect(leftInWal()).toBe(when === 'before' ? 1 : 0);
    });

  it('leaves the old database or the new one, whole, and the next restore removes what it left', async () => {
    const claim = (i: number) => {
      const path = join(out.dir, `claim-${i}.json`);
      writeFileSync(path, JSON.stringify(distinctClaim(i)));
      return path;
    };
    expect((await home.run(['claim', 'submit', claim(0), '--wait'])).code).toBe(0);
    const small = join(out.dir, 'small.sqlite');
    expect((await home.run(['local', 'backup', small])).code).toBe(0);
    for (const i of [1, 2, 3]) expect((await home.run(['claim', 'submit', claim(i), '--wait'])).code).toBe(0);
    const large = join(out.dir, 'large.sqlite');
    expect((await home.run(['local', 'backup', large])).code).toBe(0);
    const held: Record<string, number> = { [small]: 1, [large]: 4 };
    expect(await records()).toBe(held[large]);
    // How long a whole restore takes here, as a process: the kills are drawn from that span.
    const started = performance.now();
    const whole = await tpa(['local', 'restore', small, '--yes'], { home: home.dir, env: CLOCK });
    const spanMs = performance.now() - started;
    expect(whole.code, whole.stderr).toBe(0);
    expect(await records()).toBe(held[small]);

    const env = testEnv({ home: home.dir, env: CLOCK });
    const instants: number[] = [];
    for (let k = 0; k < 8; k++) {
      const before = await records();
      const target = before === held[small] ? large : small;
      const child = spawn(process.execPath, [TPA_BIN, 'local', 'restore', target, '--yes'], { env, cwd: home.dir, stdio: 'ignore' });
      const at = Math.floor(Math.random() * spanMs);
      instants.push(at);
      const timer = setTimeout(() => child.kill('SIGKILL'), at);
      await new Promise((resolve) => child.on('exit', resolve));
      clearTimeout(timer);
      // Whole, and one of the two: the one there before, or the one restored.
      expect([before, held[target]], `killed at ${instants.join(', ')} ms`).toContain(await records());
    }
    const last = await home.run(['local', 'restore', large, '--yes']);
    expect(last.code, last.stderr).toBe(0);
    expect(await records()).toBe(held[large]);
    // The restore's own temporary copies (a kill can also land in the write of the lock's information
    // file, serve.lock.json, whose temporary is another command's to clear).
    expect(readdirSync(home.dir).filter((f) => f.endsWith('.restore.tmp'))).toEqual([]);
  });
});
