// An encrypted data directory keeps no member data in plain text in any file: after a day's work
// through the CLI (a batch with invalid claims and a symbolic link in its folder, single claims, a
// payment run, a report, an 835, the journals read back), every file under the data directory is
// read as bytes (journals, fund history, job records, locks, the database, its WAL) and none holds
// a member's name, id or diagnosis code that the day's claims held. The journals are still read back
// by tpa: `tpa jobs show` lists the invalid claims and `--failed-to` writes them out (the user's
// export, outside the data directory). Without the key no journal is read or written.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { Journal } from '../../src/jobs/journal.js';
import { JournalLock } from '../../src/jobs/journal-lock.js';
import { openDatabase } from '../../src/engine/store/db.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { serve } from '../helpers/server.js';
import { ndjson } from '../helpers/values.js';
import { checked835 } from '../helpers/x12-835-check.js';

type Row = Record<string, any>;

let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
  work = tempDir('tpa-work-');
});
afterEach(() => {
  home.remove();
  work.remove();
});

const newKey = () => randomBytes(32).toString('hex');

/** Every file under `dir`, recursively (symbolic links listed, not followed). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files under `dir` whose bytes hold one of `needles`, each with the needles it holds. */
function filesHolding(dir: string, needles: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(dir)) {
    if (lstatSync(file).isSymbolicLink()) continue;
    const bytes = readFileSync(file);
    const held = needles.filter((n) => bytes.includes(Buffer.from(n, 'utf8')));
    if (held.length > 0) found.push(`${file.slice(dir.length + 1)}: ${held.join(', ')}`);
  }
  return found;
}

// The day's member data: MBR-1001 is Jane Doe (the seed's member), her claims' diagnosis Z12.11
// (the claim template's); the claim a symbolic link points at names a diagnosis of its own.
const MEMBER_DATA = ['Jane Doe', 'MBR-1001', 'Z12.11', 'E11.9'];

function claimFor(day: string, cpt: string): Row {
  return claimTemplate({ type: 'professional', npi: '1045782368', cpt: [cpt], patient: 'MBR-1001', serviceDate: day }) as Row;
}

describe('an encrypted data directory after a day of work', () => {
  it('holds no member name, member id or diagnosis in plain text in any file, and tpa still reads its journals back', async () => {
    const env = { TPA_DB_KEY: newKey(), TPA_CLOCK: '2026-03-02T10:00:00Z' };
    const run = (args: string[]) => runTpa(args, { home: home.dir, env, cwd: work.dir });
    expect((await run(['local', 'init', '--encrypt'])).code).toBe(0);

    // A folder of claims: three good ones, one invalid (no total) that names the member, and a
    // symbolic link to an invalid claim kept elsewhere.
    const folder = join(work.dir, 'claims');
    mkdirSync(folder);
    ['2026-02-03', '2026-02-04', '2026-02-05'].forEach((day, i) =>
      writeFileSync(join(folder, `claim-${i + 1}.json`), JSON.stringify(claimFor(day, ['45378', '45380', '43235'][i]!))),
    );
    const invalid = claimFor('2026-02-06', '45378');
    invalid.patient = { reference: 'Patient/MBR-1001', display: 'Jane Doe' };
    delete invalid.item;
    writeFileSync(join(folder, 'claim-4.json'), JSON.stringify(invalid));
    const elsewhere = claimFor('2026-02-07', '45378');
    elsewhere.patient = { reference: 'Patient/MBR-1001', display: 'Jane Doe' };
    elsewhere.diagnosis = [{ sequence: 1, diagnosisCodeableConcept: { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'E11.9' }] } }];
    delete elsewhere.item;
    writeFileSync(join(work.dir, 'kept-elsewhere.json'), JSON.stringify(elsewhere));
    symlinkSync(join(work.dir, 'kept-elsewhere.json'), join(folder, 'linked.json'));

    const batch = await run(['claim', 'submit', 'claims', '-o', 'ndjson']);
    const outcomes = ndjson(batch.stdout);
    expect(
      outcomes.filter((o) => o.status === 'ACKNOWLEDGED'),
      batch.stderr,
    ).toHaveLength(3);
    expect(outcomes.filter((o) => o.status === 'INVALID')).toHaveLength(2);

    // A single claim, invalid: the journal of single claims keeps it too.
    writeFileSync(join(work.dir, 'single.json'), JSON.stringify(invalid));
    expect((await run(['claim', 'submit', 'single.json'])).code).not.toBe(0);
    // A single claim the service refuses (a member it does not know), kept with its text to fix.
    const refused = claimFor('2026-02-08', '45378');
    refused.patient = { reference: 'Patient/MBR-9999', display: 'Jane Doe' };
    writeFileSync(join(work.dir, 'refused.json'), JSON.stringify(refused));
    const refusal = await run(['claim', 'submit', 'refused.json', '-o', 'json']);
    expect(refusal.code, refusal.stdout).not.toBe(0);
    // One good single claim.
    writeFileSync(join(work.dir, 'good.json'), JSON.stringify(claimFor('2026-02-10', '43235')));
    expect((await run(['claim', 'submit', 'good.json'])).code).toBe(0);

    // The payment run, its transfers settled, a report and an 835.
    const review = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<Row>();
    expect(review.count).toBeGreaterThan(0);
    const paid = await run(['fund', 'run', '--auth-code-prefix', 'AUTH-20260302-DAY', '--expect-total', String(review.total), '--yes', '-o', 'ndjson']);
    expect(paid.code, paid.stderr).toBe(0);
    const funded = ndjson(paid.stdout);
    expect(funded.every((o) => o.status === 'APPROVED')).toBe(true);
    expect((await runTpa(['local', 'clock', 'advance', '2d'], { home: home.dir, env: { TPA_DB_KEY: env.TPA_DB_KEY }, cwd: work.dir })).code).toBe(0);
    const later = { ...env, TPA_CLOCK: '2026-03-04T12:00:00Z' };
    const report = await runTpa(['settlement', 'report', '--from', '2026-02-01', '--to', '2026-03-31'], { home: home.dir, env: later, cwd: work.dir });
    expect(report.code, report.stderr).toBe(0);
    const remit = await runTpa(['settlement', 'remit', funded[0]!.encounter_id], { home: home.dir, env: later, cwd: work.dir });
    expect(remit.code, remit.stderr).toBe(0);
    expect(remit.stdout).toMatch(/^ISA\*/);
    checked835(remit.stdout);
    expect((await runTpa(['fund', 'history', '-o', 'ndjson'], { home: home.dir, env: later, cwd: work.dir })).stdout).toContain('AUTH-20260302-DAY-0001');

    // tpa reads its journals back: the jobs, the invalid claims, and the claims written out to fix.
    const jobs = (await run(['jobs', '-o', 'json'])).json<Row[]>();
    const claims = jobs.find((j) => j.kind === 'claim batch')!;
    expect(claims).toMatchObject({ done: 3, invalid: 2, problem: null });
    expect(jobs.find((j) => j.kind === 'payment run')).toMatchObject({ state: 'finished', problem: null });
    const failedTo = join(work.dir, 'fix.ndjson');
    const shown = await run(['jobs', 'show', claims.id, '--failed-to', failedTo]);
    expect(shown.code, shown.stderr).toBe(0);
    const fixed = ndjson(readFileSync(failedTo, 'utf8'));
    expect(fixed.map((c) => c.patient.display)).toEqual(['Jane Doe', 'Jane Doe']);
    const single = jobs.find((j) => j.kind === 'single claims')!;
    expect(single).toMatchObject({ failed: 1, problem: null });
    const again = join(work.dir, 'fix-single.ndjson');
    expect((await run(['jobs', 'show', single.id, '--failed-to', again])).code).toBe(0);
    expect(ndjson(readFileSync(again, 'utf8')).map((c) => c.patient.reference)).toEqual(['Patient/MBR-9999']);

    // Every file of the data directory, as bytes: no member data.
    const files = filesUnder(home.dir).map((f) => f.slice(home.dir.length + 1));
    expect(files).toEqual(expect.arrayContaining(['local.sqlite', 'journals/fund-history.ndjson']));
    expect(files.filter((f) => f.startsWith('journals/claims-') && f.endsWith('.ndjson'))).toHaveLength(1);
    expect(files.filter((f) => f.startsWith('journals/fund-run-'))).toHaveLength(1);
    expect(filesHolding(home.dir, MEMBER_DATA)).toEqual([]);
    // And the test's own check finds member data where it is: the claims folder and the export.
    expect(filesHolding(work.dir, MEMBER_DATA).length).toBeGreaterThan(0);

    // While local serve holds the database (its WAL written), claims sent to it over HTTP: the same.
    const server = await serve(home.dir, [], { TPA_DB_KEY: env.TPA_DB_KEY, TPA_CLOCK: later.TPA_CLOCK });
    try {
      const apiKey = (await runTpa(['local', 'keys', 'create'], { home: home.dir, env: later })).stdout.trim();
      const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], {
        home: home.dir,
        env: later,
        input: apiKey,
      });
      expect(login.code, login.stderr).toBe(0);
      writeFileSync(join(work.dir, 'http.ndjson'), `${JSON.stringify(claimFor('2026-02-11', '45380'))}\n${JSON.stringify(invalid)}\n`);
      const overHttp = await runTpa(['claim', 'submit', 'http.ndjson', '-p', 'sandbox', '-o', 'ndjson'], { home: home.dir, env: later, cwd: work.dir });
      expect(
        ndjson(overHttp.stdout)
          .map((o) => o.status)
          .sort(),
      ).toEqual(['ACKNOWLEDGED', 'INVALID']);
      expect(readdirSync(home.dir)).toContain('local.sqlite-wal');
      expect(filesHolding(home.dir, MEMBER_DATA)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('the journals of an encrypted data directory', () => {
  async function batchWithInvalidClaim(env: Record<string, string>) {
    const bad = claimFor('2026-02-06', '45378');
    bad.patient = { reference: 'Patient/MBR-1001', display: 'Jane Doe' };
    delete bad.item;
    writeFileSync(join(work.dir, 'b.ndjson'), `${JSON.stringify(claimFor('2026-02-03', '45378'))}\n${JSON.stringify(bad)}\n`);
    return runTpa(['claim', 'submit', 'b.ndjson', '--journal', join(home.dir, 'journals', 'b.ndjson'), '-o', 'ndjson'], { home: home.dir, env, cwd: work.dir });
  }

  it('a journal written before (plain lines) is still read, what is appended to it is sealed, and local encrypt seals the rest', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: '2026-03-02T10:00:00Z' };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    // A journal of an earlier tpa: plain lines.
    const journal = join(home.dir, 'journals', 'b.ndjson');
    mkdirSync(join(home.dir, 'journals'));
    writeFileSync(
      journal,
      `${JSON.stringify({ type: 'batch', version: 2, started_at: '2026-03-01T10:00:00.000Z', kind: 'batch', profile: 'local', base_url: null })}\n`,
    );
    const r = await batchWithInvalidClaim(env);
    expect(
      ndjson(r.stdout)
        .map((o) => o.status)
        .sort(),
    ).toEqual(['ACKNOWLEDGED', 'INVALID']);
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    expect(lines[0]).toContain('"type":"batch"');
    expect(lines.slice(1).every((l) => /^\{"sealed":"[A-Za-z0-9+/=]+"\}$/.test(l))).toBe(true);
    const shown = (await runTpa(['jobs', 'show', 'b', '-o', 'json'], { home: home.dir, env })).json<Row>();
    expect(shown).toMatchObject({ kind: 'claim batch', done: 1, invalid: 1, problem: null });
    // Run again: the journal's acknowledgment is read back (sealed), the claim not sent twice.
    expect(
      ndjson((await batchWithInvalidClaim(env)).stdout)
        .map((o) => o.status)
        .sort(),
    ).toEqual(['INVALID', 'SKIPPED']);
    // A data directory encrypted by an earlier tpa: local encrypt seals the plain lines left, once.
    const plainInvalid = { type: 'invalid', source: 'old.json', errors: [], text: JSON.stringify({ patient: { display: 'Jane Doe' } }) };
    writeFileSync(journal, `${readFileSync(journal, 'utf8')}${JSON.stringify(plainInvalid)}\n`);
    expect(filesHolding(home.dir, ['Jane Doe'])).toEqual(['journals/b.ndjson: Jane Doe']);
    const sealed = await runTpa(['local', 'encrypt', '-o', 'json'], { home: home.dir, env });
    expect(sealed.code, sealed.stderr).toBe(0);
    expect(sealed.json<Row>()).toMatchObject({ encrypted: true, journals_sealed: 1 });
    expect(filesHolding(home.dir, MEMBER_DATA)).toEqual([]);
    expect((await runTpa(['jobs', 'show', 'b', '-o', 'json'], { home: home.dir, env })).json<Row>()).toMatchObject({ done: 1, invalid: 2, problem: null });
    const again = await runTpa(['local', 'encrypt'], { home: home.dir, env });
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/is encrypted already; nothing was changed \(its journals are sealed too\)/);
  });

  it('without the key, or with another, no journal is read or written: exit 5, or the line named as not opened', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: '2026-03-02T10:00:00Z' };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    expect(ndjson((await batchWithInvalidClaim(env)).stdout)).toHaveLength(2);
    const journal = join(home.dir, 'journals', 'b.ndjson');
    const before = readFileSync(journal);
    // No key: refused with exit 5, the journal as it was.
    const missing = await runTpa(['jobs', 'show', 'b'], { home: home.dir, env: { TPA_CLOCK: env.TPA_CLOCK } });
    expect(missing.code, missing.stderr).toBe(5);
    expect(missing.stderr).toMatch(/its journals are too, and its key was not found/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const history = await runTpa(['fund', 'history'], { home: home.dir, env: { TPA_CLOCK: env.TPA_CLOCK } });
    expect(history.code, history.stderr).toBe(5);
    // Another key: refused before any journal is read or written with it (it does not open the database).
    const other = await runTpa(['jobs', 'show', 'b'], { home: home.dir, env: { ...env, TPA_DB_KEY: newKey() } });
    expect(other.code, other.stderr).toBe(5);
    expect(other.stderr).toMatch(/the key given does not open the local database .* \(it is encrypted with another key\)/);
    expect(readFileSync(journal).equals(before)).toBe(true);
    // A sealed line changed in the file: found, not read.
    const lines = before.toString('utf8').trim().split('\n');
    const sealed = JSON.parse(lines[1]!).sealed as string;
    const flipped = Buffer.from(sealed, 'base64');
    flipped[flipped.length - 1]! ^= 1;
    lines[1] = JSON.stringify({ sealed: flipped.toString('base64') });
    writeFileSync(journal, `${lines.join('\n')}\n`);
    const changed = (await runTpa(['jobs', '-o', 'json'], { home: home.dir, env })).json<Row[]>();
    expect(changed.find((j) => j.id === 'b')!.problem).toMatch(/damaged at line 2/);
  });

  it('local encrypt seals the journals written before with the database, and refuses (exit 4, nothing changed) while a job holds one, or (exit 2) when one is damaged', async () => {
    const env = { TPA_CLOCK: '2026-03-02T10:00:00Z' };
    expect((await runTpa(['local', 'init'], { home: home.dir, env })).code).toBe(0);
    expect(ndjson((await batchWithInvalidClaim(env)).stdout)).toHaveLength(2);
    const review = (await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home: home.dir, env })).json<Row>();
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260302-ENC', '--expect-total', String(review.total), '--yes'];
    expect((await runTpa(args, { home: home.dir, env })).code).toBe(0);
    expect(filesHolding(home.dir, ['Jane Doe']).length).toBeGreaterThan(0);
    const key = newKey();
    // A job holding a journal: refused, the database still plain.
    const held = await JournalLock.take(join(home.dir, 'journals', 'b.ndjson'), 'claim batch');
    try {
      const busy = await runTpa(['local', 'encrypt'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } });
      expect(busy.code, busy.stderr).toBe(4);
      expect(busy.stderr).toContain('local encrypt seals every journal with the database: the journal');
      expect(busy.stderr).toContain('nothing was changed');
      expect(readFileSync(join(home.dir, 'local.sqlite')).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    } finally {
      held.release();
    }
    // A damaged journal: refused before anything changes (exit 2), the database still plain.
    const damaged = join(home.dir, 'journals', 'damaged.ndjson');
    writeFileSync(damaged, 'not a record\n');
    const refused = await runTpa(['local', 'encrypt'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`the journal ${damaged} is damaged at line 1`);
    expect(readFileSync(join(home.dir, 'local.sqlite')).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    rmSync(damaged);
    const encrypted = await runTpa(['local', 'encrypt', '-o', 'json'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } });
    expect(encrypted.code, encrypted.stderr).toBe(0);
    expect(encrypted.json<Row>().journals_sealed).toBeGreaterThanOrEqual(1);
    expect(filesHolding(home.dir, MEMBER_DATA)).toEqual([]);
    const shown = (await runTpa(['jobs', 'show', 'b', '-o', 'json'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } })).json<Row>();
    expect(shown).toMatchObject({ kind: 'claim batch', done: 1, invalid: 1, problem: null });
    // Resumed after: the acknowledgment read back sealed, the claim not sent twice.
    expect(
      ndjson((await batchWithInvalidClaim({ ...env, TPA_DB_KEY: key })).stdout)
        .map((o) => o.status)
        .sort(),
    ).toEqual(['INVALID', 'SKIPPED']);
  });

  it('a run that took the lock of a journal since replaced whole (sealed by local encrypt) stops before reading or writing it (exit 4)', async () => {
    const path = join(home.dir, 'j.ndjson');
    writeFileSync(path, `${JSON.stringify({ type: 'batch', version: 2 })}\n`);
    const lock = await JournalLock.take(path, 'claim batch');
    writeFileSync(`${path}.new`, `${JSON.stringify({ type: 'batch', version: 2 })}\n`);
    renameSync(`${path}.new`, path);
    const before = readFileSync(path, 'utf8');
    let thrown: unknown;
    try {
      Journal.open(path, () => undefined, { lock }).close();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ exitCode: 4, message: expect.stringContaining('was replaced while this run waited for it; nothing was sent') });
    expect(readFileSync(path, 'utf8')).toBe(before);
    // The lock was let go: the journal's own lock is taken at once.
    (await JournalLock.take(path, 'claim batch')).release();
  });

  it('local init --encrypt after a reset seals the journals already in the data directory (those kept elsewhere too), as local encrypt does', async () => {
    const env = { TPA_CLOCK: '2026-03-02T10:00:00Z' };
    // A plain data directory's day: a batch with an invalid claim (its journal in the data
    // directory), the same with its journal kept elsewhere (--journal), and a payment run.
    expect(ndjson((await batchWithInvalidClaim(env)).stdout)).toHaveLength(2);
    writeFileSync(join(work.dir, 'c.ndjson'), readFileSync(join(work.dir, 'b.ndjson')));
    const kept = join(work.dir, 'kept', 'c.ndjson');
    const elsewhere = await runTpa(['claim', 'submit', 'c.ndjson', '--journal', kept, '-o', 'ndjson'], { home: home.dir, env, cwd: work.dir });
    expect(ndjson(elsewhere.stdout).map((o) => o.status)).toContain('INVALID');
    expect(readFileSync(kept, 'utf8')).toContain('Jane Doe');
    expect(filesHolding(home.dir, ['Jane Doe']).length).toBeGreaterThan(0);
    // Reset, then a new database made encrypted: the journals left behind are sealed with it.
    expect((await runTpa(['local', 'reset', '--yes'], { home: home.dir, env })).code).toBe(0);
    const key = newKey();
    const init = await runTpa(['local', 'init', '--encrypt', '-o', 'json'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } });
    expect(init.code, init.stderr).toBe(0);
    expect(filesHolding(home.dir, MEMBER_DATA)).toEqual([]);
    expect(filesHolding(join(work.dir, 'kept'), MEMBER_DATA)).toEqual([]);
    expect(init.json<Row>()).toMatchObject({ created: true, encrypted: true, journals_sealed: 2 });
    expect(init.stderr).toContain('init: 2 journal(s) already in the data directory sealed with it');
    // Still read back with the key, and nothing said of plain lines.
    const shown = await runTpa(['jobs', 'show', 'b', '-o', 'json'], { home: home.dir, env: { ...env, TPA_DB_KEY: key } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json<Row>()).toMatchObject({ kind: 'claim batch', invalid: 1, problem: null });
    expect(shown.stderr).not.toContain('plain text');
  });

  it('claim submit of one claim without the key, or with another, creates nothing: no journal of single claims, no lock (exit 5)', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: '2026-03-02T10:00:00Z' };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    writeFileSync(join(work.dir, 'one.json'), JSON.stringify(claimFor('2026-02-03', '45378')));
    const server = await serve(home.dir, [], env);
    try {
      const apiKey = (await runTpa(['local', 'keys', 'create'], { home: home.dir, env })).stdout.trim();
      const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home: home.dir, env, input: apiKey });
      expect(login.code, login.stderr).toBe(0);
      const before = filesUnder(home.dir).sort();
      for (const profile of [[], ['-p', 'sandbox']])
        for (const dbKey of [undefined, newKey()]) {
          const r = await runTpa(['claim', 'submit', 'one.json', ...profile], { home: home.dir, env: { ...env, TPA_DB_KEY: dbKey }, cwd: work.dir });
          expect(r.code, r.stderr).toBe(5);
          expect(r.stderr).not.toMatch(/\n\s+at /);
          expect(filesUnder(home.dir).sort()).toEqual(before);
        }
    } finally {
      await server.stop();
    }
  });

  it('tpa demo, on its scratch engine, needs no key of the encrypted data directory', async () => {
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env: { TPA_DB_KEY: newKey() } })).code).toBe(0);
    const r = await runTpa(['demo', '-o', 'json'], { home: home.dir });
    expect(r.code, r.stderr).toBe(0);
  });

  it("SQLite's temporary files (sorts, temporary tables) stay in memory for an encrypted database, never on the disk in plain text", () => {
    const encrypted = openDatabase(join(home.dir, 'e.sqlite'), { key: randomBytes(32), createEncrypted: true });
    const plain = openDatabase(join(work.dir, 'p.sqlite'));
    try {
      // 2: MEMORY (this build's default, 0, puts them in files).
      expect(encrypted.pragma('temp_store', { simple: true })).toBe(2);
      expect(plain.pragma('temp_store', { simple: true })).toBe(0);
    } finally {
      encrypted.close();
      plain.close();
    }
  });
});
