// The data directory: the folder is the user's alone and every file in
// it private whatever the umask; the database can be encrypted at rest (AES-256) with a key from the
// keychain or TPA_DB_KEY; a database from a newer tpa is refused with nothing changed.
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { call } from '../helpers/engine.js';
import { runTpa, tpa, useTpaHome } from '../helpers/cli.js';
import { serve } from '../helpers/server.js';

const home = useTpaHome(beforeEach, afterEach);
const file = () => join(home.dir, 'local.sqlite');
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;
const newKey = () => randomBytes(32).toString('hex');
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

let umask: number;
beforeAll(() => {
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});

/** Every file and folder under `dir`, with its mode. */
function modesUnder(dir: string): { path: string; dir: boolean; mode: number }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path);
    return st.isDirectory() ? [{ path, dir: true, mode: st.mode & 0o777 }, ...modesUnder(path)] : [{ path, dir: false, mode: st.mode & 0o777 }];
  });
}

describe('the data folder and its files, under umask 022', () => {
  it('the database, its WAL and shared memory are 0600 while the engine has them open', () => {
    const engine = Engine.open({ dataDir: home.dir, env: { TPA_ADJUDICATION_DELAY: '0' } });
    try {
      expect(call(engine, 'GET', '/tpa-api/v1/health').status).toBe(200);
      for (const suffix of ['', '-wal', '-shm']) {
        expect(existsSync(`${file()}${suffix}`), suffix).toBe(true);
        expect(mode(`${file()}${suffix}`).toString(8), `local.sqlite${suffix}`).toBe('600');
      }
    } finally {
      engine.close();
    }
  });

  it('a folder that was readable by others is narrowed to 0700 with a note, once; an older 0644 database becomes 0600', async () => {
    const data = join(home.dir, 'wide');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    const plain = new Database(join(data, 'local.sqlite'));
    plain.close();
    chmodSync(join(data, 'local.sqlite'), 0o644);
    const first = await tpa(['local', 'fixtures', '-o', 'json'], { home: data });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/the data folder .*wide was readable by others \(mode 0755\); it is now 0700/);
    expect(mode(data).toString(8)).toBe('700');
    const second = await tpa(['local', 'keys', 'create'], { home: data });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/readable by others/);
    for (const entry of modesUnder(data)) expect(entry.mode.toString(8), entry.path).toBe(entry.dir ? '700' : '600');
  });

  it('a new data folder and everything tpa writes in it (database, journals, history) are private', async () => {
    const data = join(home.dir, 'new', 'tpa');
    const key = (await tpa(['local', 'keys', 'create'], { home: data, cwd: home.dir })).stdout.trim();
    expect(key).toMatch(/^sk_/);
    const batch = join(home.dir, 'batch');
    mkdirSync(batch);
    writeFileSync(join(batch, 'bad.json'), '{"not": "a claim"}');
    copyFileSync(fileURLToPath(new URL('../fixtures/claims/professional.json', import.meta.url)), join(batch, 'professional.json'));
    await tpa(['claim', 'submit', batch], { home: data, cwd: home.dir });
    expect(existsSync(join(data, 'journals'))).toBe(true);
    expect(mode(data).toString(8)).toBe('700');
    const entries = modesUnder(data);
    expect(entries.some((e) => e.path.endsWith('local.sqlite'))).toBe(true);
    for (const entry of entries) expect(entry.mode.toString(8), entry.path).toBe(entry.dir ? '700' : '600');
  });
});

describe('a database written by a newer tpa', () => {
  it('is refused (exit 2) without a byte changed: no switch to WAL, no -wal or -shm file, its mode kept', async () => {
    expect((await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir })).code).toBe(0);
    // A newer tpa's file in the rollback-journal mode, as an older SQLite tool would leave it.
    const db = new Database(file());
    db.pragma('journal_mode = DELETE');
    db.pragma('user_version = 999');
    db.close();
    chmodSync(file(), 0o640);
    const before = digest(file());
    const r = await runTpa(['ledger', 'list'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by a newer tpa \(schema version 999; this tpa knows \d+\): upgrade tpa to use it; it was not changed/);
    noStack(r.stderr);
    expect(digest(file())).toBe(before);
    expect(existsSync(`${file()}-wal`)).toBe(false);
    expect(existsSync(`${file()}-shm`)).toBe(false);
    expect(mode(file()).toString(8)).toBe('640');
  });
});

describe('a database encrypted at rest (AES-256)', () => {
  const memberName = Buffer.from('Jane Doe');

  it('local init --encrypt with TPA_DB_KEY: the file holds no member name in plain text, and the CLI opens it with the key', async () => {
    const key = newKey();
    const init = await runTpa(['local', 'init', '--encrypt', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.json()).toMatchObject({ created: true, encrypted: true });
    expect(init.stderr).toMatch(/encrypted \(AES-256\); its key is in TPA_DB_KEY/);
    const fixtures = await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key } });
    expect(fixtures.code, fixtures.stderr).toBe(0);
    expect(fixtures.stdout).toContain('Jane Doe');
    const bytes = readFileSync(file());
    expect(bytes.subarray(0, 16).toString('latin1')).not.toBe('SQLite format 3\0');
    expect(bytes.includes(memberName)).toBe(false);
    expect(mode(file()).toString(8)).toBe('600');
  });

  it('a wrong key, a missing key, a malformed key: exit 5 (or 2) saying so, no stack trace, the file unchanged', async () => {
    const key = newKey();
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env: { TPA_DB_KEY: key } })).code).toBe(0);
    const before = digest(file());
    const wrong = await runTpa(['ledger', 'list'], { home: home.dir, env: { TPA_DB_KEY: newKey() } });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/is encrypted, and the key given does not open it/);
    noStack(wrong.stderr);
    const missing = await runTpa(['ledger', 'list'], { home: home.dir });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/is encrypted \(or it is not a tpa database\), and no key for it was found/);
    noStack(missing.stderr);
    const malformed = await runTpa(['ledger', 'list'], { home: home.dir, env: { TPA_DB_KEY: 'hunter2' } });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/TPA_DB_KEY must be 64 hexadecimal digits/);
    expect(malformed.stderr).not.toContain('hunter2');
    expect(digest(file())).toBe(before);
  });

  it('local encrypt converts a plain database in place: what it held is still there, and no member name is left in plain text', async () => {
    expect((await runTpa(['local', 'init'], { home: home.dir })).code).toBe(0);
    const apiKey = (await runTpa(['local', 'keys', 'create'], { home: home.dir })).stdout.trim();
    expect(readFileSync(file()).includes(memberName) || existsSync(`${file()}-wal`)).toBe(true);
    const key = newKey();
    const encrypted = await runTpa(['local', 'encrypt', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key } });
    expect(encrypted.code, encrypted.stderr).toBe(0);
    expect(existsSync(`${file()}-wal`) && statSync(`${file()}-wal`).size > 0).toBe(false);
    expect(readFileSync(file()).includes(memberName)).toBe(false);
    // The API key made before is still known: the server answers it over the encrypted database.
    const server = await serve(home.dir, [], { TPA_DB_KEY: key });
    try {
      const res = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'X-API-Key': apiKey } });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
    const again = await runTpa(['local', 'encrypt'], { home: home.dir, env: { TPA_DB_KEY: key } });
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/is encrypted already; nothing was changed/);
  });

  it('local encrypt while another process holds a write on the database is refused (exit 4, busy) naming what to do: the file unchanged', async () => {
    expect((await runTpa(['local', 'init'], { home: home.dir })).code).toBe(0);
    // Another process's write transaction, as a slow claim submit --wait holds one (this test's own
    // connection: the tpa below is a process of its own).
    const holder = new Database(file());
    holder.exec('BEGIN IMMEDIATE');
    let before: string;
    try {
      before = digest(file());
      const r = await tpa(['local', 'encrypt'], { home: home.dir, env: { TPA_DB_KEY: newKey() } });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(`the local database ${file()} is busy: another tpa process is writing to it; nothing was changed`);
      expect(r.stderr).toMatch(/then run tpa local encrypt again/);
      expect(r.stderr).not.toMatch(/internal error|this is a bug/);
      noStack(r.stderr);
      expect(digest(file())).toBe(before);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Once it is let go, the same command encrypts it.
    const done = await runTpa(['local', 'encrypt', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: newKey() } });
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(file()).includes(memberName)).toBe(false);
  }, 60_000);

  it('local init --encrypt on a plain database is refused (exit 4) and points to local encrypt; TPA_KEYRING=off without TPA_DB_KEY makes no key', async () => {
    expect((await runTpa(['local', 'init'], { home: home.dir })).code).toBe(0);
    const r = await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env: { TPA_DB_KEY: newKey() } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/exists and is not encrypted; nothing was changed/);
    expect(r.stderr).toMatch(/tpa local encrypt/);
    const other = join(home.dir, 'other');
    const nokey = await runTpa(['local', 'init', '--encrypt'], { home: other, cwd: home.dir });
    expect(nokey.code).toBe(5);
    expect(nokey.stderr).toMatch(/no keychain to keep the database key in/);
    expect(existsSync(join(other, 'local.sqlite'))).toBe(false);
  });
});
